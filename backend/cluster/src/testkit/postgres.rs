//! A throw-away PostgreSQL: `initdb` in a folder of its own (trust authentication, no
//! fsync), `postgres` on a free loopback port with its socket in that folder. PostgreSQL
//! refuses to run as root, so as root both run as the `postgres` user that Debian's
//! package creates.

use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use super::{POSTGRES_URL_VAR, free_port, log_tail, missing, scratch_folder, spawn, wait_for_port};

/// Where Debian's PostgreSQL packages put their binaries: `<N>/bin` per major version.
const DEBIAN_POSTGRESQL: &str = "/usr/lib/postgresql";

/// A PostgreSQL of this test process. Dropped, it is stopped and its folder removed.
pub struct Postgres {
    child: Child,
    port: u16,
    folder: PathBuf,
}

impl Postgres {
    /// Initialises a cluster and starts PostgreSQL on it; panics if PostgreSQL is missing
    /// or does not start.
    pub fn start() -> Postgres {
        let bin = bin_folder();
        let folder = scratch_folder("postgres");
        let data = folder.join("data");
        let user = run_as();
        if let Some((uid, gid)) = user {
            std::os::unix::fs::chown(&folder, Some(uid), Some(gid))
                .unwrap_or_else(|e| panic!("cannot give {} to the postgres user: {e}", folder.display()));
        }
        let log = folder.join("postgres.log");
        let mut initdb = Command::new(bin.join("initdb"));
        initdb.arg("-D").arg(&data).args([
            "-U",
            "postgres",
            "--auth=trust",
            "--encoding=UTF8",
            "--no-sync",
            "--no-instructions",
        ]);
        as_user(&mut initdb, user);
        let output = initdb.output().unwrap_or_else(|e| panic!("cannot run initdb: {e}"));
        if !output.status.success() {
            panic!(
                "initdb failed ({}):\n{}{}",
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }

        let port = free_port();
        let log_file = File::create(&log).unwrap_or_else(|e| panic!("cannot create {}: {e}", log.display()));
        if let Some((uid, gid)) = user {
            let _ = std::os::unix::fs::chown(&log, Some(uid), Some(gid));
        }
        let mut postgres = Command::new(bin.join("postgres"));
        postgres
            .arg("-D")
            .arg(&data)
            .args(["-p", &port.to_string(), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-k"])
            .arg(&folder)
            .stdin(Stdio::null())
            .stdout(log_file.try_clone().expect("a log file can be shared"))
            .stderr(log_file);
        as_user(&mut postgres, user);
        // SIGQUIT: PostgreSQL's immediate shutdown, which also ends its backends.
        let mut child = spawn::spawn(postgres, libc::SIGQUIT).unwrap_or_else(|e| panic!("cannot start postgres: {e}"));
        wait_for_port(port, "postgres", &log, || matches!(child.try_wait(), Ok(None)));
        let server = Postgres { child, port, folder };
        wait_until_ready(&server.url(), &log);
        server
    }

    /// Its superuser URL: `postgres://postgres@127.0.0.1:<port>/postgres`.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

/// `CREATE DATABASE name` on the server at the superuser URL `server`, with `psql`.
pub(super) fn create_database(server: &str, name: &str) {
    let output = psql(server)
        .args(["-v", "ON_ERROR_STOP=1", "-c", &format!("CREATE DATABASE \"{name}\"")])
        .output()
        .unwrap_or_else(|e| panic!("cannot run psql: {e}"));
    if !output.status.success() {
        panic!("cannot create the database {name} on {server}: {}", String::from_utf8_lossy(&output.stderr));
    }
}

/// `url` with its database (the path) replaced by `database`; its query is kept.
pub(super) fn with_database(url: &str, database: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let authority_start = base.find("://").map_or(0, |i| i + 3);
    let path_start = base[authority_start..].find('/').map_or(base.len(), |i| authority_start + i);
    let mut out = format!("{}/{database}", &base[..path_start]);
    if let Some(query) = query {
        out.push('?');
        out.push_str(query);
    }
    out
}

/// Waits until PostgreSQL answers a query (it accepts connections a little before).
fn wait_until_ready(url: &str, log: &Path) {
    let started = std::time::Instant::now();
    loop {
        let ready = psql(url).args(["-c", "SELECT 1"]).output().is_ok_and(|o| o.status.success());
        if ready {
            return;
        }
        if started.elapsed() > super::STARTUP_LIMIT {
            panic!("postgres does not answer queries:\n{}", log_tail(log));
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

fn psql(url: &str) -> Command {
    let psql =
        if Path::new("/usr/bin/psql").exists() { PathBuf::from("/usr/bin/psql") } else { bin_folder().join("psql") };
    let mut command = Command::new(psql);
    command.args(["-X", "-q", "-d", url]).stdin(Stdio::null());
    command
}

/// The newest `/usr/lib/postgresql/<N>/bin` that has `initdb` and `postgres`.
fn bin_folder() -> PathBuf {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir(DEBIAN_POSTGRESQL)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = entry.path().join("bin");
            (bin.join("initdb").exists() && bin.join("postgres").exists()).then_some((version, bin))
        })
        .collect();
    found.sort();
    found
        .pop()
        .map(|(_, bin)| bin)
        .unwrap_or_else(|| missing("PostgreSQL (initdb, postgres)", "postgresql", POSTGRES_URL_VAR))
}

/// The `postgres` user's uid and gid when this process is root (PostgreSQL will not run
/// as root), else `None` (run as ourselves).
fn run_as() -> Option<(u32, u32)> {
    let running_as = std::fs::metadata("/proc/self").map(|m| m.uid()).unwrap_or(u32::MAX);
    if running_as != 0 {
        return None;
    }
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    let ids = passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        (fields.first() == Some(&"postgres") && fields.len() > 3)
            .then(|| Some((fields[2].parse().ok()?, fields[3].parse().ok()?)))
            .flatten()
    });
    match ids {
        Some(ids) => Some(ids),
        None => panic!(
            "running as root, PostgreSQL needs the `postgres` user, which Debian's `postgresql` package creates: \
             apt-get install postgresql, or run `cargo xtask test`"
        ),
    }
}

fn as_user(command: &mut Command, user: Option<(u32, u32)>) {
    use std::os::unix::process::CommandExt;
    if let Some((uid, gid)) = user {
        command.uid(uid).gid(gid).env("HOME", "/tmp");
    }
}

#[cfg(test)]
mod tests {
    use super::with_database;

    #[test]
    fn the_database_of_a_url_is_replaced_and_its_query_kept() {
        assert_eq!(
            with_database("postgres://postgres@127.0.0.1:5432/postgres", "t1"),
            "postgres://postgres@127.0.0.1:5432/t1"
        );
        assert_eq!(
            with_database("postgres://u:p@h:1/postgres?sslmode=disable", "t1"),
            "postgres://u:p@h:1/t1?sslmode=disable"
        );
        assert_eq!(with_database("postgres://h:1", "t1"), "postgres://h:1/t1");
    }
}
