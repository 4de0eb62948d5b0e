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
///
/// The error says why, as a clause that follows "cannot include 'name': ".
pub fn resolve_path(from: &str, name: &str) -> Result<String, String> {
    if name.is_empty() {
        return Err("the file name is empty".into());
    }
    if is_foreign_path(name) {
        return Err("it must be a path inside the scene library (no '/', '\\' or ':' at the start)".into());
    }
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop(); // the including file itself
    for part in name.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err("it points outside the scene library".into());
                }
            }
            part => parts.push(part),
        }
    }
    if parts.is_empty() {
        return Err("it names a folder, not a file".into());
    }
    Ok(parts.join("/"))
}

/// Whether `name` is a path of some other machine: absolute, with `\\` separators or
/// a drive letter (`/home/me/bot.rprj`, `C:\\lab\\bot.rprj`), as files written for
/// another installation name their programs.
pub fn is_foreign_path(name: &str) -> bool {
    name.starts_with('/') || name.contains('\\') || name.contains(':')
}

/// The file name a foreign path ends with (`bot.rprj` for `/home/me/bot.rprj`), if it
/// ends with one: what is looked up in the upload and the library instead.
pub fn last_component(name: &str) -> Option<&str> {
    let last = name.rsplit(['/', '\\', ':']).next()?;
    (!last.is_empty() && last != "." && last != "..").then_some(last)
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

    #[test]
    fn refusals_read_as_a_clause_after_the_file_name() {
        let why = resolve_path("main.vlab", "/working/bot.rprj").unwrap_err();
        assert!(why.starts_with("it must be a path inside the scene library"), "{why}");
        assert_eq!(resolve_path("main.vlab", "../x.vlab").unwrap_err(), "it points outside the scene library");
    }

    #[test]
    fn foreign_paths_keep_their_last_component() {
        assert!(is_foreign_path("/working/tesi/trunk/plugins/example/Cpp/tankbot.rprj"));
        assert!(is_foreign_path("C:\\lab\\bot.rprj") && is_foreign_path("D:bot.py"));
        assert!(!is_foreign_path("lib/bot.rprj"));
        assert_eq!(last_component("/working/tesi/trunk/plugins/example/Cpp/tankbot.rprj"), Some("tankbot.rprj"));
        assert_eq!(last_component("C:\\lab\\bot.rprj"), Some("bot.rprj"));
        assert_eq!(last_component("D:bot.py"), Some("bot.py"));
        assert_eq!(last_component("/working/"), None);
        assert_eq!(last_component("C:\\lab\\.."), None);
    }
}
