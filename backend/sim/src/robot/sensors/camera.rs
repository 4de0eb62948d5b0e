//! Cameras: `Camera` (a colour image) and `DepthCamera` (each pixel's distance along
//! the optical axis), rendered by casting one ray per pixel from the sensor's body
//! through the scene (docs/sensors.md, "Cameras").
//!
//! A pinhole looks along the body's +X with +Y up, so the image's right is the body's
//! +Z. Pixels are row-major from the top-left. A surface's colour is its material's,
//! lit by a fixed sun (Lambert) and an ambient term; a ray that hits nothing within
//! range sees the sky above the horizon and the ground colour below it. Like the other
//! light sensors, a camera never sees its own robot and looks through glass.
//!
//! Nothing is allocated per image: directions are computed once, and the image and
//! its base64 text reuse their buffers.

use base64::Engine as _;
use rand_chacha::ChaCha8Rng;
use vlab_protocol::SensorValue;
use vlab_protocol::pose::rotate;

use super::Context;
use crate::robot::frame::wide;
use crate::robot::noise::NoiseModel;
use crate::scene::DeviceModel;
use crate::sim::{RayFilter, Sight};

/// The direction towards the sun, world frame, unit: (−2, 6, 3)/7, high and a little
/// behind −X, so no two walls of a box room are lit alike.
pub const SUN: [f32; 3] = [-2.0 / 7.0, 6.0 / 7.0, 3.0 / 7.0];
/// The share of a material's colour every surface shows, lit or not.
pub const AMBIENT: f32 = 0.4;
/// The share the sun adds to a surface facing it squarely.
pub const DIFFUSE: f32 = 0.6;
/// What a ray that hits nothing sees above the horizon.
pub const SKY: [u8; 3] = [170, 200, 230];
/// What a ray that hits nothing sees below the horizon.
pub const GROUND: [u8; 3] = [96, 92, 86];

/// A camera's geometry and its latest image.
#[derive(Clone)]
pub struct CameraProbe {
    body: usize,
    width: u32,
    height: u32,
    depth: bool,
    max_range: f64,
    /// Each pixel's ray in the body's frame, unit, row-major from the top-left.
    directions: Vec<[f32; 3]>,
    /// Each ray's forward component: distance along the ray × this = depth.
    axial: Vec<f32>,
    /// The latest measured image: RGB bytes, or little-endian `u16` millimetres.
    image: Vec<u8>,
    /// `image` in base64, as programs receive it.
    encoded: String,
}

impl CameraProbe {
    /// The camera `device` declares, on body `body`.
    pub fn new(device: &DeviceModel, body: usize) -> CameraProbe {
        let depth = device.kind == "DepthCamera";
        let width = device.num("width").unwrap_or(160.0).max(1.0) as u32;
        let height = device.num("height").unwrap_or(120.0).max(1.0) as u32;
        let fov = device.num("fov").unwrap_or(60f64.to_radians());
        let max_range = device.num("range").unwrap_or(10.0).max(0.0);
        let half = (fov / 2.0).tan();
        let (w, h) = (f64::from(width), f64::from(height));
        let mut directions = Vec::with_capacity((width * height) as usize);
        let mut axial = Vec::with_capacity(directions.capacity());
        for row in 0..height {
            let up = (1.0 - 2.0 * (f64::from(row) + 0.5) / h) * half * h / w;
            for col in 0..width {
                let right = (2.0 * (f64::from(col) + 0.5) / w - 1.0) * half;
                let length = (1.0 + up * up + right * right).sqrt();
                directions.push([(1.0 / length) as f32, (up / length) as f32, (right / length) as f32]);
                axial.push((1.0 / length) as f32);
            }
        }
        let bytes = if depth { 2 } else { 3 } * directions.len();
        CameraProbe {
            body,
            width,
            height,
            depth,
            max_range,
            directions,
            axial,
            image: vec![0; bytes],
            encoded: String::with_capacity(bytes.div_ceil(3) * 4),
        }
    }

    /// The body it looks from.
    pub fn body(&self) -> usize {
        self.body
    }

    /// Follows its body to its new index after others were removed.
    pub fn renumber(&mut self, moved: &crate::scene::Renumbering) {
        self.body = moved.bodies[self.body].expect("a robot's bodies stay with it");
    }

    /// Width and height, pixels.
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// The latest image as programs receive it: base64 of [`Self::bytes`].
    pub fn encoded(&self) -> &str {
        &self.encoded
    }

    /// The latest measured image: RGB bytes (a `Camera`) or little-endian `u16`
    /// millimetres (a `DepthCamera`), row-major from the top-left.
    pub fn bytes(&self) -> &[u8] {
        &self.image
    }

    /// The latest image as RGB for a person to look at: the colour image itself, or
    /// the depth image in greys (near white, `range` and beyond black).
    pub fn view(&self, out: &mut Vec<u8>) {
        out.clear();
        if !self.depth {
            out.extend_from_slice(&self.image);
            return;
        }
        let far = (self.max_range * 1000.0).max(1.0);
        for pair in self.image.chunks_exact(2) {
            let millimetres = f64::from(u16::from_le_bytes([pair[0], pair[1]]));
            let grey = (255.0 * (1.0 - (millimetres / far).min(1.0))).round() as u8;
            out.extend_from_slice(&[grey, grey, grey]);
        }
    }

    /// Takes an image now: the measured and the true summaries; the measured image
    /// stays in [`Self::bytes`] and [`Self::encoded`].
    pub fn read(&mut self, context: &Context, noise: &NoiseModel, rng: &mut ChaCha8Rng) -> (SensorValue, SensorValue) {
        let eye = context.world.pose(self.body);
        let filter = RayFilter { ignore_robot: Some(context.robot), through_transparent: true };
        let (measured, truth) = if self.depth {
            self.read_depth(context, &eye, filter, noise, rng)
        } else {
            self.read_colour(context, &eye, filter, noise, rng)
        };
        self.encoded.clear();
        base64::engine::general_purpose::STANDARD.encode_string(&self.image, &mut self.encoded);
        (measured, truth)
    }

    fn read_colour(
        &mut self,
        context: &Context,
        eye: &crate::scene::Pose,
        filter: RayFilter,
        noise: &NoiseModel,
        rng: &mut ChaCha8Rng,
    ) -> (SensorValue, SensorValue) {
        let (image, directions) = (&mut self.image, &self.directions);
        let exact = noise.is_exact();
        let (mut true_sum, mut measured_sum) = ([0u64; 3], [0u64; 3]);
        let world = context.world;
        world.look(eye, directions, self.max_range as f32, filter, |index, hit| {
            let rgb = match hit {
                Some(sight) => shade(&sight),
                None if world_up(eye, directions[index]) >= 0.0 => SKY,
                None => GROUND,
            };
            for (channel, value) in rgb.into_iter().enumerate() {
                true_sum[channel] += u64::from(value);
                let measured =
                    if exact { value } else { noise.measure(f64::from(value), rng).round().clamp(0.0, 255.0) as u8 };
                measured_sum[channel] += u64::from(measured);
                image[index * 3 + channel] = measured;
            }
        });
        let pixels = (self.directions.len() as u64).max(1);
        let mean = |sum: [u64; 3]| sum.map(|s| ((s + pixels / 2) / pixels) as u8);
        let summary =
            |sum| SensorValue::Image { width: self.width, height: self.height, mean: mean(sum), pixels: String::new() };
        (summary(measured_sum), summary(true_sum))
    }

    fn read_depth(
        &mut self,
        context: &Context,
        eye: &crate::scene::Pose,
        filter: RayFilter,
        noise: &NoiseModel,
        rng: &mut ChaCha8Rng,
    ) -> (SensorValue, SensorValue) {
        let (image, axial, max_range) = (&mut self.image, &self.axial, self.max_range);
        let (mut true_nearest, mut measured_nearest) = (max_range, max_range);
        context.world.look(eye, &self.directions, max_range as f32, filter, |index, hit| {
            let (truth, measured) = match hit {
                // Along the optical axis; a hit beyond `range` there is out of range.
                Some(sight) => {
                    let depth = (f64::from(sight.distance) * f64::from(axial[index])).min(max_range);
                    (depth, noise.measure(depth, rng).clamp(0.0, max_range))
                }
                None => (max_range, max_range),
            };
            true_nearest = true_nearest.min(truth);
            measured_nearest = measured_nearest.min(measured);
            let millimetres = (measured * 1000.0).round().clamp(0.0, f64::from(u16::MAX)) as u16;
            image[index * 2..index * 2 + 2].copy_from_slice(&millimetres.to_le_bytes());
        });
        let summary = |nearest| SensorValue::DepthImage {
            width: self.width,
            height: self.height,
            max_range,
            nearest,
            depths: String::new(),
        };
        (summary(measured_nearest), summary(true_nearest))
    }
}

/// The colour a camera sees of a surface: its material's, times the ambient share plus
/// the sun's on the side facing it (Lambert), rounded.
pub fn shade(sight: &Sight) -> [u8; 3] {
    let [x, y, z] = sight.normal;
    let facing = (x * SUN[0] + y * SUN[1] + z * SUN[2]).max(0.0);
    let light = AMBIENT + DIFFUSE * facing;
    sight.color.map(|c| (f32::from(c) * light).round().min(255.0) as u8)
}

/// The world-vertical component of a ray given in the eye's frame.
fn world_up(eye: &crate::scene::Pose, local: [f32; 3]) -> f64 {
    rotate(wide(eye.rotation), wide(local))[1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sun_is_a_unit_vector_and_faces_are_lit_by_hand() {
        let length: f32 = SUN.iter().map(|c| c * c).sum::<f32>().sqrt();
        assert!((length - 1.0).abs() < 1e-6);
        let red = [200, 52, 44];
        // A wall facing −X: cos = 2/7, light = 0.4 + 0.6·2/7 = 0.571428…
        let wall = Sight { distance: 1.0, normal: [-1.0, 0.0, 0.0], color: red };
        assert_eq!(shade(&wall), [114, 30, 25]);
        // A floor: cos = 6/7, light = 0.914285…
        let floor = Sight { distance: 1.0, normal: [0.0, 1.0, 0.0], color: [160, 160, 160] };
        assert_eq!(shade(&floor), [146, 146, 146]);
        // Facing away from the sun: ambient only.
        let shadow = Sight { distance: 1.0, normal: [0.0, -1.0, 0.0], color: [100, 50, 10] };
        assert_eq!(shade(&shadow), [40, 20, 4]);
    }
}
