//! A throw-away `nats-server` with JetStream: on a free loopback port, its store in a
//! folder of its own.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use super::{NATS_URL_VAR, free_port, missing, scratch_folder, spawn, wait_for_port};

/// Where Debian's `nats-server` package puts the binary.
const DEBIAN_NATS_SERVER: &str = "/usr/sbin/nats-server";

/// A nats-server of a test's own (or the process's shared one). Dropped, it is killed
/// and its folder removed.
pub struct NatsServer {
    child: Option<Child>,
    port: u16,
    folder: PathBuf,
}

impl NatsServer {
    /// Starts a nats-server for this test alone: one it may stop, restart or cut off.
    /// Panics if nats-server is missing or does not start.
    pub fn start_private() -> NatsServer {
        let mut server = NatsServer { child: None, port: free_port(), folder: scratch_folder("nats") };
        server.start();
        server
    }

    /// `nats://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.port)
    }

    /// Its client port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Kills it (SIGKILL: as if its machine died); its store stays for [`Self::restart`].
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts it again on the same port with the same store (killing it first if it runs).
    pub fn restart(&mut self) {
        self.stop();
        self.start();
    }

    fn start(&mut self) {
        let binary = binary();
        let log = self.folder.join("nats-server.log");
        let log_file = File::create(&log).unwrap_or_else(|e| panic!("cannot create {}: {e}", log.display()));
        // Uploads forwarded between servers are up to a few MiB: the cluster's NATS
        // carries messages up to `MAX_PAYLOAD` (docs/operations.md).
        let config = self.folder.join("nats.conf");
        std::fs::write(&config, format!("max_payload: {}\n", super::NATS_MAX_PAYLOAD))
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", config.display()));
        let mut command = Command::new(&binary);
        command
            .arg("-c")
            .arg(&config)
            .args(["-js", "-a", "127.0.0.1", "-p", &self.port.to_string(), "-sd"])
            .arg(self.folder.join("store"))
            .stdin(Stdio::null())
            .stdout(log_file.try_clone().expect("a log file can be shared"))
            .stderr(log_file);
        let child =
            spawn::spawn(command, libc::SIGKILL).unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        let child = self.child.insert(child);
        wait_for_port(self.port, "nats-server", &log, || matches!(child.try_wait(), Ok(None)));
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

/// Debian's nats-server, else one on `PATH`; panics naming the package when neither is.
fn binary() -> PathBuf {
    if Path::new(DEBIAN_NATS_SERVER).exists() {
        return PathBuf::from(DEBIAN_NATS_SERVER);
    }
    std::env::var_os("PATH")
        .and_then(|path| std::env::split_paths(&path).map(|dir| dir.join("nats-server")).find(|p| p.exists()))
        .unwrap_or_else(|| missing("nats-server", "nats-server", NATS_URL_VAR))
}
