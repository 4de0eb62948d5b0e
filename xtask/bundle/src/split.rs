//! Splits the compiled page into the module every page loads first and the parts it
//! fetches only when it needs them (the scene editor, the robot upload form, the
//! instructor's tools, a picked robot's inspector, the landing pages).
//!
//! The frontend marks those parts with `#[wasm_split(part, fallible)]`
//! (`frontend/src/ui/part.rs`); rustc keeps the relocations (`--emit-relocs`, see
//! `xtask::WASM_LINK_FLAGS`, which `cargo xtask web` links the page with) that let `wasm_split_cli_support` follow every call and move each
//! function reached only from one part into that part's module. What several parts
//! share goes into a shared chunk; what the first module reaches stays in it. A small
//! JS module, [`LOADER`], fetches and instantiates a part against the first module's
//! memory and function table the first time it is called.
//!
//! *Why this library:* it is the splitter leptos' own lazy loading uses, by leptos'
//! authors, and it runs as a library here like wasm-bindgen does, with nothing to
//! install.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};

/// The JS module that loads the parts, as the first module imports it (a sibling of
/// the glue; renamed to its hashed name with the glue, see `hashed_names`).
pub const LOADER: &str = "vlab_frontend_parts.js";

/// What the split produced in the staging folder.
pub struct Split {
    /// The first module, still to go through wasm-bindgen.
    pub main: PathBuf,
    /// The parts' modules (`split_<part>.wasm`, `chunk_<n>_<parts>.wasm`), final as they are.
    pub parts: Vec<PathBuf>,
}

/// Splits `wasm` (rustc's output): the parts and [`LOADER`], which imports `initSync`
/// from `glue` (the JS glue's file name), into `staging`; the first module beside
/// `wasm`, with its function names, for wasm-bindgen (and for anyone measuring what it
/// holds).
pub fn split(wasm: &Path, staging: &Path, glue: &str) -> Result<Split> {
    let input = fs::read(wasm).with_context(|| format!("could not read {}", wasm.display()))?;
    let main = wasm.with_file_name("vlab_frontend_first.wasm");
    let link_name = format!("./{LOADER}");
    let main_module = format!("./{glue}");
    let mut options = wasm_split_cli_support::Options::new(&input);
    options.output_dir = staging;
    options.main_out_path = &main;
    options.link_name = &link_name;
    options.main_module = &main_module;
    let split = wasm_split_cli_support::transform(options)
        .map_err(|error| anyhow!("could not split {}: {error:?}", wasm.display()))?;
    Ok(Split { main, parts: split.split_modules })
}
