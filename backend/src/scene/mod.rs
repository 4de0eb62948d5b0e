//! The scene model: a lab's world as plain data (bodies, parts, joints, robots), before
//! and apart from any physics engine.
//!
//! `scene` knows nothing of rapier, axum or the network: a [`SceneModel`] is what a
//! scene description produces and what the simulation is built from, so the same model
//! can be checked, stored, compared in tests and rebuilt on reset.
//!
//! Conventions: right-handed, **Y up**, metres, kilograms, seconds, radians.
//! Rotations are unit quaternions `[x, y, z, w]`.

mod demo;
mod materials;

pub use demo::demo_scene;
pub use materials::Palette;

/// A rigid transform: where something is and how it is turned.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Translation, metres.
    pub position: [f32; 3],
    /// Unit quaternion `[x, y, z, w]`.
    pub rotation: [f32; 4],
}

impl Pose {
    /// No translation, no rotation.
    pub const IDENTITY: Pose = Pose { position: [0.0; 3], rotation: [0.0, 0.0, 0.0, 1.0] };

    /// A pure translation.
    pub fn at(position: [f32; 3]) -> Pose {
        Pose { position, rotation: Pose::IDENTITY.rotation }
    }

    /// A translation and a rotation of `angle_rad` about the unit `axis`.
    pub fn at_turned(position: [f32; 3], axis: [f32; 3], angle_rad: f32) -> Pose {
        let (sin, cos) = (angle_rad / 2.0).sin_cos();
        Pose { position, rotation: [axis[0] * sin, axis[1] * sin, axis[2] * sin, cos] }
    }
}

/// A primitive shape, centred on its part's origin.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// Half-extents along X, Y, Z.
    Box {
        /// Metres.
        half_extents: [f32; 3],
    },
    /// A ball.
    Sphere {
        /// Metres.
        radius: f32,
    },
    /// Axis along the local Z axis.
    Cylinder {
        /// Metres.
        radius: f32,
        /// Half the length along Z, metres.
        half_length: f32,
    },
    /// Axis along the local Z axis; `half_length` excludes the hemispherical caps.
    Capsule {
        /// Metres.
        radius: f32,
        /// Half the cylindrical length along Z, metres.
        half_length: f32,
    },
}

/// How a part looks (the physics ignores it).
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    /// Name in the material library.
    pub name: String,
    /// Base colour, sRGBA.
    pub color: [u8; 4],
    /// 0 = mirror, 1 = chalk.
    pub roughness: f32,
    /// 0 = dielectric, 1 = metal.
    pub metallic: f32,
}

/// One collider of a body, placed relative to the body.
#[derive(Clone, Debug, PartialEq)]
pub struct PartModel {
    /// Its shape.
    pub shape: Shape,
    /// Pose in the body's frame.
    pub local: Pose,
    /// Its look.
    pub material: Material,
    /// kg/m³; the body's mass is the sum over its parts.
    pub density: f32,
    /// Coulomb friction coefficient.
    pub friction: f32,
    /// Bounciness, 0..1.
    pub restitution: f32,
}

/// Whether the simulation moves a body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Motion {
    /// Moved by forces, contacts and joints.
    Dynamic,
    /// Never moves (floor, walls, `static` objects).
    Fixed,
}

/// A rigid body: one or more parts moving together.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyModel {
    /// Unique name in the lab.
    pub name: String,
    /// Dynamic or fixed.
    pub motion: Motion,
    /// Initial pose in the world.
    pub pose: Pose,
    /// Its colliders.
    pub parts: Vec<PartModel>,
    /// The robot it belongs to, if any.
    pub robot: Option<String>,
}

/// A motor driving a joint's free axis towards a velocity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotorModel {
    /// Target velocity, rad/s for hinges.
    pub target_velocity: f32,
    /// Largest torque (N·m) the motor may apply.
    pub max_force: f32,
}

/// What a joint allows.
#[derive(Clone, Debug, PartialEq)]
pub enum JointKind {
    /// Rotation about one axis through `anchor`; both in world coordinates at build time.
    Hinge {
        /// A point on the axis, world frame, metres.
        anchor: [f32; 3],
        /// The axis direction, world frame (need not be normalised).
        axis: [f32; 3],
        /// An optional motor on the axis.
        motor: Option<MotorModel>,
    },
}

/// A joint between two bodies of the model, referred to by index.
#[derive(Clone, Debug, PartialEq)]
pub struct JointModel {
    /// Unique name in the lab.
    pub name: String,
    /// Index of the first body in [`SceneModel::bodies`].
    pub body1: usize,
    /// Index of the second body.
    pub body2: usize,
    /// What it allows.
    pub kind: JointKind,
}

/// A robot: a named group of bodies with one main body whose pose is "the robot's".
#[derive(Clone, Debug, PartialEq)]
pub struct RobotModel {
    /// Unique name in the lab.
    pub name: String,
    /// Index of its main body in [`SceneModel::bodies`].
    pub main_body: usize,
}

/// A whole lab: the environment and everything in it.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneModel {
    /// Background colour, sRGB.
    pub sky: [u8; 3],
    /// Acceleration along Y, m/s² (negative = down).
    pub gravity_y: f32,
    /// Physics step, seconds.
    pub dt_secs: f64,
    /// Bodies, in insertion order.
    pub bodies: Vec<BodyModel>,
    /// Joints between them.
    pub joints: Vec<JointModel>,
    /// Robots made of them.
    pub robots: Vec<RobotModel>,
}

/// The default physics step: 240 Hz, fine enough for wheeled robots and stacking.
pub const DEFAULT_DT_SECS: f64 = 1.0 / 240.0;

impl SceneModel {
    /// An empty world with default physics.
    pub fn empty() -> SceneModel {
        SceneModel { sky: [24, 28, 36], gravity_y: -9.81, dt_secs: DEFAULT_DT_SECS, bodies: vec![], joints: vec![], robots: vec![] }
    }

    /// Checks the invariants the simulation relies on: unique names, joint and robot
    /// indices in range, positive sizes, finite numbers.
    pub fn validate(&self) -> Result<(), SceneError> {
        let mut names = std::collections::HashSet::new();
        for body in &self.bodies {
            if !names.insert(body.name.as_str()) {
                return Err(SceneError::DuplicateName(body.name.clone()));
            }
            if body.parts.is_empty() {
                return Err(SceneError::NoParts(body.name.clone()));
            }
            for part in &body.parts {
                if !part.shape.is_valid() {
                    return Err(SceneError::BadShape { body: body.name.clone(), shape: part.shape.clone() });
                }
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
            if robot.main_body >= self.bodies.len() {
                return Err(SceneError::MissingBody { joint: robot.name.clone(), index: robot.main_body });
            }
        }
        if !(self.dt_secs > 0.0 && self.dt_secs <= 0.1) {
            return Err(SceneError::BadStep(self.dt_secs));
        }
        Ok(())
    }
}

impl Shape {
    fn is_valid(&self) -> bool {
        let positive = |x: f32| x.is_finite() && x > 0.0;
        match *self {
            Shape::Box { half_extents } => half_extents.into_iter().all(positive),
            Shape::Sphere { radius } => positive(radius),
            Shape::Cylinder { radius, half_length } | Shape::Capsule { radius, half_length } => {
                positive(radius) && positive(half_length)
            }
        }
    }
}

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
    /// A joint or robot refers to a body index that does not exist.
    #[error("'{joint}' refers to body #{index}, which does not exist")]
    MissingBody {
        /// The joint or robot.
        joint: String,
        /// The bad index.
        index: usize,
    },
    /// A physics step outside (0, 0.1] s.
    #[error("the physics step must be in (0, 0.1] s, got {0}")]
    BadStep(f64),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ball(name: &str) -> BodyModel {
        BodyModel {
            name: name.into(),
            motion: Motion::Dynamic,
            pose: Pose::at([0.0, 1.0, 0.0]),
            parts: vec![PartModel {
                shape: Shape::Sphere { radius: 0.1 },
                local: Pose::IDENTITY,
                material: Palette::default().get("Red"),
                density: 1000.0,
                friction: 0.5,
                restitution: 0.1,
            }],
            robot: None,
        }
    }

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
    fn the_demo_scene_is_valid() {
        demo_scene(1).validate().unwrap();
    }
}
