//! Sensors on joints and what is integrated from them: `Encoder` (cumulative ticks),
//! `JointState` (coordinate and rate), `Odometry` (a ground pose integrated from two
//! wheel encoders with the exact-arc update and Thrun's motion noise α1..α4).
//!
//! Joints are followed every physics step, whatever the sensor's rate, so a wheel
//! that turns more than half a revolution between two readings is still counted right.

use std::f64::consts::TAU;

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use vlab_protocol::SensorValue;

use super::Context;
use crate::robot::frame::{ground, heading};
use crate::robot::kinematics::{DiffDriveGeometry, Pose2, advance_arc, wrap_angle};
use crate::robot::noise::NoiseModel;
use crate::robot::wheels;
use crate::scene::{DeviceModel, Mount, ParamValue, Renumbering, SceneError, SceneModel};
use crate::sim::World;

/// Follows one joint's coordinate step by step, counting whole turns.
#[derive(Clone, Debug)]
pub struct JointTracker {
    joint: usize,
    started: bool,
    raw: f64,
    /// Radians (or metres) since the first update.
    pub travelled: f64,
    /// Radians (or metres) per second at the last update.
    pub velocity: f64,
    /// The coordinate itself (for sliders; hinges count from 0 at the start).
    pub position: f64,
}

impl JointTracker {
    /// A tracker of joint `joint`.
    pub fn new(joint: usize) -> JointTracker {
        JointTracker { joint, started: false, raw: 0.0, travelled: 0.0, velocity: 0.0, position: 0.0 }
    }

    /// Follows its joint to its new index after others were removed.
    pub fn renumber(&mut self, moved: &Renumbering) {
        self.joint = moved.joints[self.joint].expect("a robot's joints stay with it");
    }

    /// Reads the joint after a step.
    pub fn update(&mut self, world: &World) {
        let Some(now) = world.joint_coordinate(self.joint) else { return };
        let raw = f64::from(now.position);
        self.velocity = f64::from(now.velocity);
        if !self.started {
            self.started = true;
            self.raw = raw;
            self.position = raw;
            return;
        }
        let delta = if world.joint_is_angular(self.joint) { wrap_angle(raw - self.raw) } else { raw - self.raw };
        self.raw = raw;
        self.travelled += delta;
        self.position += delta;
    }
}

/// An encoder or a joint-state sensor.
#[derive(Clone)]
pub struct JointProbe {
    tracker: JointTracker,
    /// Ticks per revolution for an encoder; `None` for a joint-state sensor.
    ticks_per_rev: Option<f64>,
}

impl JointProbe {
    /// The probe `device` declares on joint `joint`.
    pub fn new(device: &DeviceModel, joint: usize) -> JointProbe {
        let ticks_per_rev = (device.kind == "Encoder").then(|| device.num("ticks_per_rev").unwrap_or(256.0).max(1.0));
        JointProbe { tracker: JointTracker::new(joint), ticks_per_rev }
    }

    /// Follows its joint to its new index.
    pub fn renumber(&mut self, moved: &Renumbering) {
        self.tracker.renumber(moved);
    }

    /// Follows the joint every step; reads it when `due`.
    pub fn update(
        &mut self,
        context: &Context,
        due: bool,
        noise: &NoiseModel,
        rng: &mut ChaCha8Rng,
    ) -> Option<(SensorValue, SensorValue)> {
        self.tracker.update(context.world);
        if !due {
            return None;
        }
        let tracker = &self.tracker;
        Some(match self.ticks_per_rev {
            Some(per_rev) => {
                let ticks_of = |angle: f64| (angle * per_rev / TAU).floor() as i64;
                let truth = SensorValue::Ticks { ticks: ticks_of(tracker.travelled), angle: tracker.travelled };
                let noisy = if noise.is_exact() { tracker.travelled } else { noise.measure(tracker.travelled, rng) };
                let ticks = ticks_of(noisy);
                (SensorValue::Ticks { ticks, angle: ticks as f64 * TAU / per_rev }, truth)
            }
            None => {
                let truth = SensorValue::Joint { position: tracker.position, velocity: tracker.velocity };
                let measured = if noise.is_exact() {
                    truth.clone()
                } else {
                    SensorValue::Joint {
                        position: noise.measure(tracker.position, rng),
                        velocity: noise.measure(tracker.velocity, rng),
                    }
                };
                (measured, truth)
            }
        })
    }
}

/// Odometry from two wheel encoders.
#[derive(Clone)]
pub struct OdometryProbe {
    main_body: usize,
    left: Wheel,
    right: Wheel,
    geometry: DiffDriveGeometry,
    /// Thrun's α1..α4: rotation noise from rotation and from translation, translation
    /// noise from translation and from rotation.
    alphas: [f64; 4],
    /// The integrated pose; `None` until the first reading anchors it to the truth.
    pose: Option<Pose2>,
}

#[derive(Clone)]
struct Wheel {
    tracker: JointTracker,
    forward_sign: f64,
    ticks_per_rev: f64,
    last_ticks: i64,
}

impl Wheel {
    fn ticks(&self) -> i64 {
        (self.tracker.travelled * self.forward_sign * self.ticks_per_rev / TAU).floor() as i64
    }

    /// The wheel's forward turn since the last reading, as its encoder counts it.
    fn turned(&mut self) -> f64 {
        let ticks = self.ticks();
        let turned = (ticks - self.last_ticks) as f64 * TAU / self.ticks_per_rev;
        self.last_ticks = ticks;
        turned
    }
}

impl OdometryProbe {
    /// The odometry `device` of robot `robot` declares.
    pub fn new(model: &SceneModel, device: &DeviceModel, robot: &str, main_body: usize) -> Result<Self, SceneError> {
        let wheel = |side: &str| -> Result<Wheel, SceneError> {
            let Some(ParamValue::Str(name)) = device.param(side) else {
                return Err(SceneError::Unsupported {
                    name: device.name.clone(),
                    what: format!("Odometry without its {side} encoder (write {side} \"encoder name\";)"),
                });
            };
            let encoder = model
                .sensors
                .iter()
                .find(|d| d.robot.as_deref() == Some(robot) && &d.name == name && d.kind == "Encoder");
            let Some(encoder @ DeviceModel { mount: Mount::Joint(joint), .. }) = encoder else {
                return Err(SceneError::Unsupported {
                    name: device.name.clone(),
                    what: format!("Odometry whose {side} encoder '{name}' is not an Encoder on a joint of {robot}"),
                });
            };
            let info = wheels::wheel(model, *joint, main_body);
            Ok(Wheel {
                tracker: JointTracker::new(*joint),
                forward_sign: info.forward_sign,
                ticks_per_rev: encoder.num("ticks_per_rev").unwrap_or(256.0).max(1.0),
                last_ticks: 0,
            })
        };
        let (left, right) = (wheel("left")?, wheel("right")?);
        let left_info = wheels::wheel(model, left.tracker.joint, main_body);
        let right_info = wheels::wheel(model, right.tracker.joint, main_body);
        let geometry =
            wheels::geometry(&device.name, &left_info, &right_info, device.num("wheel_radius"), device.num("track"))?;
        let alphas = ["alpha1", "alpha2", "alpha3", "alpha4"].map(|a| device.num(a).unwrap_or(0.0).abs());
        Ok(OdometryProbe { main_body, left, right, geometry, alphas, pose: None })
    }

    /// Follows its body and wheels to their new indices.
    pub fn renumber(&mut self, moved: &Renumbering) {
        self.main_body = moved.bodies[self.main_body].expect("a robot's bodies stay with it");
        self.left.tracker.renumber(moved);
        self.right.tracker.renumber(moved);
    }

    /// Follows the wheels every step; integrates and reads when `due`.
    pub fn update(
        &mut self,
        context: &Context,
        due: bool,
        noise: &NoiseModel,
        rng: &mut ChaCha8Rng,
    ) -> Option<(SensorValue, SensorValue)> {
        self.left.tracker.update(context.world);
        self.right.tracker.update(context.world);
        if !due {
            return None;
        }
        let body = context.world.pose(self.main_body);
        let (x, y) = ground(body.position);
        let truth = Pose2 { x, y, theta: heading(&body) };
        let pose = match self.pose {
            None => {
                self.left.last_ticks = self.left.ticks();
                self.right.last_ticks = self.right.ticks();
                truth
            }
            Some(pose) => {
                let (left, right) = (self.left.turned(), self.right.turned());
                let (distance, turn) = self.geometry.body_speeds(left, right);
                let [a1, a2, a3, a4] = self.alphas;
                let mut gauss = |variance: f64| -> f64 {
                    if variance > 0.0 { variance.sqrt() * rng.sample::<f64, _>(StandardNormal) } else { 0.0 }
                };
                let noisy_turn = turn + gauss(a1 * turn * turn + a2 * distance * distance);
                let noisy_distance = distance + gauss(a3 * distance * distance + a4 * turn * turn);
                advance_arc(pose, noisy_distance, noisy_turn, 1.0)
            }
        };
        self.pose = Some(pose);
        let measured = if noise.is_exact() {
            pose
        } else {
            Pose2 {
                x: noise.measure(pose.x, rng),
                y: noise.measure(pose.y, rng),
                theta: noise.measure(pose.theta, rng),
            }
        };
        let value = |p: Pose2| SensorValue::Pose2d { x: p.x, y: p.y, theta: wrap_angle(p.theta) };
        Some((value(measured), value(truth)))
    }
}
