//! [`WasmLimits`]: the budgets and caps of one WebAssembly program.

use std::time::Duration;

use vlab_protocol::{MAX_DRAWN_TEXTS, MAX_DRAWN_VERTICES};

/// Budgets and caps of one WebAssembly program. The defaults let a 50 Hz controller do
/// a lot of work per step (a scan of thousands of beams, a small planner) while an
/// endless loop is stopped within a few tens of milliseconds.
///
/// CPU is counted in *fuel*, about one unit per WebAssembly instruction, not in wall
/// time: the same program on the same readings is stopped at the same instruction on
/// any machine under any load, so a containment is repeatable. The two wall-time
/// budgets only bound how long a lab waiting for an answer waits (a program runs on a
/// thread of its own, see `WasmWorker`); they never change what a program computes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WasmLimits {
    /// Instructions one control step may run: `post_step` with the readings and the
    /// next `pre_step` together (default 50 million).
    pub fuel_per_step: u64,
    /// Instructions from the start to the first answer: the module's start function,
    /// `init` and the first `pre_step` (default 200 million).
    pub fuel_at_start: u64,
    /// Linear memory (and tables) the module may hold, bytes (default 64 MiB).
    pub memory_bytes: usize,
    /// WebAssembly call stack, bytes (default 512 KiB). It is taken from the stack of
    /// the thread running the module: a program's own thread has this much on top of
    /// a Rust thread's usual 2 MiB; whoever runs a `WasmProgram` on a thread of theirs
    /// must keep it well below that thread's stack.
    pub stack_bytes: usize,
    /// Console output in one control step, bytes (default 16 KiB, as for Python).
    pub output_bytes_per_step: usize,
    /// Largest module accepted, bytes (default 8 MiB): compiling is the one cost fuel
    /// does not count.
    pub module_bytes: usize,
    /// Wall time a lockstep lab waits for the answer to one step (default 500 ms, as
    /// for Python): an overloaded machine, since fuel already bounds the work. Past it
    /// the program is stopped with a timeout.
    pub step_budget: Duration,
    /// Wall time a lab waits for the first answer, `init` included (default 5 s, as
    /// for Python).
    pub startup_budget: Duration,
    /// Points and line vertices one control step may draw, kept ones included
    /// (default `MAX_DRAWN_VERTICES`, the lab's whole budget, as for Python): a call
    /// past it is refused with a status and a console line, and draws nothing.
    pub drawn_vertices_per_step: usize,
    /// Texts one control step may draw, kept ones included (default
    /// `MAX_DRAWN_TEXTS`, as for Python).
    pub drawn_texts_per_step: usize,
}

impl Default for WasmLimits {
    fn default() -> WasmLimits {
        WasmLimits {
            fuel_per_step: 50_000_000,
            fuel_at_start: 200_000_000,
            memory_bytes: 64 * 1024 * 1024,
            stack_bytes: 512 * 1024,
            output_bytes_per_step: 16 * 1024,
            module_bytes: 8 * 1024 * 1024,
            step_budget: Duration::from_millis(500),
            startup_budget: Duration::from_secs(5),
            drawn_vertices_per_step: MAX_DRAWN_VERTICES,
            drawn_texts_per_step: MAX_DRAWN_TEXTS,
        }
    }
}
