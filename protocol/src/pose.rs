//! Quaternion and rigid-pose arithmetic on plain arrays: the one copy every crate uses.
//!
//! Quaternions are `[x, y, z, w]`, as [`Pose::rotation`] carries them; reports write them
//! `[w, x, y, z]` ([`crate::RobotPose::quaternion`]), converted at that boundary by
//! [`from_wxyz`] and [`to_wxyz`]. The world is Y up; a body faces its +X, its up is +Y
//! and its right +Z. Everything is generic over [`Float`]: `f32` for what the model
//! places and the page draws, `f64` for what sensors measure and joints are read from.
//! No maths library, so the protocol keeps building for wasm32 on its own.

use std::ops::{Add, Div, Mul, Neg, Sub};

use crate::Pose;

/// The arithmetic the pose functions need of a floating-point type: `f32` or `f64`.
pub trait Float:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// 2.
    const TWO: Self;
    /// π.
    const PI: Self;
    /// The nearest value of this type to `value`.
    fn from_f64(value: f64) -> Self;
    /// The square root.
    fn sqrt(self) -> Self;
    /// The absolute value.
    fn abs(self) -> Self;
    /// The sine and the cosine.
    fn sin_cos(self) -> (Self, Self);
    /// The arcsine.
    fn asin(self) -> Self;
    /// The angle of the point `(x, self)`, in [−π, π].
    fn atan2(self, x: Self) -> Self;
    /// Held within `[min, max]`.
    fn clamp(self, min: Self, max: Self) -> Self;
    /// Neither infinite nor NaN.
    fn is_finite(self) -> bool;
}

macro_rules! float {
    ($t:ident) => {
        impl Float for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const TWO: Self = 2.0;
            const PI: Self = std::$t::consts::PI;
            fn from_f64(value: f64) -> Self {
                value as $t
            }
            fn sqrt(self) -> Self {
                $t::sqrt(self)
            }
            fn abs(self) -> Self {
                $t::abs(self)
            }
            fn sin_cos(self) -> (Self, Self) {
                $t::sin_cos(self)
            }
            fn asin(self) -> Self {
                $t::asin(self)
            }
            fn atan2(self, x: Self) -> Self {
                $t::atan2(self, x)
            }
            fn clamp(self, min: Self, max: Self) -> Self {
                $t::clamp(self, min, max)
            }
            fn is_finite(self) -> bool {
                $t::is_finite(self)
            }
        }
    };
}

float!(f32);
float!(f64);

/// Component-wise sum.
pub fn add<F: Float>(a: [F; 3], b: [F; 3]) -> [F; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// Component-wise difference `a - b`.
pub fn sub<F: Float>(a: [F; 3], b: [F; 3]) -> [F; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `v` times `s`.
pub fn scale<F: Float>(v: [F; 3], s: F) -> [F; 3] {
    [v[0] * s, v[1] * s, v[2] * s]
}

/// `a · b`.
pub fn dot<F: Float>(a: [F; 3], b: [F; 3]) -> F {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `a × b`.
pub fn cross<F: Float>(a: [F; 3], b: [F; 3]) -> [F; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// Euclidean length.
pub fn length<F: Float>(v: [F; 3]) -> F {
    dot(v, v).sqrt()
}

/// A body's forward axis, +X.
fn forward<F: Float>() -> [F; 3] {
    [F::ONE, F::ZERO, F::ZERO]
}

/// A body's up axis, +Y (the world's up when it stands level).
fn up<F: Float>() -> [F; 3] {
    [F::ZERO, F::ONE, F::ZERO]
}

/// A body's right axis, +Z.
fn right<F: Float>() -> [F; 3] {
    [F::ZERO, F::ZERO, F::ONE]
}

/// No rotation.
pub fn identity<F: Float>() -> [F; 4] {
    [F::ZERO, F::ZERO, F::ZERO, F::ONE]
}

/// The Hamilton product `a·b`: the rotation `b`, then `a`.
pub fn multiply<F: Float>(a: [F; 4], b: [F; 4]) -> [F; 4] {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// The opposite rotation of a unit quaternion (its inverse).
pub fn conjugate<F: Float>(q: [F; 4]) -> [F; 4] {
    [-q[0], -q[1], -q[2], q[3]]
}

/// The quaternion scaled to unit length; no rotation for a zero or non-finite one (a
/// corrupt pose must turn nothing rather than spread NaNs).
pub fn normalized<F: Float>(q: [F; 4]) -> [F; 4] {
    let [x, y, z, w] = q;
    let norm = (x * x + y * y + z * z + w * w).sqrt();
    if norm > F::ZERO && norm.is_finite() { q.map(|c| c / norm) } else { identity() }
}

/// `v` turned by the unit quaternion `q`.
pub fn rotate<F: Float>(q: [F; 4], v: [F; 3]) -> [F; 3] {
    // v' = v + w t + u × t with t = 2 u × v, u the vector part: two cross products
    // instead of the product q v q*.
    let [x, y, z, w] = q;
    let u = [x, y, z];
    let t = scale(cross(u, v), F::TWO);
    add(add(v, scale(t, w)), cross(u, t))
}

/// `v`, given in the world, in the frame the unit quaternion `q` turns to.
pub fn unrotate<F: Float>(q: [F; 4], v: [F; 3]) -> [F; 3] {
    rotate(conjugate(q), v)
}

/// The turn by `angle` radians about the unit vector `axis`.
pub fn axis_angle<F: Float>(axis: [F; 3], angle: F) -> [F; 4] {
    let (s, c) = (angle / F::TWO).sin_cos();
    [axis[0] * s, axis[1] * s, axis[2] * s, c]
}

/// The shortest turn taking the unit vector `from` to the unit vector `to`; half a
/// turn about some axis across `from` when they are opposite.
pub fn rotation_between<F: Float>(from: [F; 3], to: [F; 3]) -> [F; 4] {
    let cos = dot(from, to);
    if cos < -F::ONE + F::from_f64(1e-6) {
        // Any axis at right angles to `from` will do: cross it with the axis it is least along.
        let other =
            if from[0].abs() < F::from_f64(0.9) { [F::ONE, F::ZERO, F::ZERO] } else { [F::ZERO, F::ONE, F::ZERO] };
        let axis = cross(from, other);
        return axis_angle(scale(axis, F::ONE / length(axis)), F::PI);
    }
    // (cross, 1 + cos) is the turn by twice the angle between them, halved by normalising.
    let [x, y, z] = cross(from, to);
    normalized([x, y, z, F::ONE + cos])
}

/// The signed angle, radians, that the unit quaternion `q` turns about the unit `axis`:
/// the twist of its swing–twist split, in [−2π, 2π] (callers wrap it as they need).
pub fn twist_angle<F: Float>(q: [F; 4], axis: [F; 3]) -> F {
    let [x, y, z, w] = q;
    F::TWO * dot([x, y, z], axis).atan2(w)
}

/// The direction a body turned by `q` faces (its +X), seen from above: radians
/// counter-clockwise from world +X about the world's up (+Y).
pub fn heading<F: Float>(q: [F; 4]) -> F {
    let forward = rotate(q, forward());
    (-forward[2]).atan2(forward[0])
}

/// The turn by roll, pitch and yaw, radians: the Tait–Bryan angles of a body's frame,
/// yaw about the world's up (+Y), then pitch about the turned right axis (+Z, positive
/// nose up), then roll about the forward axis (+X, positive right side down).
pub fn from_roll_pitch_yaw<F: Float>([roll, pitch, yaw]: [F; 3]) -> [F; 4] {
    multiply(multiply(axis_angle(up(), yaw), axis_angle(right(), pitch)), axis_angle(forward(), roll))
}

/// Roll, pitch and yaw of the unit quaternion `q` (the inverse of
/// [`from_roll_pitch_yaw`]): roll and yaw in [−π, π], pitch in [−π/2, π/2].
pub fn roll_pitch_yaw<F: Float>(q: [F; 4]) -> [F; 3] {
    let [forward, up, right] = [forward(), up(), right()].map(|axis| rotate(q, axis));
    // forward = (cos p cos y, sin p, −cos p sin y); right.y = −sin r cos p and
    // up.y = cos r cos p, whatever the yaw.
    let pitch = forward[1].clamp(-F::ONE, F::ONE).asin();
    let roll = (-right[1]).atan2(up[1]);
    [roll, pitch, heading(q)]
}

/// A quaternion written `[w, x, y, z]` in this module's order, `[x, y, z, w]`.
pub fn from_wxyz<F: Float>([w, x, y, z]: [F; 4]) -> [F; 4] {
    [x, y, z, w]
}

/// A quaternion `[x, y, z, w]` written `[w, x, y, z]`, as reports write it.
pub fn to_wxyz<F: Float>([x, y, z, w]: [F; 4]) -> [F; 4] {
    [w, x, y, z]
}

/// A rigid transform in either precision: turn by `rotation` (a unit quaternion), then
/// move by `position`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rigid<F> {
    /// Translation.
    pub position: [F; 3],
    /// Unit quaternion `[x, y, z, w]`.
    pub rotation: [F; 4],
}

impl<F: Float> Rigid<F> {
    /// `self ∘ child`: `child`, given in the frame `self` places, in the frame `self`
    /// is given in (`world_from_part = world_from_body.compose(&body_from_part)`).
    pub fn compose(&self, child: &Rigid<F>) -> Rigid<F> {
        Rigid {
            position: add(self.position, rotate(self.rotation, child.position)),
            rotation: multiply(self.rotation, child.rotation),
        }
    }

    /// The transform undoing this one.
    pub fn inverse(&self) -> Rigid<F> {
        let rotation = conjugate(self.rotation);
        Rigid { position: rotate(rotation, self.position).map(|c| -c), rotation }
    }
}

impl From<Pose> for Rigid<f32> {
    fn from(pose: Pose) -> Rigid<f32> {
        Rigid { position: pose.position, rotation: pose.rotation }
    }
}

impl Pose {
    /// `self ∘ child` (see [`Rigid::compose`]), its rotation normalized: poses off the
    /// wire may be anything, and a corrupt one must not turn what is placed from it
    /// into NaNs.
    pub fn compose(&self, child: &Pose) -> Pose {
        let placed = Rigid::from(*self).compose(&Rigid::from(*child));
        Pose { position: placed.position, rotation: normalized(placed.rotation) }
    }
}

#[cfg(test)]
mod tests {
    use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, FRAC_PI_6, PI};

    use super::*;

    const X: [f64; 3] = [1.0, 0.0, 0.0];
    const Y: [f64; 3] = [0.0, 1.0, 0.0];
    const Z: [f64; 3] = [0.0, 0.0, 1.0];

    fn close<const N: usize>(a: [f64; N], b: [f64; N]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-9)
    }

    #[test]
    fn the_identity_is_neutral_in_a_product() {
        let q = axis_angle([0.6, 0.0, 0.8], 1.1);
        assert_eq!(multiply(identity(), q), q);
        assert_eq!(multiply(q, identity()), q);
        assert_eq!(rotate(identity(), [1.0, -2.0, 3.0]), [1.0, -2.0, 3.0]);
    }

    #[test]
    fn quarter_turns_take_each_axis_to_the_next() {
        assert!(close(rotate(axis_angle(Y, FRAC_PI_2), X), [0.0, 0.0, -1.0]));
        assert!(close(rotate(axis_angle(Z, FRAC_PI_2), X), Y));
        assert!(close(rotate(axis_angle(X, FRAC_PI_2), Y), Z));
        assert!(close(rotate(axis_angle(X, FRAC_PI_2), Z), [0.0, -1.0, 0.0]));
        // f32 gives the same turns.
        let q = axis_angle([0.0f32, 1.0, 0.0], std::f32::consts::FRAC_PI_2);
        assert!(rotate(q, [1.0, 0.0, 0.0]).iter().zip([0.0, 0.0, -1.0]).all(|(a, b)| (a - b).abs() < 1e-6));
    }

    #[test]
    fn a_product_turns_by_its_right_factor_first() {
        // A quarter turn about Z then one about Y: X goes to Y, which Y leaves alone.
        let q = multiply(axis_angle(Y, FRAC_PI_2), axis_angle(Z, FRAC_PI_2));
        assert!(close(rotate(q, X), Y));
    }

    #[test]
    fn the_conjugate_turns_back() {
        let q = axis_angle([0.0, 0.6, 0.8], 2.0);
        let v = [0.3, -1.2, 4.0];
        assert!(close(rotate(conjugate(q), rotate(q, v)), v));
        assert!(close(unrotate(q, rotate(q, v)), v));
        assert!(close(multiply(q, conjugate(q)), identity()));
    }

    #[test]
    fn headings_read_back_the_turn_about_up() {
        for angle in [-3.0, -FRAC_PI_2, 0.0, 0.4, FRAC_PI_2, 3.0] {
            assert!((heading(axis_angle(Y, angle)) - angle).abs() < 1e-12, "{angle}");
        }
        // A tilt about the body's forward axis leaves its heading alone.
        let tilted = multiply(axis_angle(Y, 1.0), axis_angle(X, 0.5));
        assert!((heading(tilted) - 1.0).abs() < 1e-12);
        assert!((heading(axis_angle(Y, PI)).abs() - PI).abs() < 1e-12);
    }

    #[test]
    fn single_turns_read_as_one_angle_each() {
        // 30° about world Z (the right axis at rest): nose up by 30°.
        assert!(close(roll_pitch_yaw(axis_angle(Z, FRAC_PI_6)), [0.0, FRAC_PI_6, 0.0]));
        // 45° about world X (forward): the up axis leans to +Z, the right side goes down.
        assert!(close(roll_pitch_yaw(axis_angle(X, FRAC_PI_4)), [FRAC_PI_4, 0.0, 0.0]));
        // 90° about Y: heading +90°, as the compass.
        assert!(close(roll_pitch_yaw(axis_angle(Y, FRAC_PI_2)), [0.0, 0.0, FRAC_PI_2]));
    }

    #[test]
    fn a_yawed_body_tilted_nose_up_keeps_its_yaw_and_pitch() {
        // Turned 90° left, then nose up 30°: forward points to world −Z and up by 30°.
        let q = from_roll_pitch_yaw([0.0, FRAC_PI_6, FRAC_PI_2]);
        assert!(close(rotate(q, X), [0.0, 0.5, -(3f64.sqrt() / 2.0)]));
        assert!(close(roll_pitch_yaw(q), [0.0, FRAC_PI_6, FRAC_PI_2]));
    }

    #[test]
    fn roll_pitch_yaw_and_quaternions_are_inverse() {
        for angles in [[0.3, -0.4, 2.5], [-1.2, 1.1, -3.0], [0.0, 0.0, 0.0], [3.0, -1.5, 0.1]] {
            let back = roll_pitch_yaw(from_roll_pitch_yaw(angles));
            assert!(close(back, angles), "{angles:?} → {back:?}");
        }
    }

    #[test]
    fn twists_read_back_the_turn_about_their_axis() {
        let axis = [0.0, 0.6, 0.8];
        assert!((twist_angle(axis_angle(axis, 1.25), axis) - 1.25).abs() < 1e-12);
        // A swing about an axis across it adds no twist.
        let swung = multiply(axis_angle(X, 0.7), axis_angle(axis, -0.5));
        assert!((twist_angle(swung, axis) + 0.5).abs() < 0.2);
        assert_eq!(twist_angle(identity(), axis), 0.0);
    }

    #[test]
    fn rotations_between_vectors_take_one_onto_the_other() {
        let cases = [(Z, X), (Z, Z), (Z, [0.0, 0.0, -1.0]), (X, [-1.0, 0.0, 0.0]), (Z, [0.6, 0.0, -0.8])];
        for (from, to) in cases {
            assert!(close(rotate(rotation_between(from, to), from), to), "{from:?} -> {to:?}");
        }
    }

    #[test]
    fn reports_put_w_first() {
        let q = [0.1, 0.2, 0.3, 0.9];
        assert_eq!(to_wxyz(q), [0.9, 0.1, 0.2, 0.3]);
        assert_eq!(from_wxyz(to_wxyz(q)), q);
    }

    #[test]
    fn degenerate_quaternions_become_the_identity() {
        assert_eq!(normalized([0.0f32; 4]), [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(normalized([f32::NAN, 0.0, 0.0, 1.0]), [0.0, 0.0, 0.0, 1.0]);
        assert!(close(normalized([0.0, 3.0, 0.0, 4.0]), [0.0, 0.6, 0.0, 0.8]));
    }

    #[test]
    fn composing_applies_the_child_offset_in_the_parent_frame_and_inverting_undoes_it() {
        let body = Rigid { position: [1.0, 2.0, 3.0], rotation: axis_angle(Z, FRAC_PI_2) };
        let part = Rigid { position: X, rotation: axis_angle(Z, FRAC_PI_2) };
        let world = body.compose(&part);
        assert!(close(world.position, [1.0, 3.0, 3.0]));
        // Two quarter turns about Z: a half turn, which takes X to -X.
        assert!(close(rotate(world.rotation, X), [-1.0, 0.0, 0.0]));
        let back = body.inverse().compose(&world);
        assert!(close(back.position, part.position) && close(back.rotation, part.rotation));
        let none = world.compose(&world.inverse());
        assert!(close(none.position, [0.0; 3]) && close(none.rotation, identity()));
    }

    #[test]
    fn composed_wire_poses_turn_by_a_unit_quaternion_even_from_a_corrupt_one() {
        let pose = Pose { position: [4.0, 5.0, 6.0], rotation: axis_angle([1.0, 0.0, 0.0], 0.3) };
        for placed in [Pose::IDENTITY.compose(&pose), pose.compose(&Pose::IDENTITY)] {
            assert_eq!(placed.position, pose.position);
            assert!(placed.rotation.iter().zip(pose.rotation).all(|(a, b)| (a - b).abs() < 1e-6));
        }
        let corrupt = Pose { position: [0.0; 3], rotation: [f32::NAN; 4] };
        assert_eq!(pose.compose(&corrupt).rotation, [0.0, 0.0, 0.0, 1.0]);
    }
}
