//! Writes a brotli (`.br`) and a gzip (`.gz`) copy beside each bundle file, and prints
//! the table of their sizes.
//!
//! Compressing once at build time lets the strongest settings be used (brotli quality
//! 11, gzip level 9), which are far too slow to run per request, and costs the server
//! nothing at run time: it picks the copy the browser accepts (`net::web_files`).
//! Both: brotli is a fifth smaller on wasm and every current browser accepts it over
//! HTTPS and on localhost; gzip is for the clients that do not (HTTP over a LAN address
//! in some browsers, scripts).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use flate2::Compression;
use flate2::write::GzEncoder;

/// Files below this size are left uncompressed: they fit in one TCP segment either way.
const MIN_BYTES: usize = 1024;
/// brotli's strongest quality, and its largest standard window (4 MiB): the bundle is
/// compressed once per build.
const BROTLI_QUALITY: u32 = 11;
const BROTLI_WINDOW_BITS: u32 = 22;

/// The sizes of one bundle file; `None` where it was too small to compress.
pub struct Sizes {
    pub name: String,
    pub raw: usize,
    pub gzip: Option<usize>,
    pub brotli: Option<usize>,
}

/// Writes `<file>.br` and `<file>.gz` beside every file of `dist` (its subfolders too)
/// of at least [`MIN_BYTES`], and returns the sizes of every file, sorted by name.
pub fn precompress(dist: &Path) -> Result<Vec<Sizes>> {
    let mut sizes = Vec::new();
    for path in files_below(dist)? {
        let bytes = fs::read(&path).with_context(|| format!("could not read {}", path.display()))?;
        let name = path.strip_prefix(dist).unwrap_or(&path).to_string_lossy().into_owned();
        let mut entry = Sizes { name, raw: bytes.len(), gzip: None, brotli: None };
        if bytes.len() >= MIN_BYTES {
            let gzip = gzip(&bytes)?;
            let brotli = brotli(&bytes)?;
            write_beside(&path, "gz", &gzip)?;
            write_beside(&path, "br", &brotli)?;
            entry.gzip = Some(gzip.len());
            entry.brotli = Some(brotli.len());
        }
        sizes.push(entry);
    }
    sizes.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(sizes)
}

/// Prints the size table: raw, gzip and brotli bytes per file, then the totals: of the
/// files named in `first_load` (what a lab's page downloads before its first frame),
/// then of all.
pub fn print_table(sizes: &[Sizes], first_load: &[&str]) {
    let width = sizes.iter().map(|entry| entry.name.len()).max().unwrap_or(4).max(5);
    let cell = |value: Option<usize>| value.map_or_else(|| "-".to_string(), |bytes| bytes.to_string());
    eprintln!("xtask:   {:<width$}  {:>9}  {:>9}  {:>9}", "file", "raw B", "gzip B", "brotli B");
    for entry in sizes {
        eprintln!(
            "xtask:   {:<width$}  {:>9}  {:>9}  {:>9}",
            entry.name,
            entry.raw,
            cell(entry.gzip),
            cell(entry.brotli)
        );
    }
    let first: Vec<&Sizes> = sizes.iter().filter(|entry| first_load.contains(&entry.name.as_str())).collect();
    print_total("first load", first.into_iter(), width);
    print_total("total", sizes.iter(), width);
}

fn print_total<'a>(label: &str, sizes: impl Iterator<Item = &'a Sizes>, width: usize) {
    let (mut raw, mut gzip, mut brotli) = (0, 0, 0);
    for entry in sizes {
        // A file left uncompressed is sent raw whatever the browser accepts.
        raw += entry.raw;
        gzip += entry.gzip.unwrap_or(entry.raw);
        brotli += entry.brotli.unwrap_or(entry.raw);
    }
    eprintln!("xtask:   {label:<width$}  {raw:>9}  {gzip:>9}  {brotli:>9}");
}

fn gzip(bytes: &[u8]) -> Result<Vec<u8>> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
    encoder.write_all(bytes)?;
    Ok(encoder.finish()?)
}

fn brotli(bytes: &[u8]) -> Result<Vec<u8>> {
    let mut output = Vec::new();
    {
        let mut encoder = brotli::CompressorWriter::new(&mut output, 64 * 1024, BROTLI_QUALITY, BROTLI_WINDOW_BITS);
        encoder.write_all(bytes)?;
        encoder.flush()?;
    }
    Ok(output)
}

fn write_beside(path: &Path, extension: &str, bytes: &[u8]) -> Result<()> {
    let mut name = path.as_os_str().to_owned();
    name.push(".");
    name.push(extension);
    let target = PathBuf::from(name);
    fs::write(&target, bytes).with_context(|| format!("could not write {}", target.display()))
}

/// Every file below `dir`, recursively.
fn files_below(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in fs::read_dir(&folder).with_context(|| format!("could not read {}", folder.display()))? {
            let entry = entry?;
            if entry.file_type()?.is_dir() {
                folders.push(entry.path());
            } else {
                files.push(entry.path());
            }
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    #[test]
    fn copies_decompress_to_the_original_and_small_files_are_left_alone() {
        let dist = std::env::temp_dir().join(format!("xtask-precompress-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dist);
        fs::create_dir_all(dist.join("snippets")).unwrap();
        let large: Vec<u8> = (0..20_000u32).flat_map(|i| (i % 251).to_le_bytes()).collect();
        fs::write(dist.join("app.wasm"), &large).unwrap();
        fs::write(dist.join("snippets").join("inline.js"), "x".repeat(MIN_BYTES)).unwrap();
        fs::write(dist.join("index.html"), "<!doctype html>").unwrap();

        let sizes = precompress(&dist).unwrap();

        let mut unzipped = Vec::new();
        flate2::read::GzDecoder::new(&fs::read(dist.join("app.wasm.gz")).unwrap()[..])
            .read_to_end(&mut unzipped)
            .unwrap();
        assert_eq!(unzipped, large);
        let mut unbrotli = Vec::new();
        brotli::Decompressor::new(&fs::read(dist.join("app.wasm.br")).unwrap()[..], 4096)
            .read_to_end(&mut unbrotli)
            .unwrap();
        assert_eq!(unbrotli, large);
        assert!(dist.join("snippets").join("inline.js.br").is_file());
        assert!(!dist.join("index.html.br").exists() && !dist.join("index.html.gz").exists());
        let names: Vec<&str> = sizes.iter().map(|entry| entry.name.as_str()).collect();
        assert_eq!(names, ["app.wasm", "index.html", "snippets/inline.js"]);
        assert!(sizes[0].brotli.unwrap() < sizes[0].raw && sizes[0].gzip.unwrap() < sizes[0].raw);
        assert_eq!((sizes[1].gzip, sizes[1].brotli), (None, None));
        fs::remove_dir_all(&dist).unwrap();
    }
}
