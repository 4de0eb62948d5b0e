//! [`ServerMsg`] read by hand: `{"type": "...", ...}`, the tag in any position.

use serde::{Deserialize, Deserializer};
use serde_json::{Error, Value};

use super::{Fields, to_error};
use crate::ServerMsg;

const VARIANTS: &[&str] = &[
    "hello",
    "snapshot",
    "state",
    "robot",
    "belief",
    "presence",
    "settings",
    "notice",
    "console",
    "recording",
    "moment",
    "pacing",
    "board_changed",
    "placed",
    "place_refused",
    "pong",
    "error",
];

impl<'de> Deserialize<'de> for ServerMsg {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        read(Value::deserialize(deserializer)?).map_err(to_error)
    }
}

fn read(value: Value) -> Result<ServerMsg, Error> {
    let (tag, mut fields) = Fields::tagged(value, "type", "internally tagged enum ServerMsg")?;
    Ok(match tag.as_str() {
        "hello" => ServerMsg::Hello {
            protocol: fields.required("protocol")?,
            server_version: fields.required("server_version")?,
            lab: fields.required("lab")?,
            lab_name: fields.required("lab_name")?,
            role: fields.required("role")?,
            you: fields.optional("you")?,
        },
        "snapshot" => ServerMsg::Snapshot(fields.rest()?),
        "state" => ServerMsg::State(fields.rest()?),
        "robot" => ServerMsg::Robot(fields.rest()?),
        "belief" => ServerMsg::Belief(fields.rest()?),
        "presence" => ServerMsg::Presence { participants: fields.required("participants")? },
        "settings" => ServerMsg::Settings(fields.rest()?),
        "notice" => ServerMsg::Notice { from: fields.required("from")?, message: fields.required("message")? },
        "console" => ServerMsg::Console { robot: fields.required("robot")?, lines: fields.required("lines")? },
        "recording" => ServerMsg::Recording(fields.rest()?),
        "moment" => ServerMsg::Moment(fields.rest()?),
        "pacing" => ServerMsg::Pacing { drawn_every: fields.required("drawn_every")? },
        "board_changed" => ServerMsg::BoardChanged,
        "placed" => ServerMsg::Placed {
            id: fields.required("id")?,
            name: fields.required("name")?,
            position: fields.required("position")?,
            heading: fields.optional("heading")?,
        },
        "place_refused" => ServerMsg::PlaceRefused {
            id: fields.required("id")?,
            name: fields.required("name")?,
            error: fields.required("error")?,
        },
        "pong" => ServerMsg::Pong { nonce: fields.required("nonce")? },
        "error" => ServerMsg::Error(fields.rest()?),
        other => return Err(serde::de::Error::unknown_variant(other, VARIANTS)),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::{
        Belief, ConsoleLine, ConsoleSource, Drawing, ErrorBody, ErrorCode, Estimate, LabMode, LabSettings, LabState,
        Participant, Rate, RecordedMoment, RecordingSummary, RobotReport, Role, SceneSnapshot, ServerMsg,
    };

    fn report() -> RobotReport {
        serde_json::from_value(json!({
            "name": "bot", "step": 240, "time": 1.0,
            "pose": {"position": [1.0, 0.1, 2.0], "quaternion": [1.0, 0.0, 0.0, 0.0], "heading": 0.5},
            "sensors": [{"name": "gps", "kind": "SimpleGPS", "rate": 10.0, "step": 216, "time": 0.9,
                         "measured": {"type": "vector", "values": [1.0, 2.0, 3.0]}, "truth": null}],
            "actuators": [{"name": "drive", "kind": "DiffDrive", "command": {"v": 0.1, "omega": 0.2},
                           "joint": null, "stalled": false}],
            "keys": ["I"],
            "program": {"file": "bot.py", "language": "PYTHON", "state": "running", "message": null},
            "owner": "Ana"
        }))
        .unwrap()
    }

    fn empty_scene() -> SceneSnapshot {
        serde_json::from_value(json!({"epoch": 2, "sky": [1, 2, 3], "bodies": []})).unwrap()
    }

    fn every_variant() -> Vec<ServerMsg> {
        let ana = Participant { id: 1, name: "Ana".into(), role: Role::Student, online: true, robots: vec![] };
        let state =
            LabState { mode: LabMode::Paused, rate: Rate::Max, step: 3, time: 0.0125, dt_secs: 1.0 / 240.0, epoch: 2 };
        let snapshot = empty_scene();
        vec![
            ServerMsg::Hello {
                protocol: crate::PROTOCOL_VERSION,
                server_version: "0.1.0".into(),
                lab: "demo".into(),
                lab_name: "Demo".into(),
                role: Role::Student,
                you: Some(ana.clone()),
            },
            ServerMsg::Snapshot(snapshot.clone()),
            ServerMsg::State(state),
            ServerMsg::Robot(report()),
            ServerMsg::Belief(Belief {
                robot: "bot".into(),
                step: 4,
                time: 0.5,
                estimate: Some(Estimate { x: 1.0, y: 2.0, theta: 0.25 }),
                drawings: vec![Drawing::Points { points: vec![[0.0, 1.0, 0.5]], color: "#ff0000".into() }],
            }),
            ServerMsg::Presence { participants: vec![ana] },
            ServerMsg::Settings(LabSettings::default()),
            ServerMsg::Notice { from: "Instructor".into(), message: "5 minutes left".into() },
            ServerMsg::Console {
                robot: "bot".into(),
                lines: vec![ConsoleLine { step: 1, time: 0.0, source: ConsoleSource::Print, text: "hi".into() }],
            },
            ServerMsg::Recording(RecordingSummary::default()),
            ServerMsg::Moment(Box::new(RecordedMoment {
                run: 1,
                step: 10,
                time: 0.1,
                asked: 12,
                snapshot: Some(snapshot),
                epoch: 2,
                poses: vec![],
                robots: vec![report()],
                trails: vec![],
            })),
            ServerMsg::Pacing { drawn_every: 2 },
            ServerMsg::BoardChanged,
            ServerMsg::Placed { id: 7, name: "crate".into(), position: [1.0, 0.25, -2.0], heading: Some(1.5) },
            ServerMsg::PlaceRefused {
                id: 8,
                name: "crate".into(),
                error: ErrorBody::new(ErrorCode::InvalidArgument, "overlaps"),
            },
            ServerMsg::Pong { nonce: u64::MAX },
            ServerMsg::Error(ErrorBody::new(ErrorCode::Forbidden, "no")),
        ]
    }

    /// The tag of each variant, by a match the compiler checks is complete: a variant
    /// added to `ServerMsg` does not build here until it is given its tag, its reader
    /// and a place in `every_variant`.
    fn tag(message: &ServerMsg) -> &'static str {
        match message {
            ServerMsg::Hello { .. } => "hello",
            ServerMsg::Snapshot(_) => "snapshot",
            ServerMsg::State(_) => "state",
            ServerMsg::Robot(_) => "robot",
            ServerMsg::Belief(_) => "belief",
            ServerMsg::Presence { .. } => "presence",
            ServerMsg::Settings(_) => "settings",
            ServerMsg::Notice { .. } => "notice",
            ServerMsg::Console { .. } => "console",
            ServerMsg::Recording(_) => "recording",
            ServerMsg::Moment(_) => "moment",
            ServerMsg::Pacing { .. } => "pacing",
            ServerMsg::BoardChanged => "board_changed",
            ServerMsg::Placed { .. } => "placed",
            ServerMsg::PlaceRefused { .. } => "place_refused",
            ServerMsg::Pong { .. } => "pong",
            ServerMsg::Error(_) => "error",
        }
    }

    #[test]
    fn every_variant_has_its_tag_listed_and_written() {
        let tags: Vec<&str> = every_variant().iter().map(tag).collect();
        assert_eq!(tags, super::VARIANTS, "every_variant holds each variant once, in VARIANTS' order");
        for message in every_variant() {
            assert_eq!(serde_json::to_value(&message).unwrap()["type"], tag(&message));
        }
    }

    #[test]
    fn every_variant_reads_back_as_written() {
        let messages = every_variant();
        assert_eq!(messages.len(), super::VARIANTS.len());
        for message in messages {
            let json = serde_json::to_string(&message).unwrap();
            assert!(json.starts_with(r#"{"type":""#), "the tag is written first: {json}");
            assert_eq!(serde_json::from_str::<ServerMsg>(&json).unwrap(), message, "{json}");
            let value = serde_json::to_value(&message).unwrap();
            assert_eq!(serde_json::from_value::<ServerMsg>(value).unwrap(), message);
        }
    }

    #[test]
    fn the_tag_may_come_anywhere_and_unknown_fields_are_ignored() {
        let read = |json: &str| serde_json::from_str::<ServerMsg>(json).unwrap();
        assert_eq!(read(r#"{"nonce":5,"type":"pong"}"#), ServerMsg::Pong { nonce: 5 });
        assert_eq!(read(r#"{"nonce":5,"type":"pong","extra":[1]}"#), ServerMsg::Pong { nonce: 5 });
        assert_eq!(
            read(r#"{"epoch":2,"sky":[1,2,3],"type":"snapshot","bodies":[],"later":true}"#),
            ServerMsg::Snapshot(empty_scene())
        );
        let hello = r#"{"protocol":2,"server_version":"x","lab":"l","lab_name":"L","role":"viewer","type":"hello"}"#;
        assert!(matches!(read(hello), ServerMsg::Hello { you: None, .. }), "`you` defaults to none");
    }

    #[test]
    fn malformed_messages_are_refused_with_serde_s_words() {
        let error = |json: &str| serde_json::from_str::<ServerMsg>(json).unwrap_err().to_string();
        assert!(error(r#"{"nonce":5}"#).starts_with("missing field `type`"), "{}", error(r#"{"nonce":5}"#));
        assert!(error(r#"{"type":"teleport"}"#).starts_with("unknown variant `teleport`, expected one of `hello`"));
        assert!(error(r#"{"type":"pong"}"#).starts_with("missing field `nonce`"));
        assert!(error(r#"{"type":"pong","nonce":"five"}"#).starts_with("invalid type: string \"five\""));
        assert!(error(r#"[1]"#).starts_with("invalid type: sequence, expected internally tagged enum ServerMsg"));
        assert!(serde_json::from_str::<ServerMsg>(r#"{"type":"pong","nonce":1"#).is_err(), "truncated JSON");
    }
}
