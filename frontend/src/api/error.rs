//! What an answer means: the value asked for, or an [`ApiError`]; and the one sentence the page shows for an error.
//!
//! Every feature reads its answers here and words its failures with
//! [`error_sentence`]: a refusal reads as the server's own message (it says what is
//! missing), a lost request as a network problem, anything else as the status and what
//! came back. A feature may say what failed before it ("Not added: …"), never reword it.

use serde::de::DeserializeOwned;
use vlab_protocol::ErrorBody;

use super::json::from_json;

/// Characters of an unexpected body quoted in a sentence.
const EXCERPT_CHARS: usize = 160;

/// Why a request did not give what was asked for.
#[derive(Clone, Debug, PartialEq)]
pub enum ApiError {
    /// No answer: the network is down or the server gone (the browser's reason).
    Network(String),
    /// The server said no: its HTTP status, its `{"error": {...}}` body when it sent
    /// one, and the start of what it sent otherwise (a proxy's page, nothing).
    Refused {
        /// The HTTP status.
        status: u16,
        /// The server's error, when the body was one.
        error: Option<ErrorBody>,
        /// The start of the body when it was not.
        excerpt: String,
    },
    /// The server said yes, but with a body that is not what was asked for.
    Unreadable {
        /// The HTTP status.
        status: u16,
        /// What did not fit.
        reason: String,
    },
}

impl ApiError {
    /// The refusal of a request answered with `status` (not 2xx) and `body`.
    pub fn refused(status: u16, body: &str) -> ApiError {
        #[derive(serde::Deserialize)]
        struct Wrapped {
            error: ErrorBody,
        }
        match from_json::<Wrapped>(body) {
            Ok(Wrapped { error }) => ApiError::Refused { status, error: Some(error), excerpt: String::new() },
            Err(_) => {
                ApiError::Refused { status, error: None, excerpt: body.trim().chars().take(EXCERPT_CHARS).collect() }
            }
        }
    }

    /// The HTTP status, when there was an answer.
    pub fn status(&self) -> Option<u16> {
        match self {
            ApiError::Network(_) => None,
            ApiError::Refused { status, .. } | ApiError::Unreadable { status, .. } => Some(*status),
        }
    }

    /// The server's own message (as it wrote it), when it refused with one.
    pub fn server_message(&self) -> Option<&str> {
        match self {
            ApiError::Refused { error: Some(error), .. } => Some(error.message.as_str()),
            _ => None,
        }
    }
}

/// Reads an answer: a 2xx body as `T` (an empty body reads as JSON `null`, so a
/// `204 No Content` fits `()`-like types such as `serde::de::IgnoredAny`), any other
/// status as a refusal.
pub fn read_json<T: DeserializeOwned>(status: u16, body: &str) -> Result<T, ApiError> {
    if !(200..300).contains(&status) {
        return Err(ApiError::refused(status, body));
    }
    let text = if body.trim().is_empty() { "null" } else { body };
    from_json(text).map_err(|e| ApiError::Unreadable { status, reason: e.to_string() })
}

/// Reads an answer that is a `T` whatever its status, with the status (an upload's
/// reply: refused scenes come back as a reply with positioned errors and a 4xx);
/// anything else as [`read_json`] does.
pub fn read_reply<T: DeserializeOwned>(status: u16, body: &str) -> Result<(u16, T), ApiError> {
    match from_json::<T>(body) {
        Ok(reply) => Ok((status, reply)),
        Err(_) => read_json(status, body).map(|reply| (status, reply)),
    }
}

/// The sentence the page shows for `error`.
pub fn error_sentence(error: &ApiError) -> String {
    match error {
        ApiError::Network(detail) if detail.trim().is_empty() => {
            "Could not reach the server. Check the connection and try again.".to_owned()
        }
        ApiError::Network(detail) => {
            format!("Could not reach the server ({}). Check the connection and try again.", detail.trim())
        }
        ApiError::Refused { error: Some(error), .. } if !error.message.trim().is_empty() => body_sentence(error),
        ApiError::Refused { status, excerpt, .. } if excerpt.is_empty() => {
            format!("The server answered HTTP {status} with an empty body.")
        }
        ApiError::Refused { status, excerpt, .. } => format!("The server answered HTTP {status}: {excerpt}"),
        ApiError::Unreadable { status, reason } => {
            format!("The server's answer (HTTP {status}) is unreadable: {reason}")
        }
    }
}

/// The sentence for an error the server sent (over HTTP or the websocket): its
/// message capitalised, its details in brackets, a full stop.
pub fn body_sentence(error: &ErrorBody) -> String {
    let message = error.message.trim();
    let mut text = capitalised(message.strip_suffix('.').unwrap_or(message));
    if !error.details.is_empty() {
        text.push_str(&format!(" ({})", error.details.join("; ")));
    }
    if !text.ends_with(['.', '!', '?']) {
        text.push('.');
    }
    text
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use vlab_protocol::{ErrorCode, LabSettings};

    use super::*;

    #[test]
    fn a_success_reads_as_the_type_asked_for() {
        let settings: LabSettings =
            read_json(200, r#"{"uploads_locked":true,"pause_on_join":false,"robot_quota":2}"#).unwrap();
        assert_eq!(settings.robot_quota, 2);
        assert!(read_json::<serde::de::IgnoredAny>(204, "").is_ok(), "no content is fine when nothing is wanted");
        let unreadable = read_json::<LabSettings>(200, "[1]").unwrap_err();
        assert!(matches!(unreadable, ApiError::Unreadable { status: 200, .. }), "{unreadable:?}");
        assert!(error_sentence(&unreadable).starts_with("The server's answer (HTTP 200) is unreadable: "));
    }

    #[test]
    fn refusals_keep_the_server_s_error_and_read_as_its_sentence() {
        let error = read_json::<LabSettings>(
            403,
            r#"{"error":{"code":"forbidden","message":"only the instructor of this lab may change the lab's settings"}}"#,
        )
        .unwrap_err();
        assert_eq!(error.status(), Some(403));
        assert_eq!(error.server_message(), Some("only the instructor of this lab may change the lab's settings"));
        assert_eq!(error_sentence(&error), "Only the instructor of this lab may change the lab's settings.");
        let detailed = ApiError::refused(
            422,
            r#"{"error":{"code":"invalid_argument","message":"no actuator 'x'.","details":["actuators: a, b","try a"]}}"#,
        );
        assert_eq!(error_sentence(&detailed), "No actuator 'x' (actuators: a, b; try a).");
        let body = ErrorBody::new(ErrorCode::NotFound, "Where is it?");
        assert_eq!(body_sentence(&body), "Where is it?");
    }

    #[test]
    fn other_answers_read_as_their_status_and_what_came_back() {
        assert_eq!(
            error_sentence(&ApiError::refused(502, "  Bad Gateway\n")),
            "The server answered HTTP 502: Bad Gateway"
        );
        assert_eq!(error_sentence(&ApiError::refused(500, "")), "The server answered HTTP 500 with an empty body.");
        let long = "x".repeat(500);
        let ApiError::Refused { excerpt, .. } = ApiError::refused(500, &long) else { panic!() };
        assert_eq!(excerpt.chars().count(), EXCERPT_CHARS);
        assert_eq!(
            error_sentence(&ApiError::refused(404, r#"{"error":{"code":"not_found","message":" "}}"#)),
            "The server answered HTTP 404 with an empty body.",
            "an error without a message says what it can"
        );
    }

    #[test]
    fn a_lost_request_says_the_server_could_not_be_reached() {
        let lost = ApiError::Network("TypeError: Failed to fetch".into());
        assert_eq!(lost.status(), None);
        assert_eq!(
            error_sentence(&lost),
            "Could not reach the server (TypeError: Failed to fetch). Check the connection and try again."
        );
        assert_eq!(
            error_sentence(&ApiError::Network(" ".into())),
            "Could not reach the server. Check the connection and try again."
        );
    }

    #[test]
    fn replies_are_read_whatever_their_status() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct Reply {
            ok: bool,
        }
        assert_eq!(read_reply::<Reply>(422, r#"{"ok":false}"#), Ok((422, Reply { ok: false })));
        assert!(matches!(
            read_reply::<Reply>(403, r#"{"error":{"code":"forbidden","message":"no"}}"#),
            Err(ApiError::Refused { status: 403, error: Some(_), .. })
        ));
        assert!(matches!(read_reply::<Reply>(200, "[]"), Err(ApiError::Unreadable { status: 200, .. })));
    }
}
