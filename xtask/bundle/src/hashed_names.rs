//! Gives the bundle's files content-hashed names and rewrites the references to them.
//!
//! A name carrying a hash of the file's bytes (`vlab_frontend-0123456789abcdef.js`)
//! changes whenever the bytes do, so the server can let browsers keep these files for a
//! year without asking (`Cache-Control: immutable`) and a new build is still picked up
//! at once: only `index.html`, under its fixed name, is revalidated on each load, and it
//! names the new files. The form `<stem>-<16 lowercase hex>.<ext>` is what the backend's
//! `net::web_files` recognises; keep the two in step.

use std::fs;
use std::path::Path;

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

/// Hex digits of SHA-256 kept in a name: 64 bits, no collision between two builds.
const HASH_HEX_DIGITS: usize = 16;

/// The files `cargo xtask web` renames, in the order they must be renamed: a file
/// that names another is hashed after that other's reference in it is rewritten.
pub struct Bundle<'a> {
    /// The first module's wasm, e.g. `vlab_frontend_bg.wasm`.
    pub wasm: &'a str,
    /// The JS glue, e.g. `vlab_frontend.js` (it names the wasm and imports the loader).
    pub glue: &'a str,
    /// The parts' loader, e.g. `vlab_frontend_parts.js` (it names the parts' modules and
    /// imports the glue).
    pub loader: &'a str,
    /// The stylesheet, e.g. `style.css`.
    pub style: &'a str,
    /// The page (keeps its name; names the glue and the stylesheet).
    pub page: &'a str,
}

/// The bundle's files under their new names.
#[derive(Debug)]
pub struct Renamed {
    pub wasm: String,
    pub glue: String,
    pub loader: String,
    pub style: String,
    /// The parts' modules, in the order they were given.
    #[cfg_attr(not(test), expect(dead_code, reason = "the build needs only the first load's names"))]
    pub parts: Vec<String>,
}

/// Renames the first module, the parts' modules (`parts`), the glue, the loader and the
/// stylesheet in `dist` to content-hashed names and rewrites every reference to them.
pub fn apply(dist: &Path, bundle: &Bundle, parts: &[String]) -> Result<Renamed> {
    let wasm = rename_to_hashed(dist, bundle.wasm)?;
    let glue_path = dist.join(bundle.glue);
    let loader_path = dist.join(bundle.loader);
    rewrite(&glue_path, &[(&format!("'{}'", bundle.wasm), &format!("'{wasm}'"))])?;
    let mut renamed_parts = Vec::with_capacity(parts.len());
    let mut part_references = Vec::with_capacity(parts.len());
    for part in parts {
        let new_name = rename_to_hashed(dist, part)?;
        part_references.push((format!("\"./{part}\""), format!("\"./{new_name}\"")));
        renamed_parts.push(new_name);
    }
    let part_references: Vec<(&str, &str)> =
        part_references.iter().map(|(old, new)| (old.as_str(), new.as_str())).collect();
    rewrite(&loader_path, &part_references)?;

    // The glue imports the loader and the loader imports the glue, so neither can be
    // hashed after the other's reference in it is rewritten. Both take one hash of both
    // texts as they are before either reference changes: the final texts follow from
    // those two and the hash, so equal names still mean equal bytes.
    let glue_text = read_text(&glue_path)?;
    let loader_text = read_text(&loader_path)?;
    let mut pair = Sha256::new();
    pair.update((glue_text.len() as u64).to_le_bytes());
    pair.update(glue_text.as_bytes());
    pair.update(loader_text.as_bytes());
    let hash = hex_prefix(&pair.finalize());
    let glue = with_hash(bundle.glue, &hash);
    let loader = with_hash(bundle.loader, &hash);
    // wasm-bindgen writes one `import * as importN from "./<loader>"` per imported
    // function; the keys of the wasm's imports object keep the old name, which is the
    // name the module asks for.
    rewrite_every(&glue_path, &format!("from \"./{}\"", bundle.loader), &format!("from \"./{loader}\""))?;
    rewrite(&loader_path, &[(&format!("from \"./{}\"", bundle.glue), &format!("from \"./{glue}\""))])?;
    rename(dist, bundle.glue, &glue)?;
    rename(dist, bundle.loader, &loader)?;

    let style = rename_to_hashed(dist, bundle.style)?;
    rewrite(
        &dist.join(bundle.page),
        &[
            (&format!("\"./{}\"", bundle.glue), &format!("\"./{glue}\"")),
            (&format!("\"./{}\"", bundle.style), &format!("\"./{style}\"")),
        ],
    )?;
    Ok(Renamed { wasm, glue, loader, style, parts: renamed_parts })
}

/// The first [`HASH_HEX_DIGITS`] lowercase hex digits of `digest`.
fn hex_prefix(digest: &[u8]) -> String {
    let hash: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    hash[..HASH_HEX_DIGITS].to_owned()
}

/// `name` with `hash` before its first dot: `style.css` → `style-<hash>.css`.
fn with_hash(name: &str, hash: &str) -> String {
    match name.split_once('.') {
        Some((stem, extension)) => format!("{stem}-{hash}.{extension}"),
        None => format!("{name}-{hash}"),
    }
}

fn read_text(path: &Path) -> Result<String> {
    fs::read_to_string(path).with_context(|| format!("could not read {}", path.display()))
}

fn rename(dist: &Path, from: &str, to: &str) -> Result<()> {
    let (from, to) = (dist.join(from), dist.join(to));
    fs::rename(&from, &to).with_context(|| format!("could not rename {} to {}", from.display(), to.display()))
}

/// `name` with the hash of `bytes` before its first dot: `style.css` → `style-<hash>.css`.
fn hashed_name(name: &str, bytes: &[u8]) -> String {
    with_hash(name, &hex_prefix(&Sha256::digest(bytes)))
}

fn rename_to_hashed(dist: &Path, name: &str) -> Result<String> {
    let from = dist.join(name);
    let bytes = fs::read(&from).with_context(|| format!("could not read {}", from.display()))?;
    let new_name = hashed_name(name, &bytes);
    rename(dist, name, &new_name)?;
    Ok(new_name)
}

/// Replaces every `old` in the file at `path` by `new`; `old` must occur at least once.
fn rewrite_every(path: &Path, old: &str, new: &str) -> Result<()> {
    let text = read_text(path)?;
    if !text.contains(old) {
        bail!("{} never names {old}", path.display());
    }
    fs::write(path, text.replace(old, new)).with_context(|| format!("could not write {}", path.display()))
}

/// Replaces each `(old, new)` in the file at `path`; each `old` must occur exactly once,
/// so that a change in the generated glue or the page fails the build instead of
/// shipping a page that loads a name no longer served.
fn rewrite(path: &Path, replacements: &[(&str, &str)]) -> Result<()> {
    let mut text = fs::read_to_string(path).with_context(|| format!("could not read {}", path.display()))?;
    for (old, new) in replacements {
        let found = text.matches(old).count();
        if found != 1 {
            bail!("{} names {old} {found} times, expected once", path.display());
        }
        text = text.replace(old, new);
    }
    fs::write(path, text).with_context(|| format!("could not write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_goes_before_the_first_dot_and_follows_the_bytes() {
        let name = hashed_name("vlab_frontend_bg.wasm", b"one");
        let (stem, rest) = name.split_once('-').unwrap();
        assert_eq!(stem, "vlab_frontend_bg");
        let (hash, extension) = rest.split_once('.').unwrap();
        assert_eq!(extension, "wasm");
        assert_eq!(hash.len(), HASH_HEX_DIGITS);
        assert!(hash.bytes().all(|byte| byte.is_ascii_hexdigit() && !byte.is_ascii_uppercase()));
        assert_eq!(name, hashed_name("vlab_frontend_bg.wasm", b"one"));
        assert_ne!(name, hashed_name("vlab_frontend_bg.wasm", b"two"));
    }

    /// A bundle as the build leaves it before renaming, in a fresh folder.
    fn staged_bundle(name: &str, loader_text: &str) -> std::path::PathBuf {
        let dist = std::env::temp_dir().join(format!("xtask-hashed-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dist);
        fs::create_dir_all(&dist).unwrap();
        fs::write(dist.join("app_bg.wasm"), b"\0asm").unwrap();
        fs::write(dist.join("split_a.wasm"), b"\0asm a").unwrap();
        fs::write(
            dist.join("app.js"),
            "import * as import1 from \"./app_parts.js\"\nimport * as import2 from \"./app_parts.js\"\n\
             imports = { \"./app_parts.js\": import1, \"./app_parts.js\": import2 };\n\
             module_or_path = new URL('app_bg.wasm', import.meta.url);",
        )
        .unwrap();
        fs::write(dist.join("app_parts.js"), loader_text).unwrap();
        fs::write(dist.join("style.css"), "body {}").unwrap();
        fs::write(dist.join("index.html"), "<link href=\"./style.css\"><script>import \"./app.js\"</script>").unwrap();
        dist
    }

    const BUNDLE: Bundle<'static> =
        Bundle { wasm: "app_bg.wasm", glue: "app.js", loader: "app_parts.js", style: "style.css", page: "index.html" };
    const LOADER: &str =
        "import { initSync } from \"./app.js\";\nmakeLoad(new URL(\"./split_a.wasm\", import.meta.url));";

    #[test]
    fn every_file_is_renamed_and_every_reference_follows() {
        let dist = staged_bundle("renamed", LOADER);

        let renamed = apply(&dist, &BUNDLE, &["split_a.wasm".to_owned()]).unwrap();

        assert_eq!(fs::read(dist.join(&renamed.wasm)).unwrap(), b"\0asm");
        assert_eq!(renamed.parts, [hashed_name("split_a.wasm", b"\0asm a")]);
        let glue = fs::read_to_string(dist.join(&renamed.glue)).unwrap();
        assert_eq!(
            glue,
            format!(
                "import * as import1 from \"./{0}\"\nimport * as import2 from \"./{0}\"\n\
                 imports = {{ \"./app_parts.js\": import1, \"./app_parts.js\": import2 }};\n\
                 module_or_path = new URL('{1}', import.meta.url);",
                renamed.loader, renamed.wasm
            ),
            "the wasm's own import name stays: the module still asks for ./app_parts.js"
        );
        let loader = fs::read_to_string(dist.join(&renamed.loader)).unwrap();
        assert_eq!(
            loader,
            format!(
                "import {{ initSync }} from \"./{}\";\nmakeLoad(new URL(\"./{}\", import.meta.url));",
                renamed.glue, renamed.parts[0]
            )
        );
        let page = fs::read_to_string(dist.join("index.html")).unwrap();
        assert_eq!(page, format!("<link href=\"./{}\"><script>import \"./{}\"</script>", renamed.style, renamed.glue));
        for old in ["app_bg.wasm", "split_a.wasm", "app.js", "app_parts.js", "style.css"] {
            assert!(!dist.join(old).exists(), "{old} is left under its old name");
        }
        fs::remove_dir_all(&dist).unwrap();
    }

    #[test]
    fn the_glue_and_the_loader_change_names_together() {
        let first = staged_bundle("pair-one", LOADER);
        let second = staged_bundle("pair-two", &format!("{LOADER}\n// another build"));

        let one = apply(&first, &BUNDLE, &["split_a.wasm".to_owned()]).unwrap();
        let two = apply(&second, &BUNDLE, &["split_a.wasm".to_owned()]).unwrap();
        let again = staged_bundle("pair-three", LOADER);
        let same = apply(&again, &BUNDLE, &["split_a.wasm".to_owned()]).unwrap();

        assert_ne!(one.loader, two.loader, "a changed loader gets a new name");
        assert_ne!(one.glue, two.glue, "and so does the glue that imports it");
        assert_eq!((&one.glue, &one.loader), (&same.glue, &same.loader), "the same bytes keep their names");
        let hash = |name: &str| name.split_once('-').unwrap().1.split_once('.').unwrap().0.to_owned();
        assert_eq!(hash(&one.glue), hash(&one.loader));
        for dist in [first, second, again] {
            fs::remove_dir_all(&dist).unwrap();
        }
    }

    #[test]
    fn a_missing_reference_fails_the_build() {
        let dist = std::env::temp_dir().join(format!("xtask-hashed-missing-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dist);
        fs::create_dir_all(&dist).unwrap();
        fs::write(dist.join("app_bg.wasm"), b"\0asm").unwrap();
        fs::write(dist.join("app.js"), "fetch('elsewhere.wasm')").unwrap();
        fs::write(dist.join("app_parts.js"), LOADER).unwrap();
        fs::write(dist.join("style.css"), "body {}").unwrap();
        fs::write(dist.join("index.html"), "").unwrap();

        let error = apply(&dist, &BUNDLE, &[]).unwrap_err().to_string();

        assert!(error.contains("'app_bg.wasm' 0 times"), "{error}");
        fs::remove_dir_all(&dist).unwrap();
    }
}
