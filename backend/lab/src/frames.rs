//! Builds frames: the poses of the bodies that moved since the last frame sent.

use vlab_protocol::{BodyId, BodyPose, Frame};

use vlab_sim::scene::Pose;
use vlab_sim::sim::World;

/// Below these, a change of pose is not worth sending (0.1 mm; ~0.01° of rotation).
/// Unsent changes accumulate against the last pose sent, so drift is never lost.
const POSITION_EPSILON: f32 = 1e-4;
const ROTATION_EPSILON: f32 = 1e-4;

/// Remembers the last pose sent of every moving body.
///
/// # Invariants
/// `last_sent[i]` is `None` exactly for fixed bodies, which never appear in frames.
pub struct FrameBuilder {
    last_sent: Vec<Option<Pose>>,
}

impl FrameBuilder {
    /// Starts from the world's current poses, and returns the full frame of every
    /// moving body (the keyframe a new viewer starts from).
    pub fn start(world: &World, epoch: u32) -> (FrameBuilder, Frame) {
        let last_sent: Vec<Option<Pose>> =
            (0..world.body_count()).map(|i| (!world.is_fixed(i)).then(|| world.pose(i))).collect();
        let poses = last_sent.iter().enumerate().filter_map(|(i, pose)| pose.map(|pose| body_pose(i, pose))).collect();
        (FrameBuilder { last_sent }, Frame { epoch, step: 0, time: 0.0, poses })
    }

    /// The frame of the bodies that moved noticeably since they were last sent.
    pub fn next_frame(&mut self, world: &World, epoch: u32, step: u64, time: f64) -> Frame {
        let mut poses = Vec::new();
        for (i, last) in self.last_sent.iter_mut().enumerate() {
            let Some(last) = last else { continue };
            let now = world.pose(i);
            if moved(last, &now) {
                *last = now;
                poses.push(body_pose(i, now));
            }
        }
        Frame { epoch, step, time, poses }
    }
}

fn moved(a: &Pose, b: &Pose) -> bool {
    let far = |x: &[f32], y: &[f32], eps: f32| x.iter().zip(y).any(|(p, q)| (p - q).abs() > eps);
    far(&a.position, &b.position, POSITION_EPSILON) || far(&a.rotation, &b.rotation, ROTATION_EPSILON)
}

fn body_pose(index: usize, pose: Pose) -> BodyPose {
    BodyPose { id: BodyId(index as u32), position: pose.position, rotation: pose.rotation }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vlab_sim::scene::demo_scene;

    #[test]
    fn the_keyframe_has_every_moving_body_and_no_fixed_one() {
        let world = World::build(&demo_scene(1)).unwrap();
        let (_, keyframe) = FrameBuilder::start(&world, 3);
        let moving = (0..world.body_count()).filter(|&i| !world.is_fixed(i)).count();
        assert_eq!(keyframe.poses.len(), moving);
        assert!(keyframe.poses.iter().all(|p| !world.is_fixed(p.id.0 as usize)));
        assert_eq!(keyframe.epoch, 3);
    }

    #[test]
    fn frames_carry_only_what_moved() {
        let mut world = World::build(&demo_scene(1)).unwrap();
        let (mut builder, keyframe) = FrameBuilder::start(&world, 0);
        // Nothing has stepped: nothing moved.
        assert!(builder.next_frame(&world, 0, 0, 0.0).poses.is_empty());
        world.step();
        let frame = builder.next_frame(&world, 0, 1, 1.0 / 240.0);
        assert!(!frame.poses.is_empty());
        assert!(frame.poses.len() <= keyframe.poses.len());
        // Asking again without a step: nothing new.
        assert!(builder.next_frame(&world, 0, 1, 1.0 / 240.0).poses.is_empty());
    }

    #[test]
    fn once_the_props_rest_only_the_robots_move() {
        let model = demo_scene(1);
        let mut world = World::build(&model).unwrap();
        let (mut builder, _) = FrameBuilder::start(&world, 0);
        for _ in 0..(240 * 12) {
            world.step();
        }
        builder.next_frame(&world, 0, 0, 0.0);
        for _ in 0..4 {
            world.step();
        }
        let frame = builder.next_frame(&world, 0, 0, 0.0);
        let robot_bodies = model.bodies.iter().filter(|b| b.robot.is_some()).count();
        let moving: Vec<&str> = frame.poses.iter().map(|p| model.bodies[p.id.0 as usize].name.as_str()).collect();
        assert!(frame.poses.len() >= 3, "the robots should be moving: {} poses", frame.poses.len());
        // Props the robots bump into may move too, but most of the room is at rest.
        assert!(frame.poses.len() < robot_bodies + 10, "{} poses in a settled room: {moving:?}", frame.poses.len());
    }
}
