//! Between the canvas and the world: the ray from the eye through a pixel, and the pixel a world point lands on.
//!
//! Both follow the renderer's camera exactly: a perspective of the orbit camera's
//! vertical field of view, looking from [`OrbitCamera::eye`] at its target, Y up, the
//! canvas's aspect ratio. Pixels are CSS pixels from the canvas's top-left corner; any
//! unit works as long as the size is in the same one.

use vlab_protocol::pose::{add, dot, length, scale, sub};

use crate::view3d::orbit_camera::OrbitCamera;

/// A half-line in the world: `origin + t · direction`, `t ≥ 0`, `direction` of unit length.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Where it starts, metres.
    pub origin: [f32; 3],
    /// Which way it goes (unit length).
    pub direction: [f32; 3],
}

impl Ray {
    /// The point `t` metres along the ray.
    pub fn at(&self, t: f32) -> [f32; 3] {
        add(self.origin, scale(self.direction, t))
    }
}

/// The canvas's size, in the unit pixels are given in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    /// Width.
    pub width: f32,
    /// Height.
    pub height: f32,
}

impl Viewport {
    fn tangents(&self, camera: &OrbitCamera) -> (f32, f32) {
        let tan_y = (camera.fov_y_rad * 0.5).tan();
        (tan_y * self.width / self.height.max(1.0), tan_y)
    }
}

/// The ray from the eye through pixel `(x, y)` (from the top-left corner).
pub fn pixel_ray(camera: &OrbitCamera, viewport: Viewport, x: f32, y: f32) -> Ray {
    let (tan_x, tan_y) = viewport.tangents(camera);
    let ndc_x = 2.0 * x / viewport.width.max(1.0) - 1.0;
    let ndc_y = 1.0 - 2.0 * y / viewport.height.max(1.0);
    let (right, up, forward) = camera.basis();
    let direction = add(forward, add(scale(right, ndc_x * tan_x), scale(up, ndc_y * tan_y)));
    Ray { origin: camera.eye(), direction: scale(direction, 1.0 / length(direction)) }
}

/// The pixel `point` is drawn at, and how far in front of the eye it is (metres along
/// the line of sight); `None` when it is behind the near clip plane (not drawn at all).
/// The pixel may lie outside the viewport.
pub fn project(camera: &OrbitCamera, viewport: Viewport, point: [f32; 3]) -> Option<([f32; 2], f32)> {
    let (tan_x, tan_y) = viewport.tangents(camera);
    let (right, up, forward) = camera.basis();
    let offset = sub(point, camera.eye());
    let depth = dot(offset, forward);
    if depth <= camera.clip_planes().0 {
        return None;
    }
    let ndc_x = dot(offset, right) / (depth * tan_x);
    let ndc_y = dot(offset, up) / (depth * tan_y);
    Some(([(ndc_x + 1.0) * 0.5 * viewport.width, (1.0 - ndc_y) * 0.5 * viewport.height], depth))
}

/// Whether a pixel lies on the viewport, `margin` pixels beyond its edges allowed.
pub fn on_viewport(viewport: Viewport, pixel: [f32; 2], margin: f32) -> bool {
    (-margin..=viewport.width + margin).contains(&pixel[0]) && (-margin..=viewport.height + margin).contains(&pixel[1])
}

#[cfg(test)]
mod tests {
    use super::*;

    const VIEW: Viewport = Viewport { width: 1280.0, height: 720.0 };

    fn close(a: [f32; 2], b: [f32; 2]) -> bool {
        (a[0] - b[0]).abs() < 1e-2 && (a[1] - b[1]).abs() < 1e-2
    }

    #[test]
    fn the_target_is_at_the_centre_and_the_centre_ray_hits_it() {
        let camera = OrbitCamera::default();
        let (pixel, depth) = project(&camera, VIEW, camera.target).unwrap();
        assert!(close(pixel, [640.0, 360.0]), "{pixel:?}");
        assert!((depth - camera.distance).abs() < 1e-3);
        let ray = pixel_ray(&camera, VIEW, 640.0, 360.0);
        assert!(length(sub(ray.at(camera.distance), camera.target)) < 1e-3);
    }

    #[test]
    fn a_pixel_s_ray_projects_back_onto_that_pixel() {
        let mut camera = OrbitCamera::default();
        camera.orbit(210.0, -35.0);
        for (x, y) in [(0.0, 0.0), (1280.0, 720.0), (100.0, 650.0), (913.0, 41.0)] {
            let ray = pixel_ray(&camera, VIEW, x, y);
            for t in [1.0, 7.5, 30.0] {
                let (pixel, _) = project(&camera, VIEW, ray.at(t)).unwrap();
                assert!(close(pixel, [x, y]), "({x}, {y}) at {t} m came back as {pixel:?}");
            }
        }
    }

    #[test]
    fn up_is_up_and_right_is_right() {
        let camera = OrbitCamera { yaw_rad: 0.0, pitch_rad: 0.3, ..OrbitCamera::default() };
        // Yaw 0 looks towards −Z: world +X is to the right, +Y up the screen.
        let right = project(&camera, VIEW, add(camera.target, [1.0, 0.0, 0.0])).unwrap().0;
        let above = project(&camera, VIEW, add(camera.target, [0.0, 1.0, 0.0])).unwrap().0;
        assert!(right[0] > 640.0 && (right[1] - 360.0).abs() < 1.0);
        assert!(above[1] < 360.0);
    }

    #[test]
    fn points_behind_the_eye_are_not_projected() {
        let camera = OrbitCamera::default();
        let behind = add(camera.eye(), sub(camera.eye(), camera.target));
        assert_eq!(project(&camera, VIEW, behind), None);
        assert_eq!(project(&camera, VIEW, camera.eye()), None);
    }

    #[test]
    fn the_viewport_test_allows_a_margin() {
        assert!(on_viewport(VIEW, [0.0, 720.0], 0.0));
        assert!(!on_viewport(VIEW, [-5.0, 100.0], 0.0));
        assert!(on_viewport(VIEW, [-5.0, 100.0], 10.0));
        assert!(!on_viewport(VIEW, [640.0, 740.0], 10.0));
    }
}
