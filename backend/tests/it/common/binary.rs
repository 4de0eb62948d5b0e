//! The real `vlab` binary on a free port and its own database, stopped with SIGKILL
//! when dropped (as a crash or a pulled plug would).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

pub struct VlabProcess {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
}

impl VlabProcess {
    /// `vlab serve --addr 127.0.0.1:0 --db DB ARGS…`, once it serves.
    pub fn start(db: &Path, args: &[&str]) -> VlabProcess {
        Self::start_with_env(db, args, &[])
    }

    /// `vlab serve --cluster` as server `id` of cluster `cluster` (on the test kit's
    /// NATS), on the PostgreSQL database at `db`, with server key `key`, its key file in
    /// `dir`.
    pub fn start_in_cluster(db: &str, cluster: &str, id: &str, key: &str, dir: &Path) -> VlabProcess {
        let (nats, key_file) = (vlab_cluster::testkit::nats_url(), dir.join(format!("{id}.key")));
        let key_file = key_file.display().to_string();
        let args = [
            "--cluster",
            &nats,
            "--cluster-name",
            cluster,
            "--server-id",
            id,
            "--instructor-token",
            key,
            "--key-file",
            &key_file,
        ];
        Self::start(Path::new(db), &args)
    }

    /// [`VlabProcess::start`] with more environment variables for the server.
    pub fn start_with_env(db: &Path, args: &[&str], env: &[(&str, &str)]) -> VlabProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_vlab"))
            .args(["serve", "--addr", "127.0.0.1:0", "--db"])
            .arg(db)
            .args(args)
            .env("RUST_LOG", "warn")
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the vlab binary starts");
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let base = loop {
            let line = lines.next().expect("the server prints its address").unwrap();
            if let Some(url) = line.strip_prefix("VLab is serving on ") {
                break url.trim().to_owned();
            }
        };
        // Keep reading its output so it never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        VlabProcess { child, base }
    }

    /// The server's process id (its programs are its children).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The address, for websockets.
    pub fn ws_url(&self, path: &str) -> String {
        format!("{}{path}", self.base.replacen("http://", "ws://", 1))
    }

    /// The server's resident memory, in bytes.
    pub fn resident_bytes(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("VmRSS in /proc/PID/status");
        line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 1024
    }
}

impl Drop for VlabProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
