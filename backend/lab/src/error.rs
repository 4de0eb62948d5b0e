//! Why a lab could not do what was asked: one flat enum for every request.

use vlab_sim::robot::{CommandError, KeysError};
use vlab_sim::scene::SceneError;

/// Why a lab could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    /// The lab's thread has stopped (closed lab, or a crash that was logged).
    #[error("lab '{0}' is not running")]
    Unavailable(String),
    /// The scene could not be built.
    #[error("the scene of lab '{lab}' is invalid: {source}")]
    Scene {
        /// The lab.
        lab: String,
        /// What is wrong with it.
        source: SceneError,
    },
    /// The OS refused to start the lab's thread.
    #[error("could not start the thread of lab '{lab}': {source}")]
    Thread {
        /// The lab.
        lab: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The lab has no robot of that name.
    #[error("no robot '{robot}' in lab '{lab}'")]
    NoRobot {
        /// The lab.
        lab: String,
        /// The name asked for.
        robot: String,
    },
    /// The robot runs no program.
    #[error("robot '{robot}' has no program: upload one first")]
    NoProgram {
        /// The robot.
        robot: String,
    },
    /// Nothing movable has that name (a robot, or a body that is not static).
    #[error("no movable object '{name}' in lab '{lab}' (a robot, or a body that is not static)")]
    NoObject {
        /// The lab.
        lab: String,
        /// The name asked for.
        name: String,
    },
    /// The insertion would take its owner past their robot quota; the lab is unchanged.
    #[error("you may have {quota} robot(s) in this lab; you have {have} and this adds {adding}: remove one first")]
    OverQuota {
        /// Robots the owner may have.
        quota: usize,
        /// Robots they have.
        have: usize,
        /// Robots the insertion adds.
        adding: usize,
    },
    /// The insertion would take its owner past the objects a student may have; the lab
    /// is unchanged.
    #[error(
        "a student may have {quota} object(s) in this lab; you have {have} and this adds {adding}: remove one first"
    )]
    OverObjectQuota {
        /// Objects the owner may have.
        quota: usize,
        /// Objects they have.
        have: usize,
        /// Objects the insertion adds.
        adding: usize,
    },
    /// The insertion would take the lab past what it holds; the lab is unchanged.
    #[error(transparent)]
    OverCapacity(#[from] crate::capacity::OverCapacity),
    /// A robot inserted, a body moved or a robot put back would stand over nothing fixed
    /// or sink into another body; the lab is unchanged.
    #[error(transparent)]
    Misplaced(#[from] crate::placement::Misplaced),
    /// The insertion was refused; the lab is unchanged.
    #[error(transparent)]
    Refused(SceneError),
    /// Actuator commands were refused; none was applied.
    #[error(transparent)]
    Command(#[from] CommandError),
    /// Keys were refused.
    #[error(transparent)]
    Keys(#[from] KeysError),
    /// A remote controller may not attach while the robot's program runs.
    #[error(
        "robot '{robot}' is driven by its uploaded program: stop the program first (its Stop button, or POST \
         .../robots/{robot}/program/stop), then attach"
    )]
    ProgramRunning {
        /// The robot.
        robot: String,
    },
    /// Another remote controller drives the robot: one at a time.
    #[error("robot '{robot}' already has a remote controller attached: one at a time (stop the other one first)")]
    ControllerAttached {
        /// The robot.
        robot: String,
    },
    /// The robot's last remote controllers were let go of for faults, one after the
    /// other: the next may attach only after a wait that doubles with each
    /// (`lab::waits`).
    #[error(
        "robot '{robot}' lost its last {faults} remote controllers to faults in a row (disconnected, too slow, \
         flooding): attach again in {retry_after_secs} s, and look at its console for why"
    )]
    AttachTooSoon {
        /// The robot.
        robot: String,
        /// Faults in a row.
        faults: u32,
        /// Seconds before another controller may attach (rounded up).
        retry_after_secs: u64,
    },
    /// The lab cannot be rewound to that step; it is unchanged.
    #[error("cannot rewind: {0}")]
    Rewind(String),
    /// A change of the room names a value outside the language's limits (or the lab has
    /// no room); the lab is unchanged.
    #[error(transparent)]
    Room(#[from] vlab_sim::scene::RoomError),
    /// The lab's scene sets no challenge to run.
    #[error("this lab has no challenge: its scene sets none (docs/challenges.md)")]
    NoChallenge,
}
