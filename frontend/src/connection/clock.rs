//! The lab clock the toolbar shows: step and sim time from the newest State or Frame, and how to print them.
//!
//! Frames and State messages travel separate paths on the server, so a frame may arrive
//! just after the State that followed it (a pause): "newest" is the highest step of the
//! scene epoch, and a new epoch (a reset) starts over.

use vlab_protocol::{Frame, LabState, Rate};

/// Step and simulation time at the newest message.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Clock {
    /// The scene epoch the step counts in.
    pub epoch: u32,
    /// Physics steps since the last reset.
    pub step: u64,
    /// Simulation seconds since the last reset.
    pub time_secs: f64,
}

impl Clock {
    /// The clock a State message announces.
    pub fn from_state(state: &LabState) -> Clock {
        Clock { epoch: state.epoch, step: state.step, time_secs: state.time }
    }

    /// The clock a Frame carries.
    pub fn from_frame(frame: &Frame) -> Clock {
        Clock { epoch: frame.epoch, step: frame.step, time_secs: frame.time }
    }

    /// Takes `next` if it is newer: another epoch, or the same epoch at a step at least
    /// as far. Returns whether it did.
    pub fn advance(&mut self, next: Clock) -> bool {
        if next.epoch != self.epoch || next.step >= self.step {
            *self = next;
            true
        } else {
            false
        }
    }

    /// `12.345 s`: millisecond resolution, enough to see a single 1/240 s step.
    pub fn time_text(&self) -> String {
        format!("{:.3} s", self.time_secs)
    }

    /// The `data-time` attribute: seconds as a plain number.
    pub fn time_attr(&self) -> String {
        format!("{}", self.time_secs)
    }

    /// `step 12 345`, grouped by thousands for reading at a glance.
    pub fn step_text(&self) -> String {
        let digits = self.step.to_string();
        let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                grouped.push('\u{202f}');
            }
            grouped.push(c);
        }
        format!("step {grouped}")
    }
}

/// The rate-select option value for a rate: `0.1` … `10`, or `max`.
pub fn rate_option_value(rate: Rate) -> String {
    match rate {
        Rate::RealTime(factor) => format!("{factor}"),
        Rate::Max => "max".to_owned(),
    }
}

/// The rate an option value stands for; `None` for text that is neither a number nor `max`.
pub fn rate_from_option_value(value: &str) -> Option<Rate> {
    if value.eq_ignore_ascii_case("max") {
        return Some(Rate::Max);
    }
    value.parse::<f64>().ok().map(Rate::RealTime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_is_shown_to_the_millisecond_and_exposed_plainly() {
        let clock = Clock { epoch: 0, step: 2963, time_secs: 12.345_678 };
        assert_eq!(clock.time_text(), "12.346 s");
        assert_eq!(clock.time_attr(), "12.345678");
        assert_eq!(Clock::default().time_attr(), "0");
    }

    #[test]
    fn steps_are_grouped_by_thousands() {
        let text = |step| Clock { epoch: 0, step, time_secs: 0.0 }.step_text();
        assert_eq!(text(0), "step 0");
        assert_eq!(text(999), "step 999");
        assert_eq!(text(1234), "step 1\u{202f}234");
        assert_eq!(text(1_234_567), "step 1\u{202f}234\u{202f}567");
    }

    #[test]
    fn a_late_frame_does_not_wind_the_clock_back_but_a_reset_does() {
        let at = |epoch, step| Clock { epoch, step, time_secs: step as f64 / 240.0 };
        let mut clock = at(1, 100);
        assert!(!clock.advance(at(1, 96)), "a frame sent before the pause's State");
        assert_eq!(clock, at(1, 100));
        assert!(clock.advance(at(1, 100)));
        assert!(clock.advance(at(2, 0)), "reset: a new epoch starts at step 0");
        assert_eq!(clock, at(2, 0));
    }

    #[test]
    fn rate_options_round_trip() {
        for value in ["0.1", "0.25", "0.5", "1", "2", "5", "10", "max"] {
            assert_eq!(rate_option_value(rate_from_option_value(value).unwrap()), value);
        }
        assert_eq!(rate_from_option_value("fast"), None);
    }
}
