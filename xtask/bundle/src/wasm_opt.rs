//! Shrinks the generated wasm with binaryen's `wasm-opt -Oz`, installed from npm into
//! the cargo target folder by the build itself.
//!
//! The npm package `binaryen` is binaryen compiled to JavaScript: it runs on any Node
//! (18 or newer) without a native download, and its version is pinned here. A
//! distribution's binaryen is never used: Debian's (v108) predates the wasm features
//! rustc emits today and writes a module the browser rejects. Without npm (a bare
//! machine running `cargo xtask run`), or when npm cannot install it (offline), the
//! step is skipped with a warning: the bundle works the same, only larger.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

/// The npm package version of binaryen (`wasm-opt --version` says `version_132`).
const BINARYEN_VERSION: &str = "132.0.0";

/// The `wasm-opt` to shrink modules with, installed first when missing; `None` (after
/// printing why) when it is unavailable (no npm, offline).
pub fn installed() -> Result<Option<PathBuf>> {
    installed_wasm_opt()
}

/// Optimises `wasm` in place for size with `wasm_opt` (from [`installed`]).
pub fn optimise(wasm_opt: &Path, wasm: &Path) -> Result<()> {
    let optimised = wasm.with_extension("opt.wasm");
    // The features the module uses are read from its `target_features` section, which
    // rustc writes and wasm-opt then drops: no `--enable-*` flag to keep in step.
    crate::run(Command::new(wasm_opt).arg("-Oz").arg(wasm).arg("-o").arg(&optimised))?;
    std::fs::rename(&optimised, wasm)
        .with_context(|| format!("could not replace {} with {}", wasm.display(), optimised.display()))
}

/// The folder npm installs binaryen into, one per pinned version so that changing the
/// pin installs the new one.
fn tools_dir() -> PathBuf {
    crate::target_dir().join("tools").join(format!("binaryen-{BINARYEN_VERSION}"))
}

/// `wasm-opt` from the pinned npm package, installed first when missing; `None`
/// (with a warning) when npm is not on this machine.
fn installed_wasm_opt() -> Result<Option<PathBuf>> {
    let dir = tools_dir();
    let wasm_opt = dir.join("node_modules").join(".bin").join("wasm-opt");
    if wasm_opt.is_file() {
        return Ok(Some(wasm_opt));
    }
    let npm_found = Command::new("npm").arg("--version").output().is_ok_and(|output| output.status.success());
    if !npm_found {
        eprintln!(
            "xtask: warning: npm not found, so wasm-opt is skipped: the bundle works but its wasm is larger (install Node.js to shrink it)"
        );
        return Ok(None);
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("could not create {}", dir.display()))?;
    let installed = crate::run(
        Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--prefix"])
            .arg(&dir)
            .arg(format!("binaryen@{BINARYEN_VERSION}")),
    );
    // Offline, or a registry that refuses: the page still works, only larger.
    if let Err(error) = installed {
        eprintln!(
            "xtask: warning: npm could not install binaryen@{BINARYEN_VERSION} ({error:#}), so wasm-opt is skipped: the bundle works but its wasm is larger"
        );
        return Ok(None);
    }
    if !wasm_opt.is_file() {
        bail!("npm installed binaryen@{BINARYEN_VERSION} but {} is missing", wasm_opt.display());
    }
    Ok(Some(wasm_opt))
}
