//! [`SensorValue`] read by hand: `{"type": "scan", ...}`, the tag in any position,
//! unknown fields ignored.

use serde::{Deserialize, Deserializer};
use serde_json::{Error, Value};

use super::{Fields, to_error};
use crate::SensorValue;

const VARIANTS: &[&str] = &[
    "scalar",
    "vector",
    "scan",
    "keys",
    "ticks",
    "joint",
    "pose2d",
    "contact",
    "image",
    "depth_image",
    "orientation",
    "landmarks",
    "radio",
];

impl<'de> Deserialize<'de> for SensorValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        read(Value::deserialize(deserializer)?).map_err(to_error)
    }
}

fn read(value: Value) -> Result<SensorValue, Error> {
    let (tag, mut f) = Fields::tagged(value, "type", "internally tagged enum SensorValue")?;
    Ok(match tag.as_str() {
        "scalar" => SensorValue::Scalar { value: f.required("value")? },
        "vector" => SensorValue::Vector { values: f.required("values")? },
        "scan" => SensorValue::Scan {
            angle_min: f.required("angle_min")?,
            angle_step: f.required("angle_step")?,
            max_range: f.required("max_range")?,
            ranges: f.required("ranges")?,
        },
        "keys" => SensorValue::Keys { keys: f.required("keys")? },
        "ticks" => SensorValue::Ticks { ticks: f.required("ticks")?, angle: f.required("angle")? },
        "joint" => SensorValue::Joint { position: f.required("position")?, velocity: f.required("velocity")? },
        "pose2d" => SensorValue::Pose2d { x: f.required("x")?, y: f.required("y")?, theta: f.required("theta")? },
        "contact" => SensorValue::Contact {
            touching: f.required("touching")?,
            point: f.optional("point")?,
            force: f.required("force")?,
        },
        "image" => SensorValue::Image {
            width: f.required("width")?,
            height: f.required("height")?,
            mean: f.required("mean")?,
            pixels: f.optional("pixels")?,
        },
        "depth_image" => SensorValue::DepthImage {
            width: f.required("width")?,
            height: f.required("height")?,
            max_range: f.required("max_range")?,
            nearest: f.required("nearest")?,
            depths: f.optional("depths")?,
        },
        "orientation" => SensorValue::Orientation {
            roll: f.required("roll")?,
            pitch: f.required("pitch")?,
            yaw: f.required("yaw")?,
            quaternion: f.required("quaternion")?,
        },
        "landmarks" => SensorValue::Landmarks { landmarks: f.required("landmarks")? },
        "radio" => SensorValue::Radio { heard: f.required("heard")?, sent: f.required("sent")? },
        other => return Err(serde::de::Error::unknown_variant(other, VARIANTS)),
    })
}

#[cfg(test)]
mod tests {
    use crate::{Landmark, RadioMessage, SensorValue};

    fn every_variant() -> Vec<SensorValue> {
        let landmark = Landmark { id: "B1".into(), distance: 2.0, bearing: 0.5, elevation: -0.1 };
        let message = RadioMessage { from: "ana_bot".into(), text: "hi".into() };
        vec![
            SensorValue::Scalar { value: 1.5 },
            SensorValue::Vector { values: [1.0, -2.0, 3.0] },
            SensorValue::Scan { angle_min: -1.5, angle_step: 0.5, max_range: 10.0, ranges: vec![1.0, 10.0, 2.5] },
            SensorValue::Keys { keys: vec!["I".into(), "SPACE".into()] },
            SensorValue::Ticks { ticks: -42, angle: -0.7 },
            SensorValue::Joint { position: 0.3, velocity: -0.1 },
            SensorValue::Pose2d { x: 1.0, y: 2.0, theta: 0.5 },
            SensorValue::Contact { touching: true, point: Some([0.1, 0.2, 0.3]), force: [0.0, 9.8, 0.0] },
            SensorValue::Image { width: 2, height: 1, mean: [1, 2, 3], pixels: "AAAAAAAA".into() },
            SensorValue::DepthImage { width: 2, height: 1, max_range: 5.0, nearest: 0.5, depths: String::new() },
            SensorValue::Orientation { roll: 0.1, pitch: 0.2, yaw: 0.3, quaternion: [1.0, 0.0, 0.0, 0.0] },
            SensorValue::Landmarks { landmarks: vec![landmark] },
            SensorValue::Radio { heard: vec![message], sent: vec!["hello".into()] },
        ]
    }

    /// The tag of each variant, by a match the compiler checks is complete: a variant
    /// added to `SensorValue` does not build here until it is given its tag, its reader
    /// and a place in `every_variant`.
    fn tag(value: &SensorValue) -> &'static str {
        match value {
            SensorValue::Scalar { .. } => "scalar",
            SensorValue::Vector { .. } => "vector",
            SensorValue::Scan { .. } => "scan",
            SensorValue::Keys { .. } => "keys",
            SensorValue::Ticks { .. } => "ticks",
            SensorValue::Joint { .. } => "joint",
            SensorValue::Pose2d { .. } => "pose2d",
            SensorValue::Contact { .. } => "contact",
            SensorValue::Image { .. } => "image",
            SensorValue::DepthImage { .. } => "depth_image",
            SensorValue::Orientation { .. } => "orientation",
            SensorValue::Landmarks { .. } => "landmarks",
            SensorValue::Radio { .. } => "radio",
        }
    }

    #[test]
    fn every_variant_has_its_tag_listed_and_written() {
        let tags: Vec<&str> = every_variant().iter().map(tag).collect();
        assert_eq!(tags, super::VARIANTS, "every_variant holds each variant once, in VARIANTS' order");
        for value in every_variant() {
            assert_eq!(serde_json::to_value(&value).unwrap()["type"], tag(&value));
        }
    }

    #[test]
    fn every_variant_reads_back_as_written() {
        let values = every_variant();
        assert_eq!(values.len(), super::VARIANTS.len());
        for value in values {
            let json = serde_json::to_string(&value).unwrap();
            assert!(json.starts_with(r#"{"type":""#), "{json}");
            assert_eq!(serde_json::from_str::<SensorValue>(&json).unwrap(), value, "{json}");
        }
    }

    #[test]
    fn the_tag_may_come_anywhere_unknown_fields_are_ignored_and_defaults_hold() {
        let read = |json: &str| serde_json::from_str::<SensorValue>(json).unwrap();
        assert_eq!(
            read(r#"{"x":1,"y":2,"theta":3,"type":"pose2d","z":4}"#),
            SensorValue::Pose2d { x: 1.0, y: 2.0, theta: 3.0 }
        );
        assert_eq!(
            read(r#"{"type":"contact","touching":false,"force":[0,0,0]}"#),
            SensorValue::Contact { touching: false, point: None, force: [0.0; 3] },
            "a missing `point` is none"
        );
        assert_eq!(
            read(r#"{"type":"image","width":1,"height":1,"mean":[0,0,0]}"#),
            SensorValue::Image { width: 1, height: 1, mean: [0; 3], pixels: String::new() },
            "a summary has no pixels"
        );
        let error = |json: &str| serde_json::from_str::<SensorValue>(json).unwrap_err().to_string();
        assert!(error(r#"{"type":"sonar"}"#).starts_with("unknown variant `sonar`"));
        assert!(error(r#"{"type":"ticks","ticks":1}"#).starts_with("missing field `angle`"));
        assert!(error(r#"{"type":"scalar","value":"high"}"#).starts_with("invalid type: string \"high\""));
    }
}
