//! Clang run confined (Linux): the sandbox of Python programs (`crate::sandbox`: no
//! network or IPC namespace shared, no capabilities, seccomp's deny-list) with its own
//! Landlock rules (read-only: the toolchain, its libraries, the sysroot, the robot API's
//! headers and the sources; writable: the output folder alone), rlimits, a wall
//! deadline and a cap on what it prints.
//!
//! The spawner thread confines itself and starts `sh`, which waits for one line on
//! its stdin before it execs clang: the server sets the rlimits on it meanwhile, so
//! clang never runs a moment without them.

use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Resource, Rlimit, prlimit};

use super::limits::CompileLimits;
use super::toolchain::Toolchain;
use super::{CompileError, Ended, LimitHit};

/// One confined run of clang.
pub(super) struct Job<'a> {
    /// The compiler.
    pub toolchain: &'a Toolchain,
    /// Clang's arguments.
    pub args: Vec<String>,
    /// The sources: its working folder, read-only.
    pub sources: &'a Path,
    /// The robot API's headers, read-only.
    pub headers: &'a Path,
    /// Where it writes the module and its temporary files: the one writable folder.
    pub output: &'a Path,
    /// Its limits.
    pub limits: &'a CompileLimits,
}

/// How often the run is looked at for its deadline and its output.
const POLL: Duration = Duration::from_millis(10);

/// Runs `job` and waits for it, killing it past its deadline or its output cap.
pub(super) fn run(job: Job<'_>) -> Result<Ended, CompileError> {
    let mut child = spawn_confined(&job)?;
    let pid = Pid::from_raw(child.id() as i32).expect("a spawned child has a positive pid");
    if let Err(error) = set_rlimits(pid, job.limits) {
        kill(&mut child);
        return Err(CompileError::Sandbox(format!("cannot set the compiler's resource limits: {error}")));
    }
    // The compiler yields the CPU to the labs' threads, as programs do.
    let _ = rustix::process::setpriority_process(Some(pid), crate::sandbox::PROGRAM_NICENESS);
    // The line `sh` waits for: from here on clang runs, within its limits.
    let started = child.stdin.take().map(|mut stdin| stdin.write_all(b"go\n"));
    if !matches!(started, Some(Ok(()))) {
        kill(&mut child);
        return Err(CompileError::Sandbox("the compiler did not start".into()));
    }
    let printed = Arc::new(Mutex::new(Vec::new()));
    let reader = child.stdout.take().map(|stdout| read_capped(stdout, Arc::clone(&printed), job.limits.output_bytes));
    let deadline = Instant::now() + job.limits.wall;
    let over_cap = |printed: &Arc<Mutex<Vec<u8>>>| printed.lock().is_ok_and(|p| p.len() > job.limits.output_bytes);
    let (status, mut limit) = loop {
        match child.try_wait() {
            Ok(Some(status)) => break (status, None),
            Ok(None) => {}
            Err(error) => {
                kill(&mut child);
                return Err(CompileError::Sandbox(format!("cannot wait for the compiler: {error}")));
            }
        }
        let hit = if Instant::now() >= deadline {
            Some(LimitHit::Wall)
        } else if over_cap(&printed) {
            Some(LimitHit::Output)
        } else {
            None
        };
        if let Some(hit) = hit {
            kill(&mut child);
            let status =
                child.wait().map_err(|e| CompileError::Sandbox(format!("cannot wait for the compiler: {e}")))?;
            break (status, Some(hit));
        }
        std::thread::sleep(POLL);
    };
    if let Some(reader) = reader {
        let _ = reader.join();
    }
    let mut bytes = std::mem::take(&mut *printed.lock().unwrap_or_else(|poisoned| poisoned.into_inner()));
    if bytes.len() > job.limits.output_bytes {
        limit = limit.or(Some(LimitHit::Output));
        bytes.truncate(job.limits.output_bytes);
    }
    let output = String::from_utf8_lossy(&bytes).into_owned();
    let limit = the_limit(limit, &status, &output);
    Ok(Ended { code: status.code(), output, limit })
}

/// The limit that ended a compile: the one it was stopped for (`stopped_for`), else the
/// one its signal or words say.
fn the_limit(stopped_for: Option<LimitHit>, status: &std::process::ExitStatus, output: &str) -> Option<LimitHit> {
    match stopped_for {
        None => limit_of(status, output),
        // A compiler that fails at its memory limit prints a crash report, which may
        // fill the output: the limit its words name is the reason, not their length.
        Some(LimitHit::Output) => limit_in_words(output).or(Some(LimitHit::Output)),
        hit => hit,
    }
}

/// Which limit ended a compile that stopped by itself, from its signal or its words.
fn limit_of(status: &std::process::ExitStatus, output: &str) -> Option<LimitHit> {
    match status.signal() {
        Some(libc::SIGXCPU) => return Some(LimitHit::Cpu),
        Some(libc::SIGKILL) => return Some(LimitHit::Cpu),
        Some(libc::SIGXFSZ) => return Some(LimitHit::FileSize),
        _ => {}
    }
    limit_in_words(output)
}

/// Which limit the compiler's own words say ended it.
fn limit_in_words(output: &str) -> Option<LimitHit> {
    let memory = ["out of memory", "Allocation failed", "std::bad_alloc", "Cannot allocate memory"];
    if memory.iter().any(|m| output.contains(m)) {
        return Some(LimitHit::Memory);
    }
    // The driver reports the signal that ended its front end or linker in words; the
    // linker reports the file-size limit as a failed write.
    if output.contains("File size limit exceeded") || output.contains("File too large") {
        return Some(LimitHit::FileSize);
    }
    // A front end run apart from the driver and killed at the CPU limit (SIGKILL).
    if output.contains("CPU time limit exceeded") || output.contains("unable to execute command: Killed") {
        return Some(LimitHit::Cpu);
    }
    None
}

/// Reads `from` into `into`, stopping once past `cap` bytes (the run is killed then).
fn read_capped(
    mut from: impl Read + Send + 'static,
    into: Arc<Mutex<Vec<u8>>>,
    cap: usize,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut chunk = [0u8; 8192];
        loop {
            match from.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) => {
                    let mut printed = into.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                    printed.extend_from_slice(&chunk[..n]);
                    if printed.len() > cap {
                        return;
                    }
                }
            }
        }
    })
}

fn kill(child: &mut Child) {
    if let Some(pid) = Pid::from_raw(child.id() as i32) {
        // The linker clang started is in the same group.
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    let _ = child.kill();
}

/// The shell's script: wait for the server's line, then become clang with its output
/// and errors on one pipe.
const WAIT_THEN_EXEC: &str = "read -r go || exit 111; exec \"$@\" 2>&1";

/// Starts `sh` (then clang) from a thread confined for it; the thread ends once the
/// child is started (the confinement is inherited, and nothing waits on the thread).
fn spawn_confined(job: &Job<'_>) -> Result<Child, CompileError> {
    let filters = crate::sandbox::stage1_filters().map_err(CompileError::Sandbox)?;
    let rules = Rules::of(job);
    let toolchain = job.toolchain.clone();
    let args = job.args.clone();
    let folder = job.sources.to_path_buf();
    let output = job.output.to_path_buf();
    let spawner = std::thread::Builder::new()
        .name("vlab-compile".into())
        .stack_size(256 * 1024)
        .spawn(move || {
            crate::placement::place_this_thread();
            confine_this_thread(&rules, &filters)?;
            Command::new(&toolchain.shell)
                .arg("-c")
                .arg(WAIT_THEN_EXEC)
                .arg("vlab-compile")
                .arg(&toolchain.clang)
                .args(&args)
                .env_clear()
                .env("TMPDIR", &output)
                .env("PATH", "/usr/bin:/bin")
                .current_dir(&folder)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .process_group(0)
                .spawn()
                .map_err(|e| CompileError::Sandbox(format!("cannot run the compiler: {e}")))
        })
        .map_err(|e| CompileError::Sandbox(format!("cannot start a thread: {e}")))?;
    spawner.join().map_err(|_| CompileError::Sandbox("the compiler's spawner thread failed".into()))?
}

/// What the compiler may touch.
struct Rules {
    executables: Vec<PathBuf>,
    readable: Vec<PathBuf>,
    writable: Vec<PathBuf>,
}

impl Rules {
    fn of(job: &Job<'_>) -> Rules {
        let toolchain = job.toolchain;
        let mut executables = vec![toolchain.clang.clone(), toolchain.linker.clone(), toolchain.shell.clone()];
        executables.extend(toolchain.libraries.iter().cloned());
        let include = toolchain.sysroot_include();
        let lib = toolchain.sysroot_lib();
        let mut readable = vec![
            toolchain.resource_dir.clone(),
            include.to_path_buf(),
            lib.to_path_buf(),
            job.headers.to_path_buf(),
            job.sources.to_path_buf(),
            PathBuf::from("/etc/ld.so.cache"),
        ];
        // libc++'s headers and archives are links into LLVM's own folder: what they
        // point at is what is opened.
        for linked in [include.join("c++/v1"), lib.join("libc++.a"), lib.join("libc++abi.a")] {
            if let Ok(real) = linked.canonicalize() {
                readable.push(if real.is_dir() { real } else { real.parent().map_or(real.clone(), Path::to_path_buf) });
            }
        }
        readable.retain(|p| p.exists());
        // `/dev/null`: the shell's stderr, and where clang sends what it discards.
        Rules { executables, readable, writable: vec![job.output.to_path_buf(), PathBuf::from("/dev/null")] }
    }
}

/// Confines the calling thread: namespaces, capabilities, Landlock, seccomp's deny-list.
fn confine_this_thread(rules: &Rules, filters: &[seccompiler::BpfProgram]) -> Result<(), CompileError> {
    use nix::sched::{CloneFlags, unshare};
    // Tolerated when not permitted: seccomp and Landlock deny sockets anyway.
    let _ = unshare(CloneFlags::CLONE_NEWNET | CloneFlags::CLONE_NEWIPC);
    crate::sandbox::drop_bounding_set();
    restrict_files(rules)?;
    for filter in filters {
        seccompiler::apply_filter(filter)
            .map_err(|e| CompileError::Sandbox(format!("seccomp cannot be installed: {e}")))?;
    }
    Ok(())
}

/// Landlock, as for programs (`sandbox::landlock`): fails closed below ABI 3 or when
/// not enforced.
fn restrict_files(rules: &Rules) -> Result<(), CompileError> {
    crate::sandbox::landlock(&rules.executables, &rules.readable, &rules.writable)
        .map_err(|what| CompileError::Sandbox(format!("Landlock: {what}")))
}

/// The compile's rlimits, set on `sh` before it execs clang (clang and its linker
/// inherit them).
fn set_rlimits(pid: Pid, limits: &CompileLimits) -> std::io::Result<()> {
    let both = |n: u64| Rlimit { current: Some(n), maximum: Some(n) };
    // Soft and hard CPU limits alike: at the limit the kernel sends SIGKILL, which says
    // which limit it was. A soft limit's SIGXCPU is caught by clang, which then prints a
    // crash report and exits 1, like a compiler that failed for a reason of its own.
    prlimit(Some(pid), Resource::Cpu, both(limits.cpu_secs))?;
    prlimit(Some(pid), Resource::As, both(limits.memory_mib * 1024 * 1024))?;
    prlimit(Some(pid), Resource::Fsize, both(limits.file_bytes))?;
    prlimit(Some(pid), Resource::Nofile, both(limits.open_files))?;
    prlimit(Some(pid), Resource::Core, both(0))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::ExitStatusExt as _;

    use super::*;

    #[test]
    fn a_crash_report_that_fills_the_output_is_told_by_the_limit_it_names() {
        // Killed for printing too much (SIGKILL), its first words a crash at the memory limit.
        let killed = std::process::ExitStatus::from_raw(libc::SIGKILL);
        let crash = "LLVM ERROR: out of memory\nAllocation failed\nPLEASE submit a bug report\nStack dump:\n";
        assert_eq!(the_limit(Some(LimitHit::Output), &killed, crash), Some(LimitHit::Memory));
        // A flood of warnings is the output's length.
        let flood = "a.c:1:18: warning: unused variable 'unused0' [-Wunused-variable]\n".repeat(200);
        assert_eq!(the_limit(Some(LimitHit::Output), &killed, &flood), Some(LimitHit::Output));
        // Not stopped here: the signal says, then the words.
        assert_eq!(the_limit(None, &killed, &flood), Some(LimitHit::Cpu));
        assert_eq!(the_limit(None, &std::process::ExitStatus::from_raw(1 << 8), crash), Some(LimitHit::Memory));
        assert_eq!(the_limit(Some(LimitHit::Wall), &killed, crash), Some(LimitHit::Wall));
        // The driver, of its front end killed at the CPU limit.
        let driver = "clang: error: unable to execute command: Killed\nclang: error: clang frontend command failed due to signal (use -v to see invocation)\n";
        assert_eq!(the_limit(None, &std::process::ExitStatus::from_raw(1 << 8), driver), Some(LimitHit::Cpu));
    }
}
