//! Which entries of a lab's log no longer change what a restart rebuilds, decided from
//! the entries alone (no files): the log stays as long as what is in the lab, not as
//! long as the class has been uploading and removing.
//!
//! - A program replacement is forgotten once the same robot's program is replaced
//!   again or the robot is removed: doing it again would be undone. So is a start
//!   moved, once the same robot's start is moved again or the robot is removed, and a
//!   thing moved by hand, once the same thing is moved again or (a robot) removed.
//! - An upload that added robots and nothing else is forgotten with the removals of
//!   all its robots, once each is removed: doing the pair again adds nothing. Each of
//!   its robots' removal is the first removal of that name after the upload (a name is
//!   one robot at a time in a lab).
//! - Everything else stays: scenes of the instructor (their bodies cannot be removed),
//!   uploads not yet known to hold only robots, removals of the lab's own robots,
//!   changes of the room (each sets only the fields it names, and takes a line), and
//!   objects added and removed.

use std::collections::BTreeSet;

/// What kind of entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Upload,
    Program,
    Removal,
    Start,
    Move,
    Room,
    /// Anything compaction never forgets (objects added, objects removed).
    Kept,
}

/// One entry of a lab's log, without its files.
#[derive(Clone, Debug)]
pub(super) struct Entry {
    pub seq: i64,
    pub kind: Kind,
    /// The robot a program replacement, a removal or a start is about; the thing a move
    /// is about.
    pub robot: String,
    /// For an upload: the robots it added, when it added nothing else.
    pub only_robots: Option<Vec<String>>,
}

/// The sequence numbers of the entries to forget; `entries` in log order.
pub(super) fn forgettable(entries: &[Entry]) -> BTreeSet<i64> {
    let mut forget = BTreeSet::new();
    let later = |index: usize| entries[index + 1..].iter();
    for (index, entry) in entries.iter().enumerate() {
        match entry.kind {
            Kind::Program | Kind::Start | Kind::Move => {
                let superseded =
                    later(index).any(|e| (e.kind == Kind::Removal || e.kind == entry.kind) && e.robot == entry.robot);
                if superseded {
                    forget.insert(entry.seq);
                }
            }
            Kind::Upload => {
                let Some(robots) = entry.only_robots.as_ref().filter(|r| !r.is_empty()) else { continue };
                let removals: Option<Vec<i64>> = robots
                    .iter()
                    .map(|robot| later(index).find(|e| e.kind == Kind::Removal && &e.robot == robot).map(|e| e.seq))
                    .collect();
                if let Some(removals) = removals {
                    forget.insert(entry.seq);
                    forget.extend(removals);
                }
            }
            Kind::Removal | Kind::Room | Kind::Kept => {}
        }
    }
    forget
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_of_the_room_are_never_forgotten() {
        let room = |seq| Entry { seq, kind: Kind::Room, robot: String::new(), only_robots: None };
        let log = [
            upload(1, &["a"]),
            room(2),
            Entry { seq: 3, kind: Kind::Removal, robot: "a".into(), only_robots: None },
            room(4),
        ];
        assert_eq!(forgettable(&log), BTreeSet::from([1, 3]), "the robot's upload and removal go; both rooms stay");
    }

    fn upload(seq: i64, robots: &[&str]) -> Entry {
        Entry {
            seq,
            kind: Kind::Upload,
            robot: String::new(),
            only_robots: Some(robots.iter().map(|r| r.to_string()).collect()),
        }
    }
    fn scene(seq: i64) -> Entry {
        Entry { seq, kind: Kind::Upload, robot: String::new(), only_robots: None }
    }
    fn program(seq: i64, robot: &str) -> Entry {
        Entry { seq, kind: Kind::Program, robot: robot.into(), only_robots: None }
    }
    fn removal(seq: i64, robot: &str) -> Entry {
        Entry { seq, kind: Kind::Removal, robot: robot.into(), only_robots: None }
    }
    fn start(seq: i64, robot: &str) -> Entry {
        Entry { seq, kind: Kind::Start, robot: robot.into(), only_robots: None }
    }
    fn moved(seq: i64, name: &str) -> Entry {
        Entry { seq, kind: Kind::Move, robot: name.into(), only_robots: None }
    }
    fn forgotten(entries: &[Entry]) -> Vec<i64> {
        forgettable(entries).into_iter().collect()
    }

    #[test]
    fn a_robot_uploaded_and_removed_leaves_nothing_and_the_next_one_stays() {
        let log = [upload(1, &["ana"]), program(2, "ana"), removal(3, "ana"), upload(4, &["ana"])];
        assert_eq!(forgotten(&log), [1, 2, 3]);
    }

    #[test]
    fn only_the_last_program_of_a_robot_that_is_still_there_stays() {
        let log = [upload(1, &["ana"]), program(2, "ana"), program(3, "bob"), program(4, "ana")];
        assert_eq!(forgotten(&log), [2]);
    }

    #[test]
    fn an_upload_of_several_robots_goes_when_the_last_of_them_does() {
        let mut log = vec![upload(1, &["x", "y"]), removal(2, "x"), upload(3, &["x"]), program(4, "x")];
        assert_eq!(forgotten(&log), Vec::<i64>::new(), "y is still there, x came back");
        log.push(removal(5, "y"));
        // Upload 1 goes with removals 2 (its x) and 5 (its y); the second x stays, its
        // program with it.
        assert_eq!(forgotten(&log), [1, 2, 5]);
    }

    #[test]
    fn only_the_last_start_of_a_robot_stays_and_a_program_after_it_too() {
        let log = [upload(1, &["ana"]), start(2, "ana"), program(3, "ana"), start(4, "ana"), start(5, "bob")];
        assert_eq!(forgotten(&log), [2], "a start does not make a program moot, nor a program a start");
        let log = [upload(1, &["ana"]), start(2, "ana"), removal(3, "ana")];
        assert_eq!(forgotten(&log), [1, 2, 3]);
    }

    #[test]
    fn only_the_last_move_of_a_thing_stays_and_a_removal_ends_its_moves() {
        let log = [scene(1), moved(2, "crate"), moved(3, "ana"), start(4, "ana"), moved(5, "crate")];
        assert_eq!(forgotten(&log), [2], "a move does not make a start moot, nor a start a move");
        let log = [upload(1, &["ana"]), moved(2, "ana"), moved(3, "crate"), removal(4, "ana")];
        assert_eq!(forgotten(&log), [1, 2, 4], "the crate's move stays");
    }

    #[test]
    fn scenes_and_removals_of_the_labs_own_robots_stay() {
        let log = [scene(1), program(2, "base_bot"), removal(3, "base_bot"), scene(4), removal(5, "scene_bot")];
        assert_eq!(forgotten(&log), [2], "the program before a removal is moot; the rest rebuilds the lab");
    }

    #[test]
    fn what_the_plan_keeps_rebuilds_the_same_lab() {
        // Replays a log into the set of robots present with their programs, and checks
        // the compacted log gives the same for many random logs.
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for _ in 0..500 {
            let mut log = Vec::new();
            let mut present: Vec<String> = vec!["base".into()];
            for seq in 1..40 {
                let name = format!("r{}", rng.random_range(0..4));
                match rng.random_range(0..4) {
                    0 if !present.contains(&name) => {
                        let mut names = vec![name.clone()];
                        let other = format!("r{}", rng.random_range(0..4));
                        if rng.random_bool(0.3) && !present.contains(&other) && other != name {
                            names.push(other);
                        }
                        let names: Vec<&str> = names.iter().map(String::as_str).collect();
                        present.extend(names.iter().map(|n| n.to_string()));
                        log.push(if rng.random_bool(0.2) {
                            // Not known to hold only robots (its names kept for `rebuild`).
                            Entry { only_robots: None, robot: names.join(","), ..upload(seq, &names) }
                        } else {
                            upload(seq, &names)
                        });
                    }
                    1 if present.contains(&name) => log.push(match rng.random_range(0..3) {
                        0 => program(seq, &name),
                        1 => start(seq, &name),
                        _ => moved(seq, &name),
                    }),
                    2 if present.contains(&name) => {
                        present.retain(|r| r != &name);
                        log.push(removal(seq, &name));
                    }
                    3 if present.contains(&"base".to_owned()) && rng.random_bool(0.1) => {
                        present.retain(|r| r != "base");
                        log.push(removal(seq, "base"));
                    }
                    _ => {}
                }
            }
            let forget = forgettable(&log);
            let kept: Vec<Entry> = log.iter().filter(|e| !forget.contains(&e.seq)).cloned().collect();
            assert_eq!(rebuild(&log), rebuild(&kept), "{log:?}");
            assert!(forgettable(&kept).is_empty(), "compacting twice forgets nothing more");
        }
    }

    /// The robots a log leaves, each with the sequence numbers of its program, of its
    /// start and of its last move (0: the ones it came with), as a restart would
    /// rebuild them; panics where a restart would fail.
    fn rebuild(log: &[Entry]) -> std::collections::BTreeMap<String, (i64, i64, i64)> {
        let mut robots = std::collections::BTreeMap::from([("base".to_owned(), (0, 0, 0))]);
        for entry in log {
            match entry.kind {
                Kind::Upload => {
                    let names = entry.only_robots.clone().unwrap_or_else(|| {
                        entry.robot.split(',').filter(|n| !n.is_empty()).map(str::to_owned).collect()
                    });
                    for name in names {
                        assert!(robots.insert(name.clone(), (0, 0, 0)).is_none(), "{name} twice");
                    }
                }
                Kind::Program => robots.get_mut(&entry.robot).expect("program of a robot that is there").0 = entry.seq,
                Kind::Start => robots.get_mut(&entry.robot).expect("start of a robot that is there").1 = entry.seq,
                Kind::Move => robots.get_mut(&entry.robot).expect("move of a robot that is there").2 = entry.seq,
                Kind::Removal => assert!(robots.remove(&entry.robot).is_some(), "removal of a robot that is there"),
                Kind::Room | Kind::Kept => {}
            }
        }
        robots
    }
}
