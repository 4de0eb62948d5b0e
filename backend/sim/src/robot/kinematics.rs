//! Differential-drive kinematics on the ground plane: wheel speeds from (v, ω) and back,
//! and the exact-arc pose update odometry integrates with.
//!
//! Ground-plane convention (also [`vlab_protocol::SensorValue::Pose2d`]): `x` along
//! world X, `y` along world −Z, `theta` counter-clockwise seen from above, 0 along +X.
//! With Y up this makes (x, y, θ) a right-handed planar frame.

/// A pose on the ground plane.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Pose2 {
    /// Metres.
    pub x: f64,
    /// Metres.
    pub y: f64,
    /// Radians.
    pub theta: f64,
}

/// The wheel geometry of a differential drive.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiffDriveGeometry {
    /// Wheel radius r, metres.
    pub wheel_radius: f64,
    /// Distance between the wheels' contact points ℓ, metres.
    pub track: f64,
}

impl DiffDriveGeometry {
    /// Wheel angular speeds `(ω_left, ω_right)` (rad/s, positive rolls forward) for a
    /// forward speed `v` and turn rate `omega`: ωR = (v + ωℓ/2)/r, ωL = (v − ωℓ/2)/r.
    pub fn wheel_speeds(&self, v: f64, omega: f64) -> (f64, f64) {
        let half = omega * self.track / 2.0;
        ((v - half) / self.wheel_radius, (v + half) / self.wheel_radius)
    }

    /// Forward speed and turn rate `(v, ω)` of wheel speeds `(ω_left, ω_right)`.
    pub fn body_speeds(&self, left: f64, right: f64) -> (f64, f64) {
        let r = self.wheel_radius;
        ((right + left) * r / 2.0, (right - left) * r / self.track)
    }
}

/// Below this |ω·Δt| (radians) the arc update takes its straight-line limit: the arc
/// formula divides by ω and loses precision as it vanishes.
const STRAIGHT_TURN: f64 = 1e-9;

/// Moves `pose` along a circular arc at forward speed `v` and turn rate `omega` for
/// `dt` seconds (exact for constant v, ω):
/// x' = x + (v/ω)(sin(θ+ωΔt) − sin θ), y' = y − (v/ω)(cos(θ+ωΔt) − cos θ).
pub fn advance_arc(pose: Pose2, v: f64, omega: f64, dt: f64) -> Pose2 {
    let turn = omega * dt;
    let theta = pose.theta + turn;
    if turn.abs() < STRAIGHT_TURN {
        let mid = pose.theta + turn / 2.0;
        return Pose2 { x: pose.x + v * dt * mid.cos(), y: pose.y + v * dt * mid.sin(), theta };
    }
    let radius = v / omega;
    Pose2 {
        x: pose.x + radius * (theta.sin() - pose.theta.sin()),
        y: pose.y - radius * (theta.cos() - pose.theta.cos()),
        theta,
    }
}

/// `angle` wrapped into (−π, π].
pub fn wrap_angle(angle: f64) -> f64 {
    let wrapped = angle.rem_euclid(std::f64::consts::TAU);
    if wrapped > std::f64::consts::PI { wrapped - std::f64::consts::TAU } else { wrapped }
}

#[cfg(test)]
mod tests {
    //! The differential-drive reference figures of docs/sensors.md: r = 0.03 m,
    //! ℓ = 0.2 m, ideal model.
    use super::*;
    use std::f64::consts::{FRAC_PI_2, TAU};

    const GEOMETRY: DiffDriveGeometry = DiffDriveGeometry { wheel_radius: 0.03, track: 0.2 };

    /// Integrates wheel speeds for `seconds` in steps of `dt`.
    fn drive(left: f64, right: f64, seconds: f64, dt: f64) -> Pose2 {
        let (v, omega) = GEOMETRY.body_speeds(left, right);
        let steps = (seconds / dt).round() as usize;
        (0..steps).fold(Pose2::default(), |pose, _| advance_arc(pose, v, omega, dt))
    }

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() < tolerance
    }

    #[test]
    fn equal_wheels_drive_straight() {
        assert_eq!(GEOMETRY.body_speeds(5.0, 5.0), (0.15, 0.0));
        let pose = drive(5.0, 5.0, 2.0, 1.0 / 240.0);
        assert!(close(pose.x, 0.3, 1e-12) && close(pose.y, 0.0, 1e-12) && close(pose.theta, 0.0, 1e-12), "{pose:?}");
    }

    #[test]
    fn opposite_wheels_spin_in_place_one_turn_in_4_18879_s() {
        let (v, omega) = GEOMETRY.body_speeds(-5.0, 5.0);
        assert!(close(v, 0.0, 1e-12) && close(omega, 1.5, 1e-12));
        assert!(close(TAU / omega, 4.18879, 1e-5));
        let pose = drive(-5.0, 5.0, TAU / 1.5, TAU / 1.5 / 1000.0);
        assert!(close(pose.x, 0.0, 1e-9) && close(pose.y, 0.0, 1e-9) && close(pose.theta, TAU, 1e-9), "{pose:?}");
    }

    #[test]
    fn six_and_four_drive_a_half_metre_circle() {
        let (v, omega) = GEOMETRY.body_speeds(4.0, 6.0);
        assert!(close(v, 0.15, 1e-12) && close(omega, 0.3, 1e-12));
        assert!(close(v / omega, 0.5, 1e-12), "R = v/ω");
        // One exact-arc update and many small ones agree with x = R sin ωt, y = R(1 − cos ωt).
        let quarter = FRAC_PI_2 / 0.3; // 5.236 s
        let once = advance_arc(Pose2::default(), v, omega, quarter);
        let many = drive(4.0, 6.0, quarter, quarter / 1000.0);
        for pose in [once, many] {
            assert!(close(pose.x, 0.5, 1e-9) && close(pose.y, 0.5, 1e-9), "{pose:?}");
            assert!(close(pose.theta, FRAC_PI_2, 1e-9), "{pose:?}");
        }
        for t in [0.7, 2.0, 9.0] {
            let pose = advance_arc(Pose2::default(), v, omega, t);
            assert!(close(pose.x, 0.5 * (0.3 * t).sin(), 1e-12) && close(pose.y, 0.5 * (1.0 - (0.3 * t).cos()), 1e-12));
        }
    }

    #[test]
    fn the_inverse_kinematics_inverts_the_forward() {
        assert_eq!(GEOMETRY.wheel_speeds(0.15, 0.3), (4.0, 6.0));
        let (left, right) = GEOMETRY.wheel_speeds(-0.2, 1.1);
        let (v, omega) = GEOMETRY.body_speeds(left, right);
        assert!(close(v, -0.2, 1e-12) && close(omega, 1.1, 1e-12));
    }

    #[test]
    fn the_straight_branch_joins_the_arc_smoothly() {
        let tiny = advance_arc(Pose2 { x: 1.0, y: 2.0, theta: 0.4 }, 0.5, 1e-12, 1.0);
        let small = advance_arc(Pose2 { x: 1.0, y: 2.0, theta: 0.4 }, 0.5, 1e-6, 1.0);
        assert!(close(tiny.x, small.x, 1e-6) && close(tiny.y, small.y, 1e-6));
        assert!(close(tiny.x, 1.0 + 0.5 * 0.4f64.cos(), 1e-9));
    }

    #[test]
    fn angles_wrap_into_minus_pi_to_pi() {
        assert!(close(wrap_angle(3.0 * std::f64::consts::PI), std::f64::consts::PI, 1e-12));
        assert!(close(wrap_angle(-0.5), -0.5, 1e-12));
        assert!(close(wrap_angle(TAU + 0.25), 0.25, 1e-12));
    }
}
