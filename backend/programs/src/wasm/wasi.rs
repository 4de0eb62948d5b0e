//! The few WASI functions (module `wasi_snapshot_preview1`, the names of
//! `robot_abi::WASI_IMPORTS`) that C and C++ modules built with wasi-libc import, made
//! deterministic: standard output and error become console lines (under the step's
//! output cap, like `vlab.log`), standard input is empty, the clocks read the lab's
//! simulation time, random bytes come from the program's seed, and there are no files,
//! arguments or environment. A run on the same readings prints, reads and draws the
//! same on any machine.
//!
//! A bad pointer answers `EFAULT` as the C library expects; `proc_exit` stops the
//! program with its code ([`HostStop::Exited`]).

use wasmtime::{Caller, Linker};

use super::abi::WASI_MODULE;
use super::host::{HostState, HostStop, MAX_CONSOLE_LINE_BYTES};
use crate::ConsoleSource;

/// WASI error numbers (`errno`) the functions answer.
mod errno {
    pub const SUCCESS: i32 = 0;
    pub const BADF: i32 = 8;
    pub const FAULT: i32 = 21;
    pub const INVAL: i32 = 28;
    pub const NOTSUP: i32 = 58;
    pub const SPIPE: i32 = 70;
}

/// `filetype::character_device`: standard streams look like a terminal, so the C
/// library buffers standard output by line and each line reaches the console in the
/// step that printed it.
const FILETYPE_CHARACTER_DEVICE: u8 = 2;
/// `rights::fd_read` and `rights::fd_write`; no seek nor tell, which a terminal lacks.
const RIGHTS_FD_READ: u64 = 1 << 1;
const RIGHTS_FD_WRITE: u64 = 1 << 6;

/// One standard stream's text not yet ended by a newline.
#[derive(Debug, Default)]
pub(super) struct LineBuffer {
    pending: Vec<u8>,
}

impl LineBuffer {
    /// Appends `bytes` and returns the lines they complete, without their `\n`. A line
    /// keeps its first [`MAX_CONSOLE_LINE_BYTES`] bytes: the rest is dropped (and was
    /// counted against the output cap when written).
    pub fn write(&mut self, bytes: &[u8]) -> Vec<Vec<u8>> {
        let mut lines = Vec::new();
        let mut rest = bytes;
        while let Some(end) = rest.iter().position(|&b| b == b'\n') {
            self.keep(&rest[..end]);
            lines.push(std::mem::take(&mut self.pending));
            rest = &rest[end + 1..];
        }
        self.keep(rest);
        lines
    }

    /// The unfinished line, if any, emptied (at the end of an answer: what a program
    /// flushed without a newline still shows).
    pub fn flush(&mut self) -> Option<Vec<u8>> {
        (!self.pending.is_empty()).then(|| std::mem::take(&mut self.pending))
    }

    fn keep(&mut self, bytes: &[u8]) {
        let room = MAX_CONSOLE_LINE_BYTES.saturating_sub(self.pending.len());
        self.pending.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }
}

/// SplitMix64: `random_get`'s bytes, a pure function of the program's seed.
#[derive(Debug)]
pub(super) struct SeededBytes {
    state: u64,
}

impl SeededBytes {
    pub fn new(seed: u64) -> SeededBytes {
        SeededBytes { state: seed }
    }

    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let word = self.next().to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
    }
}

/// What the WASI functions keep between calls: the two output streams' unfinished
/// lines and the random bytes' generator.
#[derive(Debug)]
pub(super) struct WasiState {
    pub stdout: LineBuffer,
    pub stderr: LineBuffer,
    pub random: SeededBytes,
}

impl WasiState {
    pub fn new(seed: u64) -> WasiState {
        WasiState { stdout: LineBuffer::default(), stderr: LineBuffer::default(), random: SeededBytes::new(seed) }
    }
}

impl HostState {
    /// Ends the unfinished lines of standard output and error as console lines.
    pub fn flush_streams(&mut self) {
        for (source, line) in
            [(ConsoleSource::Print, self.wasi.stdout.flush()), (ConsoleSource::Stderr, self.wasi.stderr.flush())]
        {
            if let Some(line) = line {
                self.push_line(source, String::from_utf8_lossy(&line).into_owned());
            }
        }
    }

    /// Writes `bytes` to standard output (`fd` 1) or error (2): every byte counts
    /// against the step's output cap, each completed line goes to the console.
    fn write_stream(&mut self, fd: i32, bytes: &[u8]) {
        let (source, stream) = match fd {
            1 => (ConsoleSource::Print, &mut self.wasi.stdout),
            _ => (ConsoleSource::Stderr, &mut self.wasi.stderr),
        };
        let lines = stream.write(bytes);
        for line in lines {
            self.push_line(source, String::from_utf8_lossy(&line).into_owned());
        }
    }
}

/// The `(buf, len)` pairs of `count` WASI iovecs at `iovs` in `memory` (8 bytes each:
/// a little-endian `u32` pointer, then a `u32` length), or `None` if any part lies
/// outside it.
pub(super) fn iovecs(memory: &[u8], iovs: u32, count: u32) -> Option<Vec<std::ops::Range<usize>>> {
    let start = iovs as usize;
    let end = start.checked_add((count as usize).checked_mul(8)?)?;
    let table = memory.get(start..end)?;
    table
        .chunks_exact(8)
        .map(|entry| {
            let ptr = u32::from_le_bytes(entry[..4].try_into().expect("4 bytes")) as usize;
            let len = u32::from_le_bytes(entry[4..].try_into().expect("4 bytes")) as usize;
            let range = ptr..ptr.checked_add(len)?;
            (range.end <= memory.len()).then_some(range)
        })
        .collect()
}

type C<'a> = Caller<'a, HostState>;

/// Writes `bytes` at `ptr` in the module's memory.
fn store(caller: &mut C<'_>, ptr: i32, bytes: &[u8]) -> Result<(), i32> {
    let memory = caller.data().memory.ok_or(errno::FAULT)?;
    let data = memory.data_mut(caller);
    let start = ptr as u32 as usize;
    let target = data.get_mut(start..start + bytes.len()).ok_or(errno::FAULT)?;
    target.copy_from_slice(bytes);
    Ok(())
}

/// Writes nothing but zero counts: for `args_sizes_get` and `environ_sizes_get`.
fn no_strings(caller: &mut C<'_>, count_ptr: i32, size_ptr: i32) -> i32 {
    match store(caller, count_ptr, &0u32.to_le_bytes()).and_then(|()| store(caller, size_ptr, &0u32.to_le_bytes())) {
        Ok(()) => errno::SUCCESS,
        Err(e) => e,
    }
}

fn answer(result: Result<(), i32>) -> i32 {
    result.err().unwrap_or(errno::SUCCESS)
}

fn is_standard(fd: i32) -> bool {
    (0..=2).contains(&fd)
}

/// Defines every function of `robot_abi::WASI_IMPORTS` in `linker`.
pub(super) fn define(linker: &mut Linker<HostState>) -> wasmtime::Result<()> {
    let m = WASI_MODULE;
    let stop = |e: HostStop| wasmtime::Error::new(e);

    linker.func_wrap(
        m,
        "fd_write",
        move |mut caller: C<'_>, fd: i32, iovs: i32, count: i32, written: i32| -> wasmtime::Result<i32> {
            if fd != 1 && fd != 2 {
                return Ok(errno::BADF);
            }
            let Some(memory) = caller.data().memory else { return Ok(errno::FAULT) };
            let data = memory.data(&caller);
            let Some(ranges) = iovecs(data, iovs as u32, count as u32) else { return Ok(errno::FAULT) };
            let total: usize = ranges.iter().map(|r| r.len()).sum();
            // Counted before anything is copied: a flood stops here, at its first call.
            caller.data_mut().charge(total).map_err(stop)?;
            let data = memory.data(&caller);
            let mut bytes = Vec::with_capacity(total);
            for range in ranges {
                bytes.extend_from_slice(&data[range]);
            }
            caller.data_mut().write_stream(fd, &bytes);
            Ok(answer(store(&mut caller, written, &(total as u32).to_le_bytes())))
        },
    )?;
    linker.func_wrap(m, "fd_read", |mut caller: C<'_>, fd: i32, _iovs: i32, _count: i32, read: i32| {
        // Standard input is always at its end.
        if fd != 0 {
            return errno::BADF;
        }
        answer(store(&mut caller, read, &0u32.to_le_bytes()))
    })?;
    linker.func_wrap(m, "fd_close", |_: C<'_>, fd: i32| if is_standard(fd) { errno::SUCCESS } else { errno::BADF })?;
    linker.func_wrap(
        m,
        "fd_seek",
        |_: C<'_>, fd: i32, _offset: i64, _whence: i32, _to: i32| {
            if is_standard(fd) { errno::SPIPE } else { errno::BADF }
        },
    )?;
    linker.func_wrap(m, "fd_fdstat_get", |mut caller: C<'_>, fd: i32, ptr: i32| {
        if !is_standard(fd) {
            return errno::BADF;
        }
        let rights = if fd == 0 { RIGHTS_FD_READ } else { RIGHTS_FD_WRITE };
        // `fdstat`: filetype (u8), flags (u16 at 2), rights base (u64 at 8) and
        // inheriting (u64 at 16).
        let mut stat = [0u8; 24];
        stat[0] = FILETYPE_CHARACTER_DEVICE;
        stat[8..16].copy_from_slice(&rights.to_le_bytes());
        answer(store(&mut caller, ptr, &stat))
    })?;
    linker.func_wrap(m, "args_sizes_get", |mut caller: C<'_>, count: i32, size: i32| {
        no_strings(&mut caller, count, size)
    })?;
    linker.func_wrap(m, "environ_sizes_get", |mut caller: C<'_>, count: i32, size: i32| {
        no_strings(&mut caller, count, size)
    })?;
    linker.func_wrap(m, "args_get", |_: C<'_>, _argv: i32, _buf: i32| errno::SUCCESS)?;
    linker.func_wrap(m, "environ_get", |_: C<'_>, _environ: i32, _buf: i32| errno::SUCCESS)?;
    linker.func_wrap(m, "clock_time_get", |mut caller: C<'_>, id: i32, _precision: i64, ptr: i32| {
        // Realtime, monotonic, process and thread CPU time: all the lab's simulation
        // time, so a program timing itself computes the same on any machine.
        if !(0..=3).contains(&id) {
            return errno::INVAL;
        }
        let nanos = (caller.data().time_secs * 1e9).max(0.0) as u64;
        answer(store(&mut caller, ptr, &nanos.to_le_bytes()))
    })?;
    linker.func_wrap(m, "random_get", |mut caller: C<'_>, ptr: i32, len: i32| {
        let Ok(len) = usize::try_from(len as u32) else { return errno::FAULT };
        let Some(memory) = caller.data().memory else { return errno::FAULT };
        let start = ptr as u32 as usize;
        if start.checked_add(len).is_none_or(|end| end > memory.data_size(&caller)) {
            return errno::FAULT;
        }
        let (data, state) = memory.data_and_store_mut(&mut caller);
        state.wasi.random.fill(&mut data[start..start + len]);
        errno::SUCCESS
    })?;
    linker.func_wrap(m, "proc_exit", move |mut caller: C<'_>, code: i32| -> wasmtime::Result<()> {
        caller.data_mut().flush_streams();
        Err(stop(HostStop::Exited { code }))
    })?;
    linker.func_wrap(m, "sched_yield", |_: C<'_>| errno::SUCCESS)?;
    // Waiting (sleep, poll) is refused: a step's time is the lab's, not the program's.
    linker.func_wrap(m, "poll_oneoff", |_: C<'_>, _in: i32, _out: i32, _count: i32, _events: i32| errno::NOTSUP)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_on_newlines_and_the_rest_waits() {
        let mut stream = LineBuffer::default();
        assert_eq!(stream.write(b"GPS: 1 2"), Vec::<Vec<u8>>::new());
        assert_eq!(stream.write(b" 3\nnext\n\nla"), vec![b"GPS: 1 2 3".to_vec(), b"next".to_vec(), Vec::new()]);
        assert_eq!(stream.flush(), Some(b"la".to_vec()));
        assert_eq!(stream.flush(), None);
    }

    #[test]
    fn a_line_keeps_its_first_bytes_only() {
        let mut stream = LineBuffer::default();
        stream.write(&vec![b'x'; MAX_CONSOLE_LINE_BYTES + 10]);
        let lines = stream.write(b"yz\n");
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].len(), MAX_CONSOLE_LINE_BYTES);
        assert!(lines[0].iter().all(|&b| b == b'x'));
    }

    #[test]
    fn iovecs_are_read_little_endian_and_checked_against_memory() {
        let mut memory = vec![0u8; 64];
        // Two iovecs at 0: (32, 5) and (40, 3).
        memory[0..4].copy_from_slice(&32u32.to_le_bytes());
        memory[4..8].copy_from_slice(&5u32.to_le_bytes());
        memory[8..12].copy_from_slice(&40u32.to_le_bytes());
        memory[12..16].copy_from_slice(&3u32.to_le_bytes());
        assert_eq!(iovecs(&memory, 0, 2), Some(vec![32..37, 40..43]));
        assert_eq!(iovecs(&memory, 0, 0), Some(vec![]));
        // A buffer past the end, a table past the end, a count that overflows.
        memory[12..16].copy_from_slice(&30u32.to_le_bytes());
        assert_eq!(iovecs(&memory, 0, 2), None);
        assert_eq!(iovecs(&memory, 60, 1), None);
        assert_eq!(iovecs(&memory, 0, u32::MAX), None);
        memory[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(iovecs(&memory, 0, 1), None);
    }

    #[test]
    fn random_bytes_follow_the_seed() {
        let bytes = |seed: u64| {
            let mut buf = [0u8; 13];
            SeededBytes::new(seed).fill(&mut buf);
            buf
        };
        assert_eq!(bytes(7), bytes(7));
        assert_ne!(bytes(7), bytes(8));
        assert_ne!(bytes(7), [0u8; 13]);
    }
}
