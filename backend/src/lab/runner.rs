//! The lab's own thread: steps the world on a fixed step, obeys time-control commands,
//! and publishes frames and state.
//!
//! Each step follows DESIGN.md's order; controllers, actuators and sensors join in
//! as robots gain programs. Only this thread touches the physics world.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use tokio::sync::{oneshot, watch};
use vlab_protocol::{ControlAction, LabMode, LabState, Rate, ServerMsg};

use super::frames::FrameBuilder;
use super::hub::Hub;
use super::pacer::Pacer;
use super::{LabCommand, LabStatus, wire};
use crate::scene::{Inserted, SceneError, SceneModel};
use crate::sim::World;

/// Frames go out at most this often (wall clock), whatever the step rate.
const FRAME_INTERVAL: Duration = Duration::from_millis(16);
/// Longest stretch of stepping between two looks at the command queue.
const BATCH_BUDGET: Duration = Duration::from_millis(12);
/// A running lab that falls this far behind its schedule (the machine cannot keep up)
/// drops the backlog instead of trying to catch up in a burst.
const MAX_BACKLOG: Duration = Duration::from_millis(250);

/// A lab's simulation and clock, owned by its thread.
pub struct Runner {
    model: SceneModel,
    world: World,
    frames: FrameBuilder,
    hub: Arc<Hub>,
    status: watch::Sender<LabStatus>,
    commands: Receiver<LabCommand>,
    mode: LabMode,
    rate: Rate,
    step: u64,
    epoch: u32,
    pacer: Pacer,
    last_frame_at: Instant,
    last_frame_step: u64,
    /// The reply owed for a `step N` in progress, and the step it stops at.
    stepping: Option<(u64, Option<oneshot::Sender<LabState>>)>,
}

impl Runner {
    /// A runner for an already-built world.
    pub fn new(
        model: SceneModel,
        world: World,
        hub: Arc<Hub>,
        status: watch::Sender<LabStatus>,
        commands: Receiver<LabCommand>,
        mode: LabMode,
    ) -> Runner {
        let (frames, _) = FrameBuilder::start(&world, 0);
        let now = Instant::now();
        Runner {
            pacer: Pacer::new(model.dt_secs, 1.0, now, 0),
            model,
            world,
            frames,
            hub,
            status,
            commands,
            mode,
            rate: Rate::default(),
            step: 0,
            epoch: 0,
            last_frame_at: now,
            last_frame_step: 0,
            stepping: None,
        }
    }

    /// Runs until told to shut down or until every handle to the lab is gone.
    pub fn run(mut self) {
        loop {
            let received = match self.wait_time() {
                None => self.commands.recv().map_err(|_| RecvTimeoutError::Disconnected),
                Some(wait) => self.commands.recv_timeout(wait),
            };
            match received {
                Ok(LabCommand::Shutdown) | Err(RecvTimeoutError::Disconnected) => break,
                Ok(command) => self.handle(command),
                Err(RecvTimeoutError::Timeout) => {}
            }
            // Handle any further queued commands before stepping.
            while let Ok(command) = self.commands.try_recv() {
                if matches!(command, LabCommand::Shutdown) {
                    return;
                }
                self.handle(command);
            }
            self.advance();
        }
    }

    /// How long to wait for a command before the next step is due (`None`: forever).
    fn wait_time(&self) -> Option<Duration> {
        match (self.mode, self.rate) {
            (LabMode::Paused, _) => None,
            (LabMode::Stepping, _) | (LabMode::Running, Rate::Max) => Some(Duration::ZERO),
            (LabMode::Running, Rate::RealTime(_)) => {
                let now = Instant::now();
                let next_step = self.pacer.due_at(self.step + 1);
                Some(next_step.saturating_duration_since(now).min(FRAME_INTERVAL))
            }
        }
    }

    fn handle(&mut self, command: LabCommand) {
        match command {
            LabCommand::Control { action, reply } => self.control(action, reply),
            LabCommand::Insert { addition, reply } => {
                let _ = reply.send(self.insert(&addition));
            }
            LabCommand::Poses { reply } => {
                let _ = reply.send((0..self.world.body_count()).map(|i| self.world.pose(i)).collect());
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
        match action {
            ControlAction::Pause => self.mode = LabMode::Paused,
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
        if let Some(reply) = reply {
            let _ = reply.send(self.state());
        }
    }

    /// Adds `addition` to the model and the world, all or nothing, and sends everybody
    /// the new scene with the current poses.
    fn insert(&mut self, addition: &SceneModel) -> Result<Inserted, SceneError> {
        let mut model = self.model.clone();
        let inserted = model.merge(addition)?;
        self.world.insert(addition)?;
        if addition.environment.is_some() {
            self.world.set_gravity_y(model.gravity_y);
        }
        self.model = model;
        self.publish_scene();
        self.publish_state();
        Ok(inserted)
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
        self.hub.publish_scene(wire::snapshot_json(&snapshot), keyframe);
        let (bodies, robots) = (self.world.body_count(), self.model.robots.iter().map(|r| r.name.clone()).collect());
        self.status.send_modify(|status| {
            status.bodies = bodies;
            status.robots = robots;
        });
    }

    fn reset(&mut self) {
        // The model was validated when the lab was created; building it again cannot
        // fail unless the machine is out of memory.
        self.world = World::build(&self.model).expect("a validated scene builds");
        self.step = 0;
        self.mode = LabMode::Paused;
        self.publish_scene();
    }

    /// Steps as the mode asks, for at most one batch, then publishes.
    fn advance(&mut self) {
        let started = Instant::now();
        let deadline = started + BATCH_BUDGET;
        match (self.mode, self.rate) {
            (LabMode::Paused, _) => return,
            (LabMode::Running, Rate::RealTime(_)) => {
                let mut target = self.pacer.target_step(started);
                if self.pacer.due_at(self.step) + MAX_BACKLOG < started {
                    self.pacer.reanchor(started, self.step);
                    target = self.step + 1;
                }
                while self.step < target && Instant::now() < deadline {
                    self.step_once();
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
                    self.publish_state();
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
        self.status.send_modify(|status| status.state = self.state());
    }

    /// One physics step, in DESIGN.md's order. Controllers (1), actuator commands (2),
    /// sensors (5) and post-step callbacks (6) come with robot programs; frames (4) are
    /// produced per batch, at most every `FRAME_INTERVAL`.
    fn step_once(&mut self) {
        self.world.step();
        self.step += 1;
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
        self.hub.publish_frame(frame);
    }

    fn publish_state(&mut self) {
        let state = self.state();
        self.status.send_modify(|status| status.state = state.clone());
        self.hub.broadcast(&ServerMsg::State(state));
    }
}
