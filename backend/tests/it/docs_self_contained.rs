//! The repository explains itself: its sources, documents and scenes refer a reader only
//! to documents it contains (`docs/api.md`, `docs/scene-language.md`,
//! `docs/sensors.md`, ...). The names below are of documents it does not contain.
//!
//! They are built from pieces, so this file does not match itself.

use std::path::{Path, PathBuf};

/// Names of documents that are not part of the repository, and a path out of it.
const FORBIDDEN: [&str; 7] = [
    concat!("DESIGN", ".md"),
    concat!("SENSORS", ".md"),
    concat!("SCENE_", "LANGUAGE", ".md"),
    concat!("STYLE", ".md"),
    concat!("SANDBOX", ".md"),
    concat!("FRONTEND_", "BUILD", ".md"),
    concat!("../", "shared"),
];

/// The kinds of text file that are read.
const EXTENSIONS: [&str; 8] = ["rs", "md", "py", "vlab", "toml", "mjs", "html", "css"];

/// Folders that hold no source of ours: build output, dependencies, test artifacts.
const SKIPPED: [&str; 5] = ["target", "node_modules", "dist", ".git", "e2e/artifacts"];

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every text file of the kinds above under `dir`, skipped folders left out.
fn text_files(root: &Path, dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else { continue };
        let relative = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
        if kind.is_dir() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !SKIPPED.contains(&name.as_str()) && !SKIPPED.contains(&relative.as_str()) {
                text_files(root, &path, found);
            }
        } else if kind.is_file() && path.extension().and_then(|e| e.to_str()).is_some_and(|e| EXTENSIONS.contains(&e)) {
            found.push(path);
        }
    }
}

#[test]
fn no_file_points_at_documents_outside_the_repository() {
    let root = workspace();
    let mut files = Vec::new();
    text_files(&root, &root, &mut files);
    files.sort();
    assert!(files.len() > 50, "only {} text files found under {}: is this the workspace?", files.len(), root.display());
    let mut hits = Vec::new();
    for file in &files {
        let Ok(bytes) = std::fs::read(file) else { continue };
        let text = String::from_utf8_lossy(&bytes);
        for (index, line) in text.lines().enumerate() {
            for name in FORBIDDEN.iter().filter(|name| line.contains(*name)) {
                let relative = file.strip_prefix(&root).unwrap_or(file).display().to_string();
                hits.push(format!("{relative}:{}: {name}: {}", index + 1, line.trim()));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "{} line(s) point at documents that are not in the repository; say it in docs/ (api.md, \
         scene-language.md, sensors.md, ...) and point there instead:\n{}",
        hits.len(),
        hits.join("\n")
    );
}
