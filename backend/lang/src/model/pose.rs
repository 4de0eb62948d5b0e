//! Placing with a [`Pose`]: its constructors, and composing and inverting poses through
//! the shared pose arithmetic (`vlab_protocol::pose`).

use vlab_protocol::pose::{Rigid, axis_angle};

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
        Pose { position, rotation: axis_angle(axis, angle_rad) }
    }

    /// `parent_from_child` expressed in the frame this pose maps from:
    /// `world_from_child = world_from_parent.compose(parent_from_child)`.
    pub fn compose(&self, child: &Pose) -> Pose {
        Rigid::from(*self).compose(&Rigid::from(*child)).into()
    }

    /// The inverse transform.
    pub fn inverse(&self) -> Pose {
        Rigid::from(*self).inverse().into()
    }
}

impl From<Pose> for Rigid<f32> {
    fn from(pose: Pose) -> Rigid<f32> {
        Rigid { position: pose.position, rotation: pose.rotation }
    }
}

impl From<Rigid<f32>> for Pose {
    fn from(rigid: Rigid<f32>) -> Pose {
        Pose { position: rigid.position, rotation: rigid.rotation }
    }
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

    #[test]
    fn a_pose_composed_with_its_inverse_is_no_move() {
        let pose = Pose::at_turned([1.0, 2.0, 3.0], [0.0, 0.6, 0.8], 1.3);
        let none = pose.compose(&pose.inverse());
        assert!(none.position.iter().all(|c| c.abs() < 1e-6));
        assert!((none.rotation[3] - 1.0).abs() < 1e-6);
    }
}
