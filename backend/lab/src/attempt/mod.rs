//! One attempt at a task: a private copy of a world with its robots and their
//! programs, stepped in lockstep as fast as the calling thread allows until a judge
//! says it is over or its time is up. Nothing of it touches a running lab: it has its
//! own world, its own programs and its own clock, so the same scene, seed and programs
//! give the same attempt, step for step, however busy the machine.
//!
//! The judge is the caller's (a challenge's conditions, a test's own check): after
//! every physics step it sees the world and the robots and may end the attempt.
//! [`queue`] runs the server's attempts in turn, fairly between students.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use vlab_programs::ProgramCode;
use vlab_protocol::{ConsoleLine, ProgramState, REPLAY_FRAME_STEPS, ReplayEvent, ReplayFrame, SceneSnapshot, SyncMode};
use vlab_sim::robot::Robots;
use vlab_sim::scene::{SceneError, SceneModel, StartPose};
use vlab_sim::sim::World;

use super::programs::{Programs, Tick};

pub mod judge;
pub mod queue;

pub use judge::ChallengeJudge;
pub use queue::{AttemptId, AttemptJob, AttemptQueue, AttemptState, QueueLimits, QueueRefusal};

/// How long an attempt waits for its programs to start before it counts as a program
/// error (they start on helper threads; a Python program imports in well under this).
pub const START_WAIT: Duration = Duration::from_secs(10);

/// Wall time an attempt may take at most: a program slow at every step (within the CPU
/// rules, which stop one far over its share) would otherwise hold a worker, and every
/// student queued behind it, for many minutes.
pub const ATTEMPT_WALL_LIMIT: Duration = Duration::from_secs(120);

/// What an attempt runs: a world, the programs of some of its robots, a seed, a time limit.
#[derive(Clone, Debug)]
pub struct AttemptSpec {
    /// The world, its robots included.
    pub model: SceneModel,
    /// Each robot's program, by robot name.
    pub programs: BTreeMap<String, Arc<ProgramCode>>,
    /// The seed of the world's noise and of the programs' randomness.
    pub seed: u64,
    /// Simulation seconds before it is over, unless the judge ends it sooner.
    pub time_limit_secs: f64,
    /// Wall time before it is stopped as a program error ([`ATTEMPT_WALL_LIMIT`]).
    pub wall_limit: Duration,
}

/// How the judge ends an attempt.
#[derive(Clone, Debug, PartialEq)]
pub enum Judgement {
    /// It solved the task.
    Solved,
    /// It failed, and why (worded for students).
    Failed(String),
}

/// What sees an attempt after every physics step.
pub trait Judge {
    /// After physics step `step` (`time` seconds): the world and the robots as the
    /// programs' sensors just saw them. `Some` ends the attempt.
    fn after_step(&mut self, step: u64, time: f64, world: &World, robots: &Robots) -> Option<Judgement>;

    /// The score of an attempt that ended with `status` (none by default).
    fn score(&self, _status: &AttemptStatus) -> Option<f64> {
        None
    }

    /// What happened since it was last asked, for the replay: simulation seconds and
    /// words (none by default).
    fn take_events(&mut self) -> Vec<(f64, String)> {
        Vec::new()
    }
}

/// How an attempt ended.
#[derive(Clone, Debug, PartialEq)]
pub enum AttemptStatus {
    /// The judge said it solved the task.
    Solved,
    /// The judge said it failed, and why.
    Failed(String),
    /// The time limit came first.
    TimedOut,
    /// A robot's program stopped (an exception, a timeout, its CPU): whose and why.
    ProgramError {
        /// The robot.
        robot: String,
        /// What stopped it, as its console says.
        message: String,
    },
}

/// An attempt's result.
#[derive(Clone, Debug, PartialEq)]
pub struct AttemptOutcome {
    /// How it ended.
    pub status: AttemptStatus,
    /// Physics steps taken.
    pub steps: u64,
    /// Simulation seconds taken.
    pub sim_secs: f64,
    /// Its score, by the judge's rule (`None`: the rule gives none for this ending).
    pub score: Option<f64>,
    /// Each robot's console, by robot name.
    pub consoles: BTreeMap<String, Vec<ConsoleLine>>,
    /// What it looked like, for its replay (taken out once kept elsewhere).
    pub recording: Option<Box<AttemptRecording>>,
}

/// An attempt as recorded: its world as it started, the poses of its moving bodies
/// every [`REPLAY_FRAME_STEPS`] physics steps (and at its last), and what happened.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AttemptRecording {
    /// Its world at step 0, zones included, without joint links (every moving body
    /// has its pose in every frame).
    pub snapshot: Option<SceneSnapshot>,
    /// The bodies that move, by index: each frame's poses are theirs, in this order.
    pub moving: Vec<u32>,
    /// The recorded moments, oldest first.
    pub frames: Vec<ReplayFrame>,
    /// What happened, as it happened.
    pub events: Vec<ReplayEvent>,
}

impl AttemptRecording {
    fn start(model: &SceneModel, world: &World) -> AttemptRecording {
        let mut snapshot = crate::wire::snapshot(model, world, 0);
        snapshot.links.clear();
        let moving = (0..model.bodies.len()).filter(|&i| !world.is_fixed(i)).map(|i| i as u32).collect();
        let mut recording = AttemptRecording { snapshot: Some(snapshot), moving, ..AttemptRecording::default() };
        recording.frame(world, 0.0);
        recording
    }

    fn frame(&mut self, world: &World, time: f64) {
        let poses = self.moving.iter().map(|&i| crate::wire::pose(&world.pose(i as usize))).collect();
        self.frames.push(ReplayFrame { time, poses });
    }

    fn events(&mut self, events: Vec<(f64, String)>) {
        self.events.extend(events.into_iter().map(|(time, text)| ReplayEvent { time, text }));
    }
}

/// Why an attempt could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum AttemptError {
    /// The world does not build.
    #[error("the attempt's world does not build: {0}")]
    World(#[from] SceneError),
    /// A program names a robot the world does not have.
    #[error("there is no robot '{0}' in the attempt's world")]
    NoRobot(String),
    /// The challenge reads a sensor the robot does not have.
    #[error(
        "the challenge reads the sensor '{sensor}', which robot '{robot}' does not have: add one of that name \
         to it, or ask the instructor"
    )]
    NoSensor {
        /// The robot tried.
        robot: String,
        /// The sensor the challenge names.
        sensor: String,
    },
    /// The attempt's own code failed (a bug of the server's, not the student's).
    #[error("the attempt stopped on an error of the server's: it is logged, and others go on")]
    Crashed,
}

/// The world of an attempt of robot `robot` at `model`'s task: `model` without its
/// other robots, `robot` put at `start` (its main body there, turned to its heading,
/// its other bodies around it as they were) if one is given.
pub fn world_for(model: &SceneModel, robot: &str, start: Option<StartPose>) -> Result<SceneModel, AttemptError> {
    if !model.robots.iter().any(|r| r.name == robot) {
        return Err(AttemptError::NoRobot(robot.to_owned()));
    }
    let has = |sensor: &str| model.sensors.iter().any(|s| s.robot.as_deref() == Some(robot) && s.name == sensor);
    if let Some(missing) = model.challenge.iter().flat_map(|c| c.sensors_read()).find(|sensor| !has(sensor)) {
        return Err(AttemptError::NoSensor { robot: robot.to_owned(), sensor: missing.to_owned() });
    }
    let others: Vec<String> = model.robots.iter().filter(|r| r.name != robot).map(|r| r.name.clone()).collect();
    let mut world = model.clone();
    for other in others {
        if let Some((without, _)) = world.without_robot(&other) {
            world = without;
        }
    }
    if let Some(start) = start {
        let heading = start.heading_deg.to_radians();
        super::changes::set_start(&mut world, robot, start.position, Some(heading));
    }
    Ok(world)
}

/// Runs `spec` on the calling thread until `judge` ends it, its time is up, or a program
/// stops.
pub fn run(spec: &AttemptSpec, judge: &mut dyn Judge) -> Result<AttemptOutcome, AttemptError> {
    let dt = spec.model.dt_secs;
    let mut world = World::build(&spec.model)?;
    let mut robots = Robots::configure(&spec.model, spec.seed)?;
    robots.install(&mut world, 0, 0.0);
    let (console, _) = tokio::sync::broadcast::channel(16);
    let mut programs = Programs::new(spec.seed, dt, console);
    for (robot, code) in &spec.programs {
        if !programs.start(robot, &mut robots, Arc::clone(code), dt, 0) {
            return Err(AttemptError::NoRobot(robot.clone()));
        }
    }
    // Every program starts before the first step, so each joins at step 0 on every run.
    let started = Instant::now();
    while programs.poll_started(&mut robots, 0, dt) && started.elapsed() < START_WAIT {
        std::thread::sleep(Duration::from_millis(2));
    }
    let last_step = (spec.time_limit_secs / dt).round() as u64;
    let mut recording = AttemptRecording::start(&spec.model, &world);
    let mut step = 0;
    let status = loop {
        if let Some(error) = stopped_program(spec, &robots) {
            break error;
        }
        if started.elapsed() > spec.wall_limit {
            let robot = spec.programs.keys().next().cloned().unwrap_or_default();
            let secs = spec.wall_limit.as_secs_f64();
            let message = format!(
                "the attempt took more than {secs:.0} s of wall time, at {:.1} s of simulation: its program is too slow per step",
                step as f64 * dt
            );
            break AttemptStatus::ProgramError { robot, message };
        }
        if step >= last_step {
            break AttemptStatus::TimedOut;
        }
        programs.pre_step(&mut robots, step, dt);
        robots.apply_actuators(&mut world);
        world.step();
        step += 1;
        let time = step as f64 * dt;
        robots.update_sensors(&world, step, time);
        programs.post_step(
            &mut robots,
            &world,
            Tick { step, dt_secs: dt, sync: SyncMode::Lockstep, wall_per_sim: 1.0 },
        );
        let judgement = judge.after_step(step, time, &world, &robots);
        recording.events(judge.take_events());
        if step.is_multiple_of(REPLAY_FRAME_STEPS) {
            recording.frame(&world, time);
        }
        match judgement {
            Some(Judgement::Solved) => break AttemptStatus::Solved,
            Some(Judgement::Failed(why)) => break AttemptStatus::Failed(why),
            None => {}
        }
    };
    let sim_secs = step as f64 * dt;
    if !step.is_multiple_of(REPLAY_FRAME_STEPS) {
        recording.frame(&world, sim_secs);
    }
    recording.events(vec![(sim_secs, ending_words(&status))]);
    let consoles = spec.programs.keys().filter_map(|robot| Some((robot.clone(), programs.program(robot)?.1))).collect();
    let score = judge.score(&status);
    Ok(AttemptOutcome { status, steps: step, sim_secs, score, consoles, recording: Some(Box::new(recording)) })
}

/// How an attempt ended, in the words of its replay's last event.
fn ending_words(status: &AttemptStatus) -> String {
    match status {
        AttemptStatus::Solved => "solved".into(),
        AttemptStatus::Failed(why) => format!("failed: {why}"),
        AttemptStatus::TimedOut => "timed out".into(),
        AttemptStatus::ProgramError { message, .. } => format!("program error: {message}"),
    }
}

/// The first robot of `spec` whose program has stopped (or never started), and why.
fn stopped_program(spec: &AttemptSpec, robots: &Robots) -> Option<AttemptStatus> {
    spec.programs.keys().find_map(|robot| {
        let status = robots.get(robot)?.program();
        let over = matches!(status.state, ProgramState::Stopped | ProgramState::Starting);
        over.then(|| AttemptStatus::ProgramError {
            robot: robot.clone(),
            message: status.message.clone().unwrap_or_else(|| "its program did not start in time".into()),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use vlab_sim::scene::{MapLoader, Options, interpret};

    /// A cart on a floor, its DiffDrive `base`.
    fn cart_world() -> SceneModel {
        let source = r#"
            environment wallrect { width 20; length 20; height 0.5; gravity -9.81; }
            robot cart {
              body {
                chassis { shape box(0.4, 0.1, 0.3); pos(2, 0.08, 10); density 500; }
                wheel_l { shape cylinder(0.05, 0.02); pos(2, 0.05, 10.17); density 800; }
                wheel_r { shape cylinder(0.05, 0.02); pos(2, 0.05, 9.83); density 800; }
                caster { shape sphere(0.03); pos(2.15, 0.03, 10); density 500; friction 0; }
                JointHinge(chassis, wheel_l) { anchor(2, 0.05, 10.17); axis(0, 0, 1); SimpleMotor m_l; }
                JointHinge(chassis, wheel_r) { anchor(2, 0.05, 9.83); axis(0, 0, 1); SimpleMotor m_r; }
                JointBall(chassis, caster) { anchor(2.15, 0.03, 10); }
                DiffDrive base { left "m_l"; right "m_r"; wheel_radius 0.05; track 0.34; }
              }
            }
        "#;
        interpret(source, "cart.vlab", &MapLoader::new(), &Options::default())
            .unwrap_or_else(|e| panic!("{}", e[0]))
            .model
    }

    fn python(source: &str) -> Arc<ProgramCode> {
        Arc::new(ProgramCode::python("main.py", [("main.py".to_owned(), source.to_owned())].into()))
    }

    fn python_runs_here() -> bool {
        let probe = vlab_programs::ProgramSpec::new("probe", "from vlab import Robot\nRobot().step()\n");
        match vlab_programs::PythonProgram::start(probe) {
            Ok(mut program) => {
                let _ = program.stop();
                true
            }
            Err(error) => {
                eprintln!("Python programs do not run here: {error}");
                false
            }
        }
    }

    /// Solved once the cart's chassis (its body index) is past x = 3.
    struct PastThree(usize);

    impl PastThree {
        fn new() -> PastThree {
            PastThree(cart_world().body_index("chassis").expect("the cart's chassis"))
        }
    }

    impl Judge for PastThree {
        fn after_step(&mut self, _: u64, _: f64, world: &World, _: &Robots) -> Option<Judgement> {
            let x = world.pose(self.0).position[0];
            (x > 3.0).then_some(Judgement::Solved)
        }
    }

    fn attempt(program: &str, time_limit_secs: f64, seed: u64) -> AttemptOutcome {
        let spec = AttemptSpec {
            model: cart_world(),
            programs: [("cart".to_owned(), python(program))].into(),
            seed,
            time_limit_secs,
            wall_limit: ATTEMPT_WALL_LIMIT,
        };
        run(&spec, &mut PastThree::new()).expect("the attempt runs")
    }

    const FORWARD: &str =
        "from vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    robot.actuator('base').set(0.5, 0.0)\n";

    #[test]
    fn a_program_that_drives_there_solves_it_at_the_same_step_every_run() {
        if !python_runs_here() {
            return;
        }
        let first = attempt(FORWARD, 10.0, 7);
        assert_eq!(first.status, AttemptStatus::Solved, "{first:?}");
        let again = attempt(FORWARD, 10.0, 7);
        assert_eq!((again.status, again.steps), (AttemptStatus::Solved, first.steps), "the same run again");
        assert!(first.sim_secs > 1.0 && first.sim_secs < 4.0, "1 m at 0.5 m/s: {}", first.sim_secs);
        assert_eq!(first.recording, again.recording, "the same replay too");
    }

    #[test]
    fn an_attempt_is_recorded_every_few_steps_with_its_moving_bodies_and_its_ending() {
        if !python_runs_here() {
            return;
        }
        let outcome = attempt(FORWARD, 10.0, 7);
        let recording = outcome.recording.expect("recorded");
        let world = cart_world();
        let chassis = world.body_index("chassis").unwrap() as u32;
        assert!(recording.moving.contains(&chassis), "{:?}", recording.moving);
        assert_eq!(recording.moving.len(), 4, "the cart's four bodies move, the room does not");
        let snapshot = recording.snapshot.expect("its world as it started");
        assert_eq!(snapshot.bodies.len(), world.bodies.len());
        assert!(snapshot.links.is_empty(), "every moving body has its pose in every frame");
        let times: Vec<f64> = recording.frames.iter().map(|f| f.time).collect();
        assert_eq!(times[0], 0.0);
        assert!((times[1] - REPLAY_FRAME_STEPS as f64 / 240.0).abs() < 1e-9, "{times:?}");
        assert_eq!(*times.last().unwrap(), outcome.sim_secs, "the last step is recorded");
        assert!(recording.frames.iter().all(|f| f.poses.len() == 4));
        let [first_x, last_x] = [&recording.frames[0], recording.frames.last().unwrap()].map(|frame| {
            let at = recording.moving.iter().position(|&b| b == chassis).unwrap();
            frame.poses[at].position[0]
        });
        assert!(first_x < 2.1 && last_x > 3.0, "the replay shows the cart drive: {first_x} → {last_x}");
        let last = recording.events.last().expect("its ending");
        assert_eq!((last.time, last.text.as_str()), (outcome.sim_secs, "solved"));
    }

    #[test]
    fn standing_still_times_out_and_a_crash_is_a_program_error() {
        if !python_runs_here() {
            return;
        }
        let idle = attempt("from vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    pass\n", 1.0, 1);
        assert_eq!((idle.status, idle.steps), (AttemptStatus::TimedOut, 240));
        let crash = attempt("from vlab import Robot\nrobot = Robot()\nrobot.step()\nraise ValueError('no')\n", 5.0, 1);
        let AttemptStatus::ProgramError { robot, message } = &crash.status else { panic!("{crash:?}") };
        assert_eq!(robot, "cart");
        assert!(message.contains("ValueError: no"), "{message}");
        assert!(crash.consoles["cart"].iter().any(|line| line.text.contains("ValueError")), "{:?}", crash.consoles);
    }

    #[test]
    fn an_attempts_world_has_its_robot_alone_at_the_start() {
        let mut model = cart_world();
        let other = "robot other { body { other_box { shape box(0.2, 0.2, 0.2); pos(8, 0.1, 8); } } }";
        model.merge(&interpret(other, "o.vlab", &MapLoader::new(), &Options::default()).unwrap().model).unwrap();
        let start = StartPose { position: [5.0, 0.08, 4.0], heading_deg: 90.0 };
        let world = world_for(&model, "cart", Some(start)).unwrap();
        let names: Vec<&str> = world.robots.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["cart"]);
        assert!(world.body_index("other_box").is_none());
        let chassis = world.bodies[world.robots[0].main_body].pose;
        assert_eq!(chassis.position, [5.0, 0.08, 4.0]);
        let heading = vlab_sim::robot::frame::heading(&chassis);
        assert!((heading - std::f64::consts::FRAC_PI_2).abs() < 1e-5, "turned to 90°: {heading}");
        let wheel = world.bodies[world.body_index("wheel_l").unwrap()].pose.position;
        assert!((wheel[0] - 5.17).abs() < 1e-4 && (wheel[2] - 4.0).abs() < 1e-4, "its wheel came along: {wheel:?}");
        let vlab_sim::scene::JointKind::Hinge { anchor, axis, .. } = &world.joints[0].kind else { panic!() };
        assert!((anchor[0] - 5.17).abs() < 1e-4 && (anchor[2] - 4.0).abs() < 1e-4, "its hinge came along: {anchor:?}");
        assert!((axis[0] - 1.0).abs() < 1e-4 && axis[2].abs() < 1e-4, "and turned with it: {axis:?}");
        assert!(matches!(world_for(&model, "nobody", None), Err(AttemptError::NoRobot(_))));
    }

    #[test]
    fn a_challenge_that_reads_a_sensor_the_robot_lacks_is_refused_by_name() {
        let mut model = cart_world();
        let challenge = r#"challenge "c" { time_limit 5; success sensor("bumper") > 0 or sensor("bumper") > 1; }"#;
        model.merge(&interpret(challenge, "c.vlab", &MapLoader::new(), &Options::default()).unwrap().model).unwrap();
        assert_eq!(model.challenge.as_ref().unwrap().sensors_read(), ["bumper"]);
        let refused = world_for(&model, "cart", None).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "the challenge reads the sensor 'bumper', which robot 'cart' does not have: add one of that name to it, \
             or ask the instructor"
        );
    }

    #[test]
    fn an_attempt_past_its_wall_time_is_stopped_as_a_program_error() {
        if !python_runs_here() {
            return;
        }
        let slow = "import threading\nfrom vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    threading.Event().wait(0.05)\n";
        let spec = AttemptSpec {
            model: cart_world(),
            programs: [("cart".to_owned(), python(slow))].into(),
            seed: 1,
            time_limit_secs: 60.0,
            wall_limit: Duration::from_millis(500),
        };
        let outcome = run(&spec, &mut PastThree::new()).unwrap();
        let AttemptStatus::ProgramError { robot, message } = &outcome.status else { panic!("{outcome:?}") };
        assert_eq!(robot, "cart");
        assert!(message.contains("s of wall time"), "{message}");
        assert!(outcome.sim_secs < 60.0, "stopped long before its time limit: {}", outcome.sim_secs);
    }

    #[test]
    fn a_program_for_a_robot_that_is_not_there_is_refused() {
        let spec = AttemptSpec {
            model: cart_world(),
            programs: [("nobody".to_owned(), python(FORWARD))].into(),
            seed: 1,
            time_limit_secs: 1.0,
            wall_limit: ATTEMPT_WALL_LIMIT,
        };
        assert!(matches!(run(&spec, &mut PastThree::new()), Err(AttemptError::NoRobot(name)) if name == "nobody"));
    }
}
