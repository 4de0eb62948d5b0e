//! Placing with a [`Pose`]: its constructors, and composing and inverting poses through
//! the shared pose arithmetic (`vlab_protocol::pose`).

use vlab_protocol::pose::{Rigid, add, axis_angle, rotate};

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

    /// Point `point` carried by this transform.
    pub fn transform_point(&self, point: [f32; 3]) -> [f32; 3] {
        add(self.position, rotate(self.rotation, point))
    }

    /// Direction `direction` carried by this transform (turned, not moved).
    pub fn transform_direction(&self, direction: [f32; 3]) -> [f32; 3] {
        rotate(self.rotation, direction)
    }
}

impl super::JointKind {
    /// The same joint with its world-frame anchor and axes carried by `delta` (its
    /// bodies moved as one rigid piece by `delta`).
    pub fn moved(&self, delta: &Pose) -> super::JointKind {
        use super::JointKind as K;
        let point = |p: &[f32; 3]| delta.transform_point(*p);
        let axis = |a: &[f32; 3]| delta.transform_direction(*a);
        match self {
            K::Hinge { anchor, axis: a, motor } => K::Hinge { anchor: point(anchor), axis: axis(a), motor: *motor },
            K::Ball { anchor } => K::Ball { anchor: point(anchor) },
            K::Slider { axis: a } => K::Slider { axis: axis(a) },
            K::Universal { anchor, axis: a, axis2 } => {
                K::Universal { anchor: point(anchor), axis: axis(a), axis2: axis(axis2) }
            }
            K::Hinge2 { anchor, axis: a, axis2 } => {
                K::Hinge2 { anchor: point(anchor), axis: axis(a), axis2: axis(axis2) }
            }
            K::Fixed => K::Fixed,
            K::PrismaticRotoide { anchor, axis: a, axis2 } => {
                K::PrismaticRotoide { anchor: point(anchor), axis: axis(a), axis2: axis(axis2) }
            }
            K::PrismaticUniversal { anchor, axis: a, axis2 } => {
                K::PrismaticUniversal { anchor: point(anchor), axis: axis(a), axis2: axis(axis2) }
            }
            K::Piston { anchor, axis: a } => K::Piston { anchor: point(anchor), axis: axis(a) },
            K::Planar { anchor, axis: a } => K::Planar { anchor: point(anchor), axis: axis(a) },
        }
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
