//! The IMU and the landmark sensor against truths computed by hand, in-process (the
//! world and its robots, no server): a body placed at a known roll, pitch and yaw;
//! beacons at known offsets from a robot facing +X or turned a quarter left, one behind
//! it, one above it, one hidden behind a wall; the sensor's rate and its noise
//! repeating from the seed.

use std::f64::consts::{FRAC_PI_2, FRAC_PI_6};

use vlab_protocol::{Landmark, SensorReport, SensorValue};
use vlab_sim::robot::Robots;
use vlab_sim::scene::{self, SceneModel};
use vlab_sim::sim::World;

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

    fn run(&mut self, steps: u64) {
        for _ in 0..steps {
            self.robots.apply_actuators(&mut self.world);
            self.world.step();
            self.step += 1;
            self.robots.update_sensors(&self.world, self.step, self.step as f64 * self.dt);
        }
    }

    fn sensor(&self, robot: &str, sensor: &str) -> SensorReport {
        let report = self.robots.report(robot, &self.world, self.step, self.step as f64 * self.dt).unwrap();
        report.sensors.into_iter().find(|s| s.name == sensor).unwrap()
    }
}

fn interpret(source: &str, seed: u64) -> SceneModel {
    let options = scene::Options { seed, ..scene::Options::default() };
    let result = scene::interpret(source, "test.vlab", &scene::MapLoader::new(), &options);
    result.unwrap_or_else(|e| panic!("scene does not load: {e:?}")).model
}

fn angles(value: &Option<SensorValue>) -> [f64; 3] {
    match value {
        Some(SensorValue::Orientation { roll, pitch, yaw, .. }) => [*roll, *pitch, *yaw],
        other => panic!("not an orientation: {other:?}"),
    }
}

fn seen(value: &Option<SensorValue>) -> Vec<Landmark> {
    match value {
        Some(SensorValue::Landmarks { landmarks }) => landmarks.clone(),
        other => panic!("not landmarks: {other:?}"),
    }
}

fn close(a: [f64; 3], b: [f64; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5)
}

#[test]
fn an_imu_reads_the_roll_pitch_and_yaw_a_body_was_placed_at() {
    // Rotations compose about the world's axes: roll about X first, then pitch about Z,
    // then yaw about Y, which are the IMU's angles in its order.
    let source = r#"
        robot tilted { body { static t { shape box(0.2, 0.1, 0.2); pos(1, 1, 1);
            rotation_axis(1, 0, 0, 0.3); rotation_axis(0, 0, 1, -0.4); rotation_axis(0, 1, 0, 2.0);
            IMU imu; } } }
        robot nose_up { body { static n { shape box(0.2, 0.1, 0.2); pos(3, 1, 1);
            rotation_axis(0, 0, 1, pi/6); IMU imu; } } }
        robot left { body { static l { shape box(0.2, 0.1, 0.2); pos(5, 1, 1);
            rotation_axis(0, 1, 0, pi/2); IMU imu { bias 0.1; } } } }
    "#;
    let bench = Bench::new(source, 1);
    let tilted = bench.sensor("tilted", "imu");
    assert!(close(angles(&tilted.truth), [0.3, -0.4, 2.0]), "{:?}", tilted.truth);
    assert_eq!(tilted.measured, tilted.truth, "no noise declared");
    assert!(close(angles(&bench.sensor("nose_up", "imu").truth), [0.0, FRAC_PI_6, 0.0]));
    // Turned a quarter left, with a bias of 0.1 rad on every angle.
    let left = bench.sensor("left", "imu");
    assert!(close(angles(&left.truth), [0.0, 0.0, FRAC_PI_2]));
    assert!(close(angles(&left.measured), [0.1, 0.1, FRAC_PI_2 + 0.1]));
    // The true quaternion is the body's: a quarter turn about Y is (cos 45°, 0, sin 45°, 0).
    let Some(SensorValue::Orientation { quaternion, .. }) = left.truth else { panic!() };
    let half = std::f64::consts::FRAC_1_SQRT_2;
    assert!(quaternion.iter().zip([half, 0.0, half, 0.0]).all(|(a, b)| (a - b).abs() < 1e-6), "{quaternion:?}");
}

/// A robot at (1, 0.5, 5) facing +X with two landmark sensors (one needing a clear
/// line of sight), and beacons: 3 m ahead, 3 ahead and 4 to the left, 2 behind, 3
/// ahead and 2 up, and one 2 m to the right behind a wall.
const BEACONS: &str = r#"
    static ahead { shape sphere(0.05); pos(4, 0.5, 5); Beacon B1; }
    static ahead_left { shape sphere(0.05); pos(4, 0.5, 1); Beacon B2; }
    static behind { shape sphere(0.05); pos(-1, 0.5, 5); Beacon B3; }
    static above { shape sphere(0.05); pos(4, 2.5, 5); Beacon B4; }
    static hidden { shape sphere(0.05); pos(1, 0.5, 7); Beacon B5; }
    static wall { shape box(1, 1, 0.1); pos(1, 0.5, 6); }
    robot bot { body { static chassis { shape box(0.3, 0.2, 0.3); pos(1, 0.5, 5);
        LandmarkSensor eyes { range 6; }
        LandmarkSensor clear_eyes { range 6; line_of_sight true; fov 3.1; } } } }
"#;

#[test]
fn beacons_read_their_distance_bearing_and_elevation_within_the_field_of_view() {
    let bench = Bench::new(BEACONS, 1);
    let eyes = bench.sensor("bot", "eyes");
    assert_eq!(eyes.rate, Some(10.0), "the landmark sensor's own default rate");
    let sightings = seen(&eyes.truth);
    let ids: Vec<&str> = sightings.iter().map(|l| l.id.as_str()).collect();
    // B3 is behind (180°) and B5 to the right at −90°: outside the 120° field.
    assert_eq!(ids, ["B1", "B2", "B4"]);
    let check = |l: &Landmark, distance: f64, bearing: f64, elevation: f64| {
        assert!((l.distance - distance).abs() < 1e-5, "{l:?}");
        assert!((l.bearing - bearing).abs() < 1e-5, "{l:?}");
        assert!((l.elevation - elevation).abs() < 1e-5, "{l:?}");
    };
    check(&sightings[0], 3.0, 0.0, 0.0);
    // 3 ahead and 4 to the left (world −Z): 5 m at atan2(4, 3) = 0.927295 rad.
    check(&sightings[1], 5.0, 4f64.atan2(3.0), 0.0);
    // 3 ahead and 2 up: √13 m at atan2(2, 3) = 0.588003 rad above.
    check(&sightings[2], 13f64.sqrt(), 0.0, 2f64.atan2(3.0));
    assert_eq!(eyes.measured, eyes.truth, "no noise declared");

    // A field of 3.1 rad reaches B5 at −π/2, but the wall between hides it.
    let clear = seen(&bench.sensor("bot", "clear_eyes").truth);
    assert_eq!(clear.iter().map(|l| l.id.as_str()).collect::<Vec<_>>(), ["B1", "B2", "B4"]);
}

#[test]
fn a_turned_robot_sees_beacons_in_its_own_frame_and_its_rate_is_its_own() {
    // Turned a quarter left: forward is world −Z, so B2 (4 to its front, 3 to its
    // right) is at −atan2(3, 4); B1 is 3 m to its right, at −90°, out of the field.
    let source = BEACONS.replace("pos(1, 0.5, 5);", "pos(1, 0.5, 5); rotation_axis(0, 1, 0, pi/2);");
    let mut bench = Bench::new(&source, 1);
    let sightings = seen(&bench.sensor("bot", "eyes").truth);
    assert_eq!(sightings.len(), 1, "{sightings:?}");
    assert_eq!(sightings[0].id, "B2");
    assert!((sightings[0].bearing + 3f64.atan2(4.0)).abs() < 1e-5, "{sightings:?}");
    bench.run(30);
    // 10 Hz at 240 Hz: readings at steps 0 and 24.
    assert_eq!(bench.sensor("bot", "eyes").step, Some(24));
}

#[test]
fn landmark_noise_repeats_from_the_seed_and_changes_with_it() {
    let noisy = BEACONS
        .replace("LandmarkSensor eyes { range 6; }", "LandmarkSensor eyes { range 6; noise 0.05; angle_noise 0.02; }");
    let read = |seed| seen(&Bench::new(&noisy, seed).sensor("bot", "eyes").measured);
    let (one, again, other) = (read(7), read(7), read(8));
    assert_eq!(one, again);
    assert_ne!(one, other);
    assert_eq!(one.len(), 3, "noise changes the coordinates, not which beacons are seen");
    assert!(one.iter().all(|l| (l.bearing.abs() < 1.0) && l.distance > 2.0), "{one:?}");
}

#[test]
fn a_beacon_inside_a_robot_is_refused_where_it_is_written() {
    let source = "robot r { body { static c { shape box(0.1, 0.1, 0.1); Beacon B; } } }";
    let options = scene::Options::default();
    let errors = scene::interpret(source, "test.vlab", &scene::MapLoader::new(), &options).unwrap_err();
    let message = format!("{errors:?}");
    assert!(message.contains("belongs on an object outside any robot"), "{message}");
    assert!(message.contains("line: 1, col: 55"), "{message}");
}

#[test]
fn a_robot_with_two_radios_is_refused_naming_the_second() {
    let source = "robot r { body { static c { shape box(0.1, 0.1, 0.1); Radio one; Radio two; } } }";
    let model = interpret(source, 1);
    let Err(error) = Robots::configure(&model, 1) else { panic!("two radios are refused") };
    let message = error.to_string();
    assert!(message.contains("two") && message.contains("a second Radio"), "{message}");
}
