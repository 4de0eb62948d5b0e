//! What sensors may ask of the physics world, and how actuators drive its joints:
//! rays through the scene, contacts on a body, a joint's coordinate along its driven
//! axis, and that axis's motor.
//!
//! A joint's coordinate is ODE's, which the original VLAB scenes and programs rely on:
//! body 1's motion relative to body 2 along the axis (a hinge's rate is body 1's
//! angular velocity minus body 2's). Rapier measures body 2 relative to body 1, so every
//! coordinate, motor target and limit crosses this module negated ([`TO_RAPIER`]).
//!
//! Everything here speaks the scene's plain arrays; rapier stays inside `sim`.
//! Colliders carry their robot and their transparency in `user_data` (see
//! [`ColliderTag`]) so a ray can skip its own robot and, for light, glass.

use rapier3d::prelude::*;

use super::{BodyIndex, World};
use crate::scene::JointKind;

/// Two colliders this close (metres) touch: resting contacts settle within about a
/// millimetre of each other, predicted ones are farther apart.
const TOUCH_DISTANCE: f32 = 1e-3;

/// The facts packed into a collider's `user_data`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ColliderTag {
    /// Index of the robot the collider belongs to, if any.
    pub robot: Option<u32>,
    /// Whether light passes through it (a transparent material: glass).
    pub transparent: bool,
    /// Its material's colour, sRGB (what cameras see of it).
    pub color: [u8; 3],
}

impl ColliderTag {
    const TRANSPARENT: u128 = 1 << 64;
    const ROBOT_MASK: u128 = 0xFFFF_FFFF;
    const COLOR_SHIFT: u32 = 32;

    pub(crate) fn pack(self) -> u128 {
        let robot = self.robot.map_or(0, |r| u128::from(r) + 1);
        let [r, g, b] = self.color.map(u128::from);
        let color = (r << 16 | g << 8 | b) << Self::COLOR_SHIFT;
        robot | color | if self.transparent { Self::TRANSPARENT } else { 0 }
    }

    pub(crate) fn unpack(data: u128) -> ColliderTag {
        let robot = (data & Self::ROBOT_MASK) as u32;
        let color = (data >> Self::COLOR_SHIFT) as u32;
        ColliderTag {
            robot: robot.checked_sub(1),
            transparent: data & Self::TRANSPARENT != 0,
            color: [(color >> 16) as u8, (color >> 8) as u8, color as u8],
        }
    }
}

/// Which colliders a ray ignores.
#[derive(Clone, Copy, Debug, Default)]
pub struct RayFilter {
    /// The robot whose own colliders the ray does not see (the sensor's robot).
    pub ignore_robot: Option<u32>,
    /// Whether the ray passes through transparent colliders (light does, sound doesn't).
    pub through_transparent: bool,
}

/// The contacts on one body at the end of a step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Contacts {
    /// Whether any of its colliders touches anything.
    pub touching: bool,
    /// Total contact force on the body, world frame, newtons.
    pub force: [f32; 3],
    /// Force-weighted mean of the contact points, world frame (`None` without contact;
    /// the plain mean when the forces are all zero).
    pub point: Option<[f32; 3]>,
}

/// A joint's coordinate along its driven axis and its rate.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct JointCoordinate {
    /// Radians about an angular axis, metres along a linear one.
    pub position: f32,
    /// Radians or metres per second.
    pub velocity: f32,
}

/// How far below its target speed a velocity motor runs when it exerts its whole
/// `max_force`, rad/s or m/s: a speed controller's error, too small to see in a
/// trajectory.
const VELOCITY_SLACK: f32 = 0.01;

/// Turns a coordinate of VLab's (body 1 relative to body 2) into rapier's (body 2
/// relative to body 1), and back.
pub(crate) const TO_RAPIER: f32 = -1.0;

/// What a joint's motor does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JointDrive {
    /// Reach and hold a velocity, with at most `max_force` (N·m or N).
    Velocity {
        /// rad/s or m/s.
        target: f32,
        /// N·m or N.
        max_force: f32,
    },
    /// Reach and hold a position as a PD controller: force = kp·error − kd·rate,
    /// at most `max_force`.
    Position {
        /// rad or m.
        target: f32,
        /// Stiffness, N·m/rad or N/m.
        kp: f32,
        /// Damping, N·m·s/rad or N·s/m.
        kd: f32,
        /// N·m or N.
        max_force: f32,
    },
}

/// The axis of a joint that actuators drive and joint sensors read, in rapier's joint
/// frame (see the table in [`super::joints`]); `None` for joints with nothing to drive.
pub(crate) fn driven_axis(kind: &JointKind) -> Option<JointAxis> {
    match kind {
        JointKind::Hinge { .. } | JointKind::Universal { .. } | JointKind::PrismaticRotoide { .. } => {
            Some(JointAxis::AngX)
        }
        // The wheel axis (`axis2`) is the frame's Y.
        JointKind::Hinge2 { .. } => Some(JointAxis::AngY),
        JointKind::Slider { .. } | JointKind::Piston { .. } => Some(JointAxis::LinX),
        JointKind::PrismaticUniversal { .. } => Some(JointAxis::LinZ),
        JointKind::Ball { .. } | JointKind::Fixed | JointKind::Planar { .. } => None,
    }
}

impl World {
    /// The distance along `direction` (unit) from `origin` to the first collider the
    /// filter lets the ray see, if one is within `max_distance`.
    pub fn cast_ray(&self, origin: [f32; 3], direction: [f32; 3], max_distance: f32, filter: RayFilter) -> Option<f32> {
        let ray = Ray::new(Vector::from_array(origin), Vector::from_array(direction));
        let sees = move |_: ColliderHandle, collider: &Collider| {
            let tag = ColliderTag::unpack(collider.user_data);
            let own = filter.ignore_robot.is_some() && tag.robot == filter.ignore_robot;
            !(own || filter.through_transparent && tag.transparent)
        };
        if self.queries_stale {
            return self
                .physics
                .all_colliders()
                .filter(|(handle, collider)| !collider.is_sensor() && sees(*handle, collider))
                .filter_map(|(_, collider)| super::ray_hit::distance(collider, &ray, max_distance))
                .min_by(Real::total_cmp);
        }
        // The query index's leaves are collider indices: each one the ray reaches is
        // filtered and cast on here, bounded by the nearest hit so far.
        let colliders = &self.physics.colliders;
        self.query_index()
            .cast_ray(&ray, max_distance, |leaf, nearest| {
                let (collider, handle) = colliders.get_unknown_gen(leaf)?;
                if collider.is_sensor() || !sees(handle, collider) {
                    return None;
                }
                super::ray_hit::distance(collider, &ray, nearest)
            })
            .map(|(_, distance)| distance)
    }

    /// The engine's query index (a BVH over every collider's bounds), as the last step
    /// left it.
    pub(super) fn query_index(&self) -> &rapier3d::parry::partitioning::Bvh {
        self.physics.query_pipeline().bvh
    }

    /// The contacts on body `index` as the last step left them.
    pub fn contacts(&self, index: BodyIndex) -> Contacts {
        let body = &self.physics.bodies[self.bodies[index]];
        let dt = self.physics.integration_parameters.dt.max(1e-6);
        let mut touching = false;
        let mut force = Vector::ZERO;
        let (mut weighted, mut weight, mut plain, mut points) = (Vector::ZERO, 0.0, Vector::ZERO, 0.0);
        for &own in body.colliders() {
            for pair in self.physics.contact_pairs_with(own) {
                // The engine also keeps predicted contacts a little apart (the bumper
                // a centimetre ahead of its chassis read as touching): only a point at
                // or within TOUCH_DISTANCE touches.
                let touches = |contact: &&rapier3d::geometry::Contact| contact.dist <= TOUCH_DISTANCE;
                if !pair.has_any_active_contact()
                    || !pair.manifolds().iter().any(|m| m.points.iter().any(|c| touches(&c)))
                {
                    continue;
                }
                touching = true;
                // The manifold normal points from collider1 to collider2: the impulse
                // pushes collider1 back along it.
                let sign = if pair.collider1 == own { -1.0 } else { 1.0 };
                force += pair.total_impulse() * (sign / dt);
                let Some(first) = self.physics.colliders.get(pair.collider1) else { continue };
                for manifold in pair.manifolds() {
                    for contact in manifold.points.iter().filter(touches) {
                        let point = first.position() * contact.local_p1;
                        plain += point;
                        points += 1.0;
                        weighted += point * contact.data.impulse;
                        weight += contact.data.impulse;
                    }
                }
            }
        }
        let point = if weight > 1e-9 {
            Some((weighted / weight).to_array())
        } else if points > 0.0 {
            Some((plain / points).to_array())
        } else {
            None
        };
        Contacts { touching, force: force.to_array(), point }
    }

    /// Whether body `a` touches body `b` now, as the last step left them: a contact
    /// point of theirs at or within the touching distance, or one that pushes them
    /// apart (a body driven against a wall is held a few millimetres off it by the
    /// engine's predicted contacts, pushing all the while).
    pub fn touches(&self, a: BodyIndex, b: BodyIndex) -> bool {
        let (Some(&a), Some(&b)) = (self.bodies.get(a), self.bodies.get(b)) else { return false };
        self.physics.bodies[a].colliders().iter().any(|&own| {
            self.physics.contact_pairs_with(own).any(|pair| {
                let other = if pair.collider1 == own { pair.collider2 } else { pair.collider1 };
                let theirs = self.physics.colliders.get(other).and_then(|c| c.parent()) == Some(b);
                theirs
                    && pair.has_any_active_contact()
                    && pair
                        .manifolds()
                        .iter()
                        .any(|m| m.points.iter().any(|c| c.dist <= TOUCH_DISTANCE || c.data.impulse > 0.0))
            })
        })
    }

    /// The coordinate of joint `joint` along its driven axis, `None` for joints without
    /// one (ball, fixed). Angles are in (−π, π]; callers that count turns unwrap them.
    pub fn joint_coordinate(&self, joint: usize) -> Option<JointCoordinate> {
        let (axis, data, b1, b2) = self.joint_parts(joint)?;
        let frame1 = self.physics.bodies[b1].position() * data.local_frame1;
        let frame2 = self.physics.bodies[b2].position() * data.local_frame2;
        let relative = frame1.inverse() * frame2;
        let (body1, body2) = (&self.physics.bodies[b1], &self.physics.bodies[b2]);
        let index = axis as usize;
        if index < 3 {
            let direction = frame1.rotation * unit(index);
            let position = relative.translation[index];
            let velocity = (body2.linvel() - body1.linvel()).dot(direction);
            Some(JointCoordinate { position: TO_RAPIER * position, velocity: TO_RAPIER * velocity })
        } else {
            let q = relative.rotation;
            let along = [q.x, q.y, q.z][index - 3];
            let position = 2.0 * along.atan2(q.w);
            let position = if position > std::f32::consts::PI { position - std::f32::consts::TAU } else { position };
            let direction = frame1.rotation * unit(index - 3);
            let velocity = (body2.angvel() - body1.angvel()).dot(direction);
            // Negated, an angle of π would become −π: keep (−π, π].
            let position = TO_RAPIER * position;
            let position = if position <= -std::f32::consts::PI { position + std::f32::consts::TAU } else { position };
            Some(JointCoordinate { position, velocity: TO_RAPIER * velocity })
        }
    }

    /// Whether joint `joint`'s driven axis turns (radians) rather than slides (metres).
    pub fn joint_is_angular(&self, joint: usize) -> bool {
        self.joint_models.get(joint).and_then(driven_axis).is_some_and(|axis| axis as usize >= 3)
    }

    /// Sets the motor on joint `joint`'s driven axis, waking the bodies it connects.
    /// Does nothing on joints without one.
    pub fn drive_joint(&mut self, joint: usize, drive: JointDrive) {
        let Some(axis) = self.joint_models.get(joint).and_then(driven_axis) else { return };
        let Some(joint) = self.physics.impulse_joints.get_mut(self.joints[joint], true) else { return };
        let data = &mut joint.data;
        match drive {
            JointDrive::Velocity { target, max_force } => {
                // Force-based, so the motor's stiffness does not shrink with the inertia
                // of what it turns (an acceleration-based motor on a 3 cm wheel gave way
                // under a few mN·m): it holds its speed within VELOCITY_SLACK up to
                // max_force, then gives way.
                data.set_motor_model(axis, MotorModel::ForceBased);
                data.set_motor_velocity(axis, TO_RAPIER * target, max_force / VELOCITY_SLACK);
                data.set_motor_max_force(axis, max_force);
            }
            JointDrive::Position { target, kp, kd, max_force } => {
                data.set_motor_model(axis, MotorModel::ForceBased);
                data.set_motor_position(axis, TO_RAPIER * target, kp, kd);
                data.set_motor_max_force(axis, max_force);
            }
        }
    }

    /// Limits joint `joint`'s driven axis to `[low, high]`.
    pub fn limit_joint(&mut self, joint: usize, low: f32, high: f32) {
        let Some(axis) = self.joint_models.get(joint).and_then(driven_axis) else { return };
        if let Some(joint) = self.physics.impulse_joints.get_mut(self.joints[joint], true) {
            joint.data.set_limits(axis, [TO_RAPIER * high, TO_RAPIER * low]);
        }
    }

    /// The linear (m/s) and angular (rad/s) velocity of a body, world frame.
    pub fn velocities(&self, index: BodyIndex) -> ([f32; 3], [f32; 3]) {
        let body = &self.physics.bodies[self.bodies[index]];
        (body.linvel().to_array(), body.angvel().to_array())
    }

    /// The acceleration of gravity, world frame.
    pub fn gravity(&self) -> [f32; 3] {
        self.physics.gravity.to_array()
    }

    /// The physics step, seconds.
    pub fn dt(&self) -> f32 {
        self.physics.integration_parameters.dt
    }

    /// A joint's driven axis, its data (borrowed: a joint's data is a few hundred bytes,
    /// and encoders and odometry ask every step) and its two bodies.
    fn joint_parts(&self, joint: usize) -> Option<(JointAxis, &GenericJoint, RigidBodyHandle, RigidBodyHandle)> {
        let axis = driven_axis(self.joint_models.get(joint)?)?;
        let joint = self.physics.impulse_joints.get(self.joints[joint])?;
        Some((axis, &joint.data, joint.body1(), joint.body2()))
    }
}

fn unit(index: usize) -> Vector {
    [Vector::X, Vector::Y, Vector::Z][index]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_round_trip() {
        for tag in [
            ColliderTag { robot: None, transparent: false, color: [0, 0, 0] },
            ColliderTag { robot: Some(0), transparent: true, color: [255, 1, 128] },
            ColliderTag { robot: Some(41), transparent: false, color: [200, 52, 44] },
        ] {
            assert_eq!(ColliderTag::unpack(tag.pack()), tag);
        }
        assert_eq!(ColliderTag::unpack(0), ColliderTag { robot: None, transparent: false, color: [0, 0, 0] });
    }
}
#[cfg(test)]
mod touch_tests {
    use crate::scene::{MapLoader, Options, interpret};

    #[test]
    fn a_box_driven_against_a_wall_touches_it_and_the_floor_and_not_the_other_walls() {
        let source = r#"
            environment wallrect { width 20; length 20; height 0.5; gravity -9.81; }
            box1 { shape box(0.4, 0.1, 0.3); pos(19.5, 0.06, 10); density 500; }
        "#;
        let model = interpret(source, "c.vlab", &MapLoader::new(), &Options::default()).unwrap().model;
        let mut world = super::super::World::build(&model).unwrap();
        let (floor, east, block) = (0, 4, 5);
        assert_eq!(model.bodies[east].name, "wall_east");
        for _ in 0..240 {
            // Pushed towards the east wall at every step, as a robot's wheels would.
            let pose = world.pose(block);
            world.set_body_state(block, &pose, [1.0, 0.0, 0.0], [0.0; 3]);
            world.step();
        }
        let touching: Vec<usize> = (0..5).filter(|&other| world.touches(block, other)).collect();
        assert_eq!(touching, [floor, east]);
    }
}
