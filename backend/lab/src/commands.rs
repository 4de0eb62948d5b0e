//! The commands the rest of the server sends a lab's thread, each with the channel its
//! answer comes back on.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::oneshot;
use vlab_protocol::{ConsoleLine, ControlAction, LabState, ProgramStatus, RobotReport, RoomChange, RoomView, SyncMode};

use super::LabError;
use super::placement::Misplaced;
use super::programs::AttachRefused;
use vlab_programs::{ProgramCode, RemoteController};
use vlab_sim::robot::{CommandError, KeysError, Owner};
use vlab_sim::scene::{Inserted, Pose, SceneModel};

/// A robot's program (`None`: only a remote controller drove it) and its console's
/// latest lines.
pub type ProgramAndConsole = (Option<Arc<ProgramCode>>, Vec<ConsoleLine>);

/// A lab's world at one step: its model and every body's pose then, read together so
/// that the poses are indexed like the model's bodies.
#[derive(Clone, Debug)]
pub struct WorldNow {
    /// The scene model (every body at the pose it was inserted at).
    pub model: Arc<SceneModel>,
    /// The true pose of every body now, indexed like `model.bodies`.
    pub poses: Vec<Pose>,
    /// The step they were read at.
    pub step: u64,
    /// Seconds of simulation at that step.
    pub time_secs: f64,
}

/// Whether a lab may step now (see [`LabCommand::StepOnlyWhile`]).
pub type StepPermit = Arc<dyn Fn() -> bool + Send + Sync>;

/// A command to a lab's thread.
pub enum LabCommand {
    /// Where a rewind to `step` of the current run would start re-simulating, or why the
    /// lab cannot go back there; changes nothing.
    RewindStart {
        /// The step to go back to.
        step: u64,
        /// Each run's first step still kept in the recording (a run not listed: all
        /// of it): re-simulation cannot start before it.
        kept: Vec<(u32, u64)>,
        /// Where re-simulation would start, or why not.
        reply: oneshot::Sender<Result<super::runner::RewindStart, LabError>>,
    },
    /// Re-simulate the current run up to `step` from where `start` says (a checkpoint,
    /// or the run's start) and the recorded `inputs` (every input and change of the run
    /// from there on, in order), then go on from there in a new run, paused, programs
    /// started afresh.
    Rewind {
        /// The run the inputs are of and the step they start at, as
        /// [`LabCommand::RewindStart`] answered (refused if the lab has moved on).
        start: super::runner::RewindStart,
        /// The step to go back to.
        step: u64,
        /// The run's inputs and changes as recorded (the lab adds those of its open
        /// chunk).
        inputs: Vec<super::recording::Record>,
        /// The last step the kept chunks `inputs` came from reach: the open chunk must
        /// start at or before it, or inputs fell between the two.
        through: u64,
        /// The resulting clock and where re-simulation started, or why not.
        reply: oneshot::Sender<Result<super::runner::Rewound, LabError>>,
    },
    /// The recording's open chunk (what happened since the last one was kept).
    RecordingTail {
        /// Where to send it.
        reply: oneshot::Sender<super::recording::Chunk>,
    },
    /// From now on the lab steps only while `permit` says it may (cluster mode: while
    /// this server holds the lab's lease); once it says no, time stands still for good.
    StepOnlyWhile {
        /// Asked before every batch of steps; cheap.
        permit: StepPermit,
    },
    /// Go on from a checkpoint the database kept (the lab just opened again, its
    /// uploads done again): the clock at its step, its moving bodies where and as fast
    /// as they were, in a new run, every program started afresh.
    GoOnFrom {
        /// The checkpoint; boxed to keep the other commands small.
        checkpoint: Box<super::resume::KeptCheckpoint>,
        /// Where to send the resulting clock.
        reply: oneshot::Sender<LabState>,
    },
    /// Publish the lab as it stands as its last checkpoint now (its server is about to
    /// stop or hand it over), and send it.
    CheckpointNow {
        /// Where to send it.
        reply: oneshot::Sender<std::sync::Arc<super::resume::KeptCheckpoint>>,
    },
    /// How the lab's clock and its programs keep together from now on.
    Sync {
        /// The instructor's choice.
        sync: SyncMode,
    },
    /// Change the clock; the reply carries the state once the command took effect (for
    /// `step N`: once the N steps are done, or when another command interrupts them).
    Control {
        /// What to do.
        action: ControlAction,
        /// Where to send the resulting state.
        reply: oneshot::Sender<LabState>,
    },
    /// Insert more elements between two steps, all or nothing.
    Insert {
        /// The elements, indices counting from 0 (as the scene interpreter made them);
        /// boxed to keep the other commands small.
        addition: Box<SceneModel>,
        /// Who owns the robots it adds (`None`: the lab's own, as the scene has them).
        owner: Option<Owner>,
        /// How many robots the owner may have once it is inserted (`None`: no limit).
        /// Checked on the lab's thread with the insertion, so uploads sent at once
        /// cannot all pass a check made before any of them was inserted.
        quota: Option<usize>,
        /// Programs to start for robots it adds, by robot name.
        programs: BTreeMap<String, Arc<ProgramCode>>,
        /// The free floor its robots asked for around their starts (metres), which later
        /// robots the lab places keep clear of.
        keep_clear: Option<f32>,
        /// What was inserted, or why nothing was.
        reply: oneshot::Sender<Result<Inserted, LabError>>,
    },
    /// Insert objects (bodies of no robot, no devices) between two steps, all or nothing,
    /// each placed over something fixed and clear of the rest.
    InsertObjects {
        /// The objects, as the scene interpreter made them (boxed to keep the other
        /// commands small).
        addition: Box<SceneModel>,
        /// Who owns them (`None`: the lab's own).
        owner: Option<Owner>,
        /// How many objects the owner may have once they are inserted (`None`: no
        /// limit); checked here so requests sent at once cannot all pass.
        quota: Option<usize>,
        /// What was inserted, or why nothing was.
        reply: oneshot::Sender<Result<Inserted, LabError>>,
    },
    /// Replace a robot's program (or give it one) and start it.
    SetProgram {
        /// The robot's name.
        robot: String,
        /// The new program.
        code: Arc<ProgramCode>,
        /// Its status once starting (`None`: no such robot).
        reply: oneshot::Sender<Option<ProgramStatus>>,
    },
    /// Restart or stop a robot's program.
    ProgramAction {
        /// The robot's name.
        robot: String,
        /// What to do.
        action: ProgramAction,
        /// Its status afterwards (`None`: no such robot, or it has no program).
        reply: oneshot::Sender<Option<ProgramStatus>>,
    },
    /// Attach a remote controller to a robot in place of its program.
    AttachRemote {
        /// The robot's name.
        robot: String,
        /// The lab's end of the controller (boxed to keep the other commands small).
        controller: Box<RemoteController>,
        /// Attached (it is greeted and joins like a program), or why not.
        reply: oneshot::Sender<Result<(), AttachRefused>>,
    },
    /// A robot's program and its console's latest lines.
    Program {
        /// The robot's name.
        robot: String,
        /// `None`: no such robot, or it has had no program and no remote controller
        /// (the code is `None` when only a remote controller drove it).
        reply: oneshot::Sender<Option<ProgramAndConsole>>,
    },
    /// Starts the scene's challenge live: the lab reset, then running, every robot
    /// judged (`lab::live_run`).
    StartRun {
        /// Done, or why not (no challenge).
        reply: oneshot::Sender<Result<(), LabError>>,
    },
    /// Ends a live run still on; the lab goes on.
    StopRun {
        /// Done.
        reply: oneshot::Sender<()>,
    },
    /// The lab's scene model as it is now (every body at the pose it was inserted at):
    /// what an attempt's private world is made from.
    Model {
        /// Where to send it.
        reply: oneshot::Sender<Arc<SceneModel>>,
    },
    /// Gather what a new robot's start must keep clear of (the search itself runs on
    /// the caller's side: see [`crate::placement::StartSearch`]).
    StartSearch {
        /// Where to send it.
        reply: oneshot::Sender<crate::placement::StartSearch>,
    },
    /// Report the true pose of every body (not the frame view, which skips changes
    /// too small to draw).
    Poses {
        /// Where to send them, indexed like the scene's bodies.
        reply: oneshot::Sender<Vec<Pose>>,
    },
    /// The world as it stands now, model and poses read together between two steps:
    /// what saving the lab as a scene writes.
    WorldNow {
        /// Where to send it.
        reply: oneshot::Sender<WorldNow>,
    },
    /// Report a robot now (`None`: no such robot).
    Robot {
        /// The robot's name.
        robot: String,
        /// Where to send the report.
        reply: oneshot::Sender<Option<RobotReport>>,
    },
    /// Command a robot's actuators by hand, all or nothing; they act from the next step.
    Actuate {
        /// The robot's name.
        robot: String,
        /// By actuator name, as JSON (`{"speed": 6.0}`, ...).
        commands: BTreeMap<String, Value>,
        /// The robot's report once applied, or why nothing was (`None`: no such robot).
        reply: oneshot::Sender<Option<Result<RobotReport, CommandError>>>,
    },
    /// Set the keys held for a robot's keyboard sensors.
    Keys {
        /// The robot's name.
        robot: String,
        /// Upper-case key names.
        keys: Vec<String>,
        /// Done, or why not (`None`: no such robot).
        reply: oneshot::Sender<Option<Result<(), KeysError>>>,
    },
    /// Take a robot out of the lab (its bodies, joints and devices); the others go on.
    RemoveRobot {
        /// The robot's name.
        robot: String,
        /// Whether there was such a robot.
        reply: oneshot::Sender<bool>,
    },
    /// Take an object (a body of no robot) out of the lab; the rest goes on.
    RemoveObject {
        /// The object's name.
        name: String,
        /// Whether there was such an object.
        reply: oneshot::Sender<bool>,
    },
    /// Put a robot back where and as it started (its counts and commands too).
    ResetRobot {
        /// The robot's name.
        robot: String,
        /// Whether there was such a robot, or why it may not go back to its start now.
        reply: oneshot::Sender<Result<bool, Misplaced>>,
    },
    /// Move the start a robot is put back at (by its reset or the lab's).
    SetStart {
        /// The robot's name.
        robot: String,
        /// Where its main body starts, metres.
        position: [f32; 3],
        /// Its heading there (radians, counter-clockwise from above); `None` keeps the start's.
        heading: Option<f32>,
        /// Whether there was such a robot, or why it may not start there.
        reply: oneshot::Sender<Result<bool, Misplaced>>,
    },
    /// Move an object (a body by name, or a whole robot) to a place, at rest.
    Move {
        /// A body's or a robot's name.
        name: String,
        /// Where its (main) body goes, metres.
        position: [f32; 3],
        /// Its new heading (radians, counter-clockwise from above); `None` keeps it.
        heading: Option<f32>,
        /// Whether there was such an object, or why it may not go there.
        reply: oneshot::Sender<Result<bool, Misplaced>>,
    },
    /// Change the room (sizes, materials, gravity) between two steps, all or nothing.
    ChangeRoom {
        /// The fields to change (boxed: the other commands are smaller).
        change: Box<RoomChange>,
        /// Whether to check that every moving body stays inside (a change kept from
        /// before a restart was checked when it was made, and is done again as it was).
        checked: bool,
        /// The room now, or why it stays as it was.
        reply: oneshot::Sender<Result<RoomView, LabError>>,
    },
    /// Stop the thread.
    Shutdown,
}

/// What the owner or the instructor asks of a robot's program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgramAction {
    /// Start it again from its beginning (the robot stays where it is).
    Restart,
    /// Stop it; the robot keeps its last commands' targets at rest.
    Stop,
}
