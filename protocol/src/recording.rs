//! What a lab has recorded, and one recorded moment as a viewer scrubbing the timeline
//! receives it.
//!
//! A lab records one **run** at a time: a run begins when the lab opens (also after a
//! server restart) and at every reset, and its steps count from 0. The timeline of the
//! page covers the current run; exports name the run they cover.

use serde::{Deserialize, Serialize};

use crate::{BodyPose, Estimate, RobotReport, SceneSnapshot};

/// What a lab holds of its recording: sent on join and whenever its bounds change,
/// and answered by `GET /api/labs/{lab}/recording`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RecordingSummary {
    /// The run being recorded now.
    pub run: u32,
    /// The first step of the current run still kept (`None`: nothing recorded yet).
    pub first_step: Option<u64>,
    /// The last step of the current run kept so far.
    pub last_step: Option<u64>,
    /// Whether the oldest part of the current run was dropped to stay within the
    /// budget (the timeline then starts after step 0).
    pub dropped: bool,
    /// Bytes the whole recording of the lab takes in the store (every run kept).
    pub bytes: u64,
    /// The most it may take; the oldest is dropped beyond it.
    pub budget_bytes: u64,
    /// Every run still (partly) kept, oldest first.
    pub runs: Vec<RunSummary>,
}

/// One run's kept span.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// The run.
    pub run: u32,
    /// Its first kept step.
    pub first_step: u64,
    /// Its last kept step.
    pub last_step: u64,
    /// Simulation time of the first kept step, seconds.
    pub first_time: f64,
    /// Simulation time of the last kept step, seconds.
    pub last_time: f64,
}

/// The lab as it was at one recorded step of the current run: the answer to
/// [`crate::ClientMsg::Seek`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedMoment {
    /// The run.
    pub run: u32,
    /// The step shown: the last recorded frame at or before the step asked for.
    pub step: u64,
    /// Simulation time of that step, seconds.
    pub time: f64,
    /// The step asked for.
    pub asked: u64,
    /// The scene then, when it differs from the one the client said it has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<SceneSnapshot>,
    /// The epoch of the scene then (see [`SceneSnapshot::epoch`]); the poses' ids refer
    /// to it.
    pub epoch: u32,
    /// Every moving body's pose then.
    pub poses: Vec<BodyPose>,
    /// The robots asked about as they were then: true pose and every sensor's latest
    /// reading up to that step (actuators, keys and program are not recorded and are
    /// left empty).
    pub robots: Vec<RobotReport>,
    /// Where the robots asked about went from the start of the run up to that step.
    pub trails: Vec<RecordedTrail>,
}

/// One robot's path over a run, sampled about ten times a second of simulation time.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RecordedTrail {
    /// The robot.
    pub robot: String,
    /// Its main body's true position, world frame, with the step of each sample.
    pub truth: Vec<TrailPoint>,
    /// Its odometry's pose (from its first odometry sensor), where it has one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub odometry: Vec<TrailPoint>,
    /// Its program's published estimate, to those who may see it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub estimate: Vec<TrailPoint>,
}

/// A sample of a trail: on the ground plane as the odometry reads it (`x` along world
/// X, `y` along world −Z, `theta` the heading).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrailPoint {
    /// The step sampled.
    pub step: u64,
    /// Metres.
    pub x: f64,
    /// Metres.
    pub y: f64,
    /// Radians.
    pub theta: f64,
}

impl TrailPoint {
    /// The sample of an estimate at `step`.
    pub fn of_estimate(step: u64, estimate: &Estimate) -> TrailPoint {
        TrailPoint { step, x: estimate.x, y: estimate.y, theta: estimate.theta }
    }
}

/// Most robots one [`crate::ClientMsg::Seek`] may ask about.
pub const MAX_SEEK_ROBOTS: usize = 8;

/// The name an export is saved under, by the page and in the server's
/// `Content-Disposition` alike: `<lab>[-<robot>]-<what>-run<run>[-to-step<to>].<extension>`
/// (`demo-rover_red-readings-run2.csv`, `demo-recording-run2-to-step4800.mcap`), `what`
/// being `readings` for a robot's CSV and `recording` otherwise. Anything but letters,
/// digits, `-` and `_` in a name becomes `_`: a robot's name must not make a path.
pub fn export_file_name(lab: &str, robot: Option<&str>, csv: bool, run: u32, to: Option<u64>) -> String {
    let safe = |text: &str| -> String {
        text.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
    };
    let mut name = safe(lab);
    if let Some(robot) = robot {
        name.push('-');
        name.push_str(&safe(robot));
    }
    let what = if csv && robot.is_some() { "readings" } else { "recording" };
    name.push_str(&format!("-{what}-run{run}"));
    if let Some(to) = to {
        name.push_str(&format!("-to-step{to}"));
    }
    name.push_str(if csv { ".csv" } else { ".mcap" });
    name
}
