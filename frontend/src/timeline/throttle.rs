//! At most one seek per interval while the thumb is dragged, the latest one held back until the interval is over, and always the last one on release.
//!
//! A drag fires dozens of input events a second; the server answers a page's seeks at
//! most every 50 ms and each answer carries a whole moment, so sending every event would
//! only queue stale moments. Pure: the caller passes the time and runs the timer.

/// Lets values through at most once per `interval_ms`.
#[derive(Clone, Debug, PartialEq)]
pub struct Throttle<T> {
    interval_ms: f64,
    last_sent_ms: Option<f64>,
    last_sent: Option<T>,
    held: Option<T>,
}

impl<T: Clone + PartialEq> Throttle<T> {
    /// A throttle letting one value through per `interval_ms`.
    pub fn new(interval_ms: f64) -> Throttle<T> {
        Throttle { interval_ms, last_sent_ms: None, last_sent: None, held: None }
    }

    fn ready(&self, now_ms: f64) -> bool {
        // A clock that went back (it should not) must not hold values forever.
        self.last_sent_ms.is_none_or(|last| now_ms - last >= self.interval_ms || now_ms < last)
    }

    fn sent(&mut self, now_ms: f64, value: T) -> T {
        self.last_sent_ms = Some(now_ms);
        self.last_sent = Some(value.clone());
        self.held = None;
        value
    }

    /// Offers `value` at `now_ms`: `Some` to send it now, `None` when it is held back
    /// (send it from [`Throttle::flush`] after [`Throttle::due_in`]).
    pub fn offer(&mut self, now_ms: f64, value: T) -> Option<T> {
        if self.ready(now_ms) {
            Some(self.sent(now_ms, value))
        } else {
            self.held = Some(value);
            None
        }
    }

    /// Milliseconds until the held value may go; `None` when nothing is held.
    pub fn due_in(&self, now_ms: f64) -> Option<f64> {
        self.held.as_ref()?;
        Some(self.last_sent_ms.map_or(0.0, |last| (last + self.interval_ms - now_ms).max(0.0)))
    }

    /// The held value, if its time has come.
    pub fn flush(&mut self, now_ms: f64) -> Option<T> {
        if self.held.is_some() && self.ready(now_ms) {
            let value = self.held.take()?;
            return Some(self.sent(now_ms, value));
        }
        None
    }

    /// The drag ended on `value`: it goes now whatever the interval (the moment shown
    /// must be where the thumb was let go), unless it is the value last sent.
    pub fn finish(&mut self, now_ms: f64, value: T) -> Option<T> {
        self.held = None;
        if self.last_sent.as_ref() == Some(&value) {
            return None;
        }
        Some(self.sent(now_ms, value))
    }

    /// Forgets what is held and what was sent (back to live: the next drag starts afresh).
    pub fn cancel(&mut self) {
        self.held = None;
        self.last_sent = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drag_sends_at_most_once_per_interval_and_the_latest_value_after_it() {
        let mut throttle = Throttle::new(100.0);
        assert_eq!(throttle.offer(0.0, 1), Some(1), "the first value goes at once");
        assert_eq!(throttle.offer(30.0, 2), None);
        assert_eq!(throttle.offer(60.0, 3), None);
        assert_eq!(throttle.due_in(60.0), Some(40.0));
        assert_eq!(throttle.flush(90.0), None, "too early");
        assert_eq!(throttle.flush(100.0), Some(3), "the latest held value, not the first");
        assert_eq!(throttle.due_in(100.0), None, "nothing held any more");
        assert_eq!(throttle.offer(150.0, 4), None);
        assert_eq!(throttle.offer(200.0, 5), Some(5), "an interval after the last send");
        assert_eq!(throttle.flush(400.0), None, "the held 4 was superseded by 5");
    }

    #[test]
    fn the_release_always_sends_unless_it_was_the_last_value_sent() {
        let mut throttle = Throttle::new(100.0);
        assert_eq!(throttle.offer(0.0, 1), Some(1));
        assert_eq!(throttle.offer(10.0, 2), None);
        assert_eq!(throttle.finish(20.0, 2), Some(2), "let go before the interval: sent anyway");
        assert_eq!(throttle.flush(500.0), None, "and not a second time");
        assert_eq!(throttle.finish(600.0, 2), None, "the keyboard's change after its input");
        throttle.cancel();
        assert_eq!(throttle.finish(700.0, 2), Some(2), "after going live the same step is a new seek");
    }

    #[test]
    fn a_clock_going_back_does_not_hold_values_forever() {
        let mut throttle = Throttle::new(100.0);
        assert_eq!(throttle.offer(1000.0, 1), Some(1));
        assert_eq!(throttle.offer(10.0, 2), Some(2));
    }
}
