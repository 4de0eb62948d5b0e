//! Whether a robot's program or remote controller keeps the lab waiting, apart from its
//! CPU (that is `cpu_meter`'s): in a real-time lab, whether it reads the readings it is
//! sent ([`ReadMeter`]); in a lockstep lab, whether the lab waits too long for its
//! answers too often ([`SlowAnswers`]); and for a remote controller let go of for a
//! fault, how long its robot waits before another may attach ([`Reattach`]). Pure
//! bookkeeping on what the lab saw, so the rules are tested without running anything.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use vlab_protocol::Lateness;

/// A program whose readings are still partly unread at this many control steps in a
/// row is late: two, so a program that reads a moment after the first look (a busy
/// machine) is not, while one that sleeps before reading is after about 40 ms at 1×.
pub const UNREAD_LOOKS_LATE: u32 = 2;

/// A program late for not reading is on time again once it has read this many
/// readings in a row before the lab's next look: a program that sleeps before every
/// read stays late rather than flickering with each answer.
pub const PROMPT_READS_ON_TIME: u32 = 10;

/// An answer a lockstep lab waited longer than this for (wall time, while the program
/// computed less than half of it) is slow: 100 ms is five control steps at 1×, so a lab
/// held that long at every step runs below a fifth of real time.
pub const SLOW_ANSWER: Duration = Duration::from_millis(100);

/// The answers [`SlowAnswers`] remembers.
pub const SLOW_ANSWERS_WINDOW: usize = 20;

/// A program or controller with this many slow answers among its latest
/// [`SLOW_ANSWERS_WINDOW`] is stopped (detached): half of them, so a network hiccup or a
/// garbage collection now and then is forgiven, and one slow at every step holds the
/// class for ten answers (4.5 s at 450 ms each), not for the lesson.
pub const SLOW_ANSWERS_LIMIT: usize = 10;

/// The wait before a robot's remote controller may attach again after its second fault
/// in a row; it doubles with each further fault, up to [`REATTACH_MAX_WAIT`]. The first
/// fault costs no wait: a client back from a breakpoint carries on at once.
pub const REATTACH_FIRST_WAIT: Duration = Duration::from_secs(1);

/// The longest wait before attaching again: a controller let go of for a fault every
/// time then costs a lockstep lab at most one step budget (500 ms) a minute.
pub const REATTACH_MAX_WAIT: Duration = Duration::from_secs(60);

/// A controller that stayed attached this long before its fault starts a new count:
/// its earlier faults are forgotten.
pub const FAULTS_FORGOTTEN_AFTER: Duration = Duration::from_secs(60);

/// What the lab's look at a program's reading said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadVerdict {
    /// Reading as it should (or late, as it was).
    Unchanged,
    /// Has just become late: it has not read its last readings.
    BecameLate,
    /// Reads promptly again.
    OnTimeAgain,
}

/// Whether one program in a real-time lab reads the readings it is sent.
#[derive(Clone, Debug, Default)]
pub struct ReadMeter {
    /// Control steps in a row at which its latest readings were still partly unread.
    unread_looks: u32,
    /// Readings in a row read before the lab's next look, while late.
    prompt_reads: u32,
    late: bool,
}

impl ReadMeter {
    /// Whether it is late for not reading.
    pub fn is_late(&self) -> bool {
        self.late
    }

    /// A control step at which its answer has not come: `unread` bytes of its readings
    /// it has not read yet.
    pub fn looked(&mut self, unread: usize) -> ReadVerdict {
        if unread == 0 {
            return ReadVerdict::Unchanged;
        }
        self.unread_looks += 1;
        self.prompt_reads = 0;
        if self.unread_looks >= UNREAD_LOOKS_LATE && !self.late {
            self.late = true;
            return ReadVerdict::BecameLate;
        }
        ReadVerdict::Unchanged
    }

    /// Its answer came.
    pub fn answered(&mut self) -> ReadVerdict {
        let prompt = self.unread_looks == 0;
        self.unread_looks = 0;
        if !self.late {
            return ReadVerdict::Unchanged;
        }
        self.prompt_reads = if prompt { self.prompt_reads + 1 } else { 0 };
        if self.prompt_reads >= PROMPT_READS_ON_TIME {
            self.late = false;
            self.prompt_reads = 0;
            return ReadVerdict::OnTimeAgain;
        }
        ReadVerdict::Unchanged
    }
}

/// What one answer in a lockstep lab did to the account of slow answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlowVerdict {
    /// Nothing new.
    Unchanged,
    /// The first slow answer among the latest: it holds the lab now.
    BecameSlow {
        /// Slow answers among the latest.
        slow: usize,
    },
    /// None of the latest answers is slow any more.
    FastAgain,
    /// [`SLOW_ANSWERS_LIMIT`] of the latest answers were slow: stop it.
    TooMany {
        /// Slow answers among the latest.
        slow: usize,
    },
}

/// The latest answers a lockstep lab waited for, slow or not.
#[derive(Clone, Debug, Default)]
pub struct SlowAnswers {
    recent: VecDeque<bool>,
    slow: usize,
}

impl SlowAnswers {
    /// Whether the lab waiting `waited` for an answer (less the time the program waited
    /// for a CPU meanwhile: a busy machine is not the student's doing), while the
    /// program computed for `computed` of its own CPU time (`None`: not ours to read, a
    /// remote controller), makes it slow: a program computing is the CPU meter's to
    /// judge.
    pub fn is_slow(waited: Duration, computed: Option<Duration>) -> bool {
        waited > SLOW_ANSWER && computed.is_none_or(|cpu| cpu < waited / 2)
    }

    /// Slow answers among the latest.
    pub fn slow(&self) -> usize {
        self.slow
    }

    /// One more answer, slow or not.
    pub fn record(&mut self, slow: bool) -> SlowVerdict {
        let before = self.slow;
        if self.recent.len() == SLOW_ANSWERS_WINDOW && self.recent.pop_front() == Some(true) {
            self.slow -= 1;
        }
        self.recent.push_back(slow);
        self.slow += usize::from(slow);
        match (before, self.slow) {
            (_, now) if now >= SLOW_ANSWERS_LIMIT => SlowVerdict::TooMany { slow: now },
            (0, now) if now > 0 => SlowVerdict::BecameSlow { slow: now },
            (then, 0) if then > 0 => SlowVerdict::FastAgain,
            _ => SlowVerdict::Unchanged,
        }
    }
}

/// When a robot's remote controller may attach again, after faults.
#[derive(Clone, Copy, Debug, Default)]
pub struct Reattach {
    /// Faults in a row (none forgotten yet).
    faults: u32,
    /// No attaching before this.
    not_before: Option<Instant>,
}

impl Reattach {
    /// The wait after `faults` faults in a row.
    pub fn wait_after(faults: u32) -> Duration {
        match faults {
            0 | 1 => Duration::ZERO,
            n => REATTACH_FIRST_WAIT.saturating_mul(1 << (n - 2).min(16)).min(REATTACH_MAX_WAIT),
        }
    }

    /// Its controller was let go of for a fault at `now`, after `attached_for`
    /// attached: the wait before the next may attach.
    pub fn fault(&mut self, now: Instant, attached_for: Duration) -> Duration {
        self.faults = if attached_for >= FAULTS_FORGOTTEN_AFTER { 1 } else { self.faults + 1 };
        let wait = Reattach::wait_after(self.faults);
        self.not_before = Some(now + wait);
        wait
    }

    /// Faults in a row.
    pub fn faults(&self) -> u32 {
        self.faults
    }

    /// How long until another controller may attach (`None`: it may now).
    pub fn wait_left(&self, now: Instant) -> Option<Duration> {
        let left = self.not_before?.checked_duration_since(now)?;
        (!left.is_zero()).then_some(left)
    }
}

/// Which of a program's lateness its status shows, of `cpu` (the CPU meter's) and
/// `holding` (unread readings, or slow lockstep answers): holding a lockstep lab first
/// (the whole class waits), then its CPU (the cause, and what its owner can change),
/// then its unread readings (what a program short of CPU, or one that stopped reading,
/// leaves behind).
pub fn shown_lateness(cpu: Option<Lateness>, holding: Option<Lateness>) -> Option<Lateness> {
    match holding {
        Some(held) if held.waited_ms.is_some() => Some(held),
        holding => cpu.or(holding),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_shows_holding_the_lab_then_the_cpu_then_unread_readings() {
        let cpu = Lateness::cpu(45.0, 21.0);
        let unread = Lateness { unread_bytes: Some(2048), ..Lateness::cpu(0.0, 0.0) };
        let waited = Lateness { waited_ms: Some(450.0), ..Lateness::cpu(0.0, 0.0) };
        assert_eq!(shown_lateness(Some(cpu), Some(unread)), Some(cpu), "the cause, not what it leaves behind");
        assert_eq!(shown_lateness(None, Some(unread)), Some(unread));
        assert_eq!(shown_lateness(Some(cpu), Some(waited)), Some(waited), "the whole class waits");
        assert_eq!(shown_lateness(Some(cpu), None), Some(cpu));
        assert_eq!(shown_lateness(None, None), None);
    }

    #[test]
    fn a_program_that_does_not_read_is_late_at_the_second_look_and_on_time_after_prompt_reads() {
        let mut meter = ReadMeter::default();
        assert_eq!(meter.looked(0), ReadVerdict::Unchanged, "all read: nothing to say");
        assert_eq!(meter.looked(1024), ReadVerdict::Unchanged, "one look with bytes unread is forgiven");
        assert_eq!(meter.answered(), ReadVerdict::Unchanged);
        assert_eq!(meter.looked(1024), ReadVerdict::Unchanged);
        assert_eq!(meter.looked(1024), ReadVerdict::BecameLate, "the second look in a row");
        assert!(meter.is_late());
        assert_eq!(meter.looked(1024), ReadVerdict::Unchanged, "said once");
        assert_eq!(meter.answered(), ReadVerdict::Unchanged, "answering late is not reading promptly");
        for _ in 1..PROMPT_READS_ON_TIME {
            assert_eq!(meter.answered(), ReadVerdict::Unchanged);
        }
        assert_eq!(meter.answered(), ReadVerdict::OnTimeAgain, "the tenth prompt read in a row");
        assert!(!meter.is_late());
    }

    #[test]
    fn a_program_that_sleeps_before_every_read_stays_late() {
        let mut meter = ReadMeter::default();
        for _ in 0..50 {
            meter.looked(230_000);
            meter.looked(230_000);
            meter.answered();
            assert!(meter.is_late());
        }
    }

    #[test]
    fn ten_slow_answers_among_the_last_twenty_stop_it_nine_do_not() {
        let mut answers = SlowAnswers::default();
        assert_eq!(answers.record(true), SlowVerdict::BecameSlow { slow: 1 });
        for _ in 0..SLOW_ANSWERS_WINDOW - 1 {
            assert_ne!(answers.record(false), SlowVerdict::TooMany { slow: 1 });
        }
        assert_eq!(answers.record(false), SlowVerdict::FastAgain, "the slow one left the window");
        // Nine slow in every twenty, for long: never stopped.
        for i in 0..200 {
            let verdict = answers.record(i % 20 < 9);
            assert!(!matches!(verdict, SlowVerdict::TooMany { .. }), "answer {i}: {verdict:?}");
        }
        let mut answers = SlowAnswers::default();
        for _ in 0..SLOW_ANSWERS_LIMIT - 1 {
            answers.record(true);
        }
        assert_eq!(answers.slow(), SLOW_ANSWERS_LIMIT - 1);
        assert_eq!(answers.record(true), SlowVerdict::TooMany { slow: SLOW_ANSWERS_LIMIT });
    }

    #[test]
    fn a_slow_answer_is_a_long_wait_without_computing() {
        let ms = Duration::from_millis;
        assert!(!SlowAnswers::is_slow(SLOW_ANSWER, None), "at the edge: not slow");
        assert!(SlowAnswers::is_slow(SLOW_ANSWER + ms(1), None), "just over, a remote controller");
        assert!(SlowAnswers::is_slow(ms(450), Some(ms(5))), "a program asleep");
        assert!(!SlowAnswers::is_slow(ms(450), Some(ms(300))), "a program computing: the CPU meter's");
    }

    #[test]
    fn the_wait_before_attaching_again_doubles_from_the_second_fault_up_to_a_minute() {
        let waits: Vec<u64> = (1..=9).map(|n| Reattach::wait_after(n).as_secs()).collect();
        assert_eq!(waits, [0, 1, 2, 4, 8, 16, 32, 60, 60]);
        assert_eq!(Reattach::wait_after(1000), REATTACH_MAX_WAIT);
        let now = Instant::now();
        let mut reattach = Reattach::default();
        assert_eq!(reattach.wait_left(now), None);
        assert_eq!(reattach.fault(now, Duration::from_secs(1)), Duration::ZERO, "the first fault is free");
        assert_eq!(reattach.wait_left(now), None);
        assert_eq!(reattach.fault(now, Duration::from_secs(1)), REATTACH_FIRST_WAIT);
        assert_eq!(reattach.wait_left(now), Some(REATTACH_FIRST_WAIT));
        assert_eq!(reattach.wait_left(now + REATTACH_FIRST_WAIT), None, "at the edge it may attach");
        assert_eq!(reattach.fault(now, FAULTS_FORGOTTEN_AFTER - Duration::from_millis(1)), 2 * REATTACH_FIRST_WAIT);
        assert_eq!(reattach.fault(now, FAULTS_FORGOTTEN_AFTER), Duration::ZERO, "a long good run forgets");
        assert_eq!(reattach.faults(), 1);
    }
}
