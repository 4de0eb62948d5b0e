//! Positioned errors and warnings: `file:line:col: message`, worded for students.

use std::fmt;
use std::sync::Arc;

/// A place in a source file: 1-based line and column (columns count characters).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// The file, as the scene library names it.
    pub file: Arc<str>,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// An error that stops the scene: nothing of it is inserted.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{pos}: {kind}")]
pub struct LangError {
    /// Where.
    pub pos: Position,
    /// What.
    pub kind: ErrorKind,
}

impl LangError {
    /// An error of `kind` at `pos`.
    pub fn new(pos: Position, kind: ErrorKind) -> LangError {
        LangError { pos, kind }
    }

    /// The message without its position.
    pub fn message(&self) -> String {
        self.kind.to_string()
    }
}

/// The kinds of errors, each with the words a student reads.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ErrorKind {
    /// A character that cannot start any token.
    #[error("unexpected character '{0}'")]
    UnexpectedChar(char),
    /// A `"` without its closing `"`.
    #[error("this string is never closed: add a '\"'")]
    UnterminatedString,
    /// A `/*` without its `*/`.
    #[error("this comment is never closed: add '*/'")]
    UnterminatedComment,
    /// A malformed number such as `1e`.
    #[error("'{0}' is not a number")]
    BadNumber(String),
    /// The grammar expected something else.
    #[error("expected {expected}, found {found}")]
    Expected {
        /// What would have been right (`';' after pos(...)`).
        expected: String,
        /// What was there (`'shape'`, `the end of the file`).
        found: String,
    },
    /// Any other syntax error.
    #[error("{0}")]
    Syntax(String),
    /// A variable that no enclosing scope declares.
    #[error("unknown variable '{0}'")]
    UnknownVariable(String),
    /// A function nobody declared.
    #[error("unknown function '{0}'")]
    UnknownFunction(String),
    /// A value of the wrong type.
    #[error("{0}")]
    Type(String),
    /// A name declared twice.
    #[error("{0}")]
    Duplicate(String),
    /// A joint or device refers to an object that does not exist.
    #[error("unknown object '{name}' in {context}")]
    UnknownObject {
        /// The missing name.
        name: String,
        /// Where it was used (`JointHinge`).
        context: String,
    },
    /// A challenge names a zone, body or group that the challenge or the scene does not
    /// have.
    #[error("unknown {what} '{name}' in {context} ({known})")]
    UnknownName {
        /// What kind of name (`zone`, `body or group`).
        what: String,
        /// The missing name.
        name: String,
        /// Where it was used (`entered(...)`).
        context: String,
        /// Which names there are, a few.
        known: String,
    },
    /// `x / 0`, `mod(x, 0)`.
    #[error("division by zero")]
    DivisionByZero,
    /// A number or value out of its domain (`sqrt(-1)`, a negative radius).
    #[error("{0}")]
    Value(String),
    /// A statement in a place where it means nothing (`pos(...)` outside an object).
    #[error("{0}")]
    Misplaced(String),
    /// A sensor or actuator parameter the catalogue does not know.
    #[error("unknown parameter '{param}' for {device} (it takes: {known})")]
    UnknownParameter {
        /// The parameter as written.
        param: String,
        /// The device type.
        device: String,
        /// The parameters it takes.
        known: String,
    },
    /// An include that cannot be read or is not allowed.
    #[error("{0}")]
    Include(String),
    /// A budget ran out.
    #[error("{0}")]
    Budget(String),
}

/// Something worth telling the uploader that does not stop the scene.
#[derive(Clone, Debug, PartialEq)]
pub struct Warning {
    /// Where.
    pub pos: Position,
    /// What.
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: warning: {}", self.pos, self.message)
    }
}

impl Warning {
    /// The warnings with each message said once, at its first position, with how many
    /// times it came (`unknown material 'Plaid': using 'Grey' (46 times)`): a loop or a
    /// function repeats the same warning, and one line says it as well as 46.
    pub fn merge_repeats(warnings: Vec<Warning>) -> Vec<Warning> {
        let mut merged: Vec<(Warning, usize)> = Vec::with_capacity(warnings.len());
        let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        for warning in warnings {
            match index.get(&warning.message) {
                Some(&at) => merged[at].1 += 1,
                None => {
                    index.insert(warning.message.clone(), merged.len());
                    merged.push((warning, 1));
                }
            }
        }
        merged
            .into_iter()
            .map(|(mut warning, count)| {
                if count > 1 {
                    warning.message = format!("{} ({count} times)", warning.message);
                }
                warning
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u32, message: &str) -> Warning {
        Warning { pos: Position { file: "main.vlab".into(), line, col: 1 }, message: message.into() }
    }

    #[test]
    fn repeated_warnings_are_said_once_with_their_count_at_the_first_place() {
        let merged = Warning::merge_repeats(vec![at(3, "a"), at(5, "b"), at(9, "a"), at(3, "a")]);
        assert_eq!(merged, vec![at(3, "a (3 times)"), at(5, "b")]);
        assert_eq!(Warning::merge_repeats(vec![at(1, "once")]), vec![at(1, "once")]);
    }
}
