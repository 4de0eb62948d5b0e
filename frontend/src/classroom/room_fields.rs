//! The Room form's fields, the pure part: the room as the form shows it, and the change
//! its Apply sends (only what differs from the room as it stands; the server checks the
//! limits and says which field is wrong).

use vlab_protocol::{RoomChange, RoomView};

/// What the form's fields hold, as typed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RoomFields {
    /// Extent along X, metres.
    pub width: String,
    /// Extent along Z, metres.
    pub length: String,
    /// Height of the walls, metres.
    pub height: String,
    /// The floor's material.
    pub ground: String,
    /// The walls' material.
    pub walls: String,
}

impl RoomFields {
    /// The fields showing `room`.
    pub fn of(room: &RoomView) -> RoomFields {
        RoomFields {
            width: number(room.width),
            length: number(room.length),
            height: number(room.height),
            ground: room.ground.clone(),
            walls: room.walls.clone(),
        }
    }

    /// The change to send for a room that is `room` now: the fields that differ, or
    /// the sentence that says which field cannot be read as a number.
    pub fn change_from(&self, room: &RoomView) -> Result<RoomChange, String> {
        let size = |what: &str, text: &str, now: f32| -> Result<Option<f64>, String> {
            let text = text.trim();
            if text.is_empty() || text == number(now) {
                return Ok(None);
            }
            match text.parse::<f64>() {
                Ok(value) if value.is_finite() => Ok(Some(value)),
                _ => Err(format!("{what}: '{text}' is not a number of metres")),
            }
        };
        let material = |text: &str, now: &str| {
            let text = text.trim();
            (!text.is_empty() && !text.eq_ignore_ascii_case(now)).then(|| text.to_owned())
        };
        let change = RoomChange {
            width: size("width", &self.width, room.width)?,
            length: size("length", &self.length, room.length)?,
            height: size("height", &self.height, room.height)?,
            ground: material(&self.ground, &room.ground),
            walls: material(&self.walls, &room.walls),
            ..RoomChange::default()
        };
        if change.is_empty() {
            return Err("The room is already like this: change a field first.".into());
        }
        Ok(change)
    }
}

/// A size as the form shows it: as short as it reads back.
fn number(value: f32) -> String {
    format!("{value}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo_room() -> RoomView {
        RoomView {
            kind: "wallrect".into(),
            width: 12.0,
            length: 12.0,
            height: 0.8,
            gravity: -9.81,
            sky: "Black".into(),
            ground: "Tiles".into(),
            walls: "Pattern".into(),
            ceiling: "White".into(),
        }
    }

    #[test]
    fn only_what_differs_from_the_room_is_sent() {
        let room = demo_room();
        let mut fields = RoomFields::of(&room);
        assert_eq!(fields.height, "0.8");
        fields.width = " 16 ".into();
        fields.walls = "Steel".into();
        fields.ground = "tiles".into();
        let change = fields.change_from(&room).unwrap();
        assert_eq!(change, RoomChange { width: Some(16.0), walls: Some("Steel".into()), ..RoomChange::default() });
    }

    #[test]
    fn a_field_that_is_no_number_or_nothing_changed_is_said_before_sending() {
        let room = demo_room();
        let mut fields = RoomFields::of(&room);
        assert!(fields.change_from(&room).unwrap_err().contains("already like this"));
        fields.length = "ten".into();
        assert_eq!(fields.change_from(&room).unwrap_err(), "length: 'ten' is not a number of metres");
        fields.length = "NaN".into();
        assert!(fields.change_from(&room).is_err(), "NaN would go as null, changing nothing");
        fields.length = "-3".into();
        assert_eq!(fields.change_from(&room).unwrap().length, Some(-3.0), "the server says why not");
    }
}
