//! PostgreSQL for the integration tests: a throw-away database on the test kit's server
//! (`VLAB_TEST_POSTGRES_URL`, which `cargo xtask test` sets, or one started for the
//! test process),
//! and a private PostgreSQL of a test's own, on a free port, that the test may stop
//! and start without disturbing any other.

use std::path::{Path, PathBuf};
use std::process::Command;

use vlab_server::store::postgres::client::Pg;

/// A database of its own on the test server, dropped with this value.
pub struct TestDatabase {
    admin: Pg,
    name: String,
    /// Its URL.
    pub url: String,
}

impl TestDatabase {
    /// A new empty database on the test kit's server.
    pub fn create() -> TestDatabase {
        // The one `cargo xtask test` started, or one started for this test process.
        let server = vlab_cluster::testkit::postgres_url();
        TestDatabase::on(&server)
    }

    /// A new empty database on the server at `server` (a superuser's URL).
    pub fn on(server: &str) -> TestDatabase {
        let admin = Pg::connect(server).unwrap_or_else(|e| panic!("{server}: {e}"));
        let name = format!("vlab_t_{:016x}", rand::random::<u64>());
        admin.batch(&format!("CREATE DATABASE {name}")).expect("the test database is created");
        let base = server.rsplit_once('/').map_or(server, |(base, _)| base);
        TestDatabase { admin, url: format!("{base}/{name}"), name }
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let _ = self.admin.batch(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name));
    }
}

/// A PostgreSQL server of a test's own (`initdb` in a temporary folder, on a free
/// port), stopped and removed when dropped.
pub struct PrivatePostgres {
    dir: PathBuf,
    bin: PathBuf,
    port: u16,
}

impl PrivatePostgres {
    /// Makes and starts one. Its programs are found in `VLAB_TEST_POSTGRES_BIN`, else in
    /// the newest `/usr/lib/postgresql/*/bin`.
    pub fn start() -> PrivatePostgres {
        let bin = std::env::var_os("VLAB_TEST_POSTGRES_BIN").map(PathBuf::from).unwrap_or_else(newest_bin);
        let dir = std::env::temp_dir().join(format!("vlab-pg-{:016x}", rand::random::<u64>()));
        std::fs::create_dir_all(&dir).unwrap();
        if running_as_root() {
            // PostgreSQL refuses to run as root: its folder belongs to its own user.
            assert!(Command::new("chown").arg("postgres").arg(&dir).status().unwrap().success());
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let server = PrivatePostgres { dir, bin, port };
        let data = server.data();
        server.run("initdb", &["-D", &data, "-A", "trust", "-U", "postgres"]);
        server.start_again();
        server
    }

    fn data(&self) -> String {
        self.dir.join("data").display().to_string()
    }

    /// Runs one of its programs as the user it runs as; panics if it fails.
    fn run(&self, program: &str, args: &[&str]) {
        let output = self.command(program, args).output().unwrap_or_else(|e| panic!("{program}: {e}"));
        assert!(output.status.success(), "{program} failed: {}", String::from_utf8_lossy(&output.stderr));
    }

    /// One of its programs, to run as the user it runs as.
    fn command(&self, program: &str, args: &[&str]) -> Command {
        let path = self.bin.join(program);
        let mut command = if running_as_root() {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(&path);
            command
        } else {
            Command::new(&path)
        };
        command.args(args);
        command
    }

    /// A superuser's URL to its `postgres` database.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// Stops it (as an outage: every connection cut, none taken).
    pub fn stop(&self) {
        self.run("pg_ctl", &["-D", &self.data(), "-m", "fast", "-w", "stop"]);
    }

    /// Starts it (again).
    pub fn start_again(&self) {
        let options = format!("-p {} -k {} -c listen_addresses=127.0.0.1", self.port, self.dir.display());
        let log = self.dir.join("log").display().to_string();
        self.run("pg_ctl", &["-D", &self.data(), "-o", &options, "-l", &log, "-w", "start"]);
    }
}

impl Drop for PrivatePostgres {
    fn drop(&mut self) {
        // Stopped already if the test failed while it was down: nothing to check.
        let _ = self.command("pg_ctl", &["-D", &self.data(), "-m", "immediate", "-w", "stop"]).output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn running_as_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}

fn newest_bin() -> PathBuf {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|dir| {
            dir.filter_map(|e| e.ok()).map(|e| e.path().join("bin")).filter(|p| p.join("initdb").exists()).collect()
        })
        .unwrap_or_default();
    versions.sort_by_key(|p| p.parent().and_then(Path::file_name).and_then(|v| v.to_str()?.parse::<u32>().ok()));
    versions.pop().expect("PostgreSQL's programs: set VLAB_TEST_POSTGRES_BIN to the folder of initdb and pg_ctl")
}
