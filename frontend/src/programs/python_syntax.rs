//! Light syntax highlighting of Python robot programs: a forgiving tokenizer for the program editor's overlay.
//!
//! Like [`crate::scene::syntax`], not a parser: it never fails, whatever the text
//! (unfinished strings and triple-quoted blocks included), and only tells keywords,
//! built-in names, decorators, numbers, strings and comments apart. The interpreter on
//! the server is the judge of what a program means; errors come back positioned.

use std::ops::Range;

use crate::scene::syntax::{Token, TokenKind, tokens_html};

/// Python's keywords (case-sensitive), soft keywords left out.
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
];

/// Built-in functions and names a robot program commonly uses.
const BUILTINS: &[&str] = &[
    "abs",
    "all",
    "any",
    "bool",
    "dict",
    "divmod",
    "enumerate",
    "Exception",
    "filter",
    "float",
    "format",
    "int",
    "isinstance",
    "len",
    "list",
    "map",
    "max",
    "min",
    "next",
    "object",
    "print",
    "range",
    "repr",
    "reversed",
    "round",
    "self",
    "set",
    "sorted",
    "str",
    "sum",
    "super",
    "tuple",
    "type",
    "zip",
    "ValueError",
    "KeyError",
    "IndexError",
    "TypeError",
    "RuntimeError",
    "ZeroDivisionError",
];

/// The kind of an identifier.
fn word_kind(word: &str) -> TokenKind {
    if KEYWORDS.contains(&word) {
        TokenKind::Keyword
    } else if BUILTINS.contains(&word) {
        TokenKind::Builtin
    } else {
        TokenKind::Plain
    }
}

fn is_word_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_word_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Splits `text` into tokens covering all of it, in order. Never fails.
pub fn tokenize(text: &str) -> Vec<Token> {
    let mut tokens: Vec<Token> = Vec::new();
    let mut push = |kind: TokenKind, range: Range<usize>| {
        if let Some(last) = tokens.last_mut()
            && last.kind == TokenKind::Plain
            && kind == TokenKind::Plain
            && last.range.end == range.start
        {
            last.range.end = range.end;
            return;
        }
        tokens.push(Token { kind, range });
    };
    let bytes = text.as_bytes();
    // Whether only spaces stand between the start of the line and here (for decorators).
    let mut line_start = true;
    let mut i = 0;
    while i < text.len() {
        let start = i;
        let c = text[i..].chars().next().expect("inside the text");
        let next = text[i + c.len_utf8()..].chars().next();
        if c == '#' {
            i = text[i..].find('\n').map_or(text.len(), |n| i + n);
            push(TokenKind::Comment, start..i);
        } else if let Some(quote_at) = string_start(text, i) {
            i = string_end(text, quote_at);
            push(TokenKind::String, start..i);
        } else if c.is_ascii_digit() || (c == '.' && next.is_some_and(|n| n.is_ascii_digit())) {
            i = number_end(bytes, i);
            push(TokenKind::Number, start..i);
        } else if c == '@' && line_start && next.is_some_and(is_word_start) {
            i += 1;
            while let Some(c) = text[i..].chars().next().filter(|&c| is_word_char(c) || c == '.') {
                i += c.len_utf8();
            }
            push(TokenKind::Decorator, start..i);
        } else if is_word_start(c) {
            while let Some(c) = text[i..].chars().next().filter(|&c| is_word_char(c)) {
                i += c.len_utf8();
            }
            push(word_kind(&text[start..i]), start..i);
        } else {
            i += c.len_utf8();
            push(TokenKind::Plain, start..i);
        }
        let last = &text[start..i];
        if last.contains('\n') {
            line_start = last.ends_with('\n') || last[last.rfind('\n').unwrap_or(0)..].trim().is_empty();
        } else if !last.chars().all(|c| c == ' ' || c == '\t') {
            line_start = false;
        }
    }
    tokens
}

/// Where the opening quote is if a string (with its prefix: `r`, `b`, `f`, `u`, `rb`, …)
/// starts at `at`.
fn string_start(text: &str, at: usize) -> Option<usize> {
    let rest = &text[at..];
    let prefix = rest.bytes().take_while(|b| b"rRbBfFuU".contains(b)).count();
    if prefix > 2 {
        return None;
    }
    // A prefix only counts at the start of a word (`br"x"`, not `abr"x"`).
    if prefix > 0 && text[..at].chars().next_back().is_some_and(is_word_char) {
        return None;
    }
    matches!(rest.as_bytes().get(prefix), Some(b'"' | b'\'')).then_some(at + prefix)
}

/// The end of the string whose opening quote is at `quote_at`: after its closing quote(s),
/// at the end of the line for an unfinished one-line string, or the end of the text for an
/// unfinished triple-quoted one. A backslash escapes the next character.
fn string_end(text: &str, quote_at: usize) -> usize {
    let bytes = text.as_bytes();
    let quote = bytes[quote_at];
    let triple = bytes.get(quote_at + 1) == Some(&quote) && bytes.get(quote_at + 2) == Some(&quote);
    let mut i = quote_at + if triple { 3 } else { 1 };
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'\n' if !triple => return i,
            b if b == quote => {
                if !triple {
                    return i + 1;
                }
                if bytes.get(i + 1) == Some(&quote) && bytes.get(i + 2) == Some(&quote) {
                    return i + 3;
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    // An escape at the very end may point past it; never cut a character either.
    let mut end = i.min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    end
}

/// The end of the number starting at `start`: `0x1F`, `1_000`, `3.5`, `1e-3`, `2j`.
fn number_end(bytes: &[u8], start: usize) -> usize {
    let run = |mut i: usize, accept: fn(u8) -> bool| {
        while i < bytes.len() && (accept(bytes[i]) || bytes[i] == b'_') {
            i += 1;
        }
        i
    };
    if bytes[start] == b'0' && matches!(bytes.get(start + 1), Some(b'x' | b'X' | b'o' | b'O' | b'b' | b'B')) {
        return run(start + 2, |b| b.is_ascii_hexdigit());
    }
    let mut i = run(start, |b| b.is_ascii_digit());
    if i < bytes.len() && bytes[i] == b'.' {
        i = run(i + 1, |b| b.is_ascii_digit());
    }
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        let mut j = i + 1;
        if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
            j += 1;
        }
        if j < bytes.len() && bytes[j].is_ascii_digit() {
            i = run(j, |b| b.is_ascii_digit());
        }
    }
    if i < bytes.len() && (bytes[i] == b'j' || bytes[i] == b'J') {
        i += 1;
    }
    i
}

/// The overlay's HTML for Python source: escaped, coloured (see [`crate::scene::syntax::tokens_html`]).
pub fn highlight_html(text: &str) -> String {
    tokens_html(text, &tokenize(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coloured(text: &str) -> Vec<(TokenKind, &str)> {
        tokenize(text).into_iter().filter(|t| t.kind != TokenKind::Plain).map(|t| (t.kind, &text[t.range])).collect()
    }

    #[test]
    fn tells_keywords_builtins_numbers_strings_comments_and_decorators_apart() {
        use TokenKind::*;
        let text = "@staticmethod\ndef go(robot):  # drive\n    while robot.step():\n        print(f\"x={1.5e-3}\", 0x1F, 2j)\n        return None";
        assert_eq!(
            coloured(text),
            [
                (Decorator, "@staticmethod"),
                (Keyword, "def"),
                (Comment, "# drive"),
                (Keyword, "while"),
                (Builtin, "print"),
                (String, "f\"x={1.5e-3}\""),
                (Number, "0x1F"),
                (Number, "2j"),
                (Keyword, "return"),
                (Keyword, "None"),
            ]
        );
    }

    #[test]
    fn triple_quoted_strings_span_lines_and_escapes_stay_inside() {
        use TokenKind::*;
        let text = "s = \"\"\"a \"quoted\"\nline # not a comment\n\"\"\" + 'it\\'s' + rb'\\x00'";
        assert_eq!(
            coloured(text),
            [(String, "\"\"\"a \"quoted\"\nline # not a comment\n\"\"\""), (String, "'it\\'s'"), (String, "rb'\\x00'")]
        );
        assert_eq!(coloured("'''open\nstill open"), [(String, "'''open\nstill open")]);
        assert_eq!(
            coloured("x = 'open\ny = 1"),
            [(String, "'open"), (Number, "1")],
            "a one-line string ends at its line"
        );
    }

    #[test]
    fn names_and_operators_stay_plain() {
        assert!(coloured("iffy = defined @ matrix").is_empty(), "a name containing a keyword, and @ as an operator");
        assert!(coloured("bar\"x\"").len() == 1 && coloured("bar\"x\"")[0].1 == "\"x\"", "no prefix inside a word");
        assert_eq!(coloured("  @robot.api\n")[0], (TokenKind::Decorator, "@robot.api"));
        assert_eq!(coloured("Print")[..], [], "keywords and built-ins are case-sensitive");
    }

    #[test]
    fn tokens_cover_the_whole_text_even_when_unfinished() {
        for text in ["'", "\"\"\"", "'\\", "r", "é = 'ü' # ö\n@", "1e", "0x", "@", "x.5", "'''a''' '''"] {
            let mut end = 0;
            for token in tokenize(text) {
                assert_eq!(token.range.start, end, "gap or overlap in {text:?}");
                end = token.range.end;
            }
            assert_eq!(end, text.len(), "{text:?}");
        }
    }

    #[test]
    fn html_is_escaped() {
        assert_eq!(
            highlight_html("print('<b>&')\n"),
            "<span class=\"tok-fn\">print</span>(<span class=\"tok-str\">'&lt;b&gt;&amp;'</span>)\n "
        );
        assert_eq!(highlight_html("# <script>"), "<span class=\"tok-com\"># &lt;script&gt;</span>");
    }
}
