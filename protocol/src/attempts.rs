//! Attempts at a lab's challenge over HTTP: how a student starts one and what the
//! server answers about it (docs/challenges.md, "Attempts").

use serde::{Deserialize, Serialize};

use crate::{ConsoleLine, UserId};

/// `POST /api/labs/{lab}/robots/{robot}/attempts`: an attempt of the robot with its
/// current program.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttemptRequest {
    /// The trial's seed (what `random` in the challenge draws from, and the noise of the
    /// sensors); a fresh one when not given.
    #[serde(default)]
    pub seed: Option<u64>,
}

/// Where an attempt is, or how it ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttemptProgress {
    /// Waiting for its turn.
    Queued,
    /// Running, in a private copy of the lab.
    Running,
    /// The challenge's success happened.
    Solved,
    /// The challenge's failure happened.
    Failed,
    /// The time limit came first.
    TimedOut,
    /// The robot's program stopped (its error is the reason).
    ProgramError,
    /// The server could not run it (the reason says why).
    Error,
}

/// `GET /api/labs/{lab}/attempts/{id}` (and the answer to starting one).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AttemptReport {
    /// Its number.
    pub id: u64,
    /// The robot tried.
    pub robot: String,
    /// The challenge's title.
    pub challenge: String,
    /// The trial's seed.
    pub seed: u64,
    /// Where it is, or how it ended.
    pub status: AttemptProgress,
    /// Attempts that run before it, while queued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ahead: Option<usize>,
    /// Why it failed, or the program's error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Its score by the challenge's rule, once over (none where the rule gives none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// Seconds of simulation it took, once over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sim_secs: Option<f64>,
    /// The robot's console, once over.
    #[serde(default)]
    pub console: Vec<ConsoleLine>,
}

/// A challenge's zone as pages draw it: a see-through volume, never solid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ZoneView {
    /// Its name in the challenge.
    pub name: String,
    /// Its volume, centred on `pose`.
    pub shape: ZoneShapeView,
    /// Where its centre is and how it is turned.
    pub pose: crate::Pose,
    /// Its colour, sRGB (pages draw it see-through).
    pub color: [u8; 3],
}

/// The volume of a [`ZoneView`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ZoneShapeView {
    /// A box: half its width, height and length, metres.
    Box {
        /// Half extents along the zone's X, Y, Z.
        half_extents: [f32; 3],
    },
    /// An upright cylinder.
    Cylinder {
        /// Metres.
        radius: f32,
        /// Half its height, metres.
        half_height: f32,
    },
}

/// Who sees which rows of a lab's challenge board besides the instructor, who sees all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BoardVisibility {
    /// A student sees only her own row.
    #[default]
    OwnRow,
    /// Everybody sees every row, with names.
    Names,
}

/// `GET /api/labs/{lab}/challenge`: the lab's challenge and its board.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChallengeBoard {
    /// The challenge's title.
    pub title: String,
    /// Simulation seconds an attempt may last.
    pub time_limit_secs: f64,
    /// How attempts are scored, in words: `time (lower is better)`, `distance to bay
    /// (lower is better)`, `percent of 3 goals`, `points (of 60)`.
    pub score: String,
    /// Whether a lower score is better (time, distance).
    pub lower_is_better: bool,
    /// The zones, as pages draw them.
    pub zones: Vec<ZoneView>,
    /// The named sub-goals (what `percent` counts).
    #[serde(default)]
    pub goals: Vec<String>,
    /// Who sees which rows (the lab's setting).
    pub visibility: BoardVisibility,
    /// One row per participant who tried, best first (solved before not, then by
    /// score), as the caller may see them.
    pub rows: Vec<BoardRow>,
    /// The live run in the shared lab, while there is one and since it ended (until
    /// the next).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<LiveRun>,
}

/// One participant's attempts at the challenge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoardRow {
    /// The participant's name.
    pub name: String,
    /// The participant.
    pub user: UserId,
    /// Whether this row is the caller's own.
    pub you: bool,
    /// Attempts finished (queued and running ones not counted).
    pub attempts: u32,
    /// Whether an attempt solved it.
    pub solved: bool,
    /// The best attempt: solved first, then by score.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best: Option<BoardAttempt>,
    /// The latest attempt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last: Option<BoardAttempt>,
}

/// An attempt as the board shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoardAttempt {
    /// Its number (`GET /api/labs/{lab}/attempts/{id}`).
    pub id: u64,
    /// The robot tried.
    pub robot: String,
    /// How it ended.
    pub status: AttemptProgress,
    /// Its score, where the rule gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// Simulation seconds it took.
    pub sim_secs: f64,
    /// The trial's seed.
    pub seed: u64,
}

/// `POST /api/labs/{lab}/challenge/run` (instructor): starts or stops the challenge live
/// in the shared lab.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum RunRequest {
    /// The lab reset (every robot to its start, the clock from zero), then running,
    /// every robot judged.
    Start,
    /// Ends the run now (the lab goes on).
    Stop,
}

/// The challenge live in the shared lab: every robot judged as the lab runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LiveRun {
    /// Simulation seconds since the run started (its clock: the lab's, from its reset).
    pub time_secs: f64,
    /// Whether it is over, and why: `time is up`, `every robot finished`, `stopped by
    /// the instructor`, `the lab was reset`, `the scene changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub over: Option<String>,
    /// Each robot's run, best first.
    pub robots: Vec<LiveRobot>,
}

/// One robot in a live run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LiveRobot {
    /// The robot.
    pub robot: String,
    /// Its owner's name (the lab's own robots: the instructor's).
    pub name: String,
    /// Running, or how it ended.
    pub status: AttemptProgress,
    /// Why it failed, where it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Its score, where the rule gives one (time: once solved).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// Run seconds when it finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_secs: Option<f64>,
}

/// `GET /api/labs/{lab}/attempts/{id}/replay`: an attempt as recorded, for the page to
/// play back (its MCAP is `.../attempts/{id}/recording.mcap`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AttemptReplay {
    /// The attempt.
    pub attempt: AttemptReport,
    /// The attempt's world as it started (without other robots; no joint links: every
    /// moving body has its pose in every frame).
    pub snapshot: crate::SceneSnapshot,
    /// The challenge's zones as the trial's seed drew them.
    pub zones: Vec<ZoneView>,
    /// The bodies that move, by index into the snapshot's bodies: each frame's poses
    /// are theirs, in this order.
    pub moving: Vec<u32>,
    /// The recorded moments, oldest first (every [`REPLAY_FRAME_STEPS`] physics steps,
    /// and the last step).
    pub frames: Vec<ReplayFrame>,
    /// What happened, as it happened (zones entered and left, what it touched, goals
    /// reached, how it ended).
    pub events: Vec<ReplayEvent>,
}

/// Physics steps between two recorded moments of an attempt (at 240 Hz, 30 a second).
pub const REPLAY_FRAME_STEPS: u64 = 8;

/// One recorded moment of an attempt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayFrame {
    /// Simulation seconds since the attempt started.
    pub time: f64,
    /// The poses of [`AttemptReplay::moving`], in its order.
    pub poses: Vec<crate::Pose>,
}

/// Something that happened in an attempt, and when.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayEvent {
    /// Simulation seconds since the attempt started.
    pub time: f64,
    /// What happened, in words: `entered bay`, `touched walls`, `goal 'gate' reached`.
    pub text: String,
}

/// Which of two scores is better by a challenge's rule (lower or higher is better); a
/// score before none.
pub fn better_score(a: Option<f64>, b: Option<f64>, lower_is_better: bool) -> std::cmp::Ordering {
    match (a, b) {
        (Some(x), Some(y)) if lower_is_better => x.total_cmp(&y),
        (Some(x), Some(y)) => y.total_cmp(&x),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    }
}
