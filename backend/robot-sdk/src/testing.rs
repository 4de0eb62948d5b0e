//! [`FakeLab`]: the lab's side of the robot API inside the test's own thread (host
//! targets only), so a program's logic unit-tests without WebAssembly: give it parts
//! and readings, call the program, read the commands and console lines it produced.
//! [`FakeLab::advance`] moves its clock on a control step, and [`FakeLab::pre_step`]
//! and [`FakeLab::post_step`] call the program as the lab does: not while it waits
//! ([`crate::Robot::wait`]).
//!
//! It records what the program believes and draws as the lab shows it after each
//! step ([`FakeLab::estimate`], [`FakeLab::drawings`]). It answers as the lab does
//! (same codes, same kind checks, same drawing budget) but is no substitute for the
//! lab's own tests of the real imports.

mod belief;

use std::cell::RefCell;
use std::collections::BTreeMap;

pub use self::belief::Drawing;
use self::belief::FakeBelief;
use crate::RobotProgram;
use crate::ffi::{reading, status};

/// A command as the lab would receive it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Command {
    /// `set_speed`.
    Speed(f64),
    /// `set_position`.
    Position(f64),
    /// `set(v, omega)`.
    Drive {
        /// Forward speed.
        v: f64,
        /// Turn rate.
        omega: f64,
    },
}

#[derive(Clone, Debug, Default)]
struct Reading {
    kind: i32,
    values: Vec<f64>,
    keys: Vec<String>,
    bytes: Vec<u8>,
}

/// A lab in a test: one robot's parts, their readings, the clock; what the program did.
#[derive(Clone, Debug, Default)]
pub struct FakeLab {
    sensors: Vec<(String, String)>,
    actuators: Vec<(String, String)>,
    readings: Vec<Reading>,
    /// Step and time of the readings.
    pub step: u64,
    /// Seconds.
    pub time_secs: f64,
    /// Seconds per control step.
    pub dt_secs: f64,
    /// The seed handed to the program.
    pub seed: u64,
    /// Commands set since [`FakeLab::take_commands`].
    commands: BTreeMap<String, Command>,
    /// Console lines logged.
    console: Vec<String>,
    /// The estimate and drawings published.
    belief: FakeBelief,
    /// Radio messages sent since [`FakeLab::take_radio`].
    radio: Vec<String>,
}

thread_local! {
    static LAB: RefCell<FakeLab> = RefCell::new(FakeLab::default());
}

impl FakeLab {
    /// A robot without parts, at step 0, 50 Hz.
    pub fn new() -> FakeLab {
        FakeLab { dt_secs: 0.02, ..FakeLab::default() }
    }

    /// Adds a sensor.
    pub fn sensor(mut self, name: &str, kind: &str) -> FakeLab {
        self.sensors.push((name.into(), kind.into()));
        self.readings.push(Reading::default());
        self
    }

    /// Adds an actuator.
    pub fn actuator(mut self, name: &str, kind: &str) -> FakeLab {
        self.actuators.push((name.into(), kind.into()));
        self
    }

    /// Makes this the lab of the current thread (what the program's calls reach), for
    /// a program that starts now (without a wait).
    pub fn install(self) {
        LAB.with(|lab| *lab.borrow_mut() = self);
        crate::program::forget_wait();
    }

    /// One control step later: `time_secs` moves on by `dt_secs` and `step` by one (a
    /// test that wants the lab's own step numbers sets `step` itself).
    pub fn advance(&mut self) {
        self.step += 1;
        self.time_secs += self.dt_secs;
    }

    /// Runs `change` on the current thread's lab.
    pub fn with<R>(change: impl FnOnce(&mut FakeLab) -> R) -> R {
        LAB.with(|lab| change(&mut lab.borrow_mut()))
    }

    fn set(&mut self, name: &str, reading: Reading) {
        let index = self.sensors.iter().position(|(n, _)| n == name).unwrap_or_else(|| panic!("no sensor {name:?}"));
        self.readings[index] = reading;
    }

    /// An IMU's reading: roll, pitch, yaw (radians) and the quaternion `[w, x, y, z]`.
    pub fn set_orientation(&mut self, name: &str, angles: [f64; 3], quaternion: [f64; 4]) {
        let values = angles.into_iter().chain(quaternion).collect();
        self.set(name, Reading { kind: reading::ORIENTATION, values, keys: vec![], bytes: vec![] });
    }

    /// A landmark sensor's reading: `(id, distance, bearing, elevation)` per beacon.
    pub fn set_landmarks(&mut self, name: &str, seen: &[(&str, f64, f64, f64)]) {
        let values = seen.iter().flat_map(|&(_, d, b, e)| [d, b, e]).collect();
        let keys = seen.iter().map(|(id, ..)| id.to_string()).collect();
        self.set(name, Reading { kind: reading::LANDMARKS, values, keys, bytes: vec![] });
    }

    /// A radio's reading: the messages heard at this step, `(sender, text)`.
    pub fn set_heard(&mut self, name: &str, heard: &[(&str, &str)]) {
        let keys = heard.iter().flat_map(|(from, text)| [from.to_string(), text.to_string()]).collect();
        self.set(name, Reading { kind: reading::RADIO, values: vec![heard.len() as f64], keys, bytes: vec![] });
    }

    /// The radio messages sent since the last call, in order.
    pub fn take_radio(&mut self) -> Vec<String> {
        std::mem::take(&mut self.radio)
    }

    /// A one-number reading.
    pub fn set_scalar(&mut self, name: &str, value: f64) {
        self.set(name, Reading { kind: reading::SCALAR, values: vec![value], keys: vec![], bytes: vec![] });
    }

    /// A three-number reading.
    pub fn set_vector(&mut self, name: &str, values: [f64; 3]) {
        self.set(name, Reading { kind: reading::VECTOR, values: values.to_vec(), keys: vec![], bytes: vec![] });
    }

    /// A scan.
    pub fn set_scan(&mut self, name: &str, angle_min: f64, angle_step: f64, max_range: f64, ranges: &[f64]) {
        let mut values = vec![angle_min, angle_step, max_range];
        values.extend_from_slice(ranges);
        self.set(name, Reading { kind: reading::SCAN, values, keys: vec![], bytes: vec![] });
    }

    /// A camera's image: `width × height` RGB pixels, row-major from the top-left.
    pub fn set_image(&mut self, name: &str, width: u32, height: u32, rgb: &[u8]) {
        let mut mean = [0u64; 3];
        for pixel in rgb.chunks_exact(3) {
            (0..3).for_each(|c| mean[c] += u64::from(pixel[c]));
        }
        let count = (rgb.len() as u64 / 3).max(1);
        let mut values = vec![f64::from(width), f64::from(height)];
        values.extend(mean.map(|sum| (sum / count) as f64));
        self.set(name, Reading { kind: reading::IMAGE, values, keys: vec![], bytes: rgb.to_vec() });
    }

    /// A depth camera's image: `width × height` distances (metres) along the optical
    /// axis, row-major from the top-left, sent as the lab does (whole millimetres).
    pub fn set_depth_image(&mut self, name: &str, width: u32, height: u32, max_range: f64, depths: &[f64]) {
        let nearest = depths.iter().copied().fold(max_range, f64::min);
        let values = vec![f64::from(width), f64::from(height), max_range, nearest];
        let bytes = depths.iter().flat_map(|d| ((d * 1000.0).round() as u16).to_le_bytes()).collect();
        self.set(name, Reading { kind: reading::DEPTH_IMAGE, values, keys: vec![], bytes });
    }

    /// An odometry's `[x, y, theta]`.
    pub fn set_pose2d(&mut self, name: &str, pose: [f64; 3]) {
        self.set(name, Reading { kind: reading::POSE2D, values: pose.to_vec(), keys: vec![], bytes: vec![] });
    }

    /// A keyboard's keys held.
    pub fn set_keys(&mut self, name: &str, keys: &[&str]) {
        self.set(
            name,
            Reading {
                kind: reading::KEYS,
                values: vec![],
                keys: keys.iter().map(|k| k.to_string()).collect(),
                bytes: vec![],
            },
        );
    }

    /// The commands set since the last call.
    pub fn take_commands(&mut self) -> BTreeMap<String, Command> {
        std::mem::take(&mut self.commands)
    }

    /// The console lines logged since the last call.
    pub fn take_console(&mut self) -> Vec<String> {
        std::mem::take(&mut self.console)
    }

    /// The latest estimate the program published, `[x, y, theta]`.
    pub fn estimate(&self) -> Option<[f64; 3]> {
        self.belief.estimate
    }

    /// What the view shows: the kept drawings, then those of the latest step (as of
    /// the last [`FakeLab::pre_step`], which ends a step as the lab's answer does).
    pub fn drawings(&self) -> Vec<Drawing> {
        self.belief.drawings()
    }

    /// Runs `program`'s `pre_step` against the current thread's lab, as the lab does:
    /// not while it waits ([`crate::Robot::wait`]). Returns whether it ran. It ends
    /// the control step: its drawings replace the previous step's.
    pub fn pre_step(program: &mut impl RobotProgram) -> bool {
        let ran = crate::program::run_pre_step(program);
        FakeLab::with(|lab| lab.belief.answer());
        ran
    }

    /// Runs `program`'s `post_step` against the current thread's lab, as the lab does:
    /// not while it waits. Returns whether it ran.
    pub fn post_step(program: &mut impl RobotProgram) -> bool {
        crate::program::run_post_step(program)
    }
}

/// The imports of `crate::ffi`, answered by the thread's [`FakeLab`].
pub(crate) mod host {
    use super::*;

    fn lab<R>(f: impl FnOnce(&mut FakeLab) -> R) -> R {
        FakeLab::with(f)
    }

    fn reading_of(lab: &FakeLab, index: i32) -> Option<&Reading> {
        usize::try_from(index).ok().and_then(|i| lab.readings.get(i))
    }

    fn write(text: Option<String>, buf: &mut [u8]) -> i32 {
        let Some(text) = text else { return status::NO_SUCH_PART };
        let n = text.len().min(buf.len());
        buf[..n].copy_from_slice(&text.as_bytes()[..n]);
        text.len() as i32
    }

    fn part(parts: &[(String, String)], index: i32) -> Option<&(String, String)> {
        usize::try_from(index).ok().and_then(|i| parts.get(i))
    }

    pub fn log(text: &str) {
        lab(|lab| lab.console.push(text.to_string()));
    }
    pub fn time() -> f64 {
        lab(|lab| lab.time_secs)
    }
    pub fn step_count() -> i64 {
        lab(|lab| lab.step as i64)
    }
    pub fn dt() -> f64 {
        lab(|lab| lab.dt_secs)
    }
    pub fn seed() -> i64 {
        lab(|lab| lab.seed as i64)
    }
    pub fn sensor_count() -> i32 {
        lab(|lab| lab.sensors.len() as i32)
    }
    pub fn actuator_count() -> i32 {
        lab(|lab| lab.actuators.len() as i32)
    }
    pub fn sensor_find(name: &str) -> i32 {
        lab(|lab| lab.sensors.iter().position(|(n, _)| n == name).map_or(status::NO_SUCH_PART, |i| i as i32))
    }
    pub fn actuator_find(name: &str) -> i32 {
        lab(|lab| lab.actuators.iter().position(|(n, _)| n == name).map_or(status::NO_SUCH_PART, |i| i as i32))
    }
    pub fn sensor_name(index: i32, buf: &mut [u8]) -> i32 {
        write(lab(|lab| part(&lab.sensors, index).map(|p| p.0.clone())), buf)
    }
    pub fn sensor_kind(index: i32, buf: &mut [u8]) -> i32 {
        write(lab(|lab| part(&lab.sensors, index).map(|p| p.1.clone())), buf)
    }
    pub fn actuator_name(index: i32, buf: &mut [u8]) -> i32 {
        write(lab(|lab| part(&lab.actuators, index).map(|p| p.0.clone())), buf)
    }
    pub fn actuator_kind(index: i32, buf: &mut [u8]) -> i32 {
        write(lab(|lab| part(&lab.actuators, index).map(|p| p.1.clone())), buf)
    }
    pub fn reading_type(index: i32) -> i32 {
        lab(|lab| reading_of(lab, index).map_or(status::NO_SUCH_PART, |r| r.kind))
    }
    pub fn reading_len(index: i32) -> i32 {
        lab(|lab| {
            reading_of(lab, index).map_or(status::NO_SUCH_PART, |r| {
                if r.kind == reading::KEYS { r.keys.len() as i32 } else { r.values.len() as i32 }
            })
        })
    }
    pub fn reading_value(index: i32, k: i32) -> f64 {
        lab(|lab| reading_of(lab, index).and_then(|r| usize::try_from(k).ok().and_then(|k| r.values.get(k))).copied())
            .unwrap_or(f64::NAN)
    }
    pub fn reading_read(index: i32, buf: &mut [f64]) -> i32 {
        lab(|lab| {
            let Some(r) = reading_of(lab, index) else { return status::NO_SUCH_PART };
            let n = r.values.len().min(buf.len());
            buf[..n].copy_from_slice(&r.values[..n]);
            r.values.len() as i32
        })
    }
    pub fn reading_bytes(index: i32, buf: &mut [u8]) -> i32 {
        lab(|lab| {
            let Some(r) = reading_of(lab, index) else { return status::NO_SUCH_PART };
            let n = r.bytes.len().min(buf.len());
            buf[..n].copy_from_slice(&r.bytes[..n]);
            r.bytes.len() as i32
        })
    }
    pub fn key_held(index: i32, key: &str) -> i32 {
        lab(|lab| {
            let (Some(r), Some((_, kind))) = (reading_of(lab, index), part(&lab.sensors, index)) else {
                return status::NO_SUCH_PART;
            };
            match r.kind {
                reading::KEYS => i32::from(r.keys.iter().any(|k| k.eq_ignore_ascii_case(key))),
                reading::NONE if kind == "Keyboard" => 0,
                _ => status::WRONG_KIND,
            }
        })
    }
    pub fn key_name(index: i32, k: i32, buf: &mut [u8]) -> i32 {
        let key = lab(|lab| {
            reading_of(lab, index).and_then(|r| usize::try_from(k).ok().and_then(|k| r.keys.get(k))).cloned()
        });
        write(key, buf)
    }
    fn command(index: i32, kind: &str, values: &[f64], command: Command) -> i32 {
        lab(|lab| {
            let Some((name, actual)) = part(&lab.actuators, index).cloned() else { return status::NO_SUCH_PART };
            if actual != kind {
                return status::WRONG_KIND;
            }
            if !values.iter().all(|v| v.is_finite()) {
                return status::NOT_FINITE;
            }
            lab.commands.insert(name, command);
            status::OK
        })
    }
    pub fn set_speed(index: i32, speed: f64) -> i32 {
        command(index, "SimpleMotor", &[speed], Command::Speed(speed))
    }
    pub fn set_position(index: i32, position: f64) -> i32 {
        command(index, "SimpleServo", &[position], Command::Position(position))
    }
    pub fn set_drive(index: i32, v: f64, omega: f64) -> i32 {
        command(index, "DiffDrive", &[v, omega], Command::Drive { v, omega })
    }
    pub fn publish_estimate(x: f64, y: f64, theta: f64) -> i32 {
        lab(|lab| lab.belief.publish_estimate(x, y, theta))
    }
    pub fn draw_points(points: &[[f64; 3]], color: &str, keep: bool) -> i32 {
        lab(|lab| lab.belief.draw(false, points, color, keep))
    }
    pub fn draw_lines(points: &[[f64; 3]], color: &str, keep: bool) -> i32 {
        lab(|lab| lab.belief.draw(true, points, color, keep))
    }
    pub fn draw_text(at: [f64; 3], text: &str, color: &str, keep: bool) -> i32 {
        lab(|lab| lab.belief.draw_text(at, text, color, keep))
    }
    pub fn clear_drawings() {
        lab(|lab| lab.belief.clear());
    }
    pub fn hold_drawings() {
        lab(|lab| lab.belief.hold());
    }
    pub fn radio_send(text: &str) -> i32 {
        lab(|lab| {
            if !lab.sensors.iter().any(|(_, kind)| kind == "Radio") {
                return status::NO_SUCH_PART;
            }
            if lab.radio.len() >= crate::MAX_SENT_PER_STEP || text.len() > 1024 {
                return status::OVER_BUDGET;
            }
            lab.radio.push(text.to_owned());
            status::OK
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Robot;

    #[derive(Default)]
    struct Echo {
        steps: u32,
    }

    impl RobotProgram for Echo {
        fn pre_step(&mut self, robot: &mut Robot) {
            self.steps += 1;
            let scan = robot.sensor("lidar").scan();
            let held = robot.sensor("kbd").key("j");
            let front = scan.as_ref().map_or(f64::INFINITY, |s| s.ranges.iter().copied().fold(f64::INFINITY, f64::min));
            robot.actuator("base").set(front.min(1.0), if held { 1.0 } else { 0.0 });
            crate::log!("step {} at {:.2} s", robot.step_count(), robot.time());
        }
    }

    fn lab() -> FakeLab {
        FakeLab::new().sensor("lidar", "Lidar").sensor("kbd", "Keyboard").actuator("base", "DiffDrive")
    }

    #[test]
    fn readings_reach_the_program_and_commands_come_back() {
        lab().install();
        FakeLab::with(|lab| {
            lab.set_scan("lidar", -1.0, 0.5, 10.0, &[3.0, 0.4, 5.0]);
            lab.set_keys("kbd", &["J"]);
            lab.step = 10;
            lab.time_secs = 0.25;
        });
        let mut echo = Echo::default();
        FakeLab::pre_step(&mut echo);
        let (commands, console) = FakeLab::with(|lab| (lab.take_commands(), lab.take_console()));
        assert_eq!(commands["base"], Command::Drive { v: 0.4, omega: 1.0 });
        assert_eq!(console, vec!["step 10 at 0.25 s".to_string()]);
    }

    #[test]
    fn a_keyboard_without_a_reading_holds_nothing_and_a_scan_is_none() {
        lab().install();
        let mut echo = Echo::default();
        FakeLab::pre_step(&mut echo);
        let commands = FakeLab::with(|lab| lab.take_commands());
        assert_eq!(commands["base"], Command::Drive { v: 1.0, omega: 0.0 });
    }

    #[test]
    fn a_program_reads_a_cameras_pixels_and_a_depth_cameras_distances() {
        FakeLab::new().sensor("eye", "Camera").sensor("depth", "DepthCamera").install();
        let robot = Robot::new();
        assert_eq!(robot.sensor("eye").image(), None, "none before the first image");
        FakeLab::with(|lab| {
            lab.set_image("eye", 2, 2, &[200, 52, 44, 0, 0, 0, 1, 2, 3, 9, 8, 7]);
            lab.set_depth_image("depth", 2, 1, 10.0, &[2.9, 10.0]);
        });
        let image = robot.sensor("eye").image().unwrap();
        assert_eq!((image.width, image.height), (2, 2));
        assert_eq!(image.pixel(0, 0), Some([200, 52, 44]));
        assert_eq!(image.pixel(1, 1), Some([9, 8, 7]));
        assert_eq!(image.pixel(2, 0), None);
        let depth = robot.sensor("depth").depth_image().unwrap();
        assert_eq!((depth.at(0, 0), depth.at(1, 0), depth.max_range), (Some(2.9), Some(10.0), 10.0));
        assert_eq!(robot.sensor("depth").image(), None, "a depth camera has no colour image");
    }

    #[test]
    fn a_missing_part_names_the_parts_the_robot_has() {
        lab().install();
        let error = std::panic::catch_unwind(|| Robot::new().sensor("sonar")).unwrap_err();
        let message = error.downcast_ref::<String>().unwrap();
        assert_eq!(message, "no sensor \"sonar\": this robot has lidar (Lidar), kbd (Keyboard)");
    }

    #[test]
    fn a_command_of_the_wrong_kind_panics_with_the_right_one() {
        lab().install();
        let error = std::panic::catch_unwind(|| Robot::new().actuator("base").set_speed(1.0)).unwrap_err();
        let message = error.downcast_ref::<String>().unwrap();
        assert_eq!(message, "actuator \"base\" is a DiffDrive: use set(v, omega), not set_speed()");
        assert!(FakeLab::with(|lab| lab.take_commands()).is_empty());
    }

    /// "Drive 2 s, turn 1 s, stop", written with waits.
    #[derive(Default)]
    struct Dance {
        leg: u32,
    }

    impl RobotProgram for Dance {
        fn pre_step(&mut self, robot: &mut Robot) {
            let base = robot.actuator("base");
            crate::log!("leg {} at {:.2} s", self.leg, robot.time());
            match self.leg {
                0 => {
                    base.set(0.2, 0.0);
                    robot.wait(2.0);
                }
                1 => {
                    base.set(0.0, 1.0);
                    robot.wait(1.0);
                }
                _ => base.set(0.0, 0.0),
            }
            self.leg += 1;
        }
    }

    /// Runs `program` for `steps` control steps of a 50 Hz lab (post_step, then
    /// pre_step, as the lab calls them) and returns, per step, its time and the
    /// commands it sent.
    fn run(program: &mut impl RobotProgram, steps: u32) -> Vec<(f64, BTreeMap<String, Command>)> {
        let mut sent = Vec::new();
        FakeLab::pre_step(program);
        sent.push((0.0, FakeLab::with(|lab| lab.take_commands())));
        for _ in 0..steps {
            FakeLab::with(FakeLab::advance);
            FakeLab::post_step(program);
            FakeLab::pre_step(program);
            sent.push(FakeLab::with(|lab| (lab.time_secs, lab.take_commands())));
        }
        sent
    }

    #[test]
    fn a_wait_keeps_the_commands_and_skips_the_program_until_its_time() {
        lab().install();
        let mut dance = Dance::default();
        let sent = run(&mut dance, 200);
        let changes: Vec<(usize, Command)> =
            sent.iter().enumerate().filter_map(|(i, (_, c))| c.get("base").map(|c| (i, *c))).collect();
        // Called at 0 s, then not before 2.00 s (step 100), then not before 3.00 s.
        assert_eq!(changes[0], (0, Command::Drive { v: 0.2, omega: 0.0 }));
        assert_eq!(changes[1], (100, Command::Drive { v: 0.0, omega: 1.0 }));
        assert_eq!(changes[2], (150, Command::Drive { v: 0.0, omega: 0.0 }));
        assert_eq!(changes.len(), 2 + 51, "after its waits it is called every step: {changes:?}");
        assert!((sent[100].0 - 2.0).abs() < 1e-9 && (sent[150].0 - 3.0).abs() < 1e-9);
        let console = FakeLab::with(|lab| lab.take_console());
        assert_eq!(console[..3], ["leg 0 at 0.00 s", "leg 1 at 2.00 s", "leg 2 at 3.00 s"]);
    }

    #[test]
    fn the_same_program_sends_the_same_commands_at_the_same_times() {
        lab().install();
        let first = run(&mut Dance::default(), 200);
        lab().install();
        let second = run(&mut Dance::default(), 200);
        assert_eq!(first, second);
    }

    /// Waits in `post_step` for `seconds`, counting the calls it gets.
    struct Napper {
        seconds: f64,
        times: u32,
        pre: u32,
        post: u32,
    }

    impl RobotProgram for Napper {
        fn pre_step(&mut self, _robot: &mut Robot) {
            self.pre += 1;
        }

        fn post_step(&mut self, robot: &mut Robot) {
            self.post += 1;
            for _ in 0..self.times {
                robot.wait(self.seconds);
            }
        }
    }

    #[test]
    fn a_wait_in_post_step_skips_that_steps_pre_step_and_waits_add_up() {
        lab().install();
        // 0.05 s at 50 Hz is 2.5 control steps: it ends at the third.
        let mut napper = Napper { seconds: 0.05, times: 1, pre: 0, post: 0 };
        FakeLab::with(FakeLab::advance);
        assert!(FakeLab::post_step(&mut napper));
        assert!(!FakeLab::pre_step(&mut napper), "the same step's pre_step waits too");
        let mut called = Vec::new();
        for _ in 0..3 {
            FakeLab::with(FakeLab::advance);
            called.push(FakeLab::post_step(&mut napper));
        }
        assert_eq!(called, [false, false, true]);
        assert_eq!((napper.pre, napper.post), (0, 2));

        // Two waits of 0.04 s in one call: 0.08 s, four control steps.
        lab().install();
        let mut twice = Napper { seconds: 0.04, times: 2, pre: 0, post: 0 };
        FakeLab::post_step(&mut twice);
        let mut woke = 0;
        while !FakeLab::pre_step(&mut twice) {
            FakeLab::with(FakeLab::advance);
            woke += 1;
        }
        assert_eq!(woke, 4);

        // No wait at all: every call runs.
        lab().install();
        let mut awake = Napper { seconds: 0.0, times: 1, pre: 0, post: 0 };
        assert!(FakeLab::post_step(&mut awake) && FakeLab::pre_step(&mut awake));
    }

    #[test]
    fn a_negative_or_endless_wait_panics_and_waits_for_nothing() {
        lab().install();
        for seconds in [-1.0, f64::NAN, f64::INFINITY] {
            let error = std::panic::catch_unwind(|| Robot::new().wait(seconds)).unwrap_err();
            let message = error.downcast_ref::<String>().unwrap();
            assert!(message.starts_with(&format!("wait({seconds}): the time to wait must be")), "{message}");
        }
        assert!(FakeLab::pre_step(&mut Echo::default()));
    }

    #[test]
    fn long_names_are_read_whole() {
        let long = "a_sensor_with_a_name_much_longer_than_sixty_four_bytes_to_force_a_second_read";
        FakeLab::new().sensor(long, "Compass").install();
        assert_eq!(Robot::new().sensors(), vec![long.to_string()]);
    }
}
