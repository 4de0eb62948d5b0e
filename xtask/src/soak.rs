//! `cargo xtask soak`: builds the server and the soak (release), then loads the real
//! server for as long as asked and fails if it does not hold up (docs/operations.md,
//! "Soak").

use std::process::Command;

use anyhow::{Result, bail};

/// Runs the soak with `args` (`--minutes N`, optionally `--robots N` and the soak's
/// other options) against a release build of `vlab`.
pub fn run(args: &[String]) -> Result<()> {
    if !args.iter().any(|a| a == "--minutes" || a.starts_with("--minutes=")) {
        bail!("usage: cargo xtask soak --minutes N [--robots 30]");
    }
    crate::cargo(&["build", "--release", "-p", "vlab-server", "--bin", "vlab", "--example", "soak"])?;
    let release = crate::target_dir().join("release");
    let server = release.join("vlab");
    crate::run(Command::new(release.join("examples").join("soak")).arg("--server").arg(&server).args(args))
}
