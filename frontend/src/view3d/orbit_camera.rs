//! The orbit camera as pure math: a target, a distance and two angles, moved by pointer and wheel deltas.
//!
//! Y is up. The eye sits at `target + distance * (cos(pitch) sin(yaw), sin(pitch),
//! cos(pitch) cos(yaw))`, so yaw 0 looks from +Z towards -Z and positive pitch looks down.
//! The renderer turns [`OrbitCamera::eye`] and [`OrbitCamera::target`] into a view matrix.

use vlab_protocol::pose::cross;

use crate::view3d::world::Aabb;

/// Radians turned per pixel of drag.
const ORBIT_RAD_PER_PX: f32 = 0.008;
/// Wheel sensitivity: the distance is multiplied by `exp(delta_px * this)`.
const ZOOM_PER_WHEEL_PX: f32 = 0.0015;
/// Keeps the eye off the poles, where "up" is undefined.
const MAX_PITCH_RAD: f32 = 1.55;
/// Keeps the eye above the target's horizon: a lab seen from under its floor shows nothing.
const MIN_PITCH_RAD: f32 = 0.05;

/// Where the eye is, relative to what it looks at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrbitCamera {
    /// The point looked at and orbited around, metres.
    pub target: [f32; 3],
    /// Eye to target, metres.
    pub distance: f32,
    /// Angle about +Y, radians.
    pub yaw_rad: f32,
    /// Elevation above the horizontal plane, radians.
    pub pitch_rad: f32,
    /// Vertical field of view, radians.
    pub fov_y_rad: f32,
    /// Size of the scene, metres: bounds zoom and the clip planes.
    pub scene_radius: f32,
}

impl Default for OrbitCamera {
    fn default() -> Self {
        OrbitCamera {
            target: [0.0; 3],
            distance: 10.0,
            yaw_rad: 0.6,
            pitch_rad: 0.55,
            fov_y_rad: 45f32.to_radians(),
            scene_radius: 5.0,
        }
    }
}

impl OrbitCamera {
    /// A three-quarter view from above, as close as possible while every corner of
    /// `bounds` stays in a viewport of this `aspect` (width / height).
    pub fn framing(bounds: Aabb, aspect: f32) -> OrbitCamera {
        OrbitCamera::framing_from(bounds, aspect, OrbitCamera::default().pitch_rad)
    }

    /// The view from straight above (as steep as the orbit goes), framing `bounds`:
    /// a plan of the lab, every robot in sight, walls or not.
    pub fn top_view(bounds: Aabb, aspect: f32) -> OrbitCamera {
        OrbitCamera::framing_from(bounds, aspect, MAX_PITCH_RAD)
    }

    /// [`OrbitCamera::framing`] from `pitch_rad` above the horizon.
    fn framing_from(bounds: Aabb, aspect: f32, pitch_rad: f32) -> OrbitCamera {
        let mut camera = OrbitCamera { pitch_rad, ..OrbitCamera::default() };
        let half = [0, 1, 2].map(|k| (bounds.max[k] - bounds.min[k]) * 0.5);
        camera.scene_radius = (half[0] * half[0] + half[1] * half[1] + half[2] * half[2]).sqrt().max(0.1);
        camera.target = [0, 1, 2].map(|k| (bounds.min[k] + bounds.max[k]) * 0.5);
        let tan_y = (camera.fov_y_rad * 0.5).tan();
        let tan_x = tan_y * aspect.max(0.1);
        let (right, up, forward) = camera.basis();
        let corners: Vec<[f32; 3]> = (0..8)
            .map(|corner| {
                let pick = |k: usize, bit: usize| if corner & bit == 0 { bounds.min[k] } else { bounds.max[k] };
                [pick(0, 1), pick(1, 2), pick(2, 4)]
            })
            .collect();
        let dot = |a: [f32; 3], b: [f32; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
        // A corner at offset p from the target, seen from distance d, is at depth
        // d + p·forward; it fits when |p·right| <= tan_x * depth and |p·up| <= tan_y * depth.
        let fit_distance = |target: [f32; 3]| {
            corners.iter().fold(0.0f32, |distance, corner| {
                let p = [corner[0] - target[0], corner[1] - target[1], corner[2] - target[2]];
                let needed = (dot(p, right).abs() / tan_x).max(dot(p, up).abs() / tan_y) - dot(p, forward);
                distance.max(needed)
            })
        };
        // Perspective makes the far half of the box look smaller than the near half:
        // slide the target until the picture is centred, then fit again.
        for _ in 0..6 {
            let distance = fit_distance(camera.target);
            let (mut lo, mut hi) = ([f32::MAX; 2], [f32::MIN; 2]);
            for corner in &corners {
                let p = [corner[0] - camera.target[0], corner[1] - camera.target[1], corner[2] - camera.target[2]];
                let depth = distance + dot(p, forward);
                let ndc = [dot(p, right) / (depth * tan_x), dot(p, up) / (depth * tan_y)];
                for k in 0..2 {
                    lo[k] = lo[k].min(ndc[k]);
                    hi[k] = hi[k].max(ndc[k]);
                }
            }
            let shift = [(lo[0] + hi[0]) * 0.5 * tan_x * distance, (lo[1] + hi[1]) * 0.5 * tan_y * distance];
            for k in 0..3 {
                camera.target[k] += right[k] * shift[0] + up[k] * shift[1];
            }
        }
        camera.distance = fit_distance(camera.target);
        // Centring slid the target across the view, maybe under the floor. Slide it
        // along the line of sight instead, to the box's mid-height: the picture stays
        // the same, and orbiting pivots on a point inside the scene.
        let eye = camera.eye();
        let centre_y = (bounds.min[1] + bounds.max[1]) * 0.5;
        if forward[1] < -1e-3 {
            let along = (centre_y - eye[1]) / forward[1];
            camera.target = [0, 1, 2].map(|k| eye[k] + forward[k] * along);
            camera.distance = along;
        }
        // A small margin so the scene does not touch the edges.
        let margin = camera.distance * 0.05;
        camera.distance = (camera.distance + margin).max(camera.distance_limits().0);
        camera
    }

    /// The eye position, metres.
    pub fn eye(&self) -> [f32; 3] {
        let (sin_yaw, cos_yaw) = self.yaw_rad.sin_cos();
        let (sin_pitch, cos_pitch) = self.pitch_rad.sin_cos();
        let offset = [cos_pitch * sin_yaw, sin_pitch, cos_pitch * cos_yaw];
        [0, 1, 2].map(|k| self.target[k] + self.distance * offset[k])
    }

    /// Unit vectors of the view: (right, up, forward).
    pub fn basis(&self) -> ([f32; 3], [f32; 3], [f32; 3]) {
        let (sin_yaw, cos_yaw) = self.yaw_rad.sin_cos();
        let (sin_pitch, cos_pitch) = self.pitch_rad.sin_cos();
        let forward = [-cos_pitch * sin_yaw, -sin_pitch, -cos_pitch * cos_yaw];
        let right = [cos_yaw, 0.0, -sin_yaw];
        let up = cross(right, forward);
        (right, up, forward)
    }

    /// Turns the view as if the pointer dragged the scene by (`dx_px`, `dy_px`).
    pub fn orbit(&mut self, dx_px: f32, dy_px: f32) {
        self.yaw_rad = (self.yaw_rad - dx_px * ORBIT_RAD_PER_PX).rem_euclid(std::f32::consts::TAU);
        self.pitch_rad = (self.pitch_rad + dy_px * ORBIT_RAD_PER_PX).clamp(MIN_PITCH_RAD, MAX_PITCH_RAD);
    }

    /// Slides target and eye so the point under the pointer follows it. The drag is
    /// measured at the target's depth, in a viewport `viewport_height_px` tall.
    pub fn pan(&mut self, dx_px: f32, dy_px: f32, viewport_height_px: f32) {
        let metres_per_px = 2.0 * self.distance * (self.fov_y_rad * 0.5).tan() / viewport_height_px.max(1.0);
        let (right, up, _) = self.basis();
        for k in 0..3 {
            self.target[k] += (-right[k] * dx_px + up[k] * dy_px) * metres_per_px;
        }
    }

    /// Moves the eye towards (negative `delta_px`) or away from the target, geometrically,
    /// within limits set by the scene's size.
    pub fn zoom(&mut self, delta_px: f32) {
        let (min, max) = self.distance_limits();
        self.distance = (self.distance * (delta_px * ZOOM_PER_WHEEL_PX).exp()).clamp(min, max);
    }

    /// Closest and farthest allowed eye distance, metres.
    pub fn distance_limits(&self) -> (f32, f32) {
        ((self.scene_radius * 0.02).max(0.05), (self.scene_radius * 20.0).max(10.0))
    }

    /// Near and far clip distances, metres: tight enough for depth precision, loose
    /// enough that nothing of the scene is cut.
    pub fn clip_planes(&self) -> (f32, f32) {
        let near = (self.distance * 0.01).clamp(0.01, 1.0);
        let far = self.distance + self.scene_radius * 4.0 + 10.0;
        (near, far)
    }
}

#[cfg(test)]
mod tests {
    use vlab_protocol::pose::{dot, length, sub};

    use super::*;

    #[test]
    fn the_eye_is_at_the_distance_and_above_the_target() {
        let camera = OrbitCamera::default();
        let offset = sub(camera.eye(), camera.target);
        assert!((length(offset) - camera.distance).abs() < 1e-4);
        assert!(offset[1] > 0.0);
    }

    #[test]
    fn the_basis_is_orthonormal_and_up_points_up() {
        let mut camera = OrbitCamera::default();
        camera.orbit(123.0, -40.0);
        let (right, up, forward) = camera.basis();
        for v in [right, up, forward] {
            assert!((length(v) - 1.0).abs() < 1e-5);
        }
        assert!(dot(right, up).abs() < 1e-5 && dot(up, forward).abs() < 1e-5 && dot(right, forward).abs() < 1e-5);
        assert!(up[1] > 0.0);
        let towards_target = sub(camera.target, camera.eye());
        assert!((dot(towards_target, forward) - camera.distance).abs() < 1e-3);
    }

    #[test]
    fn orbiting_keeps_the_distance_and_clamps_the_pitch() {
        let mut camera = OrbitCamera::default();
        camera.orbit(500.0, 10_000.0);
        assert_eq!(camera.pitch_rad, MAX_PITCH_RAD);
        assert!((length(sub(camera.eye(), camera.target)) - camera.distance).abs() < 1e-3);
        camera.orbit(0.0, -10_000.0);
        assert_eq!(camera.pitch_rad, MIN_PITCH_RAD);
    }

    #[test]
    fn dragging_right_swings_the_eye_to_the_left() {
        let mut camera = OrbitCamera { yaw_rad: 0.0, ..OrbitCamera::default() };
        camera.orbit(50.0, 0.0);
        // From yaw 0 (eye on +Z), a drag to the right brings the eye towards -X.
        assert!(camera.eye()[0] < 0.0);
    }

    #[test]
    fn panning_moves_the_target_across_the_view_only() {
        let mut camera = OrbitCamera::default();
        let before = camera;
        camera.pan(100.0, 0.0, 800.0);
        let moved = sub(camera.target, before.target);
        let (right, _, forward) = before.basis();
        assert!(dot(moved, right) < 0.0, "dragging right slides the scene right, the target left");
        assert!(dot(moved, forward).abs() < 1e-5);
        assert_eq!(camera.distance, before.distance);
        // One viewport height of drag moves the target by the visible height at its depth.
        let mut camera = OrbitCamera::default();
        camera.pan(0.0, 800.0, 800.0);
        let visible = 2.0 * before.distance * (before.fov_y_rad * 0.5).tan();
        assert!((length(sub(camera.target, before.target)) - visible).abs() < 1e-3);
    }

    #[test]
    fn zoom_is_bounded_by_the_scene_size() {
        let mut camera = OrbitCamera::default();
        let before = camera.distance;
        camera.zoom(-100.0);
        assert!(camera.distance < before);
        camera.zoom(1e6);
        assert_eq!(camera.distance, camera.distance_limits().1);
        camera.zoom(-1e6);
        assert_eq!(camera.distance, camera.distance_limits().0);
    }

    #[test]
    fn framing_shows_every_corner_of_the_scene() {
        let bounds = Aabb { min: [-10.0, 0.0, -7.0], max: [10.0, 3.0, 7.0] };
        for aspect in [0.5, 1.0, 16.0 / 9.0, 3.0] {
            let camera = OrbitCamera::framing(bounds, aspect);
            let (right, up, forward) = camera.basis();
            let eye = camera.eye();
            let tan_y = (camera.fov_y_rad * 0.5).tan();
            let tan_x = tan_y * aspect;
            for corner in 0..8 {
                let pick = |k: usize, bit: usize| if corner & bit == 0 { bounds.min[k] } else { bounds.max[k] };
                let p = sub([pick(0, 1), pick(1, 2), pick(2, 4)], eye);
                let depth = dot(p, forward);
                assert!(depth > camera.clip_planes().0 && depth < camera.clip_planes().1);
                assert!(dot(p, right).abs() / depth <= tan_x + 1e-4, "corner {corner} off-screen at aspect {aspect}");
                assert!(dot(p, up).abs() / depth <= tan_y + 1e-4, "corner {corner} off-screen at aspect {aspect}");
            }
        }
    }

    #[test]
    fn framing_pivots_inside_the_scene() {
        let bounds = Aabb { min: [-0.2, -0.1, -0.2], max: [12.2, 0.8, 12.2] };
        let camera = OrbitCamera::framing(bounds, 1280.0 / 668.0);
        assert!((camera.target[1] - 0.35).abs() < 1e-3, "{camera:?}");
        assert!((0..3).all(|k| camera.target[k] >= bounds.min[k] && camera.target[k] <= bounds.max[k]), "{camera:?}");
    }

    #[test]
    fn the_top_view_looks_straight_down_on_every_corner() {
        let bounds = Aabb { min: [0.0, -0.1, 0.0], max: [6.0, 2.5, 6.0] };
        let camera = OrbitCamera::top_view(bounds, 16.0 / 9.0);
        assert_eq!(camera.pitch_rad, MAX_PITCH_RAD);
        let eye = camera.eye();
        assert!((eye[0] - 3.0).abs() < 0.3 && (eye[2] - 3.0).abs() < 0.3, "over the middle: {eye:?}");
        assert!(eye[1] > bounds.max[1], "above the walls: {eye:?}");
    }

    #[test]
    fn framing_fills_the_view() {
        // The fit is tight: pulled 10% closer, some corner leaves the view.
        let bounds = Aabb { min: [-10.0, 0.0, -7.0], max: [10.0, 3.0, 7.0] };
        let mut camera = OrbitCamera::framing(bounds, 16.0 / 9.0);
        camera.distance *= 0.9;
        let (right, up, forward) = camera.basis();
        let eye = camera.eye();
        let tan_y = (camera.fov_y_rad * 0.5).tan();
        let outside = (0..8).any(|corner| {
            let pick = |k: usize, bit: usize| if corner & bit == 0 { bounds.min[k] } else { bounds.max[k] };
            let p = sub([pick(0, 1), pick(1, 2), pick(2, 4)], eye);
            let depth = dot(p, forward);
            dot(p, right).abs() / depth > tan_y * 16.0 / 9.0 || dot(p, up).abs() / depth > tan_y
        });
        assert!(outside);
    }
}
