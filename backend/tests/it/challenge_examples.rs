//! The three challenges of the scene library (`scenes/challenges/*.vlab`) are solved by
//! their reference solutions (`scenes/challenges/*.py`) over several seeds, each seed
//! giving the same score on a second run: a teacher can hand them out the same day.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use vlab_server::controller::ProgramCode;
use vlab_server::lab::attempt::{self, AttemptSpec, AttemptStatus, ChallengeJudge};
use vlab_server::scene::{DirLoader, Options, interpret};

use crate::common::python_runs_here;

fn scenes() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../scenes"))
}

/// A reference solution with the helper module it imports.
fn solution(name: &str) -> Arc<ProgramCode> {
    let read = |file: &str| std::fs::read_to_string(scenes().join("challenges").join(file)).unwrap();
    let files = BTreeMap::from([
        (format!("{name}.py"), read(&format!("{name}.py"))),
        ("drive_to.py".to_owned(), read("drive_to.py")),
    ]);
    Arc::new(ProgramCode::python(&format!("{name}.py"), files))
}

/// The attempt of `scene`'s diffbot running `program` with `seed`: how it ended, its
/// score, its console's last lines.
fn attempt_of(scene: &str, program: &Arc<ProgramCode>, seed: u64) -> (AttemptStatus, Option<f64>, String) {
    let source = std::fs::read_to_string(scenes().join(scene)).unwrap();
    let loader = DirLoader { scenes: scenes(), assets: None };
    let model = interpret(&source, scene, &loader, &Options { seed, ..Options::default() })
        .unwrap_or_else(|e| panic!("{scene}: {}", e[0]))
        .model;
    let challenge = model.challenge.clone().expect("a challenge");
    let world = attempt::world_for(&model, "diffbot", challenge.start).unwrap();
    let mut judge = ChallengeJudge::new(world.challenge.as_ref().unwrap(), &world, "diffbot").unwrap();
    let spec = AttemptSpec {
        model: world,
        programs: BTreeMap::from([("diffbot".to_owned(), Arc::clone(program))]),
        seed,
        time_limit_secs: challenge.time_limit_secs,
        wall_limit: attempt::ATTEMPT_WALL_LIMIT,
    };
    let outcome = attempt::run(&spec, &mut judge).unwrap();
    let console = outcome.consoles["diffbot"].iter().rev().take(6).map(|l| l.text.clone()).collect::<Vec<_>>();
    (outcome.status, outcome.score, console.join(" | "))
}

fn solves_over_seeds(scene: &str, program: &str, seeds: &[u64]) -> Vec<f64> {
    if !python_runs_here() {
        return vec![];
    }
    let program = solution(program);
    seeds
        .iter()
        .map(|&seed| {
            let (status, score, console) = attempt_of(scene, &program, seed);
            assert_eq!(status, AttemptStatus::Solved, "{scene}, seed {seed}: {console}");
            let again = attempt_of(scene, &program, seed);
            assert_eq!((again.0, again.1), (AttemptStatus::Solved, score), "{scene}, seed {seed} again");
            eprintln!("{scene}, seed {seed}: score {score:?}");
            score.expect("a solved attempt has a score")
        })
        .collect()
}

#[test]
fn the_park_challenge_is_solved_from_every_start_it_draws() {
    let times = solves_over_seeds("challenges/park.vlab", "park", &[1, 2, 3]);
    assert!(times.iter().all(|t| *t < 60.0), "{times:?}");
}

#[test]
fn the_corridor_challenge_is_solved_with_every_goal() {
    let percents = solves_over_seeds("challenges/corridor.vlab", "corridor", &[1, 2]);
    assert!(percents.iter().all(|p| *p == 100.0), "{percents:?}");
}

#[test]
fn the_push_challenge_is_solved_for_its_points() {
    let points = solves_over_seeds("challenges/push.vlab", "push", &[1, 2]);
    assert!(points.iter().all(|p| *p == 60.0), "the crate reached, and pushed in, no wall touched: {points:?}");
}
