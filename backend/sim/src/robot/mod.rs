//! Robots made real: each robot's sensors read the world after a step and its
//! actuators drive the world's joints before the next; people inspect them and command
//! them by hand. Between `sim` (the world) and the controllers that will run programs.
//!
//! Conventions (also in docs/sensors.md): a body's forward axis is its local +X and its
//! up axis +Y; headings are counter-clockwise seen from above, 0 along world +X; the
//! ground plane's `(x, y)` is world `(X, −Z)`.

pub mod actuators;
pub mod frame;
pub mod kinematics;
pub mod noise;
pub mod sensors;
pub mod wheels;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use vlab_protocol::{
    MAX_KEY_NAME_BYTES, MAX_KEYS_HELD, ProgramState, ProgramStatus, RadioMessage, RobotReport, UserId,
};

use self::actuators::Actuator;
pub use self::actuators::CommandError;
use self::sensors::{Context, Sensor};
use crate::scene::{ProgramRate, Renumbering, SceneError, SceneModel};
use crate::sim::World;

/// Who added a robot: their id in the lab and display name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    /// Their id in the lab.
    pub id: UserId,
    /// Their display name.
    pub name: String,
}

/// One robot's live devices.
#[derive(Clone)]
pub struct Robot {
    name: String,
    /// Its index among the lab's robots (the world tags its colliders with it).
    index: u32,
    main_body: usize,
    sensors: Vec<Sensor>,
    actuators: Vec<Actuator>,
    keys: BTreeSet<String>,
    program: ProgramStatus,
    owner: Option<Owner>,
    installed: bool,
    /// How often its program runs, if its scene says.
    program_rate: Option<ProgramRate>,
}

impl Robot {
    /// Robot `index` of `model`, its devices configured; nothing touches a world yet.
    fn configure(model: &SceneModel, index: usize, lab_seed: u64) -> Result<Robot, SceneError> {
        let robot = &model.robots[index];
        let mine = |d: &&crate::scene::DeviceModel| d.robot.as_deref() == Some(robot.name.as_str());
        let sensors = model
            .sensors
            .iter()
            .filter(mine)
            .map(|device| Sensor::build(model, device, (&robot.name, index as u32), robot.main_body, lab_seed))
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(second) = sensors.iter().filter(|s| s.radio().is_some()).nth(1) {
            let what = "a second Radio (a robot has one radio)".into();
            return Err(SceneError::Unsupported { name: second.name().to_owned(), what });
        }
        let devices: Vec<_> = model.actuators.iter().filter(mine).collect();
        let mut actuators = devices.iter().map(|d| Actuator::build(d)).collect::<Result<Vec<_>, _>>()?;
        Actuator::resolve_drives(&mut actuators, &devices, model, robot.main_body)?;
        let program = match &robot.program {
            None => ProgramStatus { file: None, language: None, state: ProgramState::None, message: None, late: None },
            Some(program) => ProgramStatus {
                file: Some(program.file.clone()),
                language: program.project.as_ref().map(|p| p.language.clone()),
                state: ProgramState::Idle,
                message: Some("not running: drive it by hand through its actuators".into()),
                late: None,
            },
        };
        Ok(Robot {
            name: robot.name.clone(),
            index: index as u32,
            main_body: robot.main_body,
            sensors,
            actuators,
            keys: BTreeSet::new(),
            program,
            owner: None,
            installed: false,
            program_rate: robot.program_rate,
        })
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its sensors.
    pub fn sensors(&self) -> &[Sensor] {
        &self.sensors
    }

    /// Its actuators.
    pub fn actuators(&self) -> &[Actuator] {
        &self.actuators
    }

    /// What its program is doing.
    pub fn program(&self) -> &ProgramStatus {
        &self.program
    }

    /// How often its program runs, if its scene says (`program_rate`): it wins over
    /// what the program's project file says.
    pub fn program_rate(&self) -> Option<ProgramRate> {
        self.program_rate
    }

    /// Who added it (`None`: the lab's own).
    pub fn owner(&self) -> Option<&Owner> {
        self.owner.as_ref()
    }

    fn update_sensors(&mut self, world: &World, step: u64, time: f64) {
        let context = Context { world, robot: self.index, keys: &self.keys, time, dt: f64::from(world.dt()) };
        for sensor in &mut self.sensors {
            sensor.update(&context, step);
        }
        for actuator in &mut self.actuators {
            actuator.observe(world, context.dt);
        }
    }

    /// Whether its actuators leave the world as it is: no command waiting for the
    /// next step, no motor asked to turn, every servo where it aims.
    fn at_rest(&self) -> bool {
        self.actuators.iter().all(Actuator::at_rest)
    }

    fn report(&self, world: &World, step: u64, time: f64) -> RobotReport {
        RobotReport {
            name: self.name.clone(),
            step,
            time,
            pose: frame::robot_pose(&world.pose(self.main_body)),
            sensors: self.sensors.iter().map(Sensor::report).collect(),
            actuators: self.actuators.iter().map(|a| a.report(&self.actuators)).collect(),
            keys: self.keys.iter().cloned().collect(),
            program: self.program.clone(),
            owner: self.owner.as_ref().map(|o| o.name.clone()),
            console: None,
        }
    }
}

/// Why keys were refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum KeysError {
    /// Too many at once, or a name too long or not printable.
    #[error("{0}")]
    Invalid(String),
}

/// What was done to a robot's devices between two steps, in the order it was done:
/// the inputs that, replayed in order on the same world, give the same run.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "input", rename_all = "snake_case")]
pub enum RobotInput {
    /// Commands applied (all of them: the command was accepted).
    Command {
        /// The robot.
        robot: String,
        /// By actuator name.
        commands: BTreeMap<String, Value>,
    },
    /// Held still (a program starting or stopping).
    Hold {
        /// The robot.
        robot: String,
    },
    /// Keys held for its keyboard sensors.
    Keys {
        /// The robot.
        robot: String,
        /// The keys.
        keys: Vec<String>,
    },
}

/// Every robot of a lab, in the model's order.
#[derive(Clone)]
pub struct Robots {
    robots: Vec<Robot>,
    lab_seed: u64,
    /// Inputs since the lab last took them (see [`Robots::take_inputs`]).
    inputs: Vec<RobotInput>,
}

impl Robots {
    /// The robots of `model`, configured; call [`Robots::install`] once the world holds
    /// them. Fails, changing nothing, when a device cannot work as declared.
    pub fn configure(model: &SceneModel, lab_seed: u64) -> Result<Robots, SceneError> {
        let mut robots = Robots { robots: Vec::new(), lab_seed, inputs: Vec::new() };
        robots.robots = robots.configure_from(model, 0)?;
        Ok(robots)
    }

    /// The robots of `model` from index `first` on (an insertion's), configured but not
    /// yet added: the caller adds them with [`Robots::add`] once the world has them.
    pub fn configure_from(&self, model: &SceneModel, first: usize) -> Result<Vec<Robot>, SceneError> {
        (first..model.robots.len()).map(|i| Robot::configure(model, i, self.lab_seed)).collect()
    }

    /// Adds configured robots, owned by `owner` (`None`: the lab's own).
    pub fn add(&mut self, robots: Vec<Robot>, owner: Option<Owner>) {
        self.robots.extend(robots.into_iter().map(|robot| Robot { owner: owner.clone(), ..robot }));
    }

    /// Who owns which robot.
    pub fn owners(&self) -> BTreeMap<String, UserId> {
        self.robots.iter().filter_map(|r| r.owner.as_ref().map(|o| (r.name.clone(), o.id))).collect()
    }

    /// Takes every robot's owner away (before the robots are rebuilt).
    pub fn take_owners(&mut self) -> BTreeMap<String, Owner> {
        self.robots.iter_mut().filter_map(|r| r.owner.take().map(|o| (r.name.clone(), o))).collect()
    }

    /// Gives robots back the owners [`Robots::take_owners`] took.
    pub fn restore_owners(&mut self, mut owners: BTreeMap<String, Owner>) {
        for robot in &mut self.robots {
            robot.owner = owners.remove(&robot.name);
        }
    }

    /// Takes robot `name` out (its model was removed with `SceneModel::without_robot`)
    /// and follows the others to their new indices in the rebuilt world `world`: their
    /// readings, counts and commands carry on.
    pub fn remove(&mut self, name: &str, moved: &Renumbering, world: &mut World) {
        self.robots.retain(|robot| robot.name != name);
        self.renumber(moved, world);
    }

    /// Follows the world's bodies, joints and robots to their new indices after others
    /// were taken out (an object removed: every robot stays).
    pub fn renumber(&mut self, moved: &Renumbering, world: &mut World) {
        for robot in &mut self.robots {
            robot.index = moved.robots[robot.index as usize].expect("other robots stay") as u32;
            robot.main_body = moved.bodies[robot.main_body].expect("other robots keep their bodies");
            for sensor in &mut robot.sensors {
                sensor.renumber(moved);
            }
            for actuator in &mut robot.actuators {
                actuator.renumber(moved);
                actuator.install(world);
            }
        }
    }

    /// Robot `name` as configured afresh from `model` (its start: counts, odometry and
    /// commands as the scene declares them), keeping its owner and keys; installed at
    /// `step` / `time`. `false` when there is no such robot.
    pub fn restart(&mut self, name: &str, model: &SceneModel, world: &mut World, step: u64, time: f64) -> bool {
        let Some(slot) = self.robots.iter().position(|r| r.name == name) else { return false };
        let Some(index) = model.robots.iter().position(|r| r.name == name) else { return false };
        let Ok(mut fresh) = Robot::configure(model, index, self.lab_seed) else { return false };
        let old = &mut self.robots[slot];
        fresh.owner = old.owner.take();
        fresh.keys = std::mem::take(&mut old.keys);
        self.robots[slot] = fresh;
        self.install(world, step, time);
        true
    }

    /// Puts robots that are new to the world in place (servo limits, first commands)
    /// and takes their first readings, at `step` / `time`.
    pub fn install(&mut self, world: &mut World, step: u64, time: f64) {
        for robot in self.robots.iter_mut().filter(|r| !r.installed) {
            robot.installed = true;
            for actuator in &robot.actuators {
                actuator.install(world);
            }
            for actuator in &mut robot.actuators {
                actuator.apply(world);
            }
            robot.update_sensors(world, step, time);
        }
    }

    /// The pre-step phase: changed commands reach the world's joint motors.
    pub fn apply_actuators(&mut self, world: &mut World) {
        for robot in &mut self.robots {
            for actuator in &mut robot.actuators {
                actuator.apply(world);
            }
        }
    }

    /// The post-step phase: sensors that are due read the world.
    pub fn update_sensors(&mut self, world: &World, step: u64, time: f64) {
        for robot in &mut self.robots {
            robot.update_sensors(world, step, time);
        }
    }

    /// Whether nothing the robots do can change a world where every body sleeps:
    /// every actuator at rest and no radio (the lab hands radios a reading every control
    /// step). Then [`Robots::skip_still`] stands in for stepping.
    pub fn at_rest(&self) -> bool {
        self.robots.iter().all(|robot| robot.at_rest() && !robot.sensors.iter().any(|s| s.radio().is_some()))
    }

    /// What the post-step phases of the steps `from + 1 ..= to` would have done to a
    /// world where nothing moved (every body asleep, [`Robots::at_rest`]): every
    /// sensor's schedule booked and its last due reading taken, as if those steps had
    /// been taken one by one.
    pub fn skip_still(&mut self, world: &World, from: u64, to: u64, dt_secs: f64) {
        if to <= from {
            return;
        }
        for robot in &mut self.robots {
            let context = Context {
                world,
                robot: robot.index,
                keys: &robot.keys,
                time: to as f64 * dt_secs,
                dt: f64::from(world.dt()),
            };
            for sensor in &mut robot.sensors {
                sensor.skip_still(&context, from + 1..=to, dt_secs);
            }
        }
    }

    /// Sets what robot `name`'s program is doing, for its reports.
    pub fn set_program(&mut self, name: &str, status: ProgramStatus) {
        if let Some(robot) = self.robots.iter_mut().find(|r| r.name == name) {
            robot.program = status;
        }
    }

    /// Every robot's radio: the robot's name and index (its colliders' tag), and
    /// the radio's settings; in the robots' order.
    pub fn radios(&self) -> impl Iterator<Item = (&str, u32, &sensors::RadioSettings)> {
        self.robots.iter().filter_map(|robot| {
            let radio = robot.sensors.iter().find_map(Sensor::radio)?;
            Some((robot.name.as_str(), robot.index, radio))
        })
    }

    /// Gives robot `name`'s radio its reading of this control step (`lab::radio`).
    pub fn hear(&mut self, name: &str, step: u64, time: f64, heard: Vec<RadioMessage>, sent: Vec<String>) {
        let Some(robot) = self.robots.iter_mut().find(|r| r.name == name) else { return };
        if let Some(radio) = robot.sensors.iter_mut().find(|s| s.radio().is_some()) {
            radio.hear(step, time, heard, sent);
        }
    }

    /// The robot called `name`.
    pub fn get(&self, name: &str) -> Option<&Robot> {
        self.robots.iter().find(|r| r.name == name)
    }

    /// Every robot.
    pub fn all(&self) -> &[Robot] {
        &self.robots
    }

    /// The report of robot `name` now.
    pub fn report(&self, name: &str, world: &World, step: u64, time: f64) -> Option<RobotReport> {
        self.get(name).map(|robot| robot.report(world, step, time))
    }

    /// Commands several actuators of robot `name` by hand, all or nothing: one bad
    /// command and none is applied. `None` when there is no such robot.
    pub fn command(&mut self, name: &str, commands: &BTreeMap<String, Value>) -> Option<Result<(), CommandError>> {
        let robot = self.robots.iter_mut().find(|r| r.name == name)?;
        let mut indices = Vec::new();
        for actuator in commands.keys() {
            match robot.actuators.iter().position(|a| a.name() == actuator) {
                Some(index) => indices.push(index),
                None => {
                    let known: Vec<&str> = robot.actuators.iter().map(Actuator::name).collect();
                    return Some(Err(CommandError::UnknownActuator {
                        robot: robot.name.clone(),
                        actuator: actuator.clone(),
                        known: if known.is_empty() { "none".into() } else { known.join(", ") },
                    }));
                }
            }
        }
        // Try them on a scratch copy of the commands first, so a later failure leaves
        // every actuator as it was.
        let backup: Vec<_> = robot.actuators.iter().map(Actuator::snapshot).collect();
        for (index, command) in indices.into_iter().zip(commands.values()) {
            if let Err(error) = actuators::command(&mut robot.actuators, index, command) {
                for (actuator, saved) in robot.actuators.iter_mut().zip(backup) {
                    actuator.restore(saved);
                }
                return Some(Err(error));
            }
        }
        self.inputs.push(RobotInput::Command { robot: name.to_owned(), commands: commands.clone() });
        Some(Ok(()))
    }

    /// The inputs given since the last call, in order.
    pub fn take_inputs(&mut self) -> Vec<RobotInput> {
        std::mem::take(&mut self.inputs)
    }

    /// Gives an input again (a run re-simulated); unknown robots are skipped, as they
    /// were when it was first given.
    pub fn replay(&mut self, input: &RobotInput) {
        match input {
            RobotInput::Command { robot, commands } => {
                let _ = self.command(robot, commands);
            }
            RobotInput::Hold { robot } => self.hold(robot),
            RobotInput::Keys { robot, keys } => {
                let _ = self.set_keys(robot, keys);
            }
        }
        self.inputs.clear();
    }

    /// Holds robot `name` still (its motors and drives at zero speed, its servos where
    /// they aim) until it is commanded again.
    pub fn hold(&mut self, name: &str) {
        if let Some(robot) = self.robots.iter_mut().find(|r| r.name == name) {
            actuators::hold(&mut robot.actuators);
            self.inputs.push(RobotInput::Hold { robot: name.to_owned() });
        }
    }

    /// Sets the keys held for robot `name`'s keyboard sensors. `None` when there is
    /// no such robot.
    pub fn set_keys(&mut self, name: &str, keys: &[String]) -> Option<Result<(), KeysError>> {
        let robot = self.robots.iter_mut().find(|r| r.name == name)?;
        if keys.len() > MAX_KEYS_HELD {
            return Some(Err(KeysError::Invalid(format!(
                "{} keys held at once: the limit is {MAX_KEYS_HELD}",
                keys.len()
            ))));
        }
        if let Some(bad) =
            keys.iter().find(|k| k.is_empty() || k.len() > MAX_KEY_NAME_BYTES || k.chars().any(char::is_control))
        {
            return Some(Err(KeysError::Invalid(format!(
                "key name {bad:?} refused: 1 to {MAX_KEY_NAME_BYTES} printable bytes"
            ))));
        }
        robot.keys = keys.iter().map(|k| k.to_uppercase()).collect();
        self.inputs.push(RobotInput::Keys { robot: name.to_owned(), keys: keys.to_vec() });
        Some(Ok(()))
    }
}
