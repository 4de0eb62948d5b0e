//! What a robot reports (true pose, every sensor's true and measured reading with its
//! sim time, every actuator's command and state) and the commands a person may give
//! its actuators by hand.
//!
//! One [`RobotReport`] answers `GET /api/labs/{lab}/robots/{robot}` and is streamed
//! as [`crate::ServerMsg::Robot`] to websocket clients subscribed to the robot.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A robot as inspected: everything a student or the instructor may look at.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RobotReport {
    /// Its name in the lab.
    pub name: String,
    /// The lab's step when the report was made.
    pub step: u64,
    /// The lab's simulation time then, seconds.
    pub time: f64,
    /// The true pose of its main body.
    pub pose: RobotPose,
    /// Its sensors, in declaration order.
    pub sensors: Vec<SensorReport>,
    /// Its actuators, in declaration order.
    pub actuators: Vec<ActuatorReport>,
    /// Keys its owner holds now (what its `Keyboard` sensors read at their next update).
    pub keys: Vec<String>,
    /// Its program and what the program is doing.
    pub program: ProgramStatus,
    /// Who added it (`None`: it came with the lab's scene).
    pub owner: Option<String>,
    /// Its console's latest lines: only in `GET .../robots/{robot}` and only for its
    /// owner and the instructor (absent elsewhere).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub console: Option<Vec<crate::ConsoleLine>>,
}

/// A pose as the HTTP API writes it: position and quaternion `[w, x, y, z]`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RobotPose {
    /// Metres, world frame (Y up).
    pub position: [f64; 3],
    /// Unit quaternion `[w, x, y, z]` (the scene language's order).
    pub quaternion: [f64; 4],
    /// Heading: the angle of the body's forward axis (+X) about the vertical, radians,
    /// counter-clockwise seen from above, 0 along world +X.
    pub heading: f64,
}

/// A robot's new start, `POST /api/labs/{lab}/robots/{robot}/start`: where its main
/// body stands after a reset (of the robot or of the lab), the rest of the robot as it
/// started around it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewStart {
    /// Where its main body stands, metres, world frame (Y up).
    pub position: [f32; 3],
    /// Its heading there, radians as in [`RobotPose::heading`] (`None`: the start's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heading: Option<f32>,
}

/// One sensor's latest reading.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SensorReport {
    /// Its name within the robot.
    pub name: String,
    /// Its catalogue type (`Lidar`, `SimpleGPS`, ...).
    pub kind: String,
    /// Updates per second of simulation time (`None`: every step).
    pub rate: Option<f64>,
    /// The step of its latest update (`None` before the first).
    pub step: Option<u64>,
    /// The simulation time of its latest update, seconds.
    pub time: Option<f64>,
    /// What the robot's program reads: the true value through the noise model.
    pub measured: Option<SensorValue>,
    /// What the world really was at that instant.
    pub truth: Option<SensorValue>,
    /// Where its rays started and which way its frame faced at that reading, world
    /// frame (ray sensors only: a scan's angles and a single ray's forward axis are in
    /// this frame, forward +X, a scan in its XZ plane towards −Z), so a viewer can draw
    /// the rays where they were cast.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<RobotPose>,
}

/// A sensor's value, typed by what the sensor measures. Read by hand
/// (`crate::decode`), without serde's buffering of tagged enums.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SensorValue {
    /// One number: heading (rad), distance (m), touch (0/1).
    Scalar {
        /// The number.
        value: f64,
    },
    /// Three numbers: a position (m), an acceleration (m/s²), an angular rate (rad/s).
    Vector {
        /// x, y, z.
        values: [f64; 3],
    },
    /// A planar scan: `ranges[i]` is along `angle_min + i·angle_step` (radians,
    /// counter-clockwise from the forward axis seen from above), `max_range` where
    /// nothing was hit.
    Scan {
        /// First beam's angle.
        angle_min: f64,
        /// Angle between neighbouring beams.
        angle_step: f64,
        /// Longest distance the sensor reports, metres.
        max_range: f64,
        /// Distances, metres (rounded to 0.1 mm to keep messages small).
        ranges: Vec<f32>,
    },
    /// Keys held (upper-case names: `I`, `ARROWUP`, `SPACE`).
    Keys {
        /// The keys.
        keys: Vec<String>,
    },
    /// An encoder: cumulative signed ticks and the angle they stand for.
    Ticks {
        /// Ticks since the start (signed).
        ticks: i64,
        /// Angle turned since the start, radians.
        angle: f64,
    },
    /// A joint's coordinate along its driven axis and its rate.
    Joint {
        /// Radians (hinges) or metres (sliders).
        position: f64,
        /// Radians or metres per second.
        velocity: f64,
    },
    /// A pose on the ground plane: `x` along world X, `y` along world −Z, `theta` the
    /// heading (the same convention as [`RobotPose::heading`]).
    Pose2d {
        /// Metres.
        x: f64,
        /// Metres.
        y: f64,
        /// Radians.
        theta: f64,
    },
    /// Contact on the sensor's body.
    Contact {
        /// Whether anything touches it.
        touching: bool,
        /// Where, world frame (force-weighted mean of the contact points).
        point: Option<[f64; 3]>,
        /// Total contact force on the body, world frame, newtons.
        force: [f64; 3],
    },
    /// A camera's colour image. Reports and the recording keep its summary only;
    /// `pixels` travels to the robot's own program, and only in the first step after
    /// the image was taken.
    Image {
        /// Pixels across.
        width: u32,
        /// Pixels down.
        height: u32,
        /// The mean colour, RGB 0–255.
        mean: [u8; 3],
        /// Base64 of `width × height × 3` bytes: RGB, row-major, top row first
        /// (empty where only the summary travels).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        pixels: String,
    },
    /// A depth camera's image: each pixel's distance along the optical axis, metres.
    DepthImage {
        /// Pixels across.
        width: u32,
        /// Pixels down.
        height: u32,
        /// The distance of a pixel that sees nothing within range, metres.
        max_range: f64,
        /// The nearest distance in the image, metres.
        nearest: f64,
        /// Base64 of `width × height` little-endian `u16`: millimetres, row-major, top
        /// row first (empty where only the summary travels, as for `Image`).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        depths: String,
    },
    /// An orientation (`IMU`): roll, pitch and yaw (radians, docs/sensors.md) and the
    /// quaternion they make.
    Orientation {
        /// About the forward axis, positive with the right side down, −π..π.
        roll: f64,
        /// About the right axis, positive nose up, −π/2..π/2.
        pitch: f64,
        /// The heading: about the vertical, counter-clockwise seen from above, −π..π.
        yaw: f64,
        /// `[w, x, y, z]`, world frame.
        quaternion: [f64; 4],
    },
    /// The beacons a `LandmarkSensor` sees, by id.
    Landmarks {
        /// One per beacon in its field of view.
        landmarks: Vec<crate::Landmark>,
    },
    /// A radio's latest control step: what it heard and what its robot sent.
    Radio {
        /// Messages heard, in delivery order (sender name, then send order).
        heard: Vec<crate::RadioMessage>,
        /// Messages its robot sent at that control step, in order.
        sent: Vec<String>,
    },
}

/// One actuator: what it was told and how it is doing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActuatorReport {
    /// Its name within the robot.
    pub name: String,
    /// Its catalogue type (`SimpleMotor`, `SimpleServo`, `DiffDrive`).
    pub kind: String,
    /// Its current command.
    pub command: ActuatorCommand,
    /// What the joint does now (for motors and servos).
    pub joint: Option<JointReading>,
    /// Whether it has failed to reach its target for a while (blocked wheel, arm against
    /// a wall, `max_force` too small).
    pub stalled: bool,
}

/// A joint's coordinate and rate, as an actuator sees them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct JointReading {
    /// Radians (hinges) or metres (sliders).
    pub position: f64,
    /// Radians or metres per second.
    pub velocity: f64,
}

/// A command for one actuator. On the wire, by hand: `{"speed": 6.0}` for a
/// `SimpleMotor`, `{"position": 0.5}` for a `SimpleServo`, `{"v": 0.15, "omega": 0.3}`
/// for a `DiffDrive`. Read by hand (`crate::decode`), without serde's buffering of
/// untagged enums.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ActuatorCommand {
    /// Target velocity: rad/s on a hinge, m/s on a slider.
    Speed {
        /// The target.
        speed: f64,
    },
    /// Target position: rad on a hinge, m on a slider.
    Position {
        /// The target.
        position: f64,
    },
    /// Forward speed (m/s) and turn rate (rad/s, counter-clockwise seen from above).
    Drive {
        /// Forward speed.
        v: f64,
        /// Turn rate.
        omega: f64,
    },
}

/// Commands for several actuators of one robot, by actuator name:
/// the body of `POST /api/labs/{lab}/robots/{robot}/actuators`.
pub type ActuatorCommands = BTreeMap<String, serde_json::Value>;

/// A robot's program as the lab knows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProgramStatus {
    /// The file its scene names (`tankbot.rprj`), if any.
    pub file: Option<String>,
    /// The runtime (`PYTHON`, `WASM`, ...), when a project file says.
    pub language: Option<String>,
    /// What it is doing.
    pub state: ProgramState,
    /// A sentence for people (why it stopped, what is missing).
    pub message: Option<String>,
    /// Set while the program needs more CPU per control step than its share, so it
    /// answers late and its robot keeps older commands meanwhile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late: Option<Lateness>,
}

/// How far over its CPU share a running program is: the figures of the Robots panel's
/// "late: 45 ms of CPU per 20 ms step" badge.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Lateness {
    /// CPU time its latest answers took, per control step, milliseconds.
    pub cpu_ms: f64,
    /// Its share: the CPU it may use per control step, milliseconds (one control
    /// period of simulation time).
    pub share_ms: f64,
    /// Set when it is late because it has not read its last readings (a real-time
    /// lab): the bytes of them it has not read yet. It gets no new readings meanwhile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unread_bytes: Option<u64>,
    /// Set when a lockstep lab waits for its answers (the whole class with it): how
    /// long it waited for the latest slow one, milliseconds of wall time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waited_ms: Option<f64>,
}

impl Lateness {
    /// Late on its CPU: `cpu_ms` per control step against a share of `share_ms`.
    pub fn cpu(cpu_ms: f64, share_ms: f64) -> Lateness {
        Lateness { cpu_ms, share_ms, unread_bytes: None, waited_ms: None }
    }

    /// The badge's text: `late: 45 ms of CPU per 20 ms step`, `late: 225 KiB of
    /// readings unread`, or `holding the lab: 450 ms per answer`.
    pub fn badge(&self) -> String {
        match (self.unread_bytes, self.waited_ms) {
            (Some(bytes), _) => format!("late: {} KiB of readings unread", bytes.div_ceil(1024)),
            (None, Some(ms)) => format!("holding the lab: {ms:.0} ms per answer"),
            (None, None) => format!("late: {:.0} ms of CPU per {:.0} ms step", self.cpu_ms, self.share_ms),
        }
    }
}

/// The life of a robot program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProgramState {
    /// The robot has no program: it moves only when driven by hand.
    None,
    /// A program is named but not running.
    Idle,
    /// Being started: its robot holds still and the lab's clock goes on; it joins at
    /// the first control step after it is ready.
    Starting,
    /// Running: it gets its robot's readings every control step and answers with
    /// commands.
    Running,
    /// Stopped by an error, a limit, or its owner.
    Stopped,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actuator_commands_read_the_documented_shapes() {
        let read = |json: &str| serde_json::from_str::<ActuatorCommand>(json).unwrap();
        assert_eq!(read(r#"{"speed": 6.0}"#), ActuatorCommand::Speed { speed: 6.0 });
        assert_eq!(read(r#"{"position": -0.5}"#), ActuatorCommand::Position { position: -0.5 });
        assert_eq!(read(r#"{"v": 0.15, "omega": 0.3}"#), ActuatorCommand::Drive { v: 0.15, omega: 0.3 });
    }

    #[test]
    fn a_report_round_trips() {
        let report = RobotReport {
            name: "bot".into(),
            step: 240,
            time: 1.0,
            pose: RobotPose { position: [1.0, 0.1, 2.0], quaternion: [1.0, 0.0, 0.0, 0.0], heading: 0.0 },
            sensors: vec![
                SensorReport {
                    name: "lidar".into(),
                    kind: "Lidar".into(),
                    rate: Some(10.0),
                    step: Some(216),
                    time: Some(0.9),
                    measured: Some(SensorValue::Scan {
                        angle_min: -1.5,
                        angle_step: 1.0,
                        max_range: 10.0,
                        ranges: vec![1.0, 2.0, 10.0, 3.5],
                    }),
                    truth: Some(SensorValue::Scan {
                        angle_min: -1.5,
                        angle_step: 1.0,
                        max_range: 10.0,
                        ranges: vec![1.0, 2.0, 10.0, 3.5],
                    }),
                    origin: Some(RobotPose {
                        position: [1.0, 0.2, 2.0],
                        quaternion: [1.0, 0.0, 0.0, 0.0],
                        heading: 0.0,
                    }),
                },
                SensorReport {
                    name: "bump".into(),
                    kind: "ForceResistance".into(),
                    rate: None,
                    step: None,
                    time: None,
                    measured: Some(SensorValue::Contact { touching: true, point: Some([0.0; 3]), force: [0.0; 3] }),
                    truth: None,
                    origin: None,
                },
            ],
            actuators: vec![ActuatorReport {
                name: "left".into(),
                kind: "SimpleMotor".into(),
                command: ActuatorCommand::Speed { speed: 5.0 },
                joint: Some(JointReading { position: 3.0, velocity: 4.9 }),
                stalled: false,
            }],
            keys: vec!["I".into()],
            program: ProgramStatus { file: None, language: None, state: ProgramState::None, message: None, late: None },
            owner: None,
            console: None,
        };
        let json = serde_json::to_string(&report).unwrap();
        assert_eq!(serde_json::from_str::<RobotReport>(&json).unwrap(), report);
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["sensors"][0]["measured"]["type"], "scan");
        assert_eq!(value["actuators"][0]["command"]["speed"], 5.0);
    }
}
