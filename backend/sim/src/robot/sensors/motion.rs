//! Sensors of a body's own motion: position (`SimpleGPS`), heading (`Compass`), proper
//! acceleration (`SimpleAccelerometer`) and angular rate (`Gyro`).

use rand_chacha::ChaCha8Rng;
use vlab_protocol::SensorValue;
use vlab_protocol::pose::unrotate;

use super::{Context, measure3};
use crate::robot::frame::{heading, wide};
use crate::robot::kinematics::wrap_angle;
use crate::robot::noise::NoiseModel;

/// Which quantity, of which body.
#[derive(Clone)]
pub struct MotionProbe {
    quantity: Quantity,
    body: usize,
    /// The body's velocity one step ago (the accelerometer differentiates it).
    previous_velocity: Option<[f64; 3]>,
}

#[derive(Clone)]
enum Quantity {
    Position,
    Heading,
    Acceleration,
    AngularRate,
}

impl MotionProbe {
    /// Follows its body to its new index after others were removed.
    pub fn renumber(&mut self, moved: &crate::scene::Renumbering) {
        self.body = moved.bodies[self.body].expect("a robot's bodies stay with it");
    }

    /// A probe of `kind` on body `body`.
    pub fn new(kind: &str, body: usize) -> MotionProbe {
        let quantity = match kind {
            "SimpleGPS" => Quantity::Position,
            "Compass" => Quantity::Heading,
            "SimpleAccelerometer" => Quantity::Acceleration,
            _ => Quantity::AngularRate,
        };
        MotionProbe { quantity, body, previous_velocity: None }
    }

    /// Follows the body every step; reads it when `due`.
    pub fn update(
        &mut self,
        context: &Context,
        due: bool,
        noise: &NoiseModel,
        rng: &mut ChaCha8Rng,
    ) -> Option<(SensorValue, SensorValue)> {
        let pose = context.world.pose(self.body);
        match self.quantity {
            Quantity::Position => due.then(|| {
                let truth = wide(pose.position);
                vector(measure3(noise, truth, rng), truth)
            }),
            Quantity::Heading => due.then(|| {
                let truth = heading(&pose);
                let measured = if noise.is_exact() { truth } else { wrap_angle(noise.measure(truth, rng)) };
                (SensorValue::Scalar { value: measured }, SensorValue::Scalar { value: truth })
            }),
            Quantity::Acceleration => {
                let (linear, _) = context.world.velocities(self.body);
                let velocity = wide(linear);
                let previous = self.previous_velocity.replace(velocity).unwrap_or(velocity);
                due.then(|| {
                    // What an accelerometer feels is acceleration minus gravity: at rest
                    // on the floor, +9.81 m/s² up.
                    let gravity = wide(context.world.gravity());
                    let world: [f64; 3] =
                        std::array::from_fn(|i| (velocity[i] - previous[i]) / context.dt - gravity[i]);
                    let truth = unrotate(wide(pose.rotation), world);
                    vector(measure3(noise, truth, rng), truth)
                })
            }
            Quantity::AngularRate => due.then(|| {
                let (_, angular) = context.world.velocities(self.body);
                let truth = unrotate(wide(pose.rotation), wide(angular));
                vector(measure3(noise, truth, rng), truth)
            }),
        }
    }
}

fn vector(measured: [f64; 3], truth: [f64; 3]) -> (SensorValue, SensorValue) {
    (SensorValue::Vector { values: measured }, SensorValue::Vector { values: truth })
}
