//! How much CPU one robot program needs per control step, against its share: whether
//! it is late, and whether it is so far over for so long that the lab stops it.
//!
//! The figures are the program's own CPU clock (its process's or its thread's), read
//! by the lab at each control step: a program is judged on what it computes, never on
//! how busy the machine is. Pure arithmetic on those readings, so the rules are tested
//! without running a program.

use std::time::Duration;

use vlab_protocol::Lateness;

/// The rules a lab applies to its programs' CPU use.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpuRules {
    /// A program this many times over its nominal share per step (the control period
    /// at 1×) is far over.
    pub far_over_factor: f64,
    /// A program stays far over for this much of its own CPU time before it is
    /// stopped: long enough for a heavy start or a burst, short enough that a runaway
    /// program does not live through the lesson.
    pub far_over_for: Duration,
    /// Weight of the newest answer in the smoothed figure (0..1]: a single slow step (a
    /// garbage collection) does not make a program late.
    pub smoothing: f64,
    /// A late program is on time again once its smoothed figure drops below this
    /// fraction of its share (so the badge does not flicker).
    pub on_time_below: f64,
}

impl Default for CpuRules {
    fn default() -> CpuRules {
        CpuRules { far_over_factor: 4.0, far_over_for: Duration::from_secs(10), smoothing: 0.25, on_time_below: 0.8 }
    }
}

/// What a reading of a program's CPU clock says.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Verdict {
    /// Within its share, as before.
    OnTime,
    /// Just went over its share.
    BecameLate(Lateness),
    /// Still over its share (the figure may have changed).
    StillLate(Lateness),
    /// Back within its share.
    OnTimeAgain,
    /// Far over its share for too long: stop it.
    FarOver {
        /// Its smoothed CPU per control step, milliseconds.
        cpu_ms: f64,
        /// Its nominal share per step, milliseconds.
        share_ms: f64,
        /// How much of its CPU time it spent far over, seconds.
        for_secs: f64,
    },
}

/// The CPU account of one running program.
#[derive(Clone, Debug)]
pub struct CpuMeter {
    rules: CpuRules,
    /// The control period at 1×: the CPU a program may use per step.
    nominal_share: Duration,
    /// Its clock at its last answer (or when it joined).
    at_last_answer: Duration,
    /// Smoothed CPU per answered step, seconds.
    smoothed: f64,
    late: bool,
    /// Its clock when it went far over, while it is.
    far_over_since: Option<Duration>,
}

impl CpuMeter {
    /// The account of a program that joins now, its CPU clock reading `cpu_now`, with
    /// a share of `nominal_share` per control step at 1×.
    pub fn new(rules: CpuRules, nominal_share: Duration, cpu_now: Duration) -> CpuMeter {
        CpuMeter { rules, nominal_share, at_last_answer: cpu_now, smoothed: 0.0, late: false, far_over_since: None }
    }

    /// Whether it is late now.
    pub fn is_late(&self) -> bool {
        self.late
    }

    /// It answered a step, its clock reading `cpu_now`; `share` is the wall time a
    /// control step lasts at the lab's rate now (the nominal share at 1×).
    pub fn answered(&mut self, cpu_now: Duration, share: Duration) -> Verdict {
        let spent = cpu_now.saturating_sub(self.at_last_answer).as_secs_f64();
        self.at_last_answer = cpu_now;
        self.smoothed = if self.smoothed == 0.0 {
            spent
        } else {
            self.rules.smoothing * spent + (1.0 - self.rules.smoothing) * self.smoothed
        };
        self.judge(self.smoothed, cpu_now, share)
    }

    /// It has not answered yet at a control step, its clock reading `cpu_now`: what it
    /// has spent on this answer so far counts as soon as it is more than its figure.
    pub fn waiting(&mut self, cpu_now: Duration, share: Duration) -> Verdict {
        let pending = cpu_now.saturating_sub(self.at_last_answer).as_secs_f64();
        self.judge(pending.max(self.smoothed), cpu_now, share)
    }

    fn judge(&mut self, per_step: f64, cpu_now: Duration, share: Duration) -> Verdict {
        let far_over = per_step > self.rules.far_over_factor * self.nominal_share.as_secs_f64();
        match (far_over, self.far_over_since) {
            (true, None) => self.far_over_since = Some(cpu_now),
            (true, Some(since)) if cpu_now.saturating_sub(since) >= self.rules.far_over_for => {
                return Verdict::FarOver {
                    cpu_ms: per_step * 1e3,
                    share_ms: self.nominal_share.as_secs_f64() * 1e3,
                    for_secs: cpu_now.saturating_sub(since).as_secs_f64(),
                };
            }
            (true, Some(_)) => {}
            (false, _) => self.far_over_since = None,
        }
        let share_secs = share.as_secs_f64();
        let lateness = Lateness::cpu(per_step * 1e3, share_secs * 1e3);
        match self.late {
            false if per_step > share_secs => {
                self.late = true;
                Verdict::BecameLate(lateness)
            }
            false => Verdict::OnTime,
            true if per_step < self.rules.on_time_below * share_secs => {
                self.late = false;
                Verdict::OnTimeAgain
            }
            true => Verdict::StillLate(lateness),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHARE: Duration = Duration::from_millis(20);

    fn ms(ms: u64) -> Duration {
        Duration::from_millis(ms)
    }

    /// Answers with `per_step` of CPU each, `n` times from clock `clock`; the verdicts.
    fn answers(meter: &mut CpuMeter, clock: &mut Duration, per_step: Duration, n: usize) -> Vec<Verdict> {
        (0..n)
            .map(|_| {
                *clock += per_step;
                meter.answered(*clock, SHARE)
            })
            .collect()
    }

    #[test]
    fn a_program_within_its_share_is_on_time() {
        let mut clock = ms(300);
        let mut meter = CpuMeter::new(CpuRules::default(), SHARE, clock);
        assert!(answers(&mut meter, &mut clock, ms(5), 100).iter().all(|v| *v == Verdict::OnTime));
        assert!(!meter.is_late());
    }

    #[test]
    fn a_heavy_program_becomes_late_once_then_stays_late_with_its_figure() {
        let mut clock = Duration::ZERO;
        let mut meter = CpuMeter::new(CpuRules::default(), SHARE, clock);
        let verdicts = answers(&mut meter, &mut clock, ms(45), 20);
        assert_eq!(verdicts[0], Verdict::BecameLate(Lateness::cpu(45.0, 20.0)));
        assert!(verdicts[1..].iter().all(|v| matches!(v, Verdict::StillLate(l) if (l.cpu_ms - 45.0).abs() < 1e-6)));
        assert_eq!(Lateness::cpu(45.0, 20.0).badge(), "late: 45 ms of CPU per 20 ms step");
    }

    #[test]
    fn one_slow_step_is_smoothed_away_and_lateness_has_hysteresis() {
        let mut clock = Duration::ZERO;
        let mut meter = CpuMeter::new(CpuRules::default(), SHARE, clock);
        answers(&mut meter, &mut clock, ms(10), 10);
        // A 60 ms garbage collection among 10 ms steps: smoothed, 22.5 ms: late.
        assert!(matches!(answers(&mut meter, &mut clock, ms(60), 1)[0], Verdict::BecameLate(_)));
        // Back to 10 ms steps: still late at 19 ms (above 16 ms), on time once below.
        let back = answers(&mut meter, &mut clock, ms(10), 10);
        assert!(matches!(back[0], Verdict::StillLate(_)));
        let again = back.iter().position(|v| *v == Verdict::OnTimeAgain).expect("on time again");
        assert!(back[again + 1..].iter().all(|v| *v == Verdict::OnTime));
    }

    #[test]
    fn the_share_follows_the_rate() {
        let mut clock = Duration::ZERO;
        let mut meter = CpuMeter::new(CpuRules::default(), SHARE, clock);
        clock += ms(8);
        // At 4× a control step lasts 5 ms of wall time: 8 ms of CPU is late.
        assert_eq!(meter.answered(clock, ms(5)), Verdict::BecameLate(Lateness::cpu(8.0, 5.0)));
    }

    #[test]
    fn a_program_far_over_is_stopped_after_ten_seconds_of_its_cpu() {
        let mut clock = Duration::ZERO;
        let mut meter = CpuMeter::new(CpuRules::default(), SHARE, clock);
        // 100 ms per 20 ms step (5× its share): 100 answers make 10 s of CPU.
        let verdicts = answers(&mut meter, &mut clock, ms(100), 102);
        let stop = verdicts.iter().position(|v| matches!(v, Verdict::FarOver { .. })).expect("stopped");
        assert_eq!(stop, 100, "far over from the first answer; 10 s of CPU later it is stopped");
        let Verdict::FarOver { cpu_ms, share_ms, for_secs } = verdicts[stop] else { unreachable!() };
        assert_eq!((cpu_ms.round(), share_ms, for_secs), (100.0, 20.0, 10.0));
    }

    #[test]
    fn dropping_below_far_over_starts_the_count_again() {
        let mut clock = Duration::ZERO;
        let rules = CpuRules { smoothing: 1.0, ..CpuRules::default() };
        let mut meter = CpuMeter::new(rules, SHARE, clock);
        for _ in 0..10 {
            // 9 s far over, then one light step: never 10 s in a row.
            assert!(answers(&mut meter, &mut clock, ms(100), 90).iter().all(|v| !matches!(v, Verdict::FarOver { .. })));
            answers(&mut meter, &mut clock, ms(10), 1);
        }
    }

    #[test]
    fn a_program_that_never_answers_is_late_then_stopped_while_it_burns_cpu() {
        let mut meter = CpuMeter::new(CpuRules::default(), SHARE, ms(50));
        // The lab looks at every control step; the program burns 20 ms each time.
        let verdicts: Vec<_> = (1..=600).map(|i| meter.waiting(ms(50 + 20 * i), SHARE)).collect();
        assert!(matches!(verdicts[1], Verdict::BecameLate(l) if l.cpu_ms == 40.0));
        let stop = verdicts.iter().position(|v| matches!(v, Verdict::FarOver { .. })).expect("stopped");
        // Far over past 80 ms of pending CPU (i = 5), stopped 10 s of CPU later.
        assert_eq!(stop + 1, 5 + 500);
    }

    #[test]
    fn a_blocked_program_uses_no_cpu_and_is_not_judged_late() {
        let mut meter = CpuMeter::new(CpuRules::default(), SHARE, ms(50));
        assert!((0..100).all(|_| meter.waiting(ms(51), SHARE) == Verdict::OnTime));
    }
}
