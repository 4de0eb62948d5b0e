//! The robots' programs in one lab: started beside the lab's thread, asked in lockstep
//! every control step, their consoles kept and streamed to owners, stopped with their
//! robot. Only the lab's thread holds this.
//!
//! Order within a step (docs/design.md): the commands a program answered at the end of the
//! previous control step reach the actuators in the pre-step phase; after the physics
//! step and the sensors, every due program is sent its readings first and then every
//! answer is collected, so programs in their own processes compute at the same time.
//! Sending and collecting at the same step boundary means a pause never leaves a
//! program waiting on a deadline.
//!
//! While any program is starting, the lab's clock waits for it (up to its start-up
//! budget): a program then always joins at the same step of a run, which keeps runs
//! repeatable.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, TryRecvError};

use tokio::sync::broadcast;
use vlab_protocol::{ActuatorCommands, ConsoleLine, ConsoleSource, ProgramState, ProgramStatus, ServerMsg, UserId};

use crate::controller::{
    self, Controller, PartInfo, ProgramCode, ProgramError, Reply, RobotSide, StepInput, control_period,
};
use crate::robot::{Robot, Robots};

/// Console lines kept per robot, for those who open its console later.
pub const CONSOLE_KEPT_LINES: usize = 200;
/// How often programs run, in simulation time (the default control rate, docs/programs.md).
pub const CONTROL_HZ: f64 = 50.0;

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

/// A program started on a helper thread: running with its first answer, or why not.
type Started = Result<(Box<dyn Controller>, Reply), ProgramError>;

enum Life {
    Starting(Receiver<Started>),
    Running(Box<dyn Controller>),
    Stopped,
}

/// One robot's program.
struct Slot {
    code: Arc<ProgramCode>,
    owner: Option<UserId>,
    life: Life,
    /// Commands answered, for the next pre-step phase.
    commands: Option<ActuatorCommands>,
    console: VecDeque<ConsoleLine>,
    /// Lines not yet sent to the owner.
    unsent: Vec<ConsoleLine>,
}

/// Every program of a lab.
pub struct Programs {
    slots: BTreeMap<String, Slot>,
    seed: u64,
    period: u64,
    console: broadcast::Sender<Arc<ConsoleEvent>>,
}

impl Programs {
    /// No programs yet, in a lab stepping every `dt_secs`.
    pub fn new(seed: u64, dt_secs: f64, console: broadcast::Sender<Arc<ConsoleEvent>>) -> Programs {
        Programs { slots: BTreeMap::new(), seed, period: u64::from(control_period(dt_secs, CONTROL_HZ)), console }
    }

    /// Starts `code` for robot `name` (stopping a program it already runs) on a helper
    /// thread; the lab's clock waits until it answers. `false` when there is no such robot.
    pub fn start(&mut self, name: &str, robots: &mut Robots, code: Arc<ProgramCode>, dt_secs: f64, step: u64) -> bool {
        let Some(robot) = robots.get(name) else { return false };
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
            control_period: self.period as u32,
            step,
            time_secs: step as f64 * dt_secs,
            seed: program_seed(self.seed, name),
        };
        let owner = robot.owner().map(|o| o.id);
        let (done, started) = mpsc::channel();
        let shared = Arc::clone(&code);
        let spawned = std::thread::Builder::new().name(format!("start-{name}")).spawn(move || {
            let result = controller::launch(&shared, side).and_then(|mut program| {
                let first = program.receive()?;
                Ok((program, first))
            });
            let _ = done.send(result);
        });
        let previous = self.slots.remove(name);
        let mut slot = Slot {
            code,
            owner,
            life: Life::Stopped,
            commands: None,
            console: previous.as_ref().map(|p| p.console.clone()).unwrap_or_default(),
            unsent: Vec::new(),
        };
        if let Some(previous) = previous {
            stop_in_background(previous.life);
        }
        match spawned {
            Ok(_) => {
                slot.life = Life::Starting(started);
                slot.say(step, dt_secs, format!("starting {}", slot.code.main));
                robots.set_program(name, slot.status(ProgramState::Starting, None));
            }
            Err(e) => {
                let message = format!("could not start the program: {e}");
                slot.say(step, dt_secs, message.clone());
                robots.set_program(name, slot.status(ProgramState::Stopped, Some(message)));
            }
        }
        self.slots.insert(name.to_owned(), slot);
        self.publish();
        true
    }

    /// Whether a program is still starting (the clock waits).
    pub fn starting(&self) -> bool {
        self.slots.values().any(|s| matches!(s.life, Life::Starting(_)))
    }

    /// Takes in the programs that finished starting; `true` while some still are.
    pub fn poll_started(&mut self, robots: &mut Robots, step: u64, dt_secs: f64) -> bool {
        let mut waiting = false;
        for (name, slot) in &mut self.slots {
            let Life::Starting(started) = &slot.life else { continue };
            match started.try_recv() {
                Err(TryRecvError::Empty) => waiting = true,
                Ok(Ok((program, first))) => {
                    slot.life = Life::Running(program);
                    slot.take_reply(first, step, dt_secs);
                    slot.say(step, dt_secs, "running".into());
                    robots.set_program(name, slot.status(ProgramState::Running, None));
                }
                Ok(Err(error)) => slot.stopped(name, robots, &error, step, dt_secs),
                Err(TryRecvError::Disconnected) => {
                    let error = ProgramError::Start("its start-up thread ended without an answer".into());
                    slot.stopped(name, robots, &error, step, dt_secs);
                }
            }
        }
        self.publish();
        waiting
    }

    /// The pre-step phase: the programs' latest commands reach their robots.
    pub fn pre_step(&mut self, robots: &mut Robots, step: u64, dt_secs: f64) {
        for (name, slot) in &mut self.slots {
            let Some(commands) = slot.commands.take() else { continue };
            if commands.is_empty() {
                continue;
            }
            if let Some(Err(error)) = robots.command(name, &commands) {
                slot.say(step, dt_secs, format!("commands ignored: {error}"));
            }
        }
    }

    /// The post-step phase: on a control step, every running program gets its robot's
    /// readings, then every answer is collected.
    pub fn post_step(&mut self, robots: &mut Robots, step: u64, dt_secs: f64) {
        if !step.is_multiple_of(self.period) || self.slots.is_empty() {
            return;
        }
        let time_secs = step as f64 * dt_secs;
        let mut asked = Vec::new();
        for (name, slot) in &mut self.slots {
            let Life::Running(program) = &mut slot.life else { continue };
            let Some(robot) = robots.get(name) else { continue };
            match program.send_step(&readings(robot, step, time_secs)) {
                Ok(()) => asked.push(name.clone()),
                Err(error) => slot.stopped(name, robots, &error, step, dt_secs),
            }
        }
        for name in asked {
            let slot = self.slots.get_mut(&name).expect("asked programs have slots");
            let Life::Running(program) = &mut slot.life else { continue };
            match program.receive() {
                Ok(reply) => slot.take_reply(reply, step, dt_secs),
                Err(error) => slot.stopped(&name, robots, &error, step, dt_secs),
            }
        }
        self.publish();
    }

    /// Stops robot `name`'s program by request; `false` when it has none.
    pub fn stop(&mut self, name: &str, robots: &mut Robots, step: u64, dt_secs: f64) -> bool {
        let Some(slot) = self.slots.get_mut(name) else { return false };
        let life = std::mem::replace(&mut slot.life, Life::Stopped);
        let was_running = !matches!(life, Life::Stopped);
        stop_in_background(life);
        slot.commands = None;
        if was_running {
            slot.say(step, dt_secs, "stopped by request".into());
        }
        robots.set_program(name, slot.status(ProgramState::Stopped, Some("stopped by request".into())));
        self.publish();
        true
    }

    /// Starts robot `name`'s program again from its beginning; `false` when it has none.
    pub fn restart(&mut self, name: &str, robots: &mut Robots, dt_secs: f64, step: u64) -> bool {
        let Some(code) = self.slots.get(name).map(|s| Arc::clone(&s.code)) else { return false };
        self.start(name, robots, code, dt_secs, step)
    }

    /// Starts every program again (after the lab was reset).
    pub fn restart_all(&mut self, robots: &mut Robots, dt_secs: f64, step: u64) {
        let names: Vec<String> = self.slots.keys().cloned().collect();
        for name in names {
            if !self.restart(&name, robots, dt_secs, step) {
                self.remove(&name);
            }
        }
    }

    /// Stops and forgets robot `name`'s program (the robot is being removed).
    pub fn remove(&mut self, name: &str) {
        if let Some(slot) = self.slots.remove(name) {
            stop_in_background(slot.life);
        }
    }

    /// Robot `name`'s program and its console's latest lines.
    pub fn program(&self, name: &str) -> Option<(Arc<ProgramCode>, Vec<ConsoleLine>)> {
        self.slots.get(name).map(|s| (Arc::clone(&s.code), s.console.iter().cloned().collect()))
    }

    /// Sends every robot's new console lines to those allowed to read them.
    fn publish(&mut self) {
        for (name, slot) in &mut self.slots {
            if slot.unsent.is_empty() {
                continue;
            }
            let lines = std::mem::take(&mut slot.unsent);
            let message = ServerMsg::Console { robot: name.clone(), lines };
            let json = serde_json::to_string(&message).expect("console lines serialise");
            // Nobody listening is fine: the lines are kept for later readers.
            let _ =
                self.console.send(Arc::new(ConsoleEvent { robot: name.clone(), owner: slot.owner, json: json.into() }));
        }
    }
}

impl Drop for Programs {
    fn drop(&mut self) {
        for (_, slot) in std::mem::take(&mut self.slots) {
            stop_in_background(slot.life);
        }
    }
}

impl Slot {
    fn status(&self, state: ProgramState, message: Option<String>) -> ProgramStatus {
        ProgramStatus {
            file: Some(self.code.main.clone()),
            language: Some(self.code.language.as_str().into()),
            state,
            message,
            late: None,
        }
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

    fn take_reply(&mut self, reply: Reply, step: u64, dt_secs: f64) {
        self.commands = Some(reply.actuator_commands());
        for line in reply.console {
            self.push(ConsoleLine { step, time: step as f64 * dt_secs, source: line.source, text: line.text });
        }
    }

    /// The program died: its robot goes on without it, its owner learns why.
    fn stopped(&mut self, name: &str, robots: &mut Robots, error: &ProgramError, step: u64, dt_secs: f64) {
        let life = std::mem::replace(&mut self.life, Life::Stopped);
        stop_in_background(life);
        self.commands = None;
        let message = error.to_string();
        tracing::info!(robot = name, %message, "a robot program stopped");
        self.say(step, dt_secs, message.clone());
        robots.set_program(name, self.status(ProgramState::Stopped, Some(message)));
    }
}

/// A robot's readings as its program receives them.
fn readings(robot: &Robot, step: u64, time_secs: f64) -> StepInput {
    StepInput {
        step,
        time_secs,
        sensors: robot.sensors().iter().map(|s| (s.name().to_owned(), s.last().map(|r| r.measured.clone()))).collect(),
    }
}

/// Ends a program without holding the lab's thread: a program gets its stop budget to
/// finish, and the lab has a class to run.
fn stop_in_background(life: Life) {
    let program = match life {
        Life::Running(program) => program,
        // A program still starting is dropped with its channel; the start-up thread's
        // program is then dropped, which kills it.
        Life::Starting(_) | Life::Stopped => return,
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
