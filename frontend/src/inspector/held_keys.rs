//! Keyboard driving's bookkeeping: which browser keys drive a robot, their wire names, and the set held now.
//!
//! Keys are named as the server expects: `KeyboardEvent.key` upper-cased, `" "` as
//! `SPACE` (`I`, `ARROWUP`, `SHIFT`). A key is remembered under its physical
//! `KeyboardEvent.code` as well, so releasing it always finds it even when its `key`
//! changed meanwhile (Shift pressed or released while `1`/`!` was held).

use vlab_protocol::MAX_KEYS_HELD;

/// The wire name of a `KeyboardEvent.key`; `None` for keys that name nothing
/// (`Unidentified`, dead keys, an input method composing).
pub fn key_name(key: &str) -> Option<String> {
    match key {
        "" | "Unidentified" | "Dead" | "Process" => None,
        " " | "Spacebar" => Some("SPACE".into()),
        key => Some(key.to_uppercase()),
    }
}

/// What a key pressed while driving is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyRoute {
    /// A driving key, by its wire name: the page must not act on it (no scrolling, no
    /// button activation).
    Drive(String),
    /// Left to the browser: combinations with Ctrl, Alt or Meta (reload, close, the
    /// system's shortcuts), Tab (a keyboard user must be able to move on), F1–F12.
    PassThrough,
    /// Escape: the way out of driving that every user tries first.
    StopDriving,
}

/// Routes a key press (`keydown`) while driving. Releases (`keyup`) need no routing:
/// they always go to [`HeldKeys::release`], so a key held while Ctrl went down still lets go.
pub fn route_key(key: &str, ctrl: bool, alt: bool, meta: bool) -> KeyRoute {
    if ctrl || alt || meta || key == "Tab" || is_function_key(key) {
        return KeyRoute::PassThrough;
    }
    if key == "Escape" {
        return KeyRoute::StopDriving;
    }
    key_name(key).map_or(KeyRoute::PassThrough, KeyRoute::Drive)
}

fn is_function_key(key: &str) -> bool {
    key.strip_prefix('F').and_then(|n| n.parse::<u8>().ok()).is_some_and(|n| (1..=24).contains(&n))
}

/// The keys held now, in the order they went down.
///
/// # Invariants
/// At most [`MAX_KEYS_HELD`] distinct names; each physical key (code) at most once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeldKeys {
    /// `(code, name)` of every key down.
    held: Vec<(String, String)>,
}

impl HeldKeys {
    /// A key went down. Returns whether the set of names changed (a repeat, a second
    /// key of the same name, or a key beyond the limit changes nothing).
    pub fn press(&mut self, code: &str, name: &str) -> bool {
        let code = if code.is_empty() { name } else { code };
        if self.held.iter().any(|(held, _)| held == code) {
            return false;
        }
        let known = self.held.iter().any(|(_, held)| held == name);
        if !known && self.names().len() >= MAX_KEYS_HELD {
            return false;
        }
        self.held.push((code.to_owned(), name.to_owned()));
        !known
    }

    /// A key went up: found by its code, else by its name. Returns whether the set of
    /// names changed.
    pub fn release(&mut self, code: &str, name: &str) -> bool {
        let code = if code.is_empty() { name } else { code };
        let released = if let Some(index) = self.held.iter().position(|(held, _)| held == code) {
            self.held.remove(index).1
        } else {
            let before = self.held.len();
            self.held.retain(|(_, held)| held != name);
            if self.held.len() == before {
                return false;
            }
            name.to_owned()
        };
        // Another key of the same name (the other Shift) may still hold it.
        !self.held.iter().any(|(_, held)| *held == released)
    }

    /// Every key let go (driving stopped, the page lost focus). Returns whether any was held.
    pub fn clear(&mut self) -> bool {
        let changed = !self.held.is_empty();
        self.held.clear();
        changed
    }

    /// The names held, each once, in the order they went down: what `ClientMsg::Keys` sends.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::with_capacity(self.held.len());
        for (_, name) in &self.held {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        names
    }

    /// Whether no key is held.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_named_upper_case_with_space_spelled_out() {
        assert_eq!(key_name("i").as_deref(), Some("I"));
        assert_eq!(key_name("ArrowUp").as_deref(), Some("ARROWUP"));
        assert_eq!(key_name(" ").as_deref(), Some("SPACE"));
        assert_eq!(key_name("Shift").as_deref(), Some("SHIFT"));
        assert_eq!(key_name("ä").as_deref(), Some("Ä"));
        assert_eq!(key_name("Dead"), None);
        assert_eq!(key_name("Unidentified"), None);
    }

    #[test]
    fn shortcuts_tab_and_function_keys_pass_through_escape_stops() {
        assert_eq!(route_key("w", false, false, false), KeyRoute::Drive("W".into()));
        assert_eq!(route_key(" ", false, false, false), KeyRoute::Drive("SPACE".into()));
        assert_eq!(route_key("r", true, false, false), KeyRoute::PassThrough);
        assert_eq!(route_key("Tab", false, false, false), KeyRoute::PassThrough);
        assert_eq!(route_key("F5", false, false, false), KeyRoute::PassThrough);
        assert_eq!(route_key("F", false, false, false), KeyRoute::Drive("F".into()));
        assert_eq!(route_key("Control", true, false, false), KeyRoute::PassThrough);
        assert_eq!(route_key("Escape", false, false, false), KeyRoute::StopDriving);
        assert_eq!(route_key("Dead", false, false, false), KeyRoute::PassThrough);
    }

    #[test]
    fn the_set_changes_only_when_a_name_comes_or_goes() {
        let mut keys = HeldKeys::default();
        assert!(keys.press("KeyI", "I"));
        assert!(!keys.press("KeyI", "I"), "a repeat changes nothing");
        assert!(keys.press("ArrowUp", "ARROWUP"));
        assert_eq!(keys.names(), ["I", "ARROWUP"]);
        assert!(keys.release("KeyI", "I"));
        assert!(!keys.release("KeyI", "I"), "releasing twice changes nothing");
        assert_eq!(keys.names(), ["ARROWUP"]);
        assert!(keys.clear());
        assert!(!keys.clear());
        assert!(keys.is_empty());
    }

    #[test]
    fn two_keys_of_one_name_hold_it_until_both_are_up() {
        let mut keys = HeldKeys::default();
        assert!(keys.press("ShiftLeft", "SHIFT"));
        assert!(!keys.press("ShiftRight", "SHIFT"));
        assert_eq!(keys.names(), ["SHIFT"]);
        assert!(!keys.release("ShiftLeft", "SHIFT"));
        assert!(keys.release("ShiftRight", "SHIFT"));
    }

    #[test]
    fn a_key_is_released_by_its_code_whatever_it_reads_as_now() {
        let mut keys = HeldKeys::default();
        keys.press("Digit1", "!");
        assert!(keys.release("Digit1", "1"), "Shift went up before the key: still released");
        assert!(keys.is_empty());
        // Without a code (some virtual keyboards), the name finds it.
        keys.press("", "X");
        assert!(keys.release("", "X"));
    }

    #[test]
    fn at_most_the_protocol_limit_of_names() {
        let mut keys = HeldKeys::default();
        for i in 0..MAX_KEYS_HELD + 3 {
            keys.press(&format!("K{i}"), &format!("N{i}"));
        }
        assert_eq!(keys.names().len(), MAX_KEYS_HELD);
        assert!(!keys.press("K99", "N0"), "a known name still comes in, changing nothing");
        assert!(!keys.release("K0", "N0"), "N0 is still held by K99");
        assert!(keys.release("K99", "N0"));
        assert!(keys.press("K100", "N100"), "room again");
    }
}
