//! The server under load: a release `vlab serve` this tool starts (a free port, a fresh
//! database in a temporary folder, connection limits raised for viewers that all talk
//! from 127.0.0.1) or one already running; its CPU time from `/proc`, and the few HTTP
//! requests the tool makes of it (a lab's clock, creating and closing labs).

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use vlab_protocol::{CreatedLab, LabSummary};

use super::stats::stat_ticks;

/// How long a started server has to say where it listens.
const START_PATIENCE: Duration = Duration::from_secs(60);
/// How long a stopped server has to shut down before it is killed.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);
/// Connections the started server allows (overall and from one address) beyond the
/// viewers: the tool's HTTP requests and some spare.
const SPARE_CONNECTIONS: usize = 256;
/// The started server's connection caps are never below the server's own default.
const LEAST_CONNECTIONS: usize = 4096;

/// How a started server keeps its data.
pub enum Role {
    /// Alone, in a new SQLite file in its folder.
    Alone,
    /// A member of a cluster: `vlab serve --cluster NATS --db DATABASE --server-id ID`,
    /// with the key every member shares.
    Member {
        /// The NATS server's URL.
        nats: String,
        /// The shared PostgreSQL database's URL.
        database: String,
        /// Its server id.
        id: String,
        /// The cluster's server key.
        key: String,
    },
}

/// A `vlab serve` started by the tool; interrupted (then killed) and its folder removed
/// when dropped.
pub struct OwnServer {
    child: Child,
    dir: PathBuf,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// The server key (the demo lab's instructor token), made up for this run.
    pub key: String,
}

impl OwnServer {
    /// Starts `binary serve` on 127.0.0.1 (a port the kernel picks) in a new temporary
    /// folder, as `role` says, allowing `viewers` websockets from one address.
    pub fn start(binary: &Path, viewers: usize, role: &Role) -> Result<OwnServer> {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos();
        let dir = std::env::temp_dir().join(format!("vlab-load-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let connections = (viewers + SPARE_CONNECTIONS).max(LEAST_CONNECTIONS).to_string();
        let log = dir.join("server.log");
        let errors = File::create(&log).with_context(|| format!("cannot create {}", log.display()))?;
        let mut command = Command::new(binary);
        command.args(["serve", "--addr", "127.0.0.1:0"]);
        let key = match role {
            Role::Alone => {
                command.arg("--db").arg(dir.join("load.db"));
                // A throwaway key for a throwaway database on a loopback port.
                format!("load-{nanos:x}")
            }
            Role::Member { nats, database, id, key } => {
                command.args(["--cluster", nats, "--db", database, "--server-id", id]);
                command.arg("--key-file").arg(dir.join("vlab.key"));
                key.clone()
            }
        };
        let mut child = command
            // No browser app is served: the folder has no index.html.
            .arg("--web-dir")
            .arg(&dir)
            .args(["--instructor-token", &key])
            .args(["--max-connections", &connections, "--max-connections-per-address", &connections])
            .env("RUST_LOG", "warn")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(errors)
            .spawn()
            .with_context(|| format!("cannot start {}", binary.display()))?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let (found, address) = mpsc::channel();
        // Reads the address line, then keeps reading so the server never blocks on a
        // full pipe.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("VLab is serving on ") {
                    let _ = found.send(url.trim().to_owned());
                }
            }
        });
        let mut server = OwnServer { child, dir, base: String::new(), key };
        match address.recv_timeout(START_PATIENCE) {
            Ok(base) => server.base = base,
            Err(_) => {
                let log = std::fs::read_to_string(&log).unwrap_or_default();
                bail!("the server did not start within {START_PATIENCE:?}; its log:\n{log}");
            }
        }
        Ok(server)
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kills it at once (SIGKILL: no goodbye to its cluster) and waits for it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Interrupts it as Ctrl-C would, kills it if it has not ended within
    /// [`SHUTDOWN_GRACE`], and removes its folder.
    fn stop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            interrupt(self.pid());
            let deadline = Instant::now() + SHUTDOWN_GRACE;
            while Instant::now() < deadline && self.child.try_wait().ok().flatten().is_none() {
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Drop for OwnServer {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(unix)]
fn interrupt(pid: u32) {
    use rustix::process::{Pid, Signal, kill_process};
    if let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) {
        let _ = kill_process(pid, Signal::INT);
    }
}

#[cfg(not(unix))]
fn interrupt(_pid: u32) {
    // Nothing portable interrupts a child: `stop` kills it after the grace period.
}

/// CPU time (user + system, all threads) of process `pid` so far, in clock ticks;
/// `None` where `/proc` cannot tell.
pub fn cpu_ticks(pid: u32) -> Option<u64> {
    stat_ticks(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// Clock ticks per second, the unit of [`cpu_ticks`].
pub fn ticks_per_second() -> u64 {
    #[cfg(unix)]
    return rustix::param::clock_ticks_per_second();
    #[cfg(not(unix))]
    return 100;
}

/// The HTTP API of the server under load.
pub struct Api {
    base: String,
    http: reqwest::Client,
}

impl Api {
    /// A client for the server at `base` (`http://HOST:PORT`).
    pub fn new(base: &str) -> Result<Api> {
        let http = reqwest::Client::builder().timeout(Duration::from_secs(60)).build()?;
        Ok(Api { base: base.to_owned(), http })
    }

    /// `ws://HOST:PORT/ws/labs/{lab}?protocol=N`, a viewer's websocket.
    pub fn viewer_url(&self, lab: &str) -> String {
        let host = self.base.strip_prefix("http://").unwrap_or(&self.base);
        format!("ws://{host}/ws/labs/{lab}?protocol={}", vlab_protocol::PROTOCOL_VERSION)
    }

    /// `GET /api/labs/{lab}`: its clock among the rest.
    pub async fn lab(&self, lab: &str) -> Result<LabSummary> {
        let response = self.http.get(format!("{}/api/labs/{lab}", self.base)).send().await?;
        if !response.status().is_success() {
            bail!("GET /api/labs/{lab}: HTTP {}: {}", response.status(), response.text().await.unwrap_or_default());
        }
        Ok(response.json().await?)
    }

    /// `GET /api/labs`: every lab the server runs.
    pub async fn labs(&self) -> Result<Vec<LabSummary>> {
        let response = self.http.get(format!("{}/api/labs", self.base)).send().await?;
        if !response.status().is_success() {
            bail!("GET /api/labs: HTTP {}", response.status());
        }
        Ok(response.json().await?)
    }

    /// `POST /api/labs` with the server key: a new lab of the demo yard, running.
    pub async fn create_lab(&self, key: &str, name: &str) -> Result<CreatedLab> {
        let response = self
            .http
            .post(format!("{}/api/labs", self.base))
            .bearer_auth(key)
            .json(&serde_json::json!({ "name": name }))
            .send()
            .await?;
        if !response.status().is_success() {
            bail!("POST /api/labs: HTTP {}: {}", response.status(), response.text().await.unwrap_or_default());
        }
        Ok(response.json().await?)
    }

    /// `DELETE /api/labs/{lab}` with its instructor token: closes it.
    pub async fn close_lab(&self, lab: &CreatedLab) -> Result<()> {
        let url = format!("{}/api/labs/{}", self.base, lab.id);
        let response = self.http.delete(url).bearer_auth(&lab.instructor_token).send().await?;
        if !response.status().is_success() {
            bail!("DELETE /api/labs/{}: HTTP {}", lab.id, response.status());
        }
        Ok(())
    }
}
