//! The one table of program types: a project file's `TYPE` and a main file's ending
//! name a type, and the type says how its files become a program the lab runs (as they
//! are, or through a compiler).

use serde::Serialize;
use vlab_protocol::Language;

/// A language whose sources the server compiles to a WebAssembly module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum SourceLanguage {
    /// C (C17), with wasi-libc.
    C,
    /// C++ (C++17), with wasi-libc and libc++.
    Cpp,
}

impl SourceLanguage {
    /// As a project file writes it (`TYPE:CPP`).
    pub fn as_str(self) -> &'static str {
        match self {
            SourceLanguage::C => "C",
            SourceLanguage::Cpp => "CPP",
        }
    }
}

/// One kind of program a robot can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProgramType {
    /// Its `TYPE:` in a project file.
    pub name: &'static str,
    /// Other spellings of `TYPE:` (any case).
    pub aliases: &'static [&'static str],
    /// Endings of its main file (lower case, with the dot).
    pub extensions: &'static [&'static str],
    /// The runtime its program runs in.
    pub runs_as: Language,
    /// The language compiled to reach that runtime; `None`: its files run as they are.
    pub compiles: Option<SourceLanguage>,
}

/// Every program type, in the order `GET /api/program-types` lists them.
pub const PROGRAM_TYPES: &[ProgramType] = &[
    ProgramType { name: "PYTHON", aliases: &["PY"], extensions: &[".py"], runs_as: Language::Python, compiles: None },
    ProgramType {
        name: "WASM",
        aliases: &["WEBASSEMBLY"],
        extensions: &[".wasm"],
        runs_as: Language::Wasm,
        compiles: None,
    },
    ProgramType {
        name: "CPP",
        aliases: &["C++", "CXX"],
        extensions: &[".cpp", ".cc", ".cxx"],
        runs_as: Language::Wasm,
        compiles: Some(SourceLanguage::Cpp),
    },
    ProgramType {
        name: "C",
        aliases: &[],
        extensions: &[".c"],
        runs_as: Language::Wasm,
        compiles: Some(SourceLanguage::C),
    },
];

/// The type a project file's `TYPE:` names (any case); `None` for one this server
/// does not know.
pub fn by_project_type(kind: &str) -> Option<&'static ProgramType> {
    let kind = kind.trim().to_ascii_uppercase();
    PROGRAM_TYPES.iter().find(|t| t.name == kind || t.aliases.contains(&kind.as_str()))
}

/// The type of a main file, from its name's ending; `None` for one no type has.
pub fn by_file_name(name: &str) -> Option<&'static ProgramType> {
    let lower = name.to_ascii_lowercase();
    PROGRAM_TYPES.iter().find(|t| t.extensions.iter().any(|ext| lower.ends_with(ext)))
}

/// Whether `name` is a file a compiled program may include (a header).
pub fn is_header(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [".h", ".hpp", ".hh", ".hxx", ".inc"].iter().any(|ext| lower.ends_with(ext))
}

/// Every `TYPE:` this server knows, for messages: `PYTHON, WASM, CPP or C`.
pub fn known_types() -> String {
    let names: Vec<&str> = PROGRAM_TYPES.iter().map(|t| t.name).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

/// Every main file ending this server knows, for messages: `.py, .wasm, .cpp, .cc, .cxx or .c`.
pub fn known_extensions() -> String {
    let all: Vec<&str> = PROGRAM_TYPES.iter().flat_map(|t| t.extensions.iter().copied()).collect();
    match all.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => all.join(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_types_are_found_in_any_case_and_by_their_aliases() {
        assert_eq!(by_project_type("cpp").map(|t| t.name), Some("CPP"));
        assert_eq!(by_project_type(" C++ ").map(|t| t.name), Some("CPP"));
        assert_eq!(by_project_type("c").map(|t| t.name), Some("C"));
        assert_eq!(by_project_type("py").map(|t| t.name), Some("PYTHON"));
        assert_eq!(by_project_type("WebAssembly").map(|t| t.name), Some("WASM"));
        assert_eq!(by_project_type("JAVA"), None);
    }

    #[test]
    fn main_files_are_typed_by_their_ending() {
        assert_eq!(by_file_name("bot.py").map(|t| t.runs_as), Some(Language::Python));
        assert_eq!(by_file_name("bot.wasm").and_then(|t| t.compiles), None);
        for name in ["bot.cpp", "BOT.CC", "bot.cxx"] {
            assert_eq!(by_file_name(name).and_then(|t| t.compiles), Some(SourceLanguage::Cpp), "{name}");
        }
        assert_eq!(by_file_name("bot.c").and_then(|t| t.compiles), Some(SourceLanguage::C));
        assert_eq!(by_file_name("bot.h"), None, "a header is not a program");
        assert_eq!(by_file_name("bot.rprj"), None);
    }

    #[test]
    fn compiled_types_run_as_webassembly() {
        for kind in PROGRAM_TYPES.iter().filter(|t| t.compiles.is_some()) {
            assert_eq!(kind.runs_as, Language::Wasm, "{}", kind.name);
        }
    }

    #[test]
    fn messages_list_every_type_and_ending() {
        assert_eq!(known_types(), "PYTHON, WASM, CPP or C");
        assert_eq!(known_extensions(), ".py, .wasm, .cpp, .cc, .cxx or .c");
        assert!(is_header("robot.h") && is_header("util.HPP") && !is_header("bot.c"));
    }
}
