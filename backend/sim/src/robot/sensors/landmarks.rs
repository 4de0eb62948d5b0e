//! The `LandmarkSensor`: the lab's beacons in its field of view, each as an id, a
//! distance, a bearing and an elevation in the sensor's frame, with noise on every
//! coordinate (SimSpark's restricted vision perceptor).
//!
//! The field of view is centred on the body's forward axis (+X): `fov` across, seen
//! from above, and `vertical_fov` up and down. With `line_of_sight` a beacon hidden
//! behind anything but its own object (walls, robots, other objects; glass does not
//! hide) is not seen.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;
use vlab_protocol::pose::unrotate;
use vlab_protocol::{Landmark, SensorValue};

use super::Context;
use crate::robot::frame::wide;
use crate::robot::kinematics::wrap_angle;
use crate::robot::noise::NoiseModel;
use crate::scene::{DeviceModel, Mount, SceneModel, Shape};
use crate::sim::RayFilter;

/// A beacon as the sensor knows it.
#[derive(Clone)]
struct Beacon {
    id: String,
    body: usize,
    /// How far its object reaches from its origin, metres: a ray that stops this close
    /// to the beacon has reached its object, not something in front of it.
    radius: f64,
}

/// What one landmark sensor sees, and how well.
#[derive(Clone)]
pub struct LandmarkProbe {
    body: usize,
    beacons: Vec<Beacon>,
    range: f64,
    half_fov: f64,
    half_vertical_fov: f64,
    angle_noise: f64,
    line_of_sight: bool,
}

impl LandmarkProbe {
    /// The probe `device` declares on body `body`, seeing the beacons of `model`.
    pub fn new(model: &SceneModel, device: &DeviceModel, body: usize) -> LandmarkProbe {
        let mut beacons: Vec<Beacon> = model
            .beacons
            .iter()
            .filter_map(|beacon| match beacon.mount {
                Mount::Body(index) => {
                    Some(Beacon { id: beacon.name.clone(), body: index, radius: reach(&model.bodies[index]) })
                }
                _ => None,
            })
            .collect();
        beacons.sort_by(|a, b| a.id.cmp(&b.id));
        let number = |name| device.num(name).unwrap_or(0.0);
        LandmarkProbe {
            body,
            beacons,
            range: number("range"),
            half_fov: number("fov") / 2.0,
            half_vertical_fov: number("vertical_fov") / 2.0,
            angle_noise: number("angle_noise").abs(),
            line_of_sight: matches!(device.param("line_of_sight"), Some(crate::scene::ParamValue::Bool(true))),
        }
    }

    /// Follows its body and the beacons' to their new indices after others were removed.
    pub fn renumber(&mut self, moved: &crate::scene::Renumbering) {
        self.body = moved.bodies[self.body].expect("a robot's bodies stay with it");
        // A beacon's object may be removed (the instructor removes any object): it is
        // seen no more.
        self.beacons.retain_mut(|beacon| match moved.bodies[beacon.body] {
            Some(body) => {
                beacon.body = body;
                true
            }
            None => false,
        });
    }

    /// The beacons seen now: truth, and measured through the noise (distance through
    /// the noise model, each angle plus N(0, angle_noise²)); by id.
    pub fn read(&self, context: &Context, noise: &NoiseModel, rng: &mut ChaCha8Rng) -> (SensorValue, SensorValue) {
        let pose = context.world.pose(self.body);
        let origin = wide(pose.position);
        let (mut measured, mut truth) = (Vec::new(), Vec::new());
        for beacon in &self.beacons {
            let target = wide(context.world.pose(beacon.body).position);
            let offset: [f64; 3] = std::array::from_fn(|i| target[i] - origin[i]);
            let Some(seen) = self.sight(&beacon.id, unrotate(wide(pose.rotation), offset)) else { continue };
            if self.line_of_sight && !clear(context, pose.position, offset, seen.distance, beacon.radius) {
                continue;
            }
            let mut angle = |a: f64| {
                if self.angle_noise > 0.0 {
                    let unit: f64 = rng.sample(StandardNormal);
                    a + self.angle_noise * unit
                } else {
                    a
                }
            };
            let (bearing, elevation) = (wrap_angle(angle(seen.bearing)), angle(seen.elevation));
            let distance = if noise.is_exact() { seen.distance } else { noise.measure(seen.distance, rng).max(0.0) };
            measured.push(Landmark { id: seen.id.clone(), distance, bearing, elevation });
            truth.push(seen);
        }
        (SensorValue::Landmarks { landmarks: measured }, SensorValue::Landmarks { landmarks: truth })
    }

    /// The beacon `id` at `local` (sensor frame), if it is within range and the field
    /// of view.
    fn sight(&self, id: &str, local: [f64; 3]) -> Option<Landmark> {
        let distance = (local[0] * local[0] + local[1] * local[1] + local[2] * local[2]).sqrt();
        let bearing = (-local[2]).atan2(local[0]);
        let elevation = local[1].atan2(local[0].hypot(local[2]));
        let inside =
            distance <= self.range && bearing.abs() <= self.half_fov && elevation.abs() <= self.half_vertical_fov;
        inside.then(|| Landmark { id: id.to_owned(), distance, bearing, elevation })
    }
}

/// Whether the straight line from `origin` along `offset` reaches the beacon's object
/// (within `radius` of its origin) before anything else. Light passes through glass.
fn clear(context: &Context, origin: [f32; 3], offset: [f64; 3], distance: f64, radius: f64) -> bool {
    if distance <= radius {
        return true;
    }
    let direction = offset.map(|c| (c / distance) as f32);
    let filter = RayFilter { ignore_robot: Some(context.robot), through_transparent: true };
    let hit = context.world.cast_ray(origin, direction, distance as f32, filter);
    hit.is_none_or(|at| f64::from(at) >= distance - radius - 1e-3)
}

/// How far a body's parts reach from its origin (a sphere around them all).
fn reach(body: &crate::scene::BodyModel) -> f64 {
    body.parts
        .iter()
        .map(|part| {
            let [x, y, z] = wide(part.local.position);
            let centre = (x * x + y * y + z * z).sqrt();
            let size = match part.shape {
                Shape::Box { half_extents: [a, b, c] } => f64::from(a * a + b * b + c * c).sqrt(),
                Shape::Sphere { radius } => f64::from(radius),
                Shape::Cylinder { radius, half_length } | Shape::Capsule { radius, half_length } => {
                    f64::from(radius + half_length)
                }
                Shape::ConvexHull { ref points } => {
                    points.iter().map(|p| f64::from(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt()).fold(0.0, f64::max)
                }
            };
            centre + size
        })
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(fov_deg: f64, range: f64) -> LandmarkProbe {
        LandmarkProbe {
            body: 0,
            beacons: Vec::new(),
            range,
            half_fov: fov_deg.to_radians() / 2.0,
            half_vertical_fov: 60f64.to_radians(),
            angle_noise: 0.0,
            line_of_sight: false,
        }
    }

    #[test]
    fn a_beacon_ahead_and_to_the_left_reads_its_distance_bearing_and_elevation() {
        // 3 m ahead, 4 m to the left (local −Z), level: 5 m at atan2(4, 3) = 53.13°.
        let seen = probe(120.0, 10.0).sight("B", [3.0, 0.0, -4.0]).unwrap();
        assert!((seen.distance - 5.0).abs() < 1e-12);
        assert!((seen.bearing - 4f64.atan2(3.0)).abs() < 1e-12);
        assert_eq!(seen.elevation, 0.0);
        // 1 m ahead and 1 m up: √2 m at 45° above.
        let up = probe(120.0, 10.0).sight("B", [1.0, 1.0, 0.0]).unwrap();
        assert!((up.elevation - std::f64::consts::FRAC_PI_4).abs() < 1e-12 && up.bearing == 0.0);
    }

    #[test]
    fn beacons_outside_the_field_or_the_range_are_not_seen() {
        let sensor = probe(90.0, 5.0);
        // 45° to the right is the field's edge; 46° is outside.
        assert!(sensor.sight("B", [1.0, 0.0, 1.0]).is_some());
        let outside = 46f64.to_radians();
        assert!(sensor.sight("B", [outside.cos(), 0.0, outside.sin()]).is_none());
        assert!(sensor.sight("B", [-2.0, 0.0, 0.0]).is_none(), "behind");
        assert!(sensor.sight("B", [5.0, 0.0, 0.0]).is_some() && sensor.sight("B", [5.001, 0.0, 0.0]).is_none());
    }
}
