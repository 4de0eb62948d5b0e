//! The bounds of compiling: what one compile may use, and how many the server runs and
//! keeps waiting at once (`docs/programs.md`, "C and C++", "Uploading and compiling").

use std::time::Duration;

/// Bounds of one compile and of the server's compiling.
#[derive(Clone, Debug, PartialEq)]
pub struct CompileLimits {
    /// CPU seconds of one compile, clang and its linker each (`RLIMIT_CPU`; default 20).
    pub cpu_secs: u64,
    /// Wall time of one compile once it runs (default 30 s): past it, it is killed.
    pub wall: Duration,
    /// Address space, MiB (`RLIMIT_AS`; default 1024).
    pub memory_mib: u64,
    /// Largest file the compiler may write, bytes (`RLIMIT_FSIZE`; default 8 MiB, the
    /// largest module the lab runs).
    pub file_bytes: u64,
    /// Open files (`RLIMIT_NOFILE`; default 64).
    pub open_files: u64,
    /// What the compiler may print, bytes (default 64 KiB): past it, it is killed.
    pub output_bytes: usize,
    /// Compiles running at once, server-wide (default: one per two CPUs robot programs
    /// run on, at least one: one on a 2-core server).
    pub at_once: usize,
    /// Compiles waiting for their turn, server-wide (default 16): one more is refused
    /// with 503.
    pub waiting: usize,
    /// Longest wait for a turn (default 60 s): past it the upload is refused with 503.
    pub queue_wait: Duration,
    /// Source files of one program, headers included (default 64).
    pub files: usize,
}

impl Default for CompileLimits {
    fn default() -> CompileLimits {
        CompileLimits {
            cpu_secs: 20,
            wall: Duration::from_secs(30),
            memory_mib: 1024,
            file_bytes: 8 * 1024 * 1024,
            open_files: 64,
            output_bytes: 64 * 1024,
            at_once: default_at_once(),
            waiting: 16,
            queue_wait: Duration::from_secs(60),
            files: 64,
        }
    }
}

/// One compile per two CPUs robot programs run on, at least one: compiles share those
/// CPUs with the programs, never the labs' own.
fn default_at_once() -> usize {
    (crate::placement::program_cpus().len() / 2).max(1)
}
