//! Bearer tokens: minting them, and keeping only their SHA-256 digests, so neither the
//! database nor the server's memory holds a token a student or an instructor could be
//! impersonated with.
//!
//! A token is 128 random bits; nobody guesses one, so a plain (unsalted, fast) digest is
//! enough: what slow, salted hashes add protects low-entropy passwords, which these are
//! not. SHA-256 comes from RustCrypto's `sha2`, the implementation the Rust ecosystem
//! shares (docs/operations.md, "Crates, and why").

use rand::Rng;
use sha2::{Digest, Sha256};

/// A fresh secret token: 128 random bits in hex.
pub fn new_token() -> String {
    format!("{:032x}", rand::rng().random::<u128>())
}

/// The SHA-256 digest of a token: what is kept of it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct TokenDigest([u8; 32]);

impl TokenDigest {
    /// The digest of `token`.
    pub fn of(token: &str) -> TokenDigest {
        TokenDigest(Sha256::digest(token.as_bytes()).into())
    }

    /// Whether `token` is the token this is the digest of. Compares the digests in
    /// time independent of where they differ.
    pub fn matches(&self, token: &str) -> bool {
        let other = TokenDigest::of(token);
        self.0.iter().zip(other.0).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
    }

    /// As 64 lower-case hex digits (how the store keeps it).
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// From [`TokenDigest::to_hex`]'s form; `None` if `hex` is not 64 hex digits.
    pub fn from_hex(hex: &str) -> Option<TokenDigest> {
        if hex.len() != 64 || !hex.is_ascii() {
            return None;
        }
        let mut bytes = [0u8; 32];
        for (i, byte) in bytes.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
        }
        Some(TokenDigest(bytes))
    }
}

impl std::fmt::Debug for TokenDigest {
    // A digest is not a secret, but a short form keeps logs readable.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TokenDigest({}…)", &self.to_hex()[..8])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_digest_matches_its_token_only_and_survives_hex() {
        let token = new_token();
        assert_eq!(token.len(), 32);
        let digest = TokenDigest::of(&token);
        assert!(digest.matches(&token));
        assert!(!digest.matches(&new_token()));
        assert!(!digest.matches(""));
        assert_eq!(TokenDigest::from_hex(&digest.to_hex()), Some(digest));
        assert_eq!(
            TokenDigest::of("abc").to_hex(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            "SHA-256 as published (FIPS 180-2, example 1)"
        );
    }

    #[test]
    fn malformed_hex_is_no_digest() {
        assert_eq!(TokenDigest::from_hex(""), None);
        assert_eq!(TokenDigest::from_hex(&"g".repeat(64)), None);
        assert_eq!(TokenDigest::from_hex(&"a".repeat(63)), None);
        assert_eq!(TokenDigest::from_hex(&"é".repeat(32)), None);
        assert_eq!(TokenDigest::from_hex("0123456789abcdef"), None);
    }
}
