//! Small rigid-body math on the scene's plain arrays: turning vectors by a pose's
//! quaternion, and the heading of a body on the ground plane.

use crate::scene::Pose;

pub use vlab_scene::math::{cross, dot, rotate_wide as rotate, unrotate_wide as unrotate};

/// Widens an `f32` vector.
pub fn wide(v: [f32; 3]) -> [f64; 3] {
    v.map(f64::from)
}

/// The direction of the body's forward axis (+X) seen from above: radians
/// counter-clockwise from world +X about the vertical (+Y).
pub fn heading(pose: &Pose) -> f64 {
    let forward = rotate(pose.rotation, [1.0, 0.0, 0.0]);
    (-forward[2]).atan2(forward[0])
}

/// The ground-plane coordinates `(x, y)` of a world position: x along X, y along −Z.
pub fn ground(position: [f32; 3]) -> (f64, f64) {
    (f64::from(position[0]), -f64::from(position[2]))
}

/// A pose as the protocol writes it: position, quaternion `[w, x, y, z]`, heading.
pub fn robot_pose(pose: &Pose) -> vlab_protocol::RobotPose {
    let [x, y, z, w] = pose.rotation.map(f64::from);
    vlab_protocol::RobotPose { position: wide(pose.position), quaternion: [w, x, y, z], heading: heading(pose) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: [f64; 3], b: [f64; 3]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6)
    }

    #[test]
    fn a_quarter_turn_about_y_takes_x_to_minus_z_and_heads_ninety_degrees() {
        let pose = Pose::at_turned([0.0; 3], [0.0, 1.0, 0.0], std::f32::consts::FRAC_PI_2);
        assert!(close(rotate(pose.rotation, [1.0, 0.0, 0.0]), [0.0, 0.0, -1.0]));
        assert!(close(unrotate(pose.rotation, [0.0, 0.0, -1.0]), [1.0, 0.0, 0.0]));
        assert!((heading(&pose) - std::f64::consts::FRAC_PI_2).abs() < 1e-6);
        assert_eq!(ground([1.0, 5.0, -2.0]), (1.0, 2.0));
    }
}
