//! Why a program could not start or was stopped: each failure a student can meet, with a
//! sentence they understand.

use thiserror::Error;

/// Why a robot program could not start, or stopped.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ProgramError {
    /// No usable Python interpreter on the server.
    #[error("cannot run Python programs on this server: {0}")]
    NoInterpreter(String),
    /// The sandbox cannot be enforced here: the program is refused rather than run
    /// unconfined.
    #[error("refused to start the program: the sandbox cannot be enforced on this server ({0})")]
    SandboxUnavailable(String),
    /// The program's files are not acceptable (names, sizes).
    #[error("invalid program: {0}")]
    InvalidProgram(String),
    /// Starting the process failed (an operating-system error).
    #[error("could not start the program: {0}")]
    Start(String),
    /// The program raised an exception it did not catch.
    #[error("stopped: the program raised an exception\n{traceback}")]
    Raised {
        /// The traceback, limited to the program's own files, with line numbers.
        traceback: String,
    },
    /// It used up its CPU time.
    #[error("stopped: used more than {secs} s of CPU")]
    CpuLimit {
        /// The limit, seconds of CPU time.
        secs: u64,
    },
    /// It asked for more memory than allowed.
    #[error("stopped: ran out of memory (limit {mib} MiB)")]
    OutOfMemory {
        /// The limit, MiB of address space.
        mib: u64,
    },
    /// It started more threads than allowed.
    #[error("stopped: started more than {limit} threads")]
    TooManyThreads {
        /// The limit, threads in its process.
        limit: u32,
    },
    /// It printed more than allowed in one control step.
    #[error("stopped: printed more than {bytes} bytes")]
    OutputFlood {
        /// The limit, bytes per control step.
        bytes: usize,
    },
    /// It did not answer a step in time (an endless loop, or too much work per step).
    #[error("stopped: did not answer within {ms} ms")]
    Timeout {
        /// The budget, milliseconds.
        ms: u128,
    },
    /// It needed far more CPU per control step than its share, for long (a real-time
    /// lab would otherwise carry a robot that barely reacts).
    #[error(
        "stopped: used about {cpu_ms} ms of CPU per control step, far over its share of {share_ms} ms, for \
         {for_secs} s of CPU; do less work in each step: compute once and reuse the result, or spread the work \
         over several steps"
    )]
    CpuShare {
        /// Its CPU per control step, milliseconds.
        cpu_ms: u64,
        /// Its share per control step, milliseconds.
        share_ms: u64,
        /// How long it was far over, seconds of its CPU time.
        for_secs: u64,
    },
    /// It stopped answering without computing (blocked on something that never comes).
    #[error("stopped: has not answered for {secs} s while using no CPU (is it waiting for something?)")]
    Silent {
        /// How long it was silent, seconds of wall time.
        secs: u64,
    },
    /// In a lockstep lab, too many of its latest answers kept the lab, and the class
    /// with it, waiting without computing (a sleep, a wait on something else).
    #[error(
        "stopped: {slow} of its last {of} answers kept this lockstep lab, and the whole class, waiting more than \
         {ms} ms each; answer each step within {ms} ms (do not wait or sleep in wall time between steps), or ask \
         the instructor for a real-time lab"
    )]
    HeldTheLab {
        /// Slow answers among the latest.
        slow: usize,
        /// The latest answers counted.
        of: usize,
        /// What a slow answer took at least, milliseconds of wall time.
        ms: u64,
    },
    /// The process exited on its own with a failure code.
    #[error("stopped: exited with code {code}")]
    Exited {
        /// The exit code.
        code: i32,
    },
    /// The process was killed by a signal (a crash in C code, a stack overflow).
    #[error("stopped: crashed ({signal})")]
    Crashed {
        /// The signal's name.
        signal: String,
    },
    /// The program's main file ended (it returned instead of looping on `robot.step()`).
    #[error("the program ended")]
    Ended,
    /// It wrote something that is not the protocol (for instance straight to its file
    /// descriptor 1).
    #[error("stopped: broke the lab protocol ({0})")]
    Protocol(String),
    /// A WebAssembly program ran out of its instruction budget for one step (fuel).
    #[error("stopped: used more than {instructions} instructions in one step (an endless loop?)")]
    FuelExhausted {
        /// The budget, WebAssembly instructions.
        instructions: u64,
    },
    /// A WebAssembly program trapped: an `unreachable`, a stack overflow, a memory
    /// access out of bounds, a division by zero.
    #[error("stopped: the module trapped: {what}")]
    Trapped {
        /// What happened, in words.
        what: String,
    },
    /// A WebAssembly program reported a panic (the Rust SDK does, with the panic's
    /// message and location).
    #[error("stopped: the program panicked: {message}")]
    Panicked {
        /// The panic message and its `file:line:column`.
        message: String,
    },
    /// A remote controller was let go of: it disconnected, stalled or flooded (its
    /// robot holds still; its owner may attach again).
    #[error("remote controller detached: {0}")]
    Detached(String),
    /// The program was stopped by the lab: nothing more can be asked of it.
    #[error("the program was stopped")]
    Stopped,
}
