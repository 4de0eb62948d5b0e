//! The lab thread's state in four parts: what it simulates, its clock, what it
//! publishes and what it keeps of its past.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::{oneshot, watch};
use vlab_protocol::{LabMode, LabState, Rate, SyncMode};

use super::RunStart;
use crate::checkpoints::Checkpoints;
use crate::frames::FrameBuilder;
use crate::handle::LabStatus;
use crate::hub::Hub;
use crate::pacer::Pacer;
use crate::programs::Programs;
use crate::recording::Recorder;
use crate::telemetry::Telemetry;
use vlab_sim::robot::Robots;
use vlab_sim::scene::SceneModel;
use vlab_sim::sim::World;

/// What the lab simulates: the scene, the world built from it, the robots in it and
/// their programs.
pub(super) struct Simulation {
    /// The scene, as inserted so far.
    pub(super) model: SceneModel,
    /// Its world; only this thread touches it.
    pub(super) world: World,
    /// Its robots' devices.
    pub(super) robots: Robots,
    /// Its robots' programs and remote controllers.
    pub(super) programs: Programs,
    /// The seed of sensor noise (and of the scene's `random`).
    pub(super) seed: u64,
    /// The free floor robots placed by the lab asked for around their starts, by robot:
    /// later robots the lab places keep out of it.
    pub(super) kept_clear: BTreeMap<String, f32>,
}

/// The lab's clock: how time moves, where it stands, and whether the lab is parked.
pub(super) struct Clock {
    pub(super) mode: LabMode,
    pub(super) rate: Rate,
    /// The instructor's choice; applies while running at a rate.
    pub(super) sync: SyncMode,
    pub(super) step: u64,
    /// Counts scene changes: each new snapshot starts an epoch.
    pub(super) epoch: u32,
    /// Wall time to steps, at the rate.
    pub(super) pacer: Pacer,
    /// The reply owed for a `step N` in progress, and the step it stops at.
    pub(super) stepping: Option<(u64, Option<oneshot::Sender<LabState>>)>,
    /// Parked since this step: running, but nobody watches, nothing runs and every
    /// body sleeps, so the clock moves on without stepping (see `Runner::park`).
    pub(super) parked: Option<u64>,
    /// Whether the lab may park when idle ([`super::PARKING_SWITCH`]).
    pub(super) may_park: bool,
    /// Asked before each batch of steps (`None`: always).
    pub(super) permit: Option<crate::commands::StepPermit>,
}

impl Clock {
    /// Whether the lab may step now.
    pub(super) fn permitted(&self) -> bool {
        self.permit.as_ref().is_none_or(|permit| permit())
    }

    /// How the lab keeps together with its programs now, and the wall time a simulated
    /// second lasts: the instructor's choice while running at a rate; lockstep when
    /// stepping or at `max`, where there is no pace to keep.
    pub(super) fn sync_now(&self) -> (SyncMode, f64) {
        match (self.mode, self.rate) {
            (LabMode::Running, Rate::RealTime(factor)) => (self.sync, 1.0 / factor),
            _ => (SyncMode::Lockstep, 1.0),
        }
    }

    /// The simulated time at the current step.
    pub(super) fn time(&self, dt_secs: f64) -> f64 {
        self.step as f64 * dt_secs
    }

    /// The clock as the lab publishes it.
    pub(super) fn state(&self, dt_secs: f64) -> LabState {
        LabState {
            mode: self.mode,
            rate: self.rate,
            step: self.step,
            time: self.time(dt_secs),
            dt_secs,
            epoch: self.epoch,
        }
    }
}

/// What the lab publishes for others to read, and when it last did.
pub(super) struct Outputs {
    /// Which bodies moved since the last frame.
    pub(super) frames: FrameBuilder,
    /// Frames, scenes and events for viewers.
    pub(super) hub: Arc<Hub>,
    /// The clock and counts, for anybody to read.
    pub(super) status: watch::Sender<LabStatus>,
    /// Robot reports for the clients watching them.
    pub(super) telemetry: Arc<Telemetry>,
    pub(super) last_telemetry_at: Instant,
    pub(super) last_frame_at: Instant,
    pub(super) last_frame_step: u64,
}

/// What the lab keeps of its past: the recording, where the current run started, and
/// checkpoints to rewind from.
pub(super) struct History {
    /// What happens, written down.
    pub(super) recorder: Recorder,
    /// Where the current run started, to re-simulate it.
    pub(super) run: RunStart,
    /// Copies of the lab taken as it steps, for rewinds to start from.
    pub(super) checkpoints: Checkpoints,
}
