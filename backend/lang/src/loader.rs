//! Where includes, project files and assets come from: a [`SourceLoader`] the caller
//! gives, so the language itself never touches a file system (and runs in a browser).

use std::collections::HashMap;

/// Why a source could not be loaded.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct LoadError(pub String);

/// The scene library (or an uploaded bundle) seen by the interpreter.
///
/// Names are library-relative paths with `/` separators, already normalised: never
/// absolute, never with `..` (the interpreter refuses those before asking).
pub trait SourceLoader {
    /// The text of the file `name`.
    fn load(&self, name: &str) -> Result<String, LoadError>;

    /// Whether the asset `name` (a mesh, say) exists: `Some(found)` if the loader
    /// knows, `None` if it cannot tell (then no warning is given).
    fn asset_exists(&self, name: &str) -> Option<bool> {
        let _ = name;
        None
    }

    /// The bytes of the asset `name` (a mesh a URDF file names), if the loader has them.
    fn asset_bytes(&self, name: &str) -> Option<Vec<u8>> {
        let _ = name;
        None
    }
}

/// A loader that has no files at all: every include fails.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoFiles;

impl SourceLoader for NoFiles {
    fn load(&self, name: &str) -> Result<String, LoadError> {
        Err(LoadError(format!("there is no file '{name}' (this scene cannot include files)")))
    }
}

/// An in-memory bundle: file name → text, plus known asset names. What the browser
/// and tests use; an uploaded multipart bundle maps onto it directly.
#[derive(Clone, Debug, Default)]
pub struct MapLoader {
    files: HashMap<String, String>,
    assets: Option<Vec<String>>,
    asset_bytes: HashMap<String, Vec<u8>>,
}

impl MapLoader {
    /// An empty bundle that cannot tell which assets exist.
    pub fn new() -> MapLoader {
        MapLoader::default()
    }

    /// Adds a source file.
    pub fn with_file(mut self, name: &str, text: &str) -> MapLoader {
        self.files.insert(name.to_owned(), text.to_owned());
        self
    }

    /// Declares an asset as present (and from then on, every other asset as absent).
    pub fn with_asset(mut self, name: &str) -> MapLoader {
        self.assets.get_or_insert_with(Vec::new).push(name.to_owned());
        self
    }

    /// Declares an asset as present, with its bytes.
    pub fn with_asset_bytes(mut self, name: &str, bytes: &[u8]) -> MapLoader {
        self.asset_bytes.insert(name.to_owned(), bytes.to_vec());
        self.with_asset(name)
    }
}

impl SourceLoader for MapLoader {
    fn load(&self, name: &str) -> Result<String, LoadError> {
        self.files.get(name).cloned().ok_or_else(|| LoadError(format!("there is no file '{name}'")))
    }

    fn asset_exists(&self, name: &str) -> Option<bool> {
        self.assets.as_ref().map(|assets| assets.iter().any(|a| a == name))
    }

    fn asset_bytes(&self, name: &str) -> Option<Vec<u8>> {
        self.asset_bytes.get(name).cloned()
    }
}

/// A directory on disk as the scene library (native only: wasm has no files).
#[cfg(not(target_arch = "wasm32"))]
#[derive(Clone, Debug)]
pub struct DirLoader {
    /// Where `include` names are resolved.
    pub scenes: std::path::PathBuf,
    /// Where meshes are looked for, if anywhere.
    pub assets: Option<std::path::PathBuf>,
}

#[cfg(not(target_arch = "wasm32"))]
impl SourceLoader for DirLoader {
    fn load(&self, name: &str) -> Result<String, LoadError> {
        std::fs::read_to_string(self.scenes.join(name)).map_err(|e| LoadError(format!("cannot read '{name}': {e}")))
    }

    fn asset_exists(&self, name: &str) -> Option<bool> {
        // Only names inside the asset folder are looked up: `join` with an absolute
        // name would look anywhere on the server.
        let inside = resolve_path("", name).is_ok_and(|resolved| resolved == name);
        self.assets.as_ref().map(|dir| inside && dir.join(name).is_file())
    }

    fn asset_bytes(&self, name: &str) -> Option<Vec<u8>> {
        let inside = resolve_path("", name).is_ok_and(|resolved| resolved == name);
        self.assets.as_ref().filter(|_| inside).and_then(|dir| std::fs::read(dir.join(name)).ok())
    }
}

/// Resolves `name` as written in `from` (a library path) to a library path: relative to
/// `from`'s folder, `.` and `..` folded, never above the library's root.
pub fn resolve_path(from: &str, name: &str) -> Result<String, String> {
    if name.is_empty() {
        return Err("an empty file name".into());
    }
    if name.starts_with('/') || name.contains('\\') || name.contains(':') {
        return Err(format!("'{name}' must be a path inside the scene library (no '/', '\\' or ':' at the start)"));
    }
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop(); // the including file itself
    for part in name.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(format!("'{name}' points outside the scene library"));
                }
            }
            part => parts.push(part),
        }
    }
    if parts.is_empty() {
        return Err(format!("'{name}' is not a file"));
    }
    Ok(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_relative_to_the_including_file_and_never_escape() {
        assert_eq!(resolve_path("main.vlab", "lib/a.vlab").unwrap(), "lib/a.vlab");
        assert_eq!(resolve_path("lib/a.vlab", "b.vlab").unwrap(), "lib/b.vlab");
        assert_eq!(resolve_path("lib/a.vlab", "../c.vlab").unwrap(), "c.vlab");
        assert!(resolve_path("main.vlab", "../etc/passwd").is_err());
        assert!(resolve_path("main.vlab", "/etc/passwd").is_err());
        assert!(resolve_path("main.vlab", "C:\\x").is_err());
    }
}
