//! The physics of one lab: builds a rapier world from a [`SceneModel`] and steps it.
//!
//! `sim` knows nothing of the network, of clocks or of participants: it turns a model
//! into bodies, colliders and joints, advances them by one fixed step at a time, and
//! reports poses. Only the lab's own thread owns a [`World`].
//!
//! Conversions between the scene's plain arrays and rapier's glam types live here.

use rapier3d::prelude::*;

mod fan;
mod joints;
mod probe;
mod ray_hit;
mod sight;
mod solids;

pub use self::fan::Fan;
use self::probe::ColliderTag;
pub use self::probe::{Contacts, JointCoordinate, JointDrive, RayFilter};
pub use self::sight::Sight;
pub use self::solids::{Overlap, Solids};
use crate::scene::{self, JointKind, JointModel, Motion, SceneError, SceneModel, Shape};

/// Index of a body in the scene model, and in every list derived from it.
pub type BodyIndex = usize;

/// Angular damping of every dynamic body, 1/s. Rapier (like ODE, which the original
/// VLAB used) has no rolling resistance, so a ball or a cylinder on its side would roll
/// forever; this small damping stands in for it (a ball's spin halves in about 2 s)
/// and lets props come to rest. Motors overcome it without noticing.
const ROLLING_DAMPING: Real = 0.3;

/// A lab's physics world, built from a scene model.
///
/// # Invariants
/// `bodies[i]` is the rapier body of `model.bodies[i]`; the order never changes.
pub struct World {
    physics: PhysicsWorld,
    bodies: Vec<RigidBodyHandle>,
    fixed: Vec<bool>,
    joints: Vec<ImpulseJointHandle>,
    /// What each joint allows, indexed like `joints`.
    joint_models: Vec<JointKind>,
    /// How many robots the world's colliders are tagged with.
    robots: u32,
    /// Whether colliders were added since the last step (the query index lacks them).
    queries_stale: bool,
    /// The environment's `erp` and `cfm`: the softness of joints that set none.
    environment_softness: (Option<f32>, Option<f32>),
}

/// A copy that steps on exactly as this world would (a rewind's checkpoint): the bodies,
/// colliders, joints, islands and both collision phases are copied as they are; the
/// pipelines hold only scratch space between steps (rapier's own note), so the copy's
/// start afresh.
impl Clone for World {
    fn clone(&self) -> World {
        let physics = &self.physics;
        let physics = PhysicsWorld {
            gravity: physics.gravity,
            integration_parameters: physics.integration_parameters,
            islands: physics.islands.clone(),
            broad_phase: physics.broad_phase.clone(),
            narrow_phase: physics.narrow_phase.clone(),
            bodies: physics.bodies.clone(),
            colliders: physics.colliders.clone(),
            impulse_joints: physics.impulse_joints.clone(),
            multibody_joints: physics.multibody_joints.clone(),
            soft_bodies: physics.soft_bodies.clone(),
            ..PhysicsWorld::default()
        };
        World {
            physics,
            bodies: self.bodies.clone(),
            fixed: self.fixed.clone(),
            joints: self.joints.clone(),
            joint_models: self.joint_models.clone(),
            robots: self.robots,
            queries_stale: self.queries_stale,
            environment_softness: self.environment_softness,
        }
    }
}

impl World {
    /// Builds the world of `model`. Validates the model first: a model that fails
    /// validation builds nothing.
    pub fn build(model: &SceneModel) -> Result<World, SceneError> {
        model.validate()?;
        let mut world = World::empty(model.gravity_y, model.dt_secs);
        world.insert(model)?;
        Ok(world)
    }

    /// A world with nothing in it.
    pub fn empty(gravity_y: f32, dt_secs: f64) -> World {
        let mut physics = PhysicsWorld::new();
        physics.gravity = Vector::new(0.0, gravity_y, 0.0);
        physics.integration_parameters.dt = dt_secs as Real;
        World {
            physics,
            bodies: Vec::new(),
            fixed: Vec::new(),
            joints: Vec::new(),
            joint_models: Vec::new(),
            robots: 0,
            queries_stale: false,
            environment_softness: (None, None),
        }
    }

    /// Adds everything of `addition` (a model whose indices count from 0) after the
    /// bodies and joints already here, atomically: every joint is prepared before
    /// anything is inserted, so an addition that cannot be simulated changes nothing.
    /// The caller has validated `addition` against the lab (unique names).
    pub fn insert(&mut self, addition: &SceneModel) -> Result<(), SceneError> {
        let environment_softness = match &addition.environment {
            Some(environment) => (environment.erp, environment.cfm),
            None => self.environment_softness,
        };
        let prepared: Vec<GenericJoint> = addition
            .joints
            .iter()
            .map(|joint| {
                let pose1 = to_pose(&addition.bodies[joint.body1].pose);
                let pose2 = to_pose(&addition.bodies[joint.body2].pose);
                // A joint without its own erp/cfm takes the environment's.
                let joint = JointModel {
                    erp: joint.erp.or(environment_softness.0),
                    cfm: joint.cfm.or(environment_softness.1),
                    ..joint.clone()
                };
                joints::joint_of(&joint, &pose1, &pose2)
            })
            .collect::<Result<_, _>>()?;
        self.environment_softness = environment_softness;
        let first_body = self.bodies.len();
        for body in &addition.bodies {
            let builder = match body.motion {
                Motion::Dynamic => RigidBodyBuilder::dynamic().angular_damping(ROLLING_DAMPING),
                Motion::Fixed => RigidBodyBuilder::fixed(),
            };
            let handle = self.physics.insert_body(builder.pose(to_pose(&body.pose)));
            let robot = body
                .robot
                .as_ref()
                .and_then(|name| addition.robots.iter().position(|r| &r.name == name))
                .map(|local| self.robots + local as u32);
            for part in &body.parts {
                let [r, g, b, _] = part.material.color;
                let tag = ColliderTag { robot, transparent: part.material.transparent, color: [r, g, b] };
                self.physics.insert_collider(collider_of(part).user_data(tag.pack()), Some(handle));
            }
            self.bodies.push(handle);
            self.fixed.push(body.motion == Motion::Fixed);
        }
        for (joint, generic) in addition.joints.iter().zip(prepared) {
            let (b1, b2) = (self.bodies[first_body + joint.body1], self.bodies[first_body + joint.body2]);
            self.joints.push(self.physics.insert_impulse_joint(b1, b2, generic));
            self.joint_models.push(joint.kind.clone());
            if let Some([lower, upper]) = joint.limits {
                self.limit_joint(self.joints.len() - 1, lower, upper);
            }
        }
        self.robots += addition.robots.len() as u32;
        // The engine indexes new colliders for queries during the next step; until then
        // rays go through every collider (sensors read right after an insertion).
        self.queries_stale = true;
        Ok(())
    }

    /// The world of `model` (this world's model with elements taken out, renumbered by
    /// `moved`), every remaining body where and as fast as it is here.
    pub fn rebuilt_without(&self, model: &SceneModel, moved: &scene::Renumbering) -> Result<World, SceneError> {
        let mut world = World::build(model)?;
        world.set_gravity_y(self.physics.gravity.y);
        for (old, new) in moved.bodies.iter().enumerate() {
            if let Some(new) = *new {
                let (linear, angular) = self.velocities(old);
                world.set_body_state(new, &self.pose(old), linear, angular);
            }
        }
        Ok(world)
    }

    /// Puts body `index` at `pose` moving at the given velocities, and wakes it.
    pub fn set_body_state(&mut self, index: BodyIndex, pose: &scene::Pose, linear: [f32; 3], angular: [f32; 3]) {
        let body = &mut self.physics.bodies[self.bodies[index]];
        body.set_position(to_pose(pose), true);
        body.set_linvel(Vector::from_array(linear), true);
        body.set_angvel(Vector::from_array(angular), true);
        self.queries_stale = true;
    }

    /// Moves bodies `indices` rigidly, as one: the body `pivot` (one of them) ends at
    /// `position`, turned by `turn` radians about the vertical; all of them stop.
    pub fn move_rigidly(&mut self, indices: &[BodyIndex], pivot: BodyIndex, position: [f32; 3], turn: f32) {
        for (index, pose) in indices.iter().zip(self.moved_rigidly(indices, pivot, position, turn)) {
            self.set_body_state(*index, &pose, [0.0; 3], [0.0; 3]);
        }
    }

    /// Where [`World::move_rigidly`] would put bodies `indices`, in their order,
    /// without moving them.
    pub fn moved_rigidly(
        &self,
        indices: &[BodyIndex],
        pivot: BodyIndex,
        position: [f32; 3],
        turn: f32,
    ) -> Vec<scene::Pose> {
        let poses: Vec<Pose> =
            indices.iter().map(|&index| *self.physics.bodies[self.bodies[index]].position()).collect();
        let pivot = indices.iter().position(|&index| index == pivot).expect("the pivot is one of the bodies moved");
        rigid_move(&poses, pivot, position, turn).iter().map(from_pose).collect()
    }

    /// Gives fixed body `index` the parts and pose of `body` (the environment's floor or
    /// a wall, when the room changes): its colliders are made again, every body wakes
    /// (what rested on the old floor settles on the new one), and rays see the new
    /// shapes at once.
    pub fn reshape_fixed(&mut self, index: BodyIndex, body: &scene::BodyModel) {
        let handle = self.bodies[index];
        let old: Vec<ColliderHandle> = self.physics.bodies[handle].colliders().to_vec();
        let tag = old.first().and_then(|c| self.physics.colliders.get(*c)).map(|c| ColliderTag::unpack(c.user_data));
        for collider in old {
            self.physics.remove_collider(collider);
        }
        // Moved first, so the new colliders are placed from the new pose at once.
        self.physics.bodies[handle].set_position(to_pose(&body.pose), true);
        for part in &body.parts {
            let [r, g, b, _] = part.material.color;
            let robot = tag.and_then(|tag| tag.robot);
            let tag = ColliderTag { robot, transparent: part.material.transparent, color: [r, g, b] };
            self.physics.insert_collider(collider_of(part).user_data(tag.pack()), Some(handle));
        }
        self.physics.wake_up_all(true);
        self.queries_stale = true;
    }

    /// Changes gravity along Y (an environment inserted into an empty lab sets it).
    pub fn set_gravity_y(&mut self, gravity_y: f32) {
        self.physics.gravity = Vector::new(0.0, gravity_y, 0.0);
    }

    /// Advances the world by one fixed step.
    pub fn step(&mut self) {
        self.physics.step();
        self.queries_stale = false;
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

    /// Whether every body is asleep (or fixed): until something wakes one (a command
    /// to a joint, a body moved, an insertion), a step changes nothing.
    pub fn all_asleep(&self) -> bool {
        self.physics.islands.active_bodies().next().is_none()
    }

    /// The current world pose of a body.
    pub fn pose(&self, index: BodyIndex) -> scene::Pose {
        from_pose(self.physics.bodies[self.bodies[index]].position())
    }

    /// Joint `joint`'s frame in each of its two bodies (rapier's local frames, as the
    /// table of `sim::joints` chooses them), `None` for a joint the world does not have.
    pub fn joint_frames(&self, joint: usize) -> Option<(scene::Pose, scene::Pose)> {
        let joint = self.physics.impulse_joints.get(*self.joints.get(joint)?)?;
        Some((from_pose(&joint.data.local_frame1), from_pose(&joint.data.local_frame2)))
    }

    /// The linear velocity of a body, m/s.
    pub fn linear_velocity(&self, index: BodyIndex) -> [f32; 3] {
        self.physics.bodies[self.bodies[index]].linvel().to_array()
    }

    /// Sets the target velocity of a joint's motor (rad/s for hinges, body 1 relative
    /// to body 2 as `sim::probe` says), waking the bodies it connects.
    pub fn set_motor_velocity(&mut self, joint: usize, target_velocity: f32) {
        if let Some(joint) = self.physics.impulse_joints.get_mut(self.joints[joint], true) {
            let target = probe::TO_RAPIER * target_velocity;
            joint.data.set_motor_velocity(JointAxis::AngX, target, joints::MOTOR_VELOCITY_GAIN);
        }
    }
}

fn collider_of(part: &scene::PartModel) -> ColliderBuilder {
    // Rapier's cylinders and capsules run along Y; ours along local Z: turn them
    // a quarter about X (Y → Z) inside the part.
    let y_to_z = Rotation::from_rotation_x(std::f32::consts::FRAC_PI_2);
    let (builder, extra_rotation) = match part.shape {
        Shape::Box { half_extents: [x, y, z] } => (ColliderBuilder::cuboid(x, y, z), None),
        Shape::Sphere { radius } => (ColliderBuilder::ball(radius), None),
        Shape::Cylinder { radius, half_length } => (ColliderBuilder::cylinder(half_length, radius), Some(y_to_z)),
        Shape::Capsule { radius, half_length } => (ColliderBuilder::capsule_y(half_length, radius), Some(y_to_z)),
        Shape::ConvexHull { ref points } => {
            let points: Vec<Vector> = points.iter().map(|p| Vector::from_array(*p)).collect();
            // Flat or degenerate points have no hull: their box is used.
            let hull = ColliderBuilder::convex_hull(&points).unwrap_or_else(|| {
                let (min, max) = points.iter().fold((points[0], points[0]), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
                let half = ((max - min) / 2.0).max(Vector::splat(1e-4));
                ColliderBuilder::cuboid(half.x, half.y, half.z).translation((min + max) / 2.0)
            });
            (hull, None)
        }
    };
    let mut local = to_pose(&part.local);
    if let Some(turn) = extra_rotation {
        local.rotation = (local.rotation * turn).normalize();
    }
    // A drawn-only part (a URDF visual apart from the collision shapes) is a sensor
    // collider: no contacts, and rays pass it by.
    builder
        .position(local)
        .density(part.density.max(1e-3))
        .friction(part.friction)
        .restitution(part.restitution)
        .sensor(part.drawn_only)
}

/// `poses` moved as one rigid piece so that `poses[pivot]` is at `position`, turned by
/// `turn` radians about the vertical: where a robot's start poses go when its start is
/// moved, as [`World::moved_rigidly`] does with where its bodies are now.
pub fn rigidly_moved(poses: &[scene::Pose], pivot: usize, position: [f32; 3], turn: f32) -> Vec<scene::Pose> {
    let poses: Vec<Pose> = poses.iter().map(to_pose).collect();
    rigid_move(&poses, pivot, position, turn).iter().map(from_pose).collect()
}

fn rigid_move(poses: &[Pose], pivot: usize, position: [f32; 3], turn: f32) -> Vec<Pose> {
    let delta = Pose::from_parts(Vector::from_array(position), Rotation::from_rotation_y(turn))
        * Pose::from_translation(-poses[pivot].translation);
    poses.iter().map(|pose| delta * *pose).collect()
}

pub(crate) fn to_pose(pose: &scene::Pose) -> Pose {
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
    fn a_reshaped_wall_stands_where_the_changed_room_has_it_for_rays_and_bodies() {
        let source = "environment room { width 6; length 6; height 2; }\n\
                      ball { shape sphere(0.2); pos(3, 0.2, 3); }";
        let options = crate::scene::Options::default();
        let model =
            crate::scene::interpret(source, "room.vlab", &crate::scene::MapLoader::new(), &options).unwrap().model;
        let mut world = World::build(&model).unwrap();
        let east = |world: &World| world.cast_ray([3.0, 1.0, 3.0], [1.0, 0.0, 0.0], 50.0, RayFilter::default());
        let up = |world: &World| world.cast_ray([3.0, 1.0, 3.0], [0.0, 1.0, 0.0], 50.0, RayFilter::default());
        for _ in 0..10 {
            world.step();
        }
        assert!((east(&world).unwrap() - 3.0).abs() < 1e-4);
        let change = serde_json::from_str(r#"{"width": 10, "height": 3}"#).unwrap();
        let changed = model.with_room(&change, &crate::scene::Palette::default()).unwrap();
        for index in changed.environment_body_indices() {
            world.reshape_fixed(index, &changed.bodies[index]);
        }
        // At once (before the query index knows), then after a step, as a world built so.
        assert!((east(&world).unwrap() - 7.0).abs() < 1e-4, "{:?}", east(&world));
        assert!((up(&world).unwrap() - 2.0).abs() < 1e-4, "{:?}", up(&world));
        world.step();
        let built = World::build(&changed).unwrap();
        assert_eq!((east(&world), up(&world)), (east(&built), up(&built)));
        // Pushed east, the ball stops at the new wall, not at the old one.
        let ball = changed.body_index("ball").unwrap();
        world.set_body_state(ball, &world.pose(ball), [4.0, 0.0, 0.0], [0.0; 3]);
        for _ in 0..(240 * 4) {
            world.step();
        }
        let x = world.pose(ball).position[0];
        assert!(x > 6.5 && x <= 9.8 + 1e-3, "the ball went past the old wall and stopped at the new one: x = {x}");
    }

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
    fn joints_the_engine_cannot_represent_are_refused_clearly() {
        // Every joint type is mapped (tests/joints_physics.rs); what remains are axes a
        // rapier joint frame cannot hold: a PR joint whose slide and rotation axes are
        // not perpendicular, a universal joint whose two axes are parallel.
        let mut model = demo_scene(1);
        model.joints[0].kind =
            scene::JointKind::PrismaticRotoide { anchor: [0.0; 3], axis: [1.0, 0.0, 0.0], axis2: [1.0, 1.0, 0.0] };
        let error = World::build(&model).err().expect("a PR joint with axes at 45° cannot be built");
        assert!(matches!(error, SceneError::Unsupported { .. }), "{error}");
        assert!(error.to_string().contains("JointPR") && error.to_string().contains("45.0°"), "{error}");
        model.joints[0].kind =
            scene::JointKind::Universal { anchor: [0.0; 3], axis: [0.0, 0.0, 1.0], axis2: [0.0, 0.0, -2.0] };
        let error = World::build(&model).err().expect("a universal joint with parallel axes cannot be built");
        assert!(error.to_string().contains("JointUniversal with parallel axis and axis2"), "{error}");
    }

    #[test]
    fn joints_without_their_own_erp_and_cfm_take_the_environments() {
        let source = |joint_params: &str| {
            format!(
                "environment room {{ width 4; length 4; height 2; erp 0.3; cfm 0.001; }}
                 a {{ shape box(0.2,0.2,0.2); pos(1,1,1); }}  b {{ shape box(0.2,0.2,0.2); pos(1.5,1,1); }}
                 JointBall(a, b) {{ anchor(1.25,1,1); {joint_params} }}"
            )
        };
        let softness = |text: String| {
            let model =
                scene::interpret(&text, "t.vlab", &scene::MapLoader::new(), &scene::Options::default()).unwrap().model;
            let world = World::build(&model).unwrap();
            world.physics.impulse_joints.get(world.joints[0]).unwrap().data.softness
        };
        let inherited = softness(source(""));
        assert_eq!(inherited, softness(source("erp 0.3; cfm 0.001;")));
        assert_ne!(inherited, softness(source("erp 0.9; cfm 0.0;")));
    }

    #[test]
    fn an_invalid_model_builds_nothing() {
        let mut model = demo_scene(1);
        model.bodies[3].name = model.bodies[2].name.clone();
        assert!(World::build(&model).is_err());
    }
}
