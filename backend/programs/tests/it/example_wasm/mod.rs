//! The example robot of the SDK (`backend/robot-sdk/example`) built to wasm32 once per
//! test or bench binary, in a target folder of its own (`<target>/wasm-programs`) so the
//! build never waits on the lock of the build running it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};

/// The example robot's module, built once for the whole test binary.
pub fn example_module() -> Arc<[u8]> {
    static MODULE: OnceLock<Result<Arc<[u8]>, String>> = OnceLock::new();
    MODULE.get_or_init(build_example).clone().unwrap_or_else(|e| panic!("{e}"))
}

/// `cargo build -p vlab-example-bot --target wasm32-unknown-unknown --release`, into a
/// target folder of its own so it never waits on the lock of the build running us.
pub fn build_example() -> Result<Arc<[u8]>, String> {
    // The workspace's root, whichever of its crates' tests or benches include this file.
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").exists())
        .expect("the crate is in the workspace");
    let target_root = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => workspace.join(PathBuf::from(dir)),
        None => workspace.join("target"),
    };
    let target_dir = target_root.join("wasm-programs");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .current_dir(workspace)
        .args(["build", "-p", "vlab-example-bot", "--target", "wasm32-unknown-unknown", "--release", "--target-dir"])
        .arg(&target_dir)
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .map_err(|e| format!("cannot run cargo to build the example robot: {e}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        if stderr.contains("wasm32-unknown-unknown")
            && (stderr.contains("not installed")
                || stderr.contains("can't find crate for `core`")
                || stderr.contains("can't find crate for `std`"))
        {
            return Err(
                "the wasm32-unknown-unknown target is missing: `rustup target add wasm32-unknown-unknown`".into()
            );
        }
        return Err(format!("building the example robot to wasm32 failed:\n{stderr}"));
    }
    let path = target_dir.join("wasm32-unknown-unknown/release/vlab_example_bot.wasm");
    std::fs::read(&path).map(Arc::from).map_err(|e| format!("cannot read {}: {e}", path.display()))
}
