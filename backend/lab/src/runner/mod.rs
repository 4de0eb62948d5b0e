//! The lab's own thread: steps the world on a fixed step, obeys time-control commands,
//! and publishes frames and state.
//!
//! Each step follows the loop's order (ARCHITECTURE.md, "One step of a lab"): the programs' commands and those given by hand
//! reach the joints, the world steps, sensors read it, and the robots' programs get
//! the readings (see `programs`). Only this thread touches the physics world, the
//! robots and their programs.
//!
//! Its state is in four parts (`parts`): what it simulates, its clock, what it
//! publishes and what it keeps of its past. Changes made by command are in `edits`,
//! going back in `rewind`, publishing in `publish`, idling in `parking`.

mod edits;
mod live;
mod parking;
mod parts;
mod publish;
mod resume;
mod rewind;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use tokio::sync::{broadcast, oneshot, watch};
use vlab_protocol::{ControlAction, LabMode, LabState, Rate, SyncMode};

use parts::{Clock, History, Outputs, Simulation};
pub use rewind::{RewindStart, Rewound, RunStart};

use super::checkpoints::Checkpoints;
use super::frames::FrameBuilder;
use super::hub::Hub;
use super::pacer::Pacer;
use super::programs::{ConsoleEvent, Programs, Tick};
use super::recording::{CommandSource, Record, Recorder, RobotEstimate};
use super::telemetry::Telemetry;
use super::{LabCommand, LabStatus, ProgramAction, wire};
use super::{changes, placement};
use vlab_programs::ProgramCode;
use vlab_sim::robot::Robots;
use vlab_sim::scene::{SceneModel, static_footprints};
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

/// What a lab starts from: its scene, the world built from it, the robots in it and
/// the programs of the scene's own robots.
pub struct StartingWorld {
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

/// Who hears what the lab does: its viewers, anybody reading its status, clients
/// watching robots, consoles, and the recording.
pub struct Listeners {
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
    sim: Simulation,
    clock: Clock,
    outputs: Outputs,
    history: History,
    /// The challenge live for every robot, while on and since it ended.
    live: Option<crate::live_run::LiveRun>,
    /// Since when a run just started waits for the programs to start again.
    live_run_waits_since: Option<Instant>,
    commands: Receiver<LabCommand>,
}

impl Runner {
    /// A runner for an already-built world.
    pub fn new(
        start: StartingWorld,
        listeners: Listeners,
        commands: Receiver<LabCommand>,
        mode: LabMode,
        sync: SyncMode,
    ) -> Runner {
        let StartingWorld { model, world, mut robots, seed, programs: scene_programs } = start;
        let (frames, keyframe) = FrameBuilder::start(&world, 0);
        let mut recorder = listeners.recorder;
        recorder.scene(&keyframe, wire::snapshot_json(&wire::snapshot(&model, &world, 0)), &model, &robots);
        let now = Instant::now();
        let mut programs = Programs::new(seed, model.dt_secs, listeners.console);
        programs.set_obstacles(static_footprints(&model));
        for (robot, code) in scene_programs {
            programs.start(&robot, &mut robots, code, model.dt_secs, 0);
        }
        let run = RunStart::new(model.clone(), BTreeMap::new());
        let checkpoints = Checkpoints::new(model.dt_secs);
        let pacer = Pacer::new(model.dt_secs, 1.0, now, 0);
        Runner {
            sim: Simulation { model, world, robots, programs, seed, kept_clear: BTreeMap::new() },
            clock: Clock {
                mode,
                rate: Rate::default(),
                sync,
                step: 0,
                epoch: 0,
                pacer,
                stepping: None,
                parked: None,
                may_park: std::env::var(PARKING_SWITCH).as_deref() != Ok("off"),
                permit: None,
            },
            outputs: Outputs {
                frames,
                hub: listeners.hub,
                status: listeners.status,
                telemetry: listeners.telemetry,
                last_telemetry_at: now,
                last_frame_at: now,
                last_frame_step: 0,
            },
            history: History { recorder, run, checkpoints },
            live: None,
            live_run_waits_since: None,
            commands,
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
                    self.history.recorder.settle(&self.sim.robots);
                    return;
                }
                self.receive(command);
                self.take_inputs(CommandSource::Hand);
            }
            self.record_console();
            self.advance();
            self.history.recorder.close_if_old();
        }
        // What was recorded last is kept too.
        self.history.recorder.settle(&self.sim.robots);
    }

    /// How long to wait for a command before the next step is due (`None`: forever).
    fn wait_time(&self) -> Option<Duration> {
        if self.clock.parked.is_some() {
            return Some(PARKED_TICK);
        }
        let paused = if self.sim.programs.starting() { Some(PROGRAM_START_POLL) } else { None };
        match (self.clock.mode, self.clock.rate) {
            (LabMode::Paused, _) => paused,
            (LabMode::Stepping, _) | (LabMode::Running, Rate::Max) => Some(Duration::ZERO),
            (LabMode::Running, Rate::RealTime(_)) => {
                let now = Instant::now();
                let next_step = self.clock.pacer.due_at(self.clock.step + 1);
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
            LabCommand::GoOnFrom { checkpoint, reply } => {
                let _ = reply.send(self.go_on_from(&checkpoint));
            }
            LabCommand::CheckpointNow { reply } => {
                let _ = reply.send(self.publish_checkpoint());
            }
            LabCommand::RecordingTail { reply } => {
                let _ = reply.send(self.history.recorder.tail());
            }
            LabCommand::Sync { sync } => self.clock.sync = sync,
            LabCommand::StepOnlyWhile { permit } => self.clock.permit = Some(permit),
            LabCommand::Control { action, reply } => self.control(action, reply),
            LabCommand::Insert { addition, owner, quota, programs, keep_clear, reply } => {
                let _ = reply.send(self.insert_checked(&addition, owner, quota, programs, keep_clear));
            }
            LabCommand::SetProgram { robot, code, reply } => {
                let started = self.sim.programs.start(
                    &robot,
                    &mut self.sim.robots,
                    code,
                    self.sim.model.dt_secs,
                    self.clock.step,
                );
                let _ = reply.send(started.then(|| self.program_status(&robot)));
                self.publish_telemetry();
            }
            LabCommand::ProgramAction { robot, action, reply } => {
                let (dt, step) = (self.sim.model.dt_secs, self.clock.step);
                let done = match action {
                    ProgramAction::Restart => self.sim.programs.restart(&robot, &mut self.sim.robots, dt, step),
                    ProgramAction::Stop => self.sim.programs.stop(&robot, &mut self.sim.robots, step, dt),
                };
                let _ = reply.send(done.then(|| self.program_status(&robot)));
                self.publish_telemetry();
            }
            LabCommand::AttachRemote { robot, controller, reply } => {
                let (dt, step) = (self.sim.model.dt_secs, self.clock.step);
                let _ = reply.send(self.sim.programs.attach(&robot, &mut self.sim.robots, *controller, dt, step));
                self.publish_telemetry();
            }
            LabCommand::Program { robot, reply } => {
                let _ = reply.send(self.sim.programs.program(&robot));
            }
            LabCommand::Model { reply } => {
                let _ = reply.send(Arc::new(self.sim.model.clone()));
            }
            LabCommand::StartSearch { reply } => {
                self.sim.kept_clear.retain(|robot, _| self.sim.model.robots.iter().any(|r| &r.name == robot));
                let _ = reply.send(placement::StartSearch::of(&self.sim.model, &self.sim.world, &self.sim.kept_clear));
            }
            LabCommand::Poses { reply } => {
                let _ = reply.send((0..self.sim.world.body_count()).map(|i| self.sim.world.pose(i)).collect());
            }
            LabCommand::WorldNow { reply } => {
                let poses = (0..self.sim.world.body_count()).map(|i| self.sim.world.pose(i)).collect();
                let model = Arc::new(self.sim.model.clone());
                let _ = reply.send(crate::commands::WorldNow {
                    model,
                    poses,
                    step: self.clock.step,
                    time_secs: self.time(),
                });
            }
            LabCommand::Robot { robot, reply } => {
                let _ = reply.send(self.sim.robots.report(&robot, &self.sim.world, self.clock.step, self.time()));
            }
            LabCommand::Actuate { robot, commands, reply } => {
                let outcome = self.sim.robots.command(&robot, &commands).map(|done| {
                    done.map(|()| {
                        self.sim
                            .robots
                            .report(&robot, &self.sim.world, self.clock.step, self.time())
                            .expect("the robot exists")
                    })
                });
                let _ = reply.send(outcome);
                self.publish_telemetry();
            }
            LabCommand::Keys { robot, keys, reply } => {
                let _ = reply.send(self.sim.robots.set_keys(&robot, &keys));
                self.publish_telemetry();
            }
            LabCommand::RemoveRobot { robot, reply } => {
                let _ = reply.send(self.remove_robot(&robot));
            }
            LabCommand::InsertObjects { addition, owner, quota, reply } => {
                let _ = reply.send(self.insert_objects_checked(&addition, owner, quota));
            }
            LabCommand::RemoveObject { name, reply } => {
                let _ = reply.send(self.remove_object(&name));
            }
            LabCommand::ResetRobot { robot, reply } => {
                let _ = reply.send(self.reset_robot(&robot));
            }
            LabCommand::SetStart { robot, position, heading, reply } => {
                let _ = reply.send(self.set_start(&robot, position, heading));
            }
            LabCommand::Move { name, position, heading, reply } => {
                let _ = reply.send(self.move_object(&name, position, heading));
            }
            LabCommand::ChangeRoom { change, checked, reply } => {
                let _ = reply.send(self.change_room(*change, checked));
            }
            LabCommand::StartRun { reply } => {
                let _ = reply.send(self.start_live_run());
            }
            LabCommand::StopRun { reply } => {
                self.end_live_run("stopped by the instructor");
                let _ = reply.send(());
            }
            LabCommand::Shutdown => unreachable!("the run loop handles shutdown"),
        }
    }

    fn control(&mut self, action: ControlAction, reply: oneshot::Sender<LabState>) {
        let now = Instant::now();
        // Any new command ends a `step N` in progress; its caller learns where it stopped.
        if let Some((_, Some(waiting))) = self.clock.stepping.take() {
            let _ = waiting.send(self.state());
        }
        let mut reply = Some(reply);
        self.history.recorder.record(Record::Control { step: self.clock.step, action: action.clone() });
        match action {
            ControlAction::Pause => {
                self.clock.mode = LabMode::Paused;
                // Paused, the lab may sleep for long: what it recorded is kept now.
                self.history.recorder.settle(&self.sim.robots);
            }
            ControlAction::Resume => {
                self.clock.mode = LabMode::Running;
                self.clock.pacer.reanchor(now, self.clock.step);
            }
            ControlAction::Step { steps } => {
                self.clock.mode = LabMode::Stepping;
                self.clock.stepping = Some((self.clock.step + u64::from(steps), reply.take()));
            }
            ControlAction::Rate { rate } => {
                self.clock.rate = rate;
                if let Rate::RealTime(factor) = rate {
                    self.clock.pacer.set_rate(factor, now, self.clock.step);
                }
            }
            ControlAction::Reset => {
                self.end_live_run("the lab was reset");
                self.reset();
            }
        }
        self.publish_frame();
        self.publish_state();
        self.publish_telemetry();
        if let Some(reply) = reply {
            let _ = reply.send(self.state());
        }
    }

    fn reset(&mut self) {
        // The model was validated when the lab was created; building it again cannot
        // fail unless the machine is out of memory.
        self.sim.world = World::build(&self.sim.model).expect("a validated scene builds");
        let owners = self.sim.robots.take_owners();
        self.sim.robots =
            Robots::configure(&self.sim.model, self.sim.seed).expect("a validated scene's robots configure");
        self.sim.robots.restore_owners(owners.clone());
        self.sim.robots.install(&mut self.sim.world, 0, 0.0);
        self.clock.step = 0;
        self.history.run = RunStart::new(self.sim.model.clone(), owners);
        self.history.checkpoints.clear();
        self.history.recorder.new_run();
        // The same run again: every program starts over, at step 0, before time moves.
        self.sim.programs.restart_all(&mut self.sim.robots, self.sim.model.dt_secs, 0);
        self.clock.mode = LabMode::Paused;
        self.publish_scene();
        self.publish_checkpoint();
    }

    /// Steps as the mode asks, for at most one batch, then publishes.
    fn advance(&mut self) {
        // Another server may be running this lab now: its time here stands still.
        if !self.clock.permitted() {
            return;
        }
        if self.sim.programs.starting() {
            // The clock goes on; this only shows a program ready as soon as it is.
            let dt = self.sim.model.dt_secs;
            if !self.sim.programs.poll_started(&mut self.sim.robots, self.clock.step, dt) {
                self.publish_telemetry();
            }
        }
        self.begin_live_run_once_ready();
        let started = Instant::now();
        let deadline = started + BATCH_BUDGET;
        match (self.clock.mode, self.clock.rate) {
            (LabMode::Paused, _) => return,
            (LabMode::Running, Rate::RealTime(_)) if self.clock.parked.is_some() => {
                self.clock.step = self.clock.step.max(self.clock.pacer.target_step(started));
                if !self.idle() {
                    self.unpark();
                }
                self.outputs.status.send_modify(|status| status.state = self.state());
                return;
            }
            (LabMode::Running, Rate::RealTime(_)) => {
                let mut target = self.clock.pacer.target_step(started);
                if self.clock.pacer.due_at(self.clock.step) + MAX_BACKLOG < started {
                    self.clock.pacer.reanchor(started, self.clock.step);
                    target = self.clock.step + 1;
                }
                while self.clock.step < target && Instant::now() < deadline {
                    self.step_once();
                }
                if self.clock.step >= target {
                    self.park();
                }
            }
            (LabMode::Running, Rate::Max) => {
                while Instant::now() < deadline {
                    self.step_once();
                }
            }
            (LabMode::Stepping, _) => {
                let until = self.clock.stepping.as_ref().map_or(self.clock.step, |(until, _)| *until);
                while self.clock.step < until && Instant::now() < deadline {
                    self.step_once();
                }
                if self.clock.step >= until {
                    self.clock.mode = LabMode::Paused;
                    self.publish_frame();
                    self.history.recorder.settle(&self.sim.robots);
                    self.publish_state();
                    self.publish_telemetry();
                    if let Some((_, Some(reply))) = self.clock.stepping.take() {
                        let _ = reply.send(self.state());
                    }
                    return;
                }
            }
        }
        if self.outputs.last_frame_at.elapsed() >= FRAME_INTERVAL {
            self.publish_frame();
        }
        if self.outputs.last_telemetry_at.elapsed() >= TELEMETRY_INTERVAL {
            self.publish_telemetry();
        }
        self.outputs.status.send_modify(|status| status.state = self.state());
    }

    /// One physics step, in the loop's order (ARCHITECTURE.md, "One step of a lab"): the programs' commands (1) and every
    /// command reach the joints (2), physics (3), sensors (5), the programs get the
    /// readings (6). Frames (4) are produced per batch, at most every
    /// `FRAME_INTERVAL`, from the same post-step world the sensors read.
    fn step_once(&mut self) {
        let dt = self.sim.model.dt_secs;
        self.sim.programs.pre_step(&mut self.sim.robots, self.clock.step, dt);
        self.take_inputs(CommandSource::Program);
        self.clock.step += 1;
        changes::bare_step(&mut self.sim.world, &mut self.sim.robots, self.clock.step, dt);
        if self.history.checkpoints.due(self.clock.step) {
            // Right after the physics step, before this step's inputs: where a
            // re-simulation stands before replaying them.
            self.history.checkpoints.take(self.clock.step, &self.sim.model, &self.sim.world, &self.sim.robots);
            self.publish_checkpoint();
        }
        let time = self.time();
        let (sync, wall_per_sim) = self.clock.sync_now();
        let tick = Tick { step: self.clock.step, dt_secs: dt, sync, wall_per_sim };
        self.sim.programs.post_step(&mut self.sim.robots, &self.sim.world, tick);
        self.take_inputs(CommandSource::Program);
        if self.history.recorder.is_on() {
            self.record_console();
            for (robot, step, time, estimate) in self.sim.programs.estimates() {
                self.history.recorder.estimate(RobotEstimate { robot: robot.to_owned(), step, time, estimate });
            }
        }
        self.history.recorder.after_step(self.clock.step, time, dt, &self.sim.world, &self.sim.robots);
        self.judge_live_run();
    }

    /// Hands the inputs the robots were given since the last call to the recording.
    fn take_inputs(&mut self, source: CommandSource) {
        let inputs = self.sim.robots.take_inputs();
        if !inputs.is_empty() {
            self.history.recorder.inputs(self.clock.step, source, inputs);
        }
    }

    /// Hands the programs' newly published console lines to the recording.
    fn record_console(&mut self) {
        for (robot, lines) in self.sim.programs.take_published() {
            self.history.recorder.console(&robot, &lines);
        }
    }
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
        let listeners = Listeners {
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
                objects: BTreeMap::new(),
                run: None,
                checkpoint: None,
            })
            .0,
            telemetry: Arc::new(Telemetry::default()),
            console: broadcast::channel(16).0,
            recorder: Recorder::new("t".into(), None, 1),
        };
        let start = StartingWorld { model: model.clone(), world, robots, seed: 7, programs: BTreeMap::new() };
        let (_, commands) = std::sync::mpsc::channel();
        let mut runner = Runner::new(start, listeners, commands, LabMode::Running, SyncMode::default());
        runner.clock.may_park = true;
        runner.clock.rate = Rate::RealTime(RATE);
        runner.clock.pacer = Pacer::new(model.dt_secs, RATE, Instant::now(), 0);
        runner
    }

    impl Runner {
        /// Runs as the lab's thread would until it parks (at most `secs` of simulation).
        fn run_until_parked(&mut self, secs: u64) {
            let last = (secs as f64 / self.sim.model.dt_secs) as u64;
            while self.clock.parked.is_none() && self.clock.step < last {
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
        let parked_at = lab.clock.parked.expect("the lab parks once everything sleeps and nobody watches");
        let poses: Vec<_> = (0..lab.sim.world.body_count()).map(|i| lab.sim.world.pose(i)).collect();
        // A minute of simulation passes; the parked lab only moves its clock on.
        std::thread::sleep(Duration::from_secs_f64(60.0 / RATE));
        let due = lab.clock.pacer.target_step(Instant::now());
        lab.advance();
        assert!(lab.clock.parked.is_some(), "nothing woke it");
        let step = lab.clock.step;
        assert!(step >= due && step >= parked_at + 60 * 240, "the clock went on: step {step}, due {due}");
        // A command wakes it and finds it as if it had stepped all along.
        let parked = lab.report();
        assert!(lab.clock.parked.is_none(), "a command wakes the lab");
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
    fn a_lab_opened_again_goes_on_from_its_kept_checkpoint_and_rewinds_no_further_back() {
        let model = still_scene();
        let crate_index = model.bodies.iter().position(|b| b.name == "crate").expect("the crate");
        let mut lab = runner(&model);
        // Parked, a lab steps nothing and so takes no checkpoint.
        lab.clock.may_park = false;
        let at = lab.sim.world.pose(crate_index);
        lab.sim.world.set_body_state(crate_index, &at, [0.8, 0.0, 0.3], [0.0, 1.0, 0.0]);
        lab.run_for(Duration::from_millis(150));
        let kept = lab.outputs.status.borrow().checkpoint.clone().expect("a checkpoint is published as it is taken");
        assert!(kept.step >= 1200 && kept.step.is_multiple_of(1200), "every 5 s of simulation: {}", kept.step);
        let kept = crate::resume::KeptCheckpoint::from_json(&kept.to_json()).expect("it reads back");
        assert_ne!(kept.bodies.iter().find(|b| b.name == "crate").expect("the crate").position, at.position);

        let mut again = runner(&model);
        again.clock.may_park = false;
        let state = again.go_on_from(&kept);
        assert_eq!(state.step, kept.step, "the clock goes on from the kept step");
        let now = crate::resume::KeptCheckpoint::of(kept.step, &model, &again.sim.world);
        assert!(crate::resume::tests::same_bodies(&now, &kept), "bodies as kept");
        let published = again.outputs.status.borrow().checkpoint.clone().expect("published");
        assert_eq!(published.step, kept.step, "a server dying now loses nothing more");
        let refused = again.rewind_start(kept.step - 1, &[]).expect_err("before the kept step");
        assert!(refused.to_string().contains(&format!("the earliest step it can go back to is {}", kept.step)));
        again.run_for(Duration::from_millis(50));
        assert!(again.clock.step > kept.step + 240, "it runs on from there: {}", again.clock.step);
        let start = again.rewind_start(kept.step + 10, &[]).expect("a rewind within the run");
        assert_eq!(start.from, kept.step, "re-simulated from where the run started");
    }

    #[test]
    fn a_viewer_wakes_a_parked_lab_and_a_switched_off_lab_never_parks() {
        let model = still_scene();
        let mut lab = runner(&model);
        lab.run_until_parked(60);
        assert!(lab.clock.parked.is_some(), "the lab parks");
        let viewer = lab.outputs.hub.join();
        lab.advance();
        assert!(lab.clock.parked.is_none(), "a viewer wakes it");
        let woken = lab.clock.step;
        lab.run_for(Duration::from_millis(200));
        assert!(lab.clock.parked.is_none() && lab.clock.step > woken + 240, "it steps while watched");
        drop(viewer);
        lab.run_for(Duration::from_millis(50));
        assert!(lab.clock.parked.is_some(), "it parks again once nobody watches");

        let mut never = runner(&model);
        never.clock.may_park = false;
        never.run_until_parked(20);
        assert!(never.clock.parked.is_none(), "parking switched off");
        assert!(never.sim.world.all_asleep(), "yet everything sleeps");
    }
}
