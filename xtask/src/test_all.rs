//! `cargo xtask test`: every test of the project, on a fresh machine, in one command.
//!
//! Phases, in order:
//! 0. Debian's clang, lld and wasm32 sysroot ([`COMPILER_PACKAGES`]), installed with apt
//!    when missing: the server compiles C and C++ programs with them, and its tests do;
//! 1. Debian's `nats-server` and `postgresql` ([`crate::services::PACKAGES`]), installed
//!    with apt when missing: cluster mode's services, which the tests run against;
//! 2. `cargo test --workspace`: every crate's tests (protocol, backend, the cluster
//!    directory, the robot SDK and its example, the browser crate's host-side unit
//!    tests, xtask), in one build, so that every dependency is built once with one set
//!    of features; after installing the wasm32 target the backend's tests build the
//!    example robot's program for. One throw-away nats-server and PostgreSQL
//!    (`crate::services`) run for the whole phase, named to the tests by
//!    `VLAB_TEST_NATS_URL` and `VLAB_TEST_POSTGRES_URL`, and are stopped and their
//!    folders removed after it, pass or fail;
//! 3. the browser bundle (`crate::web::build_bundle`) into `dist/`;
//! 4. Debian's Chromium (`/usr/bin/chromium`), installed with apt when missing;
//! 5. `npm ci` in `e2e/` (playwright-core, pinned; it never downloads a browser);
//! 6. the server binary, built with the test phase's selection (dev profile), so cargo
//!    reuses that build;
//! 7. the Python client's tests (`crate::python_client`): pip-installed into a fresh
//!    virtualenv, pytest against the server binary;
//! 8. the end-to-end tests: `node --test` on `e2e/tests/*.test.mjs`, each against the real
//!    server and real headless Chromium, screenshots in `e2e/artifacts/`, two test files
//!    at a time ([`E2E_FILES_AT_ONCE`]), after those that time a program's CPU or kill a
//!    cluster's server ([`E2E_ALONE`]), which run alone. A throw-away nats-server and
//!    PostgreSQL of their own run for the whole phase (the cluster tests' servers meet
//!    on them), named by the same two variables, and are stopped and their folders
//!    removed after it, pass or fail.
//!
//! Last, the copies of binaries and caches this run replaced are deleted from the target
//! folder (`crate::prune`), so a folder reused run after run stays the size of one build.
//!
//! A failing test phase does not hide the others: unit-test failures are reported and the
//! browser tests still run. A failing prerequisite (3–6) skips the browser tests (the
//! server binary, the Python client's). Any
//! failure makes the command fail, after a summary of every phase.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result, bail};

use crate::services::Services;

/// How many e2e test files run at once. Each has its own server, database, port and
/// browser, so they run side by side: two at a time took 548 s where one at a time
/// takes 737 s. The tests two at a time once caught (a robot driven into by the demo's
/// roaming rovers, a restarted program stepped too few steps to join) now leave nothing
/// to the machine's speed.
const E2E_FILES_AT_ONCE: usize = 2;

/// The e2e test files that run alone, before the others: those that time a program's CPU
/// share, which a second browser on a 2-core machine takes from it (two at a time, its
/// lockstep part once stopped the program for not answering within 500 ms); and the
/// cluster's failover, whose servers must renew their leases every 2 s while one of
/// them is killed and another restores its lab.
const E2E_ALONE: &[&str] = &["late_program_and_sync_setting.test.mjs", "cluster_failover.test.mjs"];

/// Debian's Chromium, the only browser the e2e tests use.
const CHROMIUM: &str = "/usr/bin/chromium";

/// Debian's packages of the C and C++ compiler the server runs (the list of
/// `vlab_programs::compile::DEBIAN_PACKAGES`, which xtask cannot depend on).
const COMPILER_PACKAGES: &[&str] =
    &["clang", "lld", "wasi-libc", "libclang-rt-dev-wasm32", "libc++-dev-wasm32", "libc++abi-14-dev-wasm32"];

/// How many times to try `apt-get install`: Debian container images delete downloaded
/// packages after each dpkg run, which can break an install that upgrades essential
/// packages on the way; a second try finds them upgraded and goes through.
const APT_INSTALL_TRIES: u32 = 3;

/// Runs every phase and prints a summary; fails if any phase failed.
pub fn run() -> Result<()> {
    let root = crate::workspace_root();
    let started = SystemTime::now();
    let mut report = Report::default();

    report.phase("C and C++ compiler (clang, lld, wasi-libc, libc++ for wasm32)", || {
        ensure_debian_packages(COMPILER_PACKAGES)
    });

    report.phase("NATS and PostgreSQL (Debian's nats-server, postgresql)", || {
        ensure_debian_packages(crate::services::PACKAGES)
    });

    report.phase("cargo test --workspace (protocol, backend, cluster, robot SDK, frontend on the host, xtask)", || {
        crate::web::ensure_wasm_target()?;
        cargo_test_with_services()
    });

    let e2e_dir = root.join("e2e");
    let web_dir =
        report.phase("browser bundle (dist/)", || crate::web::build_bundle(crate::web::Bundler::WithTheTests));
    let chromium = report.phase("Chromium", ensure_chromium);
    let npm = report.phase("npm ci (e2e/)", || npm_ci(&e2e_dir));
    let server = report.phase("server binary (vlab)", build_server);

    match &server {
        Some(server) => {
            report.phase("Python client (clients/python: pytest in a fresh virtualenv)", || {
                crate::python_client::test(&root, server)
            });
        }
        None => report.skip("Python client (clients/python: pytest in a fresh virtualenv)", "no server binary"),
    }

    match (web_dir, chromium, npm, server) {
        (Some(web_dir), Some(chromium), Some(()), Some(server)) => {
            report.phase("browser end-to-end tests (e2e/tests)", || {
                run_e2e(&root, &e2e_dir, &server, &web_dir, &chromium)
            });
        }
        _ => report.skip("browser end-to-end tests (e2e/tests)", "a prerequisite above failed"),
    }

    report.print();
    prune_target(started);
    if report.failed() > 0 {
        bail!("{} of {} test phases failed (see the summary above)", report.failed(), report.phases.len());
    }
    Ok(())
}

/// `cargo test --workspace` with a throw-away nats-server and PostgreSQL, stopped and
/// removed when it ends. Without them (they did not start) the tests still run: those
/// that need a service start their own or fail saying what is missing.
fn cargo_test_with_services() -> Result<()> {
    let mut cargo_test = crate::cargo_command(&["test", "--workspace"]);
    let services = start_services("cargo test").ok();
    if let Some(services) = &services {
        cargo_test.envs(services.test_env());
    }
    let tested = crate::run(&mut cargo_test);
    drop(services);
    tested
}

/// A throw-away nats-server and PostgreSQL for the tests of phase `phase`; when they do
/// not start, says so at once.
fn start_services(phase: &str) -> Result<Services> {
    Services::start()
        .inspect_err(|error| eprintln!("xtask: could not start NATS and PostgreSQL for {phase}: {error:#}"))
}

/// Deletes what this run replaced in the target folder and says how big it is.
fn prune_target(started: SystemTime) {
    let target = crate::target_dir();
    match crate::prune::replaced_since(&target, started) {
        Ok(freed) => println!(
            "target folder {}: {:.1} GB ({:.1} GB of replaced builds deleted)",
            target.display(),
            crate::prune::size_of(&target) as f64 / 1e9,
            freed as f64 / 1e9
        ),
        Err(error) => eprintln!("xtask: could not prune {}: {error:#}", target.display()),
    }
}

/// Installs Debian's `chromium` when `/usr/bin/chromium` is missing.
fn ensure_chromium() -> Result<PathBuf> {
    let chromium = PathBuf::from(CHROMIUM);
    if chromium.exists() {
        return Ok(chromium);
    }
    eprintln!("xtask: {CHROMIUM} is missing: installing Debian's chromium with apt-get");
    apt_install(&["chromium"])?;
    if !chromium.exists() {
        bail!("{CHROMIUM} is still missing after installing Debian's chromium");
    }
    Ok(chromium)
}

/// Installs those of `packages` dpkg does not list as installed.
pub(crate) fn ensure_debian_packages(packages: &[&str]) -> Result<()> {
    let missing: Vec<&str> = packages.iter().copied().filter(|p| !is_installed(p)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    eprintln!("xtask: installing Debian's {} with apt-get", missing.join(", "));
    apt_install(&missing)?;
    let still: Vec<&str> = missing.into_iter().filter(|p| !is_installed(p)).collect();
    if !still.is_empty() {
        bail!("still not installed after apt-get install: {}", still.join(", "));
    }
    Ok(())
}

/// Whether dpkg has `package` installed.
fn is_installed(package: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", package])
        .output()
        .is_ok_and(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).ends_with("installed"))
}

/// `apt-get update`, then `apt-get install` of `packages`, tried again on failure.
fn apt_install(packages: &[&str]) -> Result<()> {
    crate::run(apt_get(&["update"], packages)?.args(["-o", "DPkg::Lock::Timeout=600"]))?;
    let mut last_error = None;
    for attempt in 1..=APT_INSTALL_TRIES {
        let mut install =
            apt_get(&["install", "-y", "--no-install-recommends", "-o", "DPkg::Lock::Timeout=600"], packages)?;
        install.args(packages);
        match crate::run(&mut install) {
            Ok(()) => return Ok(()),
            Err(error) => {
                eprintln!(
                    "xtask: apt-get install {} failed (try {attempt} of {APT_INSTALL_TRIES}): {error:#}",
                    packages.join(" ")
                );
                last_error = Some(error);
            }
        }
    }
    let error = last_error.map(|e| format!("{e:#}")).unwrap_or_else(|| "no error reported".into());
    bail!("apt-get install {} failed: {error}", packages.join(" "))
}

/// An `apt-get ARGS` command (for `packages`), non-interactive, through `sudo` when not root.
fn apt_get(args: &[&str], packages: &[&str]) -> Result<Command> {
    let mut command = if is_root()? {
        let mut command = Command::new("apt-get");
        command.env("DEBIAN_FRONTEND", "noninteractive");
        command
    } else {
        if Command::new("sudo").arg("--version").output().is_err() {
            let packages = packages.join(" ");
            bail!(
                "installing {packages} needs root: run as root, install sudo, or `apt-get install {packages}` by hand"
            );
        }
        let mut command = Command::new("sudo");
        // Without a terminal nobody can type a password: fail at once instead of hanging.
        if !std::io::stdin().is_terminal() {
            command.arg("-n");
        }
        command.args(["env", "DEBIAN_FRONTEND=noninteractive", "apt-get"]);
        command
    };
    command.args(args);
    Ok(command)
}

fn is_root() -> Result<bool> {
    let output = Command::new("id").arg("-u").output().context("could not run `id -u`")?;
    Ok(String::from_utf8_lossy(&output.stdout).trim() == "0")
}

/// `npm ci` in `e2e/`, never letting playwright fetch a browser of its own.
fn npm_ci(e2e_dir: &Path) -> Result<()> {
    crate::run(
        Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(e2e_dir)
            .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1"),
    )
}

/// Builds the server (dev profile: dependencies are optimised) and returns its path.
fn build_server() -> Result<PathBuf> {
    // The same package selection and targets as the `cargo test` phase, so cargo unifies
    // the same dependency features and reuses that build instead of compiling the
    // server a second time.
    crate::cargo(&["build", "--workspace", "--bins", "--tests"])?;
    let binary = crate::target_dir().join("debug").join(format!("vlab{}", std::env::consts::EXE_SUFFIX));
    if !binary.exists() {
        bail!("the server was built but {} does not exist", binary.display());
    }
    Ok(binary)
}

/// Runs the e2e test files: first those that time a program's CPU or kill a server
/// ([`E2E_ALONE`]), alone, then the others [`E2E_FILES_AT_ONCE`] at a time. Each starts
/// its own servers and Chromium; the cluster tests' servers meet on a throw-away
/// nats-server and PostgreSQL started here, stopped and removed when this returns, pass
/// or fail. Without them the other tests still run, and the phase fails saying why.
fn run_e2e(root: &Path, e2e_dir: &Path, server: &Path, web_dir: &Path, chromium: &Path) -> Result<()> {
    let tests_dir = e2e_dir.join("tests");
    let mut tests: Vec<PathBuf> = std::fs::read_dir(&tests_dir)
        .with_context(|| format!("could not list {}", tests_dir.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.to_string_lossy().ends_with(".test.mjs"))
        .collect();
    tests.sort();
    if tests.is_empty() {
        bail!("no e2e tests (*.test.mjs) in {}", tests_dir.display());
    }
    let (alone, together): (Vec<PathBuf>, Vec<PathBuf>) = tests
        .into_iter()
        .partition(|path| path.file_name().is_some_and(|name| E2E_ALONE.iter().any(|alone| name == *alone)));

    let artifacts = root.join("e2e").join("artifacts");
    if artifacts.exists() {
        std::fs::remove_dir_all(&artifacts).with_context(|| format!("could not empty {}", artifacts.display()))?;
    }
    std::fs::create_dir_all(&artifacts).with_context(|| format!("could not create {}", artifacts.display()))?;

    // Dropped when this returns, whatever happened: the services stop with the phase.
    let services = start_services("the e2e tests");
    // Both groups run whatever the first gives: a failure does not hide the others.
    let mut failed = Vec::new();
    if let Err(error) = &services {
        failed.push(format!("NATS and PostgreSQL did not start, so the cluster tests skipped: {error:#}"));
    }
    for (group, files, at_once) in [("alone", alone, 1), ("together", together, E2E_FILES_AT_ONCE)] {
        if files.is_empty() {
            continue;
        }
        // A second copy of the report, whose failures the summary repeats: the first
        // group's would otherwise scroll away behind the second's.
        let report = artifacts.join(format!("report-{group}.txt"));
        let mut node = Command::new("node");
        node.args(["--test", &format!("--test-concurrency={at_once}")])
            .args(["--test-reporter=spec", "--test-reporter-destination=stdout", "--test-reporter=spec"])
            .arg(format!("--test-reporter-destination={}", report.display()))
            .args(&files)
            .current_dir(e2e_dir)
            .env("VLAB_BIN", server)
            .env("VLAB_WEB_DIR", web_dir)
            .env("CHROMIUM_PATH", chromium)
            .env("E2E_ARTIFACTS", &artifacts);
        if let Ok(services) = &services {
            node.envs(services.test_env());
        }
        if let Err(error) = crate::run(&mut node) {
            failed.push(format!("{error:#}\n{}", failing_tests(&report)));
        }
    }
    if !failed.is_empty() {
        bail!("e2e tests failed; screenshots in {}: {}", artifacts.display(), failed.join("; "));
    }
    eprintln!("xtask: e2e screenshots in {}", artifacts.display());
    Ok(())
}

/// The "failing tests" part of a spec report (at most [`FAILURE_LINES`] lines), or why
/// there is none.
fn failing_tests(report: &Path) -> String {
    let Ok(text) = std::fs::read_to_string(report) else {
        return format!("(no report at {})", report.display());
    };
    let Some(start) = text.find("failing tests:") else {
        return format!("(no failing tests listed in {})", report.display());
    };
    text[start..].lines().take(FAILURE_LINES).collect::<Vec<_>>().join("\n")
}

/// Lines of an e2e group's failures the summary repeats.
const FAILURE_LINES: usize = 60;

/// What happened to each phase, for the closing summary.
#[derive(Default)]
struct Report {
    phases: Vec<(String, Outcome)>,
}

enum Outcome {
    Passed(Duration),
    Failed(Duration, String),
    Skipped(String),
}

impl Report {
    /// Runs one phase, records its outcome, and returns its value if it succeeded.
    fn phase<T>(&mut self, name: &str, body: impl FnOnce() -> Result<T>) -> Option<T> {
        eprintln!("\nxtask test: ==== {name} ====");
        let started = Instant::now();
        match body() {
            Ok(value) => {
                self.phases.push((name.to_owned(), Outcome::Passed(started.elapsed())));
                Some(value)
            }
            Err(error) => {
                eprintln!("xtask test: FAILED: {name}: {error:#}");
                self.phases.push((name.to_owned(), Outcome::Failed(started.elapsed(), format!("{error:#}"))));
                None
            }
        }
    }

    fn skip(&mut self, name: &str, why: &str) {
        eprintln!("\nxtask test: ==== {name} ==== skipped: {why}");
        self.phases.push((name.to_owned(), Outcome::Skipped(why.to_owned())));
    }

    fn failed(&self) -> usize {
        self.phases.iter().filter(|(_, outcome)| matches!(outcome, Outcome::Failed(..))).count()
    }

    fn print(&self) {
        println!("\nxtask test summary:");
        for (name, outcome) in &self.phases {
            match outcome {
                Outcome::Passed(took) => {
                    println!("  ok       {:>5.0} s  {name}", took.as_secs_f64())
                }
                Outcome::Failed(took, error) => {
                    let first_line = error.lines().next().unwrap_or_default();
                    println!("  FAILED   {:>5.0} s  {name}: {first_line}", took.as_secs_f64());
                }
                Outcome::Skipped(why) => println!("  SKIPPED           {name} ({why})"),
            }
        }
        let skipped = self.phases.iter().filter(|(_, outcome)| matches!(outcome, Outcome::Skipped(_))).count();
        let passed = self.phases.len() - self.failed() - skipped;
        println!("phases: {passed} passed, {} failed, {skipped} skipped", self.failed());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_e2e_file_run_alone_exists() {
        let tests = crate::workspace_root().join("e2e").join("tests");
        for file in E2E_ALONE {
            assert!(tests.join(file).is_file(), "E2E_ALONE names {file}, which is not in {}", tests.display());
        }
    }
}
