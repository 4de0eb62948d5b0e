//! Robot programs on the wire: console lines, a program's files, and the example robots
//! a teacher hands out.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

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
    /// the placeholders `{suffix}`, `{x}` and `{z}` for the student's name suffix and
    /// start position.
    pub robot: String,
    /// The program.
    pub program: ProgramSource,
}

#[cfg(test)]
mod tests {
    use super::*;

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
