//! Throw-away NATS (with JetStream) and PostgreSQL servers for `cargo xtask test` and
//! `cargo xtask cluster`: Debian's binaries, free loopback ports, their files in folders
//! of their own, stopped and removed when [`Services`] is dropped (on failure too).
//!
//! The tests' own kit (`vlab_cluster::testkit`) starts the same services when run
//! without these; xtask cannot depend on it (xtask builds with `anyhow` alone).

use std::fs::File;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// Debian's packages of the services.
pub const PACKAGES: &[&str] = &["nats-server", "postgresql"];

/// Where Debian's `nats-server` package puts the binary.
const NATS_SERVER: &str = "/usr/sbin/nats-server";

/// Where Debian's PostgreSQL packages put their binaries: `<N>/bin` per major version.
const POSTGRESQL: &str = "/usr/lib/postgresql";

/// How long a service may take to accept connections.
const STARTUP_LIMIT: Duration = Duration::from_secs(60);

/// A running NATS and PostgreSQL; dropped, both are stopped and their folders removed.
pub struct Services {
    nats: Service,
    postgres: Service,
    nats_port: u16,
    postgres_port: u16,
}

impl Services {
    /// Starts both.
    pub fn start() -> Result<Services> {
        remove_stale_folders();
        let nats_port = free_port()?;
        let nats = start_nats(nats_port)?;
        let postgres_port = free_port()?;
        let postgres = start_postgres(postgres_port)?;
        Ok(Services { nats, postgres, nats_port, postgres_port })
    }

    /// The NATS server's URL.
    pub fn nats_url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.nats_port)
    }

    /// PostgreSQL's superuser URL.
    pub fn postgres_url(&self) -> String {
        self.database_url("postgres")
    }

    /// The URL of `database` on PostgreSQL.
    pub fn database_url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.postgres_port)
    }

    /// Creates `database`.
    pub fn create_database(&self, database: &str) -> Result<()> {
        crate::run(psql(&self.postgres_url()).args([
            "-v",
            "ON_ERROR_STOP=1",
            "-c",
            &format!("CREATE DATABASE \"{database}\""),
        ]))
    }

    /// The variables that point the tests' kit at these services.
    pub fn test_env(&self) -> [(&'static str, String); 2] {
        [("VLAB_TEST_NATS_URL", self.nats_url()), ("VLAB_TEST_POSTGRES_URL", self.postgres_url())]
    }

    /// The folders of both (for the messages).
    pub fn folders(&self) -> [&Path; 2] {
        [&self.nats.folder, &self.postgres.folder]
    }
}

/// One running service and its folder.
struct Service {
    child: Child,
    folder: PathBuf,
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

fn start_nats(port: u16) -> Result<Service> {
    let binary =
        if Path::new(NATS_SERVER).exists() { PathBuf::from(NATS_SERVER) } else { PathBuf::from("nats-server") };
    let folder = new_folder("nats")?;
    let log = folder.join("nats-server.log");
    // Uploads forwarded between servers are up to a few MiB; nats-server's default
    // largest message is 1 MiB (docs/operations.md, "Running a cluster").
    let config = folder.join("nats.conf");
    std::fs::write(&config, "max_payload: 8MB\n").with_context(|| format!("cannot write {}", config.display()))?;
    let mut command = Command::new(&binary);
    command.arg("-c").arg(&config);
    command.args(["-js", "-a", "127.0.0.1", "-p", &port.to_string(), "-sd"]).arg(folder.join("store"));
    let child = spawn_logged(&mut command, &log)
        .with_context(|| format!("could not start {} (Debian's nats-server package)", binary.display()))?;
    let mut service = Service { child, folder };
    wait_for_port(port, "nats-server", &log, &mut service.child)?;
    Ok(service)
}

/// `initdb` (trust authentication) and `postgres` on `port`, as the `postgres` user when
/// root (PostgreSQL refuses to run as root).
fn start_postgres(port: u16) -> Result<Service> {
    let bin = postgres_bin()?;
    let folder = new_folder("postgres")?;
    let user = postgres_user()?;
    let data = folder.join("data");
    let log = folder.join("postgres.log");
    File::create(&log).with_context(|| format!("could not create {}", log.display()))?;
    if let Some((uid, gid)) = user {
        for path in [&folder, &log] {
            std::os::unix::fs::chown(path, Some(uid), Some(gid))
                .with_context(|| format!("could not give {} to the postgres user", path.display()))?;
        }
    }
    let mut initdb = Command::new(bin.join("initdb"));
    initdb.arg("-D").arg(&data).args(["-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-sync"]);
    as_user(&mut initdb, user);
    crate::run(initdb.stdout(Stdio::null()))?;

    let mut postgres = Command::new(bin.join("postgres"));
    postgres
        .arg("-D")
        .arg(&data)
        .args(["-p", &port.to_string(), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-k"])
        .arg(&folder);
    as_user(&mut postgres, user);
    let child = spawn_logged(&mut postgres, &log).context("could not start postgres")?;
    let mut service = Service { child, folder };
    wait_for_port(port, "postgres", &log, &mut service.child)?;
    let url = format!("postgres://postgres@127.0.0.1:{port}/postgres");
    let started = Instant::now();
    while !psql(&url).args(["-c", "SELECT 1"]).output().is_ok_and(|o| o.status.success()) {
        if started.elapsed() > STARTUP_LIMIT {
            bail!("postgres does not answer queries; its log is {}", log.display());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(service)
}

fn psql(url: &str) -> Command {
    let mut command = Command::new("psql");
    command.args(["-X", "-q", "-d", url]).stdin(Stdio::null());
    command
}

/// The newest `/usr/lib/postgresql/<N>/bin` with `initdb` and `postgres`.
fn postgres_bin() -> Result<PathBuf> {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir(POSTGRESQL)
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
    match found.pop() {
        Some((_, bin)) => Ok(bin),
        None => bail!("no PostgreSQL in {POSTGRESQL}/<N>/bin: install Debian's postgresql package"),
    }
}

/// The `postgres` user's uid and gid when we are root, else `None`.
fn postgres_user() -> Result<Option<(u32, u32)>> {
    use std::os::unix::fs::MetadataExt;
    if std::fs::metadata("/proc/self").map(|m| m.uid()).context("could not read /proc/self")? != 0 {
        return Ok(None);
    }
    let passwd = std::fs::read_to_string("/etc/passwd").context("could not read /etc/passwd")?;
    for line in passwd.lines() {
        let fields: Vec<&str> = line.split(':').collect();
        if fields.first() == Some(&"postgres") && fields.len() > 3 {
            return Ok(Some((fields[2].parse()?, fields[3].parse()?)));
        }
    }
    bail!("running as root, PostgreSQL needs the postgres user, which Debian's postgresql package creates")
}

fn as_user(command: &mut Command, user: Option<(u32, u32)>) {
    use std::os::unix::process::CommandExt;
    if let Some((uid, gid)) = user {
        command.uid(uid).gid(gid).env("HOME", "/tmp");
    }
}

fn spawn_logged(command: &mut Command, log: &Path) -> Result<Child> {
    let file = File::options().create(true).append(true).open(log)?;
    eprintln!("xtask: {command:?} (log: {})", log.display());
    Ok(command.stdin(Stdio::null()).stdout(file.try_clone()?).stderr(file).spawn()?)
}

fn wait_for_port(port: u16, what: &str, log: &Path, child: &mut Child) -> Result<()> {
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Some(status) = child.try_wait()? {
            bail!(
                "{what} exited ({status}) while starting; its log: {}",
                std::fs::read_to_string(log).unwrap_or_default()
            );
        }
        if started.elapsed() > STARTUP_LIMIT {
            bail!(
                "{what} did not accept connections on port {port} within {STARTUP_LIMIT:?}; its log is {}",
                log.display()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

fn free_port() -> Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// A new folder `vlab-xtask-<pid>-<kind>` in the temp folder.
fn new_folder(kind: &str) -> Result<PathBuf> {
    let folder = std::env::temp_dir().join(format!("vlab-xtask-{}-{kind}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).with_context(|| format!("could not create {}", folder.display()))?;
    Ok(folder)
}

/// Removes the folders of xtask runs that are gone without cleaning up (killed).
fn remove_stale_folders() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let pid = name.to_str().and_then(|n| n.strip_prefix("vlab-xtask-")).and_then(|n| n.split('-').next());
        if let Some(pid) = pid.filter(|pid| pid.parse::<u32>().is_ok())
            && !Path::new("/proc").join(pid).exists()
        {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_answer_while_held_and_are_stopped_and_removed_when_dropped() {
        let services = Services::start().expect("Debian's nats-server and postgresql start");
        let folders: Vec<PathBuf> = services.folders().iter().map(|folder| folder.to_path_buf()).collect();
        assert!(folders.iter().all(|folder| folder.is_dir()), "{folders:?}");
        let [(nats_var, nats), (postgres_var, postgres)] = services.test_env();
        assert_eq!((nats_var, postgres_var), ("VLAB_TEST_NATS_URL", "VLAB_TEST_POSTGRES_URL"));
        assert_eq!(postgres, services.postgres_url());
        let nats_port: u16 = nats.rsplit(':').next().and_then(|port| port.parse().ok()).expect("a port in the URL");
        TcpStream::connect(("127.0.0.1", nats_port)).expect("NATS accepts connections");

        services.create_database("xtask_check").expect("a database is created");
        let asked = psql(&services.database_url("xtask_check")).args(["-c", "SELECT 1"]).output().unwrap();
        assert!(asked.status.success(), "{}", String::from_utf8_lossy(&asked.stderr));

        drop(services);
        assert!(folders.iter().all(|folder| !folder.exists()), "left behind: {folders:?}");
        assert!(TcpStream::connect(("127.0.0.1", nats_port)).is_err(), "NATS still answers on {nats_port}");
    }
}
