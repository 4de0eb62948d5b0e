//! The unit tests and the browser bundle at once: `cargo test --workspace` builds its
//! tests, and once it starts running them (its build lock released) a second xtask
//! process builds the bundle beside them. The tests wait on real time for about a third
//! of their run (servers, labs, programs); the bundle's compile fills those cores.
//!
//! The bundle's output goes to a file, printed when it is done, so the tests' output
//! reads as it always has.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use anyhow::{Context, Result, bail};

/// The bundle being built by a second xtask process.
pub struct BundleBeside {
    child: Child,
    log: PathBuf,
}

impl BundleBeside {
    /// Starts `xtask web --with-tests`, its output to a file in the target folder.
    pub fn start() -> Result<BundleBeside> {
        let log = crate::target_dir().join("bundle-beside-tests.log");
        let file = File::create(&log).with_context(|| format!("could not create {}", log.display()))?;
        let xtask = std::env::current_exe().context("could not find this xtask binary")?;
        let child = Command::new(xtask)
            .args(["web", "--with-tests"])
            .current_dir(crate::workspace_root())
            .stdout(file.try_clone().context("could not share the bundle's log file")?)
            .stderr(file)
            .spawn()
            .context("could not start the bundle beside the tests")?;
        eprintln!("xtask: the browser bundle builds beside the tests ({} until it is done)", log.display());
        Ok(BundleBeside { child, log })
    }

    /// Waits for the bundle, prints its output, and returns its folder.
    pub fn finish(mut self) -> Result<PathBuf> {
        let status = self.child.wait().context("could not wait for the bundle")?;
        match std::fs::read_to_string(&self.log) {
            Ok(output) => eprint!("{output}"),
            Err(error) => eprintln!("xtask: could not read {}: {error}", self.log.display()),
        }
        if !status.success() {
            bail!("building the browser bundle failed with {status} (its output is above)");
        }
        Ok(crate::workspace_root().join("dist"))
    }
}

/// `cargo test --workspace`, its output echoed as it comes; `once_running` is called
/// when cargo starts the first test binary, which it does after its build is done.
pub fn cargo_test(once_running: impl FnOnce()) -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    command.args(["test", "--workspace"]).current_dir(crate::workspace_root()).stderr(Stdio::piped());
    eprintln!("xtask: {command:?}");
    let mut child = command.spawn().with_context(|| format!("could not start {command:?}"))?;
    let stderr = child.stderr.take().context("cargo's error output was not piped")?;
    let mut once_running = Some(once_running);
    for line in BufReader::new(stderr).split(b'\n') {
        let line = String::from_utf8_lossy(&line.context("could not read cargo's output")?).into_owned();
        eprintln!("{line}");
        // Cargo's own line before each test binary it runs.
        if line.trim_start().starts_with("Running ")
            && let Some(call) = once_running.take()
        {
            call();
        }
    }
    let status = child.wait().context("could not wait for cargo test")?;
    if !status.success() {
        bail!("{command:?} failed with {status}");
    }
    Ok(())
}
