//! The load sweeps `cargo xtask bench` prints after the benches: the server's CPU
//! against viewers on the demo lab, and against labs on the server (mostly unwatched),
//! each a Markdown table. Each sweep has a release server of its own, started once; the
//! labs sweep adds labs to it between rows. The server is built once, before both.

use std::time::Duration;

use anyhow::Result;

use super::{
    DEFAULT_THREADS, Measurement, OwnServer, Target, build_release_server, raise_open_files_limit, runtime,
    start_server,
};

/// Viewers on the demo lab, one row each.
pub const VIEWER_COUNTS: [usize; 5] = [1, 10, 100, 300, 1000];
/// Labs on the server, one row each.
pub const LAB_COUNTS: [usize; 4] = [1, 10, 50, 100];
/// Viewers on the demo lab while labs are added: a few, so that frames and their
/// delays are measured too.
pub const VIEWERS_WITH_LABS: usize = 3;
/// Each row's measured window (after a baseline of up to 3 s and the viewers' connecting).
pub const WINDOW: Duration = Duration::from_secs(8);
/// Time for new labs to start before a row is measured.
const LABS_SETTLE: Duration = Duration::from_secs(2);

/// Runs both sweeps and prints their tables.
pub fn run() -> Result<()> {
    let most = VIEWER_COUNTS.into_iter().max().unwrap_or(1);
    raise_open_files_limit(most);
    let runtime = runtime(DEFAULT_THREADS)?;
    let binary = build_release_server()?;

    let server = start_server(&binary, most)?;
    let target = target_of(&server)?;
    let mut rows = Vec::new();
    for viewers in VIEWER_COUNTS {
        eprintln!("xtask: load: {viewers} viewer(s) on the demo lab");
        rows.push(runtime.block_on(target.measure("demo", viewers, WINDOW))?);
    }
    drop(server);
    println!("\nServer CPU against viewers (demo lab, {} s windows):\n", WINDOW.as_secs());
    print!("{}", viewers_table(&rows));

    let server = start_server(&binary, VIEWERS_WITH_LABS)?;
    let target = target_of(&server)?;
    let mut rows = Vec::new();
    let mut labs = 1;
    for wanted in LAB_COUNTS {
        runtime.block_on(async {
            target.add_labs(wanted - labs, labs).await?;
            tokio::time::sleep(LABS_SETTLE).await;
            anyhow::Ok(())
        })?;
        labs = wanted;
        eprintln!("xtask: load: {labs} lab(s), {VIEWERS_WITH_LABS} viewers on the demo lab");
        rows.push(runtime.block_on(target.measure("demo", VIEWERS_WITH_LABS, WINDOW))?);
    }
    drop(server);
    println!(
        "\nServer CPU against labs (demo yards, running; {VIEWERS_WITH_LABS} viewers on one; {} s windows):\n",
        WINDOW.as_secs()
    );
    print!("{}", labs_table(&rows));
    Ok(())
}

fn target_of(server: &OwnServer) -> Result<Target> {
    Target::new(&server.base, Some(server.pid()), Some(server.key.clone()))
}

fn percent(value: Option<f64>, decimals: usize) -> String {
    value.map_or("n/a".into(), |v| format!("{v:.decimals$}"))
}

fn ms(value: Option<f64>) -> String {
    value.map_or("n/a".into(), |v| format!("{:.1}", v * 1000.0))
}

fn errors(row: &Measurement) -> u64 {
    let seen = &row.seen;
    seen.decode_errors + seen.unreadable_texts + seen.server_errors + seen.ended_early as u64
}

/// The viewers sweep as a Markdown table.
pub fn viewers_table(rows: &[Measurement]) -> String {
    let mut out = String::from(
        "| viewers | connected | server CPU % | before them % | per viewer % | real-time factor | KB/s per viewer (mean / min) | frames/s per viewer (mean / min) | delay p50 ms | delay p99 ms | errors | tool CPU % |\n\
         |---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for row in rows {
        let seen = &row.seen;
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {:.3} | {:.1} / {:.1} | {:.1} / {:.1} | {} | {} | {} | {} |\n",
            row.viewers,
            row.connected,
            percent(row.server_cpu, 1),
            percent(row.server_cpu_idle, 1),
            percent(row.cpu_per_viewer(), 3),
            row.real_time_factor,
            seen.bytes.mean / 1000.0,
            seen.bytes.min / 1000.0,
            seen.frames.mean,
            seen.frames.min,
            ms(seen.delay_p50),
            ms(seen.delay_p99),
            errors(row),
            percent(row.tool_cpu, 1),
        ));
    }
    out
}

/// The labs sweep as a Markdown table; a lab's cost is the baseline's growth (the server
/// without the tool's viewers) over the first row, shared out over the labs added.
pub fn labs_table(rows: &[Measurement]) -> String {
    let mut out = format!(
        "| labs | server CPU % (no viewers) | per added lab % | server CPU % ({VIEWERS_WITH_LABS} viewers) | demo real-time factor | slowest lab's factor | frames/s per viewer | delay p50 ms | delay p99 ms | errors |\n\
         |---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let first = rows.first().and_then(|row| Some((row.labs, row.server_cpu_idle?)));
    for row in rows {
        let per_lab = match (first, row.server_cpu_idle) {
            (Some((labs, cpu)), Some(now)) if row.labs > labs => Some((now - cpu) / (row.labs - labs) as f64),
            _ => None,
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {:.3} | {} | {:.1} | {} | {} | {} |\n",
            row.labs,
            percent(row.server_cpu_idle, 1),
            percent(per_lab, 2),
            percent(row.server_cpu, 1),
            row.real_time_factor,
            percent(row.slowest_real_time_factor, 3),
            row.seen.frames.mean,
            ms(row.seen.delay_p50),
            ms(row.seen.delay_p99),
            errors(row),
        ));
    }
    out
}
