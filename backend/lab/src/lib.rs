//! Labs: one shared session each, its world on its own thread with its clock, its
//! programs, its viewers' hub, its recording and telemetry; and the tokens of who takes
//! part.
//!
//! A lab's world lives on the lab's thread and nowhere else: the rest of the server
//! talks to it through [`LabHandle`] (commands over a channel, each answered on its own
//! oneshot), reads its published status, and joins its [`hub::Hub`] to receive frames.
//! This crate knows nothing of HTTP, of the store or of the classroom's rules. [`secret`]
//! mints the tokens of who takes part and keeps only their digests.

pub mod attempt;
mod beliefs;
pub mod camera_feed;
pub mod capacity;
mod changes;
pub mod checkpoints;
mod commands;
pub mod cpu_meter;
mod error;
pub mod frames;
pub mod handle;
pub mod hub;
pub mod live_run;
mod pacer;
pub mod participants;
pub mod placement;
pub mod programs;
pub mod radio;
pub mod recording;
mod registry;
pub mod relay;
mod resimulate;
pub mod resume;
mod runner;
pub mod secret;
pub mod telemetry;
pub mod waits;
pub mod wire;

pub use commands::{LabCommand, ProgramAction, StepPermit, WorldNow};
pub use error::LabError;
pub use handle::{LabConfig, LabHandle, LabStatus};
pub use hub::Subscription;
pub use participants::{Caller, JoinError};
pub use programs::ConsoleEvent;
pub use registry::{InsertWatcher, Labs};
pub use runner::{RewindStart, Rewound};

pub use vlab_sim::robot::Owner;
