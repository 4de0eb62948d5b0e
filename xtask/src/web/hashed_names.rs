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
    /// The glue's wasm, e.g. `vlab_frontend_bg.wasm`.
    pub wasm: &'a str,
    /// The JS glue, e.g. `vlab_frontend.js` (it names the wasm).
    pub glue: &'a str,
    /// The stylesheet, e.g. `style.css`.
    pub style: &'a str,
    /// The page (keeps its name; names the glue and the stylesheet).
    pub page: &'a str,
}

/// Renames the wasm, the glue and the stylesheet in `dist` to content-hashed names and
/// rewrites the glue's and the page's references to them. Returns the new names
/// (wasm, glue, style).
pub fn apply(dist: &Path, bundle: &Bundle) -> Result<[String; 3]> {
    let wasm = rename_to_hashed(dist, bundle.wasm)?;
    rewrite(&dist.join(bundle.glue), &[(&format!("'{}'", bundle.wasm), &format!("'{wasm}'"))])?;
    let glue = rename_to_hashed(dist, bundle.glue)?;
    let style = rename_to_hashed(dist, bundle.style)?;
    rewrite(
        &dist.join(bundle.page),
        &[
            (&format!("\"./{}\"", bundle.glue), &format!("\"./{glue}\"")),
            (&format!("\"./{}\"", bundle.style), &format!("\"./{style}\"")),
        ],
    )?;
    Ok([wasm, glue, style])
}

/// `name` with the hash of `bytes` before its first dot: `style.css` → `style-<hash>.css`.
fn hashed_name(name: &str, bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let hash: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    let hash = &hash[..HASH_HEX_DIGITS];
    match name.split_once('.') {
        Some((stem, extension)) => format!("{stem}-{hash}.{extension}"),
        None => format!("{name}-{hash}"),
    }
}

fn rename_to_hashed(dist: &Path, name: &str) -> Result<String> {
    let from = dist.join(name);
    let bytes = fs::read(&from).with_context(|| format!("could not read {}", from.display()))?;
    let new_name = hashed_name(name, &bytes);
    let to = dist.join(&new_name);
    fs::rename(&from, &to).with_context(|| format!("could not rename {} to {}", from.display(), to.display()))?;
    Ok(new_name)
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

    #[test]
    fn the_glue_and_the_page_are_rewritten_to_the_new_names() {
        let dist = std::env::temp_dir().join(format!("xtask-hashed-names-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dist);
        fs::create_dir_all(&dist).unwrap();
        fs::write(dist.join("app_bg.wasm"), b"\0asm").unwrap();
        fs::write(dist.join("app.js"), "module_or_path = new URL('app_bg.wasm', import.meta.url);").unwrap();
        fs::write(dist.join("style.css"), "body {}").unwrap();
        fs::write(dist.join("index.html"), "<link href=\"./style.css\"><script>import \"./app.js\"</script>").unwrap();
        let bundle = Bundle { wasm: "app_bg.wasm", glue: "app.js", style: "style.css", page: "index.html" };

        let [wasm, glue, style] = apply(&dist, &bundle).unwrap();

        assert_eq!(fs::read(dist.join(&wasm)).unwrap(), b"\0asm");
        let glue_text = fs::read_to_string(dist.join(&glue)).unwrap();
        assert_eq!(glue_text, format!("module_or_path = new URL('{wasm}', import.meta.url);"));
        assert_eq!(glue, hashed_name("app.js", glue_text.as_bytes()));
        let page = fs::read_to_string(dist.join("index.html")).unwrap();
        assert_eq!(page, format!("<link href=\"./{style}\"><script>import \"./{glue}\"</script>"));
        for old in ["app_bg.wasm", "app.js", "style.css"] {
            assert!(!dist.join(old).exists(), "{old} is left under its old name");
        }
        fs::remove_dir_all(&dist).unwrap();
    }

    #[test]
    fn a_missing_reference_fails_the_build() {
        let dist = std::env::temp_dir().join(format!("xtask-hashed-missing-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dist);
        fs::create_dir_all(&dist).unwrap();
        fs::write(dist.join("app_bg.wasm"), b"\0asm").unwrap();
        fs::write(dist.join("app.js"), "fetch('elsewhere.wasm')").unwrap();
        fs::write(dist.join("style.css"), "body {}").unwrap();
        fs::write(dist.join("index.html"), "").unwrap();
        let bundle = Bundle { wasm: "app_bg.wasm", glue: "app.js", style: "style.css", page: "index.html" };

        let error = apply(&dist, &bundle).unwrap_err().to_string();

        assert!(error.contains("'app_bg.wasm' 0 times"), "{error}");
        fs::remove_dir_all(&dist).unwrap();
    }
}
