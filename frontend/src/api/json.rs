//! JSON text read into a type, always through a [`serde_json::Value`] and the
//! protocol's [`vlab_protocol::from_json_value`]: the page's one way of reading JSON.
//!
//! *Why:* serde compiles a type's reader once for every deserializer it is read from.
//! The websocket's messages are read through `Value` (the protocol's tagged enums are
//! read by hand from one), so HTTP answers and stored values are read through `Value`
//! too: then the wasm holds one copy of each type's reader, not one for JSON text and
//! one for `Value`. Reading a small answer twice over costs nothing noticeable.

use serde::de::DeserializeOwned;

/// `text` as a `T`: parsed into a `Value`, then read from it (a struct must be an
/// object, see [`vlab_protocol::from_json_value`]).
pub fn from_json<T: DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    vlab_protocol::from_json_value(serde_json::from_str(text)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_reads_as_the_type_asked_for_or_says_why_not() {
        let settings: vlab_protocol::LabSettings =
            from_json(r#"{"uploads_locked":true,"pause_on_join":false,"robot_quota":2}"#).unwrap();
        assert_eq!(settings.robot_quota, 2);
        assert!(from_json::<vlab_protocol::LabSettings>("{").is_err(), "not JSON");
        let wrong = from_json::<vlab_protocol::LabSettings>(r#"{"robot_quota":"two"}"#).unwrap_err();
        assert!(wrong.to_string().starts_with("invalid type: string \"two\""), "{wrong}");
    }
}
