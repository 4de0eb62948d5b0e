//! Sensors of contact on a body: `Touch` (1 while anything touches it: a bumper) and
//! `ForceResistance` (where, and how hard: a foot pressure pad).

use rand_chacha::ChaCha8Rng;
use vlab_protocol::SensorValue;

use super::{Context, measure3};
use crate::robot::frame::wide;
use crate::robot::noise::NoiseModel;

/// Which contact sensor, on which body.
#[derive(Clone)]
pub struct ContactProbe {
    body: usize,
    force: bool,
}

impl ContactProbe {
    /// Follows its body to its new index after others were removed.
    pub fn renumber(&mut self, moved: &crate::scene::Renumbering) {
        self.body = moved.bodies[self.body].expect("a robot's bodies stay with it");
    }

    /// A probe of `kind` on body `body`.
    pub fn new(kind: &str, body: usize) -> ContactProbe {
        ContactProbe { body, force: kind == "ForceResistance" }
    }

    /// The contacts as the last step left them.
    pub fn read(&self, context: &Context, noise: &NoiseModel, rng: &mut ChaCha8Rng) -> (SensorValue, SensorValue) {
        let contacts = context.world.contacts(self.body);
        if !self.force {
            let value = SensorValue::Scalar { value: if contacts.touching { 1.0 } else { 0.0 } };
            return (value.clone(), value);
        }
        let force = wide(contacts.force);
        let point = contacts.point.map(wide);
        let measured = if contacts.touching { measure3(noise, force, rng) } else { [0.0; 3] };
        (
            SensorValue::Contact { touching: contacts.touching, point, force: measured },
            SensorValue::Contact { touching: contacts.touching, point, force },
        )
    }
}
