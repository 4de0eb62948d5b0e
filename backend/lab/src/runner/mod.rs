//! The lab's own thread: steps the world on a fixed step, obeys time-control commands,
//! and publishes frames and state.
//!
//! Each step follows the loop's order (ARCHITECTURE.md, "One step of a lab"): the programs' commands and those given by hand
//! reach the joints, the world steps, sensors read it, and the robots' programs get
//! the readings (see `programs`). Only this thread touches the physics world, the
//! robots and their programs.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use tokio::sync::{oneshot, watch};
use vlab_protocol::{ControlAction, LabMode, LabState, Rate, ServerMsg, SyncMode};

use std::collections::BTreeMap;

use tokio::sync::broadcast;
use vlab_protocol::{ProgramState, ProgramStatus};

use super::checkpoints::Checkpoints;
use super::frames::FrameBuilder;
use super::hub::Hub;
use super::pacer::Pacer;
use super::placement::Misplaced;
use super::programs::{ConsoleEvent, Programs, Tick};
use super::recording::{Change, CommandSource, Record, Recorder, RobotEstimate};
use super::telemetry::{Published, Telemetry};
use super::{LabCommand, LabError, LabStatus, ProgramAction, wire};
use super::{capacity, changes, placement, resimulate};
use vlab_programs::ProgramCode;
use vlab_sim::robot::{Owner, Robots};
use vlab_sim::scene::{Inserted, Motion, SceneError, SceneModel, static_footprints};
use vlab_sim::sim::World;

/// Frames go out at most this often (wall clock), whatever the step rate.
const FRAME_INTERVAL: Duration = Duration::from_millis(16);
/// Longest stretch of stepping between two looks at the command queue.
const BATCH_BUDGET: Duration = Duration::from_millis(12);
/// A running lab that falls this far behind its schedule (the machine cannot keep up)
/// drops the backlog instead of trying to catch up in a burst.
const MAX_BACKLOG: Duration = Duration::from_millis(250);
/// Robot reports go out to the clients watching them at most this often (wall clock).
const TELEMETRY_INTERVAL: Duration = Duration::from_millis(100);
/// How often a lab looks whether programs have started, to show it at once even while
/// paused (the clock never waits for them).
const PROGRAM_START_POLL: Duration = Duration::from_millis(20);
/// How often a parked lab wakes to move its clock on and look for viewers: a viewer
/// who arrives sees it running again within this (a command wakes it at once).
const PARKED_TICK: Duration = Duration::from_millis(100);
/// Set to `off` in the environment of the process, labs opened afterwards never park
/// (to measure what parking saves: benches/idle_labs.rs).
pub const PARKING_SWITCH: &str = "VLAB_IDLE_PARKING";

/// What the lab simulates: its scene, the world built from it and the robots in it.
pub struct Parts {
    /// The scene, as inserted so far.
    pub model: SceneModel,
    /// Its world, built and with the robots installed.
    pub world: World,
    /// Its robots' devices.
    pub robots: Robots,
    /// The seed of sensor noise (and of the scene's `random`).
    pub seed: u64,
    /// Programs of the scene's own robots, by robot name.
    pub programs: BTreeMap<String, Arc<ProgramCode>>,
}

/// Where the lab publishes what happens.
pub struct Outlets {
    /// Frames, scenes and events for viewers.
    pub hub: Arc<Hub>,
    /// The clock and counts, for anybody to read.
    pub status: watch::Sender<LabStatus>,
    /// Robot reports for the clients watching them.
    pub telemetry: Arc<Telemetry>,
    /// Console lines of the robots' programs.
    pub console: broadcast::Sender<Arc<ConsoleEvent>>,
    /// What happens, written down.
    pub recorder: Recorder,
}

/// A lab's simulation and clock, owned by its thread.
pub struct Runner {
    model: SceneModel,
    world: World,
    robots: Robots,
    programs: Programs,
    seed: u64,
    frames: FrameBuilder,
    hub: Arc<Hub>,
    status: watch::Sender<LabStatus>,
    telemetry: Arc<Telemetry>,
    recorder: Recorder,
    last_telemetry_at: Instant,
    commands: Receiver<LabCommand>,
    mode: LabMode,
    rate: Rate,
    /// The instructor's choice; applies while running at a rate.
    sync: SyncMode,
    step: u64,
    epoch: u32,
    pacer: Pacer,
    last_frame_at: Instant,
    last_frame_step: u64,
    /// The reply owed for a `step N` in progress, and the step it stops at.
    stepping: Option<(u64, Option<oneshot::Sender<LabState>>)>,
    /// Where the current run started, to re-simulate it.
    run: RunStart,
    /// Copies of the lab taken as it steps, for rewinds to start from.
    checkpoints: Checkpoints,
    /// Whether the lab may park when idle ([`PARKING_SWITCH`]).
    may_park: bool,
    /// Parked since this step: running, but nobody watches, nothing runs and every
    /// body sleeps, so the clock moves on without stepping (see [`Runner::park`]).
    parked: Option<u64>,
    /// The free floor robots placed by the lab asked for around their starts, by robot:
    /// later robots the lab places keep out of it.
    kept_clear: BTreeMap<String, f32>,
}

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
    pub(super) fn new(model: SceneModel, owners: BTreeMap<String, Owner>) -> RunStart {
        RunStart { model, owners, insertions: Vec::new(), floor: None }
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
    /// A runner for an already-built world.
    pub fn new(
        parts: Parts,
        outlets: Outlets,
        commands: Receiver<LabCommand>,
        mode: LabMode,
        sync: SyncMode,
    ) -> Runner {
        let Parts { model, world, mut robots, seed, programs: scene_programs } = parts;
        let (frames, keyframe) = FrameBuilder::start(&world, 0);
        let mut recorder = outlets.recorder;
        recorder.scene(&keyframe, wire::snapshot_json(&wire::snapshot(&model, &world, 0)), &model, &robots);
        let now = Instant::now();
        let mut programs = Programs::new(seed, model.dt_secs, outlets.console);
        programs.set_obstacles(static_footprints(&model));
        for (robot, code) in scene_programs {
            programs.start(&robot, &mut robots, code, model.dt_secs, 0);
        }
        Runner {
            run: RunStart::new(model.clone(), BTreeMap::new()),
            checkpoints: Checkpoints::new(model.dt_secs),
            pacer: Pacer::new(model.dt_secs, 1.0, now, 0),
            model,
            world,
            robots,
            programs,
            seed,
            frames,
            hub: outlets.hub,
            status: outlets.status,
            telemetry: outlets.telemetry,
            recorder,
            last_telemetry_at: now,
            commands,
            mode,
            rate: Rate::default(),
            sync,
            step: 0,
            epoch: 0,
            last_frame_at: now,
            last_frame_step: 0,
            stepping: None,
            may_park: std::env::var(PARKING_SWITCH).as_deref() != Ok("off"),
            parked: None,
            kept_clear: BTreeMap::new(),
        }
    }

    /// Runs until told to shut down or until every handle to the lab is gone.
    pub fn run(mut self) {
        // The scene's own programs held their robots as they started.
        self.take_inputs(CommandSource::Program);
        loop {
            let received = match self.wait_time() {
                None => self.commands.recv().map_err(|_| RecvTimeoutError::Disconnected),
                Some(wait) => self.commands.recv_timeout(wait),
            };
            match received {
                Ok(LabCommand::Shutdown) | Err(RecvTimeoutError::Disconnected) => break,
                Ok(command) => self.receive(command),
                Err(RecvTimeoutError::Timeout) => {}
            }
            self.take_inputs(CommandSource::Hand);
            // Handle any further queued commands before stepping.
            while let Ok(command) = self.commands.try_recv() {
                if matches!(command, LabCommand::Shutdown) {
                    self.recorder.settle(&self.robots);
                    return;
                }
                self.receive(command);
                self.take_inputs(CommandSource::Hand);
            }
            self.record_console();
            self.advance();
            self.recorder.close_if_old();
        }
        // What was recorded last is kept too.
        self.recorder.settle(&self.robots);
    }

    /// How long to wait for a command before the next step is due (`None`: forever).
    fn wait_time(&self) -> Option<Duration> {
        if self.parked.is_some() {
            return Some(PARKED_TICK);
        }
        let paused = if self.programs.starting() { Some(PROGRAM_START_POLL) } else { None };
        match (self.mode, self.rate) {
            (LabMode::Paused, _) => paused,
            (LabMode::Stepping, _) | (LabMode::Running, Rate::Max) => Some(Duration::ZERO),
            (LabMode::Running, Rate::RealTime(_)) => {
                let now = Instant::now();
                let next_step = self.pacer.due_at(self.step + 1);
                let wait = next_step.saturating_duration_since(now).min(FRAME_INTERVAL);
                Some(paused.map_or(wait, |poll| wait.min(poll)))
            }
        }
    }

    /// Obeys a command. Whatever it reads or changes, it finds the lab as if the lab
    /// had stepped all along (a parked lab wakes first).
    fn receive(&mut self, command: LabCommand) {
        self.unpark();
        self.handle(command);
    }

    fn handle(&mut self, command: LabCommand) {
        match command {
            LabCommand::RewindStart { step, kept, reply } => {
                let _ = reply.send(self.rewind_start(step, &kept));
            }
            LabCommand::Rewind { start, step, inputs, through, reply } => {
                let _ = reply.send(self.rewind(start, step, inputs, through));
            }
            LabCommand::RecordingTail { reply } => {
                let _ = reply.send(self.recorder.tail());
            }
            LabCommand::Sync { sync } => self.sync = sync,
            LabCommand::Control { action, reply } => self.control(action, reply),
            LabCommand::Insert { addition, owner, quota, programs, keep_clear, reply } => {
                let refusal = self
                    .over_quota(&addition, owner.as_ref(), quota)
                    .or_else(|| capacity::check(&self.model, &addition).err().map(LabError::from))
                    .or_else(|| {
                        placement::check_insert_robots(&self.model, &self.world, &addition).err().map(LabError::from)
                    });
                let inserted = match refusal {
                    Some(refusal) => Err(refusal),
                    None => self.insert(&addition, owner).map_err(LabError::Refused),
                };
                if let Ok(done) = &inserted {
                    if let Some(metres) = keep_clear {
                        self.kept_clear.extend(addition.robots.iter().map(|r| (r.name.clone(), metres)));
                    }
                    let who = owner_words(addition.robots.first().and_then(|r| self.robots.get(&r.name)));
                    let names: Vec<&str> = addition.robots.iter().map(|r| r.name.as_str()).collect();
                    let text = format!("inserted {} bodies, robots [{}]{who}", done.bodies, names.join(", "));
                    self.recorder.record(Record::Event { step: self.step, text });
                    for (robot, code) in programs {
                        self.programs.start(&robot, &mut self.robots, code, self.model.dt_secs, self.step);
                    }
                    self.publish_telemetry();
                }
                let _ = reply.send(inserted);
            }
            LabCommand::SetProgram { robot, code, reply } => {
                let started = self.programs.start(&robot, &mut self.robots, code, self.model.dt_secs, self.step);
                let _ = reply.send(started.then(|| self.program_status(&robot)));
                self.publish_telemetry();
            }
            LabCommand::ProgramAction { robot, action, reply } => {
                let (dt, step) = (self.model.dt_secs, self.step);
                let done = match action {
                    ProgramAction::Restart => self.programs.restart(&robot, &mut self.robots, dt, step),
                    ProgramAction::Stop => self.programs.stop(&robot, &mut self.robots, step, dt),
                };
                let _ = reply.send(done.then(|| self.program_status(&robot)));
                self.publish_telemetry();
            }
            LabCommand::AttachRemote { robot, controller, reply } => {
                let (dt, step) = (self.model.dt_secs, self.step);
                let _ = reply.send(self.programs.attach(&robot, &mut self.robots, *controller, dt, step));
                self.publish_telemetry();
            }
            LabCommand::Program { robot, reply } => {
                let _ = reply.send(self.programs.program(&robot));
            }
            LabCommand::StartSearch { reply } => {
                self.kept_clear.retain(|robot, _| self.model.robots.iter().any(|r| &r.name == robot));
                let _ = reply.send(placement::StartSearch::of(&self.model, &self.world, &self.kept_clear));
            }
            LabCommand::Poses { reply } => {
                let _ = reply.send((0..self.world.body_count()).map(|i| self.world.pose(i)).collect());
            }
            LabCommand::Robot { robot, reply } => {
                let _ = reply.send(self.robots.report(&robot, &self.world, self.step, self.time()));
            }
            LabCommand::Actuate { robot, commands, reply } => {
                let outcome = self.robots.command(&robot, &commands).map(|done| {
                    done.map(|()| {
                        self.robots.report(&robot, &self.world, self.step, self.time()).expect("the robot exists")
                    })
                });
                let _ = reply.send(outcome);
                self.publish_telemetry();
            }
            LabCommand::Keys { robot, keys, reply } => {
                let _ = reply.send(self.robots.set_keys(&robot, &keys));
                self.publish_telemetry();
            }
            LabCommand::RemoveRobot { robot, reply } => {
                let _ = reply.send(self.remove_robot(&robot));
            }
            LabCommand::ResetRobot { robot, reply } => {
                let _ = reply.send(self.reset_robot(&robot));
            }
            LabCommand::Move { name, position, heading, reply } => {
                let _ = reply.send(self.move_object(&name, position, heading));
            }
            LabCommand::Shutdown => unreachable!("the run loop handles shutdown"),
        }
    }

    fn control(&mut self, action: ControlAction, reply: oneshot::Sender<LabState>) {
        let now = Instant::now();
        // Any new command ends a `step N` in progress; its caller learns where it stopped.
        if let Some((_, Some(waiting))) = self.stepping.take() {
            let _ = waiting.send(self.state());
        }
        let mut reply = Some(reply);
        self.recorder.record(Record::Control { step: self.step, action: action.clone() });
        match action {
            ControlAction::Pause => {
                self.mode = LabMode::Paused;
                // Paused, the lab may sleep for long: what it recorded is kept now.
                self.recorder.settle(&self.robots);
            }
            ControlAction::Resume => {
                self.mode = LabMode::Running;
                self.pacer.reanchor(now, self.step);
            }
            ControlAction::Step { steps } => {
                self.mode = LabMode::Stepping;
                self.stepping = Some((self.step + u64::from(steps), reply.take()));
            }
            ControlAction::Rate { rate } => {
                self.rate = rate;
                if let Rate::RealTime(factor) = rate {
                    self.pacer.set_rate(factor, now, self.step);
                }
            }
            ControlAction::Reset => self.reset(),
        }
        self.publish_frame();
        self.publish_state();
        self.publish_telemetry();
        if let Some(reply) = reply {
            let _ = reply.send(self.state());
        }
    }

    /// Why `addition` would take `owner` past `quota` robots, if it would.
    fn over_quota(&self, addition: &SceneModel, owner: Option<&Owner>, quota: Option<usize>) -> Option<LabError> {
        let (owner, quota) = (owner?, quota?);
        let have = self.robots.owners().values().filter(|id| **id == owner.id).count();
        let adding = addition.robots.len();
        (have + adding > quota).then_some(LabError::OverQuota { quota, have, adding })
    }

    /// Adds `addition` to the model and the world, all or nothing, and sends everybody
    /// the new scene with the current poses.
    fn insert(&mut self, addition: &SceneModel, owner: Option<Owner>) -> Result<Inserted, SceneError> {
        let at = (self.step, self.time());
        let inserted =
            changes::insert(&mut self.model, &mut self.world, &mut self.robots, addition, owner.clone(), at)?;
        if addition.bodies.iter().any(|b| b.motion == Motion::Fixed && b.robot.is_none()) {
            self.programs.set_obstacles(static_footprints(&self.model));
        }
        self.run.insertions.push((Box::new(addition.clone()), owner));
        self.changed(Change::Inserted { index: self.run.insertions.len() - 1 });
        self.publish_scene();
        self.publish_state();
        Ok(inserted)
    }

    /// Takes a robot out: the world is rebuilt without it, every other body where and
    /// as fast as it was, every other robot's devices carrying on; a new epoch.
    fn remove_robot(&mut self, name: &str) -> bool {
        if !changes::remove_robot(&mut self.model, &mut self.world, &mut self.robots, name) {
            return false;
        }
        self.programs.remove(name);
        self.changed(Change::Removed { robot: name.to_owned() });
        self.recorder.record(Record::Event { step: self.step, text: format!("removed robot {name}") });
        self.publish_scene();
        self.publish_state();
        true
    }

    /// Puts a robot's bodies back at their start poses, at rest, and its devices at
    /// their start.
    fn reset_robot(&mut self, name: &str) -> Result<bool, Misplaced> {
        let (step, time) = (self.step, self.time());
        placement::check_reset(&self.model, &self.world, name)?;
        if !changes::reset_robot(&self.model, &mut self.world, &mut self.robots, name, (step, time)) {
            return Ok(false);
        }
        self.changed(Change::RobotReset { robot: name.to_owned() });
        // A robot back at its start runs its program from the start too.
        self.programs.restart(name, &mut self.robots, self.model.dt_secs, step);
        self.recorder.record(Record::Event { step, text: format!("robot {name} put back at its start") });
        self.publish_frame();
        self.publish_telemetry();
        Ok(true)
    }

    /// Moves a body, or a robot as a whole, to `position` at rest.
    fn move_object(&mut self, name: &str, position: [f32; 3], heading: Option<f32>) -> Result<bool, Misplaced> {
        let Some(plan) = changes::MovePlan::of(&self.model, &self.world, name, position, heading) else {
            return Ok(false);
        };
        placement::check_move(&self.model, &self.world, &plan.bodies, &plan.poses(&self.world))?;
        let now = plan.apply(&mut self.world);
        self.changed(Change::Moved { name: name.to_owned(), position, heading });
        let [x, y, z] = position;
        let text = format!("{name} moved to ({x:.3}, {y:.3}, {z:.3}), heading {now:.3}");
        self.recorder.record(Record::Event { step: self.step, text });
        self.publish_frame();
        self.publish_telemetry();
        Ok(true)
    }

    /// Where a rewind to `target` of the current run would start re-simulating (the
    /// latest checkpoint at or before it), or why the lab cannot go back there. Cheap,
    /// and changes nothing: a rewind is checked with it before the lab is paused. `kept`
    /// is each run's first step the recording still keeps (a run not in it: all of it).
    fn rewind_start(&self, target: u64, kept: &[(u32, u64)]) -> Result<RewindStart, LabError> {
        let refuse = |why: String| Err(LabError::Rewind(why));
        if target > self.step {
            return refuse(format!(
                "step {target} is ahead of the lab (step {}): a rewind goes back to a step already run",
                self.step
            ));
        }
        let floor = self.run.floor.as_ref().map_or(0, |floor| floor.step);
        if let Some(RewindFloor { step, what }) = self.run.floor.as_ref().filter(|floor| target < floor.step) {
            return refuse(format!(
                "{what} at step {step}, and going back before that would undo it behind the classroom's back: \
                 the earliest step this run can go back to is {step} (reset the lab to start again from step 0)"
            ));
        }
        let from = self.checkpoints.at_or_before(target).map_or(0, |c| c.step);
        let run = self.recorder.run();
        let kept = kept.iter().find(|(kept_run, _)| *kept_run == run).map_or(0, |(_, first)| *first);
        if from < kept {
            // Re-simulation needs every input from its start on: the earliest it can
            // reach is the first checkpoint still covered by the recording.
            let earliest = self.checkpoints.steps().into_iter().find(|&step| step >= kept);
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
    fn rewind(
        &mut self,
        start: RewindStart,
        target: u64,
        mut inputs: Vec<Record>,
        through: u64,
    ) -> Result<Rewound, LabError> {
        let refuse = |why: String| Err(LabError::Rewind(why));
        if start.run != self.recorder.run() {
            return refuse(format!("the lab is in run {} now, not run {}", self.recorder.run(), start.run));
        }
        if self.rewind_start(target, &[])?.from != start.from {
            return refuse("the lab moved on while the rewind was prepared: try again".into());
        }
        let tail = self.recorder.tail();
        // The kept chunks reach the step (the open one holds only later inputs), or the
        // open one must follow on from them.
        if through <= target && tail.first_step > through {
            return refuse("the recording moved on while the rewind was prepared: try again".into());
        }
        inputs.extend(tail.records.into_iter().filter(|r| r.input_step().is_some()));
        let checkpoint = self.checkpoints.at_or_before(target).filter(|c| c.step == start.from);
        let again =
            resimulate::resimulate(&self.run, self.seed, &inputs, target, checkpoint).map_err(LabError::Rewind)?;
        if let Some((_, Some(waiting))) = self.stepping.take() {
            let _ = waiting.send(self.state());
        }
        let text = format!("rewound to step {target} (re-simulated from step {})", start.from);
        self.recorder.record(Record::Event { step: self.step, text });
        self.recorder.fork(target);
        self.checkpoints.forget_after(target);
        self.model = again.model;
        self.world = again.world;
        self.robots = again.robots;
        self.step = target;
        self.mode = LabMode::Paused;
        // Programs' own state was never recorded: they start over from the rewound step.
        self.programs.restart_all(&mut self.robots, self.model.dt_secs, target);
        self.recorder.prime(&self.robots);
        self.publish_scene();
        self.take_inputs(CommandSource::Program);
        self.publish_state();
        self.publish_telemetry();
        Ok(Rewound { state: self.state(), from: start.from })
    }

    /// Notes a change of the world for the recording and for rewinding.
    fn changed(&mut self, change: Change) {
        let what = match &change {
            Change::Inserted { index } => Some(self.run.insertions[*index].0.as_ref()).map(|addition| {
                match addition.robots.iter().map(|r| r.name.as_str()).collect::<Vec<_>>().as_slice() {
                    [] => format!("{} bodies were added", addition.bodies.len()),
                    [robot] => format!("robot {robot} was added"),
                    robots => format!("robots {} were added", robots.join(", ")),
                }
            }),
            Change::Removed { robot } => Some(format!("robot {robot} was removed")),
            _ => None,
        };
        if let Some(what) = what {
            self.run.floor = Some(RewindFloor { step: self.step, what });
        }
        self.recorder.record(Record::Change { step: self.step, change });
    }

    /// A new epoch: the snapshot and keyframe of the world as it is now.
    fn publish_scene(&mut self) {
        self.epoch += 1;
        let (frames, mut keyframe) = FrameBuilder::start(&self.world, self.epoch);
        keyframe.step = self.step;
        keyframe.time = self.time();
        self.frames = frames;
        self.last_frame_step = self.step;
        let snapshot = wire::snapshot(&self.model, &self.world, self.epoch);
        let snapshot_json = wire::snapshot_json(&snapshot);
        self.recorder.scene(&keyframe, Arc::clone(&snapshot_json), &self.model, &self.robots);
        self.hub.publish_scene(snapshot_json, wire::link_table(&snapshot), keyframe);
        let (bodies, robots) = (self.world.body_count(), self.model.robots.iter().map(|r| r.name.clone()).collect());
        let owners = self.robots.owners();
        self.status.send_modify(|status| {
            status.bodies = bodies;
            status.robots = robots;
            status.owners = owners;
        });
    }

    fn reset(&mut self) {
        // The model was validated when the lab was created; building it again cannot
        // fail unless the machine is out of memory.
        self.world = World::build(&self.model).expect("a validated scene builds");
        let owners = self.robots.take_owners();
        self.robots = Robots::configure(&self.model, self.seed).expect("a validated scene's robots configure");
        self.robots.restore_owners(owners.clone());
        self.robots.install(&mut self.world, 0, 0.0);
        self.step = 0;
        self.run = RunStart::new(self.model.clone(), owners);
        self.checkpoints.clear();
        self.recorder.new_run();
        // The same run again: every program starts over, at step 0, before time moves.
        self.programs.restart_all(&mut self.robots, self.model.dt_secs, 0);
        self.mode = LabMode::Paused;
        self.publish_scene();
    }

    /// Steps as the mode asks, for at most one batch, then publishes.
    fn advance(&mut self) {
        if self.programs.starting() {
            // The clock goes on; this only shows a program ready as soon as it is.
            let dt = self.model.dt_secs;
            if !self.programs.poll_started(&mut self.robots, self.step, dt) {
                self.publish_telemetry();
            }
        }
        let started = Instant::now();
        let deadline = started + BATCH_BUDGET;
        match (self.mode, self.rate) {
            (LabMode::Paused, _) => return,
            (LabMode::Running, Rate::RealTime(_)) if self.parked.is_some() => {
                self.step = self.step.max(self.pacer.target_step(started));
                if !self.idle() {
                    self.unpark();
                }
                self.status.send_modify(|status| status.state = self.state());
                return;
            }
            (LabMode::Running, Rate::RealTime(_)) => {
                let mut target = self.pacer.target_step(started);
                if self.pacer.due_at(self.step) + MAX_BACKLOG < started {
                    self.pacer.reanchor(started, self.step);
                    target = self.step + 1;
                }
                while self.step < target && Instant::now() < deadline {
                    self.step_once();
                }
                if self.step >= target {
                    self.park();
                }
            }
            (LabMode::Running, Rate::Max) => {
                while Instant::now() < deadline {
                    self.step_once();
                }
            }
            (LabMode::Stepping, _) => {
                let until = self.stepping.as_ref().map_or(self.step, |(until, _)| *until);
                while self.step < until && Instant::now() < deadline {
                    self.step_once();
                }
                if self.step >= until {
                    self.mode = LabMode::Paused;
                    self.publish_frame();
                    self.recorder.settle(&self.robots);
                    self.publish_state();
                    self.publish_telemetry();
                    if let Some((_, Some(reply))) = self.stepping.take() {
                        let _ = reply.send(self.state());
                    }
                    return;
                }
            }
        }
        if self.last_frame_at.elapsed() >= FRAME_INTERVAL {
            self.publish_frame();
        }
        if self.last_telemetry_at.elapsed() >= TELEMETRY_INTERVAL {
            self.publish_telemetry();
        }
        self.status.send_modify(|status| status.state = self.state());
    }

    /// Whether stepping would change nothing anybody can see: nobody watches (no
    /// viewer, no robot report wanted), no program runs or starts, every body sleeps
    /// and the robots leave the world as it is (no motor turning, no radio).
    fn idle(&self) -> bool {
        use ProgramState::{Idle, None as NoProgram, Stopped};
        self.may_park
            && self.stepping.is_none()
            && !self.hub.has_viewers()
            && !self.programs.starting()
            && self.robots.all().iter().all(|r| matches!(r.program().state, NoProgram | Idle | Stopped))
            && self.world.all_asleep()
            && self.robots.at_rest()
            && self.telemetry.wanted().is_empty()
    }

    /// Parks a running lab that is [`Runner::idle`] (it has caught up with its clock):
    /// from now on it wakes every `PARKED_TICK` only to move its step on with the
    /// wall clock, skipping the physics and sensor phases, until a command, a viewer,
    /// a watched robot (or anything else that ends idleness) wakes it.
    fn park(&mut self) {
        if self.parked.is_none() && self.idle() {
            self.publish_frame();
            self.recorder.settle(&self.robots);
            self.parked = Some(self.step);
        }
    }

    /// Ends a park: the steps skipped since are made good at once (no body moved
    /// during them, so every sensor's schedule is booked and its latest due reading
    /// taken as those steps would have left them; see `Robots::skip_still`).
    fn unpark(&mut self) {
        let Some(from) = self.parked.take() else { return };
        self.robots.skip_still(&self.world, from, self.step, self.model.dt_secs);
        self.publish_frame();
        self.publish_telemetry();
    }

    /// One physics step, in the loop's order (ARCHITECTURE.md, "One step of a lab"): the programs' commands (1) and every
    /// command reach the joints (2), physics (3), sensors (5), the programs get the
    /// readings (6). Frames (4) are produced per batch, at most every
    /// `FRAME_INTERVAL`, from the same post-step world the sensors read.
    fn step_once(&mut self) {
        let dt = self.model.dt_secs;
        self.programs.pre_step(&mut self.robots, self.step, dt);
        self.take_inputs(CommandSource::Program);
        self.step += 1;
        changes::bare_step(&mut self.world, &mut self.robots, self.step, dt);
        if self.checkpoints.due(self.step) {
            // Right after the physics step, before this step's inputs: where a
            // re-simulation stands before replaying them.
            self.checkpoints.take(self.step, &self.model, &self.world, &self.robots);
        }
        let time = self.time();
        let (sync, wall_per_sim) = self.sync_now();
        let tick = Tick { step: self.step, dt_secs: dt, sync, wall_per_sim };
        self.programs.post_step(&mut self.robots, &self.world, tick);
        self.take_inputs(CommandSource::Program);
        if self.recorder.is_on() {
            self.record_console();
            for (robot, step, time, estimate) in self.programs.estimates() {
                self.recorder.estimate(RobotEstimate { robot: robot.to_owned(), step, time, estimate });
            }
        }
        self.recorder.after_step(self.step, time, dt, &self.world, &self.robots);
    }

    /// Hands the inputs the robots were given since the last call to the recording.
    fn take_inputs(&mut self, source: CommandSource) {
        let inputs = self.robots.take_inputs();
        if !inputs.is_empty() {
            self.recorder.inputs(self.step, source, inputs);
        }
    }

    /// Hands the programs' newly published console lines to the recording.
    fn record_console(&mut self) {
        for (robot, lines) in self.programs.take_published() {
            self.recorder.console(&robot, &lines);
        }
    }

    /// How the lab keeps together with its programs now, and the wall time a simulated
    /// second lasts: the instructor's choice while running at a rate; lockstep when
    /// stepping or at `max`, where there is no pace to keep.
    fn sync_now(&self) -> (SyncMode, f64) {
        match (self.mode, self.rate) {
            (LabMode::Running, Rate::RealTime(factor)) => (self.sync, 1.0 / factor),
            _ => (SyncMode::Lockstep, 1.0),
        }
    }

    fn program_status(&self, robot: &str) -> ProgramStatus {
        self.robots.get(robot).map(|r| r.program().clone()).unwrap_or(ProgramStatus {
            file: None,
            language: None,
            state: ProgramState::None,
            message: None,
            late: None,
        })
    }

    /// Sends the latest report of every robot somebody watches.
    fn publish_telemetry(&mut self) {
        self.last_telemetry_at = Instant::now();
        self.telemetry.cameras.publish(&self.robots);
        let wanted = self.telemetry.wanted();
        if wanted.is_empty() {
            return;
        }
        let (step, time) = (self.step, self.time());
        let reports = wanted
            .into_iter()
            .filter_map(|name| {
                let report = self.robots.report(&name, &self.world, step, time)?;
                let owner = self.robots.get(&name).and_then(|r| r.owner()).map(|o| o.id);
                let json = serde_json::to_string(&ServerMsg::Robot(report)).expect("reports serialise");
                let belief = self.programs.belief(&name).map(|belief| {
                    Arc::from(serde_json::to_string(&ServerMsg::Belief(belief)).expect("beliefs serialise"))
                });
                Some((name, Published { report: Arc::from(json), belief, owner }))
            })
            .collect();
        self.telemetry.publish(reports);
    }

    fn time(&self) -> f64 {
        self.step as f64 * self.model.dt_secs
    }

    fn state(&self) -> LabState {
        LabState {
            mode: self.mode,
            rate: self.rate,
            step: self.step,
            time: self.time(),
            dt_secs: self.model.dt_secs,
            epoch: self.epoch,
        }
    }

    fn publish_frame(&mut self) {
        self.last_frame_at = Instant::now();
        let frame = self.frames.next_frame(&self.world, self.epoch, self.step, self.time());
        if frame.poses.is_empty() && self.step == self.last_frame_step {
            return;
        }
        self.last_frame_step = self.step;
        self.recorder.frame(&frame);
        self.hub.publish_frame(frame);
    }

    fn publish_state(&mut self) {
        let state = self.state();
        self.status.send_modify(|status| status.state = state.clone());
        self.hub.broadcast(&ServerMsg::State(state));
    }
}

/// ", by Ana" for a robot a participant added; nothing for the lab's own.
fn owner_words(robot: Option<&vlab_sim::robot::Robot>) -> String {
    robot.and_then(|r| r.owner()).map(|o| format!(", by {}", o.name)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use vlab_sim::scene::{DirLoader, Options, interpret};

    /// One diffbot (noisy lidar, encoders, odometry, bumper) and a box, left alone:
    /// everything comes to rest.
    fn still_scene() -> SceneModel {
        let source = "environment room { width 6; length 6; height 3; gravity -9.81; }\n\
                      include \"diffbot_robot.vlab\";\n\
                      call diffbot(\"_1\", 3, 3, 0);\n\
                      id:[\"crate\"] { shape box(0.2, 0.2, 0.2); pos(4, 0.1, 3); density 400; }\n";
        let scenes = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
        let loader = DirLoader { scenes, assets: None };
        interpret(source, "still.vlab", &loader, &Options::default()).expect("the scene builds").model
    }

    fn built(model: &SceneModel, seed: u64) -> (World, Robots) {
        let mut world = World::build(model).expect("the scene builds");
        let mut robots = Robots::configure(model, seed).expect("the robots configure");
        robots.install(&mut world, 0, 0.0);
        (world, robots)
    }

    /// The tests' real-time factor: a minute of simulation in 1.2 s.
    const RATE: f64 = 50.0;

    /// A running lab's runner at [`RATE`] times real time, driven by the test instead
    /// of its thread.
    fn runner(model: &SceneModel) -> Runner {
        let (world, robots) = built(model, 7);
        let (_, keyframe) = FrameBuilder::start(&world, 0);
        let snapshot_json = wire::snapshot_json(&wire::snapshot(model, &world, 0));
        let hub = Arc::new(Hub::new(snapshot_json, Default::default(), keyframe));
        let outlets = Outlets {
            hub,
            status: watch::channel(LabStatus {
                state: LabState {
                    mode: LabMode::Running,
                    rate: Rate::default(),
                    step: 0,
                    time: 0.0,
                    dt_secs: model.dt_secs,
                    epoch: 0,
                },
                bodies: 0,
                robots: Vec::new(),
                owners: BTreeMap::new(),
            })
            .0,
            telemetry: Arc::new(Telemetry::default()),
            console: broadcast::channel(16).0,
            recorder: Recorder::new("t".into(), None, 1),
        };
        let parts = Parts { model: model.clone(), world, robots, seed: 7, programs: BTreeMap::new() };
        let (_, commands) = std::sync::mpsc::channel();
        let mut runner = Runner::new(parts, outlets, commands, LabMode::Running, SyncMode::default());
        runner.may_park = true;
        runner.rate = Rate::RealTime(RATE);
        runner.pacer = Pacer::new(model.dt_secs, RATE, Instant::now(), 0);
        runner
    }

    impl Runner {
        /// Runs as the lab's thread would until it parks (at most `secs` of simulation).
        fn run_until_parked(&mut self, secs: u64) {
            let last = (secs as f64 / self.model.dt_secs) as u64;
            while self.parked.is_none() && self.step < last {
                std::thread::sleep(Duration::from_millis(1));
                self.advance();
            }
        }

        /// Runs as the lab's thread would for `wall` (wall clock).
        fn run_for(&mut self, wall: Duration) {
            let end = Instant::now() + wall;
            while Instant::now() < end {
                std::thread::sleep(Duration::from_millis(1));
                self.advance();
            }
        }

        fn report(&mut self) -> vlab_protocol::RobotReport {
            let (reply, answer) = oneshot::channel();
            self.receive(LabCommand::Robot { robot: "diffbot_1".into(), reply });
            answer.blocking_recv().expect("an answer").expect("the robot")
        }
    }

    #[test]
    fn a_parked_lab_reads_exactly_as_one_that_stepped_all_along() {
        let model = still_scene();
        let mut lab = runner(&model);
        lab.run_until_parked(60);
        let parked_at = lab.parked.expect("the lab parks once everything sleeps and nobody watches");
        let poses: Vec<_> = (0..lab.world.body_count()).map(|i| lab.world.pose(i)).collect();
        // A minute of simulation passes; the parked lab only moves its clock on.
        std::thread::sleep(Duration::from_secs_f64(60.0 / RATE));
        let due = lab.pacer.target_step(Instant::now());
        lab.advance();
        assert!(lab.parked.is_some(), "nothing woke it");
        let step = lab.step;
        assert!(step >= due && step >= parked_at + 60 * 240, "the clock went on: step {step}, due {due}");
        // A command wakes it and finds it as if it had stepped all along.
        let parked = lab.report();
        assert!(lab.parked.is_none(), "a command wakes the lab");
        let (mut world, mut robots) = built(&model, 7);
        for n in 1..=step {
            changes::bare_step(&mut world, &mut robots, n, model.dt_secs);
        }
        let stepped = robots.report("diffbot_1", &world, step, step as f64 * model.dt_secs).expect("the robot");
        assert_eq!(parked, stepped);
        let lidar = parked.sensors.iter().find(|s| s.name == "lidar").expect("a lidar");
        assert!(lidar.step.expect("a reading") > step - 24, "its latest reading is of the last 0.1 s");
        assert_eq!(poses, (0..world.body_count()).map(|i| world.pose(i)).collect::<Vec<_>>());
    }

    #[test]
    fn a_viewer_wakes_a_parked_lab_and_a_switched_off_lab_never_parks() {
        let model = still_scene();
        let mut lab = runner(&model);
        lab.run_until_parked(60);
        assert!(lab.parked.is_some(), "the lab parks");
        let viewer = lab.hub.join();
        lab.advance();
        assert!(lab.parked.is_none(), "a viewer wakes it");
        let woken = lab.step;
        lab.run_for(Duration::from_millis(200));
        assert!(lab.parked.is_none() && lab.step > woken + 240, "it steps while watched");
        drop(viewer);
        lab.run_for(Duration::from_millis(50));
        assert!(lab.parked.is_some(), "it parks again once nobody watches");

        let mut never = runner(&model);
        never.may_park = false;
        never.run_until_parked(20);
        assert!(never.parked.is_none(), "parking switched off");
        assert!(never.world.all_asleep(), "yet everything sleeps");
    }
}
