//! The `IMU`: a body's orientation as roll, pitch and yaw, and its quaternion.
//!
//! The angles are the Tait–Bryan angles of the body's frame (forward +X, up +Y, right
//! +Z) in the order yaw about the world's vertical, then pitch about the turned right
//! axis, then roll about the forward axis: R = R_Y(yaw) · R_Z(pitch) · R_X(roll).
//! Yaw is the heading of the compass; pitch is positive nose up; roll is positive
//! with the right side down.

use rand_chacha::ChaCha8Rng;
use vlab_protocol::SensorValue;
use vlab_protocol::pose::{from_roll_pitch_yaw, roll_pitch_yaw, to_wxyz};

use crate::robot::frame::wide;
use crate::robot::kinematics::wrap_angle;
use crate::robot::noise::NoiseModel;
use crate::scene::Pose;

/// The truth and the measured value of an IMU on a body at `pose`: each angle through
/// the noise model (roll and yaw wrapped into −π..π, pitch held within ±π/2), the
/// quaternion made from the measured angles.
pub fn read(pose: &Pose, noise: &NoiseModel, rng: &mut ChaCha8Rng) -> (SensorValue, SensorValue) {
    let rotation = wide(pose.rotation);
    let truth = roll_pitch_yaw(rotation);
    let value = |[roll, pitch, yaw]: [f64; 3], quaternion| SensorValue::Orientation { roll, pitch, yaw, quaternion };
    let true_value = value(truth, to_wxyz(rotation));
    if noise.is_exact() {
        return (true_value.clone(), true_value);
    }
    let [roll, pitch, yaw] = truth.map(|angle| noise.measure(angle, rng));
    let measured =
        [wrap_angle(roll), pitch.clamp(-std::f64::consts::FRAC_PI_2, std::f64::consts::FRAC_PI_2), wrap_angle(yaw)];
    (value(measured, to_wxyz(from_roll_pitch_yaw(measured))), true_value)
}

#[cfg(test)]
mod tests {
    use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, FRAC_PI_6};

    use vlab_protocol::pose::{from_wxyz, rotate};

    use super::*;

    fn pose_of(wxyz: [f64; 4]) -> Pose {
        Pose { position: [0.0; 3], rotation: from_wxyz(wxyz).map(|c| c as f32) }
    }

    fn pose_at(angles: [f64; 3]) -> Pose {
        pose_of(to_wxyz(from_roll_pitch_yaw(angles)))
    }

    /// The roll, pitch and yaw an exact IMU reads on a body at `pose`.
    fn angles(pose: &Pose) -> [f64; 3] {
        let mut rng = crate::robot::noise::sensor_rng(1, "bot", "imu");
        let (_, truth) = read(pose, &NoiseModel::default(), &mut rng);
        let SensorValue::Orientation { roll, pitch, yaw, .. } = truth else { panic!("{truth:?}") };
        [roll, pitch, yaw]
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
        let pose = pose_at([0.0, FRAC_PI_6, FRAC_PI_2]);
        let forward = rotate(wide(pose.rotation), [1.0, 0.0, 0.0]);
        assert!(close(forward, [0.0, 0.5, -(3f64.sqrt() / 2.0)]), "{forward:?}");
        assert!(close(angles(&pose), [0.0, FRAC_PI_6, FRAC_PI_2]));
    }

    #[test]
    fn angles_and_quaternions_are_inverse() {
        for angles_in in [[0.3, -0.4, 2.5], [-1.2, 1.1, -3.0], [0.0, 0.0, 0.0], [3.0, -1.5, 0.1]] {
            let back = angles(&pose_at(angles_in));
            assert!(close(back, angles_in), "{angles_in:?} → {back:?}");
        }
    }

    #[test]
    fn noise_applies_to_each_angle_and_the_quaternion_follows() {
        let noise = NoiseModel { bias: 0.1, ..NoiseModel::default() };
        let pose = pose_at([0.2, 0.3, 3.1]);
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
