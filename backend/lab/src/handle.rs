//! One running lab as the rest of the server sees it: its identity, settings and
//! status, and views of it by concern (its clock, robots, room, programs, recording,
//! viewers and people), each of which sends requests to the lab's thread or reads what it
//! publishes.

mod clock;
mod people;
mod programs;
mod recording;
mod robots;
mod room;
mod viewers;

use std::collections::BTreeMap;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, RwLock};

use tokio::sync::{broadcast, oneshot, watch};
use vlab_protocol::{LabMode, LabSettings, LabState, LabSummary, Rate, ServerMsg, UserId};

pub use clock::LabClock;
pub use people::LabPeople;
pub use programs::LabPrograms;
pub use recording::LabRecording;
pub use robots::{KeysAnswer, LabRobots};
pub use room::LabRoom;
pub use viewers::LabViewers;

use super::commands::LabCommand;
use super::error::LabError;
use super::participants::{self, Participants};
use super::programs::ConsoleEvent;
use super::{frames, hub, runner, telemetry, wire};
use crate::secret::TokenDigest;
use vlab_programs::ProgramCode;
use vlab_sim::robot::Robots;
use vlab_sim::scene::SceneModel;
use vlab_sim::sim::World;

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
    /// Every object (body of no robot) by name, with the participant who added it
    /// (`None`: the lab's own, from its scene or the instructor's scenes).
    pub objects: BTreeMap<String, Option<UserId>>,
    /// The challenge live for every robot, while on and since it ended (owners'
    /// names left empty).
    pub run: Option<vlab_protocol::LiveRun>,
    /// The lab's last checkpoint as the database keeps it (`None`: none taken yet).
    pub checkpoint: Option<Arc<crate::resume::KeptCheckpoint>>,
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
    /// Closed here because another server runs it now (cluster mode): its pages connect
    /// again, and find it there.
    handed_over: std::sync::atomic::AtomicBool,
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
            objects: wire::objects(&scene),
            run: None,
            checkpoint: None,
        };
        let (status_tx, status_rx) = watch::channel(initial);
        let (command_tx, command_rx) = mpsc::channel();
        let telemetry = Arc::new(telemetry::Telemetry::default());
        let (console, _) = broadcast::channel(CONSOLE_BACKLOG);
        let runner = runner::Runner::new(
            runner::StartingWorld { model: scene, world, robots, seed, programs },
            runner::Listeners {
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
            handed_over: std::sync::atomic::AtomicBool::new(false),
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

    /// The seed of the lab's random generator.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Its clock: pause, run, step, rate, reset.
    pub fn clock(&self) -> LabClock<'_> {
        LabClock { lab: self }
    }

    /// Its robots and objects: ownership, insertions, removals, moves, hand commands.
    pub fn robots(&self) -> LabRobots<'_> {
        LabRobots { lab: self }
    }

    /// Its room: read it, change it.
    pub fn room(&self) -> LabRoom<'_> {
        LabRoom { lab: self }
    }

    /// Its robots' programs and remote controllers.
    pub fn programs(&self) -> LabPrograms<'_> {
        LabPrograms { lab: self }
    }

    /// Its recording: the open chunk and rewinds.
    pub fn recording(&self) -> LabRecording<'_> {
        LabRecording { lab: self }
    }

    /// What its viewers receive.
    pub fn viewers(&self) -> LabViewers<'_> {
        LabViewers { lab: self }
    }

    /// Who takes part.
    pub fn people(&self) -> LabPeople<'_> {
        LabPeople { lab: self }
    }

    /// The participant who added object `name` (a body of no robot); `None` for the
    /// lab's own objects (its scene's, those in scenes the instructor inserted) and for
    /// names that are no object.
    pub fn owner_of_object(&self, name: &str) -> Option<UserId> {
        self.status.borrow().objects.get(name).copied().flatten()
    }

    /// From now on the lab steps only while `permit` says so (cluster mode: while this
    /// server holds its lease); once it says no, its time stands still.
    pub fn step_only_while(&self, permit: crate::commands::StepPermit) {
        let _ = self.send(LabCommand::StepOnlyWhile { permit });
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

    /// Closes the lab: its thread stops and every connection is told and closed.
    pub fn close(&self) {
        self.closed.send_replace(true);
        self.shut_down();
    }

    /// Stops the lab here because another server runs it now (cluster mode): closed for
    /// the pages connected here, which are told to connect again; open in the store.
    pub fn hand_over(&self) {
        self.handed_over.store(true, std::sync::atomic::Ordering::Relaxed);
        self.close();
    }

    /// Whether the lab was closed because another server runs it now.
    pub fn handed_over(&self) -> bool {
        self.handed_over.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Resolves when the lab is closed.
    pub async fn wait_closed(&self) {
        let mut closed = self.closed.subscribe();
        let _ = closed.wait_for(|closed| *closed).await;
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

    fn send(&self, command: LabCommand) -> Result<(), LabError> {
        self.commands.lock().expect("command lock").send(command).map_err(|_| LabError::Unavailable(self.id.clone()))
    }

    fn no_robot(&self, robot: &str) -> LabError {
        LabError::NoRobot { lab: self.id.clone(), robot: robot.to_owned() }
    }

    fn no_program(&self, robot: &str) -> LabError {
        if self.robots().has_robot(robot) {
            LabError::NoProgram { robot: robot.to_owned() }
        } else {
            self.no_robot(robot)
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
    use vlab_protocol::{ControlAction, Role};
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
        let state = lab.clock().control(ControlAction::Step { steps: 10 }).await.unwrap();
        assert_eq!(state.step, 10);
        assert_eq!(state.mode, LabMode::Paused);
        let state = lab.clock().control(ControlAction::Step { steps: 25 }).await.unwrap();
        assert_eq!(state.step, 35);
        assert_eq!(lab.clock().state().step, 35);
        assert!((state.time - 35.0 / 240.0).abs() < 1e-12);
    }

    #[tokio::test]
    async fn pause_stops_the_clock_and_resume_restarts_it() {
        let lab = open(true);
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let paused = lab.clock().control(ControlAction::Pause).await.unwrap();
        assert_eq!(paused.mode, LabMode::Paused);
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        assert_eq!(lab.clock().state().step, paused.step);
        lab.clock().control(ControlAction::Resume).await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        assert!(lab.clock().state().step > paused.step);
    }

    #[tokio::test]
    async fn reset_returns_to_step_zero_in_a_new_epoch() {
        let lab = open(false);
        lab.clock().control(ControlAction::Step { steps: 50 }).await.unwrap();
        let state = lab.clock().control(ControlAction::Reset).await.unwrap();
        assert_eq!((state.step, state.epoch, state.mode), (0, 1, LabMode::Paused));
    }

    #[tokio::test]
    async fn a_reset_run_repeats_exactly() {
        let lab = open(false);
        let run = || async {
            // Steps in several commands, as an instructor would.
            for steps in [1, 99, 200] {
                lab.clock().control(ControlAction::Step { steps }).await.unwrap();
            }
            let poses = lab.robots().body_poses().await.unwrap();
            lab.clock().control(ControlAction::Reset).await.unwrap();
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
        lab.clock().control(ControlAction::Step { steps: 20 }).await.unwrap();
        let before = lab.summary();
        let mut addition = SceneModel::empty();
        addition.bodies.push(demo_scene(1).bodies[5].clone());
        addition.bodies[0].name = "newcomer".into();
        let inserted = lab.robots().insert(addition.clone(), None, None, BTreeMap::new(), None).await.unwrap();
        assert_eq!(inserted.bodies, 1);
        let after = lab.summary();
        assert_eq!(after.bodies, before.bodies + 1);
        assert_eq!(after.state.step, 20, "inserting does not step");
        assert_eq!(after.state.epoch, before.state.epoch + 1);
        // The same name again: refused, nothing changes.
        let refused = lab.robots().insert(addition, None, None, BTreeMap::new(), None).await;
        assert!(matches!(refused, Err(LabError::Refused(SceneError::NameTaken(name))) if name == "newcomer"));
        assert_eq!(lab.summary().bodies, after.bodies);
        // A reset keeps what was inserted, back at its initial pose.
        lab.clock().control(ControlAction::Reset).await.unwrap();
        assert_eq!(lab.summary().bodies, after.bodies);
    }

    #[test]
    fn tokens_map_to_roles() {
        let lab = open(false);
        assert_eq!(lab.people().role_of(None), Some(Role::Viewer));
        assert_eq!(lab.people().role_of(Some("secret")), Some(Role::Instructor));
        assert_eq!(lab.people().role_of(Some("guess")), None);
        assert_eq!(lab.people().role_of(Some("secre")), None);
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
