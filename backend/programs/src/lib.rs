//! Robot programs: students' Python in a sandboxed child process, WebAssembly in
//! wasmtime, and remote controllers, each trading readings for commands with its lab.
//!
//! This crate knows nothing of the lab's thread, the network or the physics world: the
//! lab gives a program a robot's readings and gets commands back (`docs/programs.md`).
//!
//! # The protocol (version [`PROGRAM_PROTOCOL_VERSION`]; [`PIPE_PROTOCOL_VERSION`] on the pipe)
//! JSON, one object per line, over the child's stdin (lab → program) and stdout
//! (program → lab):
//!
//! ```text
//! lab:     {"type":"hello","version":2,"robot":"bot","sensors":[{"name":"GPS1","kind":"SimpleGPS"}],
//!           "actuators":[{"name":"M1","kind":"SimpleMotor"}],"dt":0.004166,"control_period":5,
//!           "step":0,"time":0.0,"seed":7}
//! program: {"type":"ready","version":2,"commands":{"M1":{"speed":2.0}},"output":[...]}
//! lab:     {"type":"step","step":5,"time":0.0208,"sensors":{"GPS1":{"type":"vector","values":[0,0,0]}}}
//! program: {"type":"output","output":[{"source":"print","text":"..."}]}      (optional, any number)
//! program: {"type":"commands","step":5,"commands":{"M1":{"speed":2.5}},"output":[...]}
//! ...
//! lab:     {"type":"stop"}
//! program: {"type":"done","output":[...]}
//! ```
//! Sensor values are `vlab_protocol::SensorValue`'s JSON, commands
//! `vlab_protocol::ActuatorCommand`'s (`{"speed"}`, `{"position"}`, `{"v","omega"}`).
//! A sandboxed program's pipe speaks version 4: version 1 with every step in Python's
//! `marshal` format after a line `m<N>` saying its length, a scan's ranges as bytes of
//! little-endian `f64`, left out while they are those of the step before (the `packed`
//! and `marshal` modules); a remote controller's
//! websocket speaks version 1, plain JSON.
//! The program answers every `hello` and `step` exactly once: the commands it set
//! before calling `robot.step()` again, which the lab applies in the next pre-step
//! phase; the readings of a `step` are the post-step values. A program that raised
//! says `{"type":"error","kind":"exception"|"memory","traceback":...}` and exits; one
//! whose main file returned says `done`.
//!
//! # Running programs
//! [`PythonProgram::start`] → [`PythonProgram::receive`] (the `ready`) → per control
//! step [`PythonProgram::send_step`] to every program, then [`PythonProgram::receive`]
//! from every program (they compute concurrently) → [`PythonProgram::stop`]. Each
//! failure is a [`ProgramError`] whose message a student understands; the program is
//! then dead and every other robot goes on.
//!
//! # The sandbox (Linux)
//! See the `sandbox` module and `docs/programs.md`: Landlock (read-only: the
//! interpreter, its libraries, the program's folder), seccomp in two stages (no sockets,
//! no new processes, no exec after Python's own), no network or IPC namespace shared,
//! no capabilities, rlimits. It fails closed: where it cannot be enforced, programs
//! are refused with [`ProgramError::SandboxUnavailable`]. Programs run at niceness 10,
//! on every CPU the server may use but one, which the labs' threads keep
//! ([`placement`]).

use std::time::Duration;

pub use vlab_protocol::MAX_RADIO_SENT_PER_STEP;

pub mod compile;
mod conversation;
mod error;
mod interpreter;
mod launch;
mod marshal;
mod messages;
pub mod native_api;
mod packed;
pub mod placement;
#[cfg(target_os = "linux")]
mod program;
mod remote;
#[cfg(target_os = "linux")]
mod sandbox;
mod wasm;

pub use self::conversation::MAX_CONSOLE_LINE_CHARS;
pub use self::error::ProgramError;
pub use self::interpreter::{Interpreter, PYTHON_ENV};
pub use self::launch::{CodeProblem, ProgramCode, RobotSide, check, control_period, launch};
pub use self::messages::{
    BeliefUpdate, ConsoleLine, ConsoleSource, LabMsg, PIPE_PROTOCOL_VERSION, PROGRAM_PROTOCOL_VERSION, PartInfo,
    ProgramMsg, Reply, StepInput,
};
#[cfg(target_os = "linux")]
pub use self::program::{
    CONSOLE_HISTORY_LINES, MAX_PROGRAM_BYTES, MAX_PROGRAM_FILES, ProgramSpec, PythonProgram, default_programs_dir,
    sweep_program_folders,
};
pub use self::remote::{
    CLOSE_DETACHED, CLOSE_STOPPED, MAX_MESSAGES_AHEAD, PeerClosed, PeerWatch, REMOTE_STALL_LIMIT, RemoteController,
    RemotePeer, ToPeer, remote_pair,
};
pub use self::wasm::{ABI_VERSION, WasmLimits, WasmProgram, WasmSpec, check_module};

/// A running robot program, whatever its runtime: the lab's side of the exchange.
///
/// Per control step the lab hands every program that has answered its last question
/// the new readings ([`Controller::send_step`]) and goes on stepping; at the next
/// control step it collects the answers, either waiting for them
/// ([`Controller::receive`], lockstep) or taking those that have arrived
/// ([`Controller::try_receive`], real time). Every program computes in its own process
/// or thread, so they all think at once while the physics steps. The first answer
/// after starting is for the commands set before the program's first step. Any error
/// means the program is dead: it answers nothing more, and the lab goes on without it.
pub trait Controller: Send {
    /// The robot it drives.
    fn robot(&self) -> &str;
    /// Hands it the readings of one control step, without waiting for it: what does
    /// not go at once (a pipe the program is not reading) is kept and follows at
    /// [`Controller::push`] and at the next look for its answer.
    fn send_step(&mut self, input: &StepInput) -> Result<(), ProgramError>;
    /// Sends on what is kept of the last readings, without waiting; `true` while some
    /// of them are still kept.
    fn push(&mut self) -> Result<bool, ProgramError> {
        Ok(false)
    }
    /// Bytes of the last readings it has not read yet (0 where the runtime takes them
    /// whole: a WebAssembly worker's channel, a remote controller's queue to its task).
    fn unread(&self) -> usize {
        0
    }
    /// Its answer to the start or to the last step sent, waiting up to its step budget
    /// ([`Limits::step_budget`]) for it.
    fn receive(&mut self) -> Result<Reply, ProgramError>;
    /// Its answer to the start or to the last step sent if it has arrived; `None` when
    /// it is still thinking. Never waits.
    fn try_receive(&mut self) -> Result<Option<Reply>, ProgramError>;
    /// The CPU time it has used since it started (its process's or its thread's own
    /// clock, not wall time); `None` where that clock cannot be read.
    fn cpu_time(&self) -> Option<Duration>;
    /// How long it has waited for a CPU since it started, ready to run but not running
    /// (a busy machine's doing, not its own); `None` where that cannot be read.
    fn cpu_wait(&self) -> Option<Duration> {
        None
    }
    /// Ends it, whatever it is doing; `Ok` when it ended cleanly.
    fn stop(&mut self) -> Result<(), ProgramError>;
    /// Marks it let go of for `why`, a rule of the lab it broke (not one of its own
    /// failures), without waiting: a remote controller is told why as its connection
    /// closes. The lab then stops it as any other (in the background).
    fn abandon(&mut self, why: &ProgramError) {
        let _ = why;
    }
    /// Why it stopped, once it has.
    fn error(&self) -> Option<&ProgramError>;
}

/// Budgets and caps of one program. The defaults suit a 48 Hz controller of a
/// student's robot.
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// Wall time a lockstep lab waits for one answer (default 500 ms: generous for a
    /// busy machine, where a slow answer is load, not a runaway program; an endless loop
    /// costs a lockstep lab this much once, then it is stopped). A Python program gets
    /// back the time it waited for a CPU while the lab waited for its answer, up to
    /// [`program::MAX_BUDGET_STRETCH`] budgets in all ([`program::stretched_deadline`]).
    /// A real-time lab never waits; its rules for late programs are the lab's
    /// (`lab::programs`).
    pub step_budget: Duration,
    /// Wall time from the start to its first answer: imports and set-up (default 5 s).
    /// A Python program gets back the time its start waited for a CPU on a busy
    /// machine, up to [`program::MAX_BUDGET_STRETCH`] budgets in all
    /// ([`program::stretched_deadline`]).
    pub startup_budget: Duration,
    /// Wall time it has to end after `stop` before it is killed (default 200 ms).
    pub stop_budget: Duration,
    /// CPU seconds over its whole life (`RLIMIT_CPU`; default 600).
    pub cpu_secs: u64,
    /// Address space, MiB (`RLIMIT_AS`; default 512).
    pub memory_mib: u64,
    /// Open files (`RLIMIT_NOFILE`; default 64).
    pub open_files: u64,
    /// Console output in one control step, bytes (default 16 KiB).
    pub output_bytes_per_step: usize,
    /// Threads in the program's process (default 64): a thread bomb is stopped before
    /// it uses up the host's process ids. `RLIMIT_NPROC` cannot do it: it counts every
    /// process of the server's user, and root is exempt from it.
    pub max_threads: u32,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            step_budget: Duration::from_millis(500),
            startup_budget: Duration::from_secs(5),
            stop_budget: Duration::from_millis(200),
            cpu_secs: 600,
            memory_mib: 512,
            open_files: 64,
            output_bytes_per_step: 16 * 1024,
            max_threads: 64,
        }
    }
}
