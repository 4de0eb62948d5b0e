//! `cargo bench -p vlab-server --bench challenge_attempts` (part of `cargo xtask bench`):
//! how many attempts at a 60 s challenge the server runs per minute of wall time. Eight
//! attempts from four students go through the server's attempt queue (its default
//! workers, one per two CPUs), each the course diffbot with a Python program that
//! drives a circle for the whole minute of simulation (the challenge's success is out
//! of reach, so every attempt lasts its time limit). Prints the attempts per minute, the
//! simulated seconds per wall second of one attempt, and each attempt's wall time.
//! Then the class's shared lab (the same room, its diffbot driving the same program at
//! 1×): how fast its clock goes alone, and while 20 attempts from 7 students run, side
//! by side.
//!
//! Prints figures rather than asserting them: timings are for reading, not for tests.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use vlab_protocol::LabSettings;
use vlab_server::controller::ProgramCode;
use vlab_server::lab::attempt::{
    self, AttemptQueue, AttemptSpec, AttemptState, AttemptStatus, ChallengeJudge, QueueLimits,
};
use vlab_server::lab::secret::TokenDigest;
use vlab_server::lab::{LabConfig, LabHandle};
use vlab_server::scene::{DirLoader, Options, SceneModel, interpret};

const ATTEMPTS: usize = 8;
const STUDENTS: usize = 4;

/// A 6 × 6 room with the course diffbot and a challenge nobody solves in its minute.
const SCENE: &str = r#"
environment room { width 6; length 6; height 1.5; }
include "diffbot_robot.vlab";
call diffbot("", 3, 3, 0);
challenge "A minute of driving" {
  time_limit 60;
  zone far { box(0.5, 0.05, 0.5); pos(30, 0, 30); }
  start { pos(3, 0.05, 3); heading 0; }
  success inside(far);
  score distance(far);
}
"#;

/// Drives a circle of about 0.5 m radius, reading its lidar every step as a real
/// program would.
const CIRCLE: &str = r#"
from vlab import Robot
robot = Robot()
lidar = robot.sensor("lidar")
drive = robot.actuator("drive")
while robot.step():
    ranges = lidar.value() or []
    nearest = min(ranges) if ranges else 8.0
    drive.set(0.15, 0.3 if nearest > 0.2 else 1.0)
"#;

fn scene() -> SceneModel {
    let scenes = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes");
    let loader = DirLoader { scenes, assets: None };
    interpret(SCENE, "minute.vlab", &loader, &Options::default()).unwrap_or_else(|e| panic!("{}", e[0])).model
}

fn main() {
    println!(
        "VLab bench: attempts at a 60 s challenge ({ATTEMPTS} attempts from {STUDENTS} students, one diffbot each)"
    );
    let model = scene();
    let challenge = model.challenge.clone().expect("the challenge");
    let world = attempt::world_for(&model, "diffbot", challenge.start).expect("the diffbot");
    let program = Arc::new(ProgramCode::python("main.py", [("main.py".to_owned(), CIRCLE.to_owned())].into()));
    let limits = QueueLimits::default();
    let queue = AttemptQueue::new(QueueLimits { per_student: ATTEMPTS, ..limits });
    let started = Instant::now();
    let ids: Vec<u64> = (0..ATTEMPTS)
        .map(|i| {
            let spec = AttemptSpec {
                model: world.clone(),
                programs: BTreeMap::from([("diffbot".to_owned(), Arc::clone(&program))]),
                seed: i as u64,
                time_limit_secs: challenge.time_limit_secs,
                wall_limit: attempt::ATTEMPT_WALL_LIMIT,
            };
            let mut judge = ChallengeJudge::new(world.challenge.as_ref().unwrap(), &world, "diffbot").unwrap();
            let job = Box::new(move |_| {
                let began = Instant::now();
                let outcome = attempt::run(&spec, &mut judge);
                eprintln!("  an attempt took {:.1} s of wall time", began.elapsed().as_secs_f64());
                outcome
            });
            queue.submit(&format!("student {}", i % STUDENTS), job).expect("room in the queue")
        })
        .collect();
    let mut outcomes = Vec::new();
    for id in ids {
        loop {
            match queue.state(id) {
                Some(AttemptState::Done(result)) => {
                    outcomes.push(result);
                    break;
                }
                _ => std::thread::sleep(Duration::from_millis(20)),
            }
        }
    }
    let wall = started.elapsed().as_secs_f64();
    let timed_out = outcomes.iter().filter(|o| matches!(o, Ok(o) if o.status == AttemptStatus::TimedOut)).count();
    if timed_out < ATTEMPTS {
        println!("challenge_attempts: not every attempt ran its minute: {outcomes:?}");
    }
    println!(
        "{ATTEMPTS} attempts of 60 s on {} worker(s): {wall:.1} s of wall time, {:.1} attempts per minute, \
         {:.1} s of simulation per wall second per worker",
        limits.workers,
        ATTEMPTS as f64 * 60.0 / wall,
        ATTEMPTS as f64 * 60.0 / wall / limits.workers as f64,
    );
    shared_lab_beside_attempts(&model, &world, &program);
}

/// The shared lab's pace alone for [`ALONE`], then while 20 attempts run.
fn shared_lab_beside_attempts(model: &SceneModel, world: &SceneModel, program: &Arc<ProgramCode>) {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let lab = LabHandle::open(LabConfig {
        id: "class".into(),
        name: "class".into(),
        scene: model.clone(),
        instructor: TokenDigest::of("bench"),
        start_running: true,
        seed: 1,
        join_code: "ABCDEF".into(),
        settings: LabSettings::default(),
        students: vec![],
        programs: BTreeMap::from([("diffbot".to_owned(), Arc::clone(program))]),
        recording: None,
        first_run: 1,
    })
    .expect("the lab opens");
    // The program starts, then the lab's pace alone.
    std::thread::sleep(Duration::from_secs(2));
    let pace = |wall: Duration| {
        let (step0, at0) = (lab.clock().state().step, Instant::now());
        std::thread::sleep(wall);
        let (steps, secs) = (lab.clock().state().step - step0, at0.elapsed().as_secs_f64());
        steps as f64 * model.dt_secs / secs
    };
    let alone = pace(ALONE);
    let queue = AttemptQueue::new(QueueLimits { per_student: 3, ..QueueLimits::default() });
    let challenge = world.challenge.clone().expect("the challenge");
    let ids: Vec<u64> = (0..SIDE_ATTEMPTS)
        .map(|i| {
            let spec = AttemptSpec {
                model: world.clone(),
                programs: BTreeMap::from([("diffbot".to_owned(), Arc::clone(program))]),
                seed: i as u64,
                time_limit_secs: challenge.time_limit_secs,
                wall_limit: attempt::ATTEMPT_WALL_LIMIT,
            };
            let mut judge = ChallengeJudge::new(&challenge, world, "diffbot").unwrap();
            let job = Box::new(move |_| attempt::run(&spec, &mut judge));
            queue.submit(&format!("student {}", i % 7), job).expect("room in the queue")
        })
        .collect();
    let busy_from = Instant::now();
    let (step0, mut beside) = (lab.clock().state().step, 0.0);
    while ids.iter().any(|id| !matches!(queue.state(*id), Some(AttemptState::Done(_)))) {
        std::thread::sleep(Duration::from_millis(50));
        let secs = busy_from.elapsed().as_secs_f64();
        beside = (lab.clock().state().step - step0) as f64 * model.dt_secs / secs;
    }
    let program = runtime.block_on(lab.programs().program("diffbot")).is_ok();
    println!(
        "the class's lab at 1x: {alone:.3} s of simulation per wall second alone, {beside:.3} while {SIDE_ATTEMPTS} \
         attempts from 7 students ran ({:.1} s of wall time); its program still there: {program}",
        busy_from.elapsed().as_secs_f64()
    );
    lab.close();
}

/// How long the shared lab's pace is measured alone.
const ALONE: Duration = Duration::from_secs(10);
/// Attempts run beside the shared lab.
const SIDE_ATTEMPTS: usize = 20;
