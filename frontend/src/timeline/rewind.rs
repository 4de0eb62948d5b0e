//! Rewinding the lab from the timeline (the instructor's): when the bar offers it, what its confirmation says, and the request it sends.
//!
//! The server re-simulates the lab to a step of its current run and leaves it paused
//! there, in a new run (`POST /api/labs/{lab}/rewind {"step": N}`, docs/recording.md
//! "Rewinding the lab"). The bar offers it while the page shows a moment of the current
//! run, to those the permission table lets control time; an earlier run cannot be
//! rewound to, so it is not offered there.

use serde::Serialize;

use crate::api::Body;
use crate::page::lab_api_path;
use crate::timeline::replay::Shown;
use crate::timeline::time_text::clock_text;

/// The step the lab would go back to: the moment on screen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RewindPoint {
    /// The step shown (the last recorded one at or before the step asked).
    pub step: u64,
    /// Its simulation time, seconds.
    pub time: f64,
}

/// Where "Rewind the lab to here" goes: `Some` when this page may control time
/// (`may_control`, the permission table's `ControlTime`) and shows a moment of the
/// current run (`current_run`, from the recording summary).
pub fn rewind_point(may_control: bool, shown: Option<Shown>, current_run: Option<u32>) -> Option<RewindPoint> {
    let shown = shown?;
    (may_control && current_run == Some(shown.run)).then_some(RewindPoint { step: shown.step, time: shown.time })
}

/// The question the confirm row asks.
pub fn confirm_text(point: RewindPoint) -> String {
    format!("Everybody goes back to step {} ({}); programs start over. Rewind?", point.step, clock_text(point.time))
}

/// The body of `POST /api/labs/{lab}/rewind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RewindRequest {
    /// The step of the current run to go back to.
    pub step: u64,
}

/// The request's path and body.
pub fn rewind_request(lab: &str, point: RewindPoint) -> (String, Body) {
    (lab_api_path(lab, "/rewind"), Body::json(&RewindRequest { step: point.step }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(run: u32, step: u64) -> Shown {
        Shown { run, step, time: step as f64 / 240.0, asked: step + 3 }
    }

    #[test]
    fn offered_to_who_controls_time_on_a_moment_of_the_current_run() {
        let point = RewindPoint { step: 480, time: 2.0 };
        assert_eq!(rewind_point(true, Some(shown(2, 480)), Some(2)), Some(point), "the step shown, not the one asked");
        assert_eq!(rewind_point(false, Some(shown(2, 480)), Some(2)), None, "students and viewers");
        assert_eq!(rewind_point(true, Some(shown(1, 480)), Some(2)), None, "an earlier run");
        assert_eq!(rewind_point(true, None, Some(2)), None, "live, or nothing shown yet");
        assert_eq!(rewind_point(true, Some(shown(2, 480)), None), None, "no recording summary yet");
    }

    #[test]
    fn the_confirmation_names_the_step_and_its_time() {
        assert_eq!(
            confirm_text(RewindPoint { step: 46_188, time: 192.45 }),
            "Everybody goes back to step 46188 (03:12.4); programs start over. Rewind?"
        );
        assert_eq!(
            confirm_text(RewindPoint { step: 0, time: 0.0 }),
            "Everybody goes back to step 0 (00:00.0); programs start over. Rewind?"
        );
    }

    #[test]
    fn the_request_posts_the_step_to_the_labs_rewind() {
        let (url, body) = rewind_request("my lab", RewindPoint { step: 4800, time: 20.0 });
        assert_eq!(url, "/api/labs/my%20lab/rewind");
        assert_eq!(body, Body::Json(r#"{"step":4800}"#.into()));
    }
}
