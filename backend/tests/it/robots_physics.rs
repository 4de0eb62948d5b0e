//! The robots of `scenes/` in the physics: wheels on hinges, friction, a rolling
//! caster, servos. Each test drives a robot through its actuators, as a person would
//! by hand, and checks what its sensors saw against the reference figures of
//! docs/sensors.md ("Differential drive: reference figures"). The figures are
//! computed here from the sensors' readings (a circle fitted to the GPS track, a speed
//! from two GPS fixes), never from the robot code's own kinematics.
//!
//! Everything runs in simulation time; nothing depends on wall time.

use crate::common;

use std::collections::BTreeMap;
use std::f64::consts::{PI, TAU};

use common::{TOKEN, TestServer};
use serde_json::{Value, json};
use vlab_protocol::{ActuatorCommand, ControlAction, RobotReport, SensorReport, SensorValue};
use vlab_server::robot::Robots;
use vlab_server::scene::{DirLoader, Options, SceneModel, interpret};
use vlab_server::sim::World;

/// A lab in miniature: a scene's world and robots, stepped in a lab's order
/// (ARCHITECTURE.md, "One step of a lab").
struct Lab {
    world: World,
    robots: Robots,
    dt: f64,
    step: u64,
}

impl Lab {
    /// The scene file `scenes/{name}`.
    fn file(name: &str) -> Lab {
        let source = std::fs::read_to_string(scenes_dir().join(name)).unwrap();
        Lab::source(&source, name)
    }

    /// A scene written here (it may include the files of `scenes/`).
    fn source(source: &str, name: &str) -> Lab {
        let loader = DirLoader { scenes: scenes_dir(), assets: None };
        let result =
            interpret(source, name, &loader, &Options::default()).unwrap_or_else(|e| panic!("{name}: {}", e[0]));
        assert!(result.warnings.is_empty(), "{name}: {:?}", result.warnings);
        Lab::model(&result.model)
    }

    fn model(model: &SceneModel) -> Lab {
        let mut world = World::build(model).unwrap();
        let mut robots = Robots::configure(model, 7).unwrap();
        robots.install(&mut world, 0, 0.0);
        Lab { world, robots, dt: model.dt_secs, step: 0 }
    }

    /// Commands actuators of `robot`, e.g. `{"m_l": {"speed": 4}}`; they must be accepted.
    fn command(&mut self, robot: &str, commands: Value) {
        let commands: BTreeMap<String, Value> = serde_json::from_value(commands).unwrap();
        self.robots.command(robot, &commands).expect("the robot exists").expect("the commands are accepted");
    }

    /// One step: actuators, physics, sensors.
    fn step_once(&mut self) {
        self.robots.apply_actuators(&mut self.world);
        self.world.step();
        self.step += 1;
        self.robots.update_sensors(&self.world, self.step, self.time());
    }

    /// Steps for `seconds` of simulation time, calling `each` after every step.
    fn run(&mut self, seconds: f64, mut each: impl FnMut(&Lab)) {
        let steps = (seconds / self.dt).round() as u64;
        for _ in 0..steps {
            self.step_once();
            each(self);
        }
    }

    fn time(&self) -> f64 {
        self.step as f64 * self.dt
    }

    fn report(&self, robot: &str) -> RobotReport {
        self.robots.report(robot, &self.world, self.step, self.time()).expect("the robot exists")
    }

    fn sensor(&self, robot: &str, sensor: &str) -> SensorReport {
        let report = self.report(robot);
        report.sensors.into_iter().find(|s| s.name == sensor).unwrap_or_else(|| panic!("{robot} has no {sensor}"))
    }

    /// The ground-plane position `(x, y)` = world `(X, −Z)` its GPS measures.
    fn gps(&self, robot: &str) -> (f64, f64) {
        match self.sensor(robot, "gps").measured {
            Some(SensorValue::Vector { values: [x, _, z] }) => (x, -z),
            other => panic!("gps reads {other:?}"),
        }
    }

    /// The heading its compass measures, radians.
    fn compass(&self, robot: &str) -> f64 {
        scalar(&self.sensor(robot, "compass"))
    }
}

fn scenes_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes")
}

fn scalar(sensor: &SensorReport) -> f64 {
    match sensor.measured {
        Some(SensorValue::Scalar { value }) => value,
        ref other => panic!("{} reads {other:?}", sensor.name),
    }
}

fn joint_position(sensor: &SensorReport) -> f64 {
    match sensor.measured {
        Some(SensorValue::Joint { position, .. }) => position,
        ref other => panic!("{} reads {other:?}", sensor.name),
    }
}

fn distance(a: (f64, f64), b: (f64, f64)) -> f64 {
    (a.0 - b.0).hypot(a.1 - b.1)
}

/// Unwraps a sequence of headings in (−π, π] into a continuous angle.
fn unwrap(headings: &[f64]) -> Vec<f64> {
    let mut out: Vec<f64> = Vec::with_capacity(headings.len());
    for &h in headings {
        match out.last() {
            None => out.push(h),
            Some(&previous) => {
                let delta = (h - previous).rem_euclid(TAU);
                out.push(previous + if delta > PI { delta - TAU } else { delta });
            }
        }
    }
    out
}

/// The circle through `points` that fits them best in the algebraic least-squares
/// sense (Kåsa): minimises Σ (x² + y² + Dx + Ey + F)². Returns centre and radius.
fn fit_circle(points: &[(f64, f64)]) -> ((f64, f64), f64) {
    // Normal equations A·[D, E, F] = b, with rows (x, y, 1) and right-hand side −(x² + y²).
    let mut a = [[0.0f64; 3]; 3];
    let mut b = [0.0f64; 3];
    for &(x, y) in points {
        let row = [x, y, 1.0];
        let rhs = -(x * x + y * y);
        for i in 0..3 {
            for j in 0..3 {
                a[i][j] += row[i] * row[j];
            }
            b[i] += row[i] * rhs;
        }
    }
    let det = |m: [[f64; 3]; 3]| {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    };
    let whole = det(a);
    let solve = |column: usize| {
        let mut m = a;
        for (row, value) in m.iter_mut().zip(b) {
            row[column] = value;
        }
        det(m) / whole
    };
    let (d, e, f) = (solve(0), solve(1), solve(2));
    let centre = (-d / 2.0, -e / 2.0);
    (centre, (centre.0 * centre.0 + centre.1 * centre.1 - f).sqrt())
}

#[test]
fn the_circle_fit_recovers_a_known_circle() {
    let points: Vec<_> =
        (0..50).map(|i| f64::from(i) * 0.1).map(|t| (1.0 + 0.5 * t.sin(), -2.0 + 0.5 * t.cos())).collect();
    let ((cx, cy), r) = fit_circle(&points);
    assert!((cx - 1.0).abs() < 1e-9 && (cy + 2.0).abs() < 1e-9 && (r - 0.5).abs() < 1e-9, "{cx} {cy} {r}");
}

// ------------------------------------------------------------------ the diffbot

/// The diffbot of scenes/diffbot.vlab starts at world (1.5, 2.5) facing +X: ground
/// (1.5, −2.5), heading 0. Its GPS sits on the middle of the axle.
const START: (f64, f64) = (1.5, -2.5);

/// What the diffbot's sensors saw over one full turn.
struct Circle {
    /// Centre and radius of the circle fitted to the GPS track, metres (ground plane).
    centre: (f64, f64),
    radius: f64,
    /// The largest distance of a GPS fix from that circle, metres.
    worst: f64,
    /// Turn rate from the compass, rad/s.
    omega: f64,
}

/// Drives the diffbot with `commands` and fits a circle to its GPS track over one full
/// turn (2π / 0.3 rad/s ≈ 20.9 s), after a second of spin-up.
fn drive_a_circle(commands: Value) -> Circle {
    let mut lab = Lab::file("diffbot.vlab");
    lab.command("diffbot", commands);
    lab.run(1.0, |_| {});
    let (mut track, mut headings, mut times) = (Vec::new(), Vec::new(), Vec::new());
    lab.run(TAU / 0.3, |lab| {
        if lab.step.is_multiple_of(12) {
            track.push(lab.gps("diffbot"));
            headings.push(lab.compass("diffbot"));
            times.push(lab.time());
        }
    });
    let (centre, radius) = fit_circle(&track);
    let headings = unwrap(&headings);
    let omega = (headings.last().unwrap() - headings[0]) / (times.last().unwrap() - times[0]);
    let worst = track.iter().map(|p| (distance(*p, centre) - radius).abs()).fold(0.0, f64::max);
    println!("circle: centre {centre:?}, radius {radius:.4} m, worst deviation {worst:.4} m, ω {omega:.4} rad/s");
    Circle { centre, radius, worst, omega }
}

/// docs/sensors.md: ωR = 6, ωL = 4 rad/s with r = 0.03 m, ℓ = 0.2 m → v = 0.15 m/s,
/// ω = 0.3 rad/s, a circle of radius 0.5 m whose centre is 0.5 m to the robot's left.
///
/// Tolerances: ±10 % on the radius and the turn rate, 5 cm on the centre, 2 cm of
/// deviation from a true circle. The ideal figures assume rolling without slip at
/// contact points exactly r below the axle and ℓ apart; in the physics the rubber
/// wheels sink a fraction of a millimetre into the floor (r shrinks by ~1 %), their
/// 2 cm wide treads touch the floor anywhere across their width (ℓ is uncertain by
/// ±1 cm, ±5 %), the contacts creep a little under the turning load, and the caster's
/// ball adds a small drag. Each of these is a few per cent; a wrong wheel sign, track
/// or radius is off by 50 % or more (R = 0.2 m or an infinite radius).
fn assert_the_half_metre_circle(circle: &Circle) {
    assert!((circle.radius - 0.5).abs() < 0.05, "radius {:.4} m, expected 0.5 m ± 10 %", circle.radius);
    assert!((circle.omega - 0.3).abs() < 0.03, "turn rate {:.4} rad/s, expected 0.3 rad/s ± 10 %", circle.omega);
    let expected_centre = (START.0, START.1 + 0.5);
    assert!(
        distance(circle.centre, expected_centre) < 0.05,
        "centre {:?}, expected {expected_centre:?} (0.5 m to the robot's left)",
        circle.centre
    );
    assert!(circle.worst < 0.02, "the track strays {:.4} m from a circle", circle.worst);
}

#[test]
fn six_and_four_rad_s_on_the_motors_drive_the_half_metre_circle() {
    let circle = drive_a_circle(json!({"m_l": {"speed": 4.0}, "m_r": {"speed": 6.0}}));
    assert_the_half_metre_circle(&circle);
}

#[test]
fn the_drive_at_0_15_m_s_and_0_3_rad_s_drives_the_same_circle() {
    let circle = drive_a_circle(json!({"drive": {"v": 0.15, "omega": 0.3}}));
    assert_the_half_metre_circle(&circle);
}

/// ωR = ωL = 5 rad/s → v = ωr = 0.15 m/s, straight ahead. Speed from two GPS fixes 2 s
/// apart after a second of spin-up, ±5 % (the wheel's sinking and creep, as above;
/// straight ahead nothing depends on the track); heading and sideways drift stay small.
#[test]
fn five_rad_s_on_both_wheels_drive_straight_at_0_15_m_s() {
    let mut lab = Lab::file("diffbot.vlab");
    lab.command("diffbot", json!({"m_l": {"speed": 5.0}, "m_r": {"speed": 5.0}}));
    lab.run(1.0, |_| {});
    let from = lab.gps("diffbot");
    lab.run(2.0, |_| {});
    let to = lab.gps("diffbot");
    let speed = distance(from, to) / 2.0;
    println!("straight: {from:?} → {to:?}, {speed:.4} m/s, heading {:.4}", lab.compass("diffbot"));
    assert!((speed - 0.15).abs() < 0.0075, "speed {speed:.4} m/s, expected 0.15 m/s ± 5 %");
    assert!(to.0 > from.0 + 0.28, "it went along +X: {from:?} → {to:?}");
    assert!((to.1 - START.1).abs() < 0.01, "it drifted sideways: {to:?}");
    assert!(lab.compass("diffbot").abs() < 0.02, "it turned: heading {}", lab.compass("diffbot"));
}

/// ωR = 5, ωL = −5 rad/s → ω = 2·5·0.03 / 0.2 = 1.5 rad/s about the middle of the axle,
/// which stays put. Turn rate from the compass over 3 s after a second of spin-up,
/// ±10 % (the track's uncertainty, as for the circle); the axle's middle (the GPS)
/// stays within 1 cm of where it started.
#[test]
fn opposite_wheels_spin_the_diffbot_in_place_at_1_5_rad_s() {
    let mut lab = Lab::file("diffbot.vlab");
    lab.command("diffbot", json!({"m_l": {"speed": -5.0}, "m_r": {"speed": 5.0}}));
    let mut headings = Vec::new();
    let mut farthest: f64 = 0.0;
    lab.run(4.0, |lab| {
        farthest = farthest.max(distance(lab.gps("diffbot"), START));
        if lab.step >= 240 && lab.step.is_multiple_of(12) {
            headings.push(lab.compass("diffbot"));
        }
    });
    let headings = unwrap(&headings);
    let seconds = (headings.len() - 1) as f64 * 12.0 * lab.dt;
    let omega = (headings.last().unwrap() - headings[0]) / seconds;
    println!("spin: ω {omega:.4} rad/s, farthest from the start {farthest:.4} m");
    assert!((omega - 1.5).abs() < 0.15, "turn rate {omega:.4} rad/s, expected 1.5 rad/s ± 10 %");
    assert!(farthest < 0.01, "the axle wandered {farthest:.4} m");
}

// ------------------------------------------------------------------ the tank

/// The tank starts at world (5, 0.4, 5) facing +X; both motors at +2 rad/s roll it
/// forward (+X) at about 2 · 0.2 = 0.4 m/s, without turning.
#[test]
fn the_tank_drives_forward_when_both_wheels_get_a_positive_speed() {
    let mut lab = Lab::file("tankbot.vlab");
    let (x0, _) = lab.gps("tankbot");
    lab.command("tankbot", json!({"motor_0": {"speed": 2.0}, "motor_2": {"speed": 2.0}}));
    lab.run(4.0, |_| {});
    let (x, y) = lab.gps("tankbot");
    println!("tank: x {x0:.3} → {x:.3}, y {y:.3}, heading {:.4}", lab.compass("tankbot"));
    // 4 s at up to 0.4 m/s, less the spin-up of a 30 kg tank: well over a metre.
    assert!(x - x0 > 1.0, "the tank moved {:.3} m along +X", x - x0);
    assert!((y + 5.0).abs() < 0.1, "the tank drifted sideways to y = {y:.3}");
    assert!(lab.compass("tankbot").abs() < 0.05);
}

// ------------------------------------------------------------------ stall

/// Two diffbots with both wheels at 5 rad/s: one with its bumper 2 cm from a wall, one
/// in the open. Pushing the wall, the wheels' small gear motors (0.03 N·m) cannot turn
/// them against the floor's grip: stalled. The free robot's motors reach their speed.
#[test]
fn a_motor_held_against_a_wall_stalls_and_a_free_one_does_not() {
    let mut lab = Lab::source(
        r#"environment room { width 4; length 4; height 1; gravity -9.81; }
           include "diffbot_robot.vlab";
           // The bumper's front face is 0.08 m ahead of the axle: 2 cm from the east wall (x = 4).
           call diffbot("_wall", 3.9, 1, 0);
           call diffbot("_free", 1, 3, 0);"#,
        "stall.vlab",
    );
    for robot in ["diffbot_wall", "diffbot_free"] {
        lab.command(robot, json!({"m_l": {"speed": 5.0}, "m_r": {"speed": 5.0}}));
    }
    lab.run(2.0, |_| {});
    let stalled = |lab: &Lab, robot: &str| -> BTreeMap<String, bool> {
        lab.report(robot).actuators.iter().map(|a| (a.name.clone(), a.stalled)).collect()
    };
    let (wall, free) = (stalled(&lab, "diffbot_wall"), stalled(&lab, "diffbot_free"));
    println!("against the wall: {wall:?}; free: {free:?}");
    let touching = scalar(&lab.sensor("diffbot_wall", "bump"));
    assert_eq!(touching, 1.0, "the bumper touches the wall");
    assert_eq!(scalar(&lab.sensor("diffbot_free", "bump")), 0.0);
    for motor in ["m_l", "m_r", "drive"] {
        assert!(wall[motor], "{motor} against the wall is not stalled: {wall:?}");
        assert!(!free[motor], "{motor} in the open is stalled: {free:?}");
    }
}

// ------------------------------------------------------------------ odometry

/// Two diffbots drive the same arc (v 0.15 m/s, ω 0.3 rad/s) for 6 s: one's odometry
/// is ideal, the other's draws Thrun's motion noise (α1..α4 = 0.2). Both are compared
/// with their GPS at each odometry reading (20 Hz). The ideal one stays within 2 cm
/// (what is left is wheel creep and the encoders' 1/256 turn quantisation, 0.7 mm of
/// travel a tick); the noisy one wanders several times farther.
#[test]
fn ideal_odometry_follows_the_gps_and_noisy_odometry_drifts_more() {
    let mut lab = Lab::source(
        r#"environment room { width 6; length 6; height 1; gravity -9.81; }
           include "diffbot_robot.vlab";
           call diffbot_with_drift("_ideal", 1.5, 2.5, 0, 0);
           call diffbot_with_drift("_drift", 1.5, 4.5, 0, 0.2);"#,
        "odometry.vlab",
    );
    for robot in ["diffbot_ideal", "diffbot_drift"] {
        lab.command(robot, json!({"drive": {"v": 0.15, "omega": 0.3}}));
    }
    let mut errors: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    lab.run(6.0, |lab| {
        for robot in ["diffbot_ideal", "diffbot_drift"] {
            let odom = lab.sensor(robot, "odom");
            if odom.step != Some(lab.step) {
                continue;
            }
            let Some(SensorValue::Pose2d { x, y, .. }) = odom.measured else { panic!("odom reads {odom:?}") };
            let gps = lab.sensor(robot, "gps");
            assert_eq!(gps.step, odom.step);
            errors.entry(robot).or_default().push(distance((x, y), lab.gps(robot)));
        }
    });
    let summary = |robot: &str| {
        let e = &errors[robot];
        (e.iter().sum::<f64>() / e.len() as f64, e.iter().copied().fold(0.0, f64::max), *e.last().unwrap())
    };
    let (ideal, drift) = (summary("diffbot_ideal"), summary("diffbot_drift"));
    println!("odometry error (mean, max, final): ideal {ideal:?}, with drift {drift:?}");
    assert_eq!(errors["diffbot_ideal"].len(), 120, "20 Hz for 6 s");
    assert!(ideal.1 < 0.02, "ideal odometry strays {:.4} m from the GPS", ideal.1);
    assert!(drift.0 > 3.0 * ideal.0, "noisy odometry's mean error {:.4} m vs ideal {:.4} m", drift.0, ideal.0);
    assert!(drift.2 > 3.0 * ideal.2, "noisy odometry's final error {:.4} m vs ideal {:.4} m", drift.2, ideal.2);
}

// ------------------------------------------------------------------ the arm

/// The arm's shoulder from 0 to 0.8 rad and elbow from 0 to −1.2 rad: both are within
/// 10 % of their step after 1 s of simulation ("about a second"), within 0.01 rad by
/// 2 s, and never overshoot by more than 5 % of their step.
#[test]
fn the_arm_servos_reach_their_angles_without_big_overshoot() {
    let mut lab = Lab::file("arm.vlab");
    let targets = [("shoulder", 0.8), ("elbow", -1.2)];
    lab.command("arm", json!({"shoulder": {"position": 0.8}, "elbow": {"position": -1.2}}));
    let mut overshoot = [0.0f64; 2];
    let mut at_1 = [0.0f64; 2];
    lab.run(2.0, |lab| {
        for (i, (joint, target)) in targets.iter().enumerate() {
            let position = joint_position(&lab.sensor("arm", &format!("{joint}_state")));
            overshoot[i] = overshoot[i].max((position - target) * target.signum());
            if lab.step == 240 {
                at_1[i] = position;
            }
        }
    });
    for (i, (joint, target)) in targets.iter().enumerate() {
        let position = joint_position(&lab.sensor("arm", &format!("{joint}_state")));
        println!(
            "{joint}: at 1 s {:.4}, at 2 s {position:.4}, overshoot {:.4} (target {target})",
            at_1[i], overshoot[i]
        );
        assert!((at_1[i] - target).abs() < 0.1 * target.abs(), "{joint} at 1 s: {:.4}", at_1[i]);
        assert!((position - target).abs() < 0.01, "{joint} at {position:.4}, commanded {target}");
        assert!(overshoot[i] < 0.05 * target.abs(), "{joint} overshot by {:.4} rad", overshoot[i]);
    }
}

/// Commands beyond the servos' limits (shoulder ±2.0, elbow ±2.5 rad) are held at the
/// limit: the report shows the clamped target and the joints never pass it.
#[test]
fn the_arm_servos_respect_their_limits() {
    let mut lab = Lab::file("arm.vlab");
    lab.command("arm", json!({"shoulder": {"position": 3.0}, "elbow": {"position": -3.0}}));
    let report = lab.report("arm");
    let target = |name: &str| match report.actuators.iter().find(|a| a.name == name).unwrap().command {
        vlab_protocol::ActuatorCommand::Position { position } => position,
        other => panic!("{other:?}"),
    };
    assert_eq!((target("shoulder"), target("elbow")), (2.0, -2.5));
    let (mut highest, mut lowest) = (f64::MIN, f64::MAX);
    lab.run(4.0, |lab| {
        highest = highest.max(joint_position(&lab.sensor("arm", "shoulder_state")));
        lowest = lowest.min(joint_position(&lab.sensor("arm", "elbow_state")));
    });
    let shoulder = joint_position(&lab.sensor("arm", "shoulder_state"));
    let elbow = joint_position(&lab.sensor("arm", "elbow_state"));
    println!("limits: shoulder {shoulder:.4} (highest {highest:.4}), elbow {elbow:.4} (lowest {lowest:.4})");
    assert!(highest <= 2.0 + 0.01 && lowest >= -2.5 - 0.01, "past a limit: {highest:.4}, {lowest:.4}");
    assert!((shoulder - 2.0).abs() < 0.03 && (elbow + 2.5).abs() < 0.03, "not at the limits: {shoulder}, {elbow}");
}

// ------------------------------------------------------------------ over HTTP

/// The whole trip through a real server: the instructor uploads diffbot.vlab into an
/// empty lab, commands its drive, steps the lab 480 times (2 s); the robot's report
/// is stamped with the lab's step and time, sensors that update every step carry that
/// same step and time, slower ones the step of their last update, and the GPS shows
/// the robot moved forward and to its left.
#[tokio::test]
async fn a_diffbot_uploaded_over_http_drives_and_reports_in_the_labs_time() {
    let server = TestServer::start(false).await;
    let source = std::fs::read_to_string(scenes_dir().join("diffbot.vlab")).unwrap();
    let response = server
        .http
        .post(server.url("/api/labs/empty/scene"))
        .bearer_auth(TOKEN)
        .header("content-type", "text/plain")
        .body(source)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200, "{}", response.text().await.unwrap());

    let response = server
        .http
        .post(server.url("/api/labs/empty/robots/diffbot/actuators"))
        .bearer_auth(TOKEN)
        .json(&json!({"drive": {"v": 0.15, "omega": 0.3}}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let commanded: RobotReport = response.json().await.unwrap();
    let command = |report: &RobotReport, name: &str| report.actuators.iter().find(|a| a.name == name).unwrap().command;
    assert_eq!(command(&commanded, "drive"), ActuatorCommand::Drive { v: 0.15, omega: 0.3 });
    // ωL = (v − ωℓ/2)/r = 4, ωR = 6 rad/s (to the rounding of the scene's f32 geometry).
    let ActuatorCommand::Speed { speed: left } = command(&commanded, "m_l") else { panic!("m_l is a motor") };
    let ActuatorCommand::Speed { speed: right } = command(&commanded, "m_r") else { panic!("m_r is a motor") };
    assert!((left - 4.0).abs() < 1e-4 && (right - 6.0).abs() < 1e-4, "{left} {right}");

    let state = server.control("empty", ControlAction::Step { steps: 480 }).await;
    assert_eq!(state.step, 480);
    let (status, body) = server.get_json("/api/labs/empty/robots/diffbot").await;
    assert_eq!(status, 200, "{body}");
    let report: RobotReport = serde_json::from_value(body).unwrap();
    assert_eq!(report.step, state.step);
    assert_eq!(report.time, state.time);
    for sensor in &report.sensors {
        let (Some(step), Some(time)) = (sensor.step, sensor.time) else { panic!("{} has no reading", sensor.name) };
        assert_eq!(time, step as f64 * state.dt_secs, "{}: time and step disagree", sensor.name);
        match sensor.rate {
            None => assert_eq!((step, time), (state.step, state.time), "{} updates every step", sensor.name),
            Some(rate) => {
                let period_steps = (1.0 / rate / state.dt_secs).round() as u64;
                assert!(step <= state.step && state.step - step < period_steps, "{} read at step {step}", sensor.name);
            }
        }
    }
    let Some(SensorValue::Vector { values: [x, _, z] }) =
        report.sensors.iter().find(|s| s.name == "gps").unwrap().measured
    else {
        panic!("no GPS fix")
    };
    // 2 s on the 0.5 m circle from (1.5, 2.5) facing +X: forward (+X) and to its left (−Z).
    assert!(x > 1.5 + 0.2 && z < 2.5 - 0.02, "the GPS reads ({x}, {z})");
}
