//! The invariants the simulation relies on, checked on a whole model.

use std::collections::HashSet;

use super::{Mount, SceneModel, Shape};

/// Why a scene model cannot be simulated.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SceneError {
    /// Two elements share a name.
    #[error("the name '{0}' is used twice")]
    DuplicateName(String),
    /// A body without colliders.
    #[error("body '{0}' has no parts")]
    NoParts(String),
    /// A non-positive or non-finite size.
    #[error("body '{body}' has an invalid shape {shape:?}: sizes must be positive")]
    BadShape {
        /// The body.
        body: String,
        /// The offending shape.
        shape: Shape,
    },
    /// A joint, robot or device refers to a body or joint index that does not exist.
    #[error("'{joint}' refers to body #{index}, which does not exist")]
    MissingBody {
        /// The joint, robot or device.
        joint: String,
        /// The bad index.
        index: usize,
    },
    /// A physics step outside (0, 0.1] s.
    #[error("the physics step must be in (0, 0.1] s, got {0}")]
    BadStep(f64),
    /// A non-finite number where the simulation needs a finite one.
    #[error("'{0}' has a position, rotation or parameter that is not a finite number")]
    NotFinite(String),
    /// An inserted element has the name of one already in the lab.
    #[error("an element named '{0}' is already in this lab: choose another name")]
    NameTaken(String),
    /// A second environment for a lab that has one.
    #[error(
        "this lab already has an environment; to replace the whole scene, the instructor resets the lab with a new one"
    )]
    EnvironmentAlreadySet,
    /// A second challenge for a lab that has one.
    #[error("this lab already has a challenge; to set another, the instructor resets the lab with a new scene")]
    ChallengeAlreadySet,
    /// The model is valid but the simulation cannot build part of it (yet).
    #[error("'{name}': {what} is not supported by the simulation yet")]
    Unsupported {
        /// The element.
        name: String,
        /// What is missing.
        what: String,
    },
}

impl SceneModel {
    /// Checks the invariants the simulation relies on: unique names, joint, robot and
    /// device indices in range, positive sizes, finite numbers.
    pub fn validate(&self) -> Result<(), SceneError> {
        let finite = |xs: &[f32]| xs.iter().all(|x| x.is_finite());
        let mut names = HashSet::new();
        for body in &self.bodies {
            if !names.insert(body.name.as_str()) {
                return Err(SceneError::DuplicateName(body.name.clone()));
            }
            if body.parts.is_empty() {
                return Err(SceneError::NoParts(body.name.clone()));
            }
            if !finite(&body.pose.position) || !finite(&body.pose.rotation) {
                return Err(SceneError::NotFinite(body.name.clone()));
            }
            for part in &body.parts {
                if !part.shape.is_valid() {
                    return Err(SceneError::BadShape { body: body.name.clone(), shape: part.shape.clone() });
                }
                if let Some(name) = &part.name
                    && !names.insert(name.as_str())
                {
                    return Err(SceneError::DuplicateName(name.clone()));
                }
            }
        }
        for group in &self.groups {
            if !names.insert(group.name.as_str()) {
                return Err(SceneError::DuplicateName(group.name.clone()));
            }
        }
        for joint in &self.joints {
            if !names.insert(joint.name.as_str()) {
                return Err(SceneError::DuplicateName(joint.name.clone()));
            }
            for index in [joint.body1, joint.body2] {
                if index >= self.bodies.len() {
                    return Err(SceneError::MissingBody { joint: joint.name.clone(), index });
                }
            }
        }
        for robot in &self.robots {
            if !names.insert(robot.name.as_str()) {
                return Err(SceneError::DuplicateName(robot.name.clone()));
            }
            if robot.main_body >= self.bodies.len() {
                return Err(SceneError::MissingBody { joint: robot.name.clone(), index: robot.main_body });
            }
        }
        let mut device_names = HashSet::new();
        for device in self.sensors.iter().chain(&self.actuators).chain(&self.beacons) {
            if !device_names.insert((device.robot.as_deref(), device.name.as_str())) {
                return Err(SceneError::DuplicateName(device.name.clone()));
            }
            let index = match device.mount {
                Mount::Body(i) if i >= self.bodies.len() => i,
                Mount::Joint(i) if i >= self.joints.len() => i,
                _ => continue,
            };
            return Err(SceneError::MissingBody { joint: device.name.clone(), index });
        }
        if !(self.dt_secs > 0.0 && self.dt_secs <= 0.1) {
            return Err(SceneError::BadStep(self.dt_secs));
        }
        Ok(())
    }
}

impl Shape {
    /// Whether every size is finite and positive.
    pub fn is_valid(&self) -> bool {
        let positive = |x: f32| x.is_finite() && x > 0.0;
        match *self {
            Shape::Box { half_extents } => half_extents.into_iter().all(positive),
            Shape::Sphere { radius } => positive(radius),
            Shape::Cylinder { radius, half_length } | Shape::Capsule { radius, half_length } => {
                positive(radius) && positive(half_length)
            }
            Shape::ConvexHull { ref points } => {
                (4..=super::MAX_HULL_POINTS).contains(&points.len())
                    && points.iter().flatten().all(|c| c.is_finite() && c.abs() <= super::MAX_MAGNITUDE as f32)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::ball;
    use super::super::*;

    #[test]
    fn duplicate_names_are_rejected() {
        let mut scene = SceneModel::empty();
        scene.bodies = vec![ball("a"), ball("a")];
        assert_eq!(scene.validate(), Err(SceneError::DuplicateName("a".into())));
    }

    #[test]
    fn joints_to_missing_bodies_are_rejected() {
        let mut scene = SceneModel::empty();
        scene.bodies = vec![ball("a")];
        scene.joints = vec![JointModel {
            name: "j".into(),
            body1: 0,
            body2: 3,
            kind: JointKind::Hinge { anchor: [0.0; 3], axis: [1.0, 0.0, 0.0], motor: None },
            erp: None,
            cfm: None,
            limits: None,
            bodies_touch: true,
        }];
        assert!(matches!(scene.validate(), Err(SceneError::MissingBody { index: 3, .. })));
    }

    #[test]
    fn non_positive_sizes_are_rejected() {
        let mut scene = SceneModel::empty();
        let mut bad = ball("a");
        bad.parts[0].shape = Shape::Box { half_extents: [1.0, 0.0, 1.0] };
        scene.bodies = vec![bad];
        assert!(matches!(scene.validate(), Err(SceneError::BadShape { .. })));
    }

    #[test]
    fn devices_on_missing_joints_are_rejected() {
        let mut scene = SceneModel::empty();
        scene.bodies = vec![ball("a")];
        scene.sensors.push(DeviceModel {
            name: "enc".into(),
            kind: "Encoder".into(),
            robot: None,
            mount: Mount::Joint(0),
            params: vec![],
        });
        assert!(matches!(scene.validate(), Err(SceneError::MissingBody { index: 0, .. })));
    }
}
