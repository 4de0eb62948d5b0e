//! Anonymous viewers flooding the timeline with seeks, against the real `vlab` server:
//! the demo lab runs at `max` for a while to build a long history, goes back to 1×,
//! then `--viewers` websockets (no token) each seek random past steps (asking about
//! the three carts, as the page does for a picked robot) one after another for
//! `--seconds`. Prints the server's resident memory (`VmRSS`) before, during and after,
//! the answers a second, the answers' size and `/api/health`'s latency meanwhile.
//!
//! Figures to read, not a pass or fail (docs/operations.md, "Recording"):
//!
//! ```sh
//! cargo build --release -p vlab-server --bin vlab --example seek_flood
//! target/release/examples/seek_flood --server target/release/vlab
//! ```

#[path = "soak/server.rs"]
#[allow(dead_code)]
mod server;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Parser;
use futures_util::{SinkExt, StreamExt};
use rand::Rng;
use tokio_tungstenite::connect_async;
use tokio_tungstenite::tungstenite::Message;
use vlab_protocol::{ClientMsg, ControlAction, PROTOCOL_VERSION, Rate};

use server::ServerProcess;

const TOKEN: &str = "seek-flood-instructor";
const LAB: &str = "demo";
const CARTS: [&str; 3] = ["rover_red", "rover_green", "rover_blue"];
const MIB: f64 = 1024.0 * 1024.0;

/// Flood a long-running lab's timeline with anonymous seeks and print what it costs.
#[derive(Parser)]
#[command(name = "seek_flood")]
struct Args {
    /// The `vlab` binary (a release build).
    #[arg(long)]
    server: PathBuf,
    /// Wall seconds the demo lab runs at `max` first, to build its history.
    #[arg(long, default_value_t = 120)]
    history_secs: u64,
    /// Anonymous viewers seeking at once.
    #[arg(long, default_value_t = 40)]
    viewers: usize,
    /// Seconds they seek.
    #[arg(long, default_value_t = 20)]
    seconds: u64,
    /// Seconds watched after they leave.
    #[arg(long, default_value_t = 15)]
    after_secs: u64,
}

/// What the viewers got.
#[derive(Default)]
struct Tally {
    moments: AtomicUsize,
    busy: AtomicUsize,
    other_errors: AtomicUsize,
    bytes: AtomicU64,
    largest: AtomicU64,
}

#[tokio::main]
async fn main() -> Result<()> {
    let args = Args::parse();
    let dir = std::env::temp_dir().join(format!("vlab-seek-flood-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let result = flood(&args, &dir).await;
    let _ = std::fs::remove_dir_all(&dir);
    result
}

async fn flood(args: &Args, dir: &std::path::Path) -> Result<()> {
    let mut server = ServerProcess::start(&args.server, dir, TOKEN)?;
    let base = format!("http://{}", server.addr);
    let http = reqwest::Client::new();
    wait_healthy(&http, &base, &mut server).await?;
    let rss = |server: &ServerProcess| server.stats().rss.unwrap_or(0) as f64 / MIB;

    control(&http, &base, ControlAction::Rate { rate: Rate::Max }).await?;
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(args.history_secs) {
        tokio::time::sleep(Duration::from_secs(10)).await;
        let summary = recording(&http, &base).await?;
        println!(
            "history: {:>4} s at max, step {:>7}, recording {:.1} MiB, server {:.1} MiB",
            started.elapsed().as_secs(),
            summary["last_step"],
            summary["bytes"].as_f64().unwrap_or(0.0) / MIB,
            rss(&server)
        );
    }
    control(&http, &base, ControlAction::Rate { rate: Rate::RealTime(1.0) }).await?;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let summary = recording(&http, &base).await?;
    let (first, last) = (summary["first_step"].as_u64().unwrap_or(0), summary["last_step"].as_u64().unwrap_or(0));
    let minutes = last as f64 / 240.0 / 60.0;
    let before = rss(&server);
    println!(
        "lab: run of steps {first}–{last} ({minutes:.1} min of simulation); server {before:.1} MiB before the flood"
    );

    let tally = Arc::new(Tally::default());
    let stop = Instant::now() + Duration::from_secs(args.seconds);
    let mut viewers = Vec::new();
    for _ in 0..args.viewers {
        let (addr, tally) = (server.addr, Arc::clone(&tally));
        viewers.push(tokio::spawn(async move { seek_until(addr, first, last, stop, tally).await }));
    }
    let mut health = Vec::new();
    let mut peak = before;
    let mut next_sample = Instant::now();
    println!("{:>6} {:>9} {:>9} {:>12}", "time", "rss MiB", "answers", "health ms");
    while Instant::now() < stop {
        let asked = Instant::now();
        let answered =
            tokio::time::timeout(Duration::from_secs(30), http.get(format!("{base}/api/health")).send()).await;
        let latency = asked.elapsed().as_secs_f64() * 1000.0;
        if !matches!(answered, Ok(Ok(ref r)) if r.status().is_success()) {
            println!("health: no answer ({latency:.0} ms)");
        }
        health.push(latency);
        if Instant::now() >= next_sample {
            let now = rss(&server);
            peak = peak.max(now);
            println!(
                "{:>5.1}s {now:>9.1} {:>9} {latency:>12.1}",
                (Instant::now() - (stop - Duration::from_secs(args.seconds))).as_secs_f64(),
                tally.moments.load(Ordering::Relaxed)
            );
            next_sample += Duration::from_secs(1);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    for viewer in viewers {
        viewer.abort();
    }
    let moments = tally.moments.load(Ordering::Relaxed);
    let busy = tally.busy.load(Ordering::Relaxed);
    let mut after = Vec::new();
    for _ in 0..args.after_secs {
        tokio::time::sleep(Duration::from_secs(1)).await;
        after.push(rss(&server));
    }
    health.sort_by(f64::total_cmp);
    let at = |q: f64| health[((health.len() - 1) as f64 * q).round() as usize];
    let mean = tally.bytes.load(Ordering::Relaxed) as f64 / moments.max(1) as f64;
    println!("--- {} anonymous viewers seeking for {} s, {minutes:.1} min of history", args.viewers, args.seconds);
    println!(
        "answers: {moments} moments ({:.1}/s for everybody together), {busy} busy, {} other errors",
        moments as f64 / args.seconds as f64,
        tally.other_errors.load(Ordering::Relaxed)
    );
    println!(
        "answer size: {:.2} MB on average, {:.2} MB at most",
        mean / 1e6,
        tally.largest.load(Ordering::Relaxed) as f64 / 1e6
    );
    println!(
        "/api/health: median {:.1} ms, 95th percentile {:.1} ms, max {:.1} ms ({} asked)",
        at(0.5),
        at(0.95),
        at(1.0),
        health.len()
    );
    println!(
        "server memory: {before:.1} MiB before, {peak:.1} MiB at most during, {:.1} MiB {} s after",
        after.last().copied().unwrap_or(0.0),
        args.after_secs
    );
    if let Some(status) = server.exited() {
        bail!("the server died: {status}\n{}", server.log_tail(20));
    }
    Ok(())
}

/// One anonymous viewer: seeks a random step of `first..=last`, waits for its answer,
/// seeks again, until `stop`; reads (and drops) everything else it is sent.
async fn seek_until(addr: std::net::SocketAddr, first: u64, last: u64, stop: Instant, tally: Arc<Tally>) {
    let url = format!("ws://{addr}/ws/labs/{LAB}?protocol={PROTOCOL_VERSION}");
    let Ok((mut socket, _)) = connect_async(&url).await else {
        tally.other_errors.fetch_add(1, Ordering::Relaxed);
        return;
    };
    let robots: Vec<String> = CARTS.iter().map(|r| r.to_string()).collect();
    while Instant::now() < stop {
        let step = rand::rng().random_range(first..=last);
        let seek = ClientMsg::Seek { run: None, step, epoch: None, robots: robots.clone() };
        if socket.send(Message::text(serde_json::to_string(&seek).expect("a seek serialises"))).await.is_err() {
            return;
        }
        loop {
            let Some(Ok(message)) = socket.next().await else { return };
            let Message::Text(text) = message else { continue };
            let text = text.as_str();
            if text.starts_with("{\"type\":\"moment\"") {
                tally.moments.fetch_add(1, Ordering::Relaxed);
                tally.bytes.fetch_add(text.len() as u64, Ordering::Relaxed);
                tally.largest.fetch_max(text.len() as u64, Ordering::Relaxed);
                break;
            }
            if text.starts_with("{\"type\":\"error\"") {
                if text.contains("server_busy") {
                    tally.busy.fetch_add(1, Ordering::Relaxed);
                } else {
                    tally.other_errors.fetch_add(1, Ordering::Relaxed);
                }
                break;
            }
        }
    }
}

async fn wait_healthy(http: &reqwest::Client, base: &str, server: &mut ServerProcess) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if let Ok(response) = http.get(format!("{base}/api/health")).send().await
            && response.status().is_success()
        {
            return Ok(());
        }
        if let Some(status) = server.exited() {
            bail!("the server ended at start-up ({status}):\n{}", server.log_tail(20));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    bail!("the server did not answer within 30 s:\n{}", server.log_tail(20))
}

async fn control(http: &reqwest::Client, base: &str, action: ControlAction) -> Result<()> {
    let response = http
        .post(format!("{base}/api/labs/{LAB}/control"))
        .bearer_auth(TOKEN)
        .json(&action)
        .send()
        .await
        .context("the control request failed")?;
    if !response.status().is_success() {
        bail!("{action:?} refused: {}", response.text().await.unwrap_or_default());
    }
    Ok(())
}

async fn recording(http: &reqwest::Client, base: &str) -> Result<serde_json::Value> {
    let response = http.get(format!("{base}/api/labs/{LAB}/recording")).send().await?;
    Ok(response.json().await?)
}
