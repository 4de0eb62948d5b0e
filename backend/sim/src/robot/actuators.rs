//! A robot's actuators: `SimpleMotor` (hold a joint velocity), `SimpleServo` (hold a
//! joint position as a PD controller, within limits) and `DiffDrive` (a forward speed
//! and turn rate turned into its two motors' speeds). Each remembers its command,
//! hands it to the world's joint motor before the step that follows it, and watches
//! whether its joint reaches the target (a stall indicator).

use serde_json::Value;
use vlab_protocol::{ActuatorCommand, ActuatorReport, JointReading};

use super::kinematics::DiffDriveGeometry;
use super::sensors::JointTracker;
use super::wheels;
use crate::scene::{DeviceModel, Mount, ParamValue, SceneError, SceneModel};
use crate::sim::{JointDrive, World};

/// A motor or servo is stalled once it has missed its target this long (sim time):
/// long enough to ignore spin-up and settling, short enough for a bumper exercise.
const STALL_AFTER_SECS: f64 = 0.5;

/// A servo this close to its target (radians or metres) has reached it and may rest.
const SERVO_SETTLED: f64 = 1e-3;
/// A motor asked for less than this (rad/s or m/s) is not watched for stalling.
const STILL_SPEED: f64 = 0.05;

/// Why a hand-given command was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CommandError {
    /// No actuator by that name.
    #[error("robot '{robot}' has no actuator '{actuator}' (its actuators: {known})")]
    UnknownActuator {
        /// The robot.
        robot: String,
        /// The name asked for.
        actuator: String,
        /// Its actuators' names, comma-separated (or "none").
        known: String,
    },
    /// A number out of the simulation's range.
    #[error("'{actuator}': {reason}")]
    OutOfRange {
        /// The actuator.
        actuator: String,
        /// What is wrong.
        reason: String,
    },
    /// A command of the wrong shape for the actuator.
    #[error("'{actuator}' is a {kind}: send {expected}, not {got}")]
    WrongShape {
        /// The actuator.
        actuator: String,
        /// Its type.
        kind: String,
        /// What it takes.
        expected: &'static str,
        /// What came.
        got: String,
    },
}

/// An actuator's command state, saved so a refused batch of commands changes nothing.
pub struct SavedCommand {
    control: Control,
    missing_for: f64,
    dirty: bool,
}

/// A live actuator.
#[derive(Clone)]
pub struct Actuator {
    name: String,
    kind: String,
    control: Control,
    tracker: Option<JointTracker>,
    /// How long the joint has missed its target, seconds of sim time.
    missing_for: f64,
    /// Whether the command changed since the world last got it.
    dirty: bool,
}

#[derive(Clone, Copy)]
enum Control {
    Motor { joint: usize, speed: f64, max_force: f64 },
    Servo { joint: usize, target: f64, kp: f64, kd: f64, max_force: f64, limits: Option<(f64, f64)> },
    Drive { left: usize, right: usize, geometry: DiffDriveGeometry, signs: (f64, f64), v: f64, omega: f64 },
}

impl Actuator {
    /// The actuator `device` declares. A drive is connected to its motors by
    /// [`Actuator::resolve_drives`] once all of its robot's actuators are built.
    pub fn build(device: &DeviceModel) -> Result<Actuator, SceneError> {
        let num = |name: &str, default: f64| device.num(name).unwrap_or(default);
        let joint = match device.mount {
            Mount::Joint(joint) => Some(joint),
            _ => None,
        };
        let control = match (device.kind.as_str(), joint) {
            ("SimpleMotor", Some(joint)) => {
                Control::Motor { joint, speed: num("speed", 0.0), max_force: num("max_force", 10.0).abs() }
            }
            ("SimpleServo", Some(joint)) => {
                let limits = match (device.num("min_position"), device.num("max_position")) {
                    (Some(low), Some(high)) if low <= high => Some((low, high)),
                    (Some(_), Some(_)) => {
                        return Err(SceneError::Unsupported {
                            name: device.name.clone(),
                            what: "SimpleServo with min_position above max_position".into(),
                        });
                    }
                    (Some(low), None) => Some((low, f64::INFINITY)),
                    (None, Some(high)) => Some((f64::NEG_INFINITY, high)),
                    (None, None) => None,
                };
                let target = clamp_to(num("position", 0.0), limits);
                Control::Servo {
                    joint,
                    target,
                    kp: num("kp", 10.0).abs(),
                    kd: num("kd", 0.1).abs(),
                    max_force: num("max_force", 10.0).abs(),
                    limits,
                }
            }
            ("DiffDrive", _) => Control::Drive {
                left: usize::MAX,
                right: usize::MAX,
                geometry: DiffDriveGeometry { wheel_radius: 1.0, track: 1.0 },
                signs: (1.0, 1.0),
                v: 0.0,
                omega: 0.0,
            },
            (kind, _) => {
                return Err(SceneError::Unsupported {
                    name: device.name.clone(),
                    what: format!("{kind} outside a joint (motors and servos go inside the joint they drive)"),
                });
            }
        };
        Ok(Actuator {
            name: device.name.clone(),
            kind: device.kind.clone(),
            tracker: joint.map(JointTracker::new),
            control,
            missing_for: 0.0,
            dirty: true,
        })
    }

    /// Connects every drive of a robot to its motors and measures its wheels.
    pub fn resolve_drives(
        actuators: &mut [Actuator],
        devices: &[&DeviceModel],
        model: &SceneModel,
        main_body: usize,
    ) -> Result<(), SceneError> {
        for (index, device) in devices.iter().enumerate() {
            if device.kind != "DiffDrive" {
                continue;
            }
            let motor = |side: &str| -> Result<(usize, usize), SceneError> {
                let name = match device.param(side) {
                    Some(ParamValue::Str(name)) => name.as_str(),
                    _ => "",
                };
                let found = actuators.iter().position(|a| a.name == name);
                match found.map(|i| (i, &actuators[i].control)) {
                    Some((i, Control::Motor { joint, .. })) => Ok((i, *joint)),
                    _ => Err(SceneError::Unsupported {
                        name: device.name.clone(),
                        what: format!("DiffDrive whose {side} motor '{name}' is not a SimpleMotor of this robot"),
                    }),
                }
            };
            let ((left, left_joint), (right, right_joint)) = (motor("left")?, motor("right")?);
            let (left_wheel, right_wheel) =
                (wheels::wheel(model, left_joint, main_body), wheels::wheel(model, right_joint, main_body));
            let geometry = wheels::geometry(
                &device.name,
                &left_wheel,
                &right_wheel,
                device.num("wheel_radius"),
                device.num("track"),
            )?;
            actuators[index].control = Control::Drive {
                left,
                right,
                geometry,
                signs: (left_wheel.forward_sign, right_wheel.forward_sign),
                v: 0.0,
                omega: 0.0,
            };
        }
        Ok(())
    }

    /// Its name within the robot.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its catalogue type (`SimpleMotor`, `SimpleServo`, `DiffDrive`).
    pub fn kind(&self) -> &str {
        &self.kind
    }

    /// Its command state, to put back with [`Actuator::restore`].
    pub fn snapshot(&self) -> SavedCommand {
        SavedCommand { control: self.control, missing_for: self.missing_for, dirty: self.dirty }
    }

    /// Puts back a command state taken with [`Actuator::snapshot`].
    pub fn restore(&mut self, saved: SavedCommand) {
        (self.control, self.missing_for, self.dirty) = (saved.control, saved.missing_for, saved.dirty);
    }

    /// Follows its joint to its new index after others were removed; its command goes
    /// to the (rebuilt) world again before the next step.
    pub fn renumber(&mut self, moved: &crate::scene::Renumbering) {
        let renumbered = |joint: usize| moved.joints[joint].expect("a robot's joints stay with it");
        match &mut self.control {
            Control::Motor { joint, .. } | Control::Servo { joint, .. } => *joint = renumbered(*joint),
            Control::Drive { .. } => {}
        }
        if let Some(tracker) = &mut self.tracker {
            tracker.renumber(moved);
        }
        self.dirty = true;
    }

    /// Sets the joint limits a servo declares (once, when the robot enters the world).
    pub fn install(&self, world: &mut World) {
        if let Control::Servo { joint, limits: Some((low, high)), .. } = self.control {
            world.limit_joint(joint, low.max(-1e6) as f32, high.min(1e6) as f32);
        }
    }

    /// Hands a changed command to the world's joint motor (the pre-step phase).
    pub fn apply(&mut self, world: &mut World) {
        if !std::mem::take(&mut self.dirty) {
            return;
        }
        match self.control {
            Control::Motor { joint, speed, max_force } => {
                world.drive_joint(joint, JointDrive::Velocity { target: speed as f32, max_force: max_force as f32 });
            }
            Control::Servo { joint, target, kp, kd, max_force, .. } => world.drive_joint(
                joint,
                JointDrive::Position {
                    target: target as f32,
                    kp: kp as f32,
                    kd: kd as f32,
                    max_force: max_force as f32,
                },
            ),
            Control::Drive { .. } => {}
        }
    }

    /// Whether it leaves the world as it is: no command waiting for the next step, a
    /// motor asked for no speed to speak of (below the stall indicator's threshold), a
    /// servo settled where it aims.
    pub fn at_rest(&self) -> bool {
        if self.dirty || self.missing_for != 0.0 {
            return false;
        }
        match self.control {
            Control::Motor { speed, .. } => speed.abs() <= STILL_SPEED,
            Control::Servo { target, .. } => {
                self.tracker.as_ref().is_some_and(|t| (t.position - target).abs() <= SERVO_SETTLED)
            }
            Control::Drive { .. } => true,
        }
    }

    /// Follows its joint after a step and updates the stall indicator.
    pub fn observe(&mut self, world: &World, dt: f64) {
        let Some(tracker) = &mut self.tracker else { return };
        tracker.update(world);
        let missing = match self.control {
            Control::Motor { speed, .. } => {
                speed.abs() > STILL_SPEED && (tracker.velocity - speed).abs() > 0.25 * speed.abs() + 0.1
            }
            Control::Servo { target, .. } => {
                // The last stretch to the target is slow enough for the engine to put
                // the arm to sleep short of it: until it is there, wake it every step.
                if (tracker.position - target).abs() > SERVO_SETTLED {
                    self.dirty = true;
                }
                (tracker.position - target).abs() > 0.05 && tracker.velocity.abs() < 0.05
            }
            Control::Drive { .. } => false,
        };
        self.missing_for = if missing { self.missing_for + dt } else { 0.0 };
    }

    /// The actuator as a report shows it; a drive is stalled when a motor of it is.
    pub fn report(&self, siblings: &[Actuator]) -> ActuatorReport {
        let (command, stalled) = match self.control {
            Control::Motor { speed, .. } => (ActuatorCommand::Speed { speed }, self.stalled()),
            Control::Servo { target, .. } => (ActuatorCommand::Position { position: target }, self.stalled()),
            Control::Drive { left, right, v, omega, .. } => {
                let stalled = [left, right].iter().any(|&i| siblings.get(i).is_some_and(Actuator::stalled));
                (ActuatorCommand::Drive { v, omega }, stalled)
            }
        };
        ActuatorReport {
            name: self.name.clone(),
            kind: self.kind.clone(),
            command,
            joint: self.tracker.as_ref().map(|t| JointReading { position: t.position, velocity: t.velocity }),
            stalled,
        }
    }

    fn stalled(&self) -> bool {
        self.missing_for >= STALL_AFTER_SECS
    }
}

/// Checks `command` (JSON, as a person or a program sent it) for actuator `index` of
/// `actuators` and, if it fits, applies it. A drive sets its motors' speeds.
pub fn command(actuators: &mut [Actuator], index: usize, command: &Value) -> Result<(), CommandError> {
    let actuator = &actuators[index];
    let wrong = |expected: &'static str| CommandError::WrongShape {
        actuator: actuator.name.clone(),
        kind: actuator.kind.clone(),
        expected,
        got: command.to_string().chars().take(80).collect(),
    };
    // A number past the limit is refused by name (not as a wrong shape): 1e300 is a
    // number, but one the simulation's 32-bit floats would turn into infinity.
    if let Some((name, value)) = command.as_object().into_iter().flatten().find_map(|(name, value)| {
        value.as_f64().filter(|v| crate::scene::check_magnitude(name, *v).is_err()).map(|v| (name, v))
    }) {
        return Err(CommandError::OutOfRange {
            actuator: actuator.name.clone(),
            reason: crate::scene::check_magnitude(&format!("'{name}'"), value).unwrap_err(),
        });
    }
    let field = |name: &str| command.get(name).and_then(Value::as_f64).filter(|v| v.is_finite());
    let fields_only =
        |allowed: &[&str]| command.as_object().is_some_and(|o| o.keys().all(|k| allowed.contains(&k.as_str())));
    match actuators[index].control {
        Control::Motor { .. } => {
            let Some(speed) = field("speed").filter(|_| fields_only(&["speed"])) else {
                return Err(wrong("{\"speed\": <rad/s or m/s>}"));
            };
            set_speed(&mut actuators[index], speed);
        }
        Control::Servo { limits, .. } => {
            let Some(position) = field("position").filter(|_| fields_only(&["position"])) else {
                return Err(wrong("{\"position\": <rad or m>}"));
            };
            if let Control::Servo { target, .. } = &mut actuators[index].control {
                *target = clamp_to(position, limits);
            }
            actuators[index].dirty = true;
            actuators[index].missing_for = 0.0;
        }
        Control::Drive { left, right, geometry, signs, .. } => {
            let (v, omega) = (field("v"), field("omega"));
            if !fields_only(&["v", "omega"]) || (v.is_none() && omega.is_none()) {
                return Err(wrong("{\"v\": <m/s>, \"omega\": <rad/s>}"));
            }
            let Control::Drive { v: old_v, omega: old_omega, .. } = actuators[index].control else { unreachable!() };
            let (v, omega) = (v.unwrap_or(old_v), omega.unwrap_or(old_omega));
            if let Control::Drive { v: stored_v, omega: stored_omega, .. } = &mut actuators[index].control {
                (*stored_v, *stored_omega) = (v, omega);
            }
            let (left_speed, right_speed) = geometry.wheel_speeds(v, omega);
            set_speed(&mut actuators[left], left_speed * signs.0);
            set_speed(&mut actuators[right], right_speed * signs.1);
        }
    }
    Ok(())
}

/// Holds every actuator of a robot still: motors and drives at zero speed, servos
/// where they aim now (a program about to start must not inherit the last one's motion).
pub fn hold(actuators: &mut [Actuator]) {
    for actuator in actuators {
        match &mut actuator.control {
            Control::Motor { .. } => set_speed(actuator, 0.0),
            Control::Drive { v, omega, .. } => (*v, *omega) = (0.0, 0.0),
            Control::Servo { .. } => {}
        }
    }
}

fn set_speed(actuator: &mut Actuator, new_speed: f64) {
    if let Control::Motor { speed, .. } = &mut actuator.control {
        *speed = new_speed;
        actuator.dirty = true;
        actuator.missing_for = 0.0;
    }
}

fn clamp_to(value: f64, limits: Option<(f64, f64)>) -> f64 {
    match limits {
        Some((low, high)) => value.clamp(low, high),
        None => value,
    }
}
