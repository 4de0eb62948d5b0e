//! Joints of the scene model mapped to rapier's generic joints.
//!
//! The model gives anchors and axes in world coordinates at build time; rapier wants
//! them in each body's local frame, so every mapping converts through the two bodies'
//! initial poses. Each joint gets one *joint frame* in the world — an origin and three axes X, Y, Z chosen from the
//! joint's anchor and axes — expressed in both bodies, so the joint starts without
//! error (and its coordinates, which joint sensors and servos use, start at zero in
//! the scene's pose); then it locks the degrees of freedom the joint type forbids:
//!
//! | joint | frame X / Y / Z | free |
//! |---|---|---|
//! | `JointHinge` | axis / – / – | rotation about X |
//! | `JointBall` | world axes | every rotation |
//! | `JointSlider` | axis / ⊥ / ⊥ | translation along X |
//! | `JointUniversal`, `JointHinge2` | axis / axis2 ⊥ X / X × Y | rotations about X and Y (no twist about Z) |
//! | `JointFixed` | body 2's frame | nothing |
//! | `JointPR` | axis2 / axis / X × Y | rotation about X, translation along Y |
//! | `JointPU` | axis / Z × X / axis2 | rotations about X and Y, translation along Z |
//! | `JointPiston` | axis / ⊥ / ⊥ | rotation about and translation along X |
//! | `JointPlanar` | axis (the normal) / ⊥ / ⊥ | translation along Y and Z, rotation about X |
//!
//! Rapier locks an angular axis by holding that component of the relative rotation's
//! quaternion at zero, so the two-rotation joints (universal, hinge2, PU) behave as
//! constant-velocity joints rather than ODE's cardan: docs/joints.md states the
//! difference, and how `erp` / `cfm` become the joint's softness ([`softness`]).

use rapier3d::prelude::*;

mod softness;

use super::probe::TO_RAPIER;
use crate::scene::{DEFAULT_DT_SECS, JointKind, JointModel, SceneError};

/// Damping gain of velocity motors. In rapier's acceleration-based motor model the
/// constraint's softness is `1 / (dt · gain)`: at 1 a motor barely turns a loaded wheel;
/// at 1000 (measured on the demo carts) it reaches its target within about half a
/// second, limited by `max_force`, like a DC motor with a speed controller.
pub(crate) const MOTOR_VELOCITY_GAIN: Real = 1000.0;

/// Two axes that must be perpendicular (the prismatic and rotation axes of `JointPR`,
/// the slide and first universal axis of `JointPU`) may be off by this cosine, about
/// 0.06°: rounding in a scene's computed axes. The small remainder is projected out.
const PERPENDICULAR_COS: f32 = 1e-3;

/// Two axes that must not be parallel (universal, hinge2) need at least this sine
/// between them, about 0.06°, for their common perpendicular to exist.
const NON_PARALLEL_SIN: f32 = 1e-3;

/// The rapier joint for `joint`, given the initial world poses of its two bodies.
///
/// # Errors
/// [`SceneError::NotFinite`] for a non-finite anchor or axis;
/// [`SceneError::Unsupported`] for a zero-length axis, axes a joint needs
/// non-parallel that are parallel, or axes it needs perpendicular that are not.
pub(crate) fn joint_of(joint: &JointModel, pose1: &Pose, pose2: &Pose) -> Result<GenericJoint, SceneError> {
    let vectors = Vectors { joint };
    let builder = match &joint.kind {
        JointKind::Hinge { anchor, axis, motor } => {
            let frame = frame_from_x(vectors.point(anchor)?, vectors.direction(axis, "axis")?);
            let mut builder = in_bodies(JointAxesMask::LOCKED_REVOLUTE_AXES, frame, pose1, pose2);
            if let Some(motor) = motor {
                builder = builder
                    .motor_velocity(JointAxis::AngX, TO_RAPIER * motor.target_velocity, MOTOR_VELOCITY_GAIN)
                    .motor_max_force(JointAxis::AngX, motor.max_force);
            }
            builder
        }
        JointKind::Ball { anchor } => {
            let frame = Pose::from_translation(vectors.point(anchor)?);
            in_bodies(JointAxesMask::LOCKED_SPHERICAL_AXES, frame, pose1, pose2)
        }
        JointKind::Slider { axis } => {
            // ODE's slider has no anchor: with every rotation locked, any point of body 2
            // on the axis line gives the same constraint. Its origin keeps lever arms short.
            let x = vectors.direction(axis, "axis")?;
            let frame = frame_from_x(pose2.translation, x);
            in_bodies(JointAxesMask::LOCKED_PRISMATIC_AXES, frame, pose1, pose2)
        }
        JointKind::Universal { anchor, axis, axis2 } | JointKind::Hinge2 { anchor, axis, axis2 } => {
            let anchor = vectors.point(anchor)?;
            let x = vectors.direction(axis, "axis")?;
            let y = vectors.non_parallel(x, vectors.direction(axis2, "axis2")?)?;
            let frame = frame_from_xy(anchor, x, y);
            in_bodies(JointAxesMask::LIN_AXES | JointAxesMask::ANG_Z, frame, pose1, pose2)
        }
        JointKind::Fixed => {
            GenericJointBuilder::new(JointAxesMask::LOCKED_FIXED_AXES).local_frame1(pose1.inverse() * *pose2)
        }
        JointKind::PrismaticRotoide { anchor, axis, axis2 } => {
            let anchor = vectors.point(anchor)?;
            let slide = vectors.direction(axis, "axis")?;
            let turn = vectors.direction(axis2, "axis2")?;
            let frame =
                frame_from_xy(anchor, turn, vectors.perpendicular(turn, slide, "axis2 (rotation)", "axis (slide)")?);
            let locked = JointAxesMask::LIN_X | JointAxesMask::LIN_Z | JointAxesMask::ANG_Y | JointAxesMask::ANG_Z;
            in_bodies(locked, frame, pose1, pose2)
        }
        JointKind::PrismaticUniversal { anchor, axis, axis2 } => {
            let anchor = vectors.point(anchor)?;
            let first = vectors.direction(axis, "axis")?;
            let slide = vectors.direction(axis2, "axis2")?;
            let x = vectors.perpendicular(slide, first, "axis2 (slide)", "axis (universal)")?;
            let frame = frame_from_xy(anchor, x, slide.cross(x));
            in_bodies(JointAxesMask::LIN_X | JointAxesMask::LIN_Y | JointAxesMask::ANG_Z, frame, pose1, pose2)
        }
        JointKind::Planar { anchor, axis } => {
            // X is the plane's normal: no sliding along it, no tilting out of the plane.
            let frame = frame_from_x(vectors.point(anchor)?, vectors.direction(axis, "axis")?);
            let locked = JointAxesMask::LIN_X | JointAxesMask::ANG_Y | JointAxesMask::ANG_Z;
            in_bodies(locked, frame, pose1, pose2)
        }
        JointKind::Piston { anchor, axis } => {
            let frame = frame_from_x(vectors.point(anchor)?, vectors.direction(axis, "axis")?);
            let locked = JointAxesMask::LIN_Y | JointAxesMask::LIN_Z | JointAxesMask::ANG_Y | JointAxesMask::ANG_Z;
            in_bodies(locked, frame, pose1, pose2)
        }
    };
    let builder = match softness::softness_of(joint.erp, joint.cfm, DEFAULT_DT_SECS as f32) {
        Some(spring) => builder.softness(spring),
        None => builder,
    };
    Ok(builder.contacts_enabled(joint.bodies_touch).build())
}

/// A joint locking `locked` about `frame_in_world`, expressed in both bodies.
fn in_bodies(locked: JointAxesMask, frame_in_world: Pose, pose1: &Pose, pose2: &Pose) -> GenericJointBuilder {
    GenericJointBuilder::new(locked)
        .local_frame1(pose1.inverse() * frame_in_world)
        .local_frame2(pose2.inverse() * frame_in_world)
}

/// A frame at `origin` whose X axis is the unit `x`; Y and Z complete it.
fn frame_from_x(origin: Vector, x: Vector) -> Pose {
    let (y, _) = x.any_orthonormal_pair();
    frame_from_xy(origin, x, y)
}

/// A frame at `origin` with the orthonormal axes `x`, `y` and `z = x × y`.
fn frame_from_xy(origin: Vector, x: Vector, y: Vector) -> Pose {
    let rotation = Rotation::from_mat3(&Mat3::from_cols(x, y, x.cross(y))).normalize();
    Pose::from_parts(origin, rotation)
}

/// Reads a joint's vectors, refusing the ones no joint frame can be built from.
struct Vectors<'a> {
    joint: &'a JointModel,
}

impl Vectors<'_> {
    fn point(&self, v: &[f32; 3]) -> Result<Vector, SceneError> {
        if v.iter().all(|x| x.is_finite()) {
            Ok(Vector::from_array(*v))
        } else {
            Err(SceneError::NotFinite(self.joint.name.clone()))
        }
    }

    fn direction(&self, v: &[f32; 3], which: &str) -> Result<Vector, SceneError> {
        let v = self.point(v)?;
        v.try_normalize().ok_or_else(|| self.unsupported(format!("a zero-length {which}")))
    }

    /// `v` made perpendicular to the unit `x`, normalised; refused when parallel to it.
    fn non_parallel(&self, x: Vector, v: Vector) -> Result<Vector, SceneError> {
        let rest = v - x * x.dot(v);
        if rest.length() < NON_PARALLEL_SIN {
            return Err(self.unsupported("parallel axis and axis2 (they must span a plane)".into()));
        }
        Ok(rest.normalize())
    }

    /// `v` made exactly perpendicular to the unit `x`; refused unless it nearly is.
    fn perpendicular(&self, x: Vector, v: Vector, x_name: &str, v_name: &str) -> Result<Vector, SceneError> {
        if x.dot(v).abs() > PERPENDICULAR_COS {
            return Err(self.unsupported(format!(
                "{x_name} and {v_name} at {:.1}° (rapier needs them perpendicular)",
                x.dot(v).clamp(-1.0, 1.0).acos().to_degrees()
            )));
        }
        Ok((v - x * x.dot(v)).normalize())
    }

    fn unsupported(&self, detail: String) -> SceneError {
        SceneError::Unsupported {
            name: self.joint.name.clone(),
            what: format!("{} with {detail}", self.joint.kind.language_name()),
        }
    }
}
