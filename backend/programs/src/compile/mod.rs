//! Programs sent as source and compiled on the server: C and C++ become the WebAssembly
//! module the lab runs, with clang and wasi-libc (Debian's packages).
//!
//! `registry` is the one table of program types (`TYPE:` and file endings → how a
//! program is made); `toolchain` finds the compiler and says which packages are
//! missing; `jail` runs clang confined and bounded (`limits`); `diagnostics` reads its
//! messages into `file:line:col` problems; `cache` keeps modules by the digest of what
//! made them; `compiler` is the server's compiling service: a few compiles at once,
//! one per student, a bounded queue, never on a lab's thread.

mod cache;
mod compiler;
mod diagnostics;
#[cfg(target_os = "linux")]
mod jail;
mod limits;
mod registry;
mod toolchain;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;

use crate::CodeProblem;

pub use cache::{ModuleCache, SourceDigest, digest};
pub use compiler::Compiler;
pub use diagnostics::{Diagnostic, Severity, parse as parse_diagnostics};
pub use limits::CompileLimits;
pub use registry::{
    PROGRAM_TYPES, ProgramType, SourceLanguage, by_file_name, by_project_type, is_header, known_extensions, known_types,
};
pub use toolchain::{DEBIAN_PACKAGES, Detected, Toolchain, detected};

/// What to compile: the sources in order (the first is the main file) and every text
/// file the program may include.
#[derive(Clone, Debug, PartialEq)]
pub struct CompileRequest {
    /// C or C++.
    pub language: SourceLanguage,
    /// The files compiled, in the project's `SRC` order.
    pub sources: Vec<String>,
    /// Sources and headers by name.
    pub files: BTreeMap<String, String>,
}

impl CompileRequest {
    /// The main file: the first source.
    pub fn main(&self) -> &str {
        self.sources.first().map_or("", String::as_str)
    }
}

/// A compiled program.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The WebAssembly module.
    pub module: Arc<[u8]>,
    /// The compiler's warnings (none when it came from the cache).
    pub warnings: Vec<CodeProblem>,
    /// Whether it came from the cache.
    pub cached: bool,
}

/// How a run of the compiler ended.
pub(crate) struct Ended {
    /// Its exit code (`None`: killed by a signal).
    pub code: Option<i32>,
    /// What it printed (stdout and stderr together), up to the cap.
    pub output: String,
    /// A limit it hit, if it was stopped by one.
    pub limit: Option<LimitHit>,
}

/// A limit a compile ran into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitHit {
    /// Its CPU time.
    Cpu,
    /// Its wall time.
    Wall,
    /// Its memory.
    Memory,
    /// The size of a file it wrote.
    FileSize,
    /// What it printed.
    Output,
}

impl LimitHit {
    /// What happened, for the student.
    pub fn explain(self, limits: &CompileLimits) -> String {
        match self {
            LimitHit::Cpu => format!(
                "the compiler was stopped after {} s of CPU time: a template or constexpr computation that never ends?",
                limits.cpu_secs
            ),
            LimitHit::Wall => format!(
                "the compiler was stopped after {} s: a template or constexpr computation that never ends?",
                limits.wall.as_secs()
            ),
            LimitHit::Memory => format!(
                "the compiler ran out of memory (limit {} MiB): a huge static array, or templates without end?",
                limits.memory_mib
            ),
            LimitHit::FileSize => format!(
                "the compiled program would be larger than {} MiB: a huge static array?",
                limits.file_bytes / (1024 * 1024)
            ),
            LimitHit::Output => format!(
                "the compiler was stopped after printing {} KiB of messages: fix the first ones",
                limits.output_bytes / 1024
            ),
        }
    }
}

/// Why a program was not compiled.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CompileError {
    /// This server lacks the compiler or its sysroot.
    #[error(
        "this server cannot compile {} programs: the Debian package{} {} {} missing (`apt-get install {}`)",
        language.as_str(),
        if packages.len() == 1 { "" } else { "s" },
        packages.join(", "),
        if packages.len() == 1 { "is" } else { "are" },
        packages.join(" ")
    )]
    Unavailable {
        /// C or C++.
        language: SourceLanguage,
        /// The packages to install.
        packages: Vec<&'static str>,
    },
    /// The files are not a program (a source missing, a name the compiler may not see).
    #[error("{}: {}", .0.file, .0.message)]
    Files(CodeProblem),
    /// The compiler found errors.
    #[error("the program does not compile: {} error(s)", .0.len())]
    Diagnostics(Vec<CodeProblem>),
    /// The compile ran into a limit; `problems` are the errors printed before.
    #[error("{message}")]
    Limit {
        /// Which.
        hit: LimitHit,
        /// It, explained.
        message: String,
        /// The errors printed before it.
        problems: Vec<CodeProblem>,
    },
    /// The caller has a compile under way already.
    #[error("your previous program is still compiling: send this one once it is done")]
    AlreadyCompiling,
    /// The server's queue of compiles is full, or the turn did not come in time.
    #[error(
        "the server is compiling as many programs as it can ({running} at once, {waiting} waiting): try again in a minute"
    )]
    Busy {
        /// Compiles running at once.
        running: usize,
        /// Compiles waiting.
        waiting: usize,
    },
    /// The sandbox could not be set up: nothing is compiled unconfined.
    #[error("the compiler's sandbox cannot be enforced on this server: {0}")]
    Sandbox(String),
    /// A fault of the server's own (its work folder).
    #[error("the compile could not be prepared: {0}")]
    Internal(String),
}

impl CompileError {
    /// The problems to show at their place in the student's files; a fault of the
    /// whole program is put at line 1 of `main`.
    pub fn problems(&self, main: &str) -> Vec<CodeProblem> {
        match self {
            CompileError::Files(problem) => vec![problem.clone()],
            CompileError::Diagnostics(problems) => problems.clone(),
            CompileError::Limit { message, problems, .. } => {
                let mut all = vec![CodeProblem { file: main.to_owned(), line: 1, col: 1, message: message.clone() }];
                all.extend(problems.iter().cloned());
                all
            }
            other => vec![CodeProblem { file: main.to_owned(), line: 1, col: 1, message: other.to_string() }],
        }
    }
}

/// One program type as `GET /api/program-types` lists it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProgramTypeInfo {
    /// Its `TYPE:`.
    #[serde(rename = "type")]
    pub name: &'static str,
    /// Other spellings of `TYPE:`.
    pub aliases: &'static [&'static str],
    /// Endings of its main file.
    pub extensions: &'static [&'static str],
    /// Whether the server compiles it.
    pub compiled: bool,
    /// Whether this server can run it now.
    pub available: bool,
    /// The Debian packages it lacks (empty when available).
    pub missing: Vec<&'static str>,
}

/// Every program type, with whether this server can take it.
pub fn program_types() -> Vec<ProgramTypeInfo> {
    PROGRAM_TYPES
        .iter()
        .map(|kind| {
            let missing = kind.compiles.map(|language| detected().missing(language).to_vec()).unwrap_or_default();
            ProgramTypeInfo {
                name: kind.name,
                aliases: kind.aliases,
                extensions: kind.extensions,
                compiled: kind.compiles.is_some(),
                available: missing.is_empty(),
                missing,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_is_listed_and_only_compiled_ones_can_miss_packages() {
        let types = program_types();
        let names: Vec<&str> = types.iter().map(|t| t.name).collect();
        assert_eq!(names, ["PYTHON", "WASM", "CPP", "C"]);
        for kind in &types {
            assert_eq!(kind.available, kind.missing.is_empty(), "{kind:?}");
            if !kind.compiled {
                assert!(kind.available, "{kind:?}");
            }
        }
    }

    #[test]
    fn a_missing_compiler_names_the_packages_to_install() {
        let error = CompileError::Unavailable { language: SourceLanguage::Cpp, packages: vec!["clang", "lld"] };
        assert_eq!(
            error.to_string(),
            "this server cannot compile CPP programs: the Debian packages clang, lld are missing (`apt-get install clang lld`)"
        );
        let problems = error.problems("bot.cpp");
        assert_eq!((problems[0].file.as_str(), problems[0].line, problems[0].col), ("bot.cpp", 1, 1));
    }

    #[test]
    fn a_limit_comes_first_then_the_errors_before_it() {
        let limits = CompileLimits::default();
        let before = CodeProblem { file: "a.c".into(), line: 3, col: 2, message: "x".into() };
        let error = CompileError::Limit {
            hit: LimitHit::Output,
            message: LimitHit::Output.explain(&limits),
            problems: vec![before.clone()],
        };
        let problems = error.problems("a.c");
        assert!(problems[0].message.contains("64 KiB of messages"), "{problems:?}");
        assert_eq!(problems[1], before);
    }
}
