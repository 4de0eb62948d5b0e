//! One running lab as the rest of the server sees it: its identity, its participants and
//! settings, the status its thread publishes, and requests to its thread.

use std::collections::BTreeMap;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, RwLock};

use serde_json::Value;
use tokio::sync::{broadcast, oneshot, watch};
use vlab_protocol::{
    ConsoleLine, ControlAction, LabMode, LabSettings, LabState, LabSummary, Participant, ProgramStatus, Rate,
    RobotReport, Role, ServerMsg, UserId,
};

use super::commands::{LabCommand, ProgramAction};
use super::error::LabError;
use super::hub::Subscription;
use super::participants::{self, Caller, JoinError, Participants};
use super::programs::{AttachRefused, ConsoleEvent};
use super::runner::{RewindStart, Rewound};
use super::{frames, hub, runner, telemetry, wire};
use crate::secret::TokenDigest;
use vlab_programs::{ProgramCode, RemoteController};
use vlab_sim::robot::{KeysError, Owner, Robots};
use vlab_sim::scene::{Inserted, Pose, SceneModel};
use vlab_sim::sim::World;

/// What the lab answers to keys: `None` when it has no such robot.
pub type KeysAnswer = Option<Result<(), KeysError>>;

/// How many console batches a connection may fall behind before it skips some.
const CONSOLE_BACKLOG: usize = 256;

/// What the lab's thread publishes for everybody else to read without asking it.
#[derive(Clone, Debug)]
pub struct LabStatus {
    /// The clock.
    pub state: LabState,
    /// Number of rigid bodies.
    pub bodies: usize,
    /// Robot names, in the scene's order.
    pub robots: Vec<String>,
    /// Who owns which robot (robots of the lab's own scene have no owner).
    pub owners: BTreeMap<String, UserId>,
}

/// How to open a lab.
pub struct LabConfig {
    /// Its id (URL-safe).
    pub id: String,
    /// Its display name.
    pub name: String,
    /// Its scene.
    pub scene: SceneModel,
    /// The digest of the bearer token that makes a caller its instructor.
    pub instructor: TokenDigest,
    /// Whether time runs as soon as it opens.
    pub start_running: bool,
    /// Seed of the lab's random generator (scene `random`, sensor noise).
    pub seed: u64,
    /// The code students join with.
    pub join_code: String,
    /// The instructor's settings.
    pub settings: LabSettings,
    /// Students who joined before a restart: id, display name, session token's digest.
    pub students: Vec<(UserId, String, TokenDigest)>,
    /// Programs of the scene's own robots, by robot name, started when the lab opens.
    pub programs: BTreeMap<String, Arc<ProgramCode>>,
    /// Where its recording goes (`None`: it records nothing).
    pub recording: Option<super::recording::RecordingSink>,
    /// The number of its first run (runs kept from before a restart keep theirs).
    pub first_run: u32,
}

/// The rest of the server's view of one running lab.
pub struct LabHandle {
    id: String,
    name: String,
    seed: u64,
    participants: RwLock<Participants>,
    settings: RwLock<LabSettings>,
    closed: watch::Sender<bool>,
    /// Counts students removed, so each page of theirs learns it at once.
    removals: watch::Sender<u64>,
    commands: Mutex<mpsc::Sender<LabCommand>>,
    status: watch::Receiver<LabStatus>,
    hub: Arc<hub::Hub>,
    telemetry: Arc<telemetry::Telemetry>,
    console: broadcast::Sender<Arc<ConsoleEvent>>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl LabHandle {
    /// Builds the lab's world and starts its thread. A scene that does not build
    /// starts nothing.
    pub fn open(config: LabConfig) -> Result<Arc<LabHandle>, LabError> {
        let LabConfig {
            id,
            name,
            scene,
            instructor,
            start_running,
            seed,
            join_code,
            settings,
            students,
            programs,
            recording,
            first_run,
        } = config;
        let mut participants = Participants::new(instructor, participants::normalise_code(&join_code));
        for (user, name, token) in students {
            participants.restore(user, name, token);
        }
        let mut world = World::build(&scene).map_err(|source| LabError::Scene { lab: id.clone(), source })?;
        let mut robots =
            Robots::configure(&scene, seed).map_err(|source| LabError::Scene { lab: id.clone(), source })?;
        robots.install(&mut world, 0, 0.0);
        let snapshot = wire::snapshot(&scene, &world, 0);
        let (_, keyframe) = frames::FrameBuilder::start(&world, 0);
        let hub = Arc::new(hub::Hub::new(wire::snapshot_json(&snapshot), wire::link_table(&snapshot), keyframe));
        let mode = if start_running { LabMode::Running } else { LabMode::Paused };
        let initial = LabStatus {
            state: LabState { mode, rate: Rate::default(), step: 0, time: 0.0, dt_secs: scene.dt_secs, epoch: 0 },
            bodies: world.body_count(),
            robots: scene.robots.iter().map(|r| r.name.clone()).collect(),
            owners: BTreeMap::new(),
        };
        let (status_tx, status_rx) = watch::channel(initial);
        let (command_tx, command_rx) = mpsc::channel();
        let telemetry = Arc::new(telemetry::Telemetry::default());
        let (console, _) = broadcast::channel(CONSOLE_BACKLOG);
        let runner = runner::Runner::new(
            runner::Parts { model: scene, world, robots, seed, programs },
            runner::Outlets {
                hub: Arc::clone(&hub),
                status: status_tx,
                telemetry: Arc::clone(&telemetry),
                console: console.clone(),
                recorder: super::recording::Recorder::new(id.clone(), recording, first_run),
            },
            command_rx,
            mode,
            settings.sync,
        );
        let thread = std::thread::Builder::new()
            .name(format!("lab-{id}"))
            .spawn(move || runner.run())
            .map_err(|source| LabError::Thread { lab: id.clone(), source })?;
        Ok(Arc::new(LabHandle {
            id,
            name,
            seed,
            participants: RwLock::new(participants),
            settings: RwLock::new(settings),
            closed: watch::Sender::new(false),
            removals: watch::Sender::new(0),
            commands: Mutex::new(command_tx),
            status: status_rx,
            hub,
            telemetry,
            console,
            thread: Mutex::new(Some(thread)),
        }))
    }

    /// The lab's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The lab's display name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The role a bearer of `token` has here; `None` if the token means nothing here.
    /// No token at all makes a viewer.
    pub fn role_of(&self, token: Option<&str>) -> Option<Role> {
        self.caller(token).map(Caller::role)
    }

    /// Who a bearer of `token` is here; `None` if the token means nothing here.
    pub fn caller(&self, token: Option<&str>) -> Option<Caller> {
        self.participants.read().expect("participants lock").caller(token)
    }

    /// The code students join with.
    pub fn join_code(&self) -> String {
        self.participants.read().expect("participants lock").join_code().to_owned()
    }

    /// Replaces the code students join with; the old one admits nobody from now on.
    pub fn set_join_code(&self, code: &str) {
        self.participants.write().expect("participants lock").set_join_code(code);
    }

    /// Admits a student with the lab's `code` under `name` (made unique) to the roster,
    /// within the settings' `max_participants`. Returns their id and session token;
    /// nobody is told yet (see [`LabHandle::broadcast_presence`]).
    pub fn admit(&self, code: &str, name: &str) -> Result<(UserId, String), JoinError> {
        let max = self.settings().max_participants as usize;
        self.participants.write().expect("participants lock").join(code, name, max)
    }

    /// Takes back an admission that could not be kept.
    pub fn forget(&self, id: UserId) {
        self.participants.write().expect("participants lock").forget(id);
    }

    /// Takes student `id` out of the roster: their token means nothing from now on and
    /// each page of theirs learns it ([`LabHandle::wait_removed`]). Their robots stay
    /// until removed; nobody else is told yet. Whether they were in it.
    pub fn remove_participant(&self, id: UserId) -> bool {
        let removed = self.participants.write().expect("participants lock").forget(id);
        if removed {
            self.removals.send_modify(|count| *count += 1);
        }
        removed
    }

    /// Resolves once student `id` is no longer in the roster (removed by the instructor).
    pub async fn wait_removed(&self, id: UserId) {
        let mut removals = self.removals.subscribe();
        let _ = removals.wait_for(|_| self.name_of(id).is_none()).await;
    }

    /// A participant as the lab lists them.
    pub fn participant(&self, id: UserId) -> Option<Participant> {
        let owners = self.status.borrow().owners.clone();
        self.participants.read().expect("participants lock").participant(id, |user| owned(&owners, user))
    }

    /// Everybody who joined, the instructor first.
    pub fn participants(&self) -> Vec<Participant> {
        let owners = self.status.borrow().owners.clone();
        self.participants.read().expect("participants lock").list(|user| owned(&owners, user))
    }

    /// The display name of participant `id`.
    pub fn name_of(&self, id: UserId) -> Option<String> {
        self.participants.read().expect("participants lock").name_of(id)
    }

    /// Counts a page of `caller` as connected (viewers are not counted).
    pub fn connected(&self, caller: Caller) {
        if let Some(id) = caller.user() {
            self.participants.write().expect("participants lock").connected(id);
            self.broadcast_presence();
        }
    }

    /// Counts a page of `caller` as gone.
    pub fn disconnected(&self, caller: Caller) {
        if let Some(id) = caller.user() {
            self.participants.write().expect("participants lock").disconnected(id);
            self.broadcast_presence();
        }
    }

    /// Sends everybody the list of participants.
    pub fn broadcast_presence(&self) {
        self.hub.broadcast(&ServerMsg::Presence { participants: self.participants() });
    }

    /// The instructor's settings.
    pub fn settings(&self) -> LabSettings {
        *self.settings.read().expect("settings lock")
    }

    /// Replaces the settings and tells everybody.
    pub fn set_settings(&self, settings: LabSettings) {
        let before = std::mem::replace(&mut *self.settings.write().expect("settings lock"), settings);
        if before.sync != settings.sync {
            // A lab whose thread is gone has no programs to keep together.
            let _ = self.send(LabCommand::Sync { sync: settings.sync });
        }
        self.hub.broadcast(&ServerMsg::Settings(settings));
    }

    /// Sends a notice from `from` to everybody watching.
    pub fn notice(&self, from: &str, message: &str) {
        self.hub.broadcast(&ServerMsg::Notice { from: from.to_owned(), message: message.to_owned() });
    }

    /// The owner of robot `robot`, if a participant added it.
    pub fn owner_of(&self, robot: &str) -> Option<UserId> {
        self.status.borrow().owners.get(robot).copied()
    }

    /// Whether the lab has a robot called `robot`.
    pub fn has_robot(&self, robot: &str) -> bool {
        self.status.borrow().robots.iter().any(|r| r == robot)
    }

    /// How many robots participant `user` has in the lab.
    pub fn robots_of(&self, user: UserId) -> usize {
        self.status.borrow().owners.values().filter(|owner| **owner == user).count()
    }

    /// The names of the robots participant `user` has in the lab.
    pub fn robots_owned_by(&self, user: UserId) -> Vec<String> {
        owned(&self.status.borrow().owners, user)
    }

    /// Closes the lab: its thread stops and every connection is told and closed.
    pub fn close(&self) {
        self.closed.send_replace(true);
        self.shut_down();
    }

    /// Resolves when the lab is closed.
    pub async fn wait_closed(&self) {
        let mut closed = self.closed.subscribe();
        let _ = closed.wait_for(|closed| *closed).await;
    }

    /// Sends a time-control command and waits until it took effect.
    pub async fn control(&self, action: ControlAction) -> Result<LabState, LabError> {
        let answer = self.send_control(action)?;
        self.answer(answer).await
    }

    /// Queues a time-control command now (commands from one caller keep their order)
    /// and gives the receiver of the resulting state, to await elsewhere.
    pub fn send_control(&self, action: ControlAction) -> Result<oneshot::Receiver<LabState>, LabError> {
        self.queue(|reply| LabCommand::Control { action, reply })
    }

    /// The seed of the lab's random generator.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Inserts `addition` into the running lab between two steps, its robots owned by
    /// `owner` (who may have at most `quota` robots afterwards, if given), and starts
    /// `programs` (by robot name); everybody watching receives the new scene. All or
    /// nothing: when refused ([`LabError::Refused`], [`LabError::OverQuota`]) the lab is
    /// unchanged.
    pub async fn insert(
        &self,
        addition: SceneModel,
        owner: Option<Owner>,
        quota: Option<usize>,
        programs: BTreeMap<String, Arc<ProgramCode>>,
        keep_clear: Option<f32>,
    ) -> Result<Inserted, LabError> {
        let addition = Box::new(addition);
        self.request(|reply| LabCommand::Insert { addition, owner, quota, programs, keep_clear, reply }).await?
    }

    /// What a new robot's start must keep clear of, as the lab is now.
    pub async fn start_search(&self) -> Result<crate::placement::StartSearch, LabError> {
        self.request(|reply| LabCommand::StartSearch { reply }).await
    }

    /// The true pose of every body now, indexed like the scene's bodies.
    pub async fn body_poses(&self) -> Result<Vec<Pose>, LabError> {
        self.request(|reply| LabCommand::Poses { reply }).await
    }

    /// Gives robot `robot` a new program (stopping its old one) and starts it.
    pub async fn set_program(&self, robot: &str, code: ProgramCode) -> Result<ProgramStatus, LabError> {
        let code = Arc::new(code);
        let status = self.request(|reply| LabCommand::SetProgram { robot: robot.to_owned(), code, reply }).await?;
        status.ok_or_else(|| self.no_robot(robot))
    }

    /// Restarts or stops robot `robot`'s program; its status afterwards.
    pub async fn program_action(&self, robot: &str, action: ProgramAction) -> Result<ProgramStatus, LabError> {
        let status = self.request(|reply| LabCommand::ProgramAction { robot: robot.to_owned(), action, reply }).await?;
        status.ok_or_else(|| self.no_program(robot))
    }

    /// Attaches a remote controller to robot `robot` in place of its program (it is
    /// greeted and joins at a control step, like a program that started).
    pub async fn attach_remote(&self, robot: &str, controller: RemoteController) -> Result<(), LabError> {
        let attached = self
            .request(|reply| LabCommand::AttachRemote {
                robot: robot.to_owned(),
                controller: Box::new(controller),
                reply,
            })
            .await?;
        attached.map_err(|refused| match refused {
            AttachRefused::NoRobot => self.no_robot(robot),
            AttachRefused::ProgramRunning => LabError::ProgramRunning { robot: robot.to_owned() },
            AttachRefused::AlreadyAttached => LabError::ControllerAttached { robot: robot.to_owned() },
            AttachRefused::TooSoon { faults, wait } => LabError::AttachTooSoon {
                robot: robot.to_owned(),
                faults,
                retry_after_secs: wait.as_secs() + u64::from(wait.subsec_nanos() > 0),
            },
        })
    }

    /// Robot `robot`'s program and its console's latest lines.
    pub async fn program(&self, robot: &str) -> Result<(Arc<ProgramCode>, Vec<ConsoleLine>), LabError> {
        let program = self.request(|reply| LabCommand::Program { robot: robot.to_owned(), reply }).await?;
        match program {
            Some((Some(code), lines)) => Ok((code, lines)),
            _ => Err(self.no_program(robot)),
        }
    }

    /// Robot `robot`'s console's latest lines, its program's or its remote
    /// controller's (empty when it has had neither).
    pub async fn console_lines(&self, robot: &str) -> Result<Vec<ConsoleLine>, LabError> {
        let program = self.request(|reply| LabCommand::Program { robot: robot.to_owned(), reply }).await?;
        Ok(program.map(|(_, lines)| lines).unwrap_or_default())
    }

    /// The recording's open chunk: what happened since the last chunk was kept.
    pub async fn recording_tail(&self) -> Result<super::recording::Chunk, LabError> {
        self.request(|reply| LabCommand::RecordingTail { reply }).await
    }

    /// Where a rewind to `step` of the current run would start re-simulating, or why
    /// the lab cannot go back there (see [`LabCommand::RewindStart`]); the lab goes on
    /// as it was.
    pub async fn rewind_start(&self, step: u64, kept: Vec<(u32, u64)>) -> Result<RewindStart, LabError> {
        self.request(|reply| LabCommand::RewindStart { step, kept, reply }).await?
    }

    /// Rewinds the lab to `step`, re-simulated from `start` with `inputs` (see
    /// [`LabCommand::Rewind`]).
    pub async fn rewind(
        &self,
        start: RewindStart,
        step: u64,
        (inputs, through): (Vec<super::recording::Record>, u64),
    ) -> Result<Rewound, LabError> {
        self.request(|reply| LabCommand::Rewind { start, step, inputs, through, reply }).await?
    }

    /// The scene as viewers have it now (`SceneSnapshot` JSON).
    pub fn snapshot_json(&self) -> Arc<str> {
        self.hub.snapshot_json()
    }

    /// Sends one viewer the current scene and keyframe again (back to live after
    /// seeking).
    pub fn resync(&self, slot: &hub::ClientSlot) {
        self.hub.resync(slot);
    }

    /// New console lines of every robot, as they come (filter by owner before sending).
    pub fn console(&self) -> broadcast::Receiver<Arc<ConsoleEvent>> {
        self.console.subscribe()
    }

    /// Robot `robot`'s report now.
    pub async fn robot_report(&self, robot: &str) -> Result<RobotReport, LabError> {
        let report = self.request(|reply| LabCommand::Robot { robot: robot.to_owned(), reply }).await?;
        report.ok_or_else(|| self.no_robot(robot))
    }

    /// Commands robot `robot`'s actuators by hand (all or nothing); answers with its
    /// report.
    pub async fn actuate(&self, robot: &str, commands: BTreeMap<String, Value>) -> Result<RobotReport, LabError> {
        let outcome = self.request(|reply| LabCommand::Actuate { robot: robot.to_owned(), commands, reply }).await?;
        Ok(outcome.ok_or_else(|| self.no_robot(robot))??)
    }

    /// Removes robot `robot` from the lab and tells everybody who owns what now.
    pub async fn remove_robot(&self, robot: &str) -> Result<(), LabError> {
        if !self.request(|reply| LabCommand::RemoveRobot { robot: robot.to_owned(), reply }).await? {
            return Err(self.no_robot(robot));
        }
        self.broadcast_presence();
        Ok(())
    }

    /// Puts robot `robot` back at its start.
    pub async fn reset_robot(&self, robot: &str) -> Result<(), LabError> {
        let reset = self.request(|reply| LabCommand::ResetRobot { robot: robot.to_owned(), reply }).await??;
        if reset { Ok(()) } else { Err(self.no_robot(robot)) }
    }

    /// Moves the start robot `robot` is put back at to `position` (turned to `heading`,
    /// if given); the robot stays where it is until it is reset.
    pub async fn set_start(&self, robot: &str, position: [f32; 3], heading: Option<f32>) -> Result<(), LabError> {
        let set =
            self.request(|reply| LabCommand::SetStart { robot: robot.to_owned(), position, heading, reply }).await??;
        if set { Ok(()) } else { Err(self.no_robot(robot)) }
    }

    /// Moves body or robot `name` to `position` (turned to `heading`, if given), at rest.
    pub async fn move_object(&self, name: &str, position: [f32; 3], heading: Option<f32>) -> Result<(), LabError> {
        let moved =
            self.request(|reply| LabCommand::Move { name: name.to_owned(), position, heading, reply }).await??;
        if moved { Ok(()) } else { Err(LabError::NoObject { lab: self.id.clone(), name: name.to_owned() }) }
    }

    /// Sets the keys held for robot `robot`.
    pub async fn set_keys(&self, robot: &str, keys: Vec<String>) -> Result<(), LabError> {
        let answer = self.send_keys(robot, keys)?;
        self.keys_outcome(robot, answer).await
    }

    /// Queues new keys for robot `robot` now (one page's key changes keep their order)
    /// and gives the receiver of the outcome, to read with [`LabHandle::keys_outcome`].
    pub fn send_keys(&self, robot: &str, keys: Vec<String>) -> Result<oneshot::Receiver<KeysAnswer>, LabError> {
        self.queue(|reply| LabCommand::Keys { robot: robot.to_owned(), keys, reply })
    }

    /// The outcome of keys queued with [`LabHandle::send_keys`].
    pub async fn keys_outcome(&self, robot: &str, answer: oneshot::Receiver<KeysAnswer>) -> Result<(), LabError> {
        Ok(self.answer(answer).await?.ok_or_else(|| self.no_robot(robot))??)
    }

    /// Sends the command `make` builds around a reply channel and waits for the answer.
    async fn request<T>(&self, make: impl FnOnce(oneshot::Sender<T>) -> LabCommand) -> Result<T, LabError> {
        let answer = self.queue(make)?;
        self.answer(answer).await
    }

    /// Queues the command `make` builds; the answer arrives on the receiver.
    fn queue<T>(&self, make: impl FnOnce(oneshot::Sender<T>) -> LabCommand) -> Result<oneshot::Receiver<T>, LabError> {
        let (reply, answer) = oneshot::channel();
        self.send(make(reply))?;
        Ok(answer)
    }

    /// Waits for an answer; a dropped reply means the lab's thread is gone.
    async fn answer<T>(&self, answer: oneshot::Receiver<T>) -> Result<T, LabError> {
        answer.await.map_err(|_| LabError::Unavailable(self.id.clone()))
    }

    fn no_robot(&self, robot: &str) -> LabError {
        LabError::NoRobot { lab: self.id.clone(), robot: robot.to_owned() }
    }

    fn no_program(&self, robot: &str) -> LabError {
        if self.has_robot(robot) { LabError::NoProgram { robot: robot.to_owned() } } else { self.no_robot(robot) }
    }

    /// A view of the robot reports a connection asks for.
    pub fn telemetry(&self) -> telemetry::Watcher {
        self.telemetry.watcher()
    }

    /// A connection's view of the lab's cameras (the robot's-eye view).
    pub fn camera_watcher(&self) -> super::camera_feed::CameraWatcher {
        self.telemetry.cameras.watcher()
    }

    fn send(&self, command: LabCommand) -> Result<(), LabError> {
        self.commands.lock().expect("command lock").send(command).map_err(|_| LabError::Unavailable(self.id.clone()))
    }

    /// The latest published clock state.
    pub fn state(&self) -> LabState {
        self.status.borrow().state.clone()
    }

    /// The lab as `GET /api/labs` lists it.
    pub fn summary(&self) -> LabSummary {
        let status = self.status.borrow().clone();
        LabSummary {
            id: self.id.clone(),
            name: self.name.clone(),
            state: status.state,
            bodies: status.bodies,
            robots: status.robots,
            viewers: self.hub.viewer_count(),
            participants: self.participants.read().expect("participants lock").count(),
            settings: self.settings(),
            join_code: None,
        }
    }

    /// Joins the lab's viewers.
    pub fn subscribe(&self) -> Subscription {
        self.hub.join()
    }

    /// Stops the lab's thread and waits for it.
    pub fn shut_down(&self) {
        let _ = self.commands.lock().expect("command lock").send(LabCommand::Shutdown);
        if let Some(thread) = self.thread.lock().expect("thread lock").take()
            && thread.join().is_err()
        {
            tracing::error!(lab = %self.id, "the lab thread panicked");
        }
    }
}

impl Drop for LabHandle {
    fn drop(&mut self) {
        let _ = self.commands.get_mut().map(|c| c.send(LabCommand::Shutdown));
    }
}

/// The robots `owners` says `user` owns.
fn owned(owners: &BTreeMap<String, UserId>, user: UserId) -> Vec<String> {
    owners.iter().filter(|(_, owner)| **owner == user).map(|(robot, _)| robot.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use vlab_sim::scene::{SceneError, demo_scene};

    fn open(start_running: bool) -> Arc<LabHandle> {
        LabHandle::open(LabConfig {
            id: "t".into(),
            name: "Test".into(),
            scene: demo_scene(1),
            instructor: TokenDigest::of("secret"),
            start_running,
            seed: 1,
            join_code: "ABCDEF".into(),
            settings: LabSettings::default(),
            students: vec![],
            programs: BTreeMap::new(),
            recording: None,
            first_run: 1,
        })
        .unwrap()
    }

    #[tokio::test]
    async fn step_n_advances_exactly_n_steps_then_pauses() {
        let lab = open(false);
        let state = lab.control(ControlAction::Step { steps: 10 }).await.unwrap();
        assert_eq!(state.step, 10);
        assert_eq!(state.mode, LabMode::Paused);
        let state = lab.control(ControlAction::Step { steps: 25 }).await.unwrap();
        assert_eq!(state.step, 35);
        assert_eq!(lab.state().step, 35);
        assert!((state.time - 35.0 / 240.0).abs() < 1e-12);
    }

    #[tokio::test]
    async fn pause_stops_the_clock_and_resume_restarts_it() {
        let lab = open(true);
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let paused = lab.control(ControlAction::Pause).await.unwrap();
        assert_eq!(paused.mode, LabMode::Paused);
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        assert_eq!(lab.state().step, paused.step);
        lab.control(ControlAction::Resume).await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        assert!(lab.state().step > paused.step);
    }

    #[tokio::test]
    async fn reset_returns_to_step_zero_in_a_new_epoch() {
        let lab = open(false);
        lab.control(ControlAction::Step { steps: 50 }).await.unwrap();
        let state = lab.control(ControlAction::Reset).await.unwrap();
        assert_eq!((state.step, state.epoch, state.mode), (0, 1, LabMode::Paused));
    }

    #[tokio::test]
    async fn a_reset_run_repeats_exactly() {
        let lab = open(false);
        let run = || async {
            // Steps in several commands, as an instructor would.
            for steps in [1, 99, 200] {
                lab.control(ControlAction::Step { steps }).await.unwrap();
            }
            let poses = lab.body_poses().await.unwrap();
            lab.control(ControlAction::Reset).await.unwrap();
            poses
        };
        let first = run().await;
        let second = run().await;
        // Same scene, same seed, same inputs: the same poses, bit for bit.
        assert_eq!(first, second);
    }

    #[tokio::test]
    async fn an_insertion_adds_bodies_between_steps_and_a_failed_one_adds_nothing() {
        let lab = open(false);
        lab.control(ControlAction::Step { steps: 20 }).await.unwrap();
        let before = lab.summary();
        let mut addition = SceneModel::empty();
        addition.bodies.push(demo_scene(1).bodies[5].clone());
        addition.bodies[0].name = "newcomer".into();
        let inserted = lab.insert(addition.clone(), None, None, BTreeMap::new(), None).await.unwrap();
        assert_eq!(inserted.bodies, 1);
        let after = lab.summary();
        assert_eq!(after.bodies, before.bodies + 1);
        assert_eq!(after.state.step, 20, "inserting does not step");
        assert_eq!(after.state.epoch, before.state.epoch + 1);
        // The same name again: refused, nothing changes.
        let refused = lab.insert(addition, None, None, BTreeMap::new(), None).await;
        assert!(matches!(refused, Err(LabError::Refused(SceneError::NameTaken(name))) if name == "newcomer"));
        assert_eq!(lab.summary().bodies, after.bodies);
        // A reset keeps what was inserted, back at its initial pose.
        lab.control(ControlAction::Reset).await.unwrap();
        assert_eq!(lab.summary().bodies, after.bodies);
    }

    #[test]
    fn tokens_map_to_roles() {
        let lab = open(false);
        assert_eq!(lab.role_of(None), Some(Role::Viewer));
        assert_eq!(lab.role_of(Some("secret")), Some(Role::Instructor));
        assert_eq!(lab.role_of(Some("guess")), None);
        assert_eq!(lab.role_of(Some("secre")), None);
    }

    #[test]
    fn a_lab_with_a_broken_scene_does_not_open() {
        let mut scene = demo_scene(1);
        scene.bodies[1].name = "floor".into();
        let result = LabHandle::open(LabConfig {
            id: "bad".into(),
            name: "Bad".into(),
            scene,
            instructor: TokenDigest::of("x"),
            start_running: true,
            seed: 1,
            join_code: "ABCDEF".into(),
            settings: LabSettings::default(),
            students: vec![],
            programs: BTreeMap::new(),
            recording: None,
            first_run: 1,
        });
        assert!(matches!(result, Err(LabError::Scene { .. })));
    }
}
