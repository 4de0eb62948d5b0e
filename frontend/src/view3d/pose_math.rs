//! Rigid-transform arithmetic on wire poses: composing body and part poses, rotating points.
//!
//! Quaternions are `[x, y, z, w]` as on the wire. Kept free of any graphics library so
//! the renderer converts once, at its boundary, and this stays testable on the host.

use vlab_protocol::Pose;

/// Hamilton product `a * b`: the rotation `b` followed by `a`.
pub fn quat_mul(a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// Rotates a vector by a unit quaternion.
pub fn rotate(q: [f32; 4], v: [f32; 3]) -> [f32; 3] {
    // v' = v + 2w (u × v) + 2 u × (u × v), with u the vector part.
    let u = [q[0], q[1], q[2]];
    let w = q[3];
    let uv = cross(u, v);
    let uuv = cross(u, uv);
    [v[0] + 2.0 * (w * uv[0] + uuv[0]), v[1] + 2.0 * (w * uv[1] + uuv[1]), v[2] + 2.0 * (w * uv[2] + uuv[2])]
}

/// `parent_from_child` composed with `child_from_part`: the part's pose in the parent's frame.
pub fn compose(parent_from_child: &Pose, child_from_part: &Pose) -> Pose {
    let moved = rotate(parent_from_child.rotation, child_from_part.position);
    Pose {
        position: add(parent_from_child.position, moved),
        rotation: normalized(quat_mul(parent_from_child.rotation, child_from_part.rotation)),
    }
}

/// The quaternion scaled to unit length; the identity for a zero or non-finite one
/// (a corrupt pose must not make the whole view disappear in NaNs).
pub fn normalized(q: [f32; 4]) -> [f32; 4] {
    let norm = q.iter().map(|c| c * c).sum::<f32>().sqrt();
    if norm > 0.0 && norm.is_finite() { q.map(|c| c / norm) } else { [0.0, 0.0, 0.0, 1.0] }
}

/// The unit quaternion turning by `angle_rad` about the unit vector `axis`.
pub fn axis_angle(axis: [f32; 3], angle_rad: f32) -> [f32; 4] {
    let (s, c) = (angle_rad * 0.5).sin_cos();
    [axis[0] * s, axis[1] * s, axis[2] * s, c]
}

/// Component-wise sum.
pub fn add(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// Cross product.
pub fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// Component-wise difference `a - b`.
pub fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// Dot product.
pub fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `v` times `s`.
pub fn scale(v: [f32; 3], s: f32) -> [f32; 3] {
    [v[0] * s, v[1] * s, v[2] * s]
}

/// Euclidean length.
pub fn length(v: [f32; 3]) -> f32 {
    dot(v, v).sqrt()
}

/// The inverse of a unit quaternion.
pub fn conjugate(q: [f32; 4]) -> [f32; 4] {
    [-q[0], -q[1], -q[2], q[3]]
}

/// A quaternion as reports write it (`[w, x, y, z]`, f64) in the wire's order
/// (`[x, y, z, w]`, f32), normalised.
pub fn from_wxyz(q: [f64; 4]) -> [f32; 4] {
    normalized([q[1] as f32, q[2] as f32, q[3] as f32, q[0] as f32])
}

/// The shortest rotation taking the unit vector `from` to the unit vector `to`; half a
/// turn about some axis across `from` when they are opposite.
pub fn rotation_between(from: [f32; 3], to: [f32; 3]) -> [f32; 4] {
    let cos = dot(from, to);
    if cos < -1.0 + 1e-6 {
        // Any axis at right angles to `from` will do: cross it with the axis it is least along.
        let other = if from[0].abs() < 0.9 { [1.0, 0.0, 0.0] } else { [0.0, 1.0, 0.0] };
        let axis = cross(from, other);
        let axis = scale(axis, 1.0 / length(axis));
        return axis_angle(axis, std::f32::consts::PI);
    }
    // (cross, 1 + cos) is the rotation by twice the angle between them, halved by normalising.
    let c = cross(from, to);
    normalized([c[0], c[1], c[2], 1.0 + cos])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f32::consts::FRAC_PI_2;

    fn close(a: [f32; 3], b: [f32; 3]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5)
    }

    #[test]
    fn a_quarter_turn_about_y_takes_x_to_minus_z() {
        let q = axis_angle([0.0, 1.0, 0.0], FRAC_PI_2);
        assert!(close(rotate(q, [1.0, 0.0, 0.0]), [0.0, 0.0, -1.0]));
    }

    #[test]
    fn compose_applies_the_child_offset_in_the_parent_frame() {
        let body = Pose { position: [1.0, 2.0, 3.0], rotation: axis_angle([0.0, 0.0, 1.0], FRAC_PI_2) };
        let part = Pose { position: [1.0, 0.0, 0.0], rotation: axis_angle([0.0, 0.0, 1.0], FRAC_PI_2) };
        let world = compose(&body, &part);
        assert!(close(world.position, [1.0, 3.0, 3.0]));
        // Two quarter turns about Z: a half turn, which takes X to -X.
        assert!(close(rotate(world.rotation, [1.0, 0.0, 0.0]), [-1.0, 0.0, 0.0]));
    }

    #[test]
    fn identity_is_neutral() {
        let pose = Pose { position: [4.0, 5.0, 6.0], rotation: axis_angle([1.0, 0.0, 0.0], 0.3) };
        let left = compose(&Pose::IDENTITY, &pose);
        let right = compose(&pose, &Pose::IDENTITY);
        for p in [left, right] {
            assert!(close(p.position, pose.position));
            assert!(p.rotation.iter().zip(pose.rotation).all(|(a, b)| (a - b).abs() < 1e-6));
        }
    }

    #[test]
    fn rotations_between_vectors_take_one_onto_the_other() {
        let cases = [
            ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0]),
            ([0.0, 0.0, 1.0], [0.0, 0.0, 1.0]),
            ([0.0, 0.0, 1.0], [0.0, 0.0, -1.0]),
            ([1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]),
            ([0.0, 0.0, 1.0], [0.6, 0.0, -0.8]),
        ];
        for (from, to) in cases {
            assert!(close(rotate(rotation_between(from, to), from), to), "{from:?} -> {to:?}");
        }
    }

    #[test]
    fn report_quaternions_put_w_first() {
        // A quarter turn about Y written [w, x, y, z].
        let half = std::f64::consts::FRAC_PI_4;
        let q = from_wxyz([half.cos(), 0.0, half.sin(), 0.0]);
        assert!(close(rotate(q, [1.0, 0.0, 0.0]), [0.0, 0.0, -1.0]));
        assert!(close(rotate(conjugate(q), [0.0, 0.0, -1.0]), [1.0, 0.0, 0.0]));
    }

    #[test]
    fn degenerate_quaternions_become_the_identity() {
        assert_eq!(normalized([0.0; 4]), [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(normalized([f32::NAN, 0.0, 0.0, 1.0]), [0.0, 0.0, 0.0, 1.0]);
    }
}
