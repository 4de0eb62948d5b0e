//! Characters → tokens. Identifiers stay identifiers: keywords are recognised by the
//! parser, case-insensitively and only where a keyword can stand, so `compass` is a fine
//! object name and `Anchor(...)` means `anchor(...)`.

use std::sync::Arc;

use crate::error::{ErrorKind, LangError, Position};

/// One token and where it starts and ends.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// What it is.
    pub kind: Tok,
    /// 1-based line and column of its first character.
    pub line: u32,
    /// Column of its first character.
    pub col: u32,
    /// Line of the character just after it.
    pub end_line: u32,
    /// Column of the character just after it.
    pub end_col: u32,
}

/// Token kinds.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// A number (always f64).
    Num(f64),
    /// A string literal, without its quotes.
    Str(String),
    /// An identifier or keyword, as written.
    Ident(String),
    /// A punctuation or operator symbol.
    Sym(&'static str),
    /// The end of the file.
    Eof,
}

impl Tok {
    /// How an error message names this token.
    pub fn describe(&self) -> String {
        match self {
            Tok::Num(n) => format!("the number {n}"),
            Tok::Str(s) => format!("the string \"{s}\""),
            Tok::Ident(s) => format!("'{s}'"),
            Tok::Sym(s) => format!("'{s}'"),
            Tok::Eof => "the end of the file".into(),
        }
    }
}

const SYMBOLS: [&str; 26] = [
    "&&", "||", "==", "!=", "<=", ">=", "{", "}", "(", ")", "[", "]", ";", ",", "=", ":", ".", "+", "-", "*", "/", "^",
    "!", "<", ">", "|",
];

/// Splits `source` (the file `file`) into tokens, ending with [`Tok::Eof`].
pub fn lex(source: &str, file: &Arc<str>) -> Result<Vec<Token>, LangError> {
    let chars: Vec<char> = source.chars().collect();
    let mut tokens = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    let err = |line, col, kind| LangError::new(Position { file: file.clone(), line, col }, kind);
    // Advances over chars[i], keeping line/col right.
    macro_rules! bump {
        () => {{
            if chars[i] == '\n' {
                line += 1;
                col = 1;
            } else {
                col += 1;
            }
            i += 1;
        }};
    }
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if matches!(c, ' ' | '\t' | '\r' | '\n') {
            bump!();
            continue;
        }
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                bump!();
            }
            continue;
        }
        if c == '/' && next == Some('*') {
            let (start_line, start_col) = (line, col);
            bump!();
            bump!();
            loop {
                if i >= chars.len() {
                    return Err(err(start_line, start_col, ErrorKind::UnterminatedComment));
                }
                if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    bump!();
                    bump!();
                    break;
                }
                bump!();
            }
            continue;
        }
        let (start_line, start_col) = (line, col);
        let kind = if c.is_ascii_digit() || (c == '.' && next.is_some_and(|n| n.is_ascii_digit())) {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                bump!();
            }
            if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
                let after = chars.get(i + 1).copied();
                let exponent = match after {
                    Some('+' | '-') => chars.get(i + 2).is_some_and(|d| d.is_ascii_digit()),
                    Some(d) => d.is_ascii_digit(),
                    None => false,
                };
                if exponent {
                    bump!();
                    if matches!(chars[i], '+' | '-') {
                        bump!();
                    }
                    while i < chars.len() && chars[i].is_ascii_digit() {
                        bump!();
                    }
                }
            }
            let text: String = chars[start..i].iter().collect();
            match text.parse::<f64>() {
                Ok(n) if n.is_finite() => Tok::Num(n),
                _ => return Err(err(start_line, start_col, ErrorKind::BadNumber(text))),
            }
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                bump!();
            }
            Tok::Ident(chars[start..i].iter().collect())
        } else if c == '"' {
            bump!();
            let start = i;
            while i < chars.len() && chars[i] != '"' {
                bump!();
            }
            if i >= chars.len() {
                return Err(err(start_line, start_col, ErrorKind::UnterminatedString));
            }
            let text: String = chars[start..i].iter().collect();
            bump!();
            Tok::Str(text)
        } else {
            let symbol = SYMBOLS.iter().find(|s| {
                let mut sc = s.chars();
                sc.next() == Some(c) && sc.next().is_none_or(|second| next == Some(second))
            });
            match symbol {
                Some(s) => {
                    for _ in 0..s.len() {
                        bump!();
                    }
                    Tok::Sym(s)
                }
                None => return Err(err(start_line, start_col, ErrorKind::UnexpectedChar(c))),
            }
        };
        tokens.push(Token { kind, line: start_line, col: start_col, end_line: line, end_col: col });
    }
    tokens.push(Token { kind: Tok::Eof, line, col, end_line: line, end_col: col });
    Ok(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(source: &str) -> Vec<Tok> {
        lex(source, &Arc::from("t.vlab")).unwrap().into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn numbers_strings_symbols_and_comments() {
        assert_eq!(
            kinds("a=.5+10 /* c\n */ // x\n\"s\" 1e-5 >= |"),
            vec![
                Tok::Ident("a".into()),
                Tok::Sym("="),
                Tok::Num(0.5),
                Tok::Sym("+"),
                Tok::Num(10.0),
                Tok::Str("s".into()),
                Tok::Num(1e-5),
                Tok::Sym(">="),
                Tok::Sym("|"),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn positions_count_lines_and_characters() {
        let tokens = lex("a\n  bb;", &Arc::from("t")).unwrap();
        assert_eq!((tokens[1].line, tokens[1].col, tokens[1].end_col), (2, 3, 5));
    }

    #[test]
    fn errors_are_positioned() {
        let e = lex("a = 1;\n  \"open", &Arc::from("t.vlab")).unwrap_err();
        assert_eq!(e.to_string(), "t.vlab:2:3: this string is never closed: add a '\"'");
        let e = lex("x # y", &Arc::from("t.vlab")).unwrap_err();
        assert_eq!(e.to_string(), "t.vlab:1:3: unexpected character '#'");
        let e = lex("1.2.3", &Arc::from("t.vlab")).unwrap_err();
        assert_eq!(e.to_string(), "t.vlab:1:1: '1.2.3' is not a number");
    }
}
