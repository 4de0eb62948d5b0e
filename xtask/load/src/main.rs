//! VLab's load tool, `cargo xtask load`: what watching a lab costs the server. N real websocket viewers
//! on one lab, each decoding every frame, against a release `vlab` the tool starts (or
//! one already running); over a measured window it prints the server's CPU (total and
//! per viewer), the lab's real-time factor, each viewer's bytes and frames per second,
//! the frames' delays and any decoding error. `--labs M` adds M-1 unwatched labs first,
//! to see what a lab costs. `cargo xtask bench` runs the sweeps of [`sweep`].

mod cluster;
mod crowd;
mod options;
mod server;
mod stats;
mod sweep;
mod viewer;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use vlab_protocol::{CreatedLab, LabMode, Rate};
use xtask::{cargo, target_dir};

use crowd::{Crowd, Group};
pub use options::{DEFAULT_THREADS, Options, USAGE};
use server::{Api, OwnServer, Role, cpu_ticks, ticks_per_second};
use stats::{ViewersSummary, cpu_percent, summarize};
use viewer::Acknowledge;

/// Time between the last viewer connecting and the window: every snapshot and
/// keyframe has arrived, the server's buffers have settled.
const SETTLE: Duration = Duration::from_secs(1);
/// Longest window of the server's own CPU before viewers connect (the baseline).
const BASELINE_WINDOW: Duration = Duration::from_secs(3);
/// File descriptors this process keeps besides its viewers' sockets.
const SPARE_FILES: u64 = 256;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return Ok(());
    }
    if args == ["--sweep"] {
        return sweep::run();
    }
    run(&args)
}

/// `cargo xtask load ARGS`.
pub fn run(args: &[String]) -> Result<()> {
    let options = match Options::parse(args, std::env::var("VLAB_SERVER_KEY").ok()) {
        Ok(options) => options,
        Err(e) => bail!("{e}\n\n{USAGE}"),
    };
    if let Some(servers) = options.cluster {
        return cluster::run(&options, servers);
    }
    raise_open_files_limit(options.viewers);
    let own = match options.server {
        Some(_) => None,
        None => Some(start_release_server(options.viewers)?),
    };
    let (base, pid, key) = match (&own, &options.server) {
        (Some(own), _) => (own.base.clone(), Some(own.pid()), Some(own.key.clone())),
        (None, Some(base)) => (base.clone(), options.pid, options.key.clone()),
        (None, None) => unreachable!("a server is started when none is given"),
    };
    runtime(options.threads)?.block_on(async {
        let target = Target { api: Api::new(&base)?, pid, key, acknowledge: options.acknowledge };
        let created = target.add_labs(options.labs.saturating_sub(1), 0).await?;
        if !created.is_empty() {
            tokio::time::sleep(SETTLE).await;
        }
        let measured = target.measure(&options.lab, options.viewers, Duration::from_secs_f64(options.seconds)).await;
        if own.is_none() {
            target.close_labs(&created).await;
        }
        print!("{}", measured?.report(&options, &base));
        Ok(())
    })
}

/// Builds the release server (`cargo build --release -p vlab-server --bin vlab`) and
/// starts it allowing `viewers` connections from one address.
fn start_release_server(viewers: usize) -> Result<OwnServer> {
    start_server(&build_release_server()?, viewers)
}

/// Builds the release server; the path of its binary.
fn build_release_server() -> Result<PathBuf> {
    cargo(&["build", "--release", "-p", "vlab-server", "--bin", "vlab"])?;
    Ok(target_dir().join("release").join("vlab"))
}

/// Starts `binary` allowing `viewers` connections from one address.
fn start_server(binary: &Path, viewers: usize) -> Result<OwnServer> {
    let server = OwnServer::start(binary, viewers, &Role::Alone)?;
    eprintln!("xtask: started {} (pid {}) on {}", binary.display(), server.pid(), server.base);
    Ok(server)
}

/// The runtime the viewers run on: one thread (a current-thread runtime: the tool then
/// takes one core at most) or a multi-thread one with `threads` workers.
fn runtime(threads: usize) -> Result<tokio::runtime::Runtime> {
    let mut builder = match threads {
        0 | 1 => tokio::runtime::Builder::new_current_thread(),
        _ => {
            let mut builder = tokio::runtime::Builder::new_multi_thread();
            builder.worker_threads(threads);
            builder
        }
    };
    builder.enable_all().build().context("cannot start the tokio runtime")
}

/// Raises this process's open-file limit towards `viewers` sockets and some spare (up
/// to the hard limit; a warning when even that is lower).
fn raise_open_files_limit(viewers: usize) {
    #[cfg(unix)]
    {
        use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
        let wanted = viewers as u64 + SPARE_FILES;
        let limit = getrlimit(Resource::Nofile);
        let current = limit.current.unwrap_or(u64::MAX);
        if current >= wanted {
            return;
        }
        let raised = limit.maximum.unwrap_or(u64::MAX).min(wanted);
        if raised > current {
            let _ = setrlimit(Resource::Nofile, Rlimit { current: Some(raised), maximum: limit.maximum });
        }
        if raised < wanted {
            eprintln!(
                "warning: the open-file limit ({raised}) is below {wanted}: raise `ulimit -Hn` for this many viewers"
            );
        }
    }
    #[cfg(not(unix))]
    let _ = (viewers, SPARE_FILES);
}

/// The smallest simulated seconds per wall second of the labs in both readings.
fn slowest(before: &(Instant, BTreeMap<String, f64>), after: &(Instant, BTreeMap<String, f64>)) -> Option<f64> {
    let wall = after.0.duration_since(before.0).as_secs_f64().max(1e-9);
    let factors = after.1.iter().filter_map(|(id, time)| Some((time - before.1.get(id)?) / wall));
    factors.min_by(f64::total_cmp)
}

/// The server under load, as the tool reaches it.
pub struct Target {
    api: Api,
    /// Its process id, for its CPU time.
    pid: Option<u32>,
    /// Its key, to create labs.
    key: Option<String>,
    /// Whether and how the viewers acknowledge the frames they decoded.
    acknowledge: Acknowledge,
}

/// One measured window.
#[derive(Clone, Debug)]
pub struct Measurement {
    /// Viewers asked for.
    pub viewers: usize,
    /// Viewers whose websocket opened.
    pub connected: usize,
    /// Why the first viewer that could not connect could not.
    pub connect_error: Option<String>,
    /// Labs on the server during the window.
    pub labs: usize,
    /// The window's length, seconds.
    pub secs: f64,
    /// The server's CPU, % of one core, without the tool's viewers (before they
    /// connected) and during the window.
    pub server_cpu_idle: Option<f64>,
    /// See `server_cpu_idle`.
    pub server_cpu: Option<f64>,
    /// This process's CPU during the window, % of one core (it shares the machine).
    pub tool_cpu: Option<f64>,
    /// Simulated seconds per wall second over the window.
    pub real_time_factor: f64,
    /// The smallest real-time factor of any lab over the window (from `GET /api/labs`,
    /// less precise than `real_time_factor`: one request for all labs).
    pub slowest_real_time_factor: Option<f64>,
    /// The lab's set rate (`None`: as fast as it can).
    pub rate: Option<f64>,
    /// What the viewers saw.
    pub seen: ViewersSummary,
}

impl Measurement {
    /// Server CPU per viewer: the window's above the baseline, shared out.
    pub fn cpu_per_viewer(&self) -> Option<f64> {
        let (busy, idle) = (self.server_cpu?, self.server_cpu_idle?);
        Some((busy - idle).max(0.0) / self.connected.max(1) as f64)
    }

    /// The figures, one a line.
    fn report(&self, options: &Options, base: &str) -> String {
        let ms = |secs: Option<f64>| secs.map_or("n/a".to_owned(), |s| format!("{:.1} ms", s * 1000.0));
        let cpu = |cpu: Option<f64>| cpu.map_or("n/a (no --pid)".to_owned(), |c| format!("{c:.1} %"));
        let seen = &self.seen;
        let mut out = String::new();
        let mut line = |text: String| {
            out.push_str(&text);
            out.push('\n');
        };
        line(format!("server              {base}, {} lab(s)", self.labs));
        line(format!(
            "viewers             {} of {} connected on lab `{}`, {:.1} s measured, {} drawn frames, on {} thread(s)",
            self.connected,
            self.viewers,
            options.lab,
            self.secs,
            options.acknowledge.describe(),
            options.threads
        ));
        if let Some(why) = &self.connect_error {
            line(format!("  first refusal     {why}"));
        }
        line(format!(
            "server CPU          {} (before the viewers: {})",
            cpu(self.server_cpu),
            cpu(self.server_cpu_idle)
        ));
        line(format!(
            "  per viewer        {}",
            self.cpu_per_viewer().map_or("n/a".to_owned(), |c| format!("{c:.3} % (above the baseline)"))
        ));
        line(format!("load tool CPU       {}", cpu(self.tool_cpu)));
        let rate = self.rate.map_or("max".to_owned(), |r| format!("{r}"));
        line(format!("real-time factor    {:.3} (rate {rate})", self.real_time_factor));
        if let Some(slowest) = self.slowest_real_time_factor.filter(|_| self.labs > 1) {
            line(format!("  slowest lab       {slowest:.3}"));
        }
        line(format!("bytes/s per viewer  mean {:.0}, min {:.0}", seen.bytes.mean, seen.bytes.min));
        line(format!("frames/s per viewer mean {:.1}, min {:.1}", seen.frames.mean, seen.frames.min));
        line(format!("drawn/s per viewer  mean {:.1}, min {:.1}", seen.drawn_sent.mean, seen.drawn_sent.min));
        line(format!(
            "frame delay         p50 {}, p99 {}, max {}",
            ms(seen.delay_p50),
            ms(seen.delay_p99),
            ms(seen.delay_max)
        ));
        line(format!(
            "errors              {} decode, {} unreadable JSON, {} from the server, {} without a snapshot, {} ended early",
            seen.decode_errors, seen.unreadable_texts, seen.server_errors, seen.without_snapshot, seen.ended_early
        ));
        line(format!("frames decoded      {} in the window", seen.frames_total));
        out
    }
}

impl Target {
    /// A target at `base`, whose process is `pid`, with `key`.
    pub fn new(base: &str, pid: Option<u32>, key: Option<String>) -> Result<Target> {
        Ok(Target { api: Api::new(base)?, pid, key, acknowledge: Acknowledge::AsTold })
    }

    /// Creates `count` labs of the demo yard (running, unwatched), named after
    /// `first + 1`, `first + 2`, ...
    pub async fn add_labs(&self, count: usize, first: usize) -> Result<Vec<CreatedLab>> {
        if count == 0 {
            return Ok(Vec::new());
        }
        let key = self.key.as_deref().context("creating labs needs the server's key")?;
        let mut created = Vec::with_capacity(count);
        for i in 0..count {
            let name = format!("load {}", first + i + 1);
            created.push(self.api.create_lab(key, &name).await.with_context(|| format!("creating lab `{name}`"))?);
        }
        Ok(created)
    }

    /// Closes labs [`Target::add_labs`] created (on a server the tool did not start).
    pub async fn close_labs(&self, labs: &[CreatedLab]) {
        for lab in labs {
            if let Err(e) = self.api.close_lab(lab).await {
                eprintln!("warning: could not close lab {}: {e:#}", lab.id);
            }
        }
    }

    /// The server's CPU over `secs` from now, % of one core.
    async fn cpu_over(&self, window: Duration) -> Option<f64> {
        let pid = self.pid?;
        let before = cpu_ticks(pid)?;
        let start = Instant::now();
        tokio::time::sleep(window).await;
        let ticks = cpu_ticks(pid)?.checked_sub(before)?;
        Some(cpu_percent(ticks, ticks_per_second(), start.elapsed().as_secs_f64()))
    }

    /// Measures `viewers` viewers on `lab` over `window`: the server's CPU first without
    /// them, then they connect, settle, and are counted over the window.
    pub async fn measure(&self, lab: &str, viewers: usize, window: Duration) -> Result<Measurement> {
        let summary = self.api.lab(lab).await.with_context(|| format!("no lab `{lab}` to watch"))?;
        if summary.state.mode == LabMode::Paused {
            eprintln!("warning: lab `{lab}` is paused: its viewers get no frames");
        }
        let rate = match summary.state.rate {
            Rate::RealTime(rate) => Some(rate),
            Rate::Max => None,
        };
        let server_cpu_idle = self.cpu_over(window.min(BASELINE_WINDOW)).await;

        let group = Group { url: self.api.viewer_url(lab), count: viewers };
        let crowd = Crowd::connect(&[group], rate, Instant::now(), self.acknowledge).await;
        let (connected, connect_error) = (crowd.connected, crowd.connect_error.clone());
        tokio::time::sleep(SETTLE).await;

        let own = std::process::id();
        let (server_before, tool_before) = (self.pid.and_then(cpu_ticks), cpu_ticks(own));
        let clock_before = self.clock(lab).await?;
        let clocks_before = self.clocks().await?;
        let start = Instant::now();
        let end = start + window;
        crowd.open_window(start, end);
        tokio::time::sleep_until(end.into()).await;
        let wall = start.elapsed().as_secs_f64();
        let (server_after, tool_after) = (self.pid.and_then(cpu_ticks), cpu_ticks(own));
        let clock_after = self.clock(lab).await?;
        let clocks_after = self.clocks().await?;
        let reports = crowd.reports().await?.concat();
        let share = |before: Option<u64>, after: Option<u64>| {
            Some(cpu_percent(after?.checked_sub(before?)?, ticks_per_second(), wall))
        };
        Ok(Measurement {
            viewers,
            connected,
            connect_error,
            labs: clocks_after.1.len(),
            slowest_real_time_factor: slowest(&clocks_before, &clocks_after),
            secs: window.as_secs_f64(),
            server_cpu_idle,
            server_cpu: share(server_before, server_after),
            tool_cpu: share(tool_before, tool_after),
            real_time_factor: (clock_after.1 - clock_before.1)
                / clock_after.0.duration_since(clock_before.0).as_secs_f64().max(1e-9),
            rate,
            seen: summarize(&reports, window.as_secs_f64(), rate),
        })
    }

    /// The lab's simulation time, with the instant halfway through the request that
    /// read it.
    async fn clock(&self, lab: &str) -> Result<(Instant, f64)> {
        let asked = Instant::now();
        let summary = self.api.lab(lab).await?;
        Ok((asked + asked.elapsed() / 2, summary.state.time))
    }

    /// Every lab's simulation time (`GET /api/labs`), with the instant halfway through
    /// the request.
    async fn clocks(&self) -> Result<(Instant, BTreeMap<String, f64>)> {
        let asked = Instant::now();
        let labs = self.api.labs().await?;
        Ok((asked + asked.elapsed() / 2, labs.into_iter().map(|lab| (lab.id, lab.state.time)).collect()))
    }
}
