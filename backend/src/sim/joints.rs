//! Joints of the scene model mapped to rapier's generic joints.
//!
//! The model gives anchors and axes in world coordinates at build time; rapier wants
//! them in each body's local frame, so every mapping converts through the two bodies'
//! initial poses.

use rapier3d::prelude::*;

use crate::scene::{JointKind, JointModel, SceneError};

/// Damping gain of velocity motors. In rapier's acceleration-based motor model the
/// constraint's softness is `1 / (dt · gain)`: at 1 a motor barely turns a loaded wheel;
/// at 1000 (measured on the demo carts) it reaches its target within about half a
/// second, limited by `max_force`, like a DC motor with a speed controller.
pub(crate) const MOTOR_VELOCITY_GAIN: Real = 1000.0;

/// The rapier joint for `joint`, given the initial world poses of its two bodies.
pub(crate) fn joint_of(joint: &JointModel, pose1: &Pose, pose2: &Pose) -> Result<GenericJoint, SceneError> {
    match &joint.kind {
        JointKind::Hinge { anchor, axis, motor } => {
            let anchor = Vector::from_array(*anchor);
            let axis = Vector::from_array(*axis).normalize_or(Vector::X);
            let mut builder = GenericJointBuilder::new(JointAxesMask::LOCKED_REVOLUTE_AXES)
                .local_anchor1(pose1.inverse_transform_point(anchor))
                .local_anchor2(pose2.inverse_transform_point(anchor))
                .local_axis1(pose1.rotation.inverse() * axis)
                .local_axis2(pose2.rotation.inverse() * axis);
            if let Some(motor) = motor {
                builder = builder
                    .motor_velocity(JointAxis::AngX, motor.target_velocity, MOTOR_VELOCITY_GAIN)
                    .motor_max_force(JointAxis::AngX, motor.max_force);
            }
            Ok(builder.build())
        }
        // The scene language models every joint of the spec; their physics mapping is
        // a later step. Refuse clearly rather than build a world that silently lacks a
        // joint.
        other => Err(SceneError::Unsupported {
            name: joint.name.clone(),
            what: format!("the joint type {}", other.language_name()),
        }),
    }
}
