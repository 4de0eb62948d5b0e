//! A zip file of an upload (a robot's package as a repository hands it out) unpacked
//! into files, within the limits of any upload: [`MAX_UPLOAD_BYTES`] unpacked, at most
//! [`MAX_UPLOAD_FILES`] files, plain relative paths.
//!
//! A zip says how large each file is, and a zip bomb lies: sizes are counted as the
//! bytes come out of the inflater, and reading stops one byte past what is left of the
//! limit. Nothing is written to disk.

use std::io::{Cursor, Read};

use super::{MAX_UPLOAD_BYTES, MAX_UPLOAD_FILES};

/// Why a zip file was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ArchiveError {
    /// Not a zip file, or a damaged one.
    #[error("'{archive}' is not a readable zip file: {why}")]
    Unreadable {
        /// The zip file's name.
        archive: String,
        /// What the reader said.
        why: String,
    },
    /// More entries than an upload may have files.
    #[error("'{archive}' holds {entries} entries; an upload may have at most {max} files", max = MAX_UPLOAD_FILES)]
    TooManyFiles {
        /// The zip file's name.
        archive: String,
        /// How many it holds.
        entries: usize,
    },
    /// Unpacked, larger than an upload may be.
    #[error(
        "'{archive}' unpacks to more than {} MiB (at '{entry}'), all files together: an upload may be at most that",
        MAX_UPLOAD_BYTES / (1024 * 1024)
    )]
    TooLarge {
        /// The zip file's name.
        archive: String,
        /// The entry being read when the limit was passed.
        entry: String,
    },
    /// A path that is absolute or climbs out of the upload.
    #[error("'{archive}' holds '{entry}', which is not a plain relative path (no '..', no leading '/', no drive)")]
    BadPath {
        /// The zip file's name.
        archive: String,
        /// The entry's name as the zip writes it.
        entry: String,
    },
    /// Two entries with the same path.
    #[error("'{archive}' holds '{entry}' twice")]
    Duplicate {
        /// The zip file's name.
        archive: String,
        /// The path held twice.
        entry: String,
    },
    /// Encrypted, or compressed in a way the server does not read.
    #[error("'{archive}': '{entry}' cannot be read ({why}); zip it again without a password, with deflate")]
    Entry {
        /// The zip file's name.
        archive: String,
        /// The entry.
        entry: String,
        /// What the reader said.
        why: String,
    },
}

/// The files of the zip `bytes` (named `archive`), by path, in the zip's order: folders
/// and macOS's `__MACOSX/` copies left out, and the one top folder every file lives in,
/// if there is one, taken off (`bot_description/urdf/bot.urdf` → `urdf/bot.urdf`).
pub fn unpack(archive: &str, bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>, ArchiveError> {
    let unreadable =
        |e: zip::result::ZipError| ArchiveError::Unreadable { archive: archive.into(), why: e.to_string() };
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(unreadable)?;
    if zip.len() > MAX_UPLOAD_FILES {
        return Err(ArchiveError::TooManyFiles { archive: archive.into(), entries: zip.len() });
    }
    let mut left = MAX_UPLOAD_BYTES;
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for index in 0..zip.len() {
        let mut entry = zip.by_index(index).map_err(|e| ArchiveError::Entry {
            archive: archive.into(),
            entry: format!("entry {}", index + 1),
            why: e.to_string(),
        })?;
        let written = entry
            .name()
            .map_err(|e| ArchiveError::Entry {
                archive: archive.into(),
                entry: format!("entry {}", index + 1),
                why: e.to_string(),
            })?
            .into_owned();
        let path = plain_path(&written)
            .ok_or_else(|| ArchiveError::BadPath { archive: archive.into(), entry: written.clone() })?;
        if entry.is_dir() || path.starts_with("__MACOSX/") {
            continue;
        }
        let mut content = Vec::new();
        // Never more than what is left plus one byte, whatever the entry declares.
        let read = (&mut entry).take(left as u64 + 1).read_to_end(&mut content).map_err(|e| ArchiveError::Entry {
            archive: archive.into(),
            entry: written.clone(),
            why: e.to_string(),
        })?;
        if read > left {
            return Err(ArchiveError::TooLarge { archive: archive.into(), entry: written });
        }
        left -= read;
        files.push((path, content));
    }
    strip_top_folder(&mut files);
    let mut seen = std::collections::HashSet::new();
    if let Some((twice, _)) = files.iter().find(|(path, _)| !seen.insert(path.clone())) {
        return Err(ArchiveError::Duplicate { archive: archive.into(), entry: twice.clone() });
    }
    Ok(files)
}

/// `written` as a plain relative path (`./a//b/` → `a/b`), or `None` when it is absolute,
/// names a drive, uses `\` or climbs with `..`.
fn plain_path(written: &str) -> Option<String> {
    if written.starts_with('/') || written.contains('\\') || written.contains(':') {
        return None;
    }
    let parts: Vec<&str> = written.split('/').filter(|p| !p.is_empty() && *p != ".").collect();
    if parts.is_empty() || parts.contains(&"..") {
        return None;
    }
    Some(parts.join("/"))
}

/// Takes off the folder every file lives in, if they all live in one.
fn strip_top_folder(files: &mut [(String, Vec<u8>)]) {
    let Some(top) = files.first().and_then(|(path, _)| path.split_once('/')).map(|(top, _)| format!("{top}/")) else {
        return;
    };
    if files.iter().all(|(path, _)| path.starts_with(&top)) {
        for (path, _) in files.iter_mut() {
            *path = path[top.len()..].to_owned();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use zip::write::SimpleFileOptions;

    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        for (name, content) in entries {
            if name.ends_with('/') {
                writer.add_directory(*name, options).unwrap();
            } else {
                writer.start_file(*name, options).unwrap();
                writer.write_all(content).unwrap();
            }
        }
        writer.finish().unwrap().into_inner()
    }

    #[test]
    fn a_package_unpacks_without_its_top_folder() {
        let bytes = zip_of(&[
            ("bot_description/", b""),
            ("bot_description/urdf/bot.urdf", b"<robot/>"),
            ("bot_description/meshes/base.stl", b"solid"),
            ("__MACOSX/bot_description/._bot.urdf", b"junk"),
        ]);
        let files = unpack("bot.zip", &bytes).unwrap();
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["urdf/bot.urdf", "meshes/base.stl"]);
        assert_eq!(files[0].1, b"<robot/>");
        let flat = unpack("flat.zip", &zip_of(&[("bot.urdf", b"x"), ("meshes/a.stl", b"y")])).unwrap();
        assert_eq!(flat[1].0, "meshes/a.stl", "files in two places keep their folders");
    }

    #[test]
    fn paths_out_of_the_upload_are_refused() {
        for bad in ["../evil.py", "a/../../evil.py", "/etc/passwd", "C:/x.urdf", "a\\..\\b"] {
            let e = unpack("bad.zip", &zip_of(&[("ok.urdf", b"x"), (bad, b"y")])).unwrap_err();
            assert!(matches!(e, ArchiveError::BadPath { ref entry, .. } if entry == bad), "{bad}: {e}");
        }
        assert_eq!(plain_path("./a//b"), Some("a/b".into()));
    }

    #[test]
    fn a_zip_bomb_is_refused_while_it_inflates() {
        let zeros = vec![0u8; MAX_UPLOAD_BYTES + 1];
        let bytes = zip_of(&[("bomb.stl", &zeros)]);
        assert!(bytes.len() < 64 * 1024, "the bomb is small: {} bytes", bytes.len());
        let e = unpack("bomb.zip", &bytes).unwrap_err();
        assert!(matches!(e, ArchiveError::TooLarge { .. }), "{e}");
        assert!(e.to_string().contains("unpacks to more than 4 MiB"), "{e}");
        let half = vec![0u8; MAX_UPLOAD_BYTES / 2 + 1];
        let e = unpack("two.zip", &zip_of(&[("a.stl", &half), ("b.stl", &half)])).unwrap_err();
        assert!(matches!(e, ArchiveError::TooLarge { ref entry, .. } if entry == "b.stl"), "{e}");
    }

    #[test]
    fn too_many_entries_duplicates_and_garbage_are_refused() {
        let names: Vec<String> = (0..=MAX_UPLOAD_FILES).map(|i| format!("f{i}.txt")).collect();
        let entries: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b""[..])).collect();
        let e = unpack("many.zip", &zip_of(&entries)).unwrap_err();
        assert!(matches!(e, ArchiveError::TooManyFiles { .. }), "{e}");
        let e = unpack("dup.zip", &zip_of(&[("top/a.urdf", b"x"), ("top/./a.urdf", b"y")])).unwrap_err();
        assert_eq!(e, ArchiveError::Duplicate { archive: "dup.zip".into(), entry: "a.urdf".into() });
        let e = unpack("text.zip", b"not a zip at all").unwrap_err();
        assert!(matches!(e, ArchiveError::Unreadable { .. }), "{e}");
    }
}
