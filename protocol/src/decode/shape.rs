//! [`Shape`] read by hand: `{"type": "box", "half_extents": [...]}`, the tag in any
//! position, unknown fields ignored.

use serde::{Deserialize, Deserializer};
use serde_json::{Error, Value};

use super::{Fields, to_error};
use crate::Shape;

const VARIANTS: &[&str] = &["box", "sphere", "cylinder", "capsule"];

impl<'de> Deserialize<'de> for Shape {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        read(Value::deserialize(deserializer)?).map_err(to_error)
    }
}

fn read(value: Value) -> Result<Shape, Error> {
    let (tag, mut fields) = Fields::tagged(value, "type", "internally tagged enum Shape")?;
    Ok(match tag.as_str() {
        "box" => Shape::Box { half_extents: fields.required("half_extents")? },
        "sphere" => Shape::Sphere { radius: fields.required("radius")? },
        "cylinder" => {
            Shape::Cylinder { radius: fields.required("radius")?, half_length: fields.required("half_length")? }
        }
        "capsule" => {
            Shape::Capsule { radius: fields.required("radius")?, half_length: fields.required("half_length")? }
        }
        other => return Err(serde::de::Error::unknown_variant(other, VARIANTS)),
    })
}

#[cfg(test)]
mod tests {
    use crate::Shape;

    #[test]
    fn every_variant_reads_back_as_written() {
        let shapes = [
            Shape::Box { half_extents: [0.5, 0.1, 0.25] },
            Shape::Sphere { radius: 0.05 },
            Shape::Cylinder { radius: 0.1, half_length: 0.02 },
            Shape::Capsule { radius: 0.05, half_length: 0.2 },
        ];
        assert_eq!(shapes.len(), super::VARIANTS.len());
        for shape in shapes {
            let json = serde_json::to_string(&shape).unwrap();
            assert_eq!(serde_json::from_str::<Shape>(&json).unwrap(), shape, "{json}");
        }
        assert_eq!(
            serde_json::to_string(&Shape::Sphere { radius: 0.5 }).unwrap(),
            r#"{"type":"sphere","radius":0.5}"#,
            "written as before"
        );
    }

    #[test]
    fn the_tag_may_come_anywhere_and_unknown_fields_are_ignored() {
        let read = |json: &str| serde_json::from_str::<Shape>(json).unwrap();
        assert_eq!(
            read(r#"{"radius":1,"half_length":2,"type":"capsule"}"#),
            Shape::Capsule { radius: 1.0, half_length: 2.0 }
        );
        assert_eq!(read(r#"{"radius":1,"type":"sphere","colour":"red"}"#), Shape::Sphere { radius: 1.0 });
        let error = |json: &str| serde_json::from_str::<Shape>(json).unwrap_err().to_string();
        assert!(error(r#"{"type":"cone","radius":1}"#).starts_with("unknown variant `cone`"));
        assert!(error(r#"{"type":"cylinder","radius":1}"#).starts_with("missing field `half_length`"));
        assert!(error(r#"{"radius":1}"#).starts_with("missing field `type`"));
    }
}
