//! Turns a lab's or server's name into a key-value key: keys allow only letters, digits
//! and `-_=./`, and no leading or trailing dot, while names are any text.
//!
//! Letters, digits, `-` and `_` stay as they are; every other byte becomes `=XX` (its
//! hex), `=` included, so two different names never share a key. The empty name is `=`.
//!
//! An evaluation's lease is `evaluation.<id>`: a name's key never holds a `.`, so no
//! lab's key is ever an evaluation's.

/// The prefix of evaluations' keys.
pub(crate) const EVALUATION_PREFIX: &str = "evaluation.";

/// The key of evaluation `id`'s lease.
pub(crate) fn evaluation_key(id: i64) -> String {
    format!("{EVALUATION_PREFIX}{id}")
}

/// The key for `name`.
pub(crate) fn key_for(name: &str) -> String {
    if name.is_empty() {
        return "=".to_owned();
    }
    let mut key = String::with_capacity(name.len());
    for byte in name.bytes() {
        if byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_' {
            key.push(byte as char);
        } else {
            key.push_str(&format!("={byte:02X}"));
        }
    }
    key
}

#[cfg(test)]
mod tests {
    use super::{evaluation_key, key_for};

    fn is_valid_key(key: &str) -> bool {
        !key.is_empty()
            && !key.starts_with('.')
            && !key.ends_with('.')
            && key.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_=./".contains(&b))
    }

    #[test]
    fn plain_names_are_their_own_keys() {
        assert_eq!(key_for("demo"), "demo");
        assert_eq!(key_for("lab-7_B"), "lab-7_B");
    }

    #[test]
    fn other_bytes_are_escaped_and_escapes_do_not_collide_with_names() {
        assert_eq!(key_for("a.b"), "a=2Eb");
        assert_eq!(key_for("a=2Eb"), "a=3D2Eb");
        assert_eq!(key_for("é"), "=C3=A9");
        assert_eq!(key_for(""), "=");
        assert_ne!(key_for(""), key_for("="));
        for name in ["a.b", ".", "x y", "*", ">", "a/b", "ünï", "", "=", "$KV"] {
            assert!(is_valid_key(&key_for(name)), "{name:?} gave {:?}", key_for(name));
        }
    }

    #[test]
    fn an_evaluations_key_is_valid_and_no_labs_key() {
        assert_eq!(evaluation_key(42), "evaluation.42");
        assert!(is_valid_key(&evaluation_key(i64::MAX)));
        assert_ne!(key_for("evaluation.42"), evaluation_key(42));
        assert!(!key_for("evaluation.42").contains('.'));
    }
}
