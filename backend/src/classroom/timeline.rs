//! The timeline: a viewer seeking a recorded step of the current run, and what the
//! lab has recorded. Who sees what is the live lab's rule: poses and readings to every
//! viewer, a program's estimate to those who may see its belief.

use std::sync::Arc;

use vlab_protocol::permissions::Action;
use vlab_protocol::{
    ControlAction, LabMode, MAX_SEEK_ROBOTS, RecordedMoment, RecordedTrail, RecordingSummary, SceneSnapshot,
};

use super::access::authorize;
use super::recording::{SEEK_TURN_PATIENCE, chunk_holding};
use super::{Classroom, ClassroomError, Recordings};
use vlab_lab::recording::{Chunk, moment};
use vlab_lab::{Caller, LabHandle, RewindStart, Rewound};

/// The timeline of the classroom's labs: the summary, seeks and rewinds.
#[derive(Clone, Copy)]
pub struct ClassroomTimeline<'a> {
    pub(super) classroom: &'a Classroom,
}

/// What a viewer asks when seeking.
#[derive(Clone, Debug, Default)]
pub struct Seek {
    /// The run (`None`: the current one).
    pub run: Option<u32>,
    /// The step wanted.
    pub step: u64,
    /// The epoch of the scene the viewer holds.
    pub epoch: Option<u32>,
    /// Robots whose readings and trails to include.
    pub robots: Vec<String>,
}

impl ClassroomTimeline<'_> {
    /// What lab `lab` has recorded.
    pub fn summary(self, lab: &LabHandle) -> Result<RecordingSummary, ClassroomError> {
        let recordings = self.classroom.recordings.as_ref().ok_or_else(not_recording)?;
        Ok(recordings.summary(lab.id()))
    }

    /// Lab `lab` as it was at a recorded step of one of its runs (the current one unless
    /// another is asked for), as `caller` may see it, with the trails of the last
    /// [`SEEK_TRAIL_WINDOW_SECS`] before it.
    ///
    /// Each seek waits for one of the server's turns ([`MAX_SEEKS_IN_FLIGHT`]), at most
    /// [`SEEK_TURN_PATIENCE`] (else `Busy`), and is answered on a blocking thread: a
    /// crowd of pages scrubbing costs the server at most that many answers at once,
    /// and never its async threads.
    ///
    /// [`MAX_SEEKS_IN_FLIGHT`]: super::recording::MAX_SEEKS_IN_FLIGHT
    /// [`SEEK_TURN_PATIENCE`]: super::recording::SEEK_TURN_PATIENCE
    pub async fn seek(
        self,
        lab: &Arc<LabHandle>,
        caller: Caller,
        seek: Seek,
    ) -> Result<RecordedMoment, ClassroomError> {
        let recordings = self.classroom.recordings.as_ref().ok_or_else(not_recording)?;
        if seek.robots.len() > MAX_SEEK_ROBOTS {
            return Err(ClassroomError::Invalid(format!(
                "a seek may ask about {MAX_SEEK_ROBOTS} robots at most, not {}",
                seek.robots.len()
            )));
        }
        // The turn covers all the seek costs, the lab's open chunk included.
        let turn = recordings.seeks().take(SEEK_TURN_PATIENCE).await.ok_or_else(seeks_busy)?;
        let summary = recordings.summary(lab.id());
        let live = seek.run.is_none_or(|run| run == summary.run);
        // The lab's thread is asked for its open chunk only for the last seconds, not
        // kept yet: a page scrubbing the past costs the lab nothing.
        let tail = if live && summary.last_step.is_none_or(|last| seek.step > last) {
            Some(lab.recording().tail().await?)
        } else {
            None
        };
        let (recordings, lab) = (recordings.clone(), Arc::clone(lab));
        let answer = tokio::task::spawn_blocking(move || {
            let _turn = turn;
            moment_of(&recordings, &lab, caller, &seek, summary.run, tail)
        });
        answer.await.map_err(|e| ClassroomError::Internal(format!("a seek's answer failed: {e}")))?
    }

    /// Rewinds lab `lab` to `step` of its current run: checked first (a rewind the lab
    /// would refuse is refused before anything changes), then paused, the run
    /// re-simulated from its nearest checkpoint at or before the step (or its start)
    /// with what the recording kept of its inputs, and on from there in a new run (the
    /// old one stays in the recording). Instructor only.
    pub async fn rewind(self, lab: &Arc<LabHandle>, caller: Caller, step: u64) -> Result<Rewound, ClassroomError> {
        authorize(caller, Action::ControlTime)?;
        let recordings = self.classroom.recordings.as_ref().ok_or_else(not_recording)?;
        let kept = recordings.summary(lab.id()).runs.iter().map(|r| (r.run, r.first_step)).collect();
        let start = lab.recording().rewind_start(step, kept).await?;
        let running = lab.clock().state().mode == LabMode::Running;
        self.classroom.clock().control(lab, caller, ControlAction::Pause).await?;
        // Re-simulating takes a while: everybody's page says why the lab stands still.
        lab.viewers().notice(
            "Lab",
            &format!(
                "The instructor is taking the lab back to step {step}: it is paused while the {} steps \
                 since step {} are played again, and stays paused there.",
                step.saturating_sub(start.from),
                start.from
            ),
        );
        let rewound = self.rewind_paused(recordings, lab, start, step).await;
        if rewound.is_err() && running {
            // Refused after all (the lab moved on meanwhile): it goes on as it was.
            self.classroom.clock().control(lab, caller, ControlAction::Resume).await?;
        }
        rewound
    }

    /// The paused lab `lab` rewound to `step` from `start`, with the inputs its kept
    /// recording holds from there on.
    async fn rewind_paused(
        self,
        recordings: &super::Recordings,
        lab: &LabHandle,
        start: RewindStart,
        step: u64,
    ) -> Result<Rewound, ClassroomError> {
        // Every chunk the lab closed is kept before the run is read back.
        recordings.settled().await;
        let rows = recordings.read(|store| store.chunks(lab.id(), start.run, start.from, step))?;
        let gap = |from: u64| {
            ClassroomError::Conflict(format!(
                "cannot rewind: the recording of this run lacks the steps from {from} \
                 (dropped to stay within the lab's recording budget): reset the lab instead"
            ))
        };
        let (mut inputs, mut through) = (Vec::new(), start.from);
        for (row, bytes) in rows {
            if row.first_step > through {
                return Err(gap(through));
            }
            let chunk = Chunk::decode(&bytes)
                .map_err(|e| ClassroomError::Internal(format!("the recording of this run does not read: {e}")))?;
            inputs.extend(chunk.records.into_iter().filter(|r| r.input_step().is_some_and(|at| at >= start.from)));
            through = through.max(row.last_step);
        }
        Ok(lab.recording().rewind(start, step, (inputs, through)).await?)
    }
}

/// Simulation time before the step sought whose trails an answer carries. Trails are
/// sampled every 0.1 s, so a robot's trail holds at most 601 points of each kind (true
/// pose, odometry, estimate): an answer's size no longer grows with the run (from the
/// run's start, 24 minutes of the demo lab made answers of 7 MB).
pub const SEEK_TRAIL_WINDOW_SECS: f64 = 60.0;

/// The moment a seek asks for, read from the store (or the lab's open chunk, `tail`),
/// on a blocking thread.
fn moment_of(
    recordings: &Recordings,
    lab: &LabHandle,
    caller: Caller,
    seek: &Seek,
    current_run: u32,
    tail: Option<Chunk>,
) -> Result<RecordedMoment, ClassroomError> {
    let (chunk, step) = match &tail {
        Some(tail) => {
            let step = seek.step.min(tail.last_step);
            (chunk_holding(recordings, lab.id(), tail, step)?, step)
        }
        None => {
            let run = seek.run.unwrap_or(current_run);
            let found = recordings.read(|store| store.chunk_at(lab.id(), run, seek.step))?;
            let chunk = found.map(|(_, bytes)| Chunk::decode(&bytes)).transpose().map_err(|e| {
                ClassroomError::Internal(format!("run {run} of this lab's recording does not read: {e}"))
            })?;
            let step = chunk.as_ref().map_or(seek.step, |c| seek.step.min(c.last_step));
            (chunk, step)
        }
    };
    let Some(chunk) = chunk else {
        let first = recordings.summary(lab.id()).first_step;
        return Err(ClassroomError::NotFound(match first {
            Some(first) => {
                format!("step {step} is no longer recorded: the recording of this run starts at step {first}")
            }
            None => format!("step {step} is not recorded"),
        }));
    };
    let shown = moment::at(&chunk, step, &seek.robots);
    // Epochs count again from 0 in each server process: the page names the epoch of
    // the scene it holds only when that scene is of the run it seeks.
    let snapshot = if seek.epoch == Some(chunk.epoch) {
        None
    } else {
        Some(recorded_scene(recordings, lab, chunk.run, chunk.epoch)?)
    };
    let run = chunk.run;
    let mut trails = window_trails(recordings, lab, run, step, &seek.robots, tail.as_ref())?;
    let shared = lab.settings().share_beliefs;
    let sees = |robot: &str| caller.may_see_belief(lab.robots().owner_of(robot), shared);
    for trail in &mut trails {
        if !sees(&trail.robot) {
            trail.estimate.clear();
        }
    }
    Ok(RecordedMoment {
        run,
        step: shown.step,
        time: shown.time,
        asked: seek.step,
        snapshot,
        epoch: chunk.epoch,
        poses: shown.poses,
        robots: shown.robots,
        trails,
    })
}

/// The trails of `robots` in run `run` over the [`SEEK_TRAIL_WINDOW_SECS`] up to
/// `step`: from the kept chunks of the window, and the lab's open chunk if it was
/// read. A window is far longer than a chunk (2 s of simulation time), so the chunks
/// that may overlap it start within one window before it.
fn window_trails(
    recordings: &Recordings,
    lab: &LabHandle,
    run: u32,
    step: u64,
    robots: &[String],
    tail: Option<&Chunk>,
) -> Result<Vec<RecordedTrail>, ClassroomError> {
    let window = window_steps(lab.clock().state().dt_secs);
    let steps = step.saturating_sub(window)..=step;
    let kept = recordings.read(|store| store.trails(lab.id(), run, steps.clone(), window))?;
    let open = tail.filter(|tail| tail.first_step <= step).into_iter().flat_map(|tail| tail.trails.iter());
    Ok(moment::trails(kept.iter().chain(open), robots, steps))
}

/// [`SEEK_TRAIL_WINDOW_SECS`] in steps of `dt_secs`.
fn window_steps(dt_secs: f64) -> u64 {
    if dt_secs > 0.0 { (SEEK_TRAIL_WINDOW_SECS / dt_secs).round() as u64 } else { 0 }
}

/// The scene of `epoch` in `run`, kept, or the live one if it is that (its row may
/// still be on its way to the store).
fn recorded_scene(
    recordings: &Recordings,
    lab: &LabHandle,
    run: u32,
    epoch: u32,
) -> Result<SceneSnapshot, ClassroomError> {
    let kept = recordings.read(|store| store.scene(lab.id(), run, epoch))?;
    let json = match kept {
        Some(json) => json,
        None => lab.viewers().snapshot_json().to_string(),
    };
    let snapshot: SceneSnapshot = serde_json::from_str(&json)
        .map_err(|e| ClassroomError::Internal(format!("a recorded scene does not read: {e}")))?;
    if snapshot.epoch != epoch {
        return Err(ClassroomError::NotFound(format!("the scene of that moment (epoch {epoch}) is not recorded")));
    }
    Ok(snapshot)
}

fn seeks_busy() -> ClassroomError {
    ClassroomError::Busy {
        message: "the server is answering many seeks at once: move the timeline again in a moment".into(),
        retry_after: 1,
    }
}

fn not_recording() -> ClassroomError {
    ClassroomError::NotFound("this server records nothing (its recording budget is 0)".into())
}
