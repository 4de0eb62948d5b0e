//! The lab's side of the imports: what a program's store holds (its robot, the step's
//! readings, the commands and console lines it produced, its memory cap) and the host
//! functions of module `vlab` that read and write it.
//!
//! A host function never panics and never blocks: a bad pointer, a flood of output or a
//! panic reported by the module ends the call with a [`HostStop`], which traps the
//! module; everything else answers a [`Status`] or a value.

use std::collections::BTreeMap;

use thiserror::Error;
use vlab_protocol::ActuatorCommand;
use wasmtime::{Caller, Linker, Memory, ResourceLimiter, StoreLimits, StoreLimitsBuilder};

use super::abi::{IMPORT_MODULE, ReadingType, Status};
use super::belief::Sketch;
use super::readings::Reading;
use super::wasi::WasiState;
use crate::{ConsoleLine, ConsoleSource, PartInfo};

/// Longest console line (bytes) kept; the rest of a longer one is cut.
pub(super) const MAX_CONSOLE_LINE_BYTES: usize = 4096;

/// Why a host function stopped the module.
#[derive(Debug, Error)]
pub(super) enum HostStop {
    /// More console output in one step than allowed.
    #[error("printed more than {bytes} bytes")]
    OutputFlood {
        /// The cap, bytes per control step.
        bytes: usize,
    },
    /// The module reported a panic through `vlab.panic`.
    #[error("panicked: {message}")]
    Panicked {
        /// What it said (the SDK: the panic message and its file:line:column).
        message: String,
    },
    /// A pointer or length outside the module's memory, or no memory exported.
    #[error("`vlab.{function}` was given a buffer outside the module's memory")]
    BadPointer {
        /// The import called.
        function: &'static str,
    },
    /// Memory growth past the cap.
    #[error("memory over the cap")]
    MemoryCap,
    /// The module called WASI's `proc_exit` (C's `exit`, or `main` returning).
    #[error("exited with code {code}")]
    Exited {
        /// The code it gave.
        code: i32,
    },
}

/// The store's memory limiter: wasmtime's [`StoreLimits`], except that growing past
/// the cap traps at once with [`HostStop::MemoryCap`] instead of answering -1, so
/// that a program out of memory is stopped with that reason, whatever it would have
/// done with the failure.
pub(super) struct MemoryCap {
    limits: StoreLimits,
    cap_bytes: usize,
}

impl MemoryCap {
    pub fn new(cap_bytes: usize) -> MemoryCap {
        let limits = StoreLimitsBuilder::new()
            .memory_size(cap_bytes)
            .table_elements(100_000)
            .instances(1)
            .memories(1)
            .tables(8)
            .build();
        MemoryCap { limits, cap_bytes }
    }
}

impl ResourceLimiter for MemoryCap {
    fn memory_growing(&mut self, current: usize, desired: usize, maximum: Option<usize>) -> wasmtime::Result<bool> {
        if desired > self.cap_bytes {
            return Err(wasmtime::Error::new(HostStop::MemoryCap));
        }
        self.limits.memory_growing(current, desired, maximum)
    }

    fn table_growing(&mut self, current: usize, desired: usize, maximum: Option<usize>) -> wasmtime::Result<bool> {
        self.limits.table_growing(current, desired, maximum)
    }

    fn instances(&self) -> usize {
        self.limits.instances()
    }

    fn tables(&self) -> usize {
        self.limits.tables()
    }

    fn memories(&self) -> usize {
        self.limits.memories()
    }
}

/// Everything a program's store holds besides the module itself.
pub(super) struct HostState {
    pub sensors: Vec<PartInfo>,
    pub actuators: Vec<PartInfo>,
    /// Seconds per control step.
    pub control_dt_secs: f64,
    pub seed: u64,
    /// The step and time of the latest readings.
    pub step: u64,
    pub time_secs: f64,
    /// The latest reading of each sensor, in the order of `sensors`.
    pub readings: Vec<Reading>,
    /// Commands set since the last answer (the last one per actuator wins).
    pub commands: BTreeMap<String, ActuatorCommand>,
    /// Console lines since the last answer.
    pub console: Vec<ConsoleLine>,
    /// The estimate and drawings published since the last answer.
    pub belief: Sketch,
    /// Radio messages sent since the last answer (`radio_send`).
    pub radio: Vec<String>,
    /// Console bytes in this control step, against `output_cap`.
    pub output_bytes: usize,
    pub output_cap: usize,
    /// The module's exported memory, once instantiated.
    pub memory: Option<Memory>,
    pub limiter: MemoryCap,
    /// Standard streams and random bytes of the WASI functions.
    pub wasi: WasiState,
}

impl HostState {
    /// Adds a console line, cut to [`MAX_CONSOLE_LINE_BYTES`], counting it against
    /// the step's output cap.
    pub fn say(&mut self, source: ConsoleSource, text: String) -> Result<(), HostStop> {
        let sent = text.len();
        self.say_sent(source, text, sent)
    }

    /// [`HostState::say`] for a line the module passed `sent` bytes long (of which
    /// `text` is what was read): the cap counts every byte it passed.
    pub fn say_sent(&mut self, source: ConsoleSource, mut text: String, sent: usize) -> Result<(), HostStop> {
        cut(&mut text);
        self.charge(sent.max(text.len()) + 1)?;
        self.console.push(ConsoleLine { source, text });
        Ok(())
    }

    /// Counts `bytes` of console output against the step's cap.
    pub fn charge(&mut self, bytes: usize) -> Result<(), HostStop> {
        self.output_bytes = self.output_bytes.saturating_add(bytes);
        if self.output_bytes > self.output_cap {
            return Err(HostStop::OutputFlood { bytes: self.output_cap });
        }
        Ok(())
    }

    /// Adds a console line already counted against the cap (or the lab's own), cut to
    /// [`MAX_CONSOLE_LINE_BYTES`].
    pub fn push_line(&mut self, source: ConsoleSource, mut text: String) {
        cut(&mut text);
        self.console.push(ConsoleLine { source, text });
    }

    /// Records `command` for actuator `index` if it is of the right kind and finite;
    /// otherwise says why in the console.
    fn set_command(&mut self, index: i32, command: ActuatorCommand) -> Result<i32, HostStop> {
        let Some(actuator) = usize::try_from(index).ok().and_then(|i| self.actuators.get(i)) else {
            return Ok(Status::NoSuchPart as i32);
        };
        let (method, kind, values) = match command {
            ActuatorCommand::Speed { speed } => ("set_speed", "SimpleMotor", vec![speed]),
            ActuatorCommand::Position { position } => ("set_position", "SimpleServo", vec![position]),
            ActuatorCommand::Drive { v, omega } => ("set_drive", "DiffDrive", vec![v, omega]),
        };
        if actuator.kind != kind {
            let line = format!(
                "actuator {:?} is a {}: use {}, not {method}",
                actuator.name,
                actuator.kind,
                hint(&actuator.kind)
            );
            self.say(ConsoleSource::Stderr, line)?;
            return Ok(Status::WrongKind as i32);
        }
        if !values.iter().all(|v| v.is_finite()) {
            let line = format!("actuator {:?}: {method} needs finite numbers, got {values:?}", actuator.name);
            self.say(ConsoleSource::Stderr, line)?;
            return Ok(Status::NotFinite as i32);
        }
        let name = actuator.name.clone();
        self.commands.insert(name, command);
        Ok(Status::Ok as i32)
    }

    fn reading(&self, index: i32) -> Option<&Reading> {
        usize::try_from(index).ok().and_then(|i| self.readings.get(i))
    }
}

/// Cuts `text` to [`MAX_CONSOLE_LINE_BYTES`], at a character boundary.
fn cut(text: &mut String) {
    if text.len() > MAX_CONSOLE_LINE_BYTES {
        let mut end = MAX_CONSOLE_LINE_BYTES;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
}

/// Which import commands an actuator of `kind`.
fn hint(kind: &str) -> &'static str {
    match kind {
        "SimpleMotor" => "set_speed",
        "SimpleServo" => "set_position",
        "DiffDrive" => "set_drive",
        _ => "no command (the lab cannot drive it from a program)",
    }
}

/// Converts a wasm `i32` pointer and length into a range of its memory, if it fits.
fn range(memory_len: usize, ptr: i32, len: i32) -> Option<std::ops::Range<usize>> {
    let start = ptr as u32 as usize;
    let end = start.checked_add(usize::try_from(len).ok()?)?;
    (end <= memory_len).then_some(start..end)
}

/// Copies at most `keep` bytes of the buffer `ptr..ptr+len` out of the module's memory,
/// checking the whole buffer is inside it.
pub(super) fn read_bytes(
    caller: &Caller<'_, HostState>,
    ptr: i32,
    len: i32,
    keep: usize,
    function: &'static str,
) -> Result<Vec<u8>, HostStop> {
    let memory = caller.data().memory.ok_or(HostStop::BadPointer { function })?;
    let data = memory.data(caller);
    let range = range(data.len(), ptr, len).ok_or(HostStop::BadPointer { function })?;
    let keep = range.len().min(keep);
    Ok(data[range.start..range.start + keep].to_vec())
}

/// Writes as much of `bytes` as fits in `cap` bytes at `ptr` in the module's memory.
fn write_bytes(
    caller: &mut Caller<'_, HostState>,
    ptr: i32,
    cap: i32,
    bytes: &[u8],
    function: &'static str,
) -> Result<(), HostStop> {
    let memory = caller.data().memory.ok_or(HostStop::BadPointer { function })?;
    let data = memory.data_mut(caller);
    let count = bytes.len().min(usize::try_from(cap).map_err(|_| HostStop::BadPointer { function })?);
    let range = range(data.len(), ptr, count as i32).ok_or(HostStop::BadPointer { function })?;
    data[range].copy_from_slice(&bytes[..count]);
    Ok(())
}

/// Reads a string argument (names, keys): lossy UTF-8, at most 256 bytes kept.
pub(super) fn read_name(
    caller: &Caller<'_, HostState>,
    ptr: i32,
    len: i32,
    function: &'static str,
) -> Result<String, HostStop> {
    Ok(String::from_utf8_lossy(&read_bytes(caller, ptr, len, 256, function)?).into_owned())
}

/// Answers a `*_name`/`*_kind` import: writes the string, returns its full length.
fn answer_string(
    caller: &mut Caller<'_, HostState>,
    text: Option<String>,
    ptr: i32,
    cap: i32,
    function: &'static str,
) -> Result<i32, HostStop> {
    let Some(text) = text else { return Ok(Status::NoSuchPart as i32) };
    write_bytes(caller, ptr, cap, text.as_bytes(), function)?;
    Ok(text.len() as i32)
}

fn find(parts: &[PartInfo], name: &str) -> i32 {
    parts.iter().position(|p| p.name == name).map_or(Status::NoSuchPart as i32, |i| i as i32)
}

fn part(parts: &[PartInfo], index: i32) -> Option<&PartInfo> {
    usize::try_from(index).ok().and_then(|i| parts.get(i))
}

/// Defines every import of [`super::abi::IMPORTS`] in `linker`.
pub(super) fn define(linker: &mut Linker<HostState>) -> wasmtime::Result<()> {
    let m = IMPORT_MODULE;
    type C<'a> = Caller<'a, HostState>;
    let stop = |e: HostStop| wasmtime::Error::new(e);

    linker.func_wrap(m, "log", move |caller: C<'_>, ptr: i32, len: i32| -> wasmtime::Result<()> {
        let bytes = read_bytes(&caller, ptr, len, MAX_CONSOLE_LINE_BYTES, "log").map_err(stop)?;
        let sent = usize::try_from(len).unwrap_or(0);
        let mut caller = caller;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        caller.data_mut().say_sent(ConsoleSource::Log, text, sent).map_err(stop)
    })?;
    linker.func_wrap(m, "panic", move |mut caller: C<'_>, ptr: i32, len: i32| -> wasmtime::Result<()> {
        let bytes = read_bytes(&caller, ptr, len, MAX_CONSOLE_LINE_BYTES, "panic").map_err(stop)?;
        let message = String::from_utf8_lossy(&bytes).into_owned();
        // Into the console too (when the step's cap allows), so the owner sees it
        // among the lines that led to it.
        let _ = caller.data_mut().say(ConsoleSource::Stderr, format!("panicked: {message}"));
        Err(stop(HostStop::Panicked { message }))
    })?;
    linker.func_wrap(m, "time", |caller: C<'_>| caller.data().time_secs)?;
    linker.func_wrap(m, "step_count", |caller: C<'_>| caller.data().step as i64)?;
    linker.func_wrap(m, "dt", |caller: C<'_>| caller.data().control_dt_secs)?;
    linker.func_wrap(m, "seed", |caller: C<'_>| caller.data().seed as i64)?;

    linker.func_wrap(m, "sensor_count", |caller: C<'_>| caller.data().sensors.len() as i32)?;
    linker.func_wrap(m, "actuator_count", |caller: C<'_>| caller.data().actuators.len() as i32)?;
    linker.func_wrap(m, "sensor_find", move |caller: C<'_>, ptr: i32, len: i32| -> wasmtime::Result<i32> {
        let name = read_name(&caller, ptr, len, "sensor_find").map_err(stop)?;
        Ok(find(&caller.data().sensors, &name))
    })?;
    linker.func_wrap(m, "actuator_find", move |caller: C<'_>, ptr: i32, len: i32| -> wasmtime::Result<i32> {
        let name = read_name(&caller, ptr, len, "actuator_find").map_err(stop)?;
        Ok(find(&caller.data().actuators, &name))
    })?;
    linker.func_wrap(
        m,
        "sensor_name",
        move |mut caller: C<'_>, i: i32, ptr: i32, cap: i32| -> wasmtime::Result<i32> {
            let text = part(&caller.data().sensors, i).map(|p| p.name.clone());
            answer_string(&mut caller, text, ptr, cap, "sensor_name").map_err(stop)
        },
    )?;
    linker.func_wrap(
        m,
        "sensor_kind",
        move |mut caller: C<'_>, i: i32, ptr: i32, cap: i32| -> wasmtime::Result<i32> {
            let text = part(&caller.data().sensors, i).map(|p| p.kind.clone());
            answer_string(&mut caller, text, ptr, cap, "sensor_kind").map_err(stop)
        },
    )?;
    linker.func_wrap(
        m,
        "actuator_name",
        move |mut caller: C<'_>, i: i32, ptr: i32, cap: i32| -> wasmtime::Result<i32> {
            let text = part(&caller.data().actuators, i).map(|p| p.name.clone());
            answer_string(&mut caller, text, ptr, cap, "actuator_name").map_err(stop)
        },
    )?;
    linker.func_wrap(
        m,
        "actuator_kind",
        move |mut caller: C<'_>, i: i32, ptr: i32, cap: i32| -> wasmtime::Result<i32> {
            let text = part(&caller.data().actuators, i).map(|p| p.kind.clone());
            answer_string(&mut caller, text, ptr, cap, "actuator_kind").map_err(stop)
        },
    )?;

    linker.func_wrap(m, "reading_type", |caller: C<'_>, i: i32| {
        caller.data().reading(i).map_or(Status::NoSuchPart as i32, |r| r.kind as i32)
    })?;
    linker.func_wrap(m, "reading_len", |caller: C<'_>, i: i32| {
        caller.data().reading(i).map_or(Status::NoSuchPart as i32, |r| r.reading_len() as i32)
    })?;
    linker.func_wrap(m, "reading_value", |caller: C<'_>, i: i32, k: i32| {
        let value = caller.data().reading(i).and_then(|r| usize::try_from(k).ok().and_then(|k| r.values.get(k)));
        value.copied().unwrap_or(f64::NAN)
    })?;
    linker.func_wrap(
        m,
        "reading_read",
        move |mut caller: C<'_>, i: i32, ptr: i32, cap: i32| -> wasmtime::Result<i32> {
            let Some(reading) = caller.data().reading(i) else { return Ok(Status::NoSuchPart as i32) };
            let count = reading.values.len();
            let cap = usize::try_from(cap).map_err(|_| stop(HostStop::BadPointer { function: "reading_read" }))?;
            let bytes: Vec<u8> = reading.values.iter().take(cap).flat_map(|v| v.to_le_bytes()).collect();
            let byte_cap =
                i32::try_from(bytes.len()).map_err(|_| stop(HostStop::BadPointer { function: "reading_read" }))?;
            write_bytes(&mut caller, ptr, byte_cap, &bytes, "reading_read").map_err(stop)?;
            Ok(count as i32)
        },
    )?;
    linker.func_wrap(
        m,
        "reading_bytes",
        move |mut caller: C<'_>, i: i32, ptr: i32, cap: i32| -> wasmtime::Result<i32> {
            let Some(reading) = caller.data().reading(i) else { return Ok(Status::NoSuchPart as i32) };
            // A camera's pixels (the count of bytes; 0 for other sensors): copied up to `cap`.
            let bytes = reading.bytes.clone();
            let cap = usize::try_from(cap).map_err(|_| stop(HostStop::BadPointer { function: "reading_bytes" }))?;
            let taken = &bytes[..bytes.len().min(cap)];
            let byte_cap =
                i32::try_from(taken.len()).map_err(|_| stop(HostStop::BadPointer { function: "reading_bytes" }))?;
            write_bytes(&mut caller, ptr, byte_cap, taken, "reading_bytes").map_err(stop)?;
            Ok(bytes.len() as i32)
        },
    )?;
    linker.func_wrap(m, "key_held", move |caller: C<'_>, i: i32, ptr: i32, len: i32| -> wasmtime::Result<i32> {
        let key = read_name(&caller, ptr, len, "key_held").map_err(stop)?;
        let state = caller.data();
        let (Some(reading), Some(sensor)) = (state.reading(i), part(&state.sensors, i)) else {
            return Ok(Status::NoSuchPart as i32);
        };
        Ok(match reading.key_held(&key) {
            Some(held) => i32::from(held),
            None if reading.kind == ReadingType::None && sensor.kind == "Keyboard" => 0,
            None => Status::WrongKind as i32,
        })
    })?;
    linker.func_wrap(
        m,
        "key_name",
        move |mut caller: C<'_>, i: i32, k: i32, ptr: i32, cap: i32| -> wasmtime::Result<i32> {
            let key =
                caller.data().reading(i).and_then(|r| usize::try_from(k).ok().and_then(|k| r.keys.get(k))).cloned();
            answer_string(&mut caller, key, ptr, cap, "key_name").map_err(stop)
        },
    )?;

    linker.func_wrap(m, "set_speed", move |mut caller: C<'_>, i: i32, speed: f64| -> wasmtime::Result<i32> {
        caller.data_mut().set_command(i, ActuatorCommand::Speed { speed }).map_err(stop)
    })?;
    linker.func_wrap(m, "set_position", move |mut caller: C<'_>, i: i32, position: f64| -> wasmtime::Result<i32> {
        caller.data_mut().set_command(i, ActuatorCommand::Position { position }).map_err(stop)
    })?;
    linker.func_wrap(
        m,
        "set_drive",
        move |mut caller: C<'_>, i: i32, v: f64, omega: f64| -> wasmtime::Result<i32> {
            caller.data_mut().set_command(i, ActuatorCommand::Drive { v, omega }).map_err(stop)
        },
    )?;
    super::drawing::define(linker)?;
    super::radio::define(linker)?;
    super::wasi::define(linker)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> HostState {
        HostState {
            sensors: vec![],
            actuators: vec![
                PartInfo { name: "base".into(), kind: "DiffDrive".into() },
                PartInfo { name: "arm".into(), kind: "SimpleServo".into() },
            ],
            control_dt_secs: 0.02,
            seed: 0,
            step: 0,
            time_secs: 0.0,
            readings: vec![],
            commands: BTreeMap::new(),
            console: vec![],
            belief: Sketch::default(),
            radio: vec![],
            output_bytes: 0,
            output_cap: 100,
            memory: None,
            limiter: MemoryCap::new(1 << 20),
            wasi: WasiState::new(0),
        }
    }

    #[test]
    fn a_command_of_the_wrong_kind_is_refused_and_explained() {
        let mut state = state();
        assert_eq!(state.set_command(0, ActuatorCommand::Speed { speed: 1.0 }).unwrap(), Status::WrongKind as i32);
        assert!(state.commands.is_empty());
        assert_eq!(state.console[0].text, "actuator \"base\" is a DiffDrive: use set_drive, not set_speed");
        assert_eq!(state.set_command(1, ActuatorCommand::Position { position: 0.5 }).unwrap(), 0);
        assert_eq!(state.commands["arm"], ActuatorCommand::Position { position: 0.5 });
    }

    #[test]
    fn non_finite_commands_and_unknown_actuators_are_refused() {
        let mut state = state();
        let nan = ActuatorCommand::Drive { v: f64::NAN, omega: 0.0 };
        assert_eq!(state.set_command(0, nan).unwrap(), Status::NotFinite as i32);
        assert_eq!(state.set_command(7, nan).unwrap(), Status::NoSuchPart as i32);
        assert_eq!(state.set_command(-1, nan).unwrap(), Status::NoSuchPart as i32);
        assert!(state.commands.is_empty());
    }

    #[test]
    fn output_past_the_cap_stops_and_long_lines_are_cut() {
        let mut state = state();
        state.output_cap = 10 * MAX_CONSOLE_LINE_BYTES;
        state.say(ConsoleSource::Log, "é".repeat(MAX_CONSOLE_LINE_BYTES)).unwrap();
        assert!(state.console[0].text.len() <= MAX_CONSOLE_LINE_BYTES);
        state.output_cap = 100;
        assert!(matches!(state.say(ConsoleSource::Log, "x".into()), Err(HostStop::OutputFlood { bytes: 100 })));
    }

    #[test]
    fn ranges_outside_memory_are_refused() {
        assert_eq!(range(100, 10, 20), Some(10..30));
        assert_eq!(range(100, 90, 20), None);
        assert_eq!(range(100, -1, 1), None);
        assert_eq!(range(100, 0, -1), None);
    }
}
