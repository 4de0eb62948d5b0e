//! The arithmetic of a load run: frame delays from arrival times, percentiles, CPU
//! shares from `/proc` tick counts, and one viewer's counters summed over all.
//!
//! **Frame delay.** A frame carries the simulation time of its step, not the wall time
//! it was made at, and the server and the viewers share no clock. At a real-time factor
//! `rate`, step time `t` is due at wall time `t0 + t / rate`. For each frame a viewer
//! computes its *offset*, `arrival − t / rate` (arrival on the tool's monotonic clock);
//! on time, every offset would be the same constant `t0` plus the fixed cost of the
//! trip. The frame's delay is its offset minus the smallest offset that viewer saw in
//! the window (per scene epoch, since a reset starts time again): how much later than
//! the viewer's own best frame it arrived. It includes the server's pacing (frames are
//! built every 16 ms of wall time, after the step that was due), queueing in the
//! server's writer and the kernel, and this process's own scheduling; it excludes the
//! constant part of the trip, which no shared clock is there to measure. A lab that
//! falls behind real time (factor under 1) makes offsets grow through the window, and
//! the delays with them: that is the lag a viewer sees, and it is counted.

use std::collections::BTreeMap;

/// What one viewer saw during the measured window.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ViewerReport {
    /// Bytes of every message, text and binary.
    pub bytes: u64,
    /// Binary frames decoded.
    pub frames: u64,
    /// Poses in those frames.
    pub poses: u64,
    /// Text (JSON) messages.
    pub texts: u64,
    /// `drawn` messages the viewer sent.
    pub drawn_sent: u64,
    /// Binary messages `Frame::decode` refused.
    pub decode_errors: u64,
    /// Text messages that are not a `ServerMsg`.
    pub unreadable_texts: u64,
    /// `ServerMsg::Error`s the server sent (a viewer that only watches should get none).
    pub server_errors: u64,
    /// Scene snapshots received since connecting (before the window too).
    pub snapshots: u64,
    /// Each frame's offset (see the module's doc), seconds, with its scene epoch.
    pub offsets: Vec<(u32, f64)>,
    /// Why the connection ended before the window did, if it did.
    pub ended_early: Option<String>,
}

/// A frame's offset: its arrival (seconds on the tool's clock) less the wall time its
/// simulation time stands for at `rate`.
pub fn offset(arrival_secs: f64, frame_time: f64, rate: f64) -> f64 {
    arrival_secs - frame_time / rate
}

/// Each offset less the smallest of its epoch: the frames' delays, seconds, in order.
pub fn delays(offsets: &[(u32, f64)]) -> Vec<f64> {
    let mut smallest: BTreeMap<u32, f64> = BTreeMap::new();
    for &(epoch, offset) in offsets {
        let least = smallest.entry(epoch).or_insert(offset);
        *least = least.min(offset);
    }
    offsets.iter().map(|(epoch, offset)| offset - smallest[epoch]).collect()
}

/// The `p`-th percentile (0 to 100) of `sorted` (ascending), nearest rank: the
/// smallest value with at least `p`% of the values at or below it. `None` if empty.
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// CPU time as a percentage of one core: `ticks` of `ticks_per_second` (utime + stime
/// from `/proc/PID/stat`) over `wall_secs`.
pub fn cpu_percent(ticks: u64, ticks_per_second: u64, wall_secs: f64) -> f64 {
    ticks as f64 / ticks_per_second as f64 / wall_secs * 100.0
}

/// utime + stime (fields 14 and 15) of a `/proc/PID/stat` line. The command name
/// (field 2) may hold spaces and parentheses, so fields are counted after its last `)`.
pub fn stat_ticks(stat: &str) -> Option<u64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    let mut fields = after_name.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime + stime)
}

/// A per-viewer rate over the window: mean and smallest, per second.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spread {
    /// Mean over the viewers.
    pub mean: f64,
    /// The smallest viewer's.
    pub min: f64,
}

impl Spread {
    /// `values` (one per viewer, a count over the window) per second of `secs`.
    pub fn per_second(values: impl IntoIterator<Item = u64>, secs: f64) -> Spread {
        let rates: Vec<f64> = values.into_iter().map(|v| v as f64 / secs).collect();
        if rates.is_empty() {
            return Spread::default();
        }
        let mean = rates.iter().sum::<f64>() / rates.len() as f64;
        Spread { mean, min: rates.iter().copied().fold(f64::INFINITY, f64::min) }
    }
}

/// All viewers' window together.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ViewersSummary {
    /// Viewers whose report is summed.
    pub viewers: usize,
    /// Bytes per second per viewer.
    pub bytes: Spread,
    /// Frames per second per viewer.
    pub frames: Spread,
    /// `drawn` messages sent per second per viewer.
    pub drawn_sent: Spread,
    /// Frame delays (see the module's doc), seconds: median, 99th percentile, largest.
    pub delay_p50: Option<f64>,
    /// See `delay_p50`.
    pub delay_p99: Option<f64>,
    /// See `delay_p50`.
    pub delay_max: Option<f64>,
    /// Frames decoded, all viewers.
    pub frames_total: u64,
    /// Binary messages that were not frames, all viewers.
    pub decode_errors: u64,
    /// Text messages that were not server messages, all viewers.
    pub unreadable_texts: u64,
    /// Errors the server sent, all viewers.
    pub server_errors: u64,
    /// Viewers that got no scene snapshot at all.
    pub without_snapshot: usize,
    /// Viewers whose connection ended before the window did.
    pub ended_early: usize,
}

/// Sums `reports` over a window of `secs`; delays only with a real-time `rate` (`None`
/// when the lab runs as fast as it can: its time then stands for no wall time).
pub fn summarize(reports: &[ViewerReport], secs: f64, rate: Option<f64>) -> ViewersSummary {
    let mut all_delays: Vec<f64> = match rate {
        Some(_) => reports.iter().flat_map(|r| delays(&r.offsets)).collect(),
        None => Vec::new(),
    };
    all_delays.sort_by(f64::total_cmp);
    ViewersSummary {
        viewers: reports.len(),
        bytes: Spread::per_second(reports.iter().map(|r| r.bytes), secs),
        frames: Spread::per_second(reports.iter().map(|r| r.frames), secs),
        drawn_sent: Spread::per_second(reports.iter().map(|r| r.drawn_sent), secs),
        delay_p50: percentile(&all_delays, 50.0),
        delay_p99: percentile(&all_delays, 99.0),
        delay_max: all_delays.last().copied(),
        frames_total: reports.iter().map(|r| r.frames).sum(),
        decode_errors: reports.iter().map(|r| r.decode_errors).sum(),
        unreadable_texts: reports.iter().map(|r| r.unreadable_texts).sum(),
        server_errors: reports.iter().map(|r| r.server_errors).sum(),
        without_snapshot: reports.iter().filter(|r| r.snapshots == 0).count(),
        ended_early: reports.iter().filter(|r| r.ended_early.is_some()).count(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_turn_simulation_time_into_wall_time_at_the_rate() {
        assert_eq!(offset(10.0, 4.0, 1.0), 6.0);
        assert_eq!(offset(10.0, 4.0, 2.0), 8.0);
        assert_eq!(offset(10.0, 4.0, 0.5), 2.0);
    }

    #[test]
    fn delays_are_offsets_above_the_best_frame_of_their_epoch() {
        // Frames due every 1/60 s; the third arrives 5 ms late, the fourth 20 ms.
        let arrivals = [(0.0, 100.0), (1.0 / 60.0, 100.0 + 1.0 / 60.0), (2.0 / 60.0, 100.005 + 2.0 / 60.0)];
        let mut offsets: Vec<(u32, f64)> = arrivals.iter().map(|&(t, at)| (1, offset(at, t, 1.0))).collect();
        offsets.push((1, offset(100.07, 0.05, 1.0)));
        // A reset: epoch 2 starts its time at 0 again, much later on the wall clock.
        offsets.push((2, offset(200.0, 0.0, 1.0)));
        offsets.push((2, offset(200.1, 0.09, 1.0)));
        let delays = delays(&offsets);
        let expected = [0.0, 0.0, 0.005, 0.02, 0.0, 0.01];
        assert_eq!(delays.len(), expected.len());
        for (got, want) in delays.iter().zip(expected) {
            assert!((got - want).abs() < 1e-9, "{delays:?}");
        }
        assert!(super::delays(&[]).is_empty());
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let values: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&values, 50.0), Some(50.0));
        assert_eq!(percentile(&values, 99.0), Some(99.0));
        assert_eq!(percentile(&values, 100.0), Some(100.0));
        assert_eq!(percentile(&values, 0.0), Some(1.0));
        assert_eq!(percentile(&[7.0], 99.0), Some(7.0));
        assert_eq!(percentile(&[1.0, 2.0, 3.0], 50.0), Some(2.0));
        assert_eq!(percentile(&[], 50.0), None);
    }

    #[test]
    fn cpu_is_ticks_over_wall_time_as_a_share_of_one_core() {
        assert_eq!(cpu_percent(100, 100, 1.0), 100.0);
        assert_eq!(cpu_percent(150, 100, 2.0), 75.0);
        assert_eq!(cpu_percent(0, 100, 8.0), 0.0);
        // A command name with spaces and a parenthesis does not shift the fields.
        let stat = "4242 (vl (ab) x) S 1 4242 4242 0 -1 4194560 9 0 0 0 250 31 0 0 20 0 7 0 123 0 0";
        assert_eq!(stat_ticks(stat), Some(281));
        assert_eq!(stat_ticks("4242 (vlab) S 1"), None);
    }

    #[test]
    fn a_summary_adds_up_its_viewers() {
        let viewer = |frames: u64, bytes: u64, offsets: Vec<(u32, f64)>| ViewerReport {
            bytes,
            frames,
            poses: frames * 3,
            snapshots: 1,
            offsets,
            ..ViewerReport::default()
        };
        let reports = [
            viewer(120, 24_000, vec![(1, 5.0), (1, 5.004), (1, 5.002)]),
            ViewerReport { decode_errors: 2, snapshots: 0, ..viewer(60, 12_000, vec![(1, 9.0), (1, 9.1)]) },
        ];
        let summary = summarize(&reports, 2.0, Some(1.0));
        assert_eq!(summary.viewers, 2);
        assert_eq!(summary.frames, Spread { mean: 45.0, min: 30.0 });
        assert_eq!(summary.bytes, Spread { mean: 9_000.0, min: 6_000.0 });
        assert_eq!((summary.frames_total, summary.decode_errors, summary.without_snapshot), (180, 2, 1));
        // Delays: 0, 0.004, 0.002 and 0, 0.1 → sorted 0, 0, 0.002, 0.004, 0.1.
        assert!((summary.delay_p50.unwrap() - 0.002).abs() < 1e-9);
        assert!((summary.delay_max.unwrap() - 0.1).abs() < 1e-9);
        assert_eq!(summary.delay_p99, summary.delay_max);
        // As fast as it can: no delays, the counts still add up.
        let unpaced = summarize(&reports, 2.0, None);
        assert_eq!((unpaced.delay_p50, unpaced.frames_total), (None, 180));
    }
}
