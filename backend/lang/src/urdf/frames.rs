//! URDF frames in VLab's: URDF is Z-up with X forward and Y to the left; VLab is Y-up
//! with X forward and Z to the right. One fixed turn, −90° about X, takes a URDF vector
//! to VLab's (x, y, z) → (x, z, −y); poses, `rpy` and axes go through it here.

use std::f32::consts::FRAC_1_SQRT_2;

use vlab_protocol::pose::{axis_angle, multiply, rotate};

use crate::model::Pose;

/// The turn from URDF axes to VLab axes: −90° about X, `[x, y, z, w]`.
pub(super) const URDF_TO_VLAB: [f32; 4] = [-FRAC_1_SQRT_2, 0.0, 0.0, FRAC_1_SQRT_2];

/// `rpy` (fixed-axis roll about X, then pitch about Y, then yaw about Z) as a quaternion.
pub(super) fn rpy([roll, pitch, yaw]: [f64; 3]) -> [f32; 4] {
    let turn = |axis: [f64; 3], angle: f64| axis_angle(axis, angle).map(|c| c as f32);
    multiply(turn([0.0, 0.0, 1.0], yaw), multiply(turn([0.0, 1.0, 0.0], pitch), turn([1.0, 0.0, 0.0], roll)))
}

/// A URDF `<origin>` as a pose (in URDF axes).
pub(super) fn origin(origin: &urdf_rs::Pose) -> Pose {
    Pose { position: origin.xyz.0.map(|v| v as f32), rotation: rpy(origin.rpy.0) }
}

/// The turn [`URDF_TO_VLAB`] as a pose.
pub(super) fn to_vlab() -> Pose {
    Pose { position: [0.0; 3], rotation: URDF_TO_VLAB }
}

/// The world pose of a body whose frame is the link's, re-expressed in VLab axes:
/// `placement ∘ C ∘ root_from_link ∘ C⁻¹`.
pub(super) fn body_pose(placement: &Pose, root_from_link: &Pose) -> Pose {
    placement.compose(&to_vlab()).compose(root_from_link).compose(&to_vlab().inverse())
}

/// Where a geometry sits in its body: `C ∘ body_link_from_link ∘ link_from_geometry`.
pub(super) fn part_pose(body_link_from_link: &Pose, link_from_geometry: &Pose) -> Pose {
    to_vlab().compose(body_link_from_link).compose(link_from_geometry)
}

/// A direction given in the frame `world_from_frame` maps from, in the world.
pub(super) fn direction(world_from_frame: &Pose, v: [f64; 3]) -> [f32; 3] {
    rotate(world_from_frame.rotation, v.map(|c| c as f32))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unit quaternions close enough to be the same turn (either sign).
    fn same_pose(a: &Pose, b: &Pose) -> bool {
        let close = |x: f32, y: f32| (x - y).abs() < 1e-5;
        let dot: f32 = a.rotation.iter().zip(&b.rotation).map(|(x, y)| x * y).sum();
        a.position.iter().zip(&b.position).all(|(x, y)| close(*x, *y)) && close(dot.abs(), 1.0)
    }

    fn near(a: [f32; 3], b: [f32; 3]) -> bool {
        a.iter().zip(&b).all(|(x, y)| (x - y).abs() < 1e-6)
    }

    #[test]
    fn urdf_up_is_vlab_up_and_urdf_left_is_vlab_minus_z() {
        assert!(near(rotate(URDF_TO_VLAB, [0.0, 0.0, 1.0]), [0.0, 1.0, 0.0]));
        assert!(near(rotate(URDF_TO_VLAB, [0.0, 1.0, 0.0]), [0.0, 0.0, -1.0]));
        assert!(near(rotate(URDF_TO_VLAB, [1.0, 0.0, 0.0]), [1.0, 0.0, 0.0]));
    }

    #[test]
    fn rpy_turns_about_fixed_axes_roll_first() {
        // roll π/2 then yaw π/2: Y goes to Z (roll), then stays Z (yaw about Z).
        let q = rpy([std::f64::consts::FRAC_PI_2, 0.0, std::f64::consts::FRAC_PI_2]);
        assert!(near(rotate(q, [0.0, 1.0, 0.0]), [0.0, 0.0, 1.0]));
        // X: untouched by the roll, then yawed to Y.
        assert!(near(rotate(q, [1.0, 0.0, 0.0]), [0.0, 1.0, 0.0]));
    }

    #[test]
    fn a_link_a_metre_up_and_turned_left_lands_a_metre_up_facing_minus_z() {
        let link = Pose { position: [0.0, 0.0, 1.0], rotation: rpy([0.0, 0.0, std::f64::consts::FRAC_PI_2]) };
        let body = body_pose(&Pose::at([2.0, 0.0, 3.0]), &link);
        assert!(near(body.position, [2.0, 1.0, 3.0]));
        // The body's forward (+X) points where the link's +X points: URDF +Y, VLab −Z.
        assert!(near(rotate(body.rotation, [1.0, 0.0, 0.0]), [0.0, 0.0, -1.0]));
        let back = Pose::at([1.0, 2.0, 3.0]).compose(&Pose::at([1.0, 2.0, 3.0]).inverse());
        assert!(same_pose(&back, &Pose::IDENTITY));
    }
}
