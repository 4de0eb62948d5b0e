//! ARCHITECTURE.md is the one map: its crate table names exactly the workspace's
//! crates, each at its folder, and each crate's first doc line and Cargo `description`
//! say the same job.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The value of `key = "..."` on a line of its own in `toml` (the first such line).
fn toml_string(toml: &str, key: &str) -> Option<String> {
    toml.lines().find_map(|line| {
        let rest = line.trim().strip_prefix(key)?.trim_start().strip_prefix('=')?.trim();
        Some(rest.strip_prefix('"')?.strip_suffix('"')?.to_owned())
    })
}

/// The workspace's members (folder → package name), from the root `Cargo.toml`.
fn members() -> BTreeMap<String, String> {
    let root = std::fs::read_to_string(workspace().join("Cargo.toml")).unwrap();
    let list = root.split("members = [").nth(1).unwrap().split(']').next().unwrap();
    list.split(',')
        .map(|member| member.trim().trim_matches('"').to_owned())
        .filter(|member| !member.is_empty())
        .map(|folder| {
            let manifest = std::fs::read_to_string(workspace().join(&folder).join("Cargo.toml")).unwrap();
            let name = toml_string(&manifest, "name").unwrap_or_else(|| panic!("{folder}: no package name"));
            (folder, name)
        })
        .collect()
}

/// The crate table's rows: folder → package name, from "| `folder/` (`name`...".
fn table() -> BTreeMap<String, String> {
    let map = std::fs::read_to_string(workspace().join("ARCHITECTURE.md")).unwrap();
    let section = map.split("## Crates").nth(1).unwrap().split("\n## ").next().unwrap();
    section
        .lines()
        .filter_map(|row| {
            let cell = row.strip_prefix("| `")?;
            let (folder, rest) = cell.split_once("/`")?;
            let name = match rest.trim_start().strip_prefix("(`") {
                Some(named) => named.split('`').next()?.to_owned(),
                None => folder.rsplit('/').next()?.to_owned(),
            };
            Some((folder.to_owned(), name))
        })
        .filter(|(folder, _)| workspace().join(folder).join("Cargo.toml").exists())
        .collect()
}

#[test]
fn the_crate_table_names_exactly_the_workspace_crates() {
    assert_eq!(table(), members(), "ARCHITECTURE.md's crate table against the workspace's members");
}

/// A crate root's first doc paragraph, as plain words: links' brackets and code ticks
/// left out, lines joined.
fn first_doc_paragraph(folder: &Path) -> Option<String> {
    let root = ["src/lib.rs", "src/main.rs"].iter().map(|file| folder.join(file)).find(|path| path.exists())?;
    let source = std::fs::read_to_string(root).ok()?;
    let paragraph: Vec<&str> = source
        .lines()
        .skip_while(|line| !line.starts_with("//!"))
        .map_while(|line| line.strip_prefix("//!"))
        .take_while(|line| !line.trim().is_empty())
        .collect();
    Some(plain(&paragraph.join(" ")))
}

fn plain(text: &str) -> String {
    let kept: String = text.chars().filter(|c| !matches!(c, '[' | ']' | '`')).collect();
    kept.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn each_crate_states_its_job_in_its_first_doc_line_and_its_description() {
    for (folder, name) in members() {
        let path = workspace().join(&folder);
        let manifest = std::fs::read_to_string(path.join("Cargo.toml")).unwrap();
        let description = toml_string(&manifest, "description").unwrap_or_else(|| panic!("{name}: no description"));
        let doc = first_doc_paragraph(&path).unwrap_or_else(|| panic!("{name}: no crate doc comment"));
        assert!(
            doc.starts_with(&plain(&description)),
            "{name}: its first doc paragraph must begin with its Cargo description\n  doc: {doc}\n  description: {description}"
        );
    }
}
