//! VLab's build helper, the part its tools share: where the workspace and its target
//! folder are, and running cargo and other commands with their command line echoed.
//!
//! The `xtask` binary (`cargo xtask <command>`) is built from this crate with no
//! dependency but `anyhow`, so it builds in seconds and shares nothing with the
//! workspace's own build; the tools with large dependencies, `vlab-bundle` and
//! `vlab-load`, are workspace members that `cargo test --workspace` builds with
//! everything else.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// The link flag the wasm splitter needs on the browser crate: the linker keeps its
/// relocations in the module, so every call and every function-table entry can be
/// traced to its target (see `vlab-bundle`'s `split`).
pub const WASM_LINK_FLAGS: &str = "-Clink-args=--emit-relocs";

/// The workspace root (the parent of this crate's folder).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace").to_path_buf()
}

/// The cargo target directory: `CARGO_TARGET_DIR` when set (CI keeps it outside the
/// clone), else `target/` in the workspace.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if dir.is_absolute() { dir } else { workspace_root().join(dir) }
        }
        None => workspace_root().join("target"),
    }
}

/// Runs `cargo ARGS` in the workspace root, failing if it fails.
pub fn cargo(args: &[&str]) -> Result<()> {
    run(&mut cargo_command(args))
}

/// The command `cargo ARGS` in the workspace root, to add to before running it.
pub fn cargo_command(args: &[&str]) -> Command {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    command.args(args).current_dir(workspace_root());
    command
}

/// Runs a command, echoing it, failing with its exit status.
pub fn run(command: &mut Command) -> Result<()> {
    eprintln!("xtask: {command:?}");
    let status = command.status().with_context(|| format!("could not start {command:?}"))?;
    if !status.success() {
        bail!("{command:?} failed with {status}");
    }
    Ok(())
}
