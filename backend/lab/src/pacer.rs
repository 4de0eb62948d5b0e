//! Paces a running lab against the wall clock: which step should have been reached by
//! now at a given real-time factor.

use std::time::{Duration, Instant};

/// Maps wall-clock time to a target step count, from an anchor (a wall instant and the
/// step the lab was at then). Re-anchored whenever the rate or mode changes, so a
/// change never causes a burst of catch-up steps.
#[derive(Clone, Debug)]
pub struct Pacer {
    dt_secs: f64,
    rate: f64,
    anchor_wall: Instant,
    anchor_step: u64,
}

impl Pacer {
    /// A pacer for steps of `dt_secs` at real-time factor `rate`, anchored at `(now, step)`.
    pub fn new(dt_secs: f64, rate: f64, now: Instant, step: u64) -> Pacer {
        debug_assert!(dt_secs > 0.0 && rate > 0.0);
        Pacer { dt_secs, rate, anchor_wall: now, anchor_step: step }
    }

    /// Restarts the schedule from `(now, step)`, dropping any backlog.
    pub fn reanchor(&mut self, now: Instant, step: u64) {
        self.anchor_wall = now;
        self.anchor_step = step;
    }

    /// Changes the real-time factor from `(now, step)` on.
    pub fn set_rate(&mut self, rate: f64, now: Instant, step: u64) {
        self.rate = rate;
        self.reanchor(now, step);
    }

    /// The step the lab should have reached at `now`.
    pub fn target_step(&self, now: Instant) -> u64 {
        let elapsed = now.saturating_duration_since(self.anchor_wall).as_secs_f64();
        self.anchor_step + (elapsed * self.rate / self.dt_secs).floor() as u64
    }

    /// The wall instant at which `step` is due.
    pub fn due_at(&self, step: u64) -> Instant {
        let steps = step.saturating_sub(self.anchor_step) as f64;
        self.anchor_wall + Duration::from_secs_f64(steps * self.dt_secs / self.rate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DT: f64 = 1.0 / 240.0;

    #[test]
    fn real_time_gives_240_steps_a_second() {
        let t0 = Instant::now();
        let pacer = Pacer::new(DT, 1.0, t0, 100);
        assert_eq!(pacer.target_step(t0), 100);
        assert_eq!(pacer.target_step(t0 + Duration::from_millis(500)), 220);
        assert_eq!(pacer.target_step(t0 + Duration::from_secs(2)), 580);
    }

    #[test]
    fn the_rate_scales_the_schedule() {
        let t0 = Instant::now();
        let fast = Pacer::new(DT, 4.0, t0, 0);
        let slow = Pacer::new(DT, 0.25, t0, 0);
        let one_second = t0 + Duration::from_secs(1);
        assert_eq!(fast.target_step(one_second), 960);
        assert_eq!(slow.target_step(one_second), 60);
    }

    #[test]
    fn reanchoring_drops_the_backlog() {
        let t0 = Instant::now();
        let mut pacer = Pacer::new(DT, 1.0, t0, 0);
        let later = t0 + Duration::from_secs(10);
        pacer.reanchor(later, 5);
        assert_eq!(pacer.target_step(later), 5);
    }

    #[test]
    fn due_at_inverts_target_step() {
        let t0 = Instant::now();
        let pacer = Pacer::new(DT, 2.0, t0, 10);
        let due = pacer.due_at(490);
        assert_eq!(pacer.target_step(due + Duration::from_micros(1)), 490);
        assert!(pacer.target_step(due - Duration::from_micros(100)) < 490);
    }
}
