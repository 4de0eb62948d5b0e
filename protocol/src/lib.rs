//! Wire types shared by the VLab server, the browser app and test clients: the contract.
//!
//! `vlab-protocol` knows nothing of rapier, axum or leptos, and builds for wasm32: it
//! only describes what crosses the websocket and the HTTP API. Application types
//! (physics handles, lab internals, UI state) convert to and from these at the
//! boundary of each side.
//!
//! One websocket per browser tab carries two kinds of message:
//! - **text** messages: JSON, [`ServerMsg`] from the server and [`ClientMsg`] from the
//!   client (control, events, scene snapshots);
//! - **binary** messages: [`Frame`]s, the poses of the bodies that moved, encoded with
//!   [`Frame::encode`] (compact, quantized) because they are sent tens of times a second.
//!
//! The handshake is the websocket URL itself: `/ws/labs/{lab}?protocol=N&token=T`.
//! A server that speaks another [`PROTOCOL_VERSION`] answers with
//! [`ServerMsg::Error`] (code [`ErrorCode::ProtocolMismatch`]) and closes.

mod attempts;
mod belief;
mod camera_view;
mod classroom;
mod control;
mod course;
mod decode;
mod frame;
mod limits;
mod links;
mod messages;
mod objects;
mod pacing;
pub mod permissions;
pub mod pose;
pub mod program_protocol;
mod programs;
mod recording;
pub mod robot_abi;
mod robots;
mod room;
mod scene;
mod sightings;
mod sorted;
mod triangles;

pub use attempts::{
    AttemptProgress, AttemptReplay, AttemptReport, AttemptRequest, BoardAttempt, BoardRow, BoardVisibility,
    ChallengeBoard, LiveRobot, LiveRun, REPLAY_FRAME_STEPS, ReplayEvent, ReplayFrame, RunRequest, ZoneShapeView,
    ZoneView, better_score,
};
pub use belief::{Belief, Drawing, Estimate, MAX_DRAWN_TEXT_CHARS, MAX_DRAWN_TEXTS, MAX_DRAWN_VERTICES, drawing_color};
pub use camera_view::{CameraView, CameraViewError};
pub use classroom::{
    BroadcastRequest, CreateLabRequest, CreatedLab, JoinCode, JoinRequest, Joined, LabSettings, LabSettingsPatch,
    Participant, SyncMode, UserId, clean_display_name, clean_notice, visible_text,
};
pub use control::{ControlAction, LabMode, LabState, Rate, RateError, Role};
pub use course::{
    AddStudentRequest, Assignment, AssignmentRequest, ChallengeProgress, ClassOverview, ClassView, CreateClassRequest,
    CreatedClass, EvaluateRequest, Evaluation, EvaluationStatus, GradeCell, GradeRow, GradeStatus, Gradebook,
    LabOverview, MAX_CLASS_STUDENTS, MAX_PIN_DIGITS, MAX_TRIALS, MIN_PIN_DIGITS, RenameStudentRequest, RobotOverview,
    SignInRequest, SignedIn, Student, StudentCredentials, StudentId, Submission, SubmitRobotRequest, TEACHER_ID, Trial,
    valid_pin,
};
pub use decode::from_json_value;
pub use frame::{BodyPose, Frame, FrameDecodeError, FrameDecoder, MAX_GRID_METRES, POSITION_RESOLUTION_M};
pub use limits::*;
pub use links::{JointLink, JointLinkKind, LinkTable, LinkTableError};
pub use messages::{
    ChosenStart, ClientMsg, ErrorBody, ErrorCode, InsertedCounts, LabSummary, SceneUploadReply, ServerMsg,
    SourceMessage,
};
pub use objects::{AddObjectRequest, PALETTE, PaletteEntry, PaletteItem, check_object_name};
pub use pacing::DrawnFrames;
pub use permissions::INSTRUCTOR_ID;
pub use programs::{ConsoleLine, ConsoleSource, ExampleRobot, Language, ProgramSource};
pub use programs::{
    MAX_SUFFIX_CHARS, PLACEHOLDERS, fill_start, fill_suffix, first_placeholder, leaves_start_to_lab, suffix_from_name,
};
pub use recording::{
    MAX_SEEK_ROBOTS, RecordedMoment, RecordedTrail, RecordingSummary, RunSummary, TrailPoint, export_file_name,
};
pub use robots::{
    ActuatorCommand, ActuatorCommands, ActuatorReport, JointReading, Lateness, NewStart, ProgramState, ProgramStatus,
    RobotPose, RobotReport, SensorReport, SensorValue,
};
pub use room::{RoomChange, RoomView};
pub use scene::{BodyId, BodyView, Material, MeshView, PartView, Pose, SceneSnapshot, Shape};
pub use sightings::{Landmark, RadioMessage};
pub use triangles::{
    IDENTITY, Matrix, TRIANGLES_FORMAT, TriangleMesh, TrianglesError, count_meshes, decode_triangles, encode_triangles,
};

/// The version of this protocol. Bumped on any incompatible change of a message or
/// of the frame encoding; checked when a websocket connects.
pub const PROTOCOL_VERSION: u32 = 3;

/// Query parameter of the websocket URL that carries the client's [`PROTOCOL_VERSION`].
pub const PROTOCOL_QUERY_PARAM: &str = "protocol";

/// Websocket close code sent with a protocol mismatch (private-use range 4000–4999).
pub const CLOSE_PROTOCOL_MISMATCH: u16 = 4001;
/// Websocket close code sent when the lab does not exist (or was closed).
pub const CLOSE_LAB_NOT_FOUND: u16 = 4004;
