//! What the timeline's slider covers: the steps of one run still recorded, from the summary the server sends and the live clock; step ↔ time on it; the run picker's choices; the note when the oldest part was dropped.
//!
//! The current run's slider reaches the live step (the summary's `last_step` lags by
//! the chunk being recorded, which the server reads too); an earlier run's ends where it
//! ended. Times come from the lab's step length on the current run, and from the run's
//! kept span on earlier ones (the step length may have been another then).

use vlab_protocol::{RecordingSummary, RunSummary};

use crate::timeline::time_text::{clock_text, length_text};

/// A step length to assume before the lab's State says one (the labs' default).
pub const DEFAULT_DT_SECS: f64 = 1.0 / 240.0;

/// The live end of the lab: its step and time now, and the length of one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LiveEnd {
    /// The newest step of the lab's clock.
    pub step: u64,
    /// Its simulation time, seconds.
    pub time: f64,
    /// Seconds per step.
    pub dt_secs: f64,
}

/// The slider's range over one run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Span {
    /// The run it covers.
    pub run: u32,
    /// Whether that is the run being recorded now (its right end is live).
    pub current: bool,
    /// The first step still recorded.
    pub first: u64,
    /// The last step: live on the current run.
    pub last: u64,
    /// Simulation time at `first`, seconds.
    pub first_time: f64,
    /// Simulation time at `last`, seconds.
    pub last_time: f64,
    /// The oldest part of the run was dropped to stay within the recording budget.
    pub dropped: bool,
}

impl Span {
    /// The slider over `run` (`None`: the current one), or `None` when that run is no
    /// longer kept.
    pub fn of(summary: &RecordingSummary, run: Option<u32>, live: LiveEnd) -> Option<Span> {
        match run {
            Some(run) if run != summary.run => summary.runs.iter().find(|r| r.run == run).map(Span::earlier),
            _ => Some(Span::current(summary, live)),
        }
    }

    fn current(summary: &RecordingSummary, live: LiveEnd) -> Span {
        // Nothing kept yet, or a summary of the run before a reset that has not caught
        // up: the slider holds the live step alone.
        let first = summary.first_step.unwrap_or(live.step).min(live.step);
        Span {
            run: summary.run,
            current: true,
            first,
            last: live.step,
            first_time: first as f64 * live.dt_secs,
            last_time: live.time,
            dropped: summary.dropped,
        }
    }

    fn earlier(run: &RunSummary) -> Span {
        Span {
            run: run.run,
            current: false,
            first: run.first_step,
            last: run.last_step.max(run.first_step),
            first_time: run.first_time,
            last_time: run.last_time,
            // Every run counts from step 0: one kept from later lost its start.
            dropped: run.first_step > 0,
        }
    }

    /// `step` brought within the span.
    pub fn clamp(&self, step: u64) -> u64 {
        step.clamp(self.first, self.last)
    }

    /// Simulation time at `step`, seconds: linear between the span's ends (steps are
    /// of one length within a run).
    pub fn time_at(&self, step: u64) -> f64 {
        if self.last <= self.first {
            return self.first_time;
        }
        let along = (self.clamp(step) - self.first) as f64 / (self.last - self.first) as f64;
        self.first_time + along * (self.last_time - self.first_time)
    }

    /// Whether there is anything to scrub: more than one step.
    pub fn scrubbable(&self) -> bool {
        self.last > self.first
    }

    /// The note under a slider whose run lost its oldest part.
    pub fn dropped_note(&self) -> Option<String> {
        self.dropped.then(|| {
            format!(
                "recording starts at {} — older dropped to stay within the lab's recording budget",
                clock_text(self.first_time)
            )
        })
    }
}

/// The first step of `run` still kept (0 when the summary knows nothing of it): where
/// an "up to this step" download starts.
pub fn first_kept_step(summary: &RecordingSummary, run: u32) -> u64 {
    if run == summary.run
        && let Some(first) = summary.first_step
    {
        return first;
    }
    summary.runs.iter().find(|r| r.run == run).map_or(0, |r| r.first_step)
}

/// One entry of the run picker.
#[derive(Clone, Debug, PartialEq)]
pub struct RunChoice {
    /// The run.
    pub run: u32,
    /// Whether it is the run going on now.
    pub current: bool,
    /// What the picker says: `Run 3 — now`, `Run 2 — 04:31 long`.
    pub label: String,
}

/// The runs to pick from: the current one first, then the earlier ones kept, newest
/// first. One entry alone means there is nothing to pick.
pub fn run_choices(summary: &RecordingSummary) -> Vec<RunChoice> {
    let now = RunChoice { run: summary.run, current: true, label: format!("Run {} — now", summary.run) };
    let earlier = summary.runs.iter().rev().filter(|r| r.run != summary.run).map(|r| RunChoice {
        run: r.run,
        current: false,
        // A run starts at time 0: its last kept time is how long it went on.
        label: format!("Run {} — {} long", r.run, length_text(r.last_time)),
    });
    std::iter::once(now).chain(earlier).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DT: f64 = 0.25;

    fn live(step: u64) -> LiveEnd {
        LiveEnd { step, time: step as f64 * DT, dt_secs: DT }
    }

    fn run(run: u32, first_step: u64, last_step: u64) -> RunSummary {
        RunSummary { run, first_step, last_step, first_time: first_step as f64 * DT, last_time: last_step as f64 * DT }
    }

    fn summary(first_step: Option<u64>, dropped: bool, runs: Vec<RunSummary>) -> RecordingSummary {
        RecordingSummary {
            run: 3,
            first_step,
            last_step: first_step.map(|f| f + 100),
            dropped,
            bytes: 1000,
            budget_bytes: 5000,
            runs,
        }
    }

    #[test]
    fn the_current_run_reaches_from_its_first_kept_step_to_the_live_one() {
        let kept = summary(Some(0), false, vec![run(3, 0, 100)]);
        let span = Span::of(&kept, None, live(400)).unwrap();
        assert_eq!((span.run, span.current, span.first, span.last), (3, true, 0, 400));
        assert_eq!(span.time_at(200), 50.0);
        assert_eq!(span.clamp(900), 400);
        assert_eq!(Span::of(&kept, Some(3), live(400)), Some(span), "the current run asked by number");
        assert!(span.dropped_note().is_none());
    }

    #[test]
    fn the_live_end_follows_the_clock() {
        let kept = summary(Some(0), false, vec![]);
        assert_eq!(Span::of(&kept, None, live(400)).unwrap().last, 400);
        assert_eq!(Span::of(&kept, None, live(480)).unwrap().last, 480);
    }

    #[test]
    fn nothing_kept_yet_or_a_lagging_summary_leaves_the_live_step_alone() {
        let empty = summary(None, false, vec![]);
        let span = Span::of(&empty, None, live(40)).unwrap();
        assert_eq!((span.first, span.last, span.scrubbable()), (40, 40, false));
        assert_eq!(span.time_at(40), 10.0);
        // Just after a reset: the clock is back near 0, the summary still at run 3's steps.
        let lagging = summary(Some(500), false, vec![]);
        let span = Span::of(&lagging, None, live(20)).unwrap();
        assert_eq!((span.first, span.last), (20, 20));
    }

    #[test]
    fn a_dropped_start_is_noted_with_the_time_the_recording_starts_at() {
        let trimmed = summary(Some(768), true, vec![run(3, 768, 900)]);
        let span = Span::of(&trimmed, None, live(1000)).unwrap();
        assert_eq!(span.first, 768);
        assert_eq!(
            span.dropped_note().as_deref(),
            Some("recording starts at 03:12.0 — older dropped to stay within the lab's recording budget")
        );
    }

    #[test]
    fn an_earlier_run_spans_what_is_kept_of_it() {
        let kept = summary(Some(0), false, vec![run(1, 40, 1084), run(2, 0, 600), run(3, 0, 100)]);
        let span = Span::of(&kept, Some(2), live(400)).unwrap();
        assert_eq!((span.run, span.current, span.first, span.last), (2, false, 0, 600));
        assert_eq!(span.time_at(300), 75.0);
        assert_eq!(span.clamp(9000), 600, "an earlier run ends where it ended, not at the live step");
        let first = Span::of(&kept, Some(1), live(400)).unwrap();
        assert!(first.dropped_note().unwrap().starts_with("recording starts at 00:10.0"));
        assert_eq!(Span::of(&kept, Some(7), live(400)), None, "a run no longer kept");
    }

    #[test]
    fn a_runs_first_kept_step_comes_from_the_summary() {
        let kept = summary(Some(768), true, vec![run(1, 40, 1084), run(3, 700, 900)]);
        assert_eq!(first_kept_step(&kept, 3), 768, "the current run's own bound, the freshest");
        assert_eq!(first_kept_step(&kept, 1), 40);
        assert_eq!(first_kept_step(&kept, 2), 0, "unknown: from the start");
    }

    #[test]
    fn the_run_picker_offers_now_then_earlier_runs_newest_first() {
        let kept = summary(Some(0), false, vec![run(1, 0, 1084), run(2, 0, 600), run(3, 0, 100)]);
        let labels: Vec<_> = run_choices(&kept).into_iter().map(|c| (c.run, c.current, c.label)).collect();
        assert_eq!(
            labels,
            vec![
                (3, true, "Run 3 — now".to_owned()),
                (2, false, "Run 2 — 02:30 long".to_owned()),
                (1, false, "Run 1 — 04:31 long".to_owned()),
            ]
        );
        assert_eq!(run_choices(&summary(Some(0), false, vec![run(3, 0, 100)])).len(), 1, "one run: nothing to pick");
        assert_eq!(run_choices(&summary(None, false, vec![])).len(), 1, "the current run even before it is kept");
    }
}
