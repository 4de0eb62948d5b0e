//! A body's pose as robots report it: widened to `f64`, its heading on the ground
//! plane, its ground-plane coordinates. The arithmetic is `vlab_protocol::pose`.

use vlab_protocol::pose::{self, to_wxyz};

use crate::scene::Pose;

/// Widens an `f32` vector or quaternion: sensors measure in `f64` what the model places
/// in `f32`.
pub fn wide<const N: usize>(v: [f32; N]) -> [f64; N] {
    v.map(f64::from)
}

/// The direction of the body's forward axis (+X) seen from above: radians
/// counter-clockwise from world +X about the vertical (+Y).
pub fn heading(pose: &Pose) -> f64 {
    pose::heading(wide(pose.rotation))
}

/// The ground-plane coordinates `(x, y)` of a world position: x along X, y along −Z.
pub fn ground(position: [f32; 3]) -> (f64, f64) {
    (f64::from(position[0]), -f64::from(position[2]))
}

/// A pose as the protocol writes it: position, quaternion `[w, x, y, z]`, heading.
pub fn robot_pose(pose: &Pose) -> vlab_protocol::RobotPose {
    vlab_protocol::RobotPose {
        position: wide(pose.position),
        quaternion: to_wxyz(wide(pose.rotation)),
        heading: heading(pose),
    }
}

#[cfg(test)]
mod tests {
    use vlab_protocol::pose::{rotate, unrotate};

    use super::*;

    fn close(a: [f64; 3], b: [f64; 3]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6)
    }

    #[test]
    fn a_quarter_turn_about_y_takes_x_to_minus_z_and_heads_ninety_degrees() {
        let pose = Pose::at_turned([0.0; 3], [0.0, 1.0, 0.0], std::f32::consts::FRAC_PI_2);
        assert!(close(rotate(wide(pose.rotation), [1.0, 0.0, 0.0]), [0.0, 0.0, -1.0]));
        assert!(close(unrotate(wide(pose.rotation), [0.0, 0.0, -1.0]), [1.0, 0.0, 0.0]));
        assert!((heading(&pose) - std::f64::consts::FRAC_PI_2).abs() < 1e-6);
        assert_eq!(ground([1.0, 5.0, -2.0]), (1.0, 2.0));
    }

    #[test]
    fn reports_write_the_quaternion_w_first() {
        let pose = Pose { position: [1.0, 2.0, 3.0], rotation: [0.0, 0.6, 0.0, 0.8] };
        let report = robot_pose(&pose);
        assert_eq!(report.quaternion, [0.8f32, 0.0, 0.6, 0.0].map(f64::from));
        assert_eq!(report.position, [1.0, 2.0, 3.0]);
    }
}
