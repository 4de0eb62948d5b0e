//! The connection's state as the page shows it, and the sentences that explain it.

use crate::connection::reconnect::seconds_text;

/// Where the websocket stands. Shown in the toolbar; `data-state` carries [`Self::as_attr`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConnectionState {
    /// First attempt under way.
    Connecting,
    /// Open: messages flow.
    Connected,
    /// A working connection dropped; trying again.
    Reconnecting,
    /// The server could not be reached; retrying with backoff.
    Unreachable,
    /// The server speaks another protocol version: reload needed, no retries.
    Incompatible,
    /// The server has no such lab: no retries.
    NotFound,
}

impl ConnectionState {
    /// The stable value of the `data-state` attribute (e2e tests read it).
    pub fn as_attr(self) -> &'static str {
        match self {
            ConnectionState::Connecting => "connecting",
            ConnectionState::Connected => "connected",
            ConnectionState::Reconnecting => "reconnecting",
            ConnectionState::Unreachable => "unreachable",
            ConnectionState::Incompatible => "incompatible",
            ConnectionState::NotFound => "not_found",
        }
    }

    /// Short label for the toolbar.
    pub fn label(self) -> &'static str {
        match self {
            ConnectionState::Connecting => "Connecting…",
            ConnectionState::Connected => "Live",
            ConnectionState::Reconnecting => "Reconnecting…",
            ConnectionState::Unreachable => "Offline",
            ConnectionState::Incompatible => "Out of date",
            ConnectionState::NotFound => "No such lab",
        }
    }
}

/// Banner text while the server cannot be reached.
pub fn unreachable_notice(host: &str, retry_in_ms: u32) -> String {
    format!("Cannot reach the VLab server at {host}; retrying in {} s…", seconds_text(retry_in_ms))
}

/// Banner text after a protocol mismatch (close code 4001).
pub const INCOMPATIBLE_NOTICE: &str = "This page is out of date with the server (protocol mismatch): reload the page";

/// Banner text when the lab does not exist (close code 4004).
pub fn not_found_notice(lab: &str) -> String {
    format!("No lab '{lab}' on this server")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notices_say_what_happened_and_what_to_do() {
        assert_eq!(
            unreachable_notice("127.0.0.1:8091", 500),
            "Cannot reach the VLab server at 127.0.0.1:8091; retrying in 0.5 s…"
        );
        assert_eq!(not_found_notice("x"), "No lab 'x' on this server");
        assert!(INCOMPATIBLE_NOTICE.contains("reload the page"));
    }

    #[test]
    fn attribute_values_are_the_documented_ones() {
        let all = [
            ConnectionState::Connecting,
            ConnectionState::Connected,
            ConnectionState::Reconnecting,
            ConnectionState::Unreachable,
            ConnectionState::Incompatible,
            ConnectionState::NotFound,
        ];
        let attrs: Vec<&str> = all.iter().map(|s| s.as_attr()).collect();
        assert_eq!(attrs, ["connecting", "connected", "reconnecting", "unreachable", "incompatible", "not_found"]);
    }
}
