//! The physics of one lab: builds a rapier world from a [`SceneModel`] and steps it.
//!
//! `sim` knows nothing of the network, of clocks or of participants: it turns a model
//! into bodies, colliders and joints, advances them by one fixed step at a time, and
//! reports poses. Only the lab's own thread owns a [`World`].
//!
//! Conversions between the scene's plain arrays and rapier's glam types live here.

use rapier3d::prelude::*;

use crate::scene::{self, JointKind, Motion, SceneError, SceneModel, Shape};

/// Index of a body in the scene model, and in every list derived from it.
pub type BodyIndex = usize;

/// A lab's physics world, built from a scene model.
///
/// # Invariants
/// `bodies[i]` is the rapier body of `model.bodies[i]`; the order never changes.
pub struct World {
    physics: PhysicsWorld,
    bodies: Vec<RigidBodyHandle>,
    fixed: Vec<bool>,
    joints: Vec<ImpulseJointHandle>,
}

impl World {
    /// Builds the world of `model`. Validates the model first: a model that fails
    /// validation builds nothing.
    pub fn build(model: &SceneModel) -> Result<World, SceneError> {
        model.validate()?;
        let mut physics = PhysicsWorld::new();
        physics.gravity = Vector::new(0.0, model.gravity_y, 0.0);
        physics.integration_parameters.dt = model.dt_secs as Real;
        let mut bodies = Vec::with_capacity(model.bodies.len());
        let mut fixed = Vec::with_capacity(model.bodies.len());
        for body in &model.bodies {
            let builder = match body.motion {
                Motion::Dynamic => RigidBodyBuilder::dynamic(),
                Motion::Fixed => RigidBodyBuilder::fixed(),
            };
            let handle = physics.insert_body(builder.pose(to_pose(&body.pose)));
            for part in &body.parts {
                let collider = collider_of(part);
                physics.insert_collider(collider, Some(handle));
            }
            bodies.push(handle);
            fixed.push(body.motion == Motion::Fixed);
        }
        let mut joints = Vec::with_capacity(model.joints.len());
        for joint in &model.joints {
            let (b1, b2) = (bodies[joint.body1], bodies[joint.body2]);
            let pose1 = *physics.bodies[b1].position();
            let pose2 = *physics.bodies[b2].position();
            let generic = match &joint.kind {
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
                    builder.build()
                }
                // The scene language models every joint of the spec; their physics
                // mapping is a later step. Refuse clearly rather than build a world that
                // silently lacks a joint.
                other => {
                    return Err(SceneError::Unsupported {
                        name: joint.name.clone(),
                        what: format!("the joint type {}", other.language_name()),
                    });
                }
            };
            joints.push(physics.insert_impulse_joint(b1, b2, generic));
        }
        Ok(World { physics, bodies, fixed, joints })
    }

    /// Advances the world by one fixed step.
    pub fn step(&mut self) {
        self.physics.step();
    }

    /// How many bodies the world holds.
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// Whether the body never moves.
    pub fn is_fixed(&self, index: BodyIndex) -> bool {
        self.fixed[index]
    }

    /// Whether the body is asleep (at rest, skipped by the solver).
    pub fn is_sleeping(&self, index: BodyIndex) -> bool {
        self.physics.bodies[self.bodies[index]].is_sleeping()
    }

    /// The current world pose of a body.
    pub fn pose(&self, index: BodyIndex) -> scene::Pose {
        from_pose(self.physics.bodies[self.bodies[index]].position())
    }

    /// The linear velocity of a body, m/s.
    pub fn linear_velocity(&self, index: BodyIndex) -> [f32; 3] {
        self.physics.bodies[self.bodies[index]].linvel().to_array()
    }

    /// Sets the target velocity of a joint's motor (rad/s for hinges), waking the
    /// bodies it connects.
    pub fn set_motor_velocity(&mut self, joint: usize, target_velocity: f32) {
        if let Some(joint) = self.physics.impulse_joints.get_mut(self.joints[joint], true) {
            joint.data.set_motor_velocity(JointAxis::AngX, target_velocity, MOTOR_VELOCITY_GAIN);
        }
    }
}

/// Damping gain of velocity motors. In rapier's acceleration-based motor model the
/// constraint's softness is `1 / (dt · gain)`: at 1 a motor barely turns a loaded wheel;
/// at 1000 (measured on the demo carts) it reaches its target within about half a
/// second, limited by `max_force`, like a DC motor with a speed controller.
const MOTOR_VELOCITY_GAIN: Real = 1000.0;

fn collider_of(part: &scene::PartModel) -> ColliderBuilder {
    // Rapier's cylinders and capsules run along Y; ours along local Z: turn them
    // a quarter about X (Y → Z) inside the part.
    let y_to_z = Rotation::from_rotation_x(std::f32::consts::FRAC_PI_2);
    let (builder, extra_rotation) = match part.shape {
        Shape::Box { half_extents: [x, y, z] } => (ColliderBuilder::cuboid(x, y, z), None),
        Shape::Sphere { radius } => (ColliderBuilder::ball(radius), None),
        Shape::Cylinder { radius, half_length } => (ColliderBuilder::cylinder(half_length, radius), Some(y_to_z)),
        Shape::Capsule { radius, half_length } => (ColliderBuilder::capsule_y(half_length, radius), Some(y_to_z)),
    };
    let mut local = to_pose(&part.local);
    if let Some(turn) = extra_rotation {
        local.rotation = (local.rotation * turn).normalize();
    }
    builder
        .position(local)
        .density(part.density.max(1e-3))
        .friction(part.friction)
        .restitution(part.restitution)
}

fn to_pose(pose: &scene::Pose) -> Pose {
    let [x, y, z, w] = pose.rotation;
    Pose::from_parts(Vector::from_array(pose.position), Rotation::from_xyzw(x, y, z, w).normalize())
}

fn from_pose(pose: &Pose) -> scene::Pose {
    scene::Pose { position: pose.translation.to_array(), rotation: pose.rotation.to_array() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::demo_scene;

    #[test]
    fn a_dropped_ball_falls_and_rests_on_the_floor() {
        let mut world = World::build(&demo_scene(3)).unwrap();
        // prop_01 is a sphere (props cycle box, sphere, cylinder).
        let ball = 5 + 1;
        let start = world.pose(ball).position[1];
        for _ in 0..(240 * 6) {
            world.step();
        }
        let end = world.pose(ball).position[1];
        assert!(end < start, "the ball did not fall: {start} -> {end}");
        assert!(end > 0.0, "the ball went through the floor: y = {end}");
    }

    #[test]
    fn cylinders_lie_along_local_z() {
        let mut model = SceneModel::empty();
        model.bodies = demo_scene(1).bodies.into_iter().take(1).collect(); // the floor
        let mut wheel = model.bodies[0].clone();
        wheel.name = "wheel".into();
        wheel.motion = Motion::Dynamic;
        wheel.pose = scene::Pose::at([6.0, 0.5, 6.0]);
        wheel.parts[0].shape = Shape::Cylinder { radius: 0.2, half_length: 0.05 };
        wheel.parts[0].density = 500.0;
        model.bodies.push(wheel);
        let mut world = World::build(&model).unwrap();
        for _ in 0..480 {
            world.step();
        }
        // A disc whose axis is horizontal (Z) lands on its rim, centre at its radius
        // — or rolls over onto a face and lies at half its width. Along Y it would
        // stand on its face.
        let y = world.pose(1).position[1];
        assert!((y - 0.2).abs() < 0.02 || (y - 0.05).abs() < 0.02, "centre at y = {y}");
    }

    #[test]
    fn the_demo_robots_keep_driving() {
        let model = demo_scene(1);
        let chassis = model.robots[0].main_body;
        let mut world = World::build(&model).unwrap();
        let mut travelled = 0.0;
        let mut previous = world.pose(chassis).position;
        for step in 0..(240 * 8) {
            world.step();
            if step % 24 == 0 {
                let now = world.pose(chassis).position;
                travelled += ((now[0] - previous[0]).powi(2) + (now[2] - previous[2]).powi(2)).sqrt();
                previous = now;
            }
        }
        assert!(travelled > 1.0, "the robot only travelled {travelled} m in 8 s");
        assert!(!world.is_sleeping(chassis));
    }

    #[test]
    fn the_same_model_gives_the_same_trajectory() {
        let model = demo_scene(5);
        let run = || {
            let mut world = World::build(&model).unwrap();
            for _ in 0..600 {
                world.step();
            }
            (0..world.body_count()).map(|i| world.pose(i)).collect::<Vec<_>>()
        };
        assert_eq!(run(), run());
    }

    #[test]
    fn joint_types_without_a_physics_mapping_are_refused_clearly() {
        let mut model = demo_scene(1);
        model.joints[0].kind = scene::JointKind::Ball { anchor: [0.0; 3] };
        let error = World::build(&model).err().expect("a ball joint is not built yet");
        assert!(error.to_string().contains("JointBall"), "{error}");
    }

    #[test]
    fn an_invalid_model_builds_nothing() {
        let mut model = demo_scene(1);
        model.bodies[3].name = model.bodies[2].name.clone();
        assert!(World::build(&model).is_err());
    }
}
