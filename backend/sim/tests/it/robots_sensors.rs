//! Each sensor against a truth computed by hand, in-process (world + robots, no
//! server): a lidar facing a wall at a known distance, a compass after a known turn,
//! an accelerometer at rest, a gyro and an encoder on a motored joint, glass that only
//! sound sees, a bumper, rates in sim time, and repeatability from the seed.

use std::f64::consts::PI;

use vlab_protocol::{RobotReport, SensorReport, SensorValue};
use vlab_sim::robot::Robots;
use vlab_sim::scene::{self, SceneModel};
use vlab_sim::sim::World;

/// A lab in miniature: the world, its robots, and the step counter the runner keeps.
struct Bench {
    world: World,
    robots: Robots,
    step: u64,
    dt: f64,
}

impl Bench {
    fn new(source: &str, seed: u64) -> Bench {
        let model = interpret(source, seed);
        let mut world = World::build(&model).unwrap();
        let mut robots = Robots::configure(&model, seed).unwrap();
        robots.install(&mut world, 0, 0.0);
        Bench { world, robots, step: 0, dt: model.dt_secs }
    }

    /// Steps as the lab's runner does: actuators, physics, sensors.
    fn run(&mut self, steps: u64) {
        for _ in 0..steps {
            self.robots.apply_actuators(&mut self.world);
            self.world.step();
            self.step += 1;
            self.robots.update_sensors(&self.world, self.step, self.step as f64 * self.dt);
        }
    }

    fn report(&self, robot: &str) -> RobotReport {
        self.robots.report(robot, &self.world, self.step, self.step as f64 * self.dt).unwrap()
    }

    fn sensor(&self, robot: &str, sensor: &str) -> SensorReport {
        self.report(robot).sensors.into_iter().find(|s| s.name == sensor).unwrap()
    }
}

fn interpret(source: &str, seed: u64) -> SceneModel {
    let options = scene::Options { seed, ..scene::Options::default() };
    let result = scene::interpret(source, "test.vlab", &scene::MapLoader::new(), &options);
    let interpretation = result.unwrap_or_else(|e| panic!("scene does not load: {e:?}"));
    assert!(interpretation.warnings.is_empty(), "{:?}", interpretation.warnings);
    interpretation.model
}

fn scalar(value: &Option<SensorValue>) -> f64 {
    match value {
        Some(SensorValue::Scalar { value }) => *value,
        other => panic!("not a scalar: {other:?}"),
    }
}

fn vector(value: &Option<SensorValue>) -> [f64; 3] {
    match value {
        Some(SensorValue::Vector { values }) => *values,
        other => panic!("not a vector: {other:?}"),
    }
}

fn scan(value: &Option<SensorValue>) -> (f64, f64, Vec<f32>) {
    match value {
        Some(SensorValue::Scan { angle_min, angle_step, ranges, .. }) => (*angle_min, *angle_step, ranges.clone()),
        other => panic!("not a scan: {other:?}"),
    }
}

/// A floor, a wall whose near face is at x = 3.9 (spanning z 3..7), and a static
/// robot at (1, 0.5, 5) whose chassis wraps the sensors' origin.
const WALL_LAB: &str = r#"
    static ground { shape box(12, 0.2, 12); pos(5, -0.1, 5); }
    static wall { shape box(0.2, 2, 4); pos(4, 1, 5); }
    robot bot {
      body {
        static chassis { shape box(0.4, 0.2, 0.3); pos(1, 0.5, 5);
                  Lidar lidar { beams 181; noise 0; }
                  LaserDistance laser { range 10; }
                  Sonar sonar { }
                  SimpleGPS gps { rate 10; } }
      }
    }
"#;

#[test]
fn a_lidar_facing_a_wall_reads_the_distance_along_every_beam() {
    let bench = Bench::new(WALL_LAB, 1);
    let lidar = bench.sensor("bot", "lidar");
    let (angle_min, angle_step, ranges) = scan(&lidar.truth);
    assert_eq!(ranges.len(), 181);
    assert!((angle_min + PI / 2.0).abs() < 1e-12 && (angle_step - PI / 180.0).abs() < 1e-12);
    // Straight ahead: 3.9 − 1 = 2.9 m, through the robot's own chassis.
    assert!((ranges[90] - 2.9).abs() < 1e-3, "ahead: {}", ranges[90]);
    // At ±30° the ray meets the wall's face at 2.9 / cos 30° = 3.3486 m (z = 5 ∓ 1.674,
    // inside the wall's 3..7).
    for beam in [60, 120] {
        assert!((ranges[beam] - 3.3486).abs() < 1e-3, "beam {beam}: {}", ranges[beam]);
    }
    // At ±80° the ray passes the wall's end and the floor is below: nothing within 10 m.
    assert_eq!(ranges[10], 10.0);
    assert_eq!(ranges[170], 10.0);
    // noise 0 in the scene: measured equals truth.
    assert_eq!(lidar.measured, lidar.truth);
    assert!((scalar(&bench.sensor("bot", "laser").truth) - 2.9).abs() < 1e-3);
    // The rays start at the chassis, facing world +X: a viewer draws them from there.
    let origin = lidar.origin.expect("a ray sensor says where its rays started");
    assert!((origin.position[0] - 1.0).abs() < 1e-6 && (origin.position[2] - 5.0).abs() < 1e-6, "{origin:?}");
    assert!(origin.heading.abs() < 1e-6, "{origin:?}");
    assert_eq!(bench.sensor("bot", "gps").origin, None, "only ray sensors cast from somewhere");
}

#[test]
fn readings_carry_the_step_and_sim_time_they_were_taken_at_and_keep_their_rate() {
    let mut bench = Bench::new(WALL_LAB, 1);
    bench.run(30);
    // 10 Hz at 240 Hz: readings at steps 0, 24, 48, ...; the last one at 24.
    let gps = bench.sensor("bot", "gps");
    assert_eq!(gps.rate, Some(10.0));
    assert_eq!(gps.step, Some(24));
    assert_eq!(gps.time, Some(24.0 / 240.0));
    // The lidar's default rate is 40 Hz: every 6 steps.
    let lidar = bench.sensor("bot", "lidar");
    assert_eq!((lidar.step, lidar.time), (Some(30), Some(30.0 / 240.0)));
    // A sensor without a rate reads every step.
    assert_eq!(bench.sensor("bot", "laser").step, Some(30));
    let position = vector(&gps.truth);
    assert!((position[0] - 1.0).abs() < 1e-6 && (position[1] - 0.5).abs() < 1e-6 && (position[2] - 5.0).abs() < 1e-6);
}

#[test]
fn a_compass_reads_the_heading_after_a_known_turn() {
    for degrees in [0.0f64, 30.0, 90.0, 135.0, -60.0] {
        let source = format!(
            r#"robot bot {{ body {{ static c {{ shape box(0.2, 0.2, 0.2); pos(0, 1, 0);
                 rotation_axis(0, 1, 0, {}); Compass compass {{ }} }} }} }}"#,
            degrees.to_radians()
        );
        let bench = Bench::new(&source, 1);
        let heading = scalar(&bench.sensor("bot", "compass").measured);
        assert!((heading - degrees.to_radians()).abs() < 1e-5, "{degrees}°: read {}°", heading.to_degrees());
        assert!((bench.report("bot").pose.heading - degrees.to_radians()).abs() < 1e-5);
    }
}

#[test]
fn an_accelerometer_at_rest_reads_plus_g_up_and_a_falling_one_reads_nothing() {
    let source = r#"
        static ground { shape box(10, 0.2, 10); pos(0, -0.1, 0); }
        robot resting { body { r { shape box(0.3, 0.2, 0.3); pos(0, 0.1, 0); SimpleAccelerometer acc { } } } }
        robot falling { body { f { shape box(0.3, 0.2, 0.3); pos(3, 50, 0); SimpleAccelerometer acc { } } } }
    "#;
    let mut bench = Bench::new(source, 1);
    bench.run(240);
    let [x, y, z] = vector(&bench.sensor("resting", "acc").truth);
    assert!(x.abs() < 0.05 && (y - 9.81).abs() < 0.05 && z.abs() < 0.05, "at rest: {x} {y} {z}");
    // In free fall an accelerometer feels no acceleration at all.
    let falling = vector(&bench.sensor("falling", "acc").truth);
    assert!(falling.iter().all(|c| c.abs() < 0.05), "falling: {falling:?}");
}

#[test]
fn a_gyro_an_encoder_and_a_joint_state_follow_a_motored_joint() {
    // A turntable spun at 2 rad/s about the vertical.
    let source = r#"
        robot spinner {
          body {
            static base { shape box(0.5, 0.1, 0.5); pos(0, 0.05, 0); }
            table { shape cylinder(0.3, 0.05); rotation_axis(1, 0, 0, pi/2); pos(0, 0.2, 0); Gyro gyro { } }
            JointHinge(base, table) { anchor(0, 0.2, 0); axis(0, 1, 0);
              SimpleMotor motor { speed 2; max_force 50; }
              Encoder enc { ticks_per_rev 100; rate 240; }
              JointState state { } }
          }
        }
    "#;
    let mut bench = Bench::new(source, 1);
    bench.run(480); // 2 s
    let report = bench.report("spinner");
    // The table's local frame is turned a quarter about X, so the world's vertical is
    // its local −Z... or +Z: the gyro reads 2 rad/s about that axis and nothing else.
    let [wx, wy, wz] = vector(&bench.sensor("spinner", "gyro").truth);
    assert!(wx.abs() < 0.05 && wy.abs() < 0.05 && (wz.abs() - 2.0).abs() < 0.05, "gyro {wx} {wy} {wz}");
    let (position, velocity) = match bench.sensor("spinner", "state").truth {
        Some(SensorValue::Joint { position, velocity }) => (position, velocity),
        other => panic!("{other:?}"),
    };
    assert!((velocity.abs() - 2.0).abs() < 0.05, "joint rate {velocity}");
    // About 2 s × 2 rad/s, less the spin-up: more than a half-turn (counted through the wrap).
    assert!(position.abs() > 3.5 && position.abs() < 4.05, "turned {position} rad");
    let (ticks, angle) = match bench.sensor("spinner", "enc").measured {
        Some(SensorValue::Ticks { ticks, angle }) => (ticks, angle),
        other => panic!("{other:?}"),
    };
    assert_eq!(ticks, (position * 100.0 / (2.0 * PI)).floor() as i64, "ticks of {position} rad");
    assert!((angle - ticks as f64 * 2.0 * PI / 100.0).abs() < 1e-9);
    let motor = &report.actuators[0];
    assert!(!motor.stalled);
    assert!((motor.joint.unwrap().velocity - velocity).abs() < 1e-9);
}

#[test]
fn glass_is_invisible_to_light_and_solid_to_sound() {
    // A glass pane 1 m ahead, a brick wall 3 m ahead.
    let source = r#"
        static pane { shape box(0.05, 2, 4); pos(2, 1, 0); material "Glass"; }
        static bricks { shape box(0.2, 2, 4); pos(4.1, 1, 0); material "Red"; }
        robot bot { body { static c { shape box(0.2, 0.2, 0.2); pos(1, 1, 0);
            LaserDistance laser { } Infrared ir { } Lidar lidar { beams 181; }
            Sonar sonar { } } } }
    "#;
    let bench = Bench::new(source, 1);
    let laser = scalar(&bench.sensor("bot", "laser").truth);
    let infrared = scalar(&bench.sensor("bot", "ir").truth);
    let sonar = scalar(&bench.sensor("bot", "sonar").truth);
    let (_, _, lidar) = scan(&bench.sensor("bot", "lidar").truth);
    assert!((laser - 3.0).abs() < 1e-3, "laser sees the bricks through the glass: {laser}");
    assert!((infrared - 3.0).abs() < 1e-3, "infrared too: {infrared}");
    assert!((lidar[90] - 3.0).abs() < 1e-3, "lidar too: {}", lidar[90]);
    assert!((sonar - 0.975).abs() < 1e-3, "the sonar hears the glass: {sonar}");
}

#[test]
fn a_sonar_finds_the_nearest_thing_inside_its_cone_and_nothing_outside() {
    // A post 2 m ahead and 0.4 m to the side: 11.3° off axis, inside a 30° cone
    // (half-angle 15°), outside a 10° one.
    let source = |cone: f64| {
        format!(
            r#"static post {{ shape box(0.1, 2, 0.1); pos(3, 1, 0.4); }}
               robot bot {{ body {{ static c {{ shape box(0.2, 0.2, 0.2); pos(1, 1, 0);
                 Sonar sonar {{ cone {}; }} }} }} }}"#,
            cone.to_radians()
        )
    };
    let wide = Bench::new(&source(30.0), 1);
    let reading = scalar(&wide.sensor("bot", "sonar").truth);
    assert!(reading > 1.9 && reading < 2.1, "wide cone: {reading}");
    let narrow = Bench::new(&source(10.0), 1);
    assert_eq!(scalar(&narrow.sensor("bot", "sonar").truth), 5.0, "narrow cone: nothing, so the maximum range");
}

#[test]
fn a_bumper_touches_only_while_in_contact_and_force_holds_up_the_weight() {
    let source = r#"
        static ground { shape box(10, 0.2, 10); pos(0, -0.1, 0); }
        robot bot { body { b { shape box(0.2, 0.2, 0.2); pos(0, 1, 0); density 1000;
            Touch bump { } ForceResistance pad { } } } }
    "#;
    let mut bench = Bench::new(source, 1);
    bench.run(10);
    assert_eq!(scalar(&bench.sensor("bot", "bump").truth), 0.0, "still falling");
    bench.run(480);
    assert_eq!(scalar(&bench.sensor("bot", "bump").truth), 1.0, "resting on the ground");
    match bench.sensor("bot", "pad").truth {
        Some(SensorValue::Contact { touching: true, point: Some(point), force }) => {
            // 8 kg at rest: the ground pushes up with m·g = 78.5 N.
            assert!((force[1] - 8.0 * 9.81).abs() < 2.0 && force[0].abs() < 1.0 && force[2].abs() < 1.0, "{force:?}");
            assert!(point[1].abs() < 0.02, "contact on the ground plane: {point:?}");
        }
        other => panic!("{other:?}"),
    }
}

/// A lidar and a GPS with noise, on a robot that drives.
const NOISY_LAB: &str = r#"
    static ground { shape box(20, 0.2, 20); pos(0, -0.1, 0); }
    static wall { shape box(0.2, 2, 20); pos(5, 1, 0); }
    robot bot { body {
        c { shape box(0.3, 0.1, 0.2); pos(0, 0.2, 0);
            SimpleGPS gps { noise 0.02; bias 0.1; } Lidar lidar { beams 91; scale_noise 0.05; rate 60; }
            SimpleAccelerometer acc { noise 0.1; } }
        w1 { shape cylinder(0.1, 0.02); pos(0, 0.1, 0.15); }
        w2 { shape cylinder(0.1, 0.02); pos(0, 0.1, -0.15); }
        JointHinge(c, w1) { anchor(0, 0.1, 0.15); axis(0, 0, 1); SimpleMotor m1 { speed -3; } }
        JointHinge(c, w2) { anchor(0, 0.1, -0.15); axis(0, 0, 1); SimpleMotor m2 { speed -2; } }
    } }
"#;

fn readings(seed: u64) -> Vec<String> {
    let mut bench = Bench::new(NOISY_LAB, seed);
    (0..60)
        .map(|_| {
            bench.run(8);
            serde_json::to_string(&bench.report("bot")).unwrap()
        })
        .collect()
}

#[test]
fn the_same_seed_gives_identical_readings_and_another_seed_other_noise() {
    let first = readings(11);
    assert_eq!(first, readings(11), "same scene, seed and inputs: the same readings, bit for bit");
    let other = readings(12);
    assert_ne!(first, other);
    // Another seed changes the noise, not the world: true values agree.
    let truth = |json: &str| {
        let report: RobotReport = serde_json::from_str(json).unwrap();
        report.sensors.iter().map(|s| format!("{:?}", s.truth)).collect::<Vec<_>>()
    };
    assert_eq!(truth(&first[59]), truth(&other[59]));
}

#[test]
fn measured_gps_has_the_declared_bias_and_sigma() {
    let mut bench = Bench::new(NOISY_LAB, 5);
    let mut errors = Vec::new();
    for _ in 0..2000 {
        bench.run(1);
        let gps = bench.sensor("bot", "gps");
        let (measured, truth) = (vector(&gps.measured), vector(&gps.truth));
        errors.extend((0..3).map(|i| measured[i] - truth[i]));
    }
    let n = errors.len() as f64;
    let mean = errors.iter().sum::<f64>() / n;
    let sigma = (errors.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    // 6000 draws: the mean's standard error is 0.02/√6000 ≈ 0.00026.
    assert!((mean - 0.1).abs() < 0.002, "bias {mean}");
    assert!((sigma - 0.02).abs() < 0.001, "sigma {sigma}");
}
