//! [`WasmProgram`]: one robot's WebAssembly program, run synchronously on the thread
//! calling it, under a fuel budget and a memory cap. The lab runs it on a thread of its
//! own, through `WasmWorker`.

use std::collections::{BTreeMap, VecDeque};

use wasmtime::{Store, TypedFunc};

use super::abi::{
    ABI_VERSION, EXPORT_ABI_VERSION, EXPORT_INIT, EXPORT_INITIALIZE, EXPORT_MEMORY, EXPORT_POST_STEP, EXPORT_PRE_STEP,
    EXPORT_PROGRAM_NAME,
};
use super::belief::Sketch;
use super::host::{HostState, MemoryCap};
use super::readings::Reading;
use super::trap::program_error;
use super::wasi::WasiState;
use super::{WasmLimits, WasmSpec, engine};
use crate::{CONSOLE_HISTORY_LINES, ConsoleLine, ConsoleSource, ProgramError, Reply, StepInput};

/// Longest display name read from `vlab_program_name`, bytes.
const MAX_PROGRAM_NAME_BYTES: usize = 80;

/// What the lab waits for.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Awaiting {
    Nothing,
    /// The first answer: `init`, then `pre_step`.
    Ready,
    /// The answer to this step: `pre_step`.
    Commands(u64),
}

/// The instantiated module and the exports the lab calls.
struct Instance {
    store: Store<HostState>,
    init: Option<TypedFunc<(), ()>>,
    pre_step: TypedFunc<(), ()>,
    post_step: Option<TypedFunc<(), ()>>,
}

/// One robot's WebAssembly program, run synchronously by whoever calls it.
///
/// Unlike a Python program it runs inside the lab's process, on the calling thread:
/// [`WasmProgram::send_step`] runs the module's `post_step` with the readings and
/// [`WasmProgram::receive`] its `pre_step`, each within the fuel budget of the step,
/// so each call takes as long as the module computes (up to tens of milliseconds). The
/// lab never calls it on its own thread: [`crate::launch`] hands it to a
/// `WasmWorker`, which runs it on a thread of its own and never makes the lab wait.
/// Any failure (fuel, memory, a trap, a panic, too much output) stops it for good: its
/// memory is freed, and every later call returns the same error.
///
/// # Example
/// ```no_run
/// use vlab_programs::{StepInput, WasmProgram, WasmSpec};
///
/// let module = std::fs::read("bot.wasm").expect("a module");
/// let spec = WasmSpec::new("bot", module).sensor("lidar", "Lidar").actuator("base", "DiffDrive");
/// let mut program = WasmProgram::start(spec)?;
/// let first = program.receive()?; // init, then pre_step: commands for the first step
/// program.send_step(&StepInput { step: 5, time_secs: 5.0 / 240.0, sensors: Default::default() })?;
/// let reply = program.receive()?;
/// program.stop()?;
/// # Ok::<(), vlab_programs::ProgramError>(())
/// ```
pub struct WasmProgram {
    robot: String,
    limits: WasmLimits,
    instance: Option<Instance>,
    awaiting: Awaiting,
    /// The fuel the current call started with, for the message when it runs out.
    fuel_budget: u64,
    history: VecDeque<ConsoleLine>,
    failed: Option<ProgramError>,
    /// Its display name, when the module exports `vlab_program_name`.
    name: Option<String>,
}

impl WasmProgram {
    /// Compiles (or takes from the cache) and instantiates the module, runs its start
    /// function and its `_initialize` (a C or C++ reactor's static constructors), asks
    /// its ABI version and reads its display name, all within
    /// [`WasmLimits::fuel_at_start`]; the first [`WasmProgram::receive`] runs `init`
    /// and the first `pre_step`. The display name is the first console line.
    pub fn start(spec: WasmSpec) -> Result<WasmProgram, ProgramError> {
        let (runtime, pre) = engine::prepare(&spec.module, &spec.limits)?;
        let side = spec.side;
        let state = HostState {
            readings: side.sensors.iter().map(|_| Reading::from_value(None)).collect(),
            sensors: side.sensors,
            actuators: side.actuators,
            control_dt_secs: side.dt_secs * f64::from(side.control_period),
            seed: side.seed,
            step: side.step,
            time_secs: side.time_secs,
            commands: BTreeMap::new(),
            console: Vec::new(),
            belief: Sketch::new(spec.limits.drawn_vertices_per_step, spec.limits.drawn_texts_per_step),
            radio: Vec::new(),
            output_bytes: 0,
            output_cap: spec.limits.output_bytes_per_step,
            memory: None,
            limiter: MemoryCap::new(spec.limits.memory_bytes),
            wasi: WasiState::new(side.seed),
        };
        let mut store = Store::new(&runtime.engine, state);
        store.limiter(|state| &mut state.limiter);
        let limits = spec.limits;
        let budget = limits.fuel_at_start;
        let fail = |e: wasmtime::Error| program_error(&e, budget, &limits);
        store.set_fuel(budget).map_err(fail)?;
        let instance = pre.instantiate(&mut store).map_err(fail)?;
        let memory = instance.get_memory(&mut store, EXPORT_MEMORY);
        store.data_mut().memory = memory;
        let typed = |store: &mut Store<HostState>, name: &str| instance.get_typed_func::<(), ()>(store, name).ok();
        let (init, post_step) = (typed(&mut store, EXPORT_INIT), typed(&mut store, EXPORT_POST_STEP));
        let pre_step = typed(&mut store, EXPORT_PRE_STEP)
            .ok_or_else(|| ProgramError::InvalidProgram(format!("the module does not export `{EXPORT_PRE_STEP}`")))?;
        if let Some(initialize) = typed(&mut store, EXPORT_INITIALIZE) {
            initialize.call(&mut store, ()).map_err(fail)?;
        }
        let version = instance
            .get_typed_func::<(), i32>(&mut store, EXPORT_ABI_VERSION)
            .and_then(|f| f.call(&mut store, ()))
            .map_err(fail)?;
        if version != ABI_VERSION {
            return Err(ProgramError::InvalidProgram(format!(
                "the module was built for robot API version {version}; this lab speaks version {ABI_VERSION} \
                 (rebuild it with the current SDK)"
            )));
        }
        let name = instance
            .get_typed_func::<(), i32>(&mut store, EXPORT_PROGRAM_NAME)
            .ok()
            .map(|f| f.call(&mut store, ()))
            .transpose()
            .map_err(fail)?
            .map(|ptr| program_name(&store, ptr))
            .filter(|name| !name.is_empty());
        if let Some(name) = &name {
            store.data_mut().push_line(ConsoleSource::Lab, format!("program {name:?}"));
        }
        Ok(WasmProgram {
            robot: side.robot,
            limits,
            instance: Some(Instance { store, init, pre_step, post_step }),
            awaiting: Awaiting::Ready,
            fuel_budget: budget,
            history: VecDeque::new(),
            failed: None,
            name,
        })
    }

    /// Its display name (C++'s `ROBOT_SOFTWARE_PLUGIN(Class, "name")`), if it has one.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The robot this program drives.
    pub fn robot(&self) -> &str {
        &self.robot
    }

    /// Its budgets and caps.
    pub(super) fn limits(&self) -> &WasmLimits {
        &self.limits
    }

    /// Why it stopped, once it has.
    pub fn error(&self) -> Option<&ProgramError> {
        self.failed.as_ref()
    }

    /// Its latest console lines (at most [`CONSOLE_HISTORY_LINES`]), oldest first,
    /// including those logged in the call that failed.
    pub fn console(&self) -> impl Iterator<Item = &ConsoleLine> {
        self.history.iter()
    }

    /// Hands the module the readings of one control step and runs its `post_step`.
    pub fn send_step(&mut self, input: &StepInput) -> Result<(), ProgramError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if self.awaiting != Awaiting::Nothing {
            // The lab's mistake, not the program's: collect the previous answer first.
            return Err(self.fail(ProgramError::Protocol("a step was sent before the previous answer".into())));
        }
        let Some(instance) = self.instance.as_mut() else { return Err(self.fail(ProgramError::Stopped)) };
        let state = instance.store.data_mut();
        state.step = input.step;
        state.time_secs = input.time_secs;
        for (reading, sensor) in state.readings.iter_mut().zip(&state.sensors) {
            *reading = Reading::from_value(input.sensors.get(&sensor.name).and_then(Option::as_ref)).after(reading);
        }
        state.output_bytes = 0;
        self.fuel_budget = self.limits.fuel_per_step;
        let result = instance.store.set_fuel(self.fuel_budget).and_then(|()| match &instance.post_step {
            Some(post_step) => post_step.call(&mut instance.store, ()),
            None => Ok(()),
        });
        if let Err(e) = result {
            return Err(self.fail_with(&e));
        }
        self.awaiting = Awaiting::Commands(input.step);
        Ok(())
    }

    /// The answer to the start (after `init`) or to the last step sent: runs the
    /// module's `pre_step` and returns the commands, console lines and belief
    /// published since the previous answer.
    pub fn receive(&mut self) -> Result<Reply, ProgramError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let step = match self.awaiting {
            Awaiting::Ready => None,
            Awaiting::Commands(step) => Some(step),
            Awaiting::Nothing => {
                return Err(self.fail(ProgramError::Protocol("an answer was asked for before a step was sent".into())));
            }
        };
        let Some(instance) = self.instance.as_mut() else { return Err(self.fail(ProgramError::Stopped)) };
        let mut result = Ok(());
        if step.is_none()
            && let Some(init) = &instance.init
        {
            result = init.call(&mut instance.store, ());
        }
        if result.is_ok() && step.is_none() {
            // The first pre_step has a step's budget of its own, after the set-up.
            self.fuel_budget = self.limits.fuel_per_step;
            result = instance.store.set_fuel(self.fuel_budget);
        }
        let result = result.and_then(|()| instance.pre_step.call(&mut instance.store, ()));
        if let Err(e) = result {
            return Err(self.fail_with(&e));
        }
        self.awaiting = Awaiting::Nothing;
        let state = instance.store.data_mut();
        state.flush_streams();
        let commands = std::mem::take(&mut state.commands);
        let console = std::mem::take(&mut state.console);
        let belief = state.belief.take();
        let radio = std::mem::take(&mut state.radio);
        self.remember(&console);
        Ok(Reply { step, commands, console, belief, radio })
    }

    /// Ends the program: its memory is freed. `Ok` unless it had already failed.
    pub fn stop(&mut self) -> Result<(), ProgramError> {
        match &self.failed {
            Some(ProgramError::Stopped) => Ok(()),
            Some(e) => Err(e.clone()),
            None => {
                self.failed = Some(ProgramError::Stopped);
                self.instance = None;
                self.awaiting = Awaiting::Nothing;
                Ok(())
            }
        }
    }

    fn remember(&mut self, lines: &[ConsoleLine]) {
        for line in lines {
            if self.history.len() == CONSOLE_HISTORY_LINES {
                self.history.pop_front();
            }
            self.history.push_back(line.clone());
        }
    }

    /// Stops the program with the reason for wasmtime's `error`.
    fn fail_with(&mut self, error: &wasmtime::Error) -> ProgramError {
        let reason = program_error(error, self.fuel_budget, &self.limits);
        self.fail(reason)
    }

    /// Stops the program for good with `error` (kept for later calls) and returns it;
    /// the console lines of the failed call go to the history.
    fn fail(&mut self, error: ProgramError) -> ProgramError {
        if let Some(mut instance) = self.instance.take() {
            let state = instance.store.data_mut();
            state.flush_streams();
            let console = std::mem::take(&mut state.console);
            self.remember(&console);
        }
        self.failed = Some(error.clone());
        self.awaiting = Awaiting::Nothing;
        error
    }
}

/// The NUL-terminated string at `ptr` in the module's memory, at most
/// [`MAX_PROGRAM_NAME_BYTES`] of it, lossy UTF-8 (empty outside the memory).
fn program_name(store: &Store<HostState>, ptr: i32) -> String {
    let Some(memory) = store.data().memory else { return String::new() };
    let bytes = memory.data(store).get(ptr as u32 as usize..).unwrap_or_default();
    let end = bytes.iter().take(MAX_PROGRAM_NAME_BYTES).position(|&b| b == 0);
    let name = &bytes[..end.unwrap_or(bytes.len().min(MAX_PROGRAM_NAME_BYTES))];
    String::from_utf8_lossy(name).into_owned()
}

impl crate::Controller for WasmProgram {
    fn robot(&self) -> &str {
        WasmProgram::robot(self)
    }

    fn send_step(&mut self, input: &StepInput) -> Result<(), ProgramError> {
        WasmProgram::send_step(self, input)
    }

    fn receive(&mut self) -> Result<Reply, ProgramError> {
        WasmProgram::receive(self)
    }

    /// Runs the module now, like [`WasmProgram::receive`]: the answer is always there.
    fn try_receive(&mut self) -> Result<Option<Reply>, ProgramError> {
        WasmProgram::receive(self).map(Some)
    }

    /// `None`: it runs on its caller's thread, whose clock counts the caller's work too.
    fn cpu_time(&self) -> Option<std::time::Duration> {
        None
    }

    fn stop(&mut self) -> Result<(), ProgramError> {
        WasmProgram::stop(self)
    }

    fn error(&self) -> Option<&ProgramError> {
        WasmProgram::error(self)
    }
}
