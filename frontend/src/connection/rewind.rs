//! Noticing that the lab's simulation time went back: whatever the page gathered over time (plots, trails) must start over.
//!
//! A reset puts the lab back at time 0, and so does a restarted server. The scene epoch
//! is no sign of it: adding or removing a robot changes the epoch too, while the lab's
//! time goes on, and a student's plot must not vanish because a classmate added a robot.

/// The newest simulation time seen.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RewindWatch {
    newest: Option<f64>,
}

impl RewindWatch {
    /// Records `time` (seconds); `true` when it is earlier than the newest seen: the lab
    /// went back, and what came before belongs to another run.
    pub fn went_back(&mut self, time: f64) -> bool {
        if !time.is_finite() {
            return false;
        }
        let back = self.newest.is_some_and(|newest| time < newest);
        self.newest = Some(if back { time } else { self.newest.map_or(time, |newest| newest.max(time)) });
        back
    }

    /// Forgets the newest time (another robot, another lab run to follow).
    pub fn forget(&mut self) {
        self.newest = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_going_back_is_a_rewind_and_standing_still_is_not() {
        let mut watch = RewindWatch::default();
        assert!(!watch.went_back(5.0), "the first time seen");
        assert!(!watch.went_back(5.0), "a paused lab repeats its time");
        assert!(!watch.went_back(5.1));
        assert!(watch.went_back(0.0), "a reset");
        assert!(!watch.went_back(0.1), "the new run goes on from there");
        assert!(!watch.went_back(f64::NAN), "a broken time says nothing");
        assert!(watch.went_back(0.05));
    }

    #[test]
    fn forgetting_starts_over() {
        let mut watch = RewindWatch::default();
        watch.went_back(9.0);
        watch.forget();
        assert!(!watch.went_back(1.0));
    }
}
