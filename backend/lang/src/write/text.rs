//! Numbers and names as a saved scene writes them: stable text (no `-0`, no `1e-17`
//! noise, the same digits for the same value) that reads back to within far less than
//! a millimetre.

use super::WriteError;
use crate::keywords::{JOINT_TYPES, KEYWORDS, PROPERTIES, SHAPES};

/// Decimals of a position or an anchor: micrometres, a thousandth of the millimetre a
/// reloaded world must keep (and finer than an `f32` holds past 16 m).
pub(super) const POSITION_DECIMALS: usize = 6;

/// Decimals of a quaternion's components: an error of 1e-7 turns a point 1 m away by
/// a tenth of a micrometre.
pub(super) const ROTATION_DECIMALS: usize = 7;

/// `value` rounded to `decimals` places, without trailing zeros, and `0` for any zero.
pub(super) fn fixed(value: f64, decimals: usize) -> String {
    let text = format!("{value:.decimals$}");
    tidy(text)
}

/// `value` rounded to `digits` significant digits, written without an exponent.
pub(super) fn significant(value: f64, digits: usize) -> String {
    if value == 0.0 || !value.is_finite() {
        return "0".into();
    }
    let rounded: f64 = format!("{value:.prec$e}", prec = digits.saturating_sub(1)).parse().unwrap_or(value);
    tidy(format!("{rounded}"))
}

/// A number the model keeps as an `f32` (sizes, densities, joint settings): the
/// shortest text that reads back as the same `f32`, so `0.1` stays `0.1`.
pub(super) fn real(value: f32) -> String {
    if !value.is_finite() {
        return "0".into();
    }
    tidy(format!("{value}"))
}

/// A number of the model kept as an `f64` (device parameters, challenge times).
pub(super) fn wide(value: f64) -> String {
    significant(value, 12)
}

/// `x, y, z` of a point, at [`POSITION_DECIMALS`].
pub(super) fn point(p: [f32; 3]) -> String {
    p.map(|c| fixed(f64::from(c), POSITION_DECIMALS)).join(", ")
}

/// `x, y, z` of a unit direction (an axis), at [`ROTATION_DECIMALS`].
pub(super) fn direction(d: [f32; 3]) -> String {
    d.map(|c| fixed(f64::from(c), ROTATION_DECIMALS)).join(", ")
}

fn tidy(mut text: String) -> String {
    if text.contains('.') {
        while text.ends_with('0') {
            text.pop();
        }
        if text.ends_with('.') {
            text.pop();
        }
    }
    if text == "-0" || text.is_empty() { "0".into() } else { text }
}

/// `name` where the language takes a name: the bare word when it is an identifier that
/// no statement could read otherwise, else `id:["name"]`.
pub(super) fn name(name: &str) -> Result<String, WriteError> {
    if is_plain_word(name) { Ok(name.to_owned()) } else { Ok(format!("id:[{}]", string(name)?)) }
}

/// `text` as a string literal. The language has no escapes, so a `"` cannot be written.
pub(super) fn string(text: &str) -> Result<String, WriteError> {
    if text.contains('"') {
        return Err(WriteError::Unquotable { text: text.to_owned() });
    }
    Ok(format!("\"{text}\""))
}

/// Whether `word` can stand bare: an identifier that is none of the words that open a
/// statement or a property (keywords are not reserved, but a bare `static` or `pos`
/// would read as one). Device types, functions and events may: `Compass compass;` and
/// an object `compass { ... }` read as meant.
pub(super) fn is_plain_word(word: &str) -> bool {
    let mut chars = word.chars();
    let starts = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if !starts || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return false;
    }
    let lower = word.to_ascii_lowercase();
    let taken = |words: &[&str]| words.iter().any(|w| w.eq_ignore_ascii_case(&lower));
    !(taken(KEYWORDS) || taken(SHAPES) || taken(PROPERTIES) || taken(JOINT_TYPES) || lower.starts_with("print_"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_without_noise() {
        assert_eq!(fixed(-0.0000001, 6), "0");
        assert_eq!(fixed(0.1 + 0.2, 6), "0.3");
        assert_eq!(fixed(12.0, 6), "12");
        assert_eq!(fixed(-1.25, 6), "-1.25");
        assert_eq!(real(0.1), "0.1");
        assert_eq!(real(7800.0), "7800");
        assert_eq!(real(1e-5), "0.00001");
        assert_eq!(real(-0.0), "0");
        let third = 1.0f32 / 3.0;
        assert_eq!(real(third).parse::<f32>().unwrap(), third, "an f32 reads back exactly");
        assert_eq!(wide(0.1 + 0.2), "0.3");
        assert_eq!(wide(-2.5e-10), "-0.00000000025");
        assert_eq!(wide(0.0), "0");
    }

    #[test]
    fn names_that_could_read_as_words_are_quoted() {
        assert_eq!(name("crate_1").unwrap(), "crate_1");
        assert_eq!(name("static").unwrap(), "id:[\"static\"]");
        assert_eq!(name("Box").unwrap(), "id:[\"Box\"]");
        assert_eq!(name("compass").unwrap(), "compass");
        assert_eq!(name("pos").unwrap(), "id:[\"pos\"]");
        assert_eq!(name("1st").unwrap(), "id:[\"1st\"]");
        assert_eq!(name("a b").unwrap(), "id:[\"a b\"]");
        assert!(matches!(name("say \"hi\""), Err(WriteError::Unquotable { .. })));
    }
}
