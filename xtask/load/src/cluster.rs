//! `cargo xtask load --cluster N`: what watching a lab costs a cluster. N release
//! servers share the NATS server and PostgreSQL database `cargo xtask` started (named
//! by [`NATS_VAR`] and [`POSTGRES_VAR`]); the first starts alone and runs the demo lab.
//! For each number of viewers the same viewers watch the demo lab three ways, one row
//! each: on a server alone (SQLite, no cluster: the baseline, in the same run), on the
//! lab's own server, and split evenly over the other servers. A row gives the lab's
//! server's CPU, the others' CPU, the CPU per viewer where the viewers are, and the
//! frames' delays. Last, the lab's server is killed (SIGKILL) and the failover is timed
//! as a page on another server sees it.

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use vlab_protocol::Rate;

use super::crowd::{Crowd, Group};
use super::server::{Api, OwnServer, Role, cpu_ticks, ticks_per_second};
use super::stats::{ViewersSummary, cpu_percent, summarize};
use super::viewer::{Acknowledge, moving_frames};
use super::{BASELINE_WINDOW, Options, SETTLE, build_release_server, raise_open_files_limit, runtime};

/// The NATS server the members share (set by `cargo xtask load --cluster`).
pub const NATS_VAR: &str = "VLAB_LOAD_NATS";
/// The PostgreSQL database the members share.
pub const POSTGRES_VAR: &str = "VLAB_LOAD_POSTGRES";
/// The lab watched: the demo lab, which the first member opens and runs.
const LAB: &str = "demo";
/// How long the failover may take before the run gives up on it.
const FAILOVER_PATIENCE: Duration = Duration::from_secs(60);
/// How long one look of the failover's page waits for moving frames.
const PAGE_LOOK: Duration = Duration::from_secs(1);
/// Time between two looks at the lab while it moves.
const POLL: Duration = Duration::from_millis(100);

/// Where a row's viewers watch from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Placement {
    /// A server alone, not in a cluster.
    Alone,
    /// The lab's own server in the cluster.
    Owner,
    /// The cluster's other servers, evenly.
    Others,
}

impl Placement {
    fn describe(self) -> &'static str {
        match self {
            Placement::Alone => "one server alone",
            Placement::Owner => "the lab's server",
            Placement::Others => "the other servers",
        }
    }
}

/// One row: `viewers` viewers placed one way, counted over one window.
struct Row {
    placement: Placement,
    viewers: usize,
    connected: usize,
    connect_error: Option<String>,
    /// The lab's server's CPU (% of one core) before the viewers connected and during
    /// the window; for [`Placement::Alone`], the lone server's.
    owner_cpu: (Option<f64>, Option<f64>),
    /// Each other server's CPU before the viewers and during the window.
    others_cpu: Vec<(Option<f64>, Option<f64>)>,
    real_time_factor: f64,
    seen: ViewersSummary,
}

impl Row {
    /// CPU per viewer where the viewers were: the growth over the baseline of the
    /// servers they watched from, shared out.
    fn cpu_per_viewer(&self) -> Option<f64> {
        let growth = |(before, during): (Option<f64>, Option<f64>)| Some((during? - before?).max(0.0));
        let grown = match self.placement {
            Placement::Alone | Placement::Owner => growth(self.owner_cpu)?,
            Placement::Others => self.others_cpu.iter().map(|cpu| growth(*cpu)).sum::<Option<f64>>()?,
        };
        Some(grown / self.connected.max(1) as f64)
    }
}

/// Runs the whole measurement and prints its two tables.
pub fn run(options: &Options, servers: usize) -> Result<()> {
    let nats = service_url(NATS_VAR)?;
    let database = service_url(POSTGRES_VAR)?;
    raise_open_files_limit(options.viewers);
    let runtime = runtime(options.threads)?;
    let binary = build_release_server()?;
    let window = Duration::from_secs_f64(options.seconds);
    let measure = |servers: &[OwnServer], placement: Placement, viewers| {
        eprintln!("xtask: load: {viewers} viewer(s) on {}", placement.describe());
        runtime.block_on(measure(servers, placement, viewers, window, options.acknowledge))
    };
    let mut rows = Vec::new();
    {
        let alone = [OwnServer::start(&binary, options.viewers, &Role::Alone)?];
        for viewers in viewer_counts(options.viewers) {
            rows.push(measure(&alone, Placement::Alone, viewers)?);
        }
    }
    let mut members = start_members(&runtime, &binary, options.viewers, servers, &nats, &database)?;
    for viewers in viewer_counts(options.viewers) {
        rows.push(measure(&members, Placement::Owner, viewers)?);
        rows.push(measure(&members, Placement::Others, viewers)?);
    }
    println!(
        "\nThe demo lab's viewers on one server alone, on its server in a cluster of {servers}, and split over \
         the {} other(s) ({} s windows, viewers {}):\n",
        servers - 1,
        options.seconds,
        options.acknowledge.describe()
    );
    print!("{}", rows_table(&rows));
    let failover = runtime.block_on(failover(&mut members))?;
    println!("\n{failover}");
    Ok(())
}

/// The URL `cargo xtask` put in `var`.
fn service_url(var: &str) -> Result<String> {
    std::env::var(var).ok().filter(|url| !url.is_empty()).with_context(|| {
        format!("{var} is not set: run `cargo xtask load --cluster N`, which starts NATS and PostgreSQL for the run")
    })
}

/// A quarter, half and all of `most` viewers (at least one each, no repeats).
fn viewer_counts(most: usize) -> Vec<usize> {
    let mut counts: Vec<usize> = [most / 4, most / 2, most].into_iter().map(|n| n.max(1)).collect();
    counts.dedup();
    counts
}

/// Starts `count` members; the first alone, until it serves the demo lab, so that the
/// lab is its own.
fn start_members(
    runtime: &tokio::runtime::Runtime,
    binary: &std::path::Path,
    viewers: usize,
    count: usize,
    nats: &str,
    database: &str,
) -> Result<Vec<OwnServer>> {
    let key = format!("load-{:x}", std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_nanos());
    let member = |index: usize| Role::Member {
        nats: nats.to_owned(),
        database: database.to_owned(),
        id: format!("server{index}"),
        key: key.clone(),
    };
    let first = OwnServer::start(binary, viewers, &member(1))?;
    runtime.block_on(wait_for_lab(&first.base))?;
    let mut members = vec![first];
    for index in 2..=count {
        members.push(OwnServer::start(binary, viewers, &member(index))?);
    }
    for member in &members[1..] {
        runtime.block_on(wait_for_lab(&member.base))?;
    }
    eprintln!("xtask: load: {count} servers in a cluster; the demo lab runs on the first ({})", members[0].base);
    Ok(members)
}

/// Waits until `base` answers for the demo lab.
async fn wait_for_lab(base: &str) -> Result<()> {
    let api = Api::new(base)?;
    let started = Instant::now();
    while started.elapsed() < FAILOVER_PATIENCE {
        if api.lab(LAB).await.is_ok() {
            return Ok(());
        }
        tokio::time::sleep(POLL).await;
    }
    bail!("{base} did not answer for the demo lab within {FAILOVER_PATIENCE:?}")
}

/// Each server's CPU over `window` from now.
async fn cpu_over(servers: &[OwnServer], window: Duration) -> Vec<Option<f64>> {
    let before: Vec<_> = servers.iter().map(|server| cpu_ticks(server.pid())).collect();
    let start = Instant::now();
    tokio::time::sleep(window).await;
    let wall = start.elapsed().as_secs_f64();
    servers
        .iter()
        .zip(before)
        .map(|(server, before)| {
            Some(cpu_percent(cpu_ticks(server.pid())?.checked_sub(before?)?, ticks_per_second(), wall))
        })
        .collect()
}

/// One row: every server's CPU without the viewers, then with `viewers` placed as
/// `placement` says, over `window`.
async fn measure(
    servers: &[OwnServer],
    placement: Placement,
    viewers: usize,
    window: Duration,
    acknowledge: Acknowledge,
) -> Result<Row> {
    let owner = Api::new(&servers[0].base)?;
    let rate = match owner.lab(LAB).await?.state.rate {
        Rate::RealTime(rate) => Some(rate),
        Rate::Max => None,
    };
    let before = cpu_over(servers, window.min(BASELINE_WINDOW)).await;
    let groups = groups(servers, placement, viewers)?;
    let crowd = Crowd::connect(&groups, rate, Instant::now(), acknowledge).await;
    let (connected, connect_error) = (crowd.connected, crowd.connect_error.clone());
    tokio::time::sleep(SETTLE).await;
    let clock_before = (Instant::now(), owner.lab(LAB).await?.state.time);
    let start = Instant::now();
    crowd.open_window(start, start + window);
    let during = cpu_over(servers, window).await;
    let clock_after = (Instant::now(), owner.lab(LAB).await?.state.time);
    let reports = crowd.reports().await?.concat();
    let cpu: Vec<_> = before.into_iter().zip(during).collect();
    Ok(Row {
        placement,
        viewers,
        connected,
        connect_error,
        owner_cpu: cpu[0],
        others_cpu: cpu[1..].to_vec(),
        real_time_factor: (clock_after.1 - clock_before.1) / clock_after.0.duration_since(clock_before.0).as_secs_f64(),
        seen: summarize(&reports, window.as_secs_f64(), rate),
    })
}

/// The viewers' websockets: all on the first server, or split evenly over the others.
fn groups(servers: &[OwnServer], placement: Placement, viewers: usize) -> Result<Vec<Group>> {
    let url = |server: &OwnServer| Ok::<_, anyhow::Error>(Api::new(&server.base)?.viewer_url(LAB));
    match placement {
        Placement::Alone | Placement::Owner => Ok(vec![Group { url: url(&servers[0])?, count: viewers }]),
        Placement::Others => {
            let others = &servers[1..];
            let shares = shares(viewers, others.len());
            others.iter().zip(shares).map(|(server, count)| Ok(Group { url: url(server)?, count })).collect()
        }
    }
}

/// `viewers` shared out over `servers` as evenly as they go.
fn shares(viewers: usize, servers: usize) -> Vec<usize> {
    (0..servers).map(|i| viewers / servers + usize::from(i < viewers % servers)).collect()
}

/// The rows as a Markdown table.
fn rows_table(rows: &[Row]) -> String {
    let percent = |value: Option<f64>, decimals: usize| value.map_or("n/a".into(), |v| format!("{v:.decimals$}"));
    let ms = |secs: Option<f64>| secs.map_or("n/a".into(), |s| format!("{:.1}", s * 1000.0));
    let mut out = String::from(
        "| viewers | watching from | connected | lab's server CPU % (before them) | other servers' CPU % each (before them) | per viewer % | real-time factor | frames/s per viewer (mean / min) | delay p50 ms | delay p99 ms | errors |\n\
         |---:|---|---:|---:|---|---:|---:|---:|---:|---:|---:|\n",
    );
    for row in rows {
        let seen = &row.seen;
        let others = match row.placement {
            Placement::Alone => "—".to_owned(),
            _ => row
                .others_cpu
                .iter()
                .map(|(before, during)| format!("{} ({})", percent(*during, 1), percent(*before, 1)))
                .collect::<Vec<_>>()
                .join(", "),
        };
        let errors = seen.decode_errors + seen.unreadable_texts + seen.server_errors + seen.ended_early as u64;
        out.push_str(&format!(
            "| {} | {} | {} | {} ({}) | {} | {} | {:.3} | {:.1} / {:.1} | {} | {} | {} |\n",
            row.viewers,
            row.placement.describe(),
            row.connected,
            percent(row.owner_cpu.1, 1),
            percent(row.owner_cpu.0, 1),
            others,
            percent(row.cpu_per_viewer(), 3),
            row.real_time_factor,
            seen.frames.mean,
            seen.frames.min,
            ms(seen.delay_p50),
            ms(seen.delay_p99),
            errors,
        ));
        if let Some(why) = &row.connect_error {
            out.push_str(&format!("|  | first refusal: {why} |||||||||||\n"));
        }
    }
    out
}

/// Kills the lab's server and times, from another server, when the lab answers again
/// and when a page that connects there sees it move.
async fn failover(members: &mut [OwnServer]) -> Result<String> {
    let edge = Api::new(&members[1].base)?;
    let page = edge.viewer_url(LAB);
    // The same look before the kill: a page there sees the lab move.
    moving_frames(&page, FAILOVER_PATIENCE)
        .await
        .map_err(|why| anyhow::anyhow!("before the kill, a page on {} saw no moving frames: {why}", members[1].base))?;
    members[0].kill();
    let killed = Instant::now();
    // "Answered again": the first answer after one refused (the lab between servers).
    let (mut refused, mut answered, mut last_look) = (false, None, String::new());
    let moving = loop {
        if killed.elapsed() > FAILOVER_PATIENCE {
            bail!(
                "the demo lab was not served again within {FAILOVER_PATIENCE:?} of its server's kill \
                 (the page's last look: {last_look})"
            );
        }
        if answered.is_none() {
            match edge.lab(LAB).await {
                Ok(_) if refused => answered = Some(killed.elapsed()),
                Ok(_) => {}
                Err(_) => refused = true,
            }
        }
        match moving_frames(&page, PAGE_LOOK).await {
            Ok(_) => break killed.elapsed(),
            Err(why) => {
                last_look = why;
                tokio::time::sleep(POLL).await;
            }
        }
    };
    let answered = answered.map_or("n/a".to_owned(), |after| format!("{:.1} s", after.as_secs_f64()));
    Ok(format!(
        "Failover: the lab's server killed (SIGKILL); from {}: the lab answered again after {answered}, \
         and a page connecting there saw it move after {:.1} s.",
        members[1].base,
        moving.as_secs_f64()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(placement: Placement, owner: (f64, f64), others: &[(f64, f64)], connected: usize) -> Row {
        Row {
            placement,
            viewers: connected,
            connected,
            connect_error: None,
            owner_cpu: (Some(owner.0), Some(owner.1)),
            others_cpu: others.iter().map(|&(before, during)| (Some(before), Some(during))).collect(),
            real_time_factor: 1.0,
            seen: ViewersSummary::default(),
        }
    }

    #[test]
    fn viewers_are_counted_at_a_quarter_half_and_all() {
        assert_eq!(viewer_counts(400), [100, 200, 400]);
        assert_eq!(viewer_counts(2), [1, 2]);
        assert_eq!(viewer_counts(1), [1]);
    }

    #[test]
    fn a_viewer_costs_what_the_servers_it_watched_from_grew() {
        // On the lab's server: its own growth; the others' is not the viewers'.
        let owner = row(Placement::Owner, (6.0, 16.0), &[(1.0, 9.0)], 100);
        assert_eq!(owner.cpu_per_viewer(), Some(0.1));
        // Split: the other servers' growth together; the lab's server's is not theirs.
        let split = row(Placement::Others, (6.0, 50.0), &[(1.0, 6.0), (1.0, 11.0)], 100);
        assert_eq!(split.cpu_per_viewer(), Some(0.15));
        // A server that got quieter does not make viewers cost less than nothing.
        assert_eq!(row(Placement::Alone, (6.0, 5.0), &[], 10).cpu_per_viewer(), Some(0.0));
    }

    #[test]
    fn the_viewers_of_a_split_are_spread_evenly_over_the_other_servers() {
        assert_eq!(shares(100, 2), [50, 50]);
        assert_eq!(shares(101, 2), [51, 50]);
        assert_eq!(shares(2, 3), [1, 1, 0]);
    }
}
