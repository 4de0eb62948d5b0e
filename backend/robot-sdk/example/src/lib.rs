//! An example robot program in Rust: a bumper-and-turn robot with a lidar (`lidar`)
//! and a differential drive (`drive`), as the course's diffbot
//! (scenes/diffbot_robot.vlab) has them. It cruises while the way ahead is clear and
//! turns in place toward the more open side when something is closer than
//! [`CLEARANCE_M`]. With an odometry (`odom`) it also shows what it thinks: its pose
//! as its estimate, and its lidar's hits as orange dots where that pose puts them.
//!
//! Built to WebAssembly (`cargo build -p vlab-example-bot --target
//! wasm32-unknown-unknown --release`), `vlab_example_bot.wasm` is a program a student
//! can upload; the lab's tests and benches build and run it.

use vlab_robot_sdk::{Color, Robot, RobotProgram, Scan, log, vlab_robot};

/// Closer than this ahead (metres), the robot turns.
pub const CLEARANCE_M: f64 = 0.5;
/// Forward speed while cruising, m/s.
pub const CRUISE_SPEED: f64 = 0.3;
/// Turn rate while turning, rad/s.
pub const TURN_RATE: f64 = 1.0;
/// Half the cone counted as "ahead", radians (15°).
pub const AHEAD_HALF_ANGLE: f64 = 15.0 * std::f64::consts::PI / 180.0;
/// A status line every this many steps of the lab.
pub const REPORT_EVERY_STEPS: u64 = 25;
/// Height of the lidar's hits drawn, metres (the lidar head's).
pub const HIT_HEIGHT_M: f64 = 0.08;

/// What the robot does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// No scan yet: stand still.
    #[default]
    Waiting,
    /// Forward.
    Cruising,
    /// In place, counter-clockwise.
    TurningLeft,
    /// In place, clockwise.
    TurningRight,
}

impl Mode {
    /// The drive's `(v, omega)`.
    pub fn drive(self) -> (f64, f64) {
        match self {
            Mode::Waiting => (0.0, 0.0),
            Mode::Cruising => (CRUISE_SPEED, 0.0),
            Mode::TurningLeft => (0.0, TURN_RATE),
            Mode::TurningRight => (0.0, -TURN_RATE),
        }
    }
}

/// The nearest distance ahead (within [`AHEAD_HALF_ANGLE`] of forward) and the mode
/// it calls for: turn toward the side whose beams are the longer on average.
pub fn decide(scan: &Scan) -> (f64, Mode) {
    let angle = |i: usize| scan.angle_min + i as f64 * scan.angle_step;
    let beams = || scan.ranges.iter().enumerate().map(|(i, &r)| (angle(i), r));
    let front = beams().filter(|(a, _)| a.abs() <= AHEAD_HALF_ANGLE).map(|(_, r)| r).fold(scan.max_range, f64::min);
    if front >= CLEARANCE_M {
        return (front, Mode::Cruising);
    }
    let mean = |side: f64| {
        let (sum, n) = beams().filter(|(a, _)| a * side > 0.0).fold((0.0, 0), |(s, n), (_, r)| (s + r, n + 1));
        if n == 0 { 0.0 } else { sum / f64::from(n) }
    };
    // Angles grow counter-clockwise: positive is the left.
    let mode = if mean(1.0) >= mean(-1.0) { Mode::TurningLeft } else { Mode::TurningRight };
    (front, mode)
}

/// Where the beams that hit something ended, on the ground as seen from `pose`
/// (`[x, y, theta]` of an odometry), at [`HIT_HEIGHT_M`].
pub fn hits(scan: &Scan, pose: [f64; 3]) -> Vec<[f64; 3]> {
    let [x, y, theta] = pose;
    let angle = |i: usize| theta + scan.angle_min + i as f64 * scan.angle_step;
    let hit = |(i, &r): (usize, &f64)| {
        (r < scan.max_range).then(|| [x + r * angle(i).cos(), y + r * angle(i).sin(), HIT_HEIGHT_M])
    };
    scan.ranges.iter().enumerate().filter_map(hit).collect()
}

/// The program: decides on every step's fresh scan (`post_step`), drives accordingly
/// (`pre_step`), and logs a status line every [`REPORT_EVERY_STEPS`] steps and each
/// change of mode.
#[derive(Debug, Default)]
pub struct BumperBot {
    mode: Mode,
    driven: Option<Mode>,
    front_m: Option<f64>,
}

impl RobotProgram for BumperBot {
    fn post_step(&mut self, robot: &mut Robot) {
        let scan = robot.sensor("lidar").scan();
        if let Some(scan) = &scan {
            let (front, mode) = decide(scan);
            self.front_m = Some(front);
            self.mode = mode;
        }
        if let Some(pose) = robot.try_sensor("odom").and_then(|odom| odom.pose2d()) {
            robot.publish_estimate(pose[0], pose[1], pose[2]);
            if let Some(scan) = &scan {
                robot.draw_points(&hits(scan, pose), Color::ORANGE);
            }
        }
        if robot.step_count().is_multiple_of(REPORT_EVERY_STEPS) {
            log!("step {} t={:.3} front={:.2}", robot.step_count(), robot.time(), self.front_m.unwrap_or(f64::NAN));
        }
    }

    fn pre_step(&mut self, robot: &mut Robot) {
        let (v, omega) = self.mode.drive();
        robot.actuator("drive").set(v, omega);
        if self.driven != Some(self.mode) {
            log!("mode: {:?}", self.mode);
            self.driven = Some(self.mode);
        }
    }
}

vlab_robot!(BumperBot);

#[cfg(test)]
mod tests {
    use super::*;
    use vlab_robot_sdk::testing::{Command, Drawing, FakeLab};

    fn scan(ranges: Vec<f64>) -> Scan {
        // 9 beams from -90° to +90°, 22.5° apart: beam 4 straight ahead.
        Scan {
            angle_min: -std::f64::consts::FRAC_PI_2,
            angle_step: std::f64::consts::PI / 8.0,
            max_range: 10.0,
            ranges,
        }
    }

    #[test]
    fn a_clear_way_ahead_is_cruised() {
        assert_eq!(decide(&scan(vec![0.2, 0.2, 5.0, 5.0, 2.0, 5.0, 5.0, 0.2, 0.2])), (2.0, Mode::Cruising));
    }

    #[test]
    fn an_obstacle_ahead_turns_toward_the_open_side() {
        let left_open = scan(vec![0.5, 0.5, 0.5, 0.5, 0.3, 3.0, 3.0, 3.0, 3.0]);
        assert_eq!(decide(&left_open), (0.3, Mode::TurningLeft));
        let right_open = scan(vec![3.0, 3.0, 3.0, 3.0, 0.3, 0.5, 0.5, 0.5, 0.5]);
        assert_eq!(decide(&right_open), (0.3, Mode::TurningRight));
    }

    #[test]
    fn it_waits_for_a_scan_then_acts_on_it() {
        FakeLab::new().sensor("lidar", "Lidar").actuator("drive", "DiffDrive").install();
        let mut bot = BumperBot::default();
        FakeLab::pre_step(&mut bot);
        assert_eq!(FakeLab::with(|lab| lab.take_commands())["drive"], Command::Drive { v: 0.0, omega: 0.0 });
        FakeLab::with(|lab| {
            lab.step = 25;
            lab.set_scan("lidar", -1.0, 0.25, 10.0, &[4.0; 9]);
        });
        FakeLab::post_step(&mut bot);
        FakeLab::pre_step(&mut bot);
        let (commands, console) = FakeLab::with(|lab| (lab.take_commands(), lab.take_console()));
        assert_eq!(commands["drive"], Command::Drive { v: CRUISE_SPEED, omega: 0.0 });
        assert_eq!(console, ["mode: Waiting", "step 25 t=0.000 front=4.00", "mode: Cruising"]);
    }

    #[test]
    fn with_an_odometry_it_shows_its_pose_and_where_its_lidar_hit() {
        let lab = FakeLab::new().sensor("lidar", "Lidar").sensor("odom", "Odometry").actuator("drive", "DiffDrive");
        lab.install();
        FakeLab::with(|lab| {
            lab.set_pose2d("odom", [1.0, 2.0, std::f64::consts::FRAC_PI_2]);
            // Two beams, at -90° and straight ahead: 1 m ahead is a hit, the other saw nothing.
            lab.set_scan("lidar", -std::f64::consts::FRAC_PI_2, std::f64::consts::FRAC_PI_2, 8.0, &[8.0, 1.0]);
        });
        let mut bot = BumperBot::default();
        FakeLab::post_step(&mut bot);
        FakeLab::pre_step(&mut bot);
        let (estimate, drawings) = FakeLab::with(|lab| (lab.estimate(), lab.drawings()));
        assert_eq!(estimate, Some([1.0, 2.0, std::f64::consts::FRAC_PI_2]));
        let [Drawing::Points { points, color }] = drawings.as_slice() else { panic!("{drawings:?}") };
        assert_eq!(*color, Color::ORANGE);
        assert_eq!(points.len(), 1);
        assert!((points[0][0] - 1.0).abs() < 1e-9 && (points[0][1] - 3.0).abs() < 1e-9, "facing +y: {points:?}");
    }
}
