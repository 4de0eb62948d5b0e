//! Attempts at a lab's challenge over HTTP: how a student starts one and what the
//! server answers about it (docs/challenges.md, "Attempts").

use serde::{Deserialize, Serialize};

use crate::ConsoleLine;

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
