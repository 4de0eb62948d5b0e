//! [`PythonProgram`]: one robot's Python program, a sandboxed child process in lockstep
//! with the lab.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::FileExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, ExitStatus};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nix::fcntl::{FcntlArg, OFlag, fcntl};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use serde::Deserialize;

use super::RobotSide;
use super::conversation::{Conversation, MAX_CONSOLE_LINE_BYTES};
use super::interpreter::Interpreter;
use super::messages::PIPE_PROTOCOL_VERSION;
use super::messages::{ConsoleLine, ConsoleSource, LabMsg, PartInfo, Reply, StepInput};
use super::packed::StepWriter;
use super::sandbox::{self, Launch};
use super::{Limits, ProgramError};

/// The `vlab` module, written into every program's folder: the Python client
/// package's own module (`clients/python`), so a program runs unchanged in both places.
const VLAB_PY: &str = include_str!("../../../clients/python/src/vlab/__init__.py");
/// The trusted bootstrap, passed with `-c`.
const BOOTSTRAP_PY: &str = include_str!("bootstrap.py");

pub use super::conversation::CONSOLE_HISTORY_LINES;
/// Most files in one program.
pub const MAX_PROGRAM_FILES: usize = 32;
/// Most bytes of source in one program.
pub const MAX_PROGRAM_BYTES: usize = 1024 * 1024;
/// The program's threads are counted at every this many looks for its answer (about
/// every 80 ms of simulation time at the default control rate).
const THREAD_CHECK_EVERY: u64 = 4;
/// How long the lab waits for a step's answer before it notes how long the program has
/// waited for a CPU (a read of `/proc/<pid>/schedstat`), from which the step's budget
/// gives waiting back: most answers come sooner and cost no read, and at most this much
/// of a step's wait for a CPU is not given back.
const QUICK_ANSWER: Duration = Duration::from_millis(20);
/// Bytes read from the program's pipes at once.
const READ_CHUNK: usize = 64 * 1024;
/// What the pipe to a program holds (asked of the kernel at its start; Linux gives
/// unprivileged users up to 1 MiB, `/proc/sys/fs/pipe-max-size`): a step with a
/// 320 × 240 camera image (about 230 KB) goes in at once, where the usual 64 KiB pipe
/// took it in four pieces, a control step apart, since the lab never waits for a
/// program to read. Where the kernel refuses, the pipe keeps its size and the rest of a
/// step follows at the lab's next looks.
pub const PIPE_BYTES: usize = 1024 * 1024;

/// A start's or a step's wall time may stretch to this many budgets in all when the
/// program spent the extra time waiting for a CPU (see [`stretched_deadline`]). Ten, not
/// three: at niceness 10 a program gets about a tenth of a CPU beside one busy process of
/// the machine's own priority and a twentieth beside two, so a step that needs a tenth
/// of its budget lasted past three budgets beside four (a lab's page in a browser on the
/// same machine was enough); a program's own time still counts in full, so what loops
/// is stopped once it has run its budget, however busy the machine.
pub const MAX_BUDGET_STRETCH: u32 = 10;

/// What a program was last asked, and since when (see [`stretched_deadline`]).
#[derive(Clone, Copy, Debug)]
enum Asked {
    /// To start, at this instant, until its first step is sent: the start-up budget,
    /// plus the time it has waited for a CPU since.
    Start(Instant),
    /// A step, sent `at`: the step budget, plus the time it waited for a CPU once the lab
    /// had waited [`QUICK_ANSWER`] for the answer (`waited`: its count then); what it
    /// waited before that is not given back.
    Step { at: Instant, waited: Option<Duration> },
    /// To stop: the stop budget, never stretched.
    Stop,
}

/// What to run, for which robot, under which limits.
#[derive(Clone, Debug)]
pub struct ProgramSpec {
    /// The robot it drives and the lab's clock (`seed` seeds the program's `random`).
    pub side: RobotSide,
    /// The file that runs (one of `files`).
    pub main: String,
    /// The program's files by name (`main.py`, helper modules it imports).
    pub files: BTreeMap<String, String>,
    /// Budgets and caps.
    pub limits: Limits,
    /// Where the program's folder is made (default: [`default_programs_dir`]).
    pub work_dir: Option<PathBuf>,
}

impl ProgramSpec {
    /// A program of one file, `main.py`, for robot `robot`, with default limits, a
    /// physics step of 1/240 s and a control step of 50 Hz.
    pub fn new(robot: &str, source: &str) -> ProgramSpec {
        ProgramSpec {
            side: RobotSide::new(robot),
            main: "main.py".into(),
            files: BTreeMap::from([("main.py".into(), source.into())]),
            limits: Limits::default(),
            work_dir: None,
        }
    }

    /// Adds a sensor.
    pub fn sensor(mut self, name: &str, kind: &str) -> ProgramSpec {
        self.side.sensors.push(PartInfo { name: name.into(), kind: kind.into() });
        self
    }

    /// Adds an actuator.
    pub fn actuator(mut self, name: &str, kind: &str) -> ProgramSpec {
        self.side.actuators.push(PartInfo { name: name.into(), kind: kind.into() });
        self
    }

    fn check(&self) -> Result<(), ProgramError> {
        let bad = |m: String| Err(ProgramError::InvalidProgram(m));
        if self.files.len() > MAX_PROGRAM_FILES {
            return bad(format!("more than {MAX_PROGRAM_FILES} files"));
        }
        if self.files.values().map(String::len).sum::<usize>() > MAX_PROGRAM_BYTES {
            return bad(format!("more than {MAX_PROGRAM_BYTES} bytes of source"));
        }
        for name in self.files.keys() {
            let stem = name.strip_suffix(".py").unwrap_or("");
            let plain = !stem.is_empty()
                && stem.len() <= 64
                && stem.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !stem.starts_with(|c: char| c.is_ascii_digit());
            if !plain {
                return bad(format!("file name {name:?}: use letters, digits and _ ending in .py"));
            }
            if name == "vlab.py" {
                return bad("a file may not be called vlab.py (that is the robot API)".into());
            }
        }
        if !self.files.contains_key(&self.main) {
            return bad(format!("the main file {:?} is missing", self.main));
        }
        Ok(())
    }
}

/// Where programs' folders are made by default: `vlab-programs-<uid>` in the system's
/// temporary folder, private to the server's user.
pub fn default_programs_dir() -> PathBuf {
    std::env::temp_dir().join(format!("vlab-programs-{}", rustix::process::geteuid().as_raw()))
}

/// Creates `dir` (and its parents) if needed, readable by the server's user only, and
/// checks that it is that user's: a folder another user made first is refused.
fn private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    std::fs::create_dir_all(dir)?;
    let meta = std::fs::symlink_metadata(dir)?;
    if !meta.is_dir() || meta.uid() != rustix::process::geteuid().as_raw() {
        return Err(std::io::Error::other(format!("{} is not a folder of the server's user", dir.display())));
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
}

/// Removes the folders that programs of a server no longer running left in `dir` (a
/// crash, a kill): a folder is `<robot>-<pid>-<n>`, and its server is gone when no
/// process `<pid>` exists. Returns how many were removed. Run at start-up.
pub fn sweep_program_folders(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let mut parts = name.rsplitn(3, '-');
        let (Some(_), Some(pid), Some(_)) = (parts.next(), parts.next(), parts.next()) else { continue };
        let Ok(pid) = pid.parse::<u32>() else { continue };
        let alive = pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists();
        if !alive && std::fs::remove_dir_all(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// The folder of one program: its files and `vlab.py`, read-only to it, private to the
/// server's user, removed with it.
struct ProgramFolder(PathBuf);

impl ProgramFolder {
    fn create(spec: &ProgramSpec) -> Result<ProgramFolder, ProgramError> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let base = spec.work_dir.clone().unwrap_or_else(default_programs_dir);
        let robot: String =
            spec.side.robot.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).take(32).collect();
        let path = base.join(format!("{robot}-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)));
        let io = |e: std::io::Error| ProgramError::Start(format!("cannot prepare the program's folder: {e}"));
        private_dir(&base).map_err(io)?;
        private_dir(&path).map_err(io)?;
        let folder = ProgramFolder(std::fs::canonicalize(&path).map_err(io)?);
        std::fs::write(folder.0.join("vlab.py"), VLAB_PY).map_err(io)?;
        for (name, source) in &spec.files {
            std::fs::write(folder.0.join(name), source).map_err(io)?;
        }
        Ok(folder)
    }
}

impl Drop for ProgramFolder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What the bootstrap says before the protocol starts.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum BootstrapMsg {
    Sandboxed,
    SandboxFailed { message: String },
}

/// One robot's Python program, running in its sandbox in lockstep with the lab.
///
/// The lab sends it the readings of a control step ([`PythonProgram::send_step`]) and
/// collects its answer ([`PythonProgram::receive`]) within the step budget; sending to
/// every robot's program before collecting from any lets them all think at once.
/// Any failure stops the program for good: the child is killed and reaped, and every
/// later call returns the same error.
///
/// # Example
/// ```no_run
/// use vlab_programs::{ProgramSpec, PythonProgram, StepInput};
///
/// let spec = ProgramSpec::new("bot", "from vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    robot.actuator('M').set_speed(2)\n")
///     .actuator("M", "SimpleMotor");
/// let mut program = PythonProgram::start(spec)?;
/// let first = program.receive()?; // commands set before the first step()
/// let reply = program.exchange(&StepInput { step: 5, time_secs: 5.0 / 240.0, sensors: Default::default() })?;
/// assert_eq!(reply.commands.len(), 1);
/// program.stop();
/// # Ok::<(), vlab_programs::ProgramError>(())
/// ```
pub struct PythonProgram {
    robot: String,
    limits: Limits,
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    stderr: Option<ChildStderr>,
    out_buf: Vec<u8>,
    /// How much of `out_buf` is known to hold no newline.
    out_scanned: usize,
    err_buf: Vec<u8>,
    /// What is read from the pipes goes here first (kept: a step allocates nothing).
    chunk: Vec<u8>,
    /// What is being written to the program (kept, as `chunk`): `send_buf[sent..]` has
    /// not reached its pipe yet.
    send_buf: Vec<u8>,
    /// How much of `send_buf` has reached the pipe.
    sent: usize,
    steps: StepWriter,
    /// The program's `/proc/<pid>/stat`, kept open: it is read again from its start.
    stat: Option<File>,
    /// `/proc/<pid>/schedstat`: how long the program waited for a CPU.
    schedstat: Option<File>,
    /// What it was last asked, and since when: its budget and its deadline's stretch.
    asked: Asked,
    /// The clock of the program's CPU time (`None` where it cannot be had).
    cpu_clock: Option<nix::time::ClockId>,
    conversation: Conversation,
    deadline: Instant,
    failed: Option<ProgramError>,
    /// Looks for an answer so far (the thread count is checked every few).
    looks: u64,
    reaped: bool,
    keepalive: Option<mpsc::Sender<()>>,
    spawner: Option<JoinHandle<()>>,
    _folder: ProgramFolder,
}

impl PythonProgram {
    /// Starts the program in its sandbox and sends it the hello; the first
    /// [`PythonProgram::receive`] collects its answer (the commands set before its
    /// first `robot.step()`), within [`Limits::startup_budget`].
    ///
    /// Refuses with [`ProgramError::SandboxUnavailable`] when Landlock (ABI 3 or newer)
    /// or seccomp cannot be enforced: a program never runs unconfined.
    pub fn start(spec: ProgramSpec) -> Result<PythonProgram, ProgramError> {
        spec.check()?;
        let interpreter = Interpreter::system()?;
        let folder = ProgramFolder::create(&spec)?;
        let launch = Launch {
            interpreter,
            folder: folder.0.clone(),
            // Not -I: it would ignore PYTHONHASHSEED. The environment is the child's
            // whole environment, so -s (no user site) and PYTHONSAFEPATH (no script
            // folder on the path; the bootstrap adds the program's) give the same
            // isolation.
            args: vec![
                "-s".into(),
                "-S".into(),
                "-B".into(),
                "-X".into(),
                "utf8".into(),
                "-c".into(),
                BOOTSTRAP_PY.into(),
                folder.0.display().to_string(),
                spec.main.clone(),
            ],
            // A fixed hash seed: iterating a set of strings goes in the same order
            // in every run, so a lockstep run repeats.
            env: vec![
                ("PYTHONHASHSEED".into(), (spec.side.seed % 4_294_967_296).to_string()),
                ("PYTHONSAFEPATH".into(), "1".into()),
            ],
            thread_name: format!("program-{}", spec.side.robot),
        };
        let mut spawned = sandbox::spawn(launch, &spec.limits)?;
        let (stdin, stdout, stderr) =
            match (spawned.child.stdin.take(), spawned.child.stdout.take(), spawned.child.stderr.take()) {
                (Some(i), Some(o), Some(e)) => (i, o, e),
                _ => return Err(ProgramError::Start("the program's pipes are missing".into())),
            };
        let nonblocking = |fd: std::os::fd::BorrowedFd<'_>| fcntl(fd, FcntlArg::F_SETFL(OFlag::O_NONBLOCK));
        let set = nonblocking(stdin.as_fd()).and(nonblocking(stdout.as_fd())).and(nonblocking(stderr.as_fd()));
        // Best effort: a smaller pipe only makes big steps travel in pieces.
        let _ = fcntl(stdin.as_fd(), FcntlArg::F_SETPIPE_SZ(PIPE_BYTES as libc::c_int));
        let pid = nix::unistd::Pid::from_raw(spawned.child.id() as i32);
        let mut program = PythonProgram {
            robot: spec.side.robot.clone(),
            limits: spec.limits.clone(),
            stat: File::open(format!("/proc/{pid}/stat")).ok(),
            schedstat: File::open(format!("/proc/{pid}/schedstat")).ok(),
            asked: Asked::Start(Instant::now()),
            cpu_clock: nix::time::clock_getcpuclockid(pid).ok(),
            child: spawned.child,
            stdin,
            stdout,
            stderr: Some(stderr),
            out_buf: Vec::new(),
            out_scanned: 0,
            err_buf: Vec::new(),
            chunk: vec![0; READ_CHUNK],
            send_buf: Vec::new(),
            sent: 0,
            steps: StepWriter::default(),
            conversation: Conversation::new(&spec.limits, PIPE_PROTOCOL_VERSION),
            deadline: Instant::now() + spec.limits.startup_budget,
            failed: None,
            looks: 0,
            reaped: false,
            keepalive: Some(spawned.keepalive),
            spawner: Some(spawned.thread),
            _folder: folder,
        };
        if let Err(e) = set {
            return Err(program.fail(ProgramError::Start(format!("cannot set up the program's pipes: {e}"))));
        }
        program.handshake(&spec)?;
        Ok(program)
    }

    /// The sandbox's second stage, checked; then the hello.
    fn handshake(&mut self, spec: &ProgramSpec) -> Result<(), ProgramError> {
        let pid = self.child.id();
        let stage2 = match sandbox::stage2_hex(pid) {
            Ok(hex) => hex,
            Err(e) => return Err(self.fail(ProgramError::SandboxUnavailable(e))),
        };
        let preamble = serde_json::json!({ "seccomp": stage2, "parent": std::process::id() });
        self.write_message(&preamble)?;
        let end = self.read_line(true)?.expect("a patient read returns a line or an error");
        let said = serde_json::from_slice::<BootstrapMsg>(&self.out_buf[..end]);
        self.take_line(end);
        match said {
            Ok(BootstrapMsg::Sandboxed) => {}
            Ok(BootstrapMsg::SandboxFailed { message }) => {
                return Err(self.fail(ProgramError::SandboxUnavailable(message)));
            }
            Err(e) => return Err(self.fail(ProgramError::Protocol(format!("unexpected start-up line: {e}")))),
        }
        if let Err(e) = sandbox::verify_confined(pid) {
            return Err(self.fail(e));
        }
        let hello = self.conversation.hello(&spec.side);
        self.write_message(&hello)?;
        Ok(())
    }

    /// The robot this program drives.
    pub fn robot(&self) -> &str {
        &self.robot
    }

    /// Why it stopped, once it has.
    pub fn error(&self) -> Option<&ProgramError> {
        self.failed.as_ref()
    }

    /// Its latest console lines (at most [`CONSOLE_HISTORY_LINES`]), oldest first,
    /// including those printed before it failed.
    pub fn console(&self) -> impl Iterator<Item = &ConsoleLine> {
        self.conversation.history()
    }

    /// Sends the readings of one control step without waiting: what the pipe does not
    /// take now follows at [`PythonProgram::push`], [`PythonProgram::try_receive`] or
    /// [`PythonProgram::receive`] (which waits for the program to read it, within the
    /// step budget). A lab that waits for the answer waits at most
    /// [`Limits::step_budget`] from when it begins to wait.
    pub fn send_step(&mut self, input: &StepInput) -> Result<(), ProgramError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        // A step before the previous answer is the lab's mistake, not the program's.
        if let Err(e) = self.conversation.step(input.step) {
            return Err(self.fail(e));
        }
        self.asked = Asked::Step { at: Instant::now(), waited: None };
        self.deadline = Instant::now() + self.limits.step_budget;
        self.send_buf.clear();
        self.sent = 0;
        self.steps.write(input, &mut self.send_buf);
        self.push().map(|_| ())
    }

    /// Writes what the pipe takes of the message being sent, without waiting; `true`
    /// while some of it has not reached the pipe (the program is not reading).
    pub fn push(&mut self) -> Result<bool, ProgramError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        while self.sent < self.send_buf.len() {
            match self.stdin.write(&self.send_buf[self.sent..]) {
                Ok(n) => self.sent += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => return Ok(true),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => {
                    // The other end is closed: the program has ended; say why.
                    let error = self.exit_error();
                    return Err(self.fail(error));
                }
            }
        }
        Ok(false)
    }

    /// Bytes sent to the program that it has not read yet: those still waiting to
    /// reach its pipe and those in the pipe.
    pub fn unread(&self) -> usize {
        // On a pipe, FIONREAD answers for either end.
        let in_pipe = rustix::io::ioctl_fionread(&self.stdin).map_or(0, |n| usize::try_from(n).unwrap_or(0));
        self.send_buf.len() - self.sent + in_pipe
    }

    /// The answer to the hello or to the last step sent: waits at most until that
    /// message's budget runs out, then stops the program.
    pub fn receive(&mut self) -> Result<Reply, ProgramError> {
        self.answer(true).map(|reply| reply.expect("a patient read returns a line or an error"))
    }

    /// The answer to the hello or to the last step sent if it has arrived (`None`
    /// while the program is still thinking), without waiting; console lines that came
    /// meanwhile are kept for the answer.
    pub fn try_receive(&mut self) -> Result<Option<Reply>, ProgramError> {
        self.answer(false)
    }

    /// The CPU time the program's process has used since it started: its own clock,
    /// whatever the load of the machine. `None` once it has been reaped.
    pub fn cpu_time(&self) -> Option<Duration> {
        if self.reaped {
            return None;
        }
        let spent = nix::time::clock_gettime(self.cpu_clock?).ok()?;
        Some(Duration::from(spent))
    }

    /// Every [`THREAD_CHECK_EVERY`] looks, counts the threads of the program's process
    /// (`/proc/<pid>/stat`, field 20) and stops it past [`Limits::max_threads`].
    fn count_threads(&mut self) -> Result<(), ProgramError> {
        self.looks = self.looks.wrapping_add(1);
        if !self.looks.is_multiple_of(THREAD_CHECK_EVERY) {
            return Ok(());
        }
        let Some(file) = &self.stat else { return Ok(()) };
        // Read from its start, the file says how things are now (not when it was opened).
        let mut stat = [0u8; 1024];
        let Ok(read) = file.read_at(&mut stat, 0) else { return Ok(()) };
        let stat = String::from_utf8_lossy(&stat[..read]);
        // The command name (field 2) may hold spaces: count from after its ')'.
        let threads = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(17)?.parse::<u32>().ok());
        match threads {
            Some(n) if n > self.limits.max_threads => {
                Err(self.fail(ProgramError::TooManyThreads { limit: self.limits.max_threads }))
            }
            _ => Ok(()),
        }
    }

    /// Reads the program's messages until its answer; with `wait`, until the deadline,
    /// else only what has already arrived.
    fn answer(&mut self, wait: bool) -> Result<Option<Reply>, ProgramError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        self.count_threads()?;
        if let Err(e) = self.conversation.expecting() {
            return Err(self.fail(e));
        }
        // The rest of the readings first: no answer comes before the program has them.
        if wait {
            self.wait_from_now();
            self.write_buffered()?;
        } else if self.push()? {
            return Ok(None);
        }
        loop {
            let Some(end) = self.read_line(wait)? else { return Ok(None) };
            let message = Conversation::parse(&self.out_buf[..end]);
            self.take_line(end);
            match message.and_then(|message| self.conversation.take(message)) {
                Ok(Some(reply)) => return Ok(Some(reply)),
                Ok(None) => {}
                Err(e) => return Err(self.fail(e)),
            }
        }
    }

    /// [`PythonProgram::send_step`] then [`PythonProgram::receive`].
    pub fn exchange(&mut self, input: &StepInput) -> Result<Reply, ProgramError> {
        self.send_step(input)?;
        self.receive()
    }

    /// Tells the program to stop (`robot.step()` returns `False`), gives it
    /// [`Limits::stop_budget`] to finish, then kills it whatever it does. `Ok` when it
    /// ended cleanly (its last console lines are in [`PythonProgram::console`]).
    pub fn stop(&mut self) -> Result<(), ProgramError> {
        if let Some(e) = &self.failed {
            return if *e == ProgramError::Stopped || *e == ProgramError::Ended { Ok(()) } else { Err(e.clone()) };
        }
        self.asked = Asked::Stop;
        self.deadline = Instant::now() + self.limits.stop_budget;
        self.conversation.stop();
        let result = self.write_message(&LabMsg::Stop).and_then(|()| {
            loop {
                match self.receive() {
                    Ok(_) => {}
                    Err(ProgramError::Ended) => break Ok(()),
                    Err(e) => break Err(e),
                }
            }
        });
        self.failed = Some(ProgramError::Stopped);
        self.kill_and_reap();
        result
    }

    fn take_output(&mut self, lines: Vec<ConsoleLine>) -> Result<(), ProgramError> {
        self.conversation.take_output(lines).map_err(|e| self.fail(e))
    }

    /// Writes `message` as one line, after the rest of a step still on its way (the program reads them in order).
    fn write_message<M: serde::Serialize>(&mut self, message: &M) -> Result<(), ProgramError> {
        self.send_buf.drain(..self.sent);
        self.sent = 0;
        serde_json::to_writer(&mut self.send_buf, message).expect("lab messages serialise");
        self.send_buf.push(b'\n');
        self.write_buffered()
    }

    /// Writes the rest of `send_buf`, waiting for the program to read it, never past
    /// the deadline: for the start, a lockstep lab's answer, and `stop`.
    fn write_buffered(&mut self) -> Result<(), ProgramError> {
        while self.sent < self.send_buf.len() {
            match self.stdin.write(&self.send_buf[self.sent..]) {
                Ok(n) => self.sent += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    let Some(timeout) = self.poll_timeout() else {
                        return Err(self.timed_out());
                    };
                    let mut fds = [PollFd::new(self.stdin.as_fd(), PollFlags::POLLOUT)];
                    let _ = poll(&mut fds, timeout);
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => {
                    // The other end is closed: the program has ended; say why.
                    let error = self.exit_error();
                    return Err(self.fail(error));
                }
            }
        }
        Ok(())
    }

    /// Drops the line that ends at `end` (its newline) from `out_buf`.
    fn take_line(&mut self, end: usize) {
        self.out_buf.drain(..=end);
        self.out_scanned = 0;
    }

    /// Reads one line from the program's stdout, draining its stderr meanwhile: with
    /// `wait`, until the deadline; without, only what has arrived (`None`: no whole
    /// line yet). The line is `out_buf[..end]`, `end` the index of its newline, which
    /// [`PythonProgram::take_line`] drops once it has been read.
    fn read_line(&mut self, wait: bool) -> Result<Option<usize>, ProgramError> {
        let mut chunk = std::mem::take(&mut self.chunk);
        let result = self.read_line_with(wait, &mut chunk);
        self.chunk = chunk;
        result
    }

    fn read_line_with(&mut self, wait: bool, chunk: &mut [u8]) -> Result<Option<usize>, ProgramError> {
        let max_line = self.limits.output_bytes_per_step + 256 * 1024;
        // Past the deadline the pipes get one more look without waiting: the lab may
        // come to a program late (it collected a slower one first), and an answer that
        // arrived in time must not count as a miss.
        let mut last_look = false;
        loop {
            if let Some(at) = self.out_buf[self.out_scanned..].iter().position(|&b| b == b'\n') {
                return Ok(Some(self.out_scanned + at));
            }
            self.out_scanned = self.out_buf.len();
            if self.out_buf.len() > max_line {
                return Err(self.fail(ProgramError::OutputFlood { bytes: self.limits.output_bytes_per_step }));
            }
            if wait {
                self.note_step_wait();
            }
            let timeout = match self.poll_timeout() {
                _ if !wait => PollTimeout::ZERO,
                Some(timeout) => timeout,
                None if self.stretch_deadline() => continue,
                None if !last_look => {
                    last_look = true;
                    PollTimeout::ZERO
                }
                None => return Err(self.timed_out()),
            };
            let (out_ready, err_ready) = {
                // On the stack: a step's read allocates nothing.
                let out = PollFd::new(self.stdout.as_fd(), PollFlags::POLLIN);
                let (mut both, looked) = match &self.stderr {
                    Some(stderr) => ([out, PollFd::new(stderr.as_fd(), PollFlags::POLLIN)], 2),
                    None => ([out, PollFd::new(self.stdout.as_fd(), PollFlags::POLLIN)], 1),
                };
                let fds = &mut both[..looked];
                match poll(fds, timeout) {
                    Ok(0) if !wait => return Ok(None),
                    Ok(0) if last_look => return Err(self.timed_out()),
                    Ok(0) => continue,
                    Ok(_) => {
                        let ready = |fd: &PollFd<'_>| fd.revents().is_some_and(|r| !r.is_empty());
                        (ready(&fds[0]), fds.get(1).is_some_and(ready))
                    }
                    Err(nix::errno::Errno::EINTR) => continue,
                    Err(e) => return Err(self.fail(ProgramError::Start(format!("poll failed: {e}")))),
                }
            };
            if err_ready {
                self.read_stderr(chunk)?;
            }
            if out_ready {
                match self.stdout.read(chunk) {
                    Ok(0) => {
                        let error = self.exit_error();
                        return Err(self.fail(error));
                    }
                    Ok(n) => {
                        self.out_buf.extend_from_slice(&chunk[..n]);
                        last_look = false;
                    }
                    Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted) => {}
                    Err(e) => return Err(self.fail(ProgramError::Start(format!("reading the program: {e}")))),
                }
            }
        }
    }

    /// Takes what the program wrote to its stderr (fd 2) as console lines.
    fn read_stderr(&mut self, chunk: &mut [u8]) -> Result<(), ProgramError> {
        let Some(stderr) = self.stderr.as_mut() else { return Ok(()) };
        match stderr.read(chunk) {
            Ok(0) => {
                self.stderr = None;
                self.flush_stderr(true)
            }
            Ok(n) => {
                self.err_buf.extend_from_slice(&chunk[..n]);
                self.flush_stderr(false)
            }
            Err(_) => Ok(()),
        }
    }

    fn flush_stderr(&mut self, all: bool) -> Result<(), ProgramError> {
        let mut lines = Vec::new();
        while let Some(end) = self.err_buf.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.err_buf.drain(..=end).collect();
            lines.push(line[..line.len() - 1].to_vec());
        }
        if self.err_buf.len() > MAX_CONSOLE_LINE_BYTES || (all && !self.err_buf.is_empty()) {
            lines.push(std::mem::take(&mut self.err_buf));
        }
        let lines = lines
            .into_iter()
            .map(|l| ConsoleLine { source: ConsoleSource::Stderr, text: String::from_utf8_lossy(&l).into_owned() })
            .collect();
        self.take_output(lines)
    }

    /// A lab that begins to wait for a step's answer waits its budget from now: the
    /// readings may have gone out long before, in a real-time lab that did not wait
    /// (the instructor has just switched it to lockstep), and a program that was
    /// legitimately late there has not used the lab's patience yet.
    fn wait_from_now(&mut self) {
        if let Asked::Step { .. } = self.asked {
            let now = Instant::now();
            if self.deadline < now + self.limits.step_budget {
                self.asked = Asked::Step { at: now, waited: None };
                self.deadline = now + self.limits.step_budget;
            }
        }
    }

    /// Once the lab has waited [`QUICK_ANSWER`] for a step's answer: how long the
    /// program has waited for a CPU so far, the count its step's stretch starts from.
    /// Most answers come sooner and cost no read; a count that cannot be read is kept
    /// as zero (the stretch then reads nothing either, and gives nothing back).
    fn note_step_wait(&mut self) {
        if let Asked::Step { at, waited: None } = self.asked
            && at.elapsed() >= QUICK_ANSWER
        {
            self.asked = Asked::Step { at, waited: Some(self.cpu_wait().unwrap_or_default()) };
        }
    }

    /// At the deadline of a start or of a step: moves it on by the time the program
    /// waited for a CPU meanwhile (a busy machine, not the program's doing), within
    /// [`MAX_BUDGET_STRETCH`] budgets. Whether the deadline moved.
    fn stretch_deadline(&mut self) -> bool {
        let (since, waited) = match self.asked {
            Asked::Start(since) => (since, self.cpu_wait()),
            Asked::Step { at, waited: Some(seen) } => (at, self.cpu_wait().map(|now| now.saturating_sub(seen))),
            Asked::Step { waited: None, .. } | Asked::Stop => return false,
        };
        let Some(waited) = waited else { return false };
        let deadline = stretched_deadline(since, self.budget(), waited);
        if deadline > self.deadline && deadline > Instant::now() {
            self.deadline = deadline;
            return true;
        }
        false
    }

    /// How long the program's main thread has waited for a CPU, runnable but not
    /// running (`/proc/<pid>/schedstat`, field 2, nanoseconds).
    fn cpu_wait(&self) -> Option<Duration> {
        let mut text = [0u8; 128];
        let read = self.schedstat.as_ref()?.read_at(&mut text, 0).ok()?;
        let waited = std::str::from_utf8(&text[..read]).ok()?.split_whitespace().nth(1)?.parse::<u64>().ok()?;
        Some(Duration::from_nanos(waited))
    }

    /// Time left before the deadline, for `poll`; `None` once it has passed.
    fn poll_timeout(&self) -> Option<PollTimeout> {
        let now = Instant::now();
        let mut left = self.deadline.checked_duration_since(now)?;
        if left.is_zero() {
            return None;
        }
        // A step's wait wakes at QUICK_ANSWER to note the program's wait for a CPU.
        if let Asked::Step { at, waited: None } = self.asked {
            left = left.min((at + QUICK_ANSWER).saturating_duration_since(now));
        }
        let ms = left.as_millis().max(1).min(i32::MAX as u128) as i32;
        Some(PollTimeout::try_from(ms).unwrap_or(PollTimeout::MAX))
    }

    /// The budget of what it was last asked.
    fn budget(&self) -> Duration {
        match self.asked {
            Asked::Start(_) => self.limits.startup_budget,
            Asked::Step { .. } => self.limits.step_budget,
            Asked::Stop => self.limits.stop_budget,
        }
    }

    /// The budget named is the one it had: time given back for waiting for a CPU was
    /// never its own.
    fn timed_out(&mut self) -> ProgramError {
        self.fail(ProgramError::Timeout { ms: self.budget().as_millis() })
    }

    /// Why the program is gone, once its stdout closed or its stdin broke.
    fn exit_error(&mut self) -> ProgramError {
        let status = self.reap_within(Duration::from_millis(500));
        while self.stderr.is_some() {
            let mut chunk = vec![0u8; 64 * 1024];
            if self.read_stderr(&mut chunk).is_err() {
                break;
            }
            if let Some(stderr) = &self.stderr {
                let mut fds = [PollFd::new(stderr.as_fd(), PollFlags::POLLIN)];
                if !matches!(poll(&mut fds, PollTimeout::ZERO), Ok(n) if n > 0) {
                    break;
                }
            }
        }
        let _ = self.flush_stderr(true);
        match status {
            Some(status) => self.classify(status),
            None => ProgramError::Protocol("it closed its output but did not exit".into()),
        }
    }

    fn classify(&self, status: ExitStatus) -> ProgramError {
        if let Some(signal) = status.signal() {
            return match signal {
                libc::SIGXCPU | libc::SIGKILL => ProgramError::CpuLimit { secs: self.limits.cpu_secs },
                libc::SIGSEGV => ProgramError::Crashed {
                    signal: "segmentation fault: often a recursion too deep for the stack".into(),
                },
                libc::SIGXFSZ => ProgramError::Crashed { signal: "tried to write a file".into() },
                other => ProgramError::Crashed { signal: signal_name(other) },
            };
        }
        match status.code() {
            Some(0) => ProgramError::Ended,
            Some(70) => ProgramError::SandboxUnavailable("the bootstrap could not confine the program".into()),
            Some(code) => ProgramError::Exited { code },
            None => ProgramError::Crashed { signal: "unknown".into() },
        }
    }

    /// Waits up to `grace` for the child to exit, then kills it; `None` if even that
    /// did not reap it.
    fn reap_within(&mut self, grace: Duration) -> Option<ExitStatus> {
        let until = Instant::now() + grace;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => {
                    self.reaped = true;
                    return Some(status);
                }
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(1)),
                Ok(None) => {
                    self.kill_and_reap();
                    return None;
                }
                Err(_) => return None,
            }
        }
    }

    /// Stops the program for good with `error` (kept for later calls) and returns it.
    fn fail(&mut self, error: ProgramError) -> ProgramError {
        self.failed = Some(error.clone());
        self.kill_and_reap();
        error
    }

    fn kill_and_reap(&mut self) {
        if !self.reaped {
            let pgid = nix::unistd::Pid::from_raw(self.child.id() as i32);
            let _ = nix::sys::signal::killpg(pgid, nix::sys::signal::Signal::SIGKILL);
            let _ = self.child.kill();
            let _ = self.child.wait();
            self.reaped = true;
        }
        self.conversation.end();
        // The spawner thread may end now: the child is gone.
        self.keepalive = None;
        if let Some(thread) = self.spawner.take() {
            let _ = thread.join();
        }
    }

    /// The program's folder (for tests and diagnostics).
    pub fn folder(&self) -> &Path {
        &self._folder.0
    }
}

impl Drop for PythonProgram {
    fn drop(&mut self) {
        self.kill_and_reap();
    }
}

fn signal_name(signal: i32) -> String {
    nix::sys::signal::Signal::try_from(signal)
        .map(|s| s.as_str().to_string())
        .unwrap_or_else(|_| format!("signal {signal}"))
}

impl super::Controller for PythonProgram {
    fn robot(&self) -> &str {
        PythonProgram::robot(self)
    }

    fn send_step(&mut self, input: &StepInput) -> Result<(), ProgramError> {
        PythonProgram::send_step(self, input)
    }

    fn push(&mut self) -> Result<bool, ProgramError> {
        PythonProgram::push(self)
    }

    fn unread(&self) -> usize {
        PythonProgram::unread(self)
    }

    fn receive(&mut self) -> Result<Reply, ProgramError> {
        PythonProgram::receive(self)
    }

    fn try_receive(&mut self) -> Result<Option<Reply>, ProgramError> {
        PythonProgram::try_receive(self)
    }

    fn cpu_time(&self) -> Option<Duration> {
        PythonProgram::cpu_time(self)
    }

    fn cpu_wait(&self) -> Option<Duration> {
        if self.reaped { None } else { PythonProgram::cpu_wait(self) }
    }

    fn stop(&mut self) -> Result<(), ProgramError> {
        PythonProgram::stop(self)
    }

    fn error(&self) -> Option<&ProgramError> {
        PythonProgram::error(self)
    }
}

/// When a program asked at `since` (its start, or a step in a lockstep lab) must have
/// answered: its `budget` of wall time plus the time it `waited` for a CPU, at most
/// [`MAX_BUDGET_STRETCH`] budgets in all. On a busy machine (other programs, a build,
/// a lab at full speed) imports and steps take longer for reasons that are not the
/// program's; a program that sleeps or loops is still stopped once its own time is up.
pub fn stretched_deadline(since: Instant, budget: Duration, waited: Duration) -> Instant {
    since + (budget + waited).min(budget * MAX_BUDGET_STRETCH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_start_or_step_gets_back_the_time_it_waited_for_a_cpu_within_the_stretch() {
        let since = Instant::now();
        let budget = Duration::from_secs(5);
        assert_eq!(stretched_deadline(since, budget, Duration::ZERO), since + budget, "a quiet machine: the budget");
        assert_eq!(stretched_deadline(since, budget, Duration::from_secs(2)), since + Duration::from_secs(7));
        assert_eq!(
            stretched_deadline(since, budget, Duration::from_secs(60)),
            since + budget * MAX_BUDGET_STRETCH,
            "never more than the stretch"
        );
    }
}
