//! Checkpoints of a run: copies of the lab's scene, world and robots taken as the lab
//! steps, so a rewind re-simulates from the nearest one at or before its step instead
//! of from the run's start, and takes about as long after an hour as after a minute.
//!
//! A checkpoint is taken right after a physics step, before anything is given to the
//! robots at that step: exactly where a re-simulation stands before it replays the
//! inputs recorded with that step (`super::resimulate`). Few are kept, in memory only:
//! the last [`RECENT_CHECKPOINTS`] one [`CHECKPOINT_INTERVAL_SECS`] apart, and older
//! ones thinned out so they stay spread over the whole run.

use vlab_sim::robot::Robots;
use vlab_sim::scene::SceneModel;
use vlab_sim::sim::World;

/// Simulation time between two checkpoints. A rewind into the recent past re-simulates
/// at most this much: at the demo lab's re-simulation speed (about 20 simulated seconds
/// a second on one core) well under a second, while a copy every 5 s costs the lab's
/// thread a fraction of a millisecond.
pub const CHECKPOINT_INTERVAL_SECS: f64 = 5.0;

/// Checkpoints kept at full density, the newest ones: the last minute of the run, where
/// most rewinds go.
pub const RECENT_CHECKPOINTS: usize = 12;

/// The most checkpoints a lab keeps: the recent ones plus older ones thinned out. Each
/// holds a copy of the scene, the world and the robots (the demo lab's is measured in
/// docs/operations.md), so this bounds a lab's memory for rewinding.
pub const MAX_CHECKPOINTS: usize = 24;

/// The lab as it was right after a step.
pub struct Checkpoint {
    /// The step it was taken at.
    pub step: u64,
    /// The scene then.
    pub model: SceneModel,
    /// The world then.
    pub world: World,
    /// The robots then.
    pub robots: Robots,
}

/// A run's checkpoints, oldest first.
pub struct Checkpoints {
    kept: Vec<Checkpoint>,
    interval_steps: u64,
    next_due: u64,
}

impl Checkpoints {
    /// None yet, for a run stepping `dt_secs` at a time.
    pub fn new(dt_secs: f64) -> Checkpoints {
        let interval_steps = ((CHECKPOINT_INTERVAL_SECS / dt_secs).round() as u64).max(1);
        Checkpoints { kept: Vec::new(), interval_steps, next_due: interval_steps }
    }

    /// Whether one is due after step `step`.
    pub fn due(&self, step: u64) -> bool {
        step >= self.next_due
    }

    /// Keeps a copy of the lab right after step `step`, thinning older ones to stay
    /// within [`MAX_CHECKPOINTS`].
    pub fn take(&mut self, step: u64, model: &SceneModel, world: &World, robots: &Robots) {
        self.kept.push(Checkpoint { step, model: model.clone(), world: world.clone(), robots: robots.clone() });
        self.next_due = step + self.interval_steps;
        while self.kept.len() > MAX_CHECKPOINTS {
            self.thin();
        }
    }

    /// Drops the older checkpoint whose loss leaves the smallest gap between its
    /// neighbours (the older of equals): the gaps grow towards the run's start, and
    /// every part of the run keeps one within reach.
    fn thin(&mut self) {
        let older = self.kept.len().saturating_sub(RECENT_CHECKPOINTS);
        let gap = |i: usize| {
            let before = if i == 0 { 0 } else { self.kept[i - 1].step };
            self.kept[i + 1].step - before
        };
        if let Some(drop) = (0..older).min_by_key(|&i| (gap(i), i)) {
            self.kept.remove(drop);
        }
    }

    /// The latest checkpoint at or before `step` (`None`: re-simulate from the start).
    pub fn at_or_before(&self, step: u64) -> Option<&Checkpoint> {
        self.kept.iter().rev().find(|c| c.step <= step)
    }

    /// Forgets those after `step` (the lab went back to it: they are of another future).
    pub fn forget_after(&mut self, step: u64) {
        self.kept.retain(|c| c.step <= step);
        self.next_due = step + self.interval_steps;
    }

    /// Forgets all of them (a new run from step 0).
    pub fn clear(&mut self) {
        self.start_at(0);
    }

    /// Forgets all of them: a new run starts at `step` (0, or where a resumed lab goes
    /// on).
    pub fn start_at(&mut self, step: u64) {
        self.kept.clear();
        self.next_due = step + self.interval_steps;
    }

    /// The steps they were taken at, oldest first.
    pub fn steps(&self) -> Vec<u64> {
        self.kept.iter().map(|c| c.step).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vlab_sim::scene::demo_scene;

    fn lab() -> (SceneModel, World, Robots) {
        let model = demo_scene(1);
        let world = World::build(&model).expect("the demo builds");
        let robots = Robots::configure(&model, 1).expect("the demo's robots configure");
        (model, world, robots)
    }

    /// Checkpoints taken every interval for `intervals` intervals.
    fn taken(intervals: u64) -> Checkpoints {
        let (model, world, robots) = lab();
        let mut checkpoints = Checkpoints::new(model.dt_secs);
        for step in 1..=intervals * checkpoints.interval_steps {
            if checkpoints.due(step) {
                checkpoints.take(step, &model, &world, &robots);
            }
        }
        checkpoints
    }

    #[test]
    fn one_is_taken_every_interval_and_the_recent_ones_all_stay() {
        let checkpoints = taken(MAX_CHECKPOINTS as u64);
        let every = checkpoints.interval_steps;
        assert_eq!(every, 1200, "5 s at 240 steps a second");
        let expected: Vec<u64> = (1..=MAX_CHECKPOINTS as u64).map(|n| n * every).collect();
        assert_eq!(checkpoints.steps(), expected, "at the bound, none is dropped yet");
        let checkpoints = taken(MAX_CHECKPOINTS as u64 + 1);
        assert_eq!(checkpoints.steps().len(), MAX_CHECKPOINTS, "one past it, one is dropped");
        let recent = &checkpoints.steps()[MAX_CHECKPOINTS - RECENT_CHECKPOINTS..];
        let newest: Vec<u64> =
            (MAX_CHECKPOINTS - RECENT_CHECKPOINTS + 2..=MAX_CHECKPOINTS + 1).map(|n| n as u64 * every).collect();
        assert_eq!(recent, newest, "never one of the recent ones");
    }

    #[test]
    fn after_an_hour_the_last_minute_is_dense_and_older_ones_spread_over_the_run() {
        let checkpoints = taken(720);
        let steps = checkpoints.steps();
        let every = checkpoints.interval_steps;
        assert_eq!(steps.len(), MAX_CHECKPOINTS, "never more than the bound");
        let recent = &steps[steps.len() - RECENT_CHECKPOINTS..];
        let expected: Vec<u64> = (720 - RECENT_CHECKPOINTS as u64 + 1..=720).map(|n| n * every).collect();
        assert_eq!(recent, expected, "the last minute at every interval");
        // Every step of the run has a checkpoint (or the start) within a fraction of it.
        let mut before = 0;
        for &step in &steps {
            assert!(step - before <= 720 * every / 4, "a gap of {} steps in {steps:?}", step - before);
            before = step;
        }
        assert_eq!(checkpoints.at_or_before(720 * every - 1).map(|c| c.step), Some(719 * every));
        assert_eq!(checkpoints.at_or_before(every - 1).map(|c| c.step), None, "before the first: the start");
    }

    /// `cargo test -p vlab-lab --lib checkpoint_memory -- --ignored --nocapture`:
    /// what one checkpoint of the demo lab costs (the process's resident memory grown by
    /// 200 of them, 20 s into a run). Prints it rather than asserting it.
    #[test]
    #[ignore = "prints a figure; run on its own"]
    fn checkpoint_memory_of_the_demo_lab() {
        fn resident_kib() -> u64 {
            let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
            let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("VmRSS");
            line.split_whitespace().nth(1).and_then(|n| n.parse().ok()).expect("a figure")
        }
        let (model, mut world, mut robots) = lab();
        robots.install(&mut world, 0, 0.0);
        for step in 1..=4800 {
            crate::changes::bare_step(&mut world, &mut robots, step, model.dt_secs);
        }
        let before = resident_kib();
        let copies: Vec<_> = (0..200).map(|_| (model.clone(), world.clone(), robots.clone())).collect();
        let after = resident_kib();
        println!("one checkpoint of the demo lab: about {} KiB", (after - before) / copies.len() as u64);
    }

    #[test]
    fn a_rewind_forgets_the_checkpoints_of_the_future_it_left() {
        let mut checkpoints = taken(10);
        let every = checkpoints.interval_steps;
        checkpoints.forget_after(4 * every + 7);
        assert_eq!(checkpoints.steps(), vec![every, 2 * every, 3 * every, 4 * every]);
        assert!(!checkpoints.due(5 * every) && checkpoints.due(5 * every + 7), "the next one is an interval on");
        checkpoints.clear();
        assert_eq!(checkpoints.at_or_before(u64::MAX).map(|c| c.step), None);
    }
}
