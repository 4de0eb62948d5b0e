//! PINs: kept as Argon2id hashes (a PIN is a few digits, so unlike a token it needs a
//! slow, salted hash: RustCrypto's `argon2`, the one the Rust ecosystem shares), and
//! guessed no faster than [`MAX_PIN_FAILURES`] wrong ones per student per
//! [`PIN_LOCKOUT`].

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use rand::Rng;

/// Wrong PINs in a row after which a student's sign-in by PIN waits.
pub const MAX_PIN_FAILURES: u32 = 5;
/// How long it waits.
pub const PIN_LOCKOUT: Duration = Duration::from_secs(60);
/// Digits of a PIN the server makes (a reset).
pub const NEW_PIN_DIGITS: usize = 6;

/// The hash of `pin` as kept (a PHC string: algorithm, parameters, salt, hash).
pub fn hash_pin(pin: &str) -> String {
    let salt = SaltString::encode_b64(&rand::rng().random::<[u8; 16]>()).expect("16 bytes make a salt");
    Argon2::default().hash_password(pin.as_bytes(), &salt).expect("Argon2 hashes any PIN with its defaults").to_string()
}

/// Whether `pin` is the PIN `hash` was made from.
pub fn pin_matches(hash: &str, pin: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|parsed| Argon2::default().verify_password(pin.as_bytes(), &parsed).is_ok())
}

/// A fresh PIN of [`NEW_PIN_DIGITS`] digits.
pub fn new_pin() -> String {
    let mut rng = rand::rng();
    (0..NEW_PIN_DIGITS).map(|_| char::from(b'0' + rng.random_range(0..10u8))).collect()
}

/// Wrong PINs per student, to slow guessing down.
#[derive(Default)]
pub struct PinGuard {
    failures: Mutex<HashMap<(String, String), (u32, Instant)>>,
}

impl PinGuard {
    /// `Err(seconds)` while student `name` of class `class` must wait before another try.
    pub fn check(&self, class: &str, name: &str) -> Result<(), u64> {
        let failures = self.failures.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        match failures.get(&key(class, name)) {
            Some((count, last)) if *count >= MAX_PIN_FAILURES => {
                let waited = last.elapsed();
                if waited < PIN_LOCKOUT { Err((PIN_LOCKOUT - waited).as_secs().max(1)) } else { Ok(()) }
            }
            _ => Ok(()),
        }
    }

    /// Counts a wrong PIN.
    pub fn failed(&self, class: &str, name: &str) {
        let mut failures = self.failures.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        // Keeps the map from growing without bound under a guessing flood of names.
        if failures.len() > 10_000 {
            failures.retain(|_, (_, last)| last.elapsed() < PIN_LOCKOUT);
        }
        let entry = failures.entry(key(class, name)).or_insert((0, Instant::now()));
        if entry.0 >= MAX_PIN_FAILURES {
            entry.0 = 0;
        }
        entry.0 += 1;
        entry.1 = Instant::now();
    }

    /// Forgets her wrong PINs (she signed in).
    pub fn succeeded(&self, class: &str, name: &str) {
        self.failures.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).remove(&key(class, name));
    }
}

fn key(class: &str, name: &str) -> (String, String) {
    (class.to_owned(), name.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pin_matches_its_hash_only() {
        let hash = hash_pin("4821");
        assert!(hash.starts_with("$argon2id$"), "{hash}");
        assert!(pin_matches(&hash, "4821"));
        assert!(!pin_matches(&hash, "4822"));
        assert_ne!(hash, hash_pin("4821"), "salted");
        assert!(!pin_matches("not a hash", "4821"));
    }

    #[test]
    fn the_fifth_wrong_pin_makes_her_wait() {
        let guard = PinGuard::default();
        for _ in 0..MAX_PIN_FAILURES - 1 {
            guard.failed("c", "Ana");
            assert_eq!(guard.check("c", "ana"), Ok(()));
        }
        guard.failed("c", "Ana");
        assert!(guard.check("c", "ANA").is_err_and(|wait| wait <= PIN_LOCKOUT.as_secs()));
        assert_eq!(guard.check("c", "Bob"), Ok(()), "another student is not held up");
        guard.succeeded("c", "Ana");
        assert_eq!(guard.check("c", "Ana"), Ok(()));
    }

    #[test]
    fn new_pins_are_six_digits() {
        let pin = new_pin();
        assert!(vlab_protocol::valid_pin(&pin) && pin.len() == NEW_PIN_DIGITS, "{pin}");
    }
}
