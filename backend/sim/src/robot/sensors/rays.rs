//! Sensors that cast rays from their body through the scene: `LaserDistance` and
//! `Infrared` (one ray forward), `Lidar` (a planar fan), `Sonar` (the nearest hit in a
//! cone). Rays never see their own robot. Light (laser, infrared, lidar) passes
//! through transparent materials; sound (sonar) does not, so a glass wall is seen by
//! the sonar alone.
//!
//! The forward axis is the body's local +X; a lidar scans the body's local XZ plane,
//! counter-clockwise seen from above (towards local −Z).

use rand_chacha::ChaCha8Rng;
use vlab_protocol::SensorValue;
use vlab_protocol::pose::rotate;

use super::Context;
use crate::robot::frame::wide;
use crate::robot::noise::NoiseModel;
use crate::scene::DeviceModel;
use crate::sim::{Fan, RayFilter};

/// Polar angles of the sonar's rings, as fractions of its half-cone, and how many
/// rays each ring has: 1 + 8 + 8 + 8 rays sample a cone finely enough for the walls,
/// posts and robots of a lab at sonar ranges.
const SONAR_RINGS: [(f64, usize); 4] = [(0.0, 1), (0.35, 8), (0.7, 8), (1.0, 8)];

/// A ray sensor's geometry.
#[derive(Clone)]
pub struct RayProbe {
    body: usize,
    /// Beam directions in the body's frame.
    directions: Vec<[f64; 3]>,
    /// A scan (one range per beam) or a single range (the nearest over the beams).
    scan: Option<(f64, f64)>,
    min_range: f64,
    max_range: f64,
    light: bool,
    /// A scan's beams in the world frame and their hits, kept between readings so a
    /// reading allocates only the ranges it reports.
    world_directions: Vec<[f32; 3]>,
    hits: Vec<Option<f32>>,
}

impl RayProbe {
    /// The body it casts from.
    pub fn body(&self) -> usize {
        self.body
    }

    /// Follows its body to its new index after others were removed.
    pub fn renumber(&mut self, moved: &crate::scene::Renumbering) {
        self.body = moved.bodies[self.body].expect("a robot's bodies stay with it");
    }

    /// The probe `device` declares, on body `body`.
    pub fn new(device: &DeviceModel, body: usize) -> RayProbe {
        let max_range = device.num("range").unwrap_or(10.0).max(0.0);
        let min_range = device.num("min_range").unwrap_or(0.0).clamp(0.0, max_range);
        let (directions, scan) = match device.kind.as_str() {
            "Lidar" => {
                let fov = device.num("fov").unwrap_or(std::f64::consts::PI).clamp(0.0, std::f64::consts::TAU);
                let beams = device.num("beams").unwrap_or(361.0).max(1.0) as usize;
                let step = if beams > 1 { fov / (beams - 1) as f64 } else { 0.0 };
                let first = if beams > 1 { -fov / 2.0 } else { 0.0 };
                let directions = (0..beams).map(|i| planar(first + step * i as f64)).collect();
                (directions, Some((first, step)))
            }
            "Sonar" => {
                let half = device.num("cone").unwrap_or(30f64.to_radians()).clamp(0.0, std::f64::consts::PI) / 2.0;
                let mut directions = Vec::new();
                for (fraction, count) in SONAR_RINGS {
                    let polar = half * fraction;
                    for k in 0..count {
                        let azimuth = std::f64::consts::TAU * k as f64 / count as f64;
                        directions.push([polar.cos(), polar.sin() * azimuth.cos(), polar.sin() * azimuth.sin()]);
                    }
                }
                (directions, None)
            }
            _ => (vec![[1.0, 0.0, 0.0]], None),
        };
        RayProbe {
            body,
            directions,
            scan,
            min_range,
            max_range,
            light: device.kind != "Sonar",
            world_directions: Vec::new(),
            hits: Vec::new(),
        }
    }

    /// Casts the rays now: a scan's fan at once ([`World::cast_fan`]), other sensors'
    /// rays one by one.
    ///
    /// [`World::cast_fan`]: crate::sim::World::cast_fan
    pub fn read(&mut self, context: &Context, noise: &NoiseModel, rng: &mut ChaCha8Rng) -> (SensorValue, SensorValue) {
        let pose = context.world.pose(self.body);
        let filter = RayFilter { ignore_robot: Some(context.robot), through_transparent: self.light };
        let world_direction = |local: &[f64; 3]| rotate(wide(pose.rotation), *local).map(|c| c as f32);
        match self.scan {
            Some((angle_min, angle_step)) => {
                self.world_directions.clear();
                self.world_directions.extend(self.directions.iter().map(world_direction));
                self.hits.resize(self.directions.len(), None);
                let fan = Fan {
                    origin: pose.position,
                    rotation: pose.rotation,
                    angle_min: angle_min as f32,
                    angle_step: angle_step as f32,
                    directions: &self.world_directions,
                };
                context.world.cast_fan(&fan, self.max_range as f32, filter, &mut self.hits);
                let count = self.hits.len();
                let (mut measured, mut truth) = (Vec::with_capacity(count), Vec::with_capacity(count));
                for hit in self.hits.iter().map(|hit| hit.map(f64::from)) {
                    truth.push(round_range(hit.unwrap_or(self.max_range)));
                    measured.push(round_range(self.measure(hit, noise, rng)));
                }
                let scan = |ranges| SensorValue::Scan { angle_min, angle_step, max_range: self.max_range, ranges };
                (scan(measured), scan(truth))
            }
            None => {
                let nearest = (self.directions.iter())
                    .filter_map(|local| {
                        let direction = world_direction(local);
                        context.world.cast_ray(pose.position, direction, self.max_range as f32, filter)
                    })
                    .map(f64::from)
                    .min_by(f64::total_cmp);
                let truth = nearest.unwrap_or(self.max_range);
                let measured = self.measure(nearest, noise, rng);
                (SensorValue::Scalar { value: measured }, SensorValue::Scalar { value: truth })
            }
        }
    }

    /// What the sensor reports for a hit at `distance` (or none within range): the
    /// maximum range when nothing was hit, else the noisy distance held within
    /// `[min_range, max_range]`.
    fn measure(&self, distance: Option<f64>, noise: &NoiseModel, rng: &mut ChaCha8Rng) -> f64 {
        match distance {
            None => self.max_range,
            Some(d) => noise.measure(d, rng).clamp(self.min_range, self.max_range),
        }
    }
}

/// The unit direction at `angle` counter-clockwise from forward, in the body's XZ plane.
fn planar(angle: f64) -> [f64; 3] {
    [angle.cos(), 0.0, -angle.sin()]
}

/// Ranges travel as `f32` rounded to 0.1 mm: finer than any sensor here resolves.
fn round_range(range: f64) -> f32 {
    ((range * 1e4).round() / 1e4) as f32
}
