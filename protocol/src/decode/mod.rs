//! Reading the protocol's tagged and untagged enums from JSON by hand, through a
//! [`serde_json::Value`], instead of serde's derived code.
//!
//! *Why:* serde's derive reads an internally tagged enum (`{"type":"hello",...}`) or an
//! untagged one by first buffering the whole object in its private `Content` type, and
//! then reads every type inside from that buffer: each of those types is compiled once
//! more, for the buffer's deserializer, and the buffering code comes with it. In the
//! browser's wasm that was a third of all JSON code. Here the object is read into a
//! `Value` once, the tag taken out, and the rest read from `Value`s by
//! [`from_json_value`]'s reader, so each type is compiled for that reader only (the
//! page reads all its JSON through it, so that is the one copy it has).
//!
//! What they accept is what the derived code accepted: the tag in any position,
//! unknown fields ignored or refused exactly where the enum's serde attributes said,
//! missing `Option` and `#[serde(default)]` fields read as their default, the same
//! error wording (`missing field`, `unknown variant`, `unknown field`). Two corners
//! differ: a field given twice is no longer refused (the last one counts, as
//! `serde_json::Value` keeps it), and a tag must be a string (serde also took a
//! variant's index). Writing is unchanged: the enums keep their derived `Serialize`.

mod actuator_command;
mod drawing;
mod rate;
mod reader;
mod sensor_value;
mod server_msg;
mod shape;

use serde::de::{DeserializeOwned, Error as _, Unexpected};
use serde_json::{Error, Map, Value};

use self::reader::ValueReader;
pub use self::reader::from_json_value;

/// An object being read field by field: each field is taken out by name, so what is
/// left at the end is what nobody asked for.
pub(crate) struct Fields {
    map: Map<String, Value>,
}

impl Fields {
    /// An internally tagged object: its tag (the string under `tag`) and its other fields.
    pub(crate) fn tagged(value: Value, tag: &'static str, expecting: &'static str) -> Result<(String, Fields), Error> {
        let mut fields = Fields::object(value, expecting)?;
        match fields.map.remove(tag) {
            Some(Value::String(name)) => Ok((name, fields)),
            Some(other) => Err(Error::invalid_type(unexpected(&other), &"a string tag")),
            None => Err(Error::missing_field(tag)),
        }
    }

    /// The fields of `value`, which must be a JSON object.
    pub(crate) fn object(value: Value, expecting: &'static str) -> Result<Fields, Error> {
        match value {
            Value::Object(map) => Ok(Fields { map }),
            other => Err(Error::invalid_type(unexpected(&other), &expecting)),
        }
    }

    /// A field that must be there.
    pub(crate) fn required<T: DeserializeOwned>(&mut self, name: &'static str) -> Result<T, Error> {
        match self.map.remove(name) {
            Some(value) => T::deserialize(ValueReader(value)),
            None => Err(Error::missing_field(name)),
        }
    }

    /// A field that may be missing: an `Option` (missing reads as `None`, as serde's
    /// derive reads it) or a `#[serde(default)]` field.
    pub(crate) fn optional<T: DeserializeOwned + Default>(&mut self, name: &'static str) -> Result<T, Error> {
        match self.map.remove(name) {
            Some(value) => T::deserialize(ValueReader(value)),
            None => Ok(T::default()),
        }
    }

    /// The fields not taken, read as one value: a newtype variant's content, which
    /// serde's internal tagging gives the inner type without its tag.
    pub(crate) fn rest<T: DeserializeOwned>(self) -> Result<T, Error> {
        T::deserialize(ValueReader(Value::Object(self.map)))
    }

    /// For `deny_unknown_fields`: an error naming a field not taken, if any is left.
    pub(crate) fn deny_unknown(self, expected: &'static [&'static str]) -> Result<(), Error> {
        match self.map.keys().next() {
            Some(name) => Err(Error::unknown_field(name, expected)),
            None => Ok(()),
        }
    }
}

/// How serde's errors name a JSON value of the wrong type.
fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match n.as_f64() {
            Some(f) => Unexpected::Float(f),
            None => Unexpected::Other("number"),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// The error of a deserializer `D` carrying one of the `Value` readers' errors.
pub(crate) fn to_error<E: serde::de::Error>(error: Error) -> E {
    E::custom(error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_are_taken_by_name_and_what_is_left_is_seen() {
        let (tag, mut fields) = Fields::tagged(json!({"a": 1, "type": "t", "b": null}), "type", "a map").unwrap();
        assert_eq!(tag, "t");
        assert_eq!(fields.required::<u32>("a").unwrap(), 1);
        assert_eq!(fields.optional::<Option<u32>>("b").unwrap(), None);
        assert_eq!(fields.optional::<Vec<u32>>("c").unwrap(), Vec::<u32>::new());
        assert_eq!(fields.required::<u32>("d").unwrap_err().to_string(), "missing field `d`");
        fields.deny_unknown(&["a", "b"]).unwrap();
    }

    #[test]
    fn a_tag_must_be_there_and_a_string_in_an_object() {
        assert_eq!(Fields::tagged(json!({"a": 1}), "type", "a map").err().unwrap().to_string(), "missing field `type`");
        assert!(Fields::tagged(json!({"type": 3}), "type", "a map").is_err());
        assert!(Fields::tagged(json!([1]), "type", "a map").is_err());
        let (_, fields) = Fields::tagged(json!({"type": "t", "x": 1}), "type", "a map").unwrap();
        assert_eq!(fields.deny_unknown(&["y"]).unwrap_err().to_string(), "unknown field `x`, expected `y`");
    }
}
