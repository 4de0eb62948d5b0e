//! Robot project files in the original format:
//!
//! ```text
//! # example project
//! TYPE:PYTHON          # the language/runtime
//! SRC:tankbot.py
//! INCLUDE_DIR:/home/me/lab/   # read and skipped, with a warning
//! ```
//!
//! `TYPE` and `SRC` are what a project means here. Project files written for other
//! installations carry more keys (`INCLUDE_DIR`, compiler settings): they are skipped
//! with a warning at their line, so such a file still runs unchanged.

use crate::model::ProjectFile;

/// A project file and what in it was skipped.
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedProject {
    /// `TYPE` and `SRC`.
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
            other => warnings.push(ProjectWarning {
                line: line_no,
                message: format!("the project key '{other}' is not used here: skipped (TYPE and SRC are read)"),
            }),
        }
    }
    let language = language.ok_or((1, "the project file has no TYPE:... line".to_owned()))?;
    if sources.is_empty() {
        return Err((1, "the project file has no SRC:... line".into()));
    }
    Ok(ParsedProject { project: ProjectFile { language, sources }, warnings })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_original_format_with_comments() {
        let p = parse_project("# example project\nTYPE:RHAI   # runtime\nSRC:tankbot.rhai\n").unwrap();
        assert_eq!(p, ProjectFile { language: "RHAI".into(), sources: vec!["tankbot.rhai".into()] });
    }

    #[test]
    fn unknown_keys_are_warnings_at_their_line() {
        let parsed =
            read_project("#PROGETTO\nTYPE:CPP\nSRC:bot.cpp\nINCLUDE_DIR:/working/tesi/trunk/\nfoo: x").unwrap();
        assert_eq!(parsed.project, ProjectFile { language: "CPP".into(), sources: vec!["bot.cpp".into()] });
        let lines: Vec<u32> = parsed.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [4, 5]);
        assert!(parsed.warnings[0].message.contains("'INCLUDE_DIR'"), "{:?}", parsed.warnings);
        assert!(parsed.warnings[1].message.contains("'FOO'"), "{:?}", parsed.warnings);
    }

    #[test]
    fn type_and_src_are_still_required_and_lines_still_need_a_key() {
        assert_eq!(parse_project("SRC:a.py\nINCLUDE_DIR:x").unwrap_err().0, 1);
        assert_eq!(parse_project("TYPE:PYTHON").unwrap_err().0, 1);
        assert_eq!(parse_project("TYPE:PYTHON\nSRC:a.py\njust words").unwrap_err().0, 3);
    }
}
