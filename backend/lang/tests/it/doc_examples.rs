//! Every example of the pages that teach the language (`docs/scene-language.md`,
//! `docs/challenges.md`), run by the real interpreter, so the pages cannot drift from
//! the language.
//!
//! How a page's fenced blocks are read:
//! - ` ```vlab `: must interpret without error, as `main.vlab` with seed 0.
//! - ` ```vlab-error `: must stop with an error.
//! - A ` ```text ` block right after either (nothing but blank lines between) is the
//!   expected output: for `vlab`, the `print_*` lines, then the warnings
//!   (`file:line:col: warning: ...`), one per line; for `vlab-error`, the error
//!   (`file:line:col: message`).
//! - A block whose info string says `file=NAME` (` ```vlab file=lib/walls.vlab `,
//!   ` ```text file=bot.rprj `) is also a file that the other blocks may include or
//!   name, as `NAME`; a `vlab` one is interpreted under that name too.
//!
//! Includes the page does not define come from `scenes/`, meshes from `assets/`, as on
//! a server started from this repository.

use std::collections::HashMap;
use std::path::PathBuf;

use vlab_scene::{DirLoader, LoadError, Options, SourceLoader, interpret};

/// One fenced block of the page.
struct Block {
    /// The words after the opening fence.
    info: Vec<String>,
    /// Its text, with a final newline.
    text: String,
    /// 1-based line of its opening fence in the page.
    line: usize,
    /// Whether only blank lines separate it from the previous block.
    follows_previous: bool,
}

impl Block {
    fn language(&self) -> &str {
        self.info.first().map_or("", String::as_str)
    }

    fn file_name(&self) -> Option<&str> {
        self.info.iter().find_map(|word| word.strip_prefix("file="))
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The fenced blocks of `page`, in order. Fences may be indented (inside a list); the
/// fence's indentation is taken off the block's lines.
fn blocks(page: &str) -> Vec<Block> {
    let mut found = Vec::new();
    let mut open: Option<(Block, usize)> = None;
    let mut blank_since_block = true;
    let mut last_closed_at: Option<usize> = None;
    for (index, line) in page.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        match open.take() {
            Some((block, _)) if trimmed.starts_with("```") => {
                last_closed_at = Some(index);
                blank_since_block = true;
                found.push(block);
            }
            Some((mut block, fence_indent)) => {
                let text = match line.get(..fence_indent) {
                    Some(prefix) if prefix.trim().is_empty() => &line[fence_indent..],
                    _ => line.trim_start(),
                };
                block.text.push_str(text);
                block.text.push('\n');
                open = Some((block, fence_indent));
            }
            None if trimmed.starts_with("```") => {
                let info: Vec<String> = trimmed[3..].split_whitespace().map(str::to_owned).collect();
                let follows_previous = last_closed_at.is_some() && blank_since_block;
                open = Some((Block { info, text: String::new(), line: index + 1, follows_previous }, indent));
            }
            None => {
                if !trimmed.is_empty() {
                    blank_since_block = false;
                }
            }
        }
    }
    assert!(open.is_none(), "the page ends inside a fenced block");
    found
}

/// The page's own files, then the scene library and the assets of the repository.
struct DocLoader {
    files: HashMap<String, String>,
    library: DirLoader,
}

impl SourceLoader for DocLoader {
    fn load(&self, name: &str) -> Result<String, LoadError> {
        match self.files.get(name) {
            Some(text) => Ok(text.clone()),
            None => self.library.load(name),
        }
    }

    fn asset_exists(&self, name: &str) -> Option<bool> {
        self.library.asset_exists(name)
    }
}

#[test]
fn every_example_of_the_scene_language_page_does_what_the_page_says() {
    check_page("docs/scene-language.md", 20, 5);
}

#[test]
fn every_example_of_the_challenges_page_does_what_the_page_says() {
    check_page("docs/challenges.md", 10, 10);
}

/// Runs every example of the page `name` (from the repository's root), which must have
/// at least `min_examples` examples and `min_errors` error examples.
fn check_page(name: &str, min_examples: usize, min_errors: usize) {
    let path = root().join(name);
    let page = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let blocks = blocks(&page);
    let files =
        blocks.iter().filter_map(|block| block.file_name().map(|name| (name.to_owned(), block.text.clone()))).collect();
    let loader =
        DocLoader { files, library: DirLoader { scenes: root().join("scenes"), assets: Some(root().join("assets")) } };
    let mut failures = Vec::new();
    let (mut examples, mut errors) = (0, 0);
    for (index, block) in blocks.iter().enumerate() {
        let should_fail = match block.language() {
            "vlab" => false,
            "vlab-error" => true,
            _ => continue,
        };
        let expected = blocks
            .get(index + 1)
            .filter(|next| next.follows_previous && next.language() == "text" && next.file_name().is_none())
            .map(|next| next.text.trim_end().to_owned());
        let name = block.file_name().unwrap_or("main.vlab");
        let got = match (interpret(&block.text, name, &loader, &Options::default()), should_fail) {
            (Ok(result), false) => {
                examples += 1;
                let mut lines = result.log;
                lines.extend(result.warnings.iter().map(ToString::to_string));
                Ok(lines.join("\n"))
            }
            (Err(e), true) => {
                errors += 1;
                Ok(e[0].to_string())
            }
            (Ok(_), true) => Err("it interpreted without error, but the page says it fails".to_owned()),
            (Err(e), false) => Err(format!("it failed: {}", e[0])),
        };
        let problem = match (got, expected) {
            (Err(problem), _) => Some(problem),
            (Ok(got), Some(expected)) if got != expected => {
                Some(format!("the page shows\n{expected}\nbut the interpreter gives\n{got}"))
            }
            _ => None,
        };
        if let Some(problem) = problem {
            failures.push(format!("{name}:{}: {problem}\n{}", block.line, block.text));
        }
    }
    assert!(
        failures.is_empty(),
        "{} example(s) disagree with the interpreter:\n\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        examples >= min_examples && errors >= min_errors,
        "{name}: only {examples} examples and {errors} error examples found: is the page complete?"
    );
}

#[test]
fn the_block_reader_finds_indented_blocks_and_the_output_after_them() {
    let page = "text\n```vlab\nprint_num 1;\n```\n\n```text\n1\n```\n- item\n  ```vlab-error file=a.vlab\n  x\n  ```\nprose\n```text\nnot output\n```\n";
    let blocks = blocks(page);
    let summary: Vec<(&str, Option<&str>, &str, bool)> =
        blocks.iter().map(|b| (b.language(), b.file_name(), b.text.as_str(), b.follows_previous)).collect();
    assert_eq!(
        summary,
        [
            ("vlab", None, "print_num 1;\n", false),
            ("text", None, "1\n", true),
            ("vlab-error", Some("a.vlab"), "x\n", false),
            ("text", None, "not output\n", false),
        ]
    );
}
