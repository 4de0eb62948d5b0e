//! JSON messages of the websocket (text frames), split by direction, and the HTTP
//! API's shared bodies.

use serde::{Deserialize, Serialize};

use crate::{
    Belief, ControlAction, LabSettings, LabState, Participant, RecordedMoment, RecordingSummary, RobotReport, Role,
    SceneSnapshot,
};

/// Server → client, as JSON text. Binary messages are [`crate::Frame`]s.
///
/// Order on a new connection: `Hello`, `Snapshot`, `State`, then frames and events.
///
/// Read by hand (`crate::decode`), without serde's buffering of tagged enums; the
/// attributes here say how it is written.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    /// First message: who the server thinks you are.
    Hello {
        /// The server's [`crate::PROTOCOL_VERSION`].
        protocol: u32,
        /// The server's package version, for display.
        server_version: String,
        /// The lab this socket watches.
        lab: String,
        /// The lab's display name.
        lab_name: String,
        /// Your role, decided from your token.
        role: Role,
        /// Who you are in the lab (`None` for viewers without a session).
        #[serde(default)]
        you: Option<Participant>,
    },
    /// The whole scene: sent on join and whenever it changes.
    Snapshot(SceneSnapshot),
    /// The lab's clock: sent on join and whenever mode, rate or epoch change, and
    /// after every `step` command completes.
    State(LabState),
    /// The latest report of a robot the client subscribed to: sent on subscribing,
    /// then about ten times a second (wall clock) while the lab runs, and after every
    /// completed `step` command. Newest wins: a slow client skips reports, not steps.
    Robot(RobotReport),
    /// What a watched robot's program believes and draws, to those who may see it (its
    /// owner and the instructor; everybody when the instructor shares beliefs): sent
    /// with its reports while it has any.
    Belief(Belief),
    /// Who is in the lab: sent on join and whenever somebody joins, connects,
    /// disconnects or adds or removes a robot.
    Presence {
        /// Everybody who joined, the instructor first.
        participants: Vec<Participant>,
    },
    /// The lab's settings: sent on join and when the instructor changes them.
    Settings(LabSettings),
    /// A message from the instructor to everybody in the lab.
    Notice {
        /// The sender's name.
        from: String,
        /// The message (plain text).
        message: String,
    },
    /// New lines of a robot's console (its program's output and the lab's words about
    /// it): sent to the robot's owner and the instructor only, as they come.
    Console {
        /// The robot.
        robot: String,
        /// The lines, oldest first.
        lines: Vec<crate::ConsoleLine>,
    },
    /// What the lab has recorded (the timeline's bounds): sent on join and whenever
    /// they change (a chunk kept, the oldest dropped, a new run).
    Recording(RecordingSummary),
    /// The lab at a recorded step: the answer to [`ClientMsg::Seek`]. Live frames go on
    /// arriving; the page shows this moment until it seeks again or goes back to live.
    Moment(Box<RecordedMoment>),
    /// How often this connection should send [`ClientMsg::Drawn`]: once at least
    /// `drawn_every` frames arrived since the last one (until told, after every picture
    /// that showed a new frame). Sent only to clients whose `drawn` counts `pictures`,
    /// whenever the number changes: it grows when the server may keep more frames in
    /// flight for the page, and is back to 1 when the page draws slower than frames come.
    Pacing {
        /// Frames to receive between two `drawn`s (at least 1).
        drawn_every: u32,
    },
    /// The lab's challenge board changed (an attempt ended, a live run started, a robot
    /// in it finished, the run ended): `GET /api/labs/{lab}/challenge` has the rows this
    /// connection's caller may see.
    BoardChanged,
    /// Answer to [`ClientMsg::Place`]: the thing stands there now, at rest (everybody
    /// sees it in the next frames).
    Placed {
        /// The placement's id, echoed.
        id: u32,
        /// The body or robot placed.
        name: String,
        /// Where its (main) body is now, metres.
        position: [f32; 3],
        /// The heading asked for, radians (`None`: it kept its own).
        heading: Option<f32>,
    },
    /// Answer to [`ClientMsg::Place`] when it was refused; nothing moved.
    PlaceRefused {
        /// The placement's id, echoed.
        id: u32,
        /// The body or robot it was about.
        name: String,
        /// Why: the same code and message as the HTTP move's refusal (unknown thing,
        /// not the caller's, overlapping, not finite), or `too_many_requests` for a
        /// placement superseded by a newer one before its turn.
        error: ErrorBody,
    },
    /// Answer to [`ClientMsg::Ping`].
    Pong {
        /// The client's nonce, echoed.
        nonce: u64,
    },
    /// Something went wrong with a request, or the connection is about to close.
    Error(ErrorBody),
}

/// Client → server, as JSON text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMsg {
    /// A time-control command (instructor only; others get [`ErrorCode::Forbidden`]).
    Control {
        /// What to do with the clock.
        command: ControlAction,
    },
    /// Start receiving [`ServerMsg::Robot`] reports of a robot.
    Subscribe {
        /// The robot's name.
        robot: String,
    },
    /// Stop receiving them.
    Unsubscribe {
        /// The robot's name.
        robot: String,
    },
    /// Start receiving a camera's images as binary [`crate::CameraView`] messages (a
    /// few a second at most; one camera per connection: a new one replaces it).
    WatchCamera {
        /// The robot's name.
        robot: String,
        /// The `Camera` or `DepthCamera` sensor's name.
        sensor: String,
    },
    /// Stop receiving camera images.
    UnwatchCamera,
    /// The keys held now, for a robot's `Keyboard` sensors (sent whenever the set
    /// changes; an empty list releases them all).
    Keys {
        /// The robot being driven.
        robot: String,
        /// Upper-case key names (`I`, `ARROWUP`, `SPACE`), at most [`crate::MAX_KEYS_HELD`].
        keys: Vec<String>,
    },
    /// Show the lab as it was at a recorded step; answered with
    /// [`ServerMsg::Moment`] (or an error when nothing is recorded there).
    Seek {
        /// The run (`None`: the current one; earlier runs stay kept across resets and
        /// restarts, within the lab's recording budget).
        #[serde(default)]
        run: Option<u32>,
        /// The step wanted.
        step: u64,
        /// The epoch of the scene the client holds, so an unchanged scene is not sent
        /// again. Only when that scene is of the run sought: epochs count again from 0
        /// after a server restart, so the same number in another run may be another
        /// scene.
        #[serde(default)]
        epoch: Option<u32>,
        /// Robots whose readings and trails to include, at most
        /// [`crate::MAX_SEEK_ROBOTS`].
        #[serde(default)]
        robots: Vec<String>,
    },
    /// Back to the live lab after seeking: the server sends the current snapshot and
    /// keyframe again.
    Live,
    /// The page drew the frames it received up to the one of this step: sent after
    /// drawing, at most once per drawn picture, with the step of the newest binary frame
    /// received since the last `Drawn` (`crate::DrawnFrames` says when). From a
    /// connection's first `Drawn` on, the server keeps at most a few frames sent and not
    /// yet drawn (its window); the lab's newer poses wait on the server, merged
    /// newest-wins, so a page gets frames as fast as it draws them and every latest pose.
    /// A client that never sends it gets every frame its socket takes. A step that is no
    /// frame in flight (already drawn, or never sent) changes nothing.
    Drawn {
        /// The step of the newest frame received and drawn.
        step: u64,
        /// How many pictures drawn since the last `Drawn` showed a new frame. A client
        /// that counts them is told by [`ServerMsg::Pacing`] how many frames it may
        /// receive between two `Drawn`s; one that does not (`None`: one picture) sends
        /// `Drawn` after every picture that showed a new frame.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pictures: Option<u32>,
    },
    /// Put a body or a whole robot at `position`, at rest, turned to `heading` about the
    /// vertical if given (as `POST /api/labs/{lab}/objects/{name}/move`, with the same
    /// permission: the thing's owner, or the instructor any). Answered to this
    /// connection alone with [`ServerMsg::Placed`] or [`ServerMsg::PlaceRefused`]
    /// carrying the same `id`. A connection's placements are done one at a time, at most
    /// one every [`crate::PLACE_INTERVAL_MS`] ms; one that arrives while another waits
    /// takes its place, and the one it displaces is refused.
    Place {
        /// Chosen by the client, echoed in the answer.
        id: u32,
        /// The body or robot.
        name: String,
        /// Where its (main) body goes, metres.
        position: [f32; 3],
        /// Its heading there, radians (`None`: as it is).
        #[serde(default)]
        heading: Option<f32>,
    },
    /// Liveness check; answered with [`ServerMsg::Pong`].
    Ping {
        /// Echoed back.
        nonce: u64,
    },
}

/// Machine-readable error kinds, shared by HTTP bodies and websocket errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// Client and server speak different protocol versions.
    ProtocolMismatch,
    /// A message or body that could not be read.
    BadRequest,
    /// Well-formed but with an argument out of range.
    InvalidArgument,
    /// No or wrong credentials.
    Unauthorized,
    /// Your role may not do this.
    Forbidden,
    /// No such lab (or thing in it).
    NotFound,
    /// The lab's simulation is not running any more.
    LabUnavailable,
    /// A fault on the server side.
    Internal,
    /// Too many requests or connections from one address: try again after the
    /// `Retry-After` the answer carries (docs/operations.md lists the limits).
    TooManyRequests,
    /// The server has as many connections as it takes: try again shortly.
    ServerBusy,
    /// What was asked for is taken: the robot's program runs, or another remote
    /// controller drives it.
    Conflict,
}

/// The body of every error: `{"code": "...", "message": "...", "details": [...]}`.
/// HTTP wraps it as `{"error": ErrorBody}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// What kind of error.
    pub code: ErrorCode,
    /// A sentence for a person.
    pub message: String,
    /// Further facts (positions, allowed values), possibly empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
}

impl ErrorBody {
    /// An error without details.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ErrorBody { code, message: message.into(), details: Vec::new() }
    }
}

/// A message about a place in a scene file: an error or a warning.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceMessage {
    /// The file, as the upload or the scene library names it.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// What is wrong, for a student.
    pub message: String,
}

/// What an insertion added to a lab.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InsertedCounts {
    /// Rigid bodies.
    pub bodies: usize,
    /// Joints.
    pub joints: usize,
    /// Robots.
    pub robots: usize,
}

/// The answer to a scene upload (`POST /api/labs/{lab}/scene`). When `ok` is false,
/// `errors` says why and nothing was inserted.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SceneUploadReply {
    /// Whether the scene was inserted.
    pub ok: bool,
    /// What was inserted (all zero when not ok).
    pub inserted: InsertedCounts,
    /// The scene's `print_*` output.
    pub log: Vec<String>,
    /// Problems that did not stop the scene.
    pub warnings: Vec<SourceMessage>,
    /// Problems that did: positioned in the file.
    pub errors: Vec<SourceMessage>,
    /// The robots it added (by name).
    #[serde(default)]
    pub robots: Vec<String>,
    /// The objects it added (by name), for `POST /api/labs/{lab}/objects`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub objects: Vec<String>,
    /// Where the lab put them, when their description left that to it (`{x}`, `{z}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<ChosenStart>,
}

/// The start the lab chose for the robots of an upload whose description wrote `{x}`
/// and `{z}` (docs/api.md, Adding robots).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ChosenStart {
    /// Where its (first) robot's main body starts, metres along world X.
    pub x: f64,
    /// ... and world Z.
    pub z: f64,
    /// The free floor around it, metres from its centre.
    pub clearance_m: f64,
    /// The free floor the upload asked for; more than `clearance_m` when no spot had it.
    pub asked_m: f64,
}

/// A lab as listed by `GET /api/labs` and `GET /api/labs/{lab}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabSummary {
    /// Its id, used in URLs.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// Its clock.
    #[serde(flatten)]
    pub state: LabState,
    /// How many rigid bodies its world holds.
    pub bodies: usize,
    /// Names of the robots in it.
    pub robots: Vec<String>,
    /// Websocket connections watching it now.
    pub viewers: usize,
    /// How many people joined it (the instructor included).
    #[serde(default)]
    pub participants: usize,
    /// Its settings.
    #[serde(default)]
    pub settings: LabSettings,
    /// The code students join with: shown to its instructor only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub join_code: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BodyId, BodyView, LabMode, Material, PartView, Pose, Rate, Shape};

    fn state() -> LabState {
        LabState {
            mode: LabMode::Running,
            rate: Rate::RealTime(1.0),
            step: 9,
            time: 0.0375,
            dt_secs: 1.0 / 240.0,
            epoch: 1,
        }
    }

    #[test]
    fn every_server_message_round_trips() {
        let messages = vec![
            ServerMsg::Hello {
                protocol: crate::PROTOCOL_VERSION,
                server_version: "0.1.0".into(),
                lab: "demo".into(),
                lab_name: "Demo lab".into(),
                role: Role::Viewer,
                you: None,
            },
            ServerMsg::Snapshot(SceneSnapshot {
                epoch: 1,
                sky: [1, 2, 3],
                links: vec![],
                zones: vec![],
                bodies: vec![BodyView {
                    id: BodyId(0),
                    name: "floor".into(),
                    parts: vec![PartView {
                        shape: Shape::Box { half_extents: [5.0, 0.05, 5.0] },
                        local: Pose::IDENTITY,
                        material: Material {
                            name: "Tiles".into(),
                            color: [90, 90, 90, 255],
                            roughness: 0.8,
                            metallic: 0.0,
                            texture: Some("/assets/textures/tiles.png".into()),
                            transparent: false,
                        },
                        mesh: None,
                    }],
                    pose: Pose::IDENTITY,
                    fixed: true,
                    robot: None,
                    owner: None,
                }],
            }),
            ServerMsg::State(state()),
            ServerMsg::Pong { nonce: 77 },
            ServerMsg::Pacing { drawn_every: 2 },
            ServerMsg::Console {
                robot: "bot_ana".into(),
                lines: vec![crate::ConsoleLine {
                    step: 40,
                    time: 40.0 / 240.0,
                    source: crate::ConsoleSource::Print,
                    text: "<b>x</b> = 1".into(),
                }],
            },
            ServerMsg::Presence {
                participants: vec![Participant {
                    id: 1,
                    name: "Ana".into(),
                    role: Role::Student,
                    online: true,
                    robots: vec!["ana_bot".into()],
                }],
            },
            ServerMsg::Settings(LabSettings::default()),
            ServerMsg::Notice { from: "Instructor".into(), message: "5 minutes left".into() },
            ServerMsg::Error(ErrorBody {
                code: ErrorCode::Forbidden,
                message: "only the instructor controls time".into(),
                details: vec!["role: viewer".into()],
            }),
        ];
        for message in messages {
            let json = serde_json::to_string(&message).unwrap();
            assert_eq!(serde_json::from_str::<ServerMsg>(&json).unwrap(), message, "{json}");
        }
    }

    #[test]
    fn every_client_message_round_trips() {
        let messages = vec![
            ClientMsg::Control { command: ControlAction::Step { steps: 10 } },
            ClientMsg::Control { command: ControlAction::Rate { rate: Rate::Max } },
            ClientMsg::Ping { nonce: u64::MAX },
            ClientMsg::Drawn { step: u64::MAX, pictures: None },
            ClientMsg::Drawn { step: 7, pictures: Some(2) },
            ClientMsg::Subscribe { robot: "bot".into() },
            ClientMsg::Unsubscribe { robot: "bot".into() },
            ClientMsg::Keys { robot: "bot".into(), keys: vec!["I".into(), "ARROWUP".into()] },
        ];
        for message in messages {
            let json = serde_json::to_string(&message).unwrap();
            assert_eq!(serde_json::from_str::<ClientMsg>(&json).unwrap(), message, "{json}");
        }
    }

    #[test]
    fn client_messages_have_the_documented_shape() {
        let json = r#"{"type":"control","command":{"action":"step","steps":10}}"#;
        assert_eq!(
            serde_json::from_str::<ClientMsg>(json).unwrap(),
            ClientMsg::Control { command: ControlAction::Step { steps: 10 } }
        );
        assert_eq!(
            serde_json::from_str::<ClientMsg>(r#"{"type":"drawn","step":240}"#).unwrap(),
            ClientMsg::Drawn { step: 240, pictures: None }
        );
        assert_eq!(
            serde_json::from_str::<ClientMsg>(r#"{"type":"drawn","step":240,"pictures":2}"#).unwrap(),
            ClientMsg::Drawn { step: 240, pictures: Some(2) }
        );
        assert!(serde_json::from_str::<ClientMsg>(r#"{"type":"teleport"}"#).is_err());
        assert!(serde_json::from_str::<ClientMsg>(r#"{"type":"ping"}"#).is_err());
    }

    #[test]
    fn lab_summary_flattens_the_clock() {
        let summary = LabSummary {
            id: "demo".into(),
            name: "Demo".into(),
            state: state(),
            bodies: 40,
            robots: vec!["rover".into()],
            viewers: 2,
            participants: 1,
            settings: LabSettings::default(),
            join_code: None,
        };
        let value = serde_json::to_value(&summary).unwrap();
        assert_eq!(value["step"], 9);
        assert_eq!(value["mode"], "running");
        assert_eq!(value["rate"], 1.0);
        assert_eq!(serde_json::from_value::<LabSummary>(value).unwrap(), summary);
    }

    #[test]
    fn scene_upload_replies_round_trip() {
        let reply = SceneUploadReply {
            ok: false,
            inserted: InsertedCounts::default(),
            log: vec!["n = 3".into()],
            warnings: vec![],
            errors: vec![SourceMessage { file: "a.vlab".into(), line: 3, col: 7, message: "expected ';'".into() }],
            robots: vec![],
            objects: vec![],
            start: None,
        };
        let json = serde_json::to_value(&reply).unwrap();
        assert_eq!(json["errors"][0]["line"], 3);
        assert_eq!(serde_json::from_value::<SceneUploadReply>(json).unwrap(), reply);
    }

    #[test]
    fn errors_omit_empty_details() {
        let json = serde_json::to_string(&ErrorBody::new(ErrorCode::NotFound, "no lab 'x'")).unwrap();
        assert_eq!(json, r#"{"code":"not_found","message":"no lab 'x'"}"#);
    }
}
