//! Builds the browser bundle into `dist/`: the frontend crate compiled to wasm here,
//! then made into the page's files by the `vlab-bundle` tool (split, glue, shrunk,
//! hashed names, precompressed copies).

use std::fs;
use std::path::PathBuf;
use std::process::Command;

use anyhow::{Result, bail};

const WASM_TARGET: &str = "wasm32-unknown-unknown";
const PROFILE: &str = "wasm-release";
const CRATE: &str = "vlab-frontend";
/// How the bundler is built: alone (`cargo xtask web`, `run`), or with the selection
/// of the test phase, whose build it then reuses instead of building its dependencies
/// a second time with other features (`cargo xtask test`).
#[derive(Clone, Copy)]
pub enum Bundler {
    /// `cargo build -p vlab-bundle`.
    Alone,
    /// `cargo build --workspace --bins --tests`, as the test phase built it.
    WithTheTests,
}

/// Builds the bundle into `<workspace>/dist/` and returns that path.
pub fn build_bundle(bundler: Bundler) -> Result<PathBuf> {
    ensure_wasm_target()?;
    build_wasm()?;
    let wasm = crate::target_dir().join(WASM_TARGET).join(PROFILE).join(format!("{STEM}.wasm"));
    if !wasm.is_file() {
        bail!("the build succeeded but {} is missing", wasm.display());
    }
    match bundler {
        Bundler::Alone => crate::cargo(&["build", "-p", "vlab-bundle"])?,
        Bundler::WithTheTests => crate::cargo(&["build", "--workspace", "--bins", "--tests"])?,
    }
    let tool = crate::target_dir().join("debug").join(format!("vlab-bundle{}", std::env::consts::EXE_SUFFIX));
    crate::run(Command::new(tool).arg(&wasm))?;
    Ok(crate::workspace_root().join("dist"))
}

/// The file stem of the wasm rustc writes for the browser crate.
const STEM: &str = "vlab_frontend";

/// The rustc flag that makes leptos erase each component's view type (`AnyView`): one
/// copy of the rendering code per component instead of one per nested view type. The
/// wasm is a tenth smaller (docs/performance.md, Page load); the page renders the same.
const ERASE_COMPONENTS: &str = "--cfg erase_components";

/// Compiles the frontend crate to wasm with [`ERASE_COMPONENTS`] and
/// [`remapped_sources`], added to any flags the caller set for the wasm target, and
/// links it with the splitter's [`xtask::WASM_LINK_FLAGS`]. Only the wasm target gets the
/// former (not the build scripts nor xtask itself), and only the frontend crate the
/// latter (it is a link flag), so nothing else rebuilds.
fn build_wasm() -> Result<()> {
    let variable = "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS";
    let ours = std::iter::once(ERASE_COMPONENTS.to_owned()).chain(remapped_sources()).collect::<Vec<_>>().join(" ");
    let flags = match std::env::var(variable) {
        Ok(own) if !own.trim().is_empty() => format!("{own} {ours}"),
        _ => ours,
    };
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    crate::run(
        Command::new(cargo)
            .args(["rustc", "--lib", "--profile", PROFILE, "--target", WASM_TARGET, "-p", CRATE, "--"])
            .arg(xtask::WASM_LINK_FLAGS)
            .env(variable, flags)
            .current_dir(crate::workspace_root()),
    )
}

/// `--remap-path-prefix` flags that shorten the source paths of downloaded crates, which
/// the wasm carries in its panic messages, from
/// `<cargo home>/registry/src/<index>/leptos-0.8.23/src/…` to `leptos-0.8.23/src/…`:
/// the bundle does not tell the build machine's folders, and builds of one commit on
/// machines whose cargo homes differ give the same bytes, so the same hashed names
/// (docs/performance.md, The page in parts). The workspace's own crates are already
/// named relative to the workspace.
fn remapped_sources() -> Vec<String> {
    let Some(cargo_home) = cargo_home() else { return Vec::new() };
    let Ok(indexes) = fs::read_dir(cargo_home.join("registry").join("src")) else { return Vec::new() };
    let mut flags: Vec<String> = indexes
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.path())
        .filter(|path| path.is_dir())
        .filter_map(|path| path.to_str().map(|path| format!("--remap-path-prefix={path}/=")))
        // rustc reads flags split at spaces, so a path with one in it stays as it is.
        .filter(|flag| !flag.contains(char::is_whitespace))
        .collect();
    flags.sort();
    flags
}

/// Where cargo keeps downloaded crates: `CARGO_HOME`, else `~/.cargo`.
fn cargo_home() -> Option<PathBuf> {
    match std::env::var_os("CARGO_HOME") {
        Some(home) if !home.is_empty() => Some(PathBuf::from(home)),
        _ => std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")),
    }
}

/// Installs the wasm target through rustup when it is missing. Without rustup (a
/// distribution's rustc), the build below says clearly what is missing. The browser
/// bundle needs it, and so do the backend's tests (they build the example robot's
/// WebAssembly program).
pub fn ensure_wasm_target() -> Result<()> {
    let Ok(output) = Command::new("rustup").args(["target", "list", "--installed"]).output() else {
        eprintln!("xtask: rustup not found; assuming the {WASM_TARGET} target is installed");
        return Ok(());
    };
    let installed = String::from_utf8_lossy(&output.stdout);
    if installed.lines().any(|line| line.trim() == WASM_TARGET) {
        return Ok(());
    }
    crate::run(Command::new("rustup").args(["target", "add", WASM_TARGET]))
}
