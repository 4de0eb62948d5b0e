//! Simulation time as the timeline writes it: `mm:ss.s` at the thumb and the live end, `mm:ss` for a run's length.
//!
//! A lab's runs last minutes, sometimes an hour or more: minutes and seconds read at a
//! glance where a plain count of seconds does not; tenths are enough to tell two
//! moments of a drag apart.

/// Tenths of a second in `secs`, rounded down (a clock never shows a moment it has not
/// reached); negative or broken times read as 0.
fn tenths(secs: f64) -> u64 {
    // The small nudge keeps 0.3 s from reading as 0.2 s through binary rounding.
    if secs.is_finite() && secs > 0.0 { (secs * 10.0 + 1e-6).floor() as u64 } else { 0 }
}

/// `03:12.4`, or `1:03:12.4` past an hour.
pub fn clock_text(secs: f64) -> String {
    let tenths = tenths(secs);
    let (hours, minutes, seconds, tenth) = (tenths / 36_000, tenths / 600 % 60, tenths / 10 % 60, tenths % 10);
    if hours > 0 {
        format!("{hours}:{minutes:02}:{seconds:02}.{tenth}")
    } else {
        format!("{minutes:02}:{seconds:02}.{tenth}")
    }
}

/// `04:31`, or `1:04:31` past an hour: how long something lasted, to the second.
pub fn length_text(secs: f64) -> String {
    let seconds = tenths(secs) / 10;
    let (hours, minutes, seconds) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    if hours > 0 { format!("{hours}:{minutes:02}:{seconds:02}") } else { format!("{minutes:02}:{seconds:02}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_minutes_seconds_and_tenths() {
        assert_eq!(clock_text(0.0), "00:00.0");
        assert_eq!(clock_text(0.3), "00:00.3", "no binary rounding down to .2");
        assert_eq!(clock_text(12.96), "00:12.9", "rounded down: a moment not reached is not shown");
        assert_eq!(clock_text(192.45), "03:12.4");
        assert_eq!(clock_text(3599.99), "59:59.9");
        assert_eq!(clock_text(3792.0), "1:03:12.0");
        assert_eq!(clock_text(-1.0), "00:00.0");
        assert_eq!(clock_text(f64::NAN), "00:00.0");
    }

    #[test]
    fn lengths_read_to_the_second() {
        assert_eq!(length_text(271.9), "04:31");
        assert_eq!(length_text(0.5), "00:00");
        assert_eq!(length_text(3871.0), "1:04:31");
    }
}
