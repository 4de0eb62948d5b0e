//! Clang's and the linker's messages read into positioned problems: `bot.c:4:9: error:
//! ...` becomes a problem at that file, line and column, as the page marks a scene's.

use crate::CodeProblem;

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// The program does not compile.
    Error,
    /// It compiles; the student may want to look.
    Warning,
}

/// One diagnostic of the compiler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Where and what.
    pub problem: CodeProblem,
}

/// Most characters of one message kept: a template error can be pages long.
pub const MAX_MESSAGE_CHARS: usize = 400;

/// Every error and warning in `output`, in order. Notes go to the message before them
/// only when it has room; lines that are not diagnostics (the source line quoted, the
/// caret, "In file included from") are skipped. A linker or driver error (no position)
/// is put at line 1 of `main`.
pub fn parse(output: &str, main: &str) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    for line in output.lines() {
        if let Some(diagnostic) = positioned(line) {
            found.push(diagnostic);
        } else if let Some(message) = unpositioned_error(line) {
            found.push(Diagnostic {
                severity: Severity::Error,
                problem: CodeProblem { file: main.to_owned(), line: 1, col: 1, message: shorten(message) },
            });
        }
    }
    found
}

/// `file:line:col: error: message` (also `fatal error`, `warning`).
fn positioned(line: &str) -> Option<Diagnostic> {
    let (place, rest) = split_place(line)?;
    let (severity, message) = if let Some(m) = rest.strip_prefix("fatal error: ") {
        (Severity::Error, m)
    } else if let Some(m) = rest.strip_prefix("error: ") {
        (Severity::Error, m)
    } else if let Some(m) = rest.strip_prefix("warning: ") {
        (Severity::Warning, m)
    } else {
        return None;
    };
    let (file, line, col) = place;
    Some(Diagnostic { severity, problem: CodeProblem { file, line, col, message: shorten(message) } })
}

/// The `file:line:col` of a diagnostic line and what follows `: `.
fn split_place(line: &str) -> Option<((String, u32, u32), &str)> {
    // The file may hold colons; the place ends at the first `: ` followed by a
    // severity, and its last two fields are numbers.
    let end = line.find(": ")?;
    let place = &line[..end];
    let mut fields = place.rsplitn(3, ':');
    let col: u32 = fields.next()?.parse().ok()?;
    let row: u32 = fields.next()?.parse().ok()?;
    let file = fields.next()?;
    if file.is_empty() {
        return None;
    }
    let file = file.strip_prefix("./").unwrap_or(file).to_owned();
    Some(((file, row.max(1), col.max(1)), &line[end + 2..]))
}

/// `wasm-ld: error: ...`, `clang: error: ...`: a fault of the whole program.
fn unpositioned_error(line: &str) -> Option<&str> {
    let (tool, rest) = line.split_once(": error: ")?;
    let tool = tool.rsplit('/').next().unwrap_or(tool);
    if tool.contains("ld") || tool.starts_with("clang") { Some(rest) } else { None }
}

fn shorten(message: &str) -> String {
    let message = message.trim();
    match message.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((cut, _)) => format!("{}…", &message[..cut]),
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUTPUT: &str = "\
In file included from bot.c:2:
./helper.h:3:5: error: unknown type name 'strin'
    strin name;
    ^
bot.c:7:12: warning: unused variable 'x' [-Wunused-variable]
        int x;
            ^
bot.c:9:1: fatal error: 'missing.h' file not found
bot.c:9:1: note: this note is not a problem
1 error generated.
wasm-ld: error: /tmp/x/bot.o: undefined symbol: drive
clang: error: linker command failed with exit code 1 (use -v to see invocation)
";

    #[test]
    fn errors_and_warnings_keep_their_file_line_and_column() {
        let found = parse(OUTPUT, "bot.c");
        let brief: Vec<(Severity, &str, u32, u32)> =
            found.iter().map(|d| (d.severity, d.problem.file.as_str(), d.problem.line, d.problem.col)).collect();
        assert_eq!(
            brief,
            vec![
                (Severity::Error, "helper.h", 3, 5),
                (Severity::Warning, "bot.c", 7, 12),
                (Severity::Error, "bot.c", 9, 1),
                (Severity::Error, "bot.c", 1, 1),
                (Severity::Error, "bot.c", 1, 1),
            ]
        );
        assert_eq!(found[0].problem.message, "unknown type name 'strin'");
        assert_eq!(found[2].problem.message, "'missing.h' file not found");
        assert_eq!(found[3].problem.message, "/tmp/x/bot.o: undefined symbol: drive");
    }

    #[test]
    fn a_file_name_with_colons_is_kept_whole() {
        let found = parse("a:b.c:2:3: error: nope\n", "a:b.c");
        assert_eq!((found[0].problem.file.as_str(), found[0].problem.line, found[0].problem.col), ("a:b.c", 2, 3));
    }

    #[test]
    fn lines_that_are_not_diagnostics_are_skipped() {
        assert!(parse("int main() {\n    ^\n1 warning generated.\nfoo: 3:4: error: x\n", "m.c").is_empty());
    }

    #[test]
    fn long_messages_are_cut() {
        let long = format!("bot.cpp:1:1: error: {}\n", "x".repeat(5000));
        let found = parse(&long, "bot.cpp");
        assert_eq!(found[0].problem.message.chars().count(), MAX_MESSAGE_CHARS + 1);
    }
}
