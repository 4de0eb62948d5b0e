//! A lab's room (its `environment`) as pages read it and as the instructor changes it
//! while the lab runs (`GET`/`PATCH /api/labs/{lab}/environment`, docs/classroom.md,
//! "Changing the room of a running lab").

use serde::{Deserialize, Deserializer, Serialize};

/// The room as it stands: what its scene's `environment` block says, after every change.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoomView {
    /// `"room"` (floor, four walls, ceiling) or `"wallrect"` (floor and a fence).
    pub kind: String,
    /// Extent along X, metres.
    pub width: f32,
    /// Extent along Z, metres.
    pub length: f32,
    /// Height of the walls (and of the ceiling, for a room), metres.
    pub height: f32,
    /// Acceleration along Y, m/s² (negative pulls down).
    pub gravity: f32,
    /// The sky's material (the background is its colour).
    pub sky: String,
    /// The floor's material.
    pub ground: String,
    /// The walls' material.
    pub walls: String,
    /// The ceiling's material.
    pub ceiling: String,
}

/// A change of the room: each field given is set, each left out stays as it is. Numbers
/// may come as JSON numbers or as strings holding one (a form's field as typed), so
/// that `"NaN"` or `"1e400"` is refused naming its field rather than the whole body.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoomChange {
    /// Extent along X, metres.
    #[serde(default, deserialize_with = "number", skip_serializing_if = "Option::is_none")]
    pub width: Option<f64>,
    /// Extent along Z, metres.
    #[serde(default, deserialize_with = "number", skip_serializing_if = "Option::is_none")]
    pub length: Option<f64>,
    /// Height of the walls and ceiling, metres.
    #[serde(default, deserialize_with = "number", skip_serializing_if = "Option::is_none")]
    pub height: Option<f64>,
    /// Acceleration along Y, m/s².
    #[serde(default, deserialize_with = "number", skip_serializing_if = "Option::is_none")]
    pub gravity: Option<f64>,
    /// The sky's material, by its name in the material library.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sky: Option<String>,
    /// The floor's material.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ground: Option<String>,
    /// The walls' material.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub walls: Option<String>,
    /// The ceiling's material.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ceiling: Option<String>,
}

impl RoomChange {
    /// Whether it changes nothing at all.
    pub fn is_empty(&self) -> bool {
        *self == RoomChange::default()
    }
}

/// A number, or a string holding one (`"NaN"` and `"inf"` too: the checks refuse them).
fn number<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Given {
        Number(f64),
        Text(String),
    }
    match Option::<Given>::deserialize(deserializer)? {
        None => Ok(None),
        Some(Given::Number(value)) => Ok(Some(value)),
        Some(Given::Text(text)) => text
            .trim()
            .parse::<f64>()
            .map(Some)
            .map_err(|_| serde::de::Error::custom(format!("'{text}' is not a number"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_left_out_stay_and_numbers_may_come_as_text() {
        let change: RoomChange = serde_json::from_str(r#"{"width": 12, "height": "2.5", "ground": "Wood"}"#).unwrap();
        assert_eq!(
            change,
            RoomChange { width: Some(12.0), height: Some(2.5), ground: Some("Wood".into()), ..RoomChange::default() }
        );
        let nan: RoomChange = serde_json::from_str(r#"{"length": "NaN"}"#).unwrap();
        assert!(nan.length.unwrap().is_nan(), "kept for the checks to refuse by name");
        assert!(serde_json::from_str::<RoomChange>(r#"{}"#).unwrap().is_empty());
        assert!(serde_json::from_str::<RoomChange>(r#"{"width": null}"#).unwrap().is_empty());
    }

    #[test]
    fn unknown_fields_and_words_for_numbers_are_unreadable() {
        let typo = serde_json::from_str::<RoomChange>(r#"{"widht": 12}"#).unwrap_err().to_string();
        assert!(typo.contains("unknown field `widht`"), "{typo}");
        let word = serde_json::from_str::<RoomChange>(r#"{"width": "wide"}"#).unwrap_err().to_string();
        assert!(word.contains("'wide' is not a number"), "{word}");
    }

    #[test]
    fn a_change_goes_and_comes_back_as_json() {
        let change = RoomChange { width: Some(8.0), walls: Some("Steel".into()), ..RoomChange::default() };
        let json = serde_json::to_string(&change).unwrap();
        assert_eq!(json, r#"{"width":8.0,"walls":"Steel"}"#);
        assert_eq!(serde_json::from_str::<RoomChange>(&json).unwrap(), change);
    }
}
