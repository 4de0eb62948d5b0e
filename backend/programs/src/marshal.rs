//! Values in CPython's `marshal` format (version 4, without back-references), as the
//! lab writes a step's readings to a sandboxed program (see [`super::packed`]).
//!
//! Why: the program's `marshal.loads` builds the readings' dicts straight from typed
//! bytes, with no text to scan and no decimal to turn into a float; it costs a Python
//! program less than half of what `json` costs for the same step. A value is written as the
//! JSON of protocol version 1 reads in Python, so a program sees the same objects
//! either way: maps and structs are dicts, sequences and tuples lists, unit variants
//! their names, other variants a dict of one entry; a non-finite float is `None` (JSON's
//! `null`), an `f32` the `f64` its shortest decimal reads as, bytes a list of numbers.
//! No string is interned: interning looks each one up in the interpreter's table of
//! every interned string, a cache miss or several per key in a program whose caches the
//! other programs took (it cost as much as the rest of `marshal.loads`).

use std::fmt::Display;

use serde::Serialize;
use serde::ser::{self, SerializeMap};

/// A value `marshal` cannot hold as JSON would have it (a map key that is not a
/// string, a number or a boolean).
#[derive(Debug)]
pub(crate) struct Unsupported(String);

impl Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unsupported {}

impl ser::Error for Unsupported {
    fn custom<T: Display>(message: T) -> Self {
        Unsupported(message.to_string())
    }
}

/// Appends `value` to `out`; `decimal` is scratch space for `f32`s (see
/// [`super::packed::as_json_reads`]).
pub(crate) fn write<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    decimal: &mut Vec<u8>,
    value: &T,
) -> Result<(), Unsupported> {
    value.serialize(&mut Marshal { out, decimal })
}

/// `None`.
pub(crate) fn none(out: &mut Vec<u8>) {
    out.push(b'N');
}

/// An `int`: four bytes when it fits, else base-2^15 digits.
pub(crate) fn int(out: &mut Vec<u8>, value: i128) {
    if let Ok(small) = i32::try_from(value) {
        out.push(b'i');
        out.extend_from_slice(&small.to_le_bytes());
        return;
    }
    let mut digits = Vec::new();
    let mut left = value.unsigned_abs();
    while left > 0 {
        digits.push((left & 0x7fff) as u16);
        left >>= 15;
    }
    let count = digits.len() as i32;
    out.push(b'l');
    out.extend_from_slice(&(if value < 0 { -count } else { count }).to_le_bytes());
    for digit in digits {
        out.extend_from_slice(&digit.to_le_bytes());
    }
}

/// A `float`, or `None` where JSON has `null` (not finite).
pub(crate) fn float(out: &mut Vec<u8>, value: f64) {
    if value.is_finite() {
        out.push(b'g');
        out.extend_from_slice(&value.to_le_bytes());
    } else {
        none(out);
    }
}

/// A `str`.
pub(crate) fn string(out: &mut Vec<u8>, text: &str) {
    let len = text.len();
    if text.is_ascii() && len < 256 {
        out.push(b'z');
        out.push(len as u8);
    } else {
        out.push(if text.is_ascii() { b'a' } else { b'u' });
        out.extend_from_slice(&(len as u32).to_le_bytes());
    }
    out.extend_from_slice(text.as_bytes());
}

/// A `bytes` object of `len` bytes, which the caller appends next.
pub(crate) fn bytes_header(out: &mut Vec<u8>, len: usize) {
    out.push(b's');
    out.extend_from_slice(&(len as u32).to_le_bytes());
}

/// A dict's start; its entries are key then value, and [`dict_end`] closes it.
pub(crate) fn dict_start(out: &mut Vec<u8>) {
    out.push(b'{');
}

/// A dict's end.
pub(crate) fn dict_end(out: &mut Vec<u8>) {
    out.push(b'0');
}

/// Writes values as [`write`] says.
struct Marshal<'a> {
    out: &'a mut Vec<u8>,
    decimal: &'a mut Vec<u8>,
}

/// A list being written: its length is filled in at its end.
struct List<'m, 'a> {
    marshal: &'m mut Marshal<'a>,
    length_at: usize,
    length: u32,
    /// Dicts around it to close with it (a variant's).
    closes: usize,
}

impl<'m, 'a> List<'m, 'a> {
    fn start(marshal: &'m mut Marshal<'a>, closes: usize) -> List<'m, 'a> {
        marshal.out.push(b'[');
        let length_at = marshal.out.len();
        marshal.out.extend_from_slice(&[0; 4]);
        List { marshal, length_at, length: 0, closes }
    }

    fn item<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        self.length += 1;
        value.serialize(&mut *self.marshal)
    }

    fn end(self) -> Result<(), Unsupported> {
        self.marshal.out[self.length_at..self.length_at + 4].copy_from_slice(&self.length.to_le_bytes());
        for _ in 0..self.closes {
            dict_end(self.marshal.out);
        }
        Ok(())
    }
}

/// A dict being written (a map, a struct); `closes` dicts end with it.
struct Dict<'m, 'a> {
    marshal: &'m mut Marshal<'a>,
    closes: usize,
}

impl<'m, 'a> Dict<'m, 'a> {
    fn start(marshal: &'m mut Marshal<'a>, closes: usize) -> Dict<'m, 'a> {
        dict_start(marshal.out);
        Dict { marshal, closes }
    }

    fn end(self) -> Result<(), Unsupported> {
        for _ in 0..=self.closes {
            dict_end(self.marshal.out);
        }
        Ok(())
    }
}

impl<'m, 'a> ser::Serializer for &'m mut Marshal<'a> {
    type Ok = ();
    type Error = Unsupported;
    type SerializeSeq = List<'m, 'a>;
    type SerializeTuple = List<'m, 'a>;
    type SerializeTupleStruct = List<'m, 'a>;
    type SerializeTupleVariant = List<'m, 'a>;
    type SerializeMap = Dict<'m, 'a>;
    type SerializeStruct = Dict<'m, 'a>;
    type SerializeStructVariant = Dict<'m, 'a>;

    fn serialize_bool(self, v: bool) -> Result<(), Unsupported> {
        self.out.push(if v { b'T' } else { b'F' });
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), Unsupported> {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<(), Unsupported> {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<(), Unsupported> {
        self.serialize_i64(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<(), Unsupported> {
        int(self.out, v.into());
        Ok(())
    }
    fn serialize_i128(self, v: i128) -> Result<(), Unsupported> {
        int(self.out, v);
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> Result<(), Unsupported> {
        self.serialize_i64(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<(), Unsupported> {
        self.serialize_i64(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<(), Unsupported> {
        self.serialize_i64(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<(), Unsupported> {
        int(self.out, v.into());
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Result<(), Unsupported> {
        if v.is_finite() {
            float(self.out, super::packed::as_json_reads(v, self.decimal));
        } else {
            none(self.out);
        }
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<(), Unsupported> {
        float(self.out, v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Unsupported> {
        string(self.out, v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), Unsupported> {
        string(self.out, v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Unsupported> {
        let mut list = List::start(self, 0);
        for byte in v {
            list.item(byte)?;
        }
        list.end()
    }
    fn serialize_none(self) -> Result<(), Unsupported> {
        none(self.out);
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Unsupported> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Unsupported> {
        none(self.out);
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Unsupported> {
        none(self.out);
        Ok(())
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Unsupported> {
        string(self.out, variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        dict_start(self.out);
        string(self.out, variant);
        value.serialize(&mut *self)?;
        dict_end(self.out);
        Ok(())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<List<'m, 'a>, Unsupported> {
        Ok(List::start(self, 0))
    }
    fn serialize_tuple(self, _len: usize) -> Result<List<'m, 'a>, Unsupported> {
        Ok(List::start(self, 0))
    }
    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<List<'m, 'a>, Unsupported> {
        Ok(List::start(self, 0))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<List<'m, 'a>, Unsupported> {
        dict_start(self.out);
        string(self.out, variant);
        Ok(List::start(self, 1))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Dict<'m, 'a>, Unsupported> {
        Ok(Dict::start(self, 0))
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Dict<'m, 'a>, Unsupported> {
        Ok(Dict::start(self, 0))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Dict<'m, 'a>, Unsupported> {
        dict_start(self.out);
        string(self.out, variant);
        Ok(Dict::start(self, 1))
    }
}

impl ser::SerializeSeq for List<'_, '_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        self.item(value)
    }
    fn end(self) -> Result<(), Unsupported> {
        List::end(self)
    }
}

impl ser::SerializeTuple for List<'_, '_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        self.item(value)
    }
    fn end(self) -> Result<(), Unsupported> {
        List::end(self)
    }
}

impl ser::SerializeTupleStruct for List<'_, '_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        self.item(value)
    }
    fn end(self) -> Result<(), Unsupported> {
        List::end(self)
    }
}

impl ser::SerializeTupleVariant for List<'_, '_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        self.item(value)
    }
    fn end(self) -> Result<(), Unsupported> {
        List::end(self)
    }
}

impl SerializeMap for Dict<'_, '_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Unsupported> {
        key.serialize(Key { out: self.marshal.out })
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        value.serialize(&mut *self.marshal)
    }
    fn end(self) -> Result<(), Unsupported> {
        Dict::end(self)
    }
}

impl ser::SerializeStruct for Dict<'_, '_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Unsupported> {
        string(self.marshal.out, key);
        value.serialize(&mut *self.marshal)
    }
    fn end(self) -> Result<(), Unsupported> {
        Dict::end(self)
    }
}

impl ser::SerializeStructVariant for Dict<'_, '_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Unsupported> {
        string(self.marshal.out, key);
        value.serialize(&mut *self.marshal)
    }
    fn end(self) -> Result<(), Unsupported> {
        Dict::end(self)
    }
}

/// A dict key: a string; numbers and booleans become their text, as in JSON.
struct Key<'a> {
    out: &'a mut Vec<u8>,
}

impl Key<'_> {
    fn text(self, text: &str) -> Result<(), Unsupported> {
        string(self.out, text);
        Ok(())
    }
}

impl ser::Serializer for Key<'_> {
    type Ok = ();
    type Error = Unsupported;
    type SerializeSeq = ser::Impossible<(), Unsupported>;
    type SerializeTuple = ser::Impossible<(), Unsupported>;
    type SerializeTupleStruct = ser::Impossible<(), Unsupported>;
    type SerializeTupleVariant = ser::Impossible<(), Unsupported>;
    type SerializeMap = ser::Impossible<(), Unsupported>;
    type SerializeStruct = ser::Impossible<(), Unsupported>;
    type SerializeStructVariant = ser::Impossible<(), Unsupported>;

    fn serialize_bool(self, v: bool) -> Result<(), Unsupported> {
        self.text(if v { "true" } else { "false" })
    }
    fn serialize_i8(self, v: i8) -> Result<(), Unsupported> {
        self.text(&v.to_string())
    }
    fn serialize_i16(self, v: i16) -> Result<(), Unsupported> {
        self.text(&v.to_string())
    }
    fn serialize_i32(self, v: i32) -> Result<(), Unsupported> {
        self.text(&v.to_string())
    }
    fn serialize_i64(self, v: i64) -> Result<(), Unsupported> {
        self.text(&v.to_string())
    }
    fn serialize_u8(self, v: u8) -> Result<(), Unsupported> {
        self.text(&v.to_string())
    }
    fn serialize_u16(self, v: u16) -> Result<(), Unsupported> {
        self.text(&v.to_string())
    }
    fn serialize_u32(self, v: u32) -> Result<(), Unsupported> {
        self.text(&v.to_string())
    }
    fn serialize_u64(self, v: u64) -> Result<(), Unsupported> {
        self.text(&v.to_string())
    }
    fn serialize_f32(self, _v: f32) -> Result<(), Unsupported> {
        Err(Unsupported("a float as a dict key".into()))
    }
    fn serialize_f64(self, _v: f64) -> Result<(), Unsupported> {
        Err(Unsupported("a float as a dict key".into()))
    }
    fn serialize_char(self, v: char) -> Result<(), Unsupported> {
        self.text(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<(), Unsupported> {
        self.text(v)
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<(), Unsupported> {
        Err(Unsupported("bytes as a dict key".into()))
    }
    fn serialize_none(self) -> Result<(), Unsupported> {
        Err(Unsupported("None as a dict key".into()))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Unsupported> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Unsupported> {
        Err(Unsupported("None as a dict key".into()))
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Unsupported> {
        Err(Unsupported("None as a dict key".into()))
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Unsupported> {
        self.text(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), Unsupported> {
        Err(Unsupported("a dict as a dict key".into()))
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Unsupported> {
        Err(Unsupported("a list as a dict key".into()))
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Unsupported> {
        Err(Unsupported("a list as a dict key".into()))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, Unsupported> {
        Err(Unsupported("a list as a dict key".into()))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Unsupported> {
        Err(Unsupported("a dict as a dict key".into()))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Unsupported> {
        Err(Unsupported("a dict as a dict key".into()))
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeStruct, Unsupported> {
        Err(Unsupported("a dict as a dict key".into()))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Unsupported> {
        Err(Unsupported("a dict as a dict key".into()))
    }
}
