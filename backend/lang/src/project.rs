//! Robot project files in the original format:
//!
//! ```text
//! # example project
//! TYPE:PYTHON          # the language/runtime
//! SRC:tankbot.py
//! RATE:EVERY_STEP      # optional: run at every physics step (default CONTROL)
//! INCLUDE_DIR:/home/me/lab/   # read and skipped, with a warning
//! ```
//!
//! `TYPE`, `SRC` and `RATE` are what a project means here. Project files written for other
//! installations carry more keys (`INCLUDE_DIR`, compiler settings): they are skipped
//! with a warning at their line, so such a file still runs unchanged.

use crate::model::{ProgramRate, ProjectFile};

/// A project file and what in it was skipped.
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedProject {
    /// `TYPE`, `SRC` and `RATE`.
    pub project: ProjectFile,
    /// Lines read but not used (unknown keys), in order.
    pub warnings: Vec<ProjectWarning>,
}

/// A line of a project file that was skipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProjectWarning {
    /// 1-based line.
    pub line: u32,
    /// Why, worded for students.
    pub message: String,
}

/// Parses a project file; an error carries its 1-based line. Unknown keys are skipped
/// (see [`read_project`] for the warnings they give).
pub fn parse_project(text: &str) -> Result<ProjectFile, (u32, String)> {
    read_project(text).map(|parsed| parsed.project)
}

/// Parses a project file with the warnings for the lines it skipped; an error carries
/// its 1-based line.
pub fn read_project(text: &str) -> Result<ParsedProject, (u32, String)> {
    let mut language = None;
    let mut sources = Vec::new();
    let mut rate = None;
    let mut warnings = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line_no = i as u32 + 1;
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            return Err((line_no, format!("expected KEY:value (TYPE:... or SRC:...), found '{line}'")));
        };
        let value = value.trim();
        match key.trim().to_ascii_uppercase().as_str() {
            "TYPE" => language = Some(value.to_ascii_uppercase()),
            "SRC" => sources.push(value.to_owned()),
            "RATE" => {
                let word = ProgramRate::from_word(value)
                    .ok_or_else(|| (line_no, format!("RATE is CONTROL (the default) or EVERY_STEP, not '{value}'")))?;
                rate = Some(word);
            }
            other => warnings.push(ProjectWarning {
                line: line_no,
                message: format!("the project key '{other}' is not used here: skipped (TYPE, SRC and RATE are read)"),
            }),
        }
    }
    let language = language.ok_or((1, "the project file has no TYPE:... line".to_owned()))?;
    if sources.is_empty() {
        return Err((1, "the project file has no SRC:... line".into()));
    }
    Ok(ParsedProject { project: ProjectFile { language, sources, rate }, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_original_format_with_comments() {
        let p = parse_project("# example project\nTYPE:RHAI   # runtime\nSRC:tankbot.rhai\n").unwrap();
        assert_eq!(p, ProjectFile { language: "RHAI".into(), sources: vec!["tankbot.rhai".into()], rate: None });
    }

    #[test]
    fn unknown_keys_are_warnings_at_their_line() {
        let parsed =
            read_project("#PROGETTO\nTYPE:CPP\nSRC:bot.cpp\nINCLUDE_DIR:/working/tesi/trunk/\nfoo: x").unwrap();
        assert_eq!(parsed.project, ProjectFile { language: "CPP".into(), sources: vec!["bot.cpp".into()], rate: None });
        let lines: Vec<u32> = parsed.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [4, 5]);
        assert!(parsed.warnings[0].message.contains("'INCLUDE_DIR'"), "{:?}", parsed.warnings);
        assert!(parsed.warnings[1].message.contains("'FOO'"), "{:?}", parsed.warnings);
    }

    #[test]
    fn rate_says_how_often_the_program_runs_and_a_wrong_word_is_an_error_at_its_line() {
        let every = parse_project("TYPE:CPP\nSRC:bot.cpp\nRATE:every_step\n").unwrap();
        assert_eq!(every.rate, Some(ProgramRate::EveryStep));
        assert_eq!(parse_project("TYPE:CPP\nSRC:bot.cpp\nRATE: CONTROL").unwrap().rate, Some(ProgramRate::Control));
        let (line, message) = parse_project("TYPE:CPP\nSRC:bot.cpp\nRATE:fast").unwrap_err();
        assert_eq!((line, message.as_str()), (3, "RATE is CONTROL (the default) or EVERY_STEP, not 'fast'"));
    }

    #[test]
    fn type_and_src_are_still_required_and_lines_still_need_a_key() {
        assert_eq!(parse_project("SRC:a.py\nINCLUDE_DIR:x").unwrap_err().0, 1);
        assert_eq!(parse_project("TYPE:PYTHON").unwrap_err().0, 1);
        assert_eq!(parse_project("TYPE:PYTHON\nSRC:a.py\njust words").unwrap_err().0, 3);
    }
}
