//! Robot programs on the wire: console lines, a program's files, and the example robots
//! a teacher hands out.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What a robot description may leave to the lab, filled in when it is added: its
/// name's suffix (`"{suffix}"` becomes `_ana`, from the uploader's name) and where it
/// starts (`{x}`, `{z}`: a free spot the lab chooses, metres).
pub const PLACEHOLDERS: [&str; 3] = ["{suffix}", "{x}", "{z}"];

/// Whether a robot description leaves its start to the lab: `{x}` or `{z}` in its code
/// (a comment that mentions them does not count).
pub fn leaves_start_to_lab(description: &str) -> bool {
    code_contains(description, "{x}") || code_contains(description, "{z}")
}

/// Where the first placeholder of a description's code is: its byte offset and which.
pub fn first_placeholder(description: &str) -> Option<(usize, &'static str)> {
    code_spans(description)
        .into_iter()
        .flat_map(|span| {
            PLACEHOLDERS.iter().filter_map(move |p| description[span.clone()].find(p).map(|at| (span.start + at, *p)))
        })
        .min_by_key(|(offset, _)| *offset)
}

/// A description with `{suffix}` filled in: `suffix` is the name's ending without its
/// underscore (`ana` names `diffbot_ana`). Comments are left as they are: one that
/// explains the placeholders still reads right.
pub fn fill_suffix(description: &str, suffix: &str) -> String {
    replace_in_code(description, &[("{suffix}", format!("_{suffix}"))])
}

/// A description with `{x}` and `{z}` filled in (metres, as short as they are exact),
/// its comments left as they are.
pub fn fill_start(description: &str, x: f64, z: f64) -> String {
    let number = |v: f64| if v == 0.0 { "0".to_owned() } else { v.to_string() };
    replace_in_code(description, &[("{x}", number(x)), ("{z}", number(z))])
}

/// Whether `needle` is in the code (or a string) of scene text `text`, not a comment.
fn code_contains(text: &str, needle: &str) -> bool {
    code_spans(text).into_iter().any(|span| text[span].contains(needle))
}

/// `text` with each `(placeholder, value)` replaced in its code and strings only.
fn replace_in_code(text: &str, pairs: &[(&str, String)]) -> String {
    let mut filled = String::with_capacity(text.len());
    let mut at = 0;
    for span in code_spans(text) {
        filled.push_str(&text[at..span.start]);
        let mut code = text[span.clone()].to_owned();
        for (placeholder, value) in pairs {
            code = code.replace(placeholder, value);
        }
        filled.push_str(&code);
        at = span.end;
    }
    filled.push_str(&text[at..]);
    filled
}

/// The byte ranges of scene text that are not comments (`// …` to the line's end,
/// `/* … */`), strings included: the scene language has no escapes in strings.
fn code_spans(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut spans = Vec::new();
    let (mut start, mut i, mut in_string) = (0, 0, false);
    while i < text.len() {
        let rest = &text[i..];
        if rest.starts_with('"') {
            in_string = !in_string;
        } else if !in_string && (rest.starts_with("//") || rest.starts_with("/*")) {
            spans.push(start..i);
            let end = if rest.starts_with("//") { rest.find('\n') } else { rest.find("*/").map(|e| e + 2) };
            i += end.unwrap_or(rest.len());
            start = i;
            continue;
        }
        i += rest.chars().next().map_or(1, char::len_utf8);
    }
    spans.push(start..text.len());
    spans.retain(|span| !span.is_empty());
    spans
}

/// A robot-name suffix from a display name: `"Ana López (2)"` → `"ana_l_pez_2"`, at
/// most [`MAX_SUFFIX_CHARS`] characters, `"mine"` when nothing is left.
pub fn suffix_from_name(name: &str) -> String {
    let mut suffix = String::new();
    for c in name.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_alphanumeric() {
            suffix.push(c);
        } else if !suffix.ends_with('_') && !suffix.is_empty() {
            suffix.push('_');
        }
    }
    let mut suffix: String = suffix.trim_end_matches('_').chars().take(MAX_SUFFIX_CHARS).collect();
    if suffix.is_empty() {
        suffix.push_str("mine");
    }
    suffix
}

/// Longest robot-name suffix.
pub const MAX_SUFFIX_CHARS: usize = 24;

/// Where a console line came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConsoleSource {
    /// `print(...)` (the program's standard output).
    Print,
    /// `robot.log(...)` (or the wasm SDK's `log`).
    Log,
    /// The program's standard error.
    Stderr,
    /// The lab itself: started, stopped and why (a traceback, a limit), restarted.
    Lab,
}

/// One line of a robot's console, stamped with the lab's clock when the lab received it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConsoleLine {
    /// The lab's step then.
    pub step: u64,
    /// Simulation time then, seconds.
    pub time: f64,
    /// Where it came from.
    pub source: ConsoleSource,
    /// The text, one line (a traceback is one entry with newlines).
    pub text: String,
}

/// The runtime a program runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Language {
    /// A Python program: one sandboxed process, the `vlab` module.
    Python,
    /// A WebAssembly module exporting `pre_step`/`post_step`, run in-process.
    Wasm,
}

impl Language {
    /// As a project file writes it (`TYPE:PYTHON`).
    pub fn as_str(self) -> &'static str {
        match self {
            Language::Python => "PYTHON",
            Language::Wasm => "WASM",
        }
    }

    /// The language of a project file's `TYPE:` (any case); `None` for one the server
    /// does not run.
    pub fn from_project_type(kind: &str) -> Option<Language> {
        match kind.trim().to_ascii_uppercase().as_str() {
            "PYTHON" | "PY" => Some(Language::Python),
            "WASM" | "WEBASSEMBLY" => Some(Language::Wasm),
            _ => None,
        }
    }

    /// The language of a main file, from its name's ending (`.py`, `.wasm`).
    pub fn from_file_name(name: &str) -> Option<Language> {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".py") {
            Some(Language::Python)
        } else if lower.ends_with(".wasm") {
            Some(Language::Wasm)
        } else {
            None
        }
    }
}

/// A robot's program as its owner uploaded it: `GET .../robots/{robot}/program`
/// (owner and instructor) returns it so the editor can load it again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProgramSource {
    /// Its runtime.
    pub language: Language,
    /// The file that runs.
    pub main: String,
    /// Text files by name (Python sources). A wasm module is not repeated here.
    pub files: BTreeMap<String, String>,
}

/// An example robot in `scenes/examples/`: a robot description and its program, as a
/// teacher hands it out. `GET /api/examples` lists them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExampleRobot {
    /// Its folder's name (`wall_follower`).
    pub id: String,
    /// A title for people (`Wall follower (lidar)`).
    pub title: String,
    /// What it does and what to try, a few sentences.
    pub summary: String,
    /// The robot description (`.vlab` text); it calls a robot function of `scenes/` with
    /// the [`PLACEHOLDERS`] for the student's name suffix and start position.
    pub robot: String,
    /// The free floor it needs around where it starts, metres (`clearance_m` of its
    /// `about.json`): what its upload asks the lab for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clearance_m: Option<f64>,
    /// The program.
    pub program: ProgramSource,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_filled_with_a_suffix_from_a_name_and_a_start() {
        let robot = "call diffbot(\"{suffix}\", {x}, {z}, 0);";
        assert!(leaves_start_to_lab(robot));
        let named = fill_suffix(robot, &suffix_from_name("Ana López (2)"));
        assert_eq!(named, "call diffbot(\"_ana_l_pez_2\", {x}, {z}, 0);");
        assert_eq!(fill_start(&named, 2.0, 6.25), "call diffbot(\"_ana_l_pez_2\", 2, 6.25, 0);");
        assert_eq!(fill_start("{x} {z}", -0.0, 0.5), "0 0.5");
        assert!(!leaves_start_to_lab("call diffbot(\"_ana\", 1, 2, 0);"));
        assert_eq!(suffix_from_name("  "), "mine");
        assert_eq!(suffix_from_name(&"x".repeat(40)).len(), MAX_SUFFIX_CHARS);
    }

    #[test]
    fn comments_that_explain_the_placeholders_are_left_as_they_are() {
        let robot = "// {suffix}, {x} and {z} are filled in when it is added\n/* {x} */ call diffbot(\"{suffix}\", {x}, {z}, 0); // at {x}\n";
        let filled = fill_start(&fill_suffix(robot, "ana"), 2.5, 3.0);
        assert_eq!(
            filled,
            "// {suffix}, {x} and {z} are filled in when it is added\n/* {x} */ call diffbot(\"_ana\", 2.5, 3, 0); // at {x}\n"
        );
        assert!(!leaves_start_to_lab("// write {x} and {z} to let the lab choose\ncall diffbot(\"_a\", 1, 2, 0);"));
        assert_eq!(first_placeholder(robot), Some((robot.find("\"{suffix}").unwrap() + 1, "{suffix}")));
        assert_eq!(first_placeholder("// {x}\ncall f(1);"), None);
        assert_eq!(code_spans("a \"// not a comment\" b"), vec![0..22]);
    }

    #[test]
    fn languages_come_from_project_types_and_file_names() {
        assert_eq!(Language::from_project_type(" python"), Some(Language::Python));
        assert_eq!(Language::from_project_type("WASM"), Some(Language::Wasm));
        assert_eq!(Language::from_project_type("RHAI"), None);
        assert_eq!(Language::from_file_name("bot.PY"), Some(Language::Python));
        assert_eq!(Language::from_file_name("bot.wasm"), Some(Language::Wasm));
        assert_eq!(Language::from_file_name("bot.rprj"), None);
        assert_eq!(serde_json::to_string(&Language::Wasm).unwrap(), "\"WASM\"");
    }

    #[test]
    fn console_lines_round_trip() {
        let line = ConsoleLine { step: 12, time: 0.05, source: ConsoleSource::Lab, text: "stopped".into() };
        let json = serde_json::to_string(&line).unwrap();
        assert!(json.contains("\"source\":\"lab\""), "{json}");
        assert_eq!(serde_json::from_str::<ConsoleLine>(&json).unwrap(), line);
    }
}
