//! The `IMU`: a body's orientation as roll, pitch and yaw, and its quaternion.
//!
//! The angles are the Tait–Bryan angles of the body's frame (forward +X, up +Y, right
//! +Z) in the order yaw about the world's vertical, then pitch about the turned right
//! axis, then roll about the forward axis: R = R_Y(yaw) · R_Z(pitch) · R_X(roll).
//! Yaw is the heading of the compass; pitch is positive nose up; roll is positive
//! with the right side down.

use rand_chacha::ChaCha8Rng;
use vlab_protocol::SensorValue;

use crate::robot::frame::rotate;
use crate::robot::kinematics::wrap_angle;
use crate::robot::noise::NoiseModel;
use crate::scene::Pose;

/// Roll, pitch and yaw of `pose`'s frame, radians.
pub fn angles(pose: &Pose) -> [f64; 3] {
    let forward = rotate(pose.rotation, [1.0, 0.0, 0.0]);
    let up = rotate(pose.rotation, [0.0, 1.0, 0.0]);
    let right = rotate(pose.rotation, [0.0, 0.0, 1.0]);
    // forward = (cos p cos y, sin p, −cos p sin y); right.y = −sin r cos p and
    // up.y = cos r cos p, whatever the yaw.
    let pitch = forward[1].clamp(-1.0, 1.0).asin();
    let yaw = (-forward[2]).atan2(forward[0]);
    let roll = (-right[1]).atan2(up[1]);
    [roll, pitch, yaw]
}

/// The quaternion `[w, x, y, z]` of roll, pitch and yaw (the inverse of [`angles`]).
pub fn quaternion([roll, pitch, yaw]: [f64; 3]) -> [f64; 4] {
    let (sr, cr) = (roll / 2.0).sin_cos();
    let (sp, cp) = (pitch / 2.0).sin_cos();
    let (sy, cy) = (yaw / 2.0).sin_cos();
    // q_Y(yaw) · q_Z(pitch) · q_X(roll), each [w, x, y, z].
    let yz = [cy * cp, sy * sp, sy * cp, cy * sp];
    let [w, x, y, z] = yz;
    [w * cr - x * sr, w * sr + x * cr, y * cr + z * sr, z * cr - y * sr]
}

/// The truth and the measured value of an IMU on a body at `pose`: each angle through
/// the noise model (roll and yaw wrapped into −π..π, pitch held within ±π/2), the
/// quaternion made from the measured angles.
pub fn read(pose: &Pose, noise: &NoiseModel, rng: &mut ChaCha8Rng) -> (SensorValue, SensorValue) {
    let truth = angles(pose);
    let [x, y, z, w] = pose.rotation.map(f64::from);
    let value = |[roll, pitch, yaw]: [f64; 3], quaternion| SensorValue::Orientation { roll, pitch, yaw, quaternion };
    let true_value = value(truth, [w, x, y, z]);
    if noise.is_exact() {
        return (true_value.clone(), true_value);
    }
    let [roll, pitch, yaw] = truth.map(|angle| noise.measure(angle, rng));
    let measured =
        [wrap_angle(roll), pitch.clamp(-std::f64::consts::FRAC_PI_2, std::f64::consts::FRAC_PI_2), wrap_angle(yaw)];
    (value(measured, quaternion(measured)), true_value)
}

#[cfg(test)]
mod tests {
    use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, FRAC_PI_6};

    use super::*;

    fn pose_of([w, x, y, z]: [f64; 4]) -> Pose {
        Pose { position: [0.0; 3], rotation: [x as f32, y as f32, z as f32, w as f32] }
    }

    fn close(a: [f64; 3], b: [f64; 3]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6)
    }

    #[test]
    fn single_turns_read_as_one_angle_each() {
        // 30° about world Z (the right axis at rest): nose up by 30°.
        let half = FRAC_PI_6 / 2.0;
        assert!(close(angles(&pose_of([half.cos(), 0.0, 0.0, half.sin()])), [0.0, FRAC_PI_6, 0.0]));
        // 45° about world X (forward): the up axis leans to +Z, the right side goes down.
        let half = FRAC_PI_4 / 2.0;
        assert!(close(angles(&pose_of([half.cos(), half.sin(), 0.0, 0.0])), [FRAC_PI_4, 0.0, 0.0]));
        // 90° about Y: heading +90°, as the compass.
        let half = FRAC_PI_2 / 2.0;
        assert!(close(angles(&pose_of([half.cos(), 0.0, half.sin(), 0.0])), [0.0, 0.0, FRAC_PI_2]));
    }

    #[test]
    fn a_yawed_body_tilted_nose_up_keeps_its_yaw_and_pitch() {
        // Turned 90° left, then nose up 30°: forward points to world −Z and up by 30°:
        // forward = (0, sin 30°, −cos 30°).
        let q = quaternion([0.0, FRAC_PI_6, FRAC_PI_2]);
        let pose = pose_of(q);
        let forward = rotate(pose.rotation, [1.0, 0.0, 0.0]);
        assert!(close(forward, [0.0, 0.5, -(3f64.sqrt() / 2.0)]), "{forward:?}");
        assert!(close(angles(&pose), [0.0, FRAC_PI_6, FRAC_PI_2]));
    }

    #[test]
    fn angles_and_quaternions_are_inverse() {
        for angles_in in [[0.3, -0.4, 2.5], [-1.2, 1.1, -3.0], [0.0, 0.0, 0.0], [3.0, -1.5, 0.1]] {
            let back = angles(&pose_of(quaternion(angles_in)));
            assert!(close(back, angles_in), "{angles_in:?} → {back:?}");
        }
    }

    #[test]
    fn noise_applies_to_each_angle_and_the_quaternion_follows() {
        let noise = NoiseModel { bias: 0.1, ..NoiseModel::default() };
        let pose = pose_of(quaternion([0.2, 0.3, 3.1]));
        let mut rng = crate::robot::noise::sensor_rng(1, "bot", "imu");
        let (measured, truth) = read(&pose, &noise, &mut rng);
        let SensorValue::Orientation { roll, pitch, yaw, quaternion: q } = measured else { panic!("{measured:?}") };
        assert!((roll - 0.3).abs() < 1e-6 && (pitch - 0.4).abs() < 1e-6);
        // 3.1 + 0.1 wraps to 3.2 − 2π.
        assert!((yaw - (3.2 - std::f64::consts::TAU)).abs() < 1e-6, "{yaw}");
        assert!(close(angles(&pose_of(q)), [roll, pitch, yaw]));
        let SensorValue::Orientation { roll, .. } = truth else { panic!() };
        assert!((roll - 0.2).abs() < 1e-6);
    }
}
