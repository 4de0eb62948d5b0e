//! Robot project files in the original format:
//!
//! ```text
//! # example project
//! TYPE:RHAI            # the language/runtime
//! SRC:tankbot.rhai
//! ```

use crate::model::ProjectFile;

/// Parses a project file; an error carries its 1-based line.
pub fn parse_project(text: &str) -> Result<ProjectFile, (u32, String)> {
    let mut language = None;
    let mut sources = Vec::new();
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
            other => return Err((line_no, format!("unknown key '{other}' in the project file (use TYPE or SRC)"))),
        }
    }
    let language = language.ok_or((1, "the project file has no TYPE:... line".to_owned()))?;
    if sources.is_empty() {
        return Err((1, "the project file has no SRC:... line".into()));
    }
    Ok(ProjectFile { language, sources })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_original_format_with_comments() {
        let p = parse_project("# example project\nTYPE:RHAI   # runtime\nSRC:tankbot.rhai\n").unwrap();
        assert_eq!(p, ProjectFile { language: "RHAI".into(), sources: vec!["tankbot.rhai".into()] });
        assert_eq!(parse_project("TYPE:CPP\nFOO:x").unwrap_err().0, 2);
    }
}
