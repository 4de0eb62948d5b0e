//! A robot's sensors: each one built from its scene declaration, updated after the
//! physics step at its own rate, and remembering its latest reading (true and
//! measured, stamped with the step and simulation time it was taken at).
//!
//! Families live in their own files: the body's motion (`motion`), rays through the
//! scene (`rays`), joints and what is integrated from them (`joints`), contacts
//! (`contact`), images (`camera`).

mod camera;
mod contact;
mod joints;
mod landmarks;
mod motion;
pub mod orientation;
mod radio;
mod rays;

use rand_chacha::ChaCha8Rng;
use vlab_protocol::{SensorReport, SensorValue};

use super::noise::{NoiseModel, Schedule, sensor_rng};
use crate::scene::{DeviceModel, Mount, SceneError, SceneModel};
use crate::sim::World;

pub use self::camera::CameraProbe;
pub use self::joints::JointTracker;
pub use self::radio::RadioSettings;

/// What a sensor sees of the world and its robot at one update.
pub struct Context<'a> {
    /// The world after the physics step.
    pub world: &'a World,
    /// The robot's index in the world's collider tags (rays ignore their own robot).
    pub robot: u32,
    /// Keys the robot's owner holds.
    pub keys: &'a std::collections::BTreeSet<String>,
    /// Simulation time, seconds.
    pub time: f64,
    /// Physics step, seconds.
    pub dt: f64,
}

/// One reading: what was true and what the sensor measured, and when.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    /// The step it was taken after.
    pub step: u64,
    /// Simulation time then, seconds.
    pub time: f64,
    /// Through the noise model.
    pub measured: SensorValue,
    /// The world's true value.
    pub truth: SensorValue,
    /// Where a ray sensor's rays started, and its frame then.
    pub origin: Option<crate::scene::Pose>,
}

/// How one kind of sensor measures.
#[derive(Clone)]
enum Probe {
    Motion(motion::MotionProbe),
    Ray(rays::RayProbe),
    Joint(joints::JointProbe),
    Odometry(Box<joints::OdometryProbe>),
    Contact(contact::ContactProbe),
    Camera(Box<camera::CameraProbe>),
    Orientation(usize),
    Landmarks(Box<landmarks::LandmarkProbe>),
    /// Handed what it heard by the lab's radio router (`lab::radio`).
    Radio(RadioSettings),
    Keyboard,
    /// Declared, valid, but not simulated (radio): reports no reading.
    Silent,
}

/// A live sensor.
#[derive(Clone)]
pub struct Sensor {
    name: String,
    kind: String,
    schedule: Schedule,
    noise: NoiseModel,
    rng: ChaCha8Rng,
    probe: Probe,
    last: Option<Reading>,
}

impl Sensor {
    /// The sensor of `device` (a sensor of robot `robot`, number `robot_index`, in
    /// `model`), with its noise generator seeded from `lab_seed`.
    pub fn build(
        model: &SceneModel,
        device: &DeviceModel,
        (robot, robot_index): (&str, u32),
        main_body: usize,
        lab_seed: u64,
    ) -> Result<Sensor, SceneError> {
        let body = match device.mount {
            Mount::Body(index) => index,
            _ => main_body,
        };
        let probe = match device.kind.as_str() {
            "SimpleGPS" | "Compass" | "SimpleAccelerometer" | "Gyro" => {
                Probe::Motion(motion::MotionProbe::new(&device.kind, body))
            }
            "LaserDistance" | "Infrared" | "Lidar" | "Sonar" => Probe::Ray(rays::RayProbe::new(device, body)),
            "Encoder" | "JointState" => match device.mount {
                Mount::Joint(joint) => Probe::Joint(joints::JointProbe::new(device, joint)),
                _ => return Err(unsupported(device, "a joint sensor that is not inside a joint")),
            },
            "Odometry" => Probe::Odometry(Box::new(joints::OdometryProbe::new(model, device, robot, main_body)?)),
            "Touch" | "ForceResistance" => Probe::Contact(contact::ContactProbe::new(&device.kind, body)),
            "Keyboard" => Probe::Keyboard,
            "IMU" => Probe::Orientation(body),
            "LandmarkSensor" => Probe::Landmarks(Box::new(landmarks::LandmarkProbe::new(model, device, body))),
            "Radio" => Probe::Radio(RadioSettings::new(device, body)),
            "Camera" | "DepthCamera" => Probe::Camera(Box::new(camera::CameraProbe::new(device, body))),
            _ => Probe::Silent,
        };
        Ok(Sensor {
            name: device.name.clone(),
            kind: device.kind.clone(),
            schedule: Schedule::staggered(device.num("rate"), robot_index),
            noise: NoiseModel::of(device),
            rng: sensor_rng(lab_seed, robot, &device.name),
            probe,
            last: None,
        })
    }

    /// Its name within the robot.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its catalogue type.
    pub fn kind(&self) -> &str {
        &self.kind
    }

    /// Its latest reading.
    pub fn last(&self) -> Option<&Reading> {
        self.last.as_ref()
    }

    /// Follows its body or joint to its new index after others were removed.
    pub fn renumber(&mut self, moved: &crate::scene::Renumbering) {
        match &mut self.probe {
            Probe::Motion(probe) => probe.renumber(moved),
            Probe::Ray(probe) => probe.renumber(moved),
            Probe::Joint(probe) => probe.renumber(moved),
            Probe::Odometry(probe) => probe.renumber(moved),
            Probe::Contact(probe) => probe.renumber(moved),
            Probe::Camera(probe) => probe.renumber(moved),
            Probe::Orientation(body) => *body = moved.bodies[*body].expect("a robot's bodies stay with it"),
            Probe::Landmarks(probe) => probe.renumber(moved),
            Probe::Radio(settings) => settings.renumber(moved),
            Probe::Keyboard | Probe::Silent => {}
        }
    }

    /// After a physics step: keeps what must be followed every step (velocities, joint
    /// turns) and, when the sensor is due, takes a reading.
    pub fn update(&mut self, context: &Context, step: u64) {
        let due = self.schedule.due(context.time, context.dt);
        self.take(context, step, due);
    }

    /// Books the updates the sensor would have made after each of the steps
    /// `steps` (times `step × dt_secs`) in a world where nothing moved, and takes the
    /// last of them now, stamped with its step: exactly the reading it would hold had
    /// the steps been taken, as a still world reads the same at every step and the
    /// noise of a step is drawn from that step's own stream.
    pub fn skip_still(&mut self, context: &Context, steps: std::ops::RangeInclusive<u64>, dt_secs: f64) {
        let last_due = steps.filter(|&step| self.schedule.due(step as f64 * dt_secs, context.dt)).last();
        if let Some(step) = last_due {
            let context = Context { time: step as f64 * dt_secs, ..*context };
            self.take(&context, step, true);
        }
    }

    /// Follows the world after a step and, when `due`, takes a reading.
    fn take(&mut self, context: &Context, step: u64, due: bool) {
        // Each step draws its noise from its own stream of the sensor's generator, so
        // a reading depends on its step alone, not on how many draws came before: a
        // lab that skipped steps where nothing moved reads as if it had taken them.
        // Only a due reading draws, and only a noisy one (odometry and landmarks have
        // noise parameters of their own): moving to a stream costs a block of the
        // generator, so the others skip it.
        let draws = !self.noise.is_exact() || matches!(self.probe, Probe::Odometry(_) | Probe::Landmarks(_));
        if due && draws {
            self.rng.set_stream(step);
            self.rng.set_word_pos(0);
        }
        let mut origin = None;
        let taken = match &mut self.probe {
            Probe::Motion(probe) => probe.update(context, due, &self.noise, &mut self.rng),
            Probe::Ray(probe) => due.then(|| {
                origin = Some(context.world.pose(probe.body()));
                probe.read(context, &self.noise, &mut self.rng)
            }),
            Probe::Joint(probe) => probe.update(context, due, &self.noise, &mut self.rng),
            Probe::Odometry(probe) => probe.update(context, due, &self.noise, &mut self.rng),
            Probe::Contact(probe) => due.then(|| probe.read(context, &self.noise, &mut self.rng)),
            Probe::Camera(probe) => due.then(|| probe.read(context, &self.noise, &mut self.rng)),
            Probe::Orientation(body) => {
                due.then(|| orientation::read(&context.world.pose(*body), &self.noise, &mut self.rng))
            }
            Probe::Landmarks(probe) => due.then(|| probe.read(context, &self.noise, &mut self.rng)),
            Probe::Radio(_) => None,
            Probe::Keyboard => due.then(|| {
                let keys = SensorValue::Keys { keys: context.keys.iter().cloned().collect() };
                (keys.clone(), keys)
            }),
            Probe::Silent => None,
        };
        if let Some((measured, truth)) = taken {
            self.last = Some(Reading { step, time: context.time, measured, truth, origin });
        }
    }

    /// A radio's settings (`None` for other sensors).
    pub fn radio(&self) -> Option<&RadioSettings> {
        match &self.probe {
            Probe::Radio(settings) => Some(settings),
            _ => None,
        }
    }

    /// A radio's reading of one control step: what it `heard` and its robot `sent`.
    pub fn hear(&mut self, step: u64, time: f64, heard: Vec<vlab_protocol::RadioMessage>, sent: Vec<String>) {
        let value = SensorValue::Radio { heard, sent };
        self.last = Some(Reading { step, time, measured: value.clone(), truth: value, origin: None });
    }

    /// A camera's geometry and latest image (`None` for other sensors).
    pub fn camera(&self) -> Option<&CameraProbe> {
        match &self.probe {
            Probe::Camera(probe) => Some(probe),
            _ => None,
        }
    }

    /// The measured value as the robot's program receives it: a camera's reading
    /// carries its pixels when it was taken after step `sent` (the program's previous
    /// step message), and only its summary otherwise, as an image is large and
    /// programs keep the last one they got.
    pub fn measured_for_program(&self, sent: Option<u64>) -> Option<SensorValue> {
        let reading = self.last.as_ref()?;
        let fresh = sent.is_none_or(|sent| reading.step > sent);
        let mut value = reading.measured.clone();
        if let (true, Some(camera)) = (fresh, self.camera()) {
            match &mut value {
                SensorValue::Image { pixels: data, .. } | SensorValue::DepthImage { depths: data, .. } => {
                    camera.encoded().clone_into(data);
                }
                _ => {}
            }
        }
        Some(value)
    }

    /// The sensor as a report shows it.
    pub fn report(&self) -> SensorReport {
        SensorReport {
            name: self.name.clone(),
            kind: self.kind.clone(),
            rate: self.schedule.rate(),
            step: self.last.as_ref().map(|r| r.step),
            time: self.last.as_ref().map(|r| r.time),
            measured: self.last.as_ref().map(|r| r.measured.clone()),
            truth: self.last.as_ref().map(|r| r.truth.clone()),
            origin: self.last.as_ref().and_then(|r| r.origin.as_ref()).map(super::frame::robot_pose),
        }
    }
}

fn unsupported(device: &DeviceModel, what: &str) -> SceneError {
    SceneError::Unsupported { name: device.name.clone(), what: format!("{} as {what}", device.kind) }
}

/// The measured vector of a true one, component by component.
fn measure3(noise: &NoiseModel, truth: [f64; 3], rng: &mut ChaCha8Rng) -> [f64; 3] {
    if noise.is_exact() {
        return truth;
    }
    truth.map(|v| noise.measure(v, rng))
}
