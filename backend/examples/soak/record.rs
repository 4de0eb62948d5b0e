//! One sample of the soak: the server's process, its database and the lab's clock at a
//! moment, with the load done so far, and the line it is printed as.

use std::sync::atomic::Ordering;
use std::time::Instant;

use reqwest::StatusCode;

use crate::api::{Api, Counters};
use crate::class::LAB;
use crate::server::{ProcessStats, ServerProcess};

/// Bytes in a mebibyte, for printing.
pub const MIB: f64 = 1024.0 * 1024.0;

/// The columns of [`Sample::line`].
pub const HEADER: &str = "   time   rss MiB    db MiB  robots  steps/s  x real  uploads  removed  programs  viewers  \
                          errors    fds  threads  procs";

/// The lab's clock as its summary reports it.
#[derive(Clone, Copy)]
pub struct Clock {
    /// Physics steps since the last reset.
    pub step: u64,
    /// Simulated seconds since the last reset.
    pub time: f64,
}

/// How fast the lab went between two samples.
#[derive(Clone, Copy)]
pub struct Pace {
    /// Physics steps per wall-clock second.
    pub steps_per_sec: f64,
    /// Simulated seconds per wall-clock second.
    pub realtime: f64,
}

/// Everything measured at one moment.
pub struct Sample {
    /// Seconds since the load began.
    pub at: f64,
    /// The server's process.
    pub process: ProcessStats,
    /// The database's size (file and write-ahead log), bytes.
    pub db: u64,
    /// Robots in the lab; `None` when its summary could not be read.
    pub robots: Option<usize>,
    /// The lab's clock; `None` when its summary could not be read.
    pub clock: Option<Clock>,
    /// Since the previous sample; `None` for the first, or across a reset.
    pub pace: Option<Pace>,
    /// Robots uploaded with a fresh mesh so far.
    pub uploads: u64,
    /// Robots removed so far.
    pub removals: u64,
    /// Programs replaced so far.
    pub programs_replaced: u64,
    /// Viewer sessions done so far.
    pub viewer_sessions: u64,
    /// Errors so far.
    pub errors: u64,
}

impl Sample {
    /// Measures the server, its database and the lab now, `started` being when the
    /// load began; the pace is reckoned from `previous`.
    pub async fn take(server: &ServerProcess, api: &Api, started: Instant, previous: Option<&Sample>) -> Sample {
        let summary = api
            .expect("reading the lab's summary", StatusCode::OK, |http| http.get(api.url(&format!("/api/labs/{LAB}"))))
            .await;
        let at = started.elapsed().as_secs_f64();
        let robots = summary.as_ref().and_then(|s| s["robots"].as_array().map(Vec::len));
        let clock = summary.as_ref().and_then(|s| Some(Clock { step: s["step"].as_u64()?, time: s["time"].as_f64()? }));
        let pace = match (previous.and_then(|p| p.clock.map(|c| (p.at, c))), clock) {
            (Some((then, before)), Some(now)) if now.step >= before.step && at > then => Some(Pace {
                steps_per_sec: (now.step - before.step) as f64 / (at - then),
                realtime: (now.time - before.time) / (at - then),
            }),
            _ => None,
        };
        let counters: &Counters = &api.counters;
        let count = |c: &std::sync::atomic::AtomicU64| c.load(Ordering::Relaxed);
        Sample {
            at,
            process: server.stats(),
            db: server.db_bytes(),
            robots,
            clock,
            pace,
            uploads: count(&counters.uploads),
            removals: count(&counters.removals),
            programs_replaced: count(&counters.programs_replaced),
            viewer_sessions: count(&counters.viewer_sessions),
            errors: count(&counters.errors),
        }
    }

    /// The sample as a line under [`HEADER`].
    pub fn line(&self) -> String {
        let or_dash = |value: Option<String>| value.unwrap_or_else(|| "-".into());
        let number = |value: Option<u64>| or_dash(value.map(|v| v.to_string()));
        format!(
            "{:>7}  {:>8}  {:>8.1}  {:>6}  {:>7}  {:>6}  {:>7}  {:>7}  {:>8}  {:>7}  {:>6}  {:>5}  {:>7}  {:>5}",
            clock_time(self.at),
            or_dash(self.process.rss.map(|b| format!("{:.1}", b as f64 / MIB))),
            self.db as f64 / MIB,
            number(self.robots.map(|r| r as u64)),
            or_dash(self.pace.map(|p| format!("{:.1}", p.steps_per_sec))),
            or_dash(self.pace.map(|p| format!("{:.2}", p.realtime))),
            self.uploads,
            self.removals,
            self.programs_replaced,
            self.viewer_sessions,
            self.errors,
            number(self.process.fds),
            number(self.process.threads),
            number(self.process.descendants),
        )
    }
}

/// `seconds` as `m:ss` (or `h:mm:ss`).
pub fn clock_time(seconds: f64) -> String {
    let whole = seconds.round() as u64;
    let (hours, minutes, secs) = (whole / 3600, whole / 60 % 60, whole % 60);
    if hours > 0 { format!("{hours}:{minutes:02}:{secs:02}") } else { format!("{minutes}:{secs:02}") }
}
