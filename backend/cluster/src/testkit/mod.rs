//! Throw-away NATS and PostgreSQL servers for the workspace's tests (the `testkit`
//! feature; other crates take this crate as a dev-dependency with it).
//!
//! [`nats_url`] and [`postgres_url`] give the services `cargo xtask test` started
//! (`VLAB_TEST_NATS_URL`, `VLAB_TEST_POSTGRES_URL`); run alone (`cargo test`), each test
//! process starts one instance of each on first use, on a free port with its files in a
//! folder of its own, and the kernel kills them when the process exits. Tests that stop,
//! restart or cut off their NATS server start a private one ([`NatsServer::start_private`]).
//! Tests share the service, never a database or a bucket: [`fresh_database`] makes a new
//! database, and a test names its buckets after itself.
//!
//! The binaries are Debian's (`nats-server`, `postgresql`); when they are missing a test
//! panics saying which package to install, or to run `cargo xtask test`, which installs
//! them.

mod nats;
mod postgres;
mod spawn;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub use nats::NatsServer;
pub use postgres::Postgres;

/// The largest message the test NATS servers carry, as nats-server's `max_payload`
/// (the default, 1 MiB, is smaller than an upload forwarded between servers).
pub const NATS_MAX_PAYLOAD: &str = "8MB";

/// The environment variable naming a running NATS server (with JetStream) to use.
pub const NATS_URL_VAR: &str = "VLAB_TEST_NATS_URL";

/// The environment variable naming a running PostgreSQL, as a superuser URL.
pub const POSTGRES_URL_VAR: &str = "VLAB_TEST_POSTGRES_URL";

/// How long a starting service may take to accept connections before the test gives up
/// (a cold start on a loaded 2-core machine takes a few seconds).
const STARTUP_LIMIT: Duration = Duration::from_secs(60);

/// The NATS server the tests share: `VLAB_TEST_NATS_URL`, else one started for this
/// process.
pub fn nats_url() -> String {
    if let Some(url) = env_url(NATS_URL_VAR) {
        return url;
    }
    static SHARED: OnceLock<NatsServer> = OnceLock::new();
    SHARED.get_or_init(NatsServer::start_private).url()
}

/// A superuser URL of the PostgreSQL the tests share: `VLAB_TEST_POSTGRES_URL`, else
/// one started for this process.
pub fn postgres_url() -> String {
    if let Some(url) = env_url(POSTGRES_URL_VAR) {
        return url;
    }
    static SHARED: OnceLock<Postgres> = OnceLock::new();
    SHARED.get_or_init(Postgres::start).url()
}

/// A new, empty database on the shared PostgreSQL; returns its URL.
pub fn fresh_database() -> String {
    let server = postgres_url();
    let name = unique_name("vlab_test");
    postgres::create_database(&server, &name);
    postgres::with_database(&server, &name)
}

/// A name no other test of any process has: `prefix`, the process id, the time and a
/// counter; letters, digits and `_` only (fits a database or a bucket name).
pub fn unique_name(prefix: &str) -> String {
    static NAMES: AtomicU64 = AtomicU64::new(0);
    let micros = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_micros()).unwrap_or_default();
    format!("{prefix}_{}_{micros}_{}", std::process::id(), NAMES.fetch_add(1, Ordering::Relaxed))
}

fn env_url(var: &str) -> Option<String> {
    std::env::var(var).ok().filter(|url| !url.trim().is_empty())
}

/// A free TCP port on the loopback address (free now; the service binds it next).
fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("cannot bind a loopback port");
    listener.local_addr().expect("a bound socket has an address").port()
}

/// A new folder for one service's files: `vlab-testkit-<pid>-<kind>-<n>` in the temp
/// folder. Folders of test processes that are gone (a killed process cleans nothing up)
/// are removed first.
fn scratch_folder(kind: &str) -> PathBuf {
    static FOLDERS: AtomicU64 = AtomicU64::new(0);
    let temp = std::env::temp_dir();
    remove_stale_folders(&temp);
    let folder =
        temp.join(format!("vlab-testkit-{}-{kind}-{}", std::process::id(), FOLDERS.fetch_add(1, Ordering::Relaxed)));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).unwrap_or_else(|e| panic!("cannot create {}: {e}", folder.display()));
    folder
}

fn remove_stale_folders(temp: &Path) {
    let Ok(entries) = std::fs::read_dir(temp) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix("vlab-testkit-")).and_then(|n| n.split('-').next())
        else {
            continue;
        };
        if pid.parse::<u32>().is_ok() && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Waits until something accepts TCP connections on `port`, or panics with `log`'s
/// tail when `alive` says the service died or [`STARTUP_LIMIT`] passes.
fn wait_for_port(port: u16, what: &str, log: &Path, mut alive: impl FnMut() -> bool) {
    let started = Instant::now();
    loop {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        if !alive() {
            panic!("{what} exited while starting:\n{}", log_tail(log));
        }
        if started.elapsed() > STARTUP_LIMIT {
            panic!("{what} did not accept connections on port {port} within {STARTUP_LIMIT:?}:\n{}", log_tail(log));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn log_tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_else(|e| format!("(no log at {}: {e})", log.display()));
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(30)..].join("\n")
}

/// Panics saying how to get a missing service binary.
fn missing(binary: &str, package: &str, var: &str) -> ! {
    panic!(
        "{binary} is not installed. Install Debian's `{package}` package (apt-get install {package}), \
         or run the tests with `cargo xtask test`, which installs it and starts the services, \
         or point {var} at a running server"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unique_names_differ_and_fit_a_database_name() {
        let (a, b) = (unique_name("vlab_test"), unique_name("vlab_test"));
        assert_ne!(a, b);
        assert!(a.len() <= 63, "{a} is longer than PostgreSQL's 63-byte names");
        assert!(a.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'));
    }

    #[test]
    #[should_panic(
        expected = "Install Debian's `nats-server` package (apt-get install nats-server), or run the tests with `cargo xtask test`"
    )]
    fn a_missing_service_names_its_debian_package_and_cargo_xtask_test() {
        missing("nats-server", "nats-server", NATS_URL_VAR);
    }

    #[test]
    fn folders_of_dead_processes_are_removed_and_live_ones_kept() {
        let temp = std::env::temp_dir();
        // No process has a pid above the kernel's limit (at most 2^22).
        let dead = temp.join("vlab-testkit-4294967290-nats-0");
        std::fs::create_dir_all(&dead).unwrap();
        let ours = scratch_folder("unit");
        assert!(!dead.exists());
        assert!(ours.exists());
        std::fs::remove_dir_all(ours).unwrap();
    }
}
