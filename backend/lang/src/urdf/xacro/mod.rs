//! Xacro, the macro language ROS packages write their robots in, expanded into URDF
//! (docs/urdf.md, "Xacro"): properties, args with their defaults, `${...}` Python
//! expressions, macros with value and block parameters, `if`/`unless`, blocks and
//! includes of other files of the upload (`$(find pkg)` is the upload itself).
//!
//! Nothing is read from disk: includes come through the [`SourceLoader`]. A student's
//! file is hostile until it is expanded: every step, every byte written and every
//! nested call counts against [`Limits`], so a macro that calls itself twice per call
//! stops with an error instead of filling the server's memory. Every element written
//! keeps the file and line it came from, so errors found in the URDF afterwards still
//! point into the xacro sources.

mod expand;
mod expr;
mod tree;

use std::collections::HashMap;
use std::sync::Arc;

pub use tree::Written;

use crate::error::LangError;
use crate::loader::SourceLoader;

/// Values given for a file's `<xacro:arg>`s, by name (the others take their default).
pub type XacroArgs = HashMap<String, String>;

/// How far an expansion may go.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Elements run, xacro's and the robot's (each copy of a macro's body counts again).
    pub max_steps: usize,
    /// Nested macro calls, includes and elements.
    pub max_depth: usize,
    /// Bytes of names, attributes and text written, and the longest value; the values
    /// made or copied may take 16 times as many.
    pub max_bytes: usize,
}

/// The most elements an expansion runs: a robot of ROS's largest packages runs a few
/// thousand.
pub const MAX_XACRO_STEPS: usize = 200_000;
/// The deepest nesting of macro calls, includes and elements.
pub const MAX_XACRO_DEPTH: usize = 100;
/// The largest expanded robot, and the longest value: the size of a whole upload (4 MiB).
pub const MAX_XACRO_BYTES: usize = 4 * 1024 * 1024;
/// The bytes of all the values an expansion may make or copy, per byte it may write: a
/// long value copied by every call of a macro stops at 16 × 4 MiB = 64 MiB.
const VALUE_BYTES_PER_OUTPUT_BYTE: usize = 16;

impl Default for Limits {
    fn default() -> Self {
        Limits { max_steps: MAX_XACRO_STEPS, max_depth: MAX_XACRO_DEPTH, max_bytes: MAX_XACRO_BYTES }
    }
}

/// Whether `text` is a xacro file: its root declares the xacro namespace, or it uses a
/// `xacro:` element. A file that is not XML is not (the URDF reader says why).
pub fn is_xacro(text: &str) -> bool {
    let Ok(doc) = roxmltree::Document::parse(text) else { return false };
    let root = doc.root_element();
    root.namespaces().any(|ns| tree::is_xacro_uri(ns.uri()))
        || doc.descendants().any(|n| n.tag_name().namespace().is_some_and(tree::is_xacro_uri))
}

/// Expands the xacro file `text` (the library file `file`), its args from `args` or
/// their defaults, its includes from `loader`; errors are at their file and line.
pub fn expand(
    text: &str,
    file: &str,
    loader: &dyn SourceLoader,
    args: &XacroArgs,
    limits: Limits,
) -> Result<Written, LangError> {
    let file: Arc<str> = file.into();
    let parsed = tree::parse(text, &file, limits.max_depth)?;
    let mut expander = expand::Expander::new(loader, args, limits, file);
    let root = expander.root(&parsed.root)?;
    Ok(tree::write(&root, &parsed.namespaces))
}

#[cfg(test)]
mod tests;
