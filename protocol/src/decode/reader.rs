//! [`from_json_value`]: a type read from a [`serde_json::Value`] the way
//! `serde_json::from_value` reads it, except that a struct must be a JSON object.
//!
//! *Why:* serde's derive gives every struct two ways in, from an object and from an
//! array of its fields in order, and `serde_json`'s `Value` reader reaches both, so
//! each struct the page reads carried a copy of the array way, which the protocol never
//! sends (every struct travels as an object). This reader never asks a struct for the
//! array way, so the compiler leaves that code out of the page. Everything else is
//! handed to `Value`'s own reader (numbers, strings, enums) or done as it
//! does it (options, sequences, maps, and "fewer elements" errors when a visitor stops
//! early). Map keys are read as strings, so a map with number keys does not read; the
//! protocol has none.

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor,
};
use serde_json::{Error, Map, Value};

use super::unexpected;

/// `value` read as a `T`; the protocol's and the page's one way of reading a `Value`.
pub fn from_json_value<T: DeserializeOwned>(value: Value) -> Result<T, Error> {
    T::deserialize(ValueReader(value))
}

/// A `Value` being read.
pub(crate) struct ValueReader(pub(crate) Value);

impl<'de> Deserializer<'de> for ValueReader {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Array(items) => read_seq(items, visitor),
            Value::Object(map) => read_map(map, visitor),
            scalar => scalar.deserialize_any(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Array(items) => read_seq(items, visitor),
            other => Err(de::Error::invalid_type(unexpected(&other), &visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(map) => read_map(map, visitor),
            other => Err(de::Error::invalid_type(unexpected(&other), &visitor)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_map(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.0.deserialize_bool(visitor)
    }
    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.0.deserialize_i8(visitor)
    }
    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.0.deserialize_i16(visitor)
    }
    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.0.deserialize_i32(visitor)
    }
    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.0.deserialize_i64(visitor)
    }
    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.0.deserialize_u8(visitor)
    }
    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.0.deserialize_u16(visitor)
    }
    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.0.deserialize_u32(visitor)
    }
    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.0.deserialize_u64(visitor)
    }
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.0.deserialize_f32(visitor)
    }
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.0.deserialize_f64(visitor)
    }
    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.0.deserialize_char(visitor)
    }
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.0.deserialize_str(visitor)
    }
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.0.deserialize_string(visitor)
    }
    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.0.deserialize_bytes(visitor)
    }
    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.0.deserialize_byte_buf(visitor)
    }
    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.0.deserialize_unit(visitor)
    }
    fn deserialize_unit_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value, Error> {
        self.0.deserialize_unit_struct(name, visitor)
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.0.deserialize_enum(name, variants, visitor)
    }
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.0.deserialize_identifier(visitor)
    }
}

impl IntoDeserializer<'_, Error> for ValueReader {
    type Deserializer = ValueReader;

    fn into_deserializer(self) -> ValueReader {
        self
    }
}

/// An array handed to `visitor` element by element; elements it leaves are an error.
fn read_seq<'de, V: Visitor<'de>>(items: Vec<Value>, visitor: V) -> Result<V::Value, Error> {
    let len = items.len();
    let mut seq = SeqReader { items: items.into_iter() };
    let value = visitor.visit_seq(&mut seq)?;
    if seq.items.len() == 0 { Ok(value) } else { Err(de::Error::invalid_length(len, &"fewer elements in array")) }
}

/// An object handed to `visitor` entry by entry; entries it leaves are an error.
fn read_map<'de, V: Visitor<'de>>(map: Map<String, Value>, visitor: V) -> Result<V::Value, Error> {
    let len = map.len();
    let mut entries = MapReader { entries: map.into_iter(), value: None };
    let value = visitor.visit_map(&mut entries)?;
    if entries.entries.len() == 0 { Ok(value) } else { Err(de::Error::invalid_length(len, &"fewer elements in map")) }
}

struct SeqReader {
    items: std::vec::IntoIter<Value>,
}

impl<'de> SeqAccess<'de> for SeqReader {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        self.items.next().map(|item| seed.deserialize(ValueReader(item))).transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct MapReader {
    entries: serde_json::map::IntoIter,
    value: Option<Value>,
}

impl<'de> MapAccess<'de> for MapReader {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        match self.entries.next() {
            Some((key, value)) => {
                self.value = Some(value);
                // serde's own reader of a string: smaller, per key type, than
                // going through a `Value` (a field name, a map's `String` key, a unit enum).
                seed.deserialize(IntoDeserializer::<Error>::into_deserializer(key)).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        match self.value.take() {
            Some(value) => seed.deserialize(ValueReader(value)),
            None => Err(de::Error::custom("value is missing")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Debug, PartialEq, Deserialize)]
    struct Sample {
        name: String,
        scale: Option<f32>,
        #[serde(default)]
        tags: Vec<String>,
        corners: [[f64; 2]; 2],
        pair: (u8, bool),
        inner: Inner,
        map: BTreeMap<String, i64>,
        any: Value,
        role: crate::Role,
        id: crate::BodyId,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        x: u32,
    }

    fn sample() -> Value {
        json!({
            "name": "n", "scale": null, "corners": [[1, 2.5], [-3, 4]], "pair": [7, true],
            "inner": {"x": 3}, "map": {"a": -1, "b": 2},
            "any": {"deep": [null, 1.5]}, "role": "student", "id": 4, "ignored": {"x": 1}
        })
    }

    #[test]
    fn objects_read_as_serde_json_reads_them() {
        let read: Sample = from_json_value(sample()).unwrap();
        assert_eq!(read.name, "n");
        assert_eq!((read.scale, read.tags.len()), (None, 0));
        assert_eq!(read.corners, [[1.0, 2.5], [-3.0, 4.0]]);
        assert_eq!(read.pair, (7, true));
        assert_eq!(read.inner, Inner { x: 3 });
        assert_eq!(read.map, BTreeMap::from([("a".to_owned(), -1), ("b".to_owned(), 2)]));
        assert_eq!(read.any, json!({"deep": [null, 1.5]}));
        assert_eq!((read.role, read.id), (crate::Role::Student, crate::BodyId(4)));
        let scaled: Sample = from_json_value({
            let mut value = sample();
            value["scale"] = json!(2);
            value
        })
        .unwrap();
        assert_eq!(scaled.scale, Some(2.0));
    }

    #[test]
    fn errors_read_as_serde_json_words_them() {
        let error = |value: Value| from_json_value::<Sample>(value).unwrap_err().to_string();
        let mut value = sample();
        value["inner"] = json!({"x": 1, "y": 2});
        assert_eq!(error(value), "unknown field `y`, expected `x`");
        let mut value = sample();
        value["pair"] = json!([7, true, 9]);
        assert_eq!(error(value), "invalid length 3, expected fewer elements in array");
        let mut value = sample();
        value["corners"] = json!("square");
        assert_eq!(error(value), "invalid type: string \"square\", expected an array of length 2");
        let mut value = sample();
        value["role"] = json!("pilot");
        assert!(error(value).starts_with("unknown variant `pilot`"));
        let mut value = sample();
        value.as_object_mut().unwrap().remove("name");
        assert_eq!(error(value), "missing field `name`");
        assert_eq!(
            from_json_value::<u8>(json!(300)).unwrap_err().to_string(),
            "invalid value: integer `300`, expected u8"
        );
    }

    #[test]
    fn a_struct_must_be_an_object() {
        assert!(serde_json::from_value::<Inner>(json!([3])).is_ok(), "serde_json's own reader takes an array");
        let error = from_json_value::<Inner>(json!([3])).unwrap_err().to_string();
        assert_eq!(error, "invalid type: sequence, expected struct Inner");
    }
}
