//! Compiled modules kept by the digest of what made them: the sources, the flags, the
//! robot API's headers and the compiler's version. The same sources sent again, or
//! done again after a restart, are not compiled again.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};

/// Modules kept in memory when the server keeps no folder for them.
pub const MEMORY_CACHED_MODULES: usize = 64;

/// The digest of one compile's inputs, in hex.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceDigest(pub String);

/// The digest of `files` (every file the compiler sees, by name), compiled with `flags`
/// by `compiler`, against `headers`.
pub fn digest(
    compiler: &str,
    flags: &[String],
    headers: &[(&str, &str)],
    files: &BTreeMap<String, String>,
) -> SourceDigest {
    let mut hash = Sha256::new();
    // Every part is length-prefixed, so no two inputs run together into the same bytes.
    let mut put = |bytes: &[u8]| {
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(bytes);
    };
    put(compiler.as_bytes());
    put(&(flags.len() as u64).to_le_bytes());
    for flag in flags {
        put(flag.as_bytes());
    }
    put(&(headers.len() as u64).to_le_bytes());
    for (name, text) in headers {
        put(name.as_bytes());
        put(text.as_bytes());
    }
    put(&(files.len() as u64).to_le_bytes());
    for (name, text) in files {
        put(name.as_bytes());
        put(text.as_bytes());
    }
    let bytes = hash.finalize();
    SourceDigest(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Modules kept in memory, and the order they came in (the oldest first).
type InMemory = (HashMap<SourceDigest, Arc<[u8]>>, VecDeque<SourceDigest>);

/// Where modules are kept: files in a folder of the server's data, or memory.
pub enum ModuleCache {
    /// `<digest>.wasm` files in this folder.
    Folder(PathBuf),
    /// The last [`MEMORY_CACHED_MODULES`] modules.
    Memory(Mutex<InMemory>),
}

impl ModuleCache {
    /// A cache in `folder` (created when first written), or in memory.
    pub fn new(folder: Option<PathBuf>) -> ModuleCache {
        match folder {
            Some(folder) => ModuleCache::Folder(folder),
            None => ModuleCache::Memory(Mutex::default()),
        }
    }

    /// The module compiled from `digest`'s inputs, if kept.
    pub fn get(&self, digest: &SourceDigest) -> Option<Arc<[u8]>> {
        match self {
            ModuleCache::Folder(folder) => {
                let bytes = std::fs::read(folder.join(format!("{}.wasm", digest.0))).ok()?;
                // A file cut short by a crash is no module: compiled again.
                bytes.starts_with(b"\0asm").then(|| Arc::from(bytes))
            }
            ModuleCache::Memory(kept) => {
                kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).0.get(digest).cloned()
            }
        }
    }

    /// Keeps `module` for `digest`. A folder that cannot be written costs only the
    /// next compile, so it is logged, not refused.
    pub fn put(&self, digest: &SourceDigest, module: &Arc<[u8]>) {
        match self {
            ModuleCache::Folder(folder) => {
                let written = std::fs::create_dir_all(folder).and_then(|()| {
                    // Written whole under another name, then renamed: a reader never sees half.
                    let partial = folder.join(format!("{}.wasm.part", digest.0));
                    std::fs::write(&partial, module)?;
                    std::fs::rename(&partial, folder.join(format!("{}.wasm", digest.0)))
                });
                if let Err(error) = written {
                    tracing::warn!(%error, folder = %folder.display(), "a compiled program could not be cached");
                }
            }
            ModuleCache::Memory(kept) => {
                let mut kept = kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                let (modules, order) = &mut *kept;
                if modules.insert(digest.clone(), Arc::clone(module)).is_none() {
                    order.push_back(digest.clone());
                }
                while order.len() > MEMORY_CACHED_MODULES {
                    if let Some(oldest) = order.pop_front() {
                        modules.remove(&oldest);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect()
    }

    #[test]
    fn the_digest_changes_with_every_input() {
        let flags = vec!["-Oz".to_owned()];
        let base = digest("clang 14", &flags, &[("vlab.h", "x")], &files(&[("a.c", "int x;")]));
        assert_eq!(base, digest("clang 14", &flags, &[("vlab.h", "x")], &files(&[("a.c", "int x;")])));
        assert_eq!(base.0.len(), 64);
        assert_ne!(base, digest("clang 15", &flags, &[("vlab.h", "x")], &files(&[("a.c", "int x;")])));
        assert_ne!(base, digest("clang 14", &[], &[("vlab.h", "x")], &files(&[("a.c", "int x;")])));
        assert_ne!(base, digest("clang 14", &flags, &[("vlab.h", "y")], &files(&[("a.c", "int x;")])));
        assert_ne!(base, digest("clang 14", &flags, &[("vlab.h", "x")], &files(&[("a.c", "int y;")])));
        assert_ne!(base, digest("clang 14", &flags, &[("vlab.h", "x")], &files(&[("b.c", "int x;")])));
    }

    #[test]
    fn names_and_contents_do_not_run_together() {
        let one = digest("c", &[], &[], &files(&[("ab", "c")]));
        let other = digest("c", &[], &[], &files(&[("a", "bc")]));
        assert_ne!(one, other);
    }

    #[test]
    fn a_folder_keeps_modules_across_caches() {
        let folder = std::env::temp_dir().join(format!("vlab-cache-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&folder);
        let key = digest("c", &[], &[], &files(&[("a.c", "")]));
        let module: Arc<[u8]> = Arc::from(&b"\0asm\x01\0\0\0"[..]);
        ModuleCache::new(Some(folder.clone())).put(&key, &module);
        assert_eq!(ModuleCache::new(Some(folder.clone())).get(&key), Some(module));
        std::fs::write(folder.join(format!("{}.wasm", key.0)), b"cut").unwrap();
        assert_eq!(ModuleCache::new(Some(folder.clone())).get(&key), None, "a broken file is no module");
        let _ = std::fs::remove_dir_all(&folder);
    }

    #[test]
    fn memory_keeps_the_latest_modules() {
        let cache = ModuleCache::new(None);
        let module: Arc<[u8]> = Arc::from(&b"\0asm"[..]);
        let keys: Vec<SourceDigest> =
            (0..=MEMORY_CACHED_MODULES).map(|i| digest("c", &[], &[], &files(&[("a.c", &i.to_string())]))).collect();
        for key in &keys {
            cache.put(key, &module);
        }
        assert_eq!(cache.get(&keys[0]), None, "the oldest made room");
        assert!(cache.get(&keys[MEMORY_CACHED_MODULES]).is_some());
    }
}
