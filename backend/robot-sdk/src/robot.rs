//! [`Robot`], [`Sensor`] and [`Actuator`]: the robot API of `docs/programs.md`, typed.

use crate::ffi::{self, reading, status};

/// The robot a program drives, handed to every [`crate::RobotProgram`] call.
#[derive(Debug)]
pub struct Robot {
    _only_the_sdk_makes_it: (),
}

/// A sensor of the robot, found by name: a small `Copy` handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sensor {
    pub(crate) index: i32,
}

/// An actuator of the robot, found by name: a small `Copy` handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Actuator {
    index: i32,
}

/// A planar scan: `ranges[i]` is along `angle_min + i·angle_step` (radians,
/// counter-clockwise from the robot's forward axis), `max_range` where nothing was hit.
#[derive(Clone, Debug, PartialEq)]
pub struct Scan {
    /// First beam's angle, radians.
    pub angle_min: f64,
    /// Angle between neighbouring beams, radians.
    pub angle_step: f64,
    /// Longest distance reported, metres.
    pub max_range: f64,
    /// Distances, metres.
    pub ranges: Vec<f64>,
}

/// A camera image: `width × height` pixels, `pixels` holding R, G, B (0–255) of each,
/// row-major from the top-left (pixel `(x, y)` starts at `3 * (y * width + x)`).
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    /// Pixels across.
    pub width: usize,
    /// Pixels down.
    pub height: usize,
    /// RGB bytes.
    pub pixels: Vec<u8>,
}

impl Image {
    /// `[r, g, b]` of column `x` (0 at the left), row `y` (0 at the top); `None` outside.
    pub fn pixel(&self, x: usize, y: usize) -> Option<[u8; 3]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = 3 * (y * self.width + x);
        self.pixels.get(i..i + 3).map(|p| [p[0], p[1], p[2]])
    }
}

/// A depth camera image: `width × height` distances along the optical axis (metres, to
/// the millimetre; `max_range` where nothing is within range), row-major from the
/// top-left.
#[derive(Clone, Debug, PartialEq)]
pub struct DepthImage {
    /// Pixels across.
    pub width: usize,
    /// Pixels down.
    pub height: usize,
    /// The distance of a pixel that sees nothing, metres.
    pub max_range: f64,
    /// Distances, metres.
    pub depths: Vec<f64>,
}

impl DepthImage {
    /// The distance at column `x`, row `y`; `None` outside.
    pub fn at(&self, x: usize, y: usize) -> Option<f64> {
        (x < self.width && y < self.height).then(|| self.depths[y * self.width + x])
    }
}

impl Robot {
    pub(crate) fn new() -> Robot {
        Robot { _only_the_sdk_makes_it: () }
    }

    /// The sensor called `name` in the scene.
    ///
    /// # Panics
    /// When the robot has none: the message names the sensors it has (the lab shows it
    /// and stops the program, as Python's `VlabError` does).
    #[track_caller]
    pub fn sensor(&self, name: &str) -> Sensor {
        match self.try_sensor(name) {
            Some(sensor) => sensor,
            None => panic!("no sensor {name:?}: {}", describe(self.sensors_with_kinds())),
        }
    }

    /// The sensor called `name`, if the robot has one.
    pub fn try_sensor(&self, name: &str) -> Option<Sensor> {
        match ffi::sensor_find(name) {
            status::NO_SUCH_PART => None,
            index => Some(Sensor { index }),
        }
    }

    /// The actuator called `name` in the scene.
    ///
    /// # Panics
    /// When the robot has none, naming the actuators it has.
    #[track_caller]
    pub fn actuator(&self, name: &str) -> Actuator {
        match self.try_actuator(name) {
            Some(actuator) => actuator,
            None => panic!("no actuator {name:?}: {}", describe(self.actuators_with_kinds())),
        }
    }

    /// The actuator called `name`, if the robot has one.
    pub fn try_actuator(&self, name: &str) -> Option<Actuator> {
        match ffi::actuator_find(name) {
            status::NO_SUCH_PART => None,
            index => Some(Actuator { index }),
        }
    }

    /// The sensors' names, in the scene's order.
    pub fn sensors(&self) -> Vec<String> {
        self.sensors_with_kinds().into_iter().map(|(name, _)| name).collect()
    }

    /// The actuators' names, in the scene's order.
    pub fn actuators(&self) -> Vec<String> {
        self.actuators_with_kinds().into_iter().map(|(name, _)| name).collect()
    }

    fn sensors_with_kinds(&self) -> Vec<(String, String)> {
        (0..ffi::sensor_count()).map(|i| (Sensor { index: i }.name(), Sensor { index: i }.kind())).collect()
    }

    fn actuators_with_kinds(&self) -> Vec<(String, String)> {
        (0..ffi::actuator_count()).map(|i| (Actuator { index: i }.name(), Actuator { index: i }.kind())).collect()
    }

    /// Simulation time of the latest readings, seconds.
    pub fn time(&self) -> f64 {
        ffi::time()
    }

    /// The lab's step of the latest readings.
    pub fn step_count(&self) -> u64 {
        ffi::step_count() as u64
    }

    /// Seconds of simulation per control step (the time between two `pre_step`s).
    pub fn dt(&self) -> f64 {
        ffi::dt()
    }

    /// Keeps the commands set so far for `seconds` of simulation time: the lab steps on,
    /// the robot keeps its commands, and the program's `pre_step` and `post_step` are
    /// not called until the first control step at or after that time, where both run
    /// again as usual (`post_step` with that step's readings, then `pre_step`).
    ///
    /// Commands set in this call, before or after `wait`, are sent as usual. A wait
    /// asked for in `post_step` skips that step's `pre_step` too; two waits in one call
    /// add up; `wait(0.0)` changes nothing. It is simulation time, so a wait is as long
    /// on every run, on any machine, and stops while the lab is paused.
    ///
    /// ```
    /// use vlab_robot_sdk::{Robot, RobotProgram};
    ///
    /// /// Drives 2 s, turns 1 s, stops.
    /// #[derive(Default)]
    /// struct Dance {
    ///     leg: u32,
    /// }
    ///
    /// impl RobotProgram for Dance {
    ///     fn pre_step(&mut self, robot: &mut Robot) {
    ///         let base = robot.actuator("base");
    ///         match self.leg {
    ///             0 => {
    ///                 base.set(0.2, 0.0);
    ///                 robot.wait(2.0); // called again 2 s later
    ///             }
    ///             1 => {
    ///                 base.set(0.0, 1.0);
    ///                 robot.wait(1.0);
    ///             }
    ///             _ => base.set(0.0, 0.0),
    ///         }
    ///         self.leg += 1;
    ///     }
    /// }
    /// ```
    ///
    /// # Panics
    /// When `seconds` is negative or not finite.
    #[track_caller]
    pub fn wait(&self, seconds: f64) {
        if !(seconds.is_finite() && seconds >= 0.0) {
            panic!("wait({seconds}): the time to wait must be a finite number of seconds, 0 or more");
        }
        crate::program::wait(seconds);
    }

    /// A seed for the program's own random numbers: the same in every run of the lab.
    pub fn seed(&self) -> u64 {
        ffi::seed() as u64
    }

    /// Writes a console line to the owner's browser (see also [`crate::log!`]).
    pub fn log(&self, text: &str) {
        Robot::log_line(text);
    }

    #[doc(hidden)]
    pub fn log_line(text: &str) {
        ffi::log(text);
    }
}

fn describe(parts: Vec<(String, String)>) -> String {
    if parts.is_empty() {
        return "this robot has none".into();
    }
    let parts: Vec<String> = parts.into_iter().map(|(name, kind)| format!("{name} ({kind})")).collect();
    format!("this robot has {}", parts.join(", "))
}

impl Sensor {
    /// Its name in the scene.
    pub fn name(&self) -> String {
        ffi::read_string(|buf| ffi::sensor_name(self.index, buf)).unwrap_or_default()
    }

    /// Its catalogue type (`Lidar`, `SimpleGPS`, `Keyboard`, ...).
    pub fn kind(&self) -> String {
        ffi::read_string(|buf| ffi::sensor_kind(self.index, buf)).unwrap_or_default()
    }

    /// Whether it has measured anything yet.
    pub fn has_reading(&self) -> bool {
        ffi::reading_type(self.index) != reading::NONE
    }

    /// The reading's first number: the value of a one-number sensor (a Compass's
    /// heading, a distance, 1 or 0 for a touch), x of a vector, ticks of an encoder;
    /// `None` before the first reading and for keyboards and scans.
    pub fn value(&self) -> Option<f64> {
        match ffi::reading_type(self.index) {
            reading::SCALAR
            | reading::VECTOR
            | reading::TICKS
            | reading::JOINT
            | reading::POSE2D
            | reading::CONTACT => Some(ffi::reading_value(self.index, 0)).filter(|v| !v.is_nan()),
            _ => None,
        }
    }

    /// Every number of the reading, in the ABI's layout for its type.
    pub fn values(&self) -> Vec<f64> {
        let mut values = vec![0.0; usize::try_from(ffi::reading_len(self.index)).unwrap_or(0)];
        if ffi::reading_type(self.index) == reading::KEYS {
            return Vec::new();
        }
        let len = usize::try_from(ffi::reading_read(self.index, &mut values)).unwrap_or(0);
        values.truncate(len);
        values
    }

    /// `(x, y, z)` of a GPS, an accelerometer or a gyro.
    pub fn vector(&self) -> Option<[f64; 3]> {
        (ffi::reading_type(self.index) == reading::VECTOR).then(|| {
            let v = |k| ffi::reading_value(self.index, k);
            [v(0), v(1), v(2)]
        })
    }

    /// A scan's distances (empty before the first scan or for another sensor).
    pub fn ranges(&self) -> Vec<f64> {
        self.scan().map(|scan| scan.ranges).unwrap_or_default()
    }

    /// The whole scan, with its geometry.
    pub fn scan(&self) -> Option<Scan> {
        if ffi::reading_type(self.index) != reading::SCAN {
            return None;
        }
        let values = self.values();
        let [angle_min, angle_step, max_range] = [values[0], values[1], values[2]];
        Some(Scan { angle_min, angle_step, max_range, ranges: values[3..].to_vec() })
    }

    /// An encoder's ticks since the start.
    pub fn ticks(&self) -> Option<i64> {
        (ffi::reading_type(self.index) == reading::TICKS).then(|| ffi::reading_value(self.index, 0) as i64)
    }

    /// `(x, y, theta)` of an odometry.
    pub fn pose2d(&self) -> Option<[f64; 3]> {
        (ffi::reading_type(self.index) == reading::POSE2D).then(|| {
            let v = |k| ffi::reading_value(self.index, k);
            [v(0), v(1), v(2)]
        })
    }

    /// `(position, velocity)` of a joint sensor.
    pub fn joint(&self) -> Option<(f64, f64)> {
        (ffi::reading_type(self.index) == reading::JOINT)
            .then(|| (ffi::reading_value(self.index, 0), ffi::reading_value(self.index, 1)))
    }

    /// A camera's latest image (`None` before the first, or for another sensor).
    pub fn image(&self) -> Option<Image> {
        if ffi::reading_type(self.index) != reading::IMAGE {
            return None;
        }
        let size = |k| ffi::reading_value(self.index, k) as usize;
        let (width, height) = (size(0), size(1));
        Some(Image { width, height, pixels: self.bytes(width * height * 3) })
    }

    /// A depth camera's latest image (`None` before the first, or for another sensor).
    pub fn depth_image(&self) -> Option<DepthImage> {
        if ffi::reading_type(self.index) != reading::DEPTH_IMAGE {
            return None;
        }
        let value = |k| ffi::reading_value(self.index, k);
        let (width, height) = (value(0) as usize, value(1) as usize);
        let raw = self.bytes(width * height * 2);
        let depths = raw.chunks_exact(2).map(|mm| f64::from(u16::from_le_bytes([mm[0], mm[1]])) / 1000.0).collect();
        Some(DepthImage { width, height, max_range: value(2), depths })
    }

    /// A camera's pixel bytes, `expected` of them.
    fn bytes(&self, expected: usize) -> Vec<u8> {
        let mut buf = vec![0; expected];
        let len = usize::try_from(ffi::reading_bytes(self.index, &mut buf)).unwrap_or(0);
        buf.truncate(len.min(expected));
        buf
    }

    /// Whether a contact sensor touches anything.
    pub fn touching(&self) -> bool {
        ffi::reading_type(self.index) == reading::CONTACT && ffi::reading_value(self.index, 0) == 1.0
    }

    /// Whether a keyboard's key (`"I"`, `"ARROWUP"`, any case) is held.
    ///
    /// # Panics
    /// When the sensor is not a keyboard.
    #[track_caller]
    pub fn key(&self, key: &str) -> bool {
        match ffi::key_held(self.index, key) {
            status::WRONG_KIND => panic!("sensor {:?} ({}) is not a keyboard: use value()", self.name(), self.kind()),
            held => held == 1,
        }
    }

    /// The keys a keyboard holds.
    pub fn keys(&self) -> Vec<String> {
        if ffi::reading_type(self.index) != reading::KEYS {
            return Vec::new();
        }
        let count = ffi::reading_len(self.index).max(0);
        (0..count).filter_map(|k| ffi::read_string(|buf| ffi::key_name(self.index, k, buf))).collect()
    }
}

impl Actuator {
    /// Its name in the scene.
    pub fn name(&self) -> String {
        ffi::read_string(|buf| ffi::actuator_name(self.index, buf)).unwrap_or_default()
    }

    /// Its catalogue type (`SimpleMotor`, `SimpleServo`, `DiffDrive`).
    pub fn kind(&self) -> String {
        ffi::read_string(|buf| ffi::actuator_kind(self.index, buf)).unwrap_or_default()
    }

    /// A `SimpleMotor`'s target speed (rad/s on a hinge, m/s on a slider).
    ///
    /// # Panics
    /// On another kind of actuator, or a value that is not finite.
    #[track_caller]
    pub fn set_speed(&self, speed: f64) {
        self.check("set_speed", ffi::set_speed(self.index, speed));
    }

    /// A `SimpleServo`'s target position (rad on a hinge, m on a slider).
    ///
    /// # Panics
    /// As [`Actuator::set_speed`].
    #[track_caller]
    pub fn set_position(&self, position: f64) {
        self.check("set_position", ffi::set_position(self.index, position));
    }

    /// A `DiffDrive`'s forward speed (m/s) and turn rate (rad/s, counter-clockwise).
    ///
    /// # Panics
    /// As [`Actuator::set_speed`].
    #[track_caller]
    pub fn set(&self, v: f64, omega: f64) {
        self.check("set", ffi::set_drive(self.index, v, omega));
    }

    #[track_caller]
    fn check(&self, method: &str, status: i32) {
        match status {
            status::OK => {}
            status::WRONG_KIND => {
                let hint = match self.kind().as_str() {
                    "SimpleMotor" => "set_speed(speed)",
                    "SimpleServo" => "set_position(angle)",
                    "DiffDrive" => "set(v, omega)",
                    _ => "another command",
                };
                panic!("actuator {:?} is a {}: use {hint}, not {method}()", self.name(), self.kind())
            }
            status::NOT_FINITE => panic!("actuator {:?}: {method}() needs finite numbers", self.name()),
            other => panic!("actuator {:?}: {method}() failed ({other})", self.name()),
        }
    }
}
