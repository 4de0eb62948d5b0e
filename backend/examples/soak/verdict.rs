//! The soak's verdict from its samples: after a warm-up, memory and the database must
//! level off, and the lab must keep its pace; the server must live to the end.

use std::time::Duration;

use crate::record::{MIB, Sample, clock_time};

/// The part of the run not judged, as a fraction of it: start-up, the class arriving,
/// allocator pools and caches filling.
const WARM_UP_SHARE: f64 = 0.2;
/// The warm-up's least length, whatever the run's.
const WARM_UP_AT_LEAST: Duration = Duration::from_secs(60);
/// Fewest samples after the warm-up for a verdict on trends.
const FEWEST_MEASURED: usize = 6;
/// Growth over the measured window allowed in any case (allocator noise, caches).
const GROWTH_ALLOWED_BYTES: f64 = 32.0 * MIB;
/// Growth over the measured window allowed relative to the mean there.
const GROWTH_ALLOWED_SHARE: f64 = 0.15;
/// The last third's mean step rate must be at least this share of the middle third's.
const PACE_KEPT_SHARE: f64 = 0.5;

/// The printed rule, for the soak's header and its docs.
pub fn rule(run: Duration) -> String {
    format!(
        "after a warm-up of {} (20% of the run, at least 1 min), fail if the server's memory or the \
         database grows: the least-squares line through the samples after the warm-up rises, over that \
         window, by more than 32 MiB and more than 15% of their mean, or the last third's peak exceeds the \
         middle third's by as much; or if the mean step rate of the last third is under half the middle \
         third's; or if the server dies",
        clock_time(warm_up(run).as_secs_f64())
    )
}

fn warm_up(run: Duration) -> Duration {
    run.mul_f64(WARM_UP_SHARE).max(WARM_UP_AT_LEAST)
}

/// What the samples say.
pub struct Verdict {
    /// Why the soak fails; empty when it passes.
    pub failures: Vec<String>,
    /// What was found, pass or fail: one line per measure.
    pub findings: Vec<String>,
    /// Set when the run was too short to judge trends.
    pub inconclusive: Option<String>,
}

/// Judges `samples` of a run of length `run`; `died` says how the server ended if it
/// did before the end.
pub fn judge(samples: &[Sample], run: Duration, died: Option<String>) -> Verdict {
    let mut verdict = Verdict { failures: Vec::new(), findings: Vec::new(), inconclusive: None };
    if let Some(death) = died {
        verdict.failures.push(death);
    }
    let from = warm_up(run).as_secs_f64();
    let measured: Vec<&Sample> = samples.iter().filter(|s| s.at >= from).collect();
    if measured.len() < FEWEST_MEASURED {
        verdict.inconclusive = Some(format!(
            "{} samples after the warm-up of {}: trends need at least {FEWEST_MEASURED} (run longer)",
            measured.len(),
            clock_time(from)
        ));
        return verdict;
    }
    let window = format!("{}–{}", clock_time(measured[0].at), clock_time(measured[measured.len() - 1].at));
    let memory: Vec<(f64, f64)> = measured.iter().filter_map(|s| Some((s.at, s.process.rss? as f64))).collect();
    let database: Vec<(f64, f64)> = measured.iter().map(|s| (s.at, s.db as f64)).collect();
    for (what, points) in [("server memory (RSS)", memory), ("database (file + WAL)", database)] {
        let Some(trend) = Trend::of(&points) else { continue };
        let allowed = GROWTH_ALLOWED_BYTES.max(GROWTH_ALLOWED_SHARE * trend.mean);
        let late_rise = trend.last_peak - trend.middle_peak;
        verdict.findings.push(format!(
            "{what} over {window}: mean {:.1} MiB, fitted growth {:+.1} MiB ({:+.0} MiB/hour), last third's peak \
             {:+.1} MiB against the middle third's; allowed {:.1} MiB",
            trend.mean / MIB,
            trend.growth / MIB,
            trend.slope * 3600.0 / MIB,
            late_rise / MIB,
            allowed / MIB
        ));
        if trend.growth > allowed {
            verdict.failures.push(format!(
                "{what} keeps growing: {:+.1} MiB over {window} along the fitted line ({:+.0} MiB/hour), more than \
                 the {:.1} MiB allowed",
                trend.growth / MIB,
                trend.slope * 3600.0 / MIB,
                allowed / MIB
            ));
        } else if late_rise > allowed {
            verdict.failures.push(format!(
                "{what} rose late: the last third's peak is {:.1} MiB above the middle third's, more than the {:.1} \
                 MiB allowed",
                late_rise / MIB,
                allowed / MIB
            ));
        }
    }
    let paces: Vec<(f64, f64)> = measured.iter().filter_map(|s| Some((s.at, s.pace?.steps_per_sec))).collect();
    let (middle, last) = middle_and_last_thirds(&paces);
    if middle.is_empty() || last.is_empty() {
        verdict.failures.push("the lab's step rate could not be read after the warm-up".into());
    } else {
        let (middle_mean, last_mean) = (mean(middle), mean(last));
        let realtime: Vec<f64> = measured.iter().filter_map(|s| Some(s.pace?.realtime)).collect();
        verdict.findings.push(format!(
            "step rate: {middle_mean:.1} steps/s in the middle third, {last_mean:.1} in the last ({:.2}× real time \
             on average after the warm-up)",
            realtime.iter().sum::<f64>() / realtime.len().max(1) as f64
        ));
        if middle_mean <= 0.0 {
            verdict.failures.push("the lab made no steps in the middle third of the run".into());
        } else if last_mean < PACE_KEPT_SHARE * middle_mean {
            verdict.failures.push(format!(
                "the step rate collapsed: {last_mean:.1} steps/s in the last third against {middle_mean:.1} in the \
                 middle third"
            ));
        }
    }
    verdict
}

/// A least-squares line through `(seconds, value)` points and the peaks of their
/// middle and last thirds.
struct Trend {
    mean: f64,
    /// Per second.
    slope: f64,
    /// What the line rises from the first point's time to the last's.
    growth: f64,
    middle_peak: f64,
    last_peak: f64,
}

impl Trend {
    fn of(points: &[(f64, f64)]) -> Option<Trend> {
        if points.len() < 3 {
            return None;
        }
        let n = points.len() as f64;
        let (mean_t, mean_v) =
            (points.iter().map(|p| p.0).sum::<f64>() / n, points.iter().map(|p| p.1).sum::<f64>() / n);
        let spread: f64 = points.iter().map(|p| (p.0 - mean_t).powi(2)).sum();
        if spread <= 0.0 {
            return None;
        }
        let slope = points.iter().map(|p| (p.0 - mean_t) * (p.1 - mean_v)).sum::<f64>() / spread;
        let span = points[points.len() - 1].0 - points[0].0;
        let (middle, last) = middle_and_last_thirds(points);
        let peak = |third: &[(f64, f64)]| third.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
        Some(Trend { mean: mean_v, slope, growth: slope * span, middle_peak: peak(middle), last_peak: peak(last) })
    }
}

/// The middle and last thirds of `points`, in order.
fn middle_and_last_thirds<T>(points: &[T]) -> (&[T], &[T]) {
    let third = points.len() / 3;
    (&points[third..points.len() - third], &points[points.len() - third..])
}

fn mean(points: &[(f64, f64)]) -> f64 {
    points.iter().map(|p| p.1).sum::<f64>() / points.len() as f64
}
