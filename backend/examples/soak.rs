//! A long-running load test of the real `vlab` server: a class of students whose robots
//! wander the demo lab, viewers coming and going, robots removed and uploaded again
//! with fresh meshes and programs. It samples the server's memory, its database and the
//! lab's step rate as it goes, and fails when memory or the database keeps growing, the
//! lab loses its pace or the server dies. Run by hand: `cargo xtask soak --minutes 30`
//! (docs/operations.md, "Soak").

#[path = "soak/api.rs"]
mod api;
#[path = "soak/class.rs"]
mod class;
#[path = "soak/record.rs"]
mod record;
#[path = "soak/server.rs"]
mod server;
#[path = "soak/verdict.rs"]
mod verdict;
#[path = "soak/viewers.rs"]
mod viewers;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Parser;
use rand::Rng;
use reqwest::StatusCode;

use api::{Api, Counters};
use class::{LAB, Programs};
use record::{MIB, Sample};
use server::ServerProcess;

/// Load the real server for a while and judge whether it holds up.
#[derive(Parser)]
#[command(name = "soak")]
struct Args {
    /// The `vlab` binary to load (a release build).
    #[arg(long)]
    server: PathBuf,
    /// How long to load it, in minutes (after the class has arrived).
    #[arg(long)]
    minutes: f64,
    /// Students in the class, each with a wandering robot.
    #[arg(long, default_value_t = 30)]
    robots: usize,
    /// Viewers watching at once; each leaves after a few seconds and another comes.
    #[arg(long, default_value_t = 10)]
    viewers: usize,
    /// Students who remove a robot and upload another, again and again.
    #[arg(long, default_value_t = 3)]
    churners: usize,
    /// Size of the mesh each of those uploads carries, KiB.
    #[arg(long, default_value_t = 1024)]
    mesh_kib: usize,
    /// Seconds between samples.
    #[arg(long, default_value_t = 10)]
    sample_secs: u64,
}

#[tokio::main]
async fn main() -> ExitCode {
    match soak(Args::parse()).await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("soak: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The whole soak; whether the server held up.
async fn soak(args: Args) -> Result<bool> {
    if !(args.minutes > 0.0 && args.minutes.is_finite()) || args.robots == 0 || args.sample_secs == 0 {
        bail!("--minutes, --robots and --sample-secs must be above 0");
    }
    let run = Duration::from_secs_f64(args.minutes * 60.0);
    let dir = std::env::temp_dir().join(format!("vlab-soak-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let instructor_token = random_token();
    let mut server = ServerProcess::start(&args.server, &dir, &instructor_token)?;
    println!(
        "soak: server {} (pid {}) on {}, log {}",
        args.server.display(),
        server.pid(),
        server.addr,
        server.log.display()
    );
    let counters = Arc::new(Counters::default());
    let api = Arc::new(Api::new(format!("http://{}", server.addr), Arc::clone(&counters))?);

    let set_up = async {
        wait_until_serving(&mut server, &api).await?;
        let join_code = join_code(&api, &instructor_token).await?;
        let programs = if python_found() {
            Programs::Python
        } else {
            println!("soak: python3 not found: robots come without programs");
            Programs::None
        };
        class::arrive(&api, &join_code, args.robots, programs).await
    };
    let (class, programs) = match set_up.await {
        Ok(class) => class,
        Err(e) => {
            eprintln!("soak: the server's log ends with:\n{}", server.log_tail(30));
            server.stop();
            clean_up(&dir, false);
            return Err(e.context("setting up the class"));
        }
    };
    let churners = args.churners.min(class.len());
    println!(
        "soak: {} students in lab '{LAB}', each with a wandering robot{}; {churners} of them upload and remove robots \
         with {} KiB meshes; {} viewers at a time; {} min",
        class.len(),
        if programs == Programs::Python { " and its Python program" } else { " (no programs)" },
        args.mesh_kib,
        args.viewers,
        args.minutes
    );
    println!("soak: verdict: {}", verdict::rule(run));

    let mut load = Vec::new();
    for _ in 0..args.viewers {
        load.push(tokio::spawn(viewers::watch_in_turns(server.addr, Arc::clone(&counters))));
    }
    for (slot, student) in class.iter().take(churners).enumerate() {
        load.push(tokio::spawn(class::churn(Arc::clone(&api), student.clone(), slot, programs, args.mesh_kib * 1024)));
    }

    let started = Instant::now();
    let mut ticks = tokio::time::interval(Duration::from_secs(args.sample_secs));
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut samples: Vec<Sample> = Vec::new();
    let mut died = None;
    println!("{}", record::HEADER);
    loop {
        ticks.tick().await;
        if let Some(status) = server.exited() {
            died = Some(format!(
                "the server died at {} ({status}); its log ends with:\n{}",
                record::clock_time(started.elapsed().as_secs_f64()),
                server.log_tail(30)
            ));
            break;
        }
        let sample = Sample::take(&server, &api, started, samples.last()).await;
        println!("{}", sample.line());
        samples.push(sample);
        if started.elapsed() >= run {
            break;
        }
    }
    for task in &load {
        task.abort();
    }

    let verdict = verdict::judge(&samples, run, died);
    print_summary(&samples, &counters);
    let stopped = server.stop();
    report_server_log(&server.log);
    println!("soak: server stopped: {}", stopped.map_or("unknown".into(), |s| s.to_string()));
    for finding in &verdict.findings {
        println!("soak: {finding}");
    }
    let passed = verdict.failures.is_empty();
    if passed {
        match &verdict.inconclusive {
            Some(why) => println!("soak: INCONCLUSIVE: {why}"),
            None => println!("soak: PASS: memory and the database levelled off and the lab kept its pace"),
        }
    } else {
        for failure in &verdict.failures {
            println!("soak: FAIL: {failure}");
        }
    }
    clean_up(&dir, passed);
    Ok(passed)
}

async fn wait_until_serving(server: &mut ServerProcess, api: &Api) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !api.is_serving().await {
        if let Some(status) = server.exited() {
            bail!("the server ended ({status}) before serving: its log ends with:\n{}", server.log_tail(30));
        }
        if Instant::now() > deadline {
            bail!("the server did not answer /api/health within a minute");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok(())
}

/// The demo lab's join code, which its summary shows its instructor.
async fn join_code(api: &Api, instructor_token: &str) -> Result<String> {
    let summary = api
        .expect("reading the join code", StatusCode::OK, |http| {
            http.get(api.url(&format!("/api/labs/{LAB}"))).bearer_auth(instructor_token)
        })
        .await
        .context("the lab's summary could not be read (see the warning above)")?;
    Ok(summary["join_code"]
        .as_str()
        .with_context(|| format!("no join code in the lab's summary: {summary}"))?
        .to_owned())
}

/// Whether the interpreter the server would run programs with is here.
fn python_found() -> bool {
    let python = std::env::var_os("VLAB_PYTHON").unwrap_or_else(|| "python3".into());
    std::process::Command::new(python).arg("--version").output().is_ok_and(|out| out.status.success())
}

fn random_token() -> String {
    let mut rng = rand::rng();
    (0..32).map(|_| char::from(b"0123456789abcdef"[rng.random_range(0..16)])).collect()
}

fn print_summary(samples: &[Sample], counters: &Counters) {
    use std::sync::atomic::Ordering::Relaxed;
    let (Some(first), Some(last)) = (samples.first(), samples.last()) else { return };
    let rss: Vec<u64> = samples.iter().filter_map(|s| s.process.rss).collect();
    let mib = |bytes: Option<u64>| bytes.map_or("-".into(), |b| format!("{:.1} MiB", b as f64 / MIB));
    println!(
        "soak: {} of load; {} uploads, {} removals, {} programs replaced, {} viewer sessions ({} frames), {} \
         requests throttled, {} errors",
        record::clock_time(last.at),
        counters.uploads.load(Relaxed),
        counters.removals.load(Relaxed),
        counters.programs_replaced.load(Relaxed),
        counters.viewer_sessions.load(Relaxed),
        counters.frames.load(Relaxed),
        counters.throttled.load(Relaxed),
        counters.errors.load(Relaxed),
    );
    println!(
        "soak: server memory {} at the start, {} at the end, {} at most; database {:.1} MiB → {:.1} MiB; open files \
         {} → {}, threads {} → {}, processes under it {} → {}",
        mib(first.process.rss),
        mib(last.process.rss),
        mib(rss.iter().max().copied()),
        first.db as f64 / MIB,
        last.db as f64 / MIB,
        show(first.process.fds),
        show(last.process.fds),
        show(first.process.threads),
        show(last.process.threads),
        show(first.process.descendants),
        show(last.process.descendants),
    );
}

fn show(value: Option<u64>) -> String {
    value.map_or("-".into(), |v| v.to_string())
}

/// Prints how many warnings, errors and panics the server logged, with the first few.
fn report_server_log(log: &Path) {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let notable: Vec<&str> =
        text.lines().filter(|l| l.contains(" WARN ") || l.contains(" ERROR ") || l.contains("panicked")).collect();
    let count = |marker: &str| notable.iter().filter(|l| l.contains(marker)).count();
    println!(
        "soak: the server logged {} warnings, {} errors, {} panics",
        count(" WARN "),
        count(" ERROR "),
        count("panicked")
    );
    for line in notable.iter().take(8) {
        println!("soak:   {}", api::shortened(line));
    }
}

/// Removes the database; keeps the server's log of a failed run for reading.
fn clean_up(dir: &Path, passed: bool) {
    for file in ["soak.db", "soak.db-wal", "soak.db-shm"] {
        let _ = std::fs::remove_file(dir.join(file));
    }
    if passed {
        let _ = std::fs::remove_dir_all(dir);
    } else {
        println!("soak: the server's log is kept in {}", dir.join("server.log").display());
    }
}
