//! The server under test: a real `vlab serve` child process on a free port with a
//! fresh database, its limits raised for a class talking from one address; what the
//! kernel says about it (memory, threads, files, programs); stopped when dropped.

use std::fs::File;
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

/// How long a stopped server gets to shut down before it is killed.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// A running `vlab serve`; interrupted (then killed) when dropped, also on a panic.
pub struct ServerProcess {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
    /// Its stdout and stderr.
    pub log: PathBuf,
    db: PathBuf,
}

/// What `/proc` says about the server at one moment.
#[derive(Clone, Copy, Default)]
pub struct ProcessStats {
    /// Resident memory (`VmRSS`), bytes.
    pub rss: Option<u64>,
    /// Threads.
    pub threads: Option<u64>,
    /// Open file descriptors (sockets included).
    pub fds: Option<u64>,
    /// Processes below it: robot programs.
    pub descendants: Option<u64>,
}

impl ServerProcess {
    /// Starts `binary serve` in `dir` (database `dir/soak.db`, log `dir/server.log`)
    /// with `instructor_token` as the demo lab's. Joins and uploads are allowed far more
    /// often than by default, and connections from one address up to the overall cap:
    /// every simulated student and viewer talks from 127.0.0.1.
    pub fn start(binary: &Path, dir: &Path, instructor_token: &str) -> Result<ServerProcess> {
        let addr = free_port()?;
        let db = dir.join("soak.db");
        let log = dir.join("server.log");
        let output = File::create(&log).with_context(|| format!("cannot create {}", log.display()))?;
        let errors = output.try_clone()?;
        let child = Command::new(binary)
            .arg("serve")
            .args(["--addr", &addr.to_string()])
            .arg("--db")
            .arg(&db)
            .args(["--instructor-token", instructor_token])
            .args(["--join-rate", "10000/min", "--upload-rate", "10000/min"])
            .args(["--max-connections", "4096", "--max-connections-per-address", "4096"])
            // Warnings and errors only: the log is read for them at the end, and a
            // line per request over a long run would be noise.
            .env("RUST_LOG", "warn")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(output)
            .stderr(errors)
            .spawn()
            .with_context(|| format!("cannot start {}", binary.display()))?;
        Ok(ServerProcess { child, addr, log, db })
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// How it ended, if it has.
    pub fn exited(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Its memory, threads, open files and programs now.
    pub fn stats(&self) -> ProcessStats {
        let pid = self.pid();
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find_map(|line| line.strip_prefix(name))
                .and_then(|rest| rest.split_whitespace().next().and_then(|n| n.parse::<u64>().ok()))
        };
        ProcessStats {
            rss: field("VmRSS:").map(|kib| kib * 1024),
            threads: field("Threads:"),
            fds: std::fs::read_dir(format!("/proc/{pid}/fd")).ok().map(|dir| dir.count() as u64),
            descendants: descendants(pid),
        }
    }

    /// The database's size on disk: the file and its write-ahead log.
    pub fn db_bytes(&self) -> u64 {
        let mut wal = self.db.clone().into_os_string();
        wal.push("-wal");
        [self.db.clone(), PathBuf::from(wal)].iter().filter_map(|f| std::fs::metadata(f).ok()).map(|m| m.len()).sum()
    }

    /// The last `lines` lines of its log.
    pub fn log_tail(&self, lines: usize) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }

    /// Interrupts it as Ctrl-C would (it stops its programs and closes the database),
    /// kills it if it has not ended within [`SHUTDOWN_GRACE`]; how it ended.
    pub fn stop(&mut self) -> Option<ExitStatus> {
        if let Some(status) = self.exited() {
            return Some(status);
        }
        interrupt(self.pid());
        let deadline = Instant::now() + SHUTDOWN_GRACE;
        while Instant::now() < deadline {
            if let Some(status) = self.exited() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        self.child.wait().ok()
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A port of 127.0.0.1 nobody listens on now. (Another process could take it before
/// the server binds it; the server then fails to start, which says so.)
fn free_port() -> Result<SocketAddr> {
    let listener = TcpListener::bind("127.0.0.1:0").context("no free port on 127.0.0.1")?;
    Ok(listener.local_addr()?)
}

#[cfg(target_os = "linux")]
fn interrupt(pid: u32) {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    if let Ok(pid) = i32::try_from(pid) {
        let _ = kill(Pid::from_raw(pid), Signal::SIGINT);
    }
}

#[cfg(not(target_os = "linux"))]
fn interrupt(_pid: u32) {
    // Nothing portable interrupts a child: `stop` kills it after the grace period.
}

/// How many processes descend from `pid`, from every process's parent in `/proc`.
fn descendants(pid: u32) -> Option<u64> {
    let mut parent_of = Vec::new();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // `pid (comm) state ppid ...`: comm may hold spaces and parentheses, so read
        // after the last `)`.
        let Some(after_comm) = stat.rfind(')').map(|i| &stat[i + 1..]) else { continue };
        if let Some(parent) = after_comm.split_whitespace().nth(1).and_then(|p| p.parse::<u32>().ok()) {
            parent_of.push((child, parent));
        }
    }
    let mut family = vec![pid];
    let mut grew = true;
    while grew {
        grew = false;
        for &(child, parent) in &parent_of {
            if family.contains(&parent) && !family.contains(&child) {
                family.push(child);
                grew = true;
            }
        }
    }
    Some(family.len() as u64 - 1)
}
