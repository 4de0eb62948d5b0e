//! Going back: where the current run started and what it inserted since, whether and
//! from which checkpoint a rewind can re-simulate to a step, and the rewind itself.

use std::collections::BTreeMap;

use vlab_protocol::{LabMode, LabState};

use super::Runner;
use crate::checkpoints::Checkpoint;
use crate::error::LabError;
use crate::recording::{Change, Record};
use crate::resimulate;
use vlab_sim::robot::Owner;
use vlab_sim::scene::SceneModel;

/// What a run started from, and what it inserted since: with the recorded inputs, all a
/// re-simulation needs.
pub struct RunStart {
    /// The model at step 0.
    pub model: SceneModel,
    /// Who owned which robot then.
    pub owners: BTreeMap<String, Owner>,
    /// The run's insertions, in order (`Change::Inserted` names them by index).
    pub insertions: Vec<(Box<SceneModel>, Option<Owner>)>,
    /// The run's last insertion or removal, if any: a rewind goes back to it at the
    /// earliest.
    pub floor: Option<RewindFloor>,
    /// Where the run started when not at step 0 (the lab went on from a checkpoint the
    /// database kept, [`crate::resume`]): a re-simulation starts from it, and a rewind
    /// goes back to it at the earliest.
    pub resumed: Option<Box<Checkpoint>>,
}

/// An insertion or a removal, which a rewind cannot go back before: what was added or
/// removed belongs to the classroom too (its uploads, its owners' quotas, the robots it
/// restores after a restart), and a rewind that silently took a student's robot out of
/// the lab, or brought a removed one back, would leave the two disagreeing.
pub struct RewindFloor {
    /// The step it happened at.
    pub step: u64,
    /// What happened, in words ("robot ana_bot was added").
    pub what: String,
}

impl RunStart {
    /// A run starting from `model` with robots owned as `owners` say.
    pub(crate) fn new(model: SceneModel, owners: BTreeMap<String, Owner>) -> RunStart {
        RunStart { model, owners, insertions: Vec::new(), floor: None, resumed: None }
    }
}

/// Where a rewind's re-simulation starts: the run it rewinds and the step of the
/// checkpoint it starts from (0: the run's start).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RewindStart {
    /// The run.
    pub run: u32,
    /// The step re-simulation starts from.
    pub from: u64,
}

/// A rewind done: the lab's clock, and the step re-simulation started from (the steps
/// re-simulated are the difference).
#[derive(Clone, Debug, PartialEq)]
pub struct Rewound {
    /// The clock, paused at the step rewound to.
    pub state: LabState,
    /// The checkpoint's step (0: the run's start).
    pub from: u64,
}

impl Runner {
    /// Where a rewind to `target` of the current run would start re-simulating (the
    /// latest checkpoint at or before it), or why the lab cannot go back there. Cheap,
    /// and changes nothing: a rewind is checked with it before the lab is paused. `kept`
    /// is each run's first step the recording still keeps (a run not in it: all of it).
    pub(super) fn rewind_start(&self, target: u64, kept: &[(u32, u64)]) -> Result<RewindStart, LabError> {
        let refuse = |why: String| Err(LabError::Rewind(why));
        if target > self.clock.step {
            return refuse(format!(
                "step {target} is ahead of the lab (step {}): a rewind goes back to a step already run",
                self.clock.step
            ));
        }
        if let Some(resumed) = self.history.run.resumed.as_ref().filter(|resumed| target < resumed.step) {
            return refuse(format!(
                "this run started at step {}, where the lab went on from its last kept checkpoint when it was \
                 opened again (its server changed or restarted): the earliest step it can go back to is {}",
                resumed.step, resumed.step
            ));
        }
        let floor = self.history.run.floor.as_ref().map_or(0, |floor| floor.step);
        if let Some(RewindFloor { step, what }) = self.history.run.floor.as_ref().filter(|floor| target < floor.step) {
            return refuse(format!(
                "{what} at step {step}, and going back before that would undo it behind the classroom's back: \
                 the earliest step this run can go back to is {step} (reset the lab to start again from step 0)"
            ));
        }
        let resumed = self.history.run.resumed.as_ref().map_or(0, |resumed| resumed.step);
        let from = self.history.checkpoints.at_or_before(target).map_or(resumed, |c| c.step);
        let run = self.history.recorder.run();
        let kept = kept.iter().find(|(kept_run, _)| *kept_run == run).map_or(0, |(_, first)| *first);
        if from < kept {
            // Re-simulation needs every input from its start on: the earliest it can
            // reach is the first checkpoint still covered by the recording.
            let earliest = self.history.checkpoints.steps().into_iter().find(|&step| step >= kept);
            let dropped = format!(
                "the recording of this run starts at step {kept} now (older steps were dropped to stay within \
                 the lab's recording budget)"
            );
            return refuse(match earliest {
                Some(earliest) => {
                    format!("{dropped}: the earliest step this run can go back to is {}", earliest.max(floor))
                }
                None => format!("{dropped}, and a re-simulation needs them: reset the lab instead"),
            });
        }
        Ok(RewindStart { run, from })
    }

    /// Goes back to `target` of run `start.run`: the run re-simulated from the checkpoint
    /// `start.from` (or its start) with the recorded `inputs` from there on (and those of
    /// the open chunk), then on from there in a new run, paused, every program started
    /// afresh. The lab is unchanged when it cannot.
    pub(super) fn rewind(
        &mut self,
        start: RewindStart,
        target: u64,
        mut inputs: Vec<Record>,
        through: u64,
    ) -> Result<Rewound, LabError> {
        let refuse = |why: String| Err(LabError::Rewind(why));
        if start.run != self.history.recorder.run() {
            return refuse(format!("the lab is in run {} now, not run {}", self.history.recorder.run(), start.run));
        }
        if self.rewind_start(target, &[])?.from != start.from {
            return refuse("the lab moved on while the rewind was prepared: try again".into());
        }
        let tail = self.history.recorder.tail();
        // The kept chunks reach the step (the open one holds only later inputs), or the
        // open one must follow on from them.
        if through <= target && tail.first_step > through {
            return refuse("the recording moved on while the rewind was prepared: try again".into());
        }
        inputs.extend(tail.records.into_iter().filter(|r| r.input_step().is_some()));
        let checkpoint = self.history.checkpoints.at_or_before(target).filter(|c| c.step == start.from);
        let again = resimulate::resimulate(&self.history.run, self.sim.seed, &inputs, target, checkpoint)
            .map_err(LabError::Rewind)?;
        if let Some((_, Some(waiting))) = self.clock.stepping.take() {
            let _ = waiting.send(self.state());
        }
        let text = format!("rewound to step {target} (re-simulated from step {})", start.from);
        self.history.recorder.record(Record::Event { step: self.clock.step, text });
        self.history.recorder.fork(target);
        self.history.checkpoints.forget_after(target);
        self.sim.model = again.model;
        self.sim.world = again.world;
        self.sim.robots = again.robots;
        self.clock.step = target;
        self.clock.mode = LabMode::Paused;
        // Programs' own state was never recorded: they start over from the rewound step.
        self.sim.programs.restart_all(&mut self.sim.robots, self.sim.model.dt_secs, target);
        self.arrive();
        Ok(Rewound { state: self.state(), from: start.from })
    }

    /// Notes a change of the world for the recording and for rewinding.
    pub(super) fn changed(&mut self, change: Change) {
        let what = match &change {
            Change::Inserted { index } => Some(self.history.run.insertions[*index].0.as_ref()).map(|addition| {
                match addition.robots.iter().map(|r| r.name.as_str()).collect::<Vec<_>>().as_slice() {
                    [] => format!("{} bodies were added", addition.bodies.len()),
                    [robot] => format!("robot {robot} was added"),
                    robots => format!("robots {} were added", robots.join(", ")),
                }
            }),
            Change::Removed { robot } => Some(format!("robot {robot} was removed")),
            Change::ObjectRemoved { name } => Some(format!("object {name} was removed")),
            Change::StartMoved { robot, .. } => Some(format!("robot {robot}'s start was moved")),
            Change::Room { .. } => Some("the room was changed".to_owned()),
            _ => None,
        };
        if let Some(what) = what {
            self.history.run.floor = Some(RewindFloor { step: self.clock.step, what });
        }
        self.history.recorder.record(Record::Change { step: self.clock.step, change });
    }
}
