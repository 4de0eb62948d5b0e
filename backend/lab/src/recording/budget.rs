//! How much of each robot the recording keeps: at most
//! [`MAX_RECORDED_BYTES_PER_ROBOT_PER_SEC`] of its records (readings, the radio's
//! included, console lines, estimates, commands) per second of simulation time, counted
//! as the JSON they are kept as. One robot's flood then cannot eat the lab's history:
//! past its budget its records are left out until the next second, and other robots'
//! are untouched.

use std::collections::BTreeMap;
use std::io::Write;

use serde::Serialize;

/// The most bytes of one robot's records the recording keeps per second of simulation
/// time (whole seconds: 0 to 1 s, 1 to 2 s, ...), as JSON before compression. 128 KiB:
/// more than twice what a demo cart's readings take (a 91-beam lidar at 10 Hz and seven
/// sensors at 20 Hz: about 56 KB a second) or a classroom diffbot's (a 180-beam lidar
/// at 10 Hz and odometry: about 52 KB), leaving room for a program's estimates, console
/// and commands; a robot with a catalogue-default `Lidar` (361 beams at 40 Hz, about 164
/// KB a second) is kept at about 32 of its 40 scans a second. A robot hearing eleven
/// radios at their whole budget (`lab::radio`, 16 KiB a second each) is over it: twelve
/// robots flooding the radio once kept 1 to 1.5 MB a second after compression and
/// emptied a lab's 512 MiB in minutes.
pub const MAX_RECORDED_BYTES_PER_ROBOT_PER_SEC: usize = 128 * 1024;

/// What the recording does with one robot's record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Kept, within the robot's budget.
    Keep,
    /// Left out: the robot is over its budget this second.
    Drop,
    /// Left out, the first of this second: the recording says the robot is thinned.
    DropAndSay,
}

/// Each robot's bytes recorded in the current second of simulation time.
#[derive(Debug)]
pub struct RobotBudgets {
    limit: usize,
    by_robot: BTreeMap<String, Spent>,
}

#[derive(Clone, Copy, Debug, Default)]
struct Spent {
    second: u64,
    bytes: usize,
    /// Whether the recording said this second that the robot is thinned.
    said: bool,
}

impl RobotBudgets {
    /// Budgets of `limit` bytes per robot and second.
    pub fn new(limit: usize) -> RobotBudgets {
        RobotBudgets { limit, by_robot: BTreeMap::new() }
    }

    /// The bytes each robot may have recorded per second.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// A record of `bytes` of robot `robot` at simulation time `time`: kept (and
    /// charged) when it fits in what is left of the robot's second.
    pub fn admit(&mut self, robot: &str, time: f64, bytes: usize) -> Verdict {
        let limit = self.limit;
        let spent = self.spent(robot, time);
        if spent.bytes + bytes <= limit {
            spent.bytes += bytes;
            Verdict::Keep
        } else if std::mem::replace(&mut spent.said, true) {
            Verdict::Drop
        } else {
            Verdict::DropAndSay
        }
    }

    /// Charges `bytes` kept whatever the budget (commands: a rewind replays them, so
    /// they are never left out; they still use up the robot's second).
    pub fn charge(&mut self, robot: &str, time: f64, bytes: usize) {
        self.spent(robot, time).bytes += bytes;
    }

    /// Keeps only the robots `keep` accepts (the others left the lab).
    pub fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        self.by_robot.retain(|name, _| keep(name));
    }

    /// Forgets everything (a new run or a rewind: time starts over).
    pub fn clear(&mut self) {
        self.by_robot.clear();
    }

    fn spent(&mut self, robot: &str, time: f64) -> &mut Spent {
        let second = second_of(time);
        if !self.by_robot.contains_key(robot) {
            self.by_robot.insert(robot.to_owned(), Spent { second, ..Spent::default() });
        }
        let spent = self.by_robot.get_mut(robot).expect("just inserted");
        if spent.second != second {
            *spent = Spent { second, ..Spent::default() };
        }
        spent
    }
}

/// The whole second of simulation time `time` falls in (a step's time computed as
/// step × dt may land a hair under a whole second).
fn second_of(time: f64) -> u64 {
    (time + 1e-9).floor().max(0.0) as u64
}

/// The bytes of `value` as JSON, counted without keeping them.
pub fn json_bytes(value: &impl Serialize) -> usize {
    let mut counter = Counter(0);
    serde_json::to_writer(&mut counter, value).expect("records serialise");
    counter.0
}

struct Counter(usize);

impl Write for Counter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_robot_records_its_bytes_a_second_exactly_and_is_said_thinned_once() {
        let mut budgets = RobotBudgets::new(1000);
        assert_eq!(budgets.admit("a", 0.0, 600), Verdict::Keep);
        assert_eq!(budgets.admit("a", 0.5, 400), Verdict::Keep, "exactly the budget");
        assert_eq!(budgets.admit("a", 0.6, 1), Verdict::DropAndSay, "one byte over");
        assert_eq!(budgets.admit("a", 0.7, 1), Verdict::Drop, "said once a second");
        assert_eq!(budgets.admit("a", 0.999_999_9, 0), Verdict::Keep, "nothing more fits nothing");
        // The next second (1.0 as 240 steps of 1/240 s land it) starts afresh.
        assert_eq!(budgets.admit("a", 240.0 * (1.0 / 240.0), 1000), Verdict::Keep);
        assert_eq!(budgets.admit("a", 1.5, 1), Verdict::DropAndSay, "and is said again");
    }

    #[test]
    fn one_robot_over_its_budget_leaves_the_others_theirs() {
        let mut budgets = RobotBudgets::new(1000);
        assert_eq!(budgets.admit("flood", 0.1, 5000), Verdict::DropAndSay, "a record larger than the budget");
        assert_eq!(budgets.admit("quiet", 0.1, 1000), Verdict::Keep);
        assert_eq!(budgets.admit("flood", 0.2, 1000), Verdict::Keep, "what was left out cost nothing");
    }

    #[test]
    fn commands_are_charged_but_never_left_out() {
        let mut budgets = RobotBudgets::new(1000);
        budgets.charge("a", 0.0, 900);
        budgets.charge("a", 0.0, 900);
        assert_eq!(budgets.admit("a", 0.1, 1), Verdict::DropAndSay, "the commands used the second up");
        budgets.retain(|name| name != "a");
        assert_eq!(budgets.admit("a", 0.1, 1000), Verdict::Keep, "a robot gone is forgotten");
    }

    #[test]
    fn json_bytes_are_those_written() {
        let value = serde_json::json!({"text": "a \"quoted\" \u{1} line", "n": [1.5, 2.25]});
        assert_eq!(json_bytes(&value), serde_json::to_vec(&value).unwrap().len());
    }
}
