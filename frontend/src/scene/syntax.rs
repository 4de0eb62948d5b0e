//! Light syntax highlighting of `.vlab` scene source: a forgiving tokenizer and the HTML the editor's overlay shows.
//!
//! Not a parser: it never fails, whatever the text (half-typed strings and comments
//! included), and it only tells keywords, built-in words, device and joint types,
//! numbers, strings and comments apart. The words come from the language itself
//! (`vlab_scene::keywords`, the catalogue's device types among them), never listed here. The server's interpreter is the judge of what a
//! scene means; this only has to look right while typing.

use std::ops::Range;

/// What a stretch of source is, for colouring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// Statements and declarations: `if`, `for`, `function`, `robot`, `static`, `num`, …
    Keyword,
    /// Properties, shapes, functions and constants: `pos`, `box`, `sqrt`, `pi`, …
    Builtin,
    /// Joint, sensor and actuator types: `JointHinge`, `SimpleGPS`, `SimpleMotor`, …
    Device,
    /// `10`, `3.5`, `.5`, `1e-5`.
    Number,
    /// `"..."`, up to the closing quote (or the end of the text while it is being typed).
    String,
    /// `// ...` and `/* ... */`.
    Comment,
    /// A Python decorator (`@property`); `.vlab` has none.
    Decorator,
    /// Anything else: names, operators, punctuation, spaces.
    Plain,
}

impl TokenKind {
    /// The CSS class of the overlay's `<span>`, `None` for plain text.
    pub fn css_class(self) -> Option<&'static str> {
        match self {
            TokenKind::Keyword => Some("tok-kw"),
            TokenKind::Builtin => Some("tok-fn"),
            TokenKind::Device => Some("tok-ty"),
            TokenKind::Number => Some("tok-num"),
            TokenKind::String => Some("tok-str"),
            TokenKind::Comment => Some("tok-com"),
            TokenKind::Decorator => Some("tok-dec"),
            TokenKind::Plain => None,
        }
    }
}

/// A token: its kind and byte range in the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: TokenKind,
    /// Where it is (bytes).
    pub range: Range<usize>,
}

/// Whether `word` is in `list`, ignoring case (the language does).
fn listed(list: &[&str], word: &str) -> bool {
    list.iter().any(|listed| listed.eq_ignore_ascii_case(word))
}

/// The kind of an identifier, from the language's own lists ([`vlab_scene::keywords`]).
fn word_kind(word: &str) -> TokenKind {
    use vlab_scene::keywords::{CONSTANTS, DEVICE_TYPES, FUNCTIONS, JOINT_TYPES, KEYWORDS, PROPERTIES, SHAPES};
    if listed(KEYWORDS, word) {
        TokenKind::Keyword
    } else if listed(&DEVICE_TYPES, word) || listed(JOINT_TYPES, word) {
        TokenKind::Device
    } else if listed(PROPERTIES, word) || listed(SHAPES, word) || listed(FUNCTIONS, word) || listed(CONSTANTS, word) {
        TokenKind::Builtin
    } else {
        TokenKind::Plain
    }
}

/// Splits `text` into tokens covering all of it, in order. Never fails.
pub fn tokenize(text: &str) -> Vec<Token> {
    let bytes = text.as_bytes();
    let mut tokens: Vec<Token> = Vec::new();
    let mut push = |kind: TokenKind, range: Range<usize>| {
        // Neighbouring plain stretches merge, so the HTML has fewer spans.
        if let Some(last) = tokens.last_mut()
            && last.kind == kind
            && kind == TokenKind::Plain
            && last.range.end == range.start
        {
            last.range.end = range.end;
            return;
        }
        tokens.push(Token { kind, range });
    };
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let c = bytes[i];
        let next = bytes.get(i + 1).copied();
        if c == b'/' && next == Some(b'/') {
            i = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
            push(TokenKind::Comment, start..i);
        } else if c == b'/' && next == Some(b'*') {
            i = text[i + 2..].find("*/").map_or(bytes.len(), |n| i + 2 + n + 2);
            push(TokenKind::Comment, start..i);
        } else if c == b'"' {
            i = text[i + 1..].find('"').map_or(bytes.len(), |n| i + 1 + n + 1);
            push(TokenKind::String, start..i);
        } else if c.is_ascii_digit() || (c == b'.' && next.is_some_and(|n| n.is_ascii_digit())) {
            i = number_end(bytes, i);
            push(TokenKind::Number, start..i);
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            push(word_kind(&text[start..i]), start..i);
        } else {
            // One character (whole, if it is not ASCII).
            i += text[i..].chars().next().map_or(1, char::len_utf8);
            push(TokenKind::Plain, start..i);
        }
    }
    tokens
}

/// The end of the number starting at `start`: digits, a fraction, an exponent.
fn number_end(bytes: &[u8], start: usize) -> usize {
    let digits = |mut i: usize| {
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let mut i = digits(start);
    if i < bytes.len() && bytes[i] == b'.' {
        i = digits(i + 1);
    }
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        let mut j = i + 1;
        if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
            j += 1;
        }
        if j < bytes.len() && bytes[j].is_ascii_digit() {
            i = digits(j);
        }
    }
    i
}

/// The overlay's HTML: the text, escaped, with coloured `<span>`s. It ends with one more
/// character than a text ending in a newline has lines for, so the overlay is exactly as
/// tall as the textarea it sits under.
pub fn highlight_html(text: &str) -> String {
    tokens_html(text, &tokenize(text))
}

/// The overlay's HTML of `text` split into `tokens` (by any language's tokenizer, covering
/// the whole text in order): escaped, coloured, and one character longer when the text
/// ends in a newline (see [`highlight_html`]).
pub fn tokens_html(text: &str, tokens: &[Token]) -> String {
    let mut html = String::with_capacity(text.len() * 2);
    for token in tokens {
        let part = &text[token.range.clone()];
        match token.kind.css_class() {
            Some(class) => {
                html.push_str("<span class=\"");
                html.push_str(class);
                html.push_str("\">");
                escape_into(&mut html, part);
                html.push_str("</span>");
            }
            None => escape_into(&mut html, part),
        }
    }
    if text.is_empty() || text.ends_with('\n') {
        html.push(' ');
    }
    html
}

fn escape_into(html: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => html.push_str("&amp;"),
            '<' => html.push_str("&lt;"),
            '>' => html.push_str("&gt;"),
            _ => html.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(TokenKind, &str)> {
        tokenize(text).into_iter().map(|t| (t.kind, &text[t.range])).collect()
    }

    #[test]
    fn tells_keywords_builtins_devices_numbers_strings_and_comments_apart() {
        use TokenKind::*;
        let text =
            "static wall { shape box(1, .5, 2e-3); material \"Wood\"; } // hi\nJointHinge(a,b) { SimpleMotor m; }";
        let coloured: Vec<_> = kinds(text).into_iter().filter(|(kind, _)| *kind != Plain).collect();
        assert_eq!(
            coloured,
            [
                (Keyword, "static"),
                (Builtin, "shape"),
                (Builtin, "box"),
                (Number, "1"),
                (Number, ".5"),
                (Number, "2e-3"),
                (Builtin, "material"),
                (String, "\"Wood\""),
                (Comment, "// hi"),
                (Device, "JointHinge"),
                (Device, "SimpleMotor"),
            ]
        );
    }

    #[test]
    fn every_catalogue_type_and_joint_type_is_highlighted() {
        for device in vlab_scene::catalogue::CATALOGUE {
            for spelling in [device.name.to_owned(), device.name.to_ascii_lowercase()] {
                let text = format!("{spelling} sensor;");
                assert_eq!(kinds(&text)[0], (TokenKind::Device, spelling.as_str()), "{spelling}");
            }
        }
        for joint in vlab_scene::keywords::JOINT_TYPES {
            assert_eq!(kinds(joint)[0].0, TokenKind::Device, "{joint}");
        }
        for function in ["atan2", "abs", "max", "sqrt"] {
            assert_eq!(kinds(function)[0].0, TokenKind::Builtin, "{function}");
        }
    }

    #[test]
    fn keywords_are_case_insensitive_and_names_stay_plain() {
        assert_eq!(kinds("Anchor")[0].0, TokenKind::Builtin);
        assert_eq!(kinds("FOR")[0].0, TokenKind::Keyword);
        assert_eq!(kinds("crate1")[0].0, TokenKind::Plain);
        assert_eq!(kinds("box_1")[0].0, TokenKind::Plain, "a name containing a keyword is not one");
    }

    #[test]
    fn tokens_cover_the_whole_text_even_when_unfinished() {
        for text in
            ["a \"open string", "/* open comment\nstill", "x = 1.;", "é ∑ \"ü\" // ö", "", "//", "\"", "1e", "1e+"]
        {
            let tokens = tokenize(text);
            let mut end = 0;
            for token in &tokens {
                assert_eq!(token.range.start, end, "gap or overlap in {text:?}");
                end = token.range.end;
            }
            assert_eq!(end, text.len(), "{text:?}");
        }
        assert_eq!(kinds("a \"open string")[1], (TokenKind::String, "\"open string"));
        assert_eq!(kinds("/* a\nb */ c")[0], (TokenKind::Comment, "/* a\nb */"));
        assert_eq!(kinds("1e")[0], (TokenKind::Number, "1"), "no exponent without digits");
    }

    #[test]
    fn html_is_escaped_and_keeps_a_final_empty_line() {
        assert_eq!(highlight_html("a<b && c>d"), "a&lt;b &amp;&amp; c&gt;d");
        assert_eq!(highlight_html("num x;\n"), "<span class=\"tok-kw\">num</span> x;\n ");
        assert_eq!(highlight_html("\"<b>\""), "<span class=\"tok-str\">\"&lt;b&gt;\"</span>");
        assert_eq!(highlight_html(""), " ");
    }
}
