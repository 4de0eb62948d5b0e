//! When to reconnect after the websocket closes: the backoff schedule and what each close code means.

use vlab_protocol::{CLOSE_LAB_NOT_FOUND, CLOSE_PROTOCOL_MISMATCH};

/// First retry delay, milliseconds.
pub const INITIAL_DELAY_MS: u32 = 500;
/// Longest retry delay, milliseconds: a restarted server is found within this.
pub const MAX_DELAY_MS: u32 = 5_000;

/// How long a connection must have stayed open for the backoff to start over, milliseconds.
pub const HEALTHY_CONNECTION_MS: f64 = 5_000.0;

/// Exponential backoff: 0.5 s, 1 s, 2 s, 4 s, 5 s, 5 s, …, back to the start after a success.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backoff {
    next_ms: u32,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff { next_ms: INITIAL_DELAY_MS }
    }
}

impl Backoff {
    /// The delay before the next attempt; the one after it doubles, up to the cap.
    pub fn next_delay_ms(&mut self) -> u32 {
        let delay = self.next_ms;
        self.next_ms = (self.next_ms * 2).min(MAX_DELAY_MS);
        delay
    }

    /// Call once a connection succeeded.
    pub fn reset(&mut self) {
        *self = Backoff::default();
    }
}

/// What to do after the socket closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CloseAction {
    /// Network trouble or a server restart: try again after a backoff delay.
    Retry,
    /// The server speaks another protocol: retrying cannot help, the page must reload.
    Incompatible,
    /// The lab does not exist: retrying cannot help.
    LabNotFound,
}

impl CloseAction {
    /// Classifies a websocket close code.
    pub fn for_close_code(code: u16) -> CloseAction {
        match code {
            CLOSE_PROTOCOL_MISMATCH => CloseAction::Incompatible,
            CLOSE_LAB_NOT_FOUND => CloseAction::LabNotFound,
            _ => CloseAction::Retry,
        }
    }
}

/// Seconds for a person: `0.5`, `1`, `2`.
pub fn seconds_text(ms: u32) -> String {
    if ms.is_multiple_of(1000) { format!("{}", ms / 1000) } else { format!("{:.1}", f64::from(ms) / 1000.0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap_and_restarts_after_success() {
        let mut backoff = Backoff::default();
        let delays: Vec<u32> = (0..6).map(|_| backoff.next_delay_ms()).collect();
        assert_eq!(delays, vec![500, 1000, 2000, 4000, 5000, 5000]);
        backoff.reset();
        assert_eq!(backoff.next_delay_ms(), 500);
    }

    #[test]
    fn only_protocol_mismatch_and_missing_lab_stop_retrying() {
        assert_eq!(CloseAction::for_close_code(4001), CloseAction::Incompatible);
        assert_eq!(CloseAction::for_close_code(4004), CloseAction::LabNotFound);
        for code in [1000, 1001, 1006, 1011, 4000] {
            assert_eq!(CloseAction::for_close_code(code), CloseAction::Retry, "{code}");
        }
    }

    #[test]
    fn seconds_read_naturally() {
        assert_eq!(seconds_text(500), "0.5");
        assert_eq!(seconds_text(1000), "1");
        assert_eq!(seconds_text(5000), "5");
    }
}
