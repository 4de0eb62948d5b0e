//! The robots' programs in one lab: started beside the lab's thread, asked every
//! control step, judged on their CPU time, their consoles kept and streamed to owners,
//! stopped with their robot. Only the lab's thread holds this.
//!
//! # The exchange (docs/programs.md)
//! At each control step, after the physics and the sensors: first the answers to the
//! previous control step's readings are collected, then every program that has
//! answered gets the new readings, and the lab goes on stepping while they compute.
//! An answer reaches the actuators in the pre-step phase after the control step that
//! collected it: one control period of actuation delay, fixed, as on a real robot, and
//! the programs use the other cores while the physics uses this one.
//!
//! A robot whose scene or project file asks for it (`program_rate every_step;`,
//! `RATE:EVERY_STEP`) runs its program at every physics step instead, as the original
//! VLAB did; in a lab that waits (lockstep, stepping) its answer is collected at the
//! same step, so its commands act at the very next physics step: pre-step, actuators,
//! physics, sensors, post-step, as VLAB ran them. At most [`MAX_EVERY_STEP_PROGRAMS`]
//! per lab, since each costs the lab's thread an exchange per physics step.
//!
//! How the collection waits is the lab's [`SyncMode`]:
//! - real time: the lab takes the answers that have arrived and never waits, not even
//!   to write readings a program is not reading (what its pipe does not take follows
//!   at the lab's next looks); a late program's robot keeps its last commands, and the
//!   program gets new readings once it has answered. One that has not read its last
//!   readings is late, and says so (`lab::waits`);
//! - lockstep: the lab waits for every answer (up to the program's step budget), so
//!   every answer applies at the same step in every run. One whose answers keep the lab
//!   waiting too often is stopped, and a robot's remote controllers let go of for
//!   faults one after the other wait longer and longer to attach again
//!   (`lab::waits`).
//!
//! # Starting
//! A program starts on a helper thread; meanwhile its robot holds still and the clock
//! goes on. It joins at the first control step after it is ready. The step it joined
//! at, counted from its start, is kept: when the lab is reset, a lockstep lab holds
//! the program until that step (and waits for it there if it is slower this time), so
//! the run after a reset repeats the one before.
//!
//! # CPU
//! Each program's own CPU clock is read at every control step ([`CpuMeter`]): over its
//! share (a control period's wall time at the lab's rate) it is *late*, which its owner
//! sees in the console and on the robot's status; far over for long, it is stopped.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::time::{Duration, Instant};

use tokio::sync::broadcast;
use vlab_protocol::{
    ActuatorCommands, Belief, ConsoleLine, ConsoleSource, Estimate, Lateness, ProgramState, ProgramStatus, ServerMsg,
    SyncMode, UserId,
};

use super::beliefs::BeliefState;
use super::cpu_meter::{CpuMeter, CpuRules, Verdict};
use super::waits::{
    ReadMeter, ReadVerdict, Reattach, SLOW_ANSWER, SLOW_ANSWERS_LIMIT, SLOW_ANSWERS_WINDOW, SlowAnswers, SlowVerdict,
    shown_lateness,
};
use vlab_programs::{
    self, Controller, PartInfo, PeerWatch, ProgramCode, ProgramError, RemoteController, Reply, RobotSide, StepInput,
    control_period,
};
use vlab_sim::robot::{Robot, Robots};
use vlab_sim::scene::{Footprint, ProgramRate};
use vlab_sim::sim::World;

/// A robot's program status names this as its file while a remote controller drives it.
pub const REMOTE_CONTROLLER: &str = "remote controller";
/// Console lines kept per robot, for those who open its console later.
pub const CONSOLE_KEPT_LINES: usize = 200;
/// How often programs run, in simulation time (the default control rate, docs/programs.md).
pub const CONTROL_HZ: f64 = 50.0;
/// Programs of one lab that may run at every physics step (`program_rate every_step`):
/// each exchange costs the lab's thread its readings, so an every-step program costs
/// it as much as five at the control rate. Past this, a program runs at the control
/// rate, and its console says why.
pub const MAX_EVERY_STEP_PROGRAMS: usize = 8;
/// A program in a real-time lab that has not answered for this long (wall time) while
/// using no CPU (blocked, not computing) is stopped.
pub const SILENCE_LIMIT: Duration = Duration::from_secs(10);

/// New console lines of one robot, for the connections allowed to see them.
#[derive(Debug)]
pub struct ConsoleEvent {
    /// The robot.
    pub robot: String,
    /// Its owner (`None`: the lab's own robot; only the instructor sees its console).
    pub owner: Option<UserId>,
    /// The `ServerMsg::Console` to send, as JSON.
    pub json: Arc<str>,
}

/// When answers are collected relative to the readings they answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Exchange {
    /// Readings of control step k out, answers collected at step k+1 (the lab's way).
    #[default]
    Pipelined,
    /// Readings out and answers in at the same control step, the lab waiting for them
    /// meanwhile: the exchange of earlier versions, kept to measure what pipelining
    /// gains (`cargo xtask bench`).
    SameStep,
}

/// A program started on a helper thread: running with its first answer, or why not.
type Started = Result<(Box<dyn Controller>, Reply), ProgramError>;

/// What starts a robot's controller, on a helper thread: a program launched, or a
/// remote controller greeted.
type Starter = Box<dyn FnOnce(RobotSide) -> Result<Box<dyn Controller>, ProgramError> + Send>;

/// Why a remote controller may not attach to a robot now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttachRefused {
    /// No robot of that name.
    NoRobot,
    /// Its uploaded program is running (or starting): one driver at a time.
    ProgramRunning,
    /// Another remote controller drives it.
    AlreadyAttached,
    /// Its last controllers were let go of for faults one after the other: the next
    /// may attach after `wait`.
    TooSoon {
        /// Faults in a row.
        faults: u32,
        /// How long before one may attach.
        wait: Duration,
    },
}

/// Where a robot's program or remote controller is in its life.
enum ControllerPhase {
    /// Starting on a helper thread; its robot holds still.
    Starting(Receiver<Started>),
    /// Started, with the commands it set before its first step; joins at the next
    /// control step (or at its recorded join step, in a lockstep lab).
    Ready(Box<dyn Controller>, Reply),
    /// Exchanging readings and commands.
    Running(Running),
    Stopped,
}

struct Running {
    program: Box<dyn Controller>,
    /// When the readings it is answering went out, and its CPU clock then.
    asked: Option<(Instant, Option<Duration>)>,
    /// Its CPU clock when the lab last read it (at its latest answer, or as it joined):
    /// a program that has answered waits for its readings without computing, so this
    /// is its clock when they go out, without reading it again (a system call per
    /// program per control step).
    cpu_seen: Option<Duration>,
    meter: Option<CpuMeter>,
    /// The step of the last readings sent: camera images taken since travel whole.
    sent: Option<u64>,
    /// Whether some of the last readings still wait to reach it (a full pipe).
    pushing: bool,
    /// Whether it reads its readings (real time).
    reads: ReadMeter,
    /// Its answers the lab waited long for (lockstep).
    slow: SlowAnswers,
}

/// One robot's program, or the remote controller that drives it instead.
struct RobotDriver {
    /// Its uploaded program (`None`: a robot only a remote controller has driven).
    code: Option<Arc<ProgramCode>>,
    /// Whether the controller in `phase` is a remote one rather than the program.
    remote: bool,
    /// The remote controller's connection, while `remote`.
    peer: Option<PeerWatch>,
    owner: Option<UserId>,
    phase: ControllerPhase,
    /// Whether its program runs at every physics step (`program_rate every_step`).
    every_step: bool,
    /// Physics steps between its exchanges: the lab's control period, or 1 for a
    /// program that runs at every physics step.
    period: u64,
    /// Its CPU share per exchange at 1×: `period` physics steps of simulation time.
    nominal: Duration,
    /// The step its program last started at.
    started_at: u64,
    /// Steps from its start to the control step it joined at, once it has: a reset
    /// lockstep lab joins it there again.
    join_after: Option<u64>,
    /// Where a restarted program must join (lockstep, after a reset).
    join_at: Option<u64>,
    /// Commands answered, for the next pre-step phase.
    commands: Option<ActuatorCommands>,
    /// Late on its CPU (the meter's).
    late: Option<Lateness>,
    /// Late for keeping the lab waiting: readings unread, or slow lockstep answers.
    holding: Option<Lateness>,
    /// When its controller started or attached.
    attached_at: Instant,
    /// When the robot's next remote controller may attach, after faults.
    reattach: Reattach,
    console: VecDeque<ConsoleLine>,
    /// Lines not yet sent to the owner.
    unsent: Vec<ConsoleLine>,
    /// What the program believes and draws (a restarted program starts without).
    belief: BeliefState,
    /// Messages its latest answer sent, for the radio's next routing.
    radio_out: Vec<String>,
}

/// The lab's clock, as the programs' rules need it at one control step.
#[derive(Clone, Copy, Debug)]
pub struct Tick {
    /// The step just taken.
    pub step: u64,
    /// The physics step, seconds.
    pub dt_secs: f64,
    /// How the lab keeps together with its programs now.
    pub sync: SyncMode,
    /// Wall time per simulated second now (1 at 1×; the nominal 1 when not pacing).
    pub wall_per_sim: f64,
}

/// Every program of a lab.
pub struct Programs {
    drivers: BTreeMap<String, RobotDriver>,
    seed: u64,
    period: u64,
    rules: CpuRules,
    exchange: Exchange,
    console: broadcast::Sender<Arc<ConsoleEvent>>,
    /// The lab's static geometry, handed to programs as they start.
    obstacles: Arc<Vec<Footprint>>,
    /// Console lines published since the lab last took them for its recording.
    published: Vec<(String, Vec<ConsoleLine>)>,
    /// What each robot sent by radio this second (its budget).
    airtime: super::radio::Airtime,
}

impl Programs {
    /// No programs yet, in a lab stepping every `dt_secs`.
    pub fn new(seed: u64, dt_secs: f64, console: broadcast::Sender<Arc<ConsoleEvent>>) -> Programs {
        let period = u64::from(control_period(dt_secs, CONTROL_HZ));
        Programs {
            drivers: BTreeMap::new(),
            seed,
            period,
            rules: CpuRules::default(),
            exchange: Exchange::default(),
            console,
            obstacles: Arc::default(),
            published: Vec::new(),
            airtime: Default::default(),
        }
    }

    /// The lab's static geometry changed: programs started from now on get `obstacles`.
    pub fn set_obstacles(&mut self, obstacles: Vec<Footprint>) {
        self.obstacles = Arc::new(obstacles);
    }

    /// The same with other CPU rules (tests of the rules' edges).
    pub fn with_rules(mut self, rules: CpuRules) -> Programs {
        self.rules = rules;
        self
    }

    /// The same with another exchange (the bench's baseline).
    pub fn with_exchange(mut self, exchange: Exchange) -> Programs {
        self.exchange = exchange;
        self
    }

    /// Physics steps per control step.
    pub fn control_period(&self) -> u64 {
        self.period
    }

    /// Starts `code` for robot `name` (stopping a program it already runs) on a helper
    /// thread; its robot holds still until it joins. `false` when there is no such robot.
    pub fn start(&mut self, name: &str, robots: &mut Robots, code: Arc<ProgramCode>, dt_secs: f64, step: u64) -> bool {
        self.launch(name, robots, Some(code), None, dt_secs, step, None)
    }

    /// Attaches a remote controller to robot `name` in place of its program: greeted
    /// on a helper thread, it joins like a program that started, and drives until it
    /// is detached (then its robot holds still) or stopped. Refused while the robot's
    /// program runs or another remote controller drives it.
    pub fn attach(
        &mut self,
        name: &str,
        robots: &mut Robots,
        mut remote: RemoteController,
        dt_secs: f64,
        step: u64,
    ) -> Result<(), AttachRefused> {
        if robots.get(name).is_none() {
            return Err(AttachRefused::NoRobot);
        }
        let code = match self.drivers.get_mut(name) {
            // A controller whose connection is over gives way at once (its client
            // attaching again), even where the lab has not noticed yet (paused): its
            // console first says why it went.
            Some(driver) if !matches!(driver.phase, ControllerPhase::Stopped) && driver.remote => {
                let Some(why) = driver.peer.as_ref().filter(|peer| peer.gone()).map(PeerWatch::why) else {
                    return Err(AttachRefused::AlreadyAttached);
                };
                let error = ProgramError::Detached(why.unwrap_or_else(|| "the remote controller disconnected".into()));
                driver.stopped(name, robots, &error, step, dt_secs);
                driver.code.clone()
            }
            Some(driver) if !matches!(driver.phase, ControllerPhase::Stopped) => {
                return Err(AttachRefused::ProgramRunning);
            }
            Some(driver) => driver.code.clone(),
            None => None,
        };
        let too_soon = self.drivers.get(name).and_then(|driver| {
            let wait = driver.reattach.wait_left(Instant::now())?;
            Some(AttachRefused::TooSoon { faults: driver.reattach.faults(), wait })
        });
        if let Some(refused) = too_soon {
            self.publish();
            return Err(refused);
        }
        let watch = remote.watch();
        let starter: Starter = Box::new(move |side| {
            remote.greet(&side)?;
            Ok(Box::new(remote) as Box<dyn Controller>)
        });
        self.launch(name, robots, code, Some(starter), dt_secs, step, None);
        if let Some(driver) = self.drivers.get_mut(name) {
            driver.peer = Some(watch);
        }
        Ok(())
    }

    /// Starts robot `name`'s controller: `starter`'s (a remote controller), else its
    /// program `code`'s.
    #[allow(clippy::too_many_arguments)]
    fn launch(
        &mut self,
        name: &str,
        robots: &mut Robots,
        code: Option<Arc<ProgramCode>>,
        starter: Option<Starter>,
        dt_secs: f64,
        step: u64,
        join_after: Option<u64>,
    ) -> bool {
        let Some(robot) = robots.get(name) else { return false };
        let remote = starter.is_some();
        let asked = robot.program_rate().or(code.as_ref().and_then(|code| code.rate)).unwrap_or_default();
        let (every_step, refused_rate) = match self.every_step(name, asked, remote) {
            Ok(every_step) => (every_step, None),
            Err(why) => (false, Some(why)),
        };
        let period = if every_step { 1 } else { self.period };
        let starter: Starter = match (starter, &code) {
            (Some(starter), _) => starter,
            (None, Some(code)) => {
                let code = Arc::clone(code);
                Box::new(move |side| vlab_programs::launch(&code, side))
            }
            (None, None) => return false,
        };
        let side = RobotSide {
            robot: name.to_owned(),
            sensors: robot
                .sensors()
                .iter()
                .map(|s| PartInfo { name: s.name().into(), kind: s.kind().into() })
                .collect(),
            actuators: robot
                .actuators()
                .iter()
                .map(|a| PartInfo { name: a.name().into(), kind: a.kind().into() })
                .collect(),
            dt_secs,
            control_period: period as u32,
            step,
            time_secs: step as f64 * dt_secs,
            seed: program_seed(self.seed, name),
            obstacles: Arc::clone(&self.obstacles),
        };
        let owner = robot.owner().map(|o| o.id);
        let (done, started) = mpsc::channel();
        let spawned = std::thread::Builder::new().name(format!("start-{name}")).spawn(move || {
            let result = starter(side).and_then(|mut program| {
                let first = program.receive()?;
                Ok((program, first))
            });
            let _ = done.send(result);
        });
        let previous = self.drivers.remove(name);
        let mut driver = RobotDriver {
            code,
            remote,
            peer: None,
            owner,
            phase: ControllerPhase::Stopped,
            every_step,
            period,
            nominal: Duration::from_secs_f64(period as f64 * dt_secs),
            started_at: step,
            join_after,
            join_at: join_after.map(|after| step + after),
            commands: None,
            late: None,
            holding: None,
            attached_at: Instant::now(),
            reattach: previous.as_ref().map(|p| p.reattach).unwrap_or_default(),
            console: previous.as_ref().map(|p| p.console.clone()).unwrap_or_default(),
            unsent: Vec::new(),
            belief: BeliefState::default(),
            radio_out: Vec::new(),
        };
        if let Some(previous) = previous {
            stop_in_background(previous.phase);
        }
        robots.hold(name);
        match spawned {
            Ok(_) => {
                driver.phase = ControllerPhase::Starting(started);
                driver.say(step, dt_secs, driver.starting_words());
                if let Some(why) = refused_rate {
                    driver.say(step, dt_secs, why);
                }
                robots.set_program(name, driver.status(ProgramState::Starting, None));
            }
            Err(e) => {
                let message = format!("could not start the program: {e}");
                driver.say(step, dt_secs, message.clone());
                robots.set_program(name, driver.status(ProgramState::Stopped, Some(message)));
            }
        }
        self.drivers.insert(name.to_owned(), driver);
        self.publish();
        true
    }

    /// Whether robot `name` runs its program at every physics step when it asks for
    /// `rate`, or why not: remote controllers answer over the network, so they run at
    /// the control rate; past [`MAX_EVERY_STEP_PROGRAMS`], so does a program.
    fn every_step(&self, name: &str, rate: ProgramRate, remote: bool) -> Result<bool, String> {
        if rate == ProgramRate::Control {
            return Ok(false);
        }
        if remote {
            return Err("a remote controller runs at the control rate, not at every physics step".into());
        }
        let others = self
            .drivers
            .iter()
            .filter(|(other, driver)| {
                *other != name && driver.every_step && !matches!(driver.phase, ControllerPhase::Stopped)
            })
            .count();
        if others >= MAX_EVERY_STEP_PROGRAMS {
            return Err(format!(
                "runs at the control rate, not at every physics step: {MAX_EVERY_STEP_PROGRAMS} programs of this lab \
                 already run at every step, the most a lab takes"
            ));
        }
        Ok(true)
    }

    /// Whether a program is still starting.
    pub fn starting(&self) -> bool {
        self.drivers.values().any(|s| matches!(s.phase, ControllerPhase::Starting(_)))
    }

    /// Takes in the programs that finished starting, without waiting for any: they
    /// join at the next control step. `true` while some are still starting.
    pub fn poll_started(&mut self, robots: &mut Robots, step: u64, dt_secs: f64) -> bool {
        let mut waiting = false;
        for (name, driver) in &mut self.drivers {
            let ControllerPhase::Starting(started) = &driver.phase else { continue };
            match started.try_recv() {
                Err(TryRecvError::Empty) => waiting = true,
                Ok(result) => driver.started(name, robots, result, step, dt_secs),
                Err(TryRecvError::Disconnected) => driver.start_thread_gone(name, robots, step, dt_secs),
            }
        }
        self.publish();
        waiting
    }

    /// The pre-step phase: the programs' latest commands reach their robots.
    ///
    /// Returns the commands that reached the robots, for the lab's recording.
    pub fn pre_step(&mut self, robots: &mut Robots, step: u64, dt_secs: f64) -> Vec<(String, ActuatorCommands)> {
        let mut applied = Vec::new();
        for (name, driver) in &mut self.drivers {
            let Some(commands) = driver.commands.take() else { continue };
            if commands.is_empty() {
                continue;
            }
            match robots.command(name, &commands) {
                Some(Err(error)) => driver.say(step, dt_secs, format!("commands ignored: {error}")),
                Some(Ok(())) => applied.push((name.clone(), commands)),
                None => {}
            }
        }
        applied
    }

    /// The console lines published since the last call, by robot, for the recording.
    pub fn take_published(&mut self) -> Vec<(String, Vec<ConsoleLine>)> {
        std::mem::take(&mut self.published)
    }

    /// Every program's latest estimate: robot, step, time, estimate.
    pub fn estimates(&self) -> impl Iterator<Item = (&str, u64, f64, Estimate)> {
        self.drivers.iter().filter_map(|(name, driver)| {
            driver.belief.estimate().map(|(step, time, estimate)| (name.as_str(), step, time, estimate))
        })
    }

    /// The post-step phase: for every program whose exchange falls on this step (each
    /// control step, or each step for one that runs at every step), a program that is
    /// ready joins, answers are collected, and every program that has answered gets the
    /// new readings (see the module's documentation for the order and the waiting).
    pub fn post_step(&mut self, robots: &mut Robots, world: &World, tick: Tick) {
        let (rules, exchange) = (self.rules, self.exchange);
        let (mut due, mut pipelined, mut same_step) = (false, false, false);
        // Every answer is in before anybody is asked: the radio delivers what the answers
        // sent with the readings of this step, whoever's name comes first.
        for (name, driver) in &mut self.drivers {
            if !tick.step.is_multiple_of(driver.period) {
                driver.push_rest(name, robots, tick);
                continue;
            }
            due = true;
            driver.join(name, robots, tick, rules);
            if driver.same_step(exchange, tick.sync) {
                same_step = true;
            } else {
                driver.collect(name, robots, tick);
                pipelined = true;
            }
        }
        if !due {
            return;
        }
        if pipelined {
            self.route_radio(robots, world, tick);
        }
        for (name, driver) in &mut self.drivers {
            if tick.step.is_multiple_of(driver.period) {
                driver.ask(name, robots, tick);
            }
        }
        if same_step {
            for (name, driver) in &mut self.drivers {
                if tick.step.is_multiple_of(driver.period) && driver.same_step(exchange, tick.sync) {
                    driver.collect(name, robots, tick);
                }
            }
            self.route_radio(robots, world, tick);
        }
        self.publish();
    }

    /// Hands the messages the answers sent to the lab's radio; what it refused goes
    /// to the sender's console.
    fn route_radio(&mut self, robots: &mut Robots, world: &World, tick: Tick) {
        let outgoing = self
            .drivers
            .iter_mut()
            .filter(|(_, driver)| !driver.radio_out.is_empty())
            .map(|(name, driver)| (name.clone(), std::mem::take(&mut driver.radio_out)))
            .collect();
        let time = tick.step as f64 * tick.dt_secs;
        for (robot, refused) in super::radio::route(robots, world, &mut self.airtime, outgoing, tick.step, time) {
            if let Some(driver) = self.drivers.get_mut(&robot) {
                driver.say(tick.step, tick.dt_secs, refused.to_string());
            }
        }
    }
    /// Stops robot `name`'s program by request; `false` when it has none.
    pub fn stop(&mut self, name: &str, robots: &mut Robots, step: u64, dt_secs: f64) -> bool {
        let Some(driver) = self.drivers.get_mut(name) else { return false };
        let phase = std::mem::replace(&mut driver.phase, ControllerPhase::Stopped);
        let was_running = !matches!(phase, ControllerPhase::Stopped);
        stop_in_background(phase);
        driver.commands = None;
        driver.late = None;
        driver.holding = None;
        // A remote controller's robot holds still; a program's keeps its last commands.
        let detached = std::mem::take(&mut driver.remote);
        if detached {
            robots.hold(name);
        }
        let words = if detached { "remote controller detached by request" } else { "stopped by request" };
        if was_running {
            driver.say(step, dt_secs, words.into());
        }
        robots.set_program(name, driver.status(ProgramState::Stopped, Some(words.into())));
        self.publish();
        true
    }

    /// Starts robot `name`'s program again from its beginning; `false` when it has none.
    pub fn restart(&mut self, name: &str, robots: &mut Robots, dt_secs: f64, step: u64) -> bool {
        let Some(code) = self.drivers.get(name).and_then(|s| s.code.clone()) else {
            // A robot only a remote controller drove: a restart lets it go.
            self.detach(name, robots, step, dt_secs);
            return false;
        };
        self.start(name, robots, code, dt_secs, step)
    }

    /// Stops the remote controller of a robot that has no program of its own.
    fn detach(&mut self, name: &str, robots: &mut Robots, step: u64, dt_secs: f64) {
        if self.drivers.get(name).is_some_and(|s| s.remote) {
            self.stop(name, robots, step, dt_secs);
        }
    }

    /// Starts every program again (after the lab was reset), each to join as many
    /// steps after its start as it did before, so a lockstep run repeats.
    pub fn restart_all(&mut self, robots: &mut Robots, dt_secs: f64, step: u64) {
        let again: Vec<(String, Option<Arc<ProgramCode>>, Option<u64>)> =
            self.drivers.iter().map(|(name, driver)| (name.clone(), driver.code.clone(), driver.join_after)).collect();
        for (name, code, join_after) in again {
            // A remote controller is stopped (it cannot be restarted from here); the
            // robot's own program, if it has one, starts again like every other.
            if !self.launch(&name, robots, code, None, dt_secs, step, join_after) {
                self.remove(&name);
                robots.hold(&name);
            }
        }
    }

    /// Stops and forgets robot `name`'s program (the robot is being removed).
    pub fn remove(&mut self, name: &str) {
        if let Some(driver) = self.drivers.remove(name) {
            stop_in_background(driver.phase);
        }
    }

    /// Robot `name`'s program and its console's latest lines.
    /// (`None` for the code of a robot only a remote controller drove).
    pub fn program(&self, name: &str) -> Option<(Option<Arc<ProgramCode>>, Vec<ConsoleLine>)> {
        let driver = self.drivers.get(name)?;
        Some((driver.code.clone(), driver.console.iter().cloned().collect()))
    }

    /// What robot `name`'s program believes and draws, if it published anything.
    pub fn belief(&self, name: &str) -> Option<Belief> {
        self.drivers.get(name)?.belief.view(name)
    }

    /// Sends every robot's new console lines to those allowed to read them.
    fn publish(&mut self) {
        for (name, driver) in &mut self.drivers {
            if driver.unsent.is_empty() {
                continue;
            }
            let lines = std::mem::take(&mut driver.unsent);
            self.published.push((name.clone(), lines.clone()));
            let message = ServerMsg::Console { robot: name.clone(), lines };
            let json = serde_json::to_string(&message).expect("console lines serialise");
            // Nobody listening is fine: the lines are kept for later readers.
            let _ = self.console.send(Arc::new(ConsoleEvent {
                robot: name.clone(),
                owner: driver.owner,
                json: json.into(),
            }));
        }
    }
}

impl Drop for Programs {
    fn drop(&mut self) {
        for (_, driver) in std::mem::take(&mut self.drivers) {
            stop_in_background(driver.phase);
        }
    }
}

impl RobotDriver {
    fn status(&self, state: ProgramState, message: Option<String>) -> ProgramStatus {
        let (file, language) = match (&self.code, self.remote) {
            (_, true) => (Some(REMOTE_CONTROLLER.to_owned()), None),
            (Some(code), false) => (Some(code.main.clone()), Some(code.language.as_str().into())),
            (None, false) => (None, None),
        };
        let state = if file.is_none() { ProgramState::None } else { state };
        ProgramStatus {
            file,
            language,
            state,
            message,
            late: if state == ProgramState::Running { shown_lateness(self.late, self.holding) } else { None },
        }
    }

    /// The console's line as it starts.
    fn starting_words(&self) -> String {
        match (&self.code, self.remote) {
            (_, true) => "a remote controller attached: it drives the robot from the next control step".into(),
            (Some(code), false) => format!("starting {}", code.main),
            (None, false) => "starting".into(),
        }
    }

    /// The start-up thread answered.
    fn started(&mut self, name: &str, robots: &mut Robots, result: Started, step: u64, dt_secs: f64) {
        match result {
            Ok((program, first)) => {
                self.phase = ControllerPhase::Ready(program, first);
                self.say(step, dt_secs, "loaded: it takes over the robot at its next control step".into());
                robots.set_program(name, self.status(ProgramState::Running, None));
            }
            Err(error) => self.stopped(name, robots, &error, step, dt_secs),
        }
    }

    fn start_thread_gone(&mut self, name: &str, robots: &mut Robots, step: u64, dt_secs: f64) {
        let error = ProgramError::Start("its start-up thread ended without an answer".into());
        self.stopped(name, robots, &error, step, dt_secs);
    }

    /// A program that is ready joins at this control step, unless a lockstep lab
    /// holds it for its recorded join step; a lockstep lab at that step waits for a
    /// program still starting.
    fn join(&mut self, name: &str, robots: &mut Robots, tick: Tick, rules: CpuRules) {
        let replaying = tick.sync == SyncMode::Lockstep && self.join_at.is_some();
        if replaying && self.join_at.is_some_and(|at| tick.step < at) {
            return;
        }
        if let ControllerPhase::Starting(started) = &self.phase {
            let result =
                if replaying { started.recv().map_err(|_| TryRecvError::Disconnected) } else { started.try_recv() };
            match result {
                Err(TryRecvError::Empty) => return,
                Ok(result) => self.started(name, robots, result, tick.step, tick.dt_secs),
                Err(TryRecvError::Disconnected) => self.start_thread_gone(name, robots, tick.step, tick.dt_secs),
            }
        }
        let ControllerPhase::Ready(..) = &self.phase else { return };
        let ControllerPhase::Ready(program, first) = std::mem::replace(&mut self.phase, ControllerPhase::Stopped)
        else {
            unreachable!()
        };
        let cpu_seen = program.cpu_time();
        let meter = cpu_seen.map(|now| CpuMeter::new(rules, self.nominal, now));
        self.phase = ControllerPhase::Running(Running {
            program,
            asked: None,
            cpu_seen,
            meter,
            sent: None,
            pushing: false,
            reads: ReadMeter::default(),
            slow: SlowAnswers::default(),
        });
        let after = tick.step - self.started_at;
        self.join_after = Some(after);
        self.join_at = None;
        self.take_reply(first, tick.step, tick.dt_secs);
        let waited = match after {
            0 => String::new(),
            1 => " (1 step after it was started)".into(),
            n => format!(" ({n} steps after it was started)"),
        };
        let rate = if self.every_step { ", at every physics step" } else { "" };
        self.say(tick.step, tick.dt_secs, format!("running from step {}{waited}{rate}", tick.step));
        robots.set_program(name, self.status(ProgramState::Running, None));
    }

    /// Takes the answer to the readings out, if there is one: waiting for it in a
    /// lockstep lab, taking it only if it has arrived in a real-time one. Then judges
    /// the program's CPU time.
    fn collect(&mut self, name: &str, robots: &mut Robots, tick: Tick) {
        // Its share: the wall time its period of simulation lasts at the lab's rate.
        let share = Duration::from_secs_f64(self.nominal.as_secs_f64() * tick.wall_per_sim);
        let ControllerPhase::Running(running) = &mut self.phase else { return };
        let Some((asked_at, cpu_at_ask)) = running.asked else { return };
        let waiting_since = Instant::now();
        // Read only where the lab waits: a lockstep answer is judged on the time the
        // program itself took, without the time it waited for a CPU.
        let cpu_wait_before = if tick.sync == SyncMode::Lockstep { running.program.cpu_wait() } else { None };
        let answer = match tick.sync {
            SyncMode::Lockstep => running.program.receive().map(Some),
            SyncMode::Realtime => running.program.try_receive(),
        };
        let lab_waited = waiting_since.elapsed();
        let cpu_now = running.program.cpu_time();
        running.cpu_seen = cpu_now;
        let verdict = match (&answer, cpu_now, running.meter.as_mut()) {
            (Ok(Some(_)), Some(now), Some(meter)) => Some(meter.answered(now, share)),
            (Ok(None), Some(now), Some(meter)) => Some(meter.waiting(now, share)),
            _ => None,
        };
        // Silent: no answer for long, and next to no CPU spent on one (a computing
        // program, however starved of CPU, is the meter's to judge).
        let waited = asked_at.elapsed();
        let computed = match (cpu_at_ask, cpu_now) {
            (Some(then), Some(now)) => now.saturating_sub(then),
            _ => Duration::ZERO,
        };
        let silent = matches!(answer, Ok(None)) && waited >= SILENCE_LIMIT && computed < waited / 100;
        let (reading, unread) = match &answer {
            Ok(None) => {
                let unread = running.program.unread();
                (running.reads.looked(unread), unread)
            }
            Ok(Some(_)) => (running.reads.answered(), 0),
            Err(_) => (ReadVerdict::Unchanged, 0),
        };
        let holding = match (&answer, tick.sync) {
            (Ok(Some(_)), SyncMode::Lockstep) => {
                let computed = cpu_at_ask.zip(cpu_now).map(|(then, now)| now.saturating_sub(then));
                let queued = match (cpu_wait_before, running.program.cpu_wait()) {
                    (Some(then), Some(now)) => now.saturating_sub(then),
                    _ => Duration::ZERO,
                };
                let slow = SlowAnswers::is_slow(lab_waited.saturating_sub(queued), computed);
                Some((running.slow.record(slow), lab_waited))
            }
            _ => None,
        };
        match answer {
            Ok(Some(reply)) => {
                running.asked = None;
                self.take_reply(reply, tick.step, tick.dt_secs);
            }
            Ok(None) if silent => {
                let error = ProgramError::Silent { secs: SILENCE_LIMIT.as_secs() };
                return self.stopped(name, robots, &error, tick.step, tick.dt_secs);
            }
            Ok(None) => {}
            Err(error) => return self.stopped(name, robots, &error, tick.step, tick.dt_secs),
        }
        self.reading(name, robots, reading, unread, tick);
        if let Some((verdict, waited)) = holding
            && !self.held(name, robots, verdict, waited, tick)
        {
            return;
        }
        if let Some(verdict) = verdict {
            self.judged(name, robots, verdict, tick);
        }
    }

    /// What the lab's look at its reading said: the status and console follow.
    fn reading(&mut self, name: &str, robots: &mut Robots, verdict: ReadVerdict, unread: usize, tick: Tick) {
        match verdict {
            ReadVerdict::Unchanged => return,
            ReadVerdict::BecameLate => {
                let kib = unread.div_ceil(1024);
                self.holding = Some(Lateness { unread_bytes: Some(unread as u64), ..Lateness::cpu(0.0, 0.0) });
                let what = if self.remote { "controller" } else { "program" };
                self.say(
                    tick.step,
                    tick.dt_secs,
                    format!(
                        "late: this {what} has not read its last readings ({kib} KiB still unread), so its robot \
                         keeps its last commands and it gets no new readings until it reads them"
                    ),
                );
            }
            ReadVerdict::OnTimeAgain => {
                self.holding = None;
                self.say(tick.step, tick.dt_secs, "on time again".into());
            }
        }
        robots.set_program(name, self.status(ProgramState::Running, None));
    }

    /// What one answer a lockstep lab waited `waited` for did to its account of slow
    /// answers: the status and console follow, and the instructor's log names who holds
    /// the lab; past the limit it is stopped (`false`).
    fn held(&mut self, name: &str, robots: &mut Robots, verdict: SlowVerdict, waited: Duration, tick: Tick) -> bool {
        let (step, dt) = (tick.step, tick.dt_secs);
        let ms = waited.as_secs_f64() * 1e3;
        match verdict {
            SlowVerdict::Unchanged if self.holding.is_some_and(|h| h.waited_ms.is_some()) && waited > SLOW_ANSWER => {
                self.holding = Some(Lateness { waited_ms: Some(ms), ..Lateness::cpu(0.0, 0.0) });
            }
            SlowVerdict::Unchanged => return true,
            SlowVerdict::BecameSlow { slow } => {
                tracing::warn!(robot = name, waited_ms = ms.round(), "a lockstep lab waits for this robot's answers");
                self.holding = Some(Lateness { waited_ms: Some(ms), ..Lateness::cpu(0.0, 0.0) });
                let limit = SLOW_ANSWER.as_millis();
                self.say(
                    step,
                    dt,
                    format!(
                        "holding the lab: this lockstep lab waited {ms:.0} ms for this answer, and the whole class \
                         with it; {slow} of the last {SLOW_ANSWERS_WINDOW} answers took over {limit} ms, and at \
                         {SLOW_ANSWERS_LIMIT} it is stopped"
                    ),
                );
            }
            SlowVerdict::FastAgain => {
                self.holding = None;
                self.say(step, dt, "on time again".into());
            }
            SlowVerdict::TooMany { slow } => {
                let ms = SLOW_ANSWER.as_millis() as u64;
                let held = ProgramError::HeldTheLab { slow, of: SLOW_ANSWERS_WINDOW, ms };
                let error = if self.remote {
                    ProgramError::Detached(held.to_string().replacen("stopped: ", "", 1))
                } else {
                    held
                };
                if let ControllerPhase::Running(running) = &mut self.phase {
                    running.program.abandon(&error);
                }
                self.stopped(name, robots, &error, step, dt);
                return false;
            }
        }
        robots.set_program(name, self.status(ProgramState::Running, None));
        true
    }

    /// Between its exchanges: sends on the readings a full pipe did not take, without
    /// waiting, so a program that reads them late is not kept waiting for the rest.
    fn push_rest(&mut self, name: &str, robots: &mut Robots, tick: Tick) {
        let ControllerPhase::Running(running) = &mut self.phase else { return };
        if !running.pushing {
            return;
        }
        match running.program.push() {
            Ok(more) => running.pushing = more,
            Err(error) => self.stopped(name, robots, &error, tick.step, tick.dt_secs),
        }
    }

    /// Whether its answer is collected at the step its readings went out: in the
    /// baseline exchange, and for a program that runs at every physics step in a lab
    /// that waits for it anyway (VLAB's order). Otherwise at its next exchange.
    fn same_step(&self, exchange: Exchange, sync: SyncMode) -> bool {
        exchange == Exchange::SameStep || (self.every_step && sync == SyncMode::Lockstep)
    }

    /// Hands a running program that has answered the readings of its exchange.
    fn ask(&mut self, name: &str, robots: &mut Robots, tick: Tick) {
        let ControllerPhase::Running(running) = &mut self.phase else { return };
        if running.asked.is_some() {
            return;
        }
        let Some(robot) = robots.get(name) else { return };
        let time_secs = tick.step as f64 * tick.dt_secs;
        match running.program.send_step(&readings(robot, tick.step, time_secs, running.sent)) {
            Ok(()) => {
                running.asked = Some((Instant::now(), running.cpu_seen));
                running.sent = Some(tick.step);
                running.pushing = true;
            }
            Err(error) => self.stopped(name, robots, &error, tick.step, tick.dt_secs),
        }
    }

    /// What the CPU meter said: the status and console follow; far over, it stops.
    fn judged(&mut self, name: &str, robots: &mut Robots, verdict: Verdict, tick: Tick) {
        let (step, dt) = (tick.step, tick.dt_secs);
        match verdict {
            Verdict::OnTime => return,
            Verdict::BecameLate(lateness) => {
                self.late = Some(lateness);
                self.say(
                    step,
                    dt,
                    format!(
                        "{}: this program needs more CPU per control step than its share, so its robot keeps \
                         its last commands until it answers; do less work per step",
                        lateness.badge()
                    ),
                );
            }
            Verdict::StillLate(lateness) => self.late = Some(lateness),
            Verdict::OnTimeAgain => {
                self.late = None;
                self.say(step, dt, "on time again".into());
            }
            Verdict::FarOver { cpu_ms, share_ms, for_secs } => {
                let error = ProgramError::CpuShare {
                    cpu_ms: cpu_ms.round() as u64,
                    share_ms: share_ms.round() as u64,
                    for_secs: for_secs.round() as u64,
                };
                return self.stopped(name, robots, &error, step, dt);
            }
        }
        robots.set_program(name, self.status(ProgramState::Running, None));
    }

    /// A line from the lab itself.
    fn say(&mut self, step: u64, dt_secs: f64, text: String) {
        self.push(ConsoleLine { step, time: step as f64 * dt_secs, source: ConsoleSource::Lab, text });
    }

    fn push(&mut self, line: ConsoleLine) {
        if self.console.len() == CONSOLE_KEPT_LINES {
            self.console.pop_front();
        }
        self.console.push_back(line.clone());
        self.unsent.push(line);
    }

    /// Keeps an answer's commands for the next pre-step phase; its console lines are
    /// stamped with the step whose readings it answered (the program's own clock).
    fn take_reply(&mut self, reply: Reply, step: u64, dt_secs: f64) {
        self.commands = Some(reply.actuator_commands());
        self.radio_out.extend(reply.radio);
        let step = reply.step.unwrap_or(step);
        for line in reply.console {
            self.push(ConsoleLine { step, time: step as f64 * dt_secs, source: line.source, text: line.text });
        }
        if let Some(problem) = self.belief.apply(reply.belief, step, step as f64 * dt_secs) {
            self.say(step, dt_secs, problem);
        }
    }

    /// The program died: its robot goes on without it, its owner learns why. A remote
    /// controller let go of leaves its robot holding still, and the robot's program
    /// (if it has one) stopped.
    fn stopped(&mut self, name: &str, robots: &mut Robots, error: &ProgramError, step: u64, dt_secs: f64) {
        let phase = std::mem::replace(&mut self.phase, ControllerPhase::Stopped);
        stop_in_background(phase);
        self.commands = None;
        self.late = None;
        self.holding = None;
        let mut message = error.to_string();
        tracing::info!(robot = name, %message, "a robot program stopped");
        let remote = std::mem::take(&mut self.remote);
        if remote {
            robots.hold(name);
        }
        // A client that said it is done is no fault.
        if remote && *error != ProgramError::Ended {
            let wait = self.reattach.fault(Instant::now(), self.attached_at.elapsed());
            if !wait.is_zero() {
                let faults = self.reattach.faults();
                let secs = wait.as_secs();
                message = format!(
                    "{message} ({faults} controllers in a row let go of for faults: the next may attach in {secs} s)"
                );
            }
        }
        self.say(step, dt_secs, message.clone());
        robots.set_program(name, self.status(ProgramState::Stopped, Some(message)));
    }
}

/// A robot's readings as its program receives them (camera images taken after step
/// `sent` with their pixels).
fn readings(robot: &Robot, step: u64, time_secs: f64, sent: Option<u64>) -> StepInput {
    StepInput {
        step,
        time_secs,
        sensors: robot.sensors().iter().map(|s| (s.name().to_owned(), s.measured_for_program(sent))).collect(),
    }
}

/// Ends a program without holding the lab's thread: a program gets its stop budget to
/// finish, and the lab has a class to run.
fn stop_in_background(phase: ControllerPhase) {
    let program = match phase {
        ControllerPhase::Running(Running { program, .. }) | ControllerPhase::Ready(program, _) => program,
        // A program still starting is dropped with its channel; the start-up thread's
        // program is then dropped, which kills it.
        ControllerPhase::Starting(_) | ControllerPhase::Stopped => return,
    };
    let spawned = std::thread::Builder::new().name("stop-program".into()).spawn(move || {
        let mut program = program;
        let _ = program.stop();
    });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "could not stop a program on its own thread");
    }
}

/// Each robot's program gets its own seed, from the lab's and the robot's name
/// (FNV-1a), so two robots running the same program do not draw the same numbers.
fn program_seed(lab_seed: u64, robot: &str) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325_u64 ^ lab_seed;
    for byte in robot.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}
