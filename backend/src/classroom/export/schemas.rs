//! An MCAP export's messages and their JSON Schemas: Foxglove's well-known
//! `foxglove.FrameTransform`, `foxglove.LaserScan` and `foxglove.Log` (their fields as
//! Foxglove publishes them, without the optional lineage fields VLab never sets), so
//! Foxglove's 3D, Log and Plot panels read them as they are; and `vlab.SensorReading`
//! for every other reading.

use serde::Serialize;
use vlab_protocol::SensorValue;

/// The encoding of the schemas (MCAP's well-known name for JSON Schema).
pub const ENCODING: &str = "jsonschema";
/// The encoding of the messages.
pub const MESSAGE_ENCODING: &str = "json";

/// Seconds and nanoseconds (Foxglove's `time`).
macro_rules! time {
    ($description:literal) => {
        concat!(
            r#"{"type": "object", "title": "time", "description": ""#,
            $description,
            r#"", "properties": {"sec": {"type": "integer", "minimum": 0}, "nsec": {"type": "integer", "minimum": 0, "maximum": 999999999}}}"#
        )
    };
}

macro_rules! vector3 {
    ($description:literal) => {
        concat!(
            r#"{"title": "foxglove.Vector3", "description": ""#,
            $description,
            r#"", "type": "object", "properties": {"x": {"type": "number", "description": "x coordinate length"}, "y": {"type": "number", "description": "y coordinate length"}, "z": {"type": "number", "description": "z coordinate length"}}, "required": ["x", "y", "z"]}"#
        )
    };
}

macro_rules! quaternion {
    ($description:literal) => {
        concat!(
            r#"{"title": "foxglove.Quaternion", "description": ""#,
            $description,
            r#"", "type": "object", "properties": {"x": {"type": "number", "description": "x value"}, "y": {"type": "number", "description": "y value"}, "z": {"type": "number", "description": "z value"}, "w": {"type": "number", "description": "w value"}}, "required": ["x", "y", "z", "w"]}"#
        )
    };
}

/// A body's pose: the transform from the world frame to the body's frame.
pub const FRAME_TRANSFORM: (&str, &str) = (
    "foxglove.FrameTransform",
    concat!(
        r#"{"title": "foxglove.FrameTransform", "description": "A transform between two reference frames in 3D space", "type": "object", "properties": {"timestamp": "#,
        time!("Timestamp of transform"),
        r#", "parent_frame_id": {"type": "string", "description": "Name of the parent frame"}, "child_frame_id": {"type": "string", "description": "Name of the child frame"}, "translation": "#,
        vector3!("Translation component of the transform"),
        r#", "rotation": "#,
        quaternion!("Rotation component of the transform"),
        r#"}, "required": ["timestamp", "parent_frame_id", "child_frame_id", "translation", "rotation"]}"#
    ),
);

/// A planar scan.
pub const LASER_SCAN: (&str, &str) = (
    "foxglove.LaserScan",
    concat!(
        r#"{"title": "foxglove.LaserScan", "description": "A single scan from a planar laser range-finder", "type": "object", "properties": {"timestamp": "#,
        time!("Timestamp of scan"),
        r#", "frame_id": {"type": "string", "description": "Frame of reference"}, "pose": {"title": "foxglove.Pose", "description": "Origin of scan relative to frame of reference; points are positioned in the x-y plane relative to this origin; angles are interpreted as counterclockwise rotations around the z axis with 0 rad being in the +x direction", "type": "object", "properties": {"position": "#,
        vector3!("Point denoting position in 3D space"),
        r#", "orientation": "#,
        quaternion!("Quaternion denoting orientation in 3D space"),
        r#"}, "required": ["position", "orientation"]}, "start_angle": {"type": "number", "description": "Bearing of first point, in radians"}, "end_angle": {"type": "number", "description": "Bearing of last point, in radians"}, "ranges": {"type": "array", "items": {"type": "number"}, "description": "Distance of detections from origin; assumed to be at equally-spaced angles between `start_angle` and `end_angle`"}, "intensities": {"type": "array", "items": {"type": "number"}, "description": "Intensity of detections"}}, "required": ["timestamp", "frame_id", "pose", "start_angle", "end_angle", "ranges", "intensities"]}"#
    ),
);

/// A console line or a lab event.
pub const LOG: (&str, &str) = (
    "foxglove.Log",
    concat!(
        r#"{"title": "foxglove.Log", "description": "A log message", "type": "object", "properties": {"timestamp": "#,
        time!("Timestamp of log message"),
        r#", "level": {"title": "foxglove.LogLevel", "description": "Log level", "oneOf": [{"title": "UNKNOWN", "const": 0}, {"title": "DEBUG", "const": 1}, {"title": "INFO", "const": 2}, {"title": "WARNING", "const": 3}, {"title": "ERROR", "const": 4}, {"title": "FATAL", "const": 5}]}, "message": {"type": "string", "description": "Log message"}, "name": {"type": "string", "description": "Process or node name"}, "file": {"type": "string", "description": "Filename"}, "line": {"type": "integer", "minimum": 0, "description": "Line number in the file"}}, "required": ["timestamp", "level", "message", "name", "file", "line"]}"#
    ),
);

/// A sensor value as the protocol writes it (`SensorValue`): `type` and its fields.
macro_rules! sensor_value {
    () => {
        r#"{"type": ["object", "null"], "description": "The value: `type` says which fields it has", "properties": {"type": {"type": "string", "enum": ["scalar", "vector", "keys", "ticks", "joint", "pose2d", "contact", "scan"]}, "value": {"type": "number", "description": "scalar: the number"}, "values": {"type": "array", "items": {"type": "number"}, "description": "vector: x, y, z"}, "keys": {"type": "array", "items": {"type": "string"}, "description": "keys: the keys held"}, "ticks": {"type": "integer", "description": "ticks: signed count since the start"}, "angle": {"type": "number", "description": "ticks: radians turned since the start"}, "position": {"type": "number", "description": "joint: radians or metres"}, "velocity": {"type": "number", "description": "joint: radians or metres per second"}, "x": {"type": "number", "description": "pose2d: metres along world X"}, "y": {"type": "number", "description": "pose2d: metres along world -Z"}, "theta": {"type": "number", "description": "pose2d: heading, radians"}, "touching": {"type": "boolean", "description": "contact: whether anything touches"}, "point": {"type": ["array", "null"], "items": {"type": "number"}, "description": "contact: where, world frame"}, "force": {"type": "array", "items": {"type": "number"}, "description": "contact: total force, world frame, newtons"}}, "required": ["type"]}"#
    };
}

/// Any other sensor reading: what the program read and what was true.
pub const SENSOR_READING: (&str, &str) = (
    "vlab.SensorReading",
    concat!(
        r#"{"title": "vlab.SensorReading", "description": "A VLab sensor's reading: what the robot's program read (measured, through the noise model) and what the world really was (true)", "type": "object", "properties": {"timestamp": "#,
        time!("Simulation time of the reading"),
        r#", "step": {"type": "integer", "minimum": 0, "description": "The lab's step"}, "robot": {"type": "string"}, "sensor": {"type": "string"}, "kind": {"type": "string", "description": "The sensor's catalogue type"}, "measured": "#,
        sensor_value!(),
        r#", "true": "#,
        sensor_value!(),
        r#"}, "required": ["timestamp", "step", "robot", "sensor", "kind", "measured", "true"]}"#
    ),
);

/// Foxglove's `time`: simulation time, seconds and nanoseconds.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Time {
    sec: u64,
    nsec: u64,
}

impl Time {
    /// From nanoseconds.
    pub fn of_nanos(nanos: u64) -> Time {
        Time { sec: nanos / 1_000_000_000, nsec: nanos % 1_000_000_000 }
    }
}

/// `foxglove.Vector3`.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Vector3 {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

/// `foxglove.Quaternion`.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Quaternion {
    pub x: f64,
    pub y: f64,
    pub z: f64,
    pub w: f64,
}

impl From<[f64; 4]> for Quaternion {
    /// From `[x, y, z, w]`, the order of `vlab_protocol::pose`.
    fn from([x, y, z, w]: [f64; 4]) -> Quaternion {
        Quaternion { x, y, z, w }
    }
}

/// `foxglove.Pose`.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Pose {
    pub position: Vector3,
    pub orientation: Quaternion,
}

/// `foxglove.FrameTransform`.
#[derive(Debug, Serialize)]
pub struct FrameTransform<'a> {
    pub timestamp: Time,
    pub parent_frame_id: &'a str,
    pub child_frame_id: &'a str,
    pub translation: Vector3,
    pub rotation: Quaternion,
}

/// `foxglove.LaserScan`.
#[derive(Debug, Serialize)]
pub struct LaserScan<'a> {
    pub timestamp: Time,
    pub frame_id: &'a str,
    pub pose: Pose,
    pub start_angle: f64,
    pub end_angle: f64,
    pub ranges: &'a [f32],
    pub intensities: [f32; 0],
}

/// `foxglove.Log`.
#[derive(Debug, Serialize)]
pub struct Log<'a> {
    pub timestamp: Time,
    /// 2 info, 3 warning, 4 error.
    pub level: u8,
    pub message: &'a str,
    pub name: &'a str,
    pub file: &'a str,
    pub line: u32,
}

/// `vlab.SensorReading`.
#[derive(Debug, Serialize)]
pub struct SensorReading<'a> {
    pub timestamp: Time,
    pub step: u64,
    pub robot: &'a str,
    pub sensor: &'a str,
    pub kind: &'a str,
    pub measured: Option<&'a SensorValue>,
    #[serde(rename = "true")]
    pub truth: Option<&'a SensorValue>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_is_json_with_its_title() {
        for (name, schema) in [FRAME_TRANSFORM, LASER_SCAN, LOG, SENSOR_READING] {
            let parsed: serde_json::Value = serde_json::from_str(schema).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(parsed["title"], name);
            assert_eq!(parsed["type"], "object");
        }
    }
}
