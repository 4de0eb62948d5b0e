//! The Python client's tests (`clients/python/tests`, pytest) against the real server:
//! the package is installed the way a student installs it (`pip install
//! ./clients/python`) into a virtualenv this phase makes afresh, with pytest beside it.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

/// Makes the virtualenv, installs the client and pytest, and runs the client's tests
/// with `server` as their server binary.
pub fn test(root: &Path, server: &Path) -> Result<()> {
    let venv = crate::target_dir().join("python-client-venv");
    let python3 = if cfg!(windows) { "python" } else { "python3" };
    crate::run(Command::new(python3).args(["-m", "venv", "--clear"]).arg(&venv))
        .context("could not make a virtualenv (python3 -m venv)")?;
    let python = venv_python(&venv);
    let client = root.join("clients").join("python");
    crate::run(
        Command::new(&python)
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check"])
            .arg(&client)
            .arg("pytest"),
    )
    .context("could not install the client (pip install ./clients/python) and pytest")?;
    crate::run(
        Command::new(&python)
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
            .arg(client.join("tests"))
            .current_dir(&client)
            .env("VLAB_BIN", server),
    )
    .context("the Python client's tests failed")
}

fn venv_python(venv: &Path) -> PathBuf {
    if cfg!(windows) { venv.join("Scripts").join("python.exe") } else { venv.join("bin").join("python") }
}
