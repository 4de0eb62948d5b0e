//! Compiled modules kept by the digest of what made them: the sources, the flags, the
//! robot API's headers and the compiler's version. The same sources sent again, or
//! done again after a restart, are not compiled again. What is kept is bounded: a
//! student who uploads new sources again and again fills neither the disk nor the
//! memory, the least recently used modules make room.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use sha2::{Digest, Sha256};

/// Modules kept in memory when the server keeps no folder for them, at most.
pub const MEMORY_CACHED_MODULES: usize = 64;
/// Bytes of modules kept in memory, at most (64 modules of the largest size a module
/// may have would be 512 MiB).
pub const MEMORY_CACHED_BYTES: usize = 128 * 1024 * 1024;
/// Bytes of modules kept in the cache folder, at most: past it the least recently
/// used go (the tank's program is 228 KiB: about a thousand such programs).
pub const FOLDER_CACHED_BYTES: u64 = 256 * 1024 * 1024;

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
    /// `<digest>.wasm` files in `folder`, at most `max_bytes` of them.
    Folder {
        /// The folder.
        folder: PathBuf,
        /// Bytes kept at most ([`FOLDER_CACHED_BYTES`]).
        max_bytes: u64,
    },
    /// The last [`MEMORY_CACHED_MODULES`] modules, at most `max_bytes` of them.
    Memory {
        /// The modules.
        kept: Mutex<InMemory>,
        /// Bytes kept at most ([`MEMORY_CACHED_BYTES`]).
        max_bytes: usize,
    },
}

impl ModuleCache {
    /// A cache in `folder` (created when first written), or in memory.
    pub fn new(folder: Option<PathBuf>) -> ModuleCache {
        match folder {
            Some(folder) => ModuleCache::Folder { folder, max_bytes: FOLDER_CACHED_BYTES },
            None => ModuleCache::Memory { kept: Mutex::default(), max_bytes: MEMORY_CACHED_BYTES },
        }
    }

    /// The module compiled from `digest`'s inputs, if kept. A module read from the
    /// folder is marked used now, so it is the last to make room.
    pub fn get(&self, digest: &SourceDigest) -> Option<Arc<[u8]>> {
        match self {
            ModuleCache::Folder { folder, .. } => {
                let path = folder.join(format!("{}.wasm", digest.0));
                let bytes = std::fs::read(&path).ok()?;
                // A file cut short by a crash is no module: compiled again.
                if !bytes.starts_with(b"\0asm") {
                    return None;
                }
                if let Err(error) = std::fs::File::options()
                    .write(true)
                    .open(&path)
                    .and_then(|file| file.set_modified(SystemTime::now()))
                {
                    tracing::debug!(%error, "a cached module's use could not be noted");
                }
                Some(Arc::from(bytes))
            }
            ModuleCache::Memory { kept, .. } => {
                kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).0.get(digest).cloned()
            }
        }
    }

    /// Keeps `module` for `digest`. A folder that cannot be written costs only the
    /// next compile, so it is logged, not refused.
    pub fn put(&self, digest: &SourceDigest, module: &Arc<[u8]>) {
        match self {
            ModuleCache::Folder { folder, max_bytes } => {
                let written = std::fs::create_dir_all(folder).and_then(|()| {
                    // Written whole under another name, then renamed: a reader never sees half.
                    let partial = folder.join(format!("{}.wasm.part", digest.0));
                    std::fs::write(&partial, module)?;
                    std::fs::rename(&partial, folder.join(format!("{}.wasm", digest.0)))
                });
                if let Err(error) = written {
                    tracing::warn!(%error, folder = %folder.display(), "a compiled program could not be cached");
                }
                if let Err(error) = prune_folder(folder, *max_bytes) {
                    tracing::warn!(%error, folder = %folder.display(), "the compiled programs' folder could not be pruned");
                }
            }
            ModuleCache::Memory { kept, max_bytes } => {
                let mut kept = kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                let (modules, order) = &mut *kept;
                if modules.insert(digest.clone(), Arc::clone(module)).is_none() {
                    order.push_back(digest.clone());
                }
                let bytes =
                    |modules: &HashMap<SourceDigest, Arc<[u8]>>| modules.values().map(|m| m.len()).sum::<usize>();
                while order.len() > MEMORY_CACHED_MODULES || (order.len() > 1 && bytes(modules) > *max_bytes) {
                    if let Some(oldest) = order.pop_front() {
                        modules.remove(&oldest);
                    }
                }
            }
        }
    }
}

/// Removes the least recently used modules of `folder` until the rest take at most
/// `max_bytes` (the newest is always kept).
fn prune_folder(folder: &Path, max_bytes: u64) -> std::io::Result<()> {
    let mut modules = Vec::new();
    for entry in std::fs::read_dir(folder)? {
        let entry = entry?;
        let is_module = entry.path().extension().is_some_and(|ending| ending == "wasm");
        let meta = entry.metadata()?;
        if is_module && meta.is_file() {
            modules.push((meta.modified()?, entry.path(), meta.len()));
        }
    }
    let mut total: u64 = modules.iter().map(|(_, _, len)| len).sum();
    // Oldest first; the same instant ordered by name, so pruning is repeatable.
    modules.sort();
    for (_, path, len) in modules.iter().take(modules.len().saturating_sub(1)) {
        if total <= max_bytes {
            break;
        }
        std::fs::remove_file(path)?;
        total -= len;
    }
    Ok(())
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
    fn a_folder_keeps_at_most_its_bytes_and_lets_the_least_recently_used_go() {
        let folder = std::env::temp_dir().join(format!("vlab-cache-prune-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&folder);
        let cache = ModuleCache::Folder { folder: folder.clone(), max_bytes: 3 * 1000 };
        let module: Arc<[u8]> = Arc::from([&b"\0asm"[..], &[0u8; 996][..]].concat());
        let keys: Vec<SourceDigest> =
            (0..4).map(|i| digest("c", &[], &[], &files(&[("a.c", &i.to_string())]))).collect();
        let age = |key: &SourceDigest, secs: u64| {
            let file = std::fs::File::options().write(true).open(folder.join(format!("{}.wasm", key.0))).unwrap();
            file.set_modified(SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(secs)).unwrap();
        };
        for (i, key) in keys[..3].iter().enumerate() {
            cache.put(key, &module);
            age(key, 1000 + i as u64);
        }
        assert!(keys[..3].iter().all(|key| cache.get(key).is_some()), "3000 bytes in a 3000-byte folder: all kept");
        for (i, key) in keys[..3].iter().enumerate() {
            age(key, 1000 + i as u64);
        }
        // keys[0] is the least recently used until it is read again.
        assert!(cache.get(&keys[0]).is_some());
        cache.put(&keys[3], &module);
        let kept: Vec<bool> = keys.iter().map(|key| folder.join(format!("{}.wasm", key.0)).exists()).collect();
        assert_eq!(kept, [true, false, true, true], "a fourth module: the least recently used made room");
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

    #[test]
    fn memory_keeps_at_most_its_bytes() {
        let cache = ModuleCache::Memory { kept: Mutex::default(), max_bytes: 2000 };
        let module: Arc<[u8]> = Arc::from(vec![0u8; 1000]);
        let keys: Vec<SourceDigest> =
            (0..3).map(|i| digest("c", &[], &[], &files(&[("a.c", &i.to_string())]))).collect();
        cache.put(&keys[0], &module);
        cache.put(&keys[1], &module);
        assert!(cache.get(&keys[0]).is_some() && cache.get(&keys[1]).is_some(), "2000 bytes of 2000: both kept");
        cache.put(&keys[2], &module);
        assert_eq!(cache.get(&keys[0]), None, "past the bytes the oldest made room");
        assert!(cache.get(&keys[1]).is_some() && cache.get(&keys[2]).is_some());
    }
}
