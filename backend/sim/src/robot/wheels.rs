//! What a robot's joints mean for driving it: which way a wheel's joint turns to roll
//! the robot forward, and the wheel radius and track a differential drive or an
//! odometry sensor needs when its scene does not give them.
//!
//! Worked out once, from the model's initial poses, so a student may put a wheel's
//! hinge axis either way round and still have positive speeds roll forward.

use vlab_protocol::pose::{cross, dot, length, rotate, sub};

use super::frame::wide;
use crate::scene::{JointKind, SceneError, SceneModel, Shape};

/// A wheel on a joint, as a drive sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wheel {
    /// The joint's index in the model.
    pub joint: usize,
    /// +1 when a positive joint velocity rolls the robot forward, −1 otherwise.
    pub forward_sign: f64,
    /// The wheel's radius, if its shape tells (cylinder, sphere, capsule).
    pub radius: Option<f64>,
    /// The joint's anchor, world frame at build time.
    pub anchor: [f64; 3],
}

/// The wheel on joint `joint` of a robot whose main body is `main_body`.
pub fn wheel(model: &SceneModel, joint: usize, main_body: usize) -> Wheel {
    let joint_model = &model.joints[joint];
    let (anchor, axis) = match &joint_model.kind {
        JointKind::Hinge { anchor, axis, .. } | JointKind::Universal { anchor, axis, .. } => (*anchor, *axis),
        JointKind::Hinge2 { anchor, axis2, .. } => (*anchor, *axis2),
        JointKind::PrismaticRotoide { anchor, axis2, .. } => (*anchor, *axis2),
        _ => ([0.0; 3], [0.0, 0.0, 1.0]),
    };
    // A positive joint velocity turns body 1 relative to body 2 positively about the
    // axis (ODE's hinge rate, `sim::probe`); the wheel is the body that is not the chassis.
    let (wheel_body, turned) =
        if joint_model.body1 == main_body { (joint_model.body2, -1.0) } else { (joint_model.body1, 1.0) };
    let forward = rotate(wide(model.bodies[main_body].pose.rotation), [1.0, 0.0, 0.0]);
    // A wheel spinning by +ω about axis a rolls its centre at ω·r·(a × up).
    let rolling = dot(cross(wide(axis), [0.0, 1.0, 0.0]), forward);
    let forward_sign = if rolling * turned >= 0.0 { 1.0 } else { -1.0 };
    let radius = model.bodies[wheel_body].parts.first().and_then(|part| match part.shape {
        Shape::Cylinder { radius, .. } | Shape::Sphere { radius } | Shape::Capsule { radius, .. } => {
            Some(f64::from(radius))
        }
        Shape::Box { .. } | Shape::ConvexHull { .. } => None,
    });
    Wheel { joint, forward_sign, radius, anchor: wide(anchor) }
}

/// The wheel radius and track of a drive on wheels `left` and `right`: the scene's
/// values when it gives them, else measured from the wheels.
pub fn geometry(
    device: &str,
    left: &Wheel,
    right: &Wheel,
    wheel_radius: Option<f64>,
    track: Option<f64>,
) -> Result<super::kinematics::DiffDriveGeometry, SceneError> {
    let radius = wheel_radius.or(left.radius).ok_or_else(|| SceneError::Unsupported {
        name: device.to_owned(),
        what: "a drive whose wheel radius cannot be measured (the wheel is not round): set wheel_radius".into(),
    })?;
    let measured_track = length(sub(left.anchor, right.anchor));
    let track = track.unwrap_or(measured_track);
    if !(radius > 0.0 && track > 0.0 && radius.is_finite() && track.is_finite()) {
        return Err(SceneError::Unsupported {
            name: device.to_owned(),
            what: format!("a drive with wheel radius {radius} m and track {track} m (both must be positive)"),
        });
    }
    Ok(super::kinematics::DiffDriveGeometry { wheel_radius: radius, track })
}
