//! Keeps a reused target folder from growing without bound: what a run rebuilt replaces
//! what it rebuilt from.
//!
//! Cargo never deletes an old build of a binary when it links a new one (the name carries
//! a hash of its inputs), nor an old incremental cache. On a machine that keeps its
//! target folder between runs (CI does, outside the clone), every change adds another
//! full copy of each test binary. After a run, for each test binary, example and
//! incremental cache the run wrote, older copies of the same name are deleted. Libraries
//! are left alone: two builds of one library with different features are both in use.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{Context, Result};

/// Deletes, under `target`, the copies that a build started at `started` replaced.
/// Returns how many bytes were freed.
pub fn replaced_since(target: &Path, started: SystemTime) -> Result<u64> {
    let mut freed = 0;
    for profile in ["debug", "release"] {
        for folder in ["deps", "examples"] {
            let dir = target.join(profile).join(folder);
            freed += prune(&dir, started, Entry::executable)?;
        }
        freed += prune(&target.join(profile).join("incremental"), started, Entry::directory)?;
    }
    Ok(freed)
}

/// The size of everything under `path`, in bytes (0 when it does not exist).
pub fn size_of(path: &Path) -> u64 {
    let Ok(meta) = fs::symlink_metadata(path) else { return 0 };
    if !meta.is_dir() {
        return meta.len();
    }
    let Ok(entries) = fs::read_dir(path) else { return 0 };
    entries.filter_map(|e| e.ok()).map(|e| size_of(&e.path())).sum()
}

/// One file or folder of a cargo output folder, named `<name>-<hash>[.ext]`.
struct Entry {
    path: PathBuf,
    name: String,
    modified: SystemTime,
}

impl Entry {
    /// A linked binary: no extension (`.exe` on Windows), executable.
    fn executable(path: PathBuf, meta: &fs::Metadata) -> Option<Entry> {
        if !meta.is_file() {
            return None;
        }
        let file = path.file_name()?.to_str()?;
        let stem = file.strip_suffix(std::env::consts::EXE_SUFFIX).unwrap_or(file);
        if stem.contains('.') || !is_executable(meta) {
            return None;
        }
        Entry::named(path.clone(), stem, meta)
    }

    /// An incremental cache: a folder.
    fn directory(path: PathBuf, meta: &fs::Metadata) -> Option<Entry> {
        if !meta.is_dir() {
            return None;
        }
        let file = path.file_name()?.to_str()?.to_owned();
        Entry::named(path, &file, meta)
    }

    fn named(path: PathBuf, file: &str, meta: &fs::Metadata) -> Option<Entry> {
        let name = name_without_hash(file)?.to_owned();
        Some(Entry { path, name, modified: meta.modified().ok()? })
    }
}

/// `classroom-10a8e828afd6eac5` → `classroom`: cargo's hashes are 16 hex digits (13 to
/// 27 in incremental folders' base-36 names, so any alphanumeric tail of 13 or more).
fn name_without_hash(file: &str) -> Option<&str> {
    let (name, hash) = file.rsplit_once('-')?;
    let looks_like_hash = hash.len() >= 13 && hash.chars().all(|c| c.is_ascii_alphanumeric());
    looks_like_hash.then_some(name)
}

#[cfg(unix)]
fn is_executable(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_meta: &fs::Metadata) -> bool {
    true
}

/// In `dir`, for each name with an entry written since `started`, deletes its entries
/// written before.
fn prune(dir: &Path, started: SystemTime, kind: fn(PathBuf, &fs::Metadata) -> Option<Entry>) -> Result<u64> {
    let Ok(listing) = fs::read_dir(dir) else { return Ok(0) };
    let mut by_name: BTreeMap<String, Vec<Entry>> = BTreeMap::new();
    for item in listing {
        let item = item.with_context(|| format!("could not list {}", dir.display()))?;
        let Ok(meta) = item.metadata() else { continue };
        if let Some(entry) = kind(item.path(), &meta) {
            by_name.entry(entry.name.clone()).or_default().push(entry);
        }
    }
    let mut freed = 0;
    for entries in by_name.values() {
        if !entries.iter().any(|e| e.modified >= started) {
            continue;
        }
        for stale in entries.iter().filter(|e| e.modified < started) {
            freed += size_of(&stale.path);
            let removed =
                if stale.path.is_dir() { fs::remove_dir_all(&stale.path) } else { fs::remove_file(&stale.path) };
            removed.with_context(|| format!("could not delete {}", stale.path.display()))?;
            // The dep-info file beside a binary goes with it.
            let _ = fs::remove_file(stale.path.with_extension("d"));
        }
    }
    Ok(freed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn names_lose_their_hash_only() {
        assert_eq!(name_without_hash("classroom-10a8e828afd6eac5"), Some("classroom"));
        assert_eq!(name_without_hash("vlab_scene-33pwfudy4v5ci"), Some("vlab_scene"));
        assert_eq!(name_without_hash("regression_a_full_lab-10a8e828afd6eac5"), Some("regression_a_full_lab"));
        assert_eq!(name_without_hash("build-script-build"), None);
        assert_eq!(name_without_hash("vlab"), None);
    }

    #[test]
    fn only_copies_a_run_replaced_are_deleted() {
        let dir = std::env::temp_dir().join(format!("xtask-prune-{}", std::process::id()));
        let deps = dir.join("debug").join("deps");
        fs::create_dir_all(&deps).unwrap();
        let write = |name: &str| {
            let path = deps.join(name);
            fs::write(&path, b"binary").unwrap();
            set_executable(&path);
            path
        };
        let old_it = write("it-1111111111111111");
        let old_other = write("other-2222222222222222");
        let library = deps.join("libit-3333333333333333.rlib");
        fs::write(&library, b"lib").unwrap();
        std::thread::sleep(Duration::from_millis(20));
        let started = SystemTime::now();
        std::thread::sleep(Duration::from_millis(20));
        let new_it = write("it-4444444444444444");

        let freed = replaced_since(&dir, started).unwrap();

        assert_eq!(freed, 6);
        assert!(!old_it.exists(), "the copy this run replaced is deleted");
        assert!(new_it.exists());
        assert!(old_other.exists(), "a binary this run did not rebuild stays");
        assert!(library.exists(), "libraries stay");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    fn set_executable(path: &Path) {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[cfg(not(unix))]
    fn set_executable(_path: &Path) {}
}
