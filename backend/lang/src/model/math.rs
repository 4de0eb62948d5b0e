//! Pose arithmetic on plain arrays: just what the interpreter needs to place parts.

use super::Pose;

impl Pose {
    /// No translation, no rotation.
    pub const IDENTITY: Pose = Pose { position: [0.0; 3], rotation: [0.0, 0.0, 0.0, 1.0] };

    /// A pure translation.
    pub fn at(position: [f32; 3]) -> Pose {
        Pose { position, rotation: Pose::IDENTITY.rotation }
    }

    /// A translation and a rotation of `angle_rad` about the unit `axis`.
    pub fn at_turned(position: [f32; 3], axis: [f32; 3], angle_rad: f32) -> Pose {
        let (sin, cos) = (angle_rad / 2.0).sin_cos();
        Pose { position, rotation: [axis[0] * sin, axis[1] * sin, axis[2] * sin, cos] }
    }

    /// `parent_from_child` expressed in the frame this pose maps from:
    /// `world_from_child = world_from_parent.compose(parent_from_child)`.
    pub fn compose(&self, child: &Pose) -> Pose {
        let moved = rotate(self.rotation, child.position);
        Pose {
            position: [self.position[0] + moved[0], self.position[1] + moved[1], self.position[2] + moved[2]],
            rotation: quat_mul(self.rotation, child.rotation),
        }
    }
}

/// Hamilton product of `[x, y, z, w]` quaternions: `a` after `b`.
pub(crate) fn quat_mul(a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// `v` turned by the unit quaternion `q`.
pub(crate) fn rotate(q: [f32; 4], v: [f32; 3]) -> [f32; 3] {
    let [x, y, z, w] = q;
    // t = 2 q.xyz × v; v' = v + w t + q.xyz × t
    let t = [2.0 * (y * v[2] - z * v[1]), 2.0 * (z * v[0] - x * v[2]), 2.0 * (x * v[1] - y * v[0])];
    [
        v[0] + w * t[0] + (y * t[2] - z * t[1]),
        v[1] + w * t[1] + (z * t[0] - x * t[2]),
        v[2] + w * t[2] + (x * t[1] - y * t[0]),
    ]
}

/// `v` turned by the unit quaternion `q` (`[x, y, z, w]`), in `f64`: for sensors and
/// footprints, which measure in `f64` what the model places in `f32`.
pub fn rotate_wide(q: [f32; 4], v: [f64; 3]) -> [f64; 3] {
    let [x, y, z, w] = q.map(f64::from);
    // v' = v + 2w(u × v) + 2u × (u × v), u = (x, y, z).
    let u = [x, y, z];
    let uv = cross(u, v);
    let uuv = cross(u, uv);
    [v[0] + 2.0 * (w * uv[0] + uuv[0]), v[1] + 2.0 * (w * uv[1] + uuv[1]), v[2] + 2.0 * (w * uv[2] + uuv[2])]
}

/// `v` (world frame) expressed in the frame turned by `q`.
pub fn unrotate_wide(q: [f32; 4], v: [f64; 3]) -> [f64; 3] {
    rotate_wide([-q[0], -q[1], -q[2], q[3]], v)
}

/// `a × b`.
pub fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// `a · b`.
pub fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quarter_turn_about_y_takes_x_to_minus_z() {
        let turn = Pose::at_turned([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], std::f32::consts::FRAC_PI_2);
        let child = turn.compose(&Pose::at([1.0, 0.0, 0.0]));
        assert!((child.position[0] - 1.0).abs() < 1e-6);
        assert!((child.position[2] + 1.0).abs() < 1e-6);
    }
}
