//! The viewer's copy of a lab's world: the latest scene snapshot and every body's latest pose, fed by snapshots and frames.

use vlab_protocol::pose::rotate;
use vlab_protocol::{BodyView, Frame, Pose, SceneSnapshot};

use crate::view3d::primitives::{PrimitiveKind, primitives};

/// How far beyond the fixed bodies' box, as a fraction of its size, framing still
/// follows moving bodies.
const FRAMING_REACH: f32 = 0.25;
/// …and at least this far, metres (a floor is thin, the things on it are not).
const MIN_FRAMING_REACH_M: f32 = 3.0;

/// What became of a frame handed to [`World::apply_frame`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameOutcome {
    /// Its poses are now current.
    Applied,
    /// It belongs to another scene epoch (it raced a reset): ignored.
    WrongEpoch,
    /// No snapshot yet to apply it to: ignored.
    NoScene,
}

/// An axis-aligned box in world coordinates, metres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// Smallest corner.
    pub min: [f32; 3],
    /// Largest corner.
    pub max: [f32; 3],
}

impl Aabb {
    fn point(p: [f32; 3]) -> Aabb {
        Aabb { min: p, max: p }
    }

    fn grow(&mut self, p: [f32; 3]) {
        self.min = [0, 1, 2].map(|k| self.min[k].min(p[k]));
        self.max = [0, 1, 2].map(|k| self.max[k].max(p[k]));
    }
}

/// The scene as this viewer knows it.
///
/// # Invariants
/// `poses.len()` equals the snapshot's body count, and `poses[i]` is body `i`'s pose.
#[derive(Clone, Debug, Default)]
pub struct World {
    snapshot: Option<SceneSnapshot>,
    poses: Vec<Pose>,
    scene_generation: u64,
    pose_generation: u64,
    frames_since_snapshot: u64,
    /// Bodies drawn where this page is placing them, each with its pose as the server
    /// last said it (frames update that, not what is drawn, until the preview ends).
    preview: Vec<(usize, Pose)>,
}

impl World {
    /// Replaces the scene: every body back at its snapshot pose.
    pub fn apply_snapshot(&mut self, snapshot: SceneSnapshot) {
        self.poses = snapshot.bodies.iter().map(|b| b.pose).collect();
        self.preview.clear();
        self.snapshot = Some(snapshot);
        self.scene_generation += 1;
        self.pose_generation += 1;
        self.frames_since_snapshot = 0;
    }

    /// Moves the bodies a frame carries; ids beyond the snapshot are skipped (a
    /// confused server must not crash the viewer).
    pub fn apply_frame(&mut self, frame: &Frame) -> FrameOutcome {
        let Some(snapshot) = &self.snapshot else { return FrameOutcome::NoScene };
        if frame.epoch != snapshot.epoch {
            return FrameOutcome::WrongEpoch;
        }
        for body in &frame.poses {
            let index = body.id.0 as usize;
            let pose = Pose { position: body.position, rotation: body.rotation };
            if let Some((_, truth)) = self.preview.iter_mut().find(|(i, _)| *i == index) {
                *truth = pose;
            } else if let Some(drawn) = self.poses.get_mut(index) {
                *drawn = pose;
            }
        }
        self.pose_generation += 1;
        self.frames_since_snapshot += 1;
        FrameOutcome::Applied
    }

    /// Draws bodies `bodies` at `poses` (a thing being placed, ahead of the server's
    /// answer) until [`World::end_preview`]; indices beyond the scene are skipped.
    pub fn preview(&mut self, bodies: &[usize], poses: &[Pose]) {
        for (&index, pose) in bodies.iter().zip(poses) {
            let Some(drawn) = self.poses.get_mut(index) else { continue };
            if !self.preview.iter().any(|(i, _)| *i == index) {
                self.preview.push((index, *drawn));
            }
            *drawn = *pose;
        }
        self.pose_generation += 1;
    }

    /// The previewed bodies back where the server last put them.
    pub fn end_preview(&mut self) {
        for (index, truth) in self.preview.drain(..) {
            self.poses[index] = truth;
        }
        self.pose_generation += 1;
    }

    /// The current snapshot, if one arrived.
    pub fn snapshot(&self) -> Option<&SceneSnapshot> {
        self.snapshot.as_ref()
    }

    /// Latest pose of every body, indexed by body id.
    pub fn poses(&self) -> &[Pose] {
        &self.poses
    }

    /// How many bodies the current snapshot has (0 before the first).
    pub fn body_count(&self) -> usize {
        self.poses.len()
    }

    /// Bumped by every snapshot: the renderer rebuilds its meshes when it changes.
    pub fn scene_generation(&self) -> u64 {
        self.scene_generation
    }

    /// Bumped by every snapshot and applied frame: the renderer re-places bodies when it changes.
    pub fn pose_generation(&self) -> u64 {
        self.pose_generation
    }

    /// Frames applied since the last snapshot. The first one after a snapshot carries
    /// every moving body's current pose; the snapshot's own poses may be older.
    pub fn frames_since_snapshot(&self) -> u64 {
        self.frames_since_snapshot
    }

    /// The box around every part at its current pose; `None` for an empty scene.
    pub fn bounds(&self) -> Option<Aabb> {
        self.bounds_where(|_| true)
    }

    /// What the camera should frame: every body, but no further from the fixed ones
    /// (the room: floor, walls) than [`FRAMING_REACH`] of their size, so a body flung
    /// out of the world does not shrink the room to a dot.
    pub fn framing_bounds(&self) -> Option<Aabb> {
        let all = self.bounds()?;
        let Some(room) = self.bounds_where(|body| body.fixed) else { return Some(all) };
        let mut framed = all;
        for k in 0..3 {
            let reach = ((room.max[k] - room.min[k]) * FRAMING_REACH).max(MIN_FRAMING_REACH_M);
            framed.min[k] = all.min[k].max(room.min[k] - reach);
            framed.max[k] = all.max[k].min(room.max[k] + reach);
        }
        Some(framed)
    }

    /// Where `robot`'s main body (the first body carrying its name) is now; `None`
    /// when the scene has no such robot.
    pub fn robot_position(&self, robot: &str) -> Option<[f32; 3]> {
        let snapshot = self.snapshot.as_ref()?;
        let index = snapshot.bodies.iter().position(|body| body.robot.as_deref() == Some(robot))?;
        self.poses.get(index).map(|pose| pose.position)
    }

    /// The box around `robot`'s bodies at their current pose; `None` when the scene
    /// has no such robot.
    pub fn robot_bounds(&self, robot: &str) -> Option<Aabb> {
        self.bounds_where(|body| body.robot.as_deref() == Some(robot))
    }

    fn bounds_where(&self, include: impl Fn(&BodyView) -> bool) -> Option<Aabb> {
        let snapshot = self.snapshot.as_ref()?;
        let mut bounds: Option<Aabb> = None;
        let mut grow = |p| match bounds.as_mut() {
            Some(b) => b.grow(p),
            None => bounds = Some(Aabb::point(p)),
        };
        for (body, world_from_body) in snapshot.bodies.iter().zip(&self.poses) {
            if !include(body) {
                continue;
            }
            for part in &body.parts {
                let world_from_part = world_from_body.compose(&part.local);
                for primitive in primitives(part) {
                    let pose = world_from_part.compose(&primitive.part_from_primitive);
                    let s = primitive.scale;
                    if primitive.kind == PrimitiveKind::Sphere {
                        // Rotation-free: a rolling ball must not inflate the box.
                        grow([pose.position[0] - s[0], pose.position[1] - s[1], pose.position[2] - s[2]]);
                        grow([pose.position[0] + s[0], pose.position[1] + s[1], pose.position[2] + s[2]]);
                        continue;
                    }
                    if primitive.kind == PrimitiveKind::Cylinder {
                        // Exact: a turning wheel's corners would reach below the floor.
                        // Along a world axis, a cylinder reaches h·|a| + r·√(1 − a²) from
                        // its centre, a the axis's component along it.
                        let axis = rotate(pose.rotation, [0.0, 0.0, 1.0]);
                        let radius = s[0].abs().max(s[1].abs());
                        let reach = axis.map(|a| a.abs() * s[2].abs() + radius * (1.0 - a * a).max(0.0).sqrt());
                        grow([0, 1, 2].map(|k| pose.position[k] - reach[k]));
                        grow([0, 1, 2].map(|k| pose.position[k] + reach[k]));
                        continue;
                    }
                    for corner in 0..8 {
                        let sign = |bit: usize| if corner & bit == 0 { -1.0 } else { 1.0 };
                        let local = [s[0] * sign(1), s[1] * sign(2), s[2] * sign(4)];
                        let r = rotate(pose.rotation, local);
                        grow([pose.position[0] + r[0], pose.position[1] + r[1], pose.position[2] + r[2]]);
                    }
                }
            }
        }
        bounds
    }
}

/// The height of a room's ceiling if `body` is one (the fixed `ceiling` a `room`
/// environment builds), else `None`.
pub fn ceiling_height(body: &vlab_protocol::BodyView) -> Option<f32> {
    (body.fixed && body.name == "ceiling").then_some(body.pose.position[1])
}

/// Whether the ceiling at `ceiling_y` is left out of the picture for an eye at `eye_y`:
/// seen from above, a room is drawn without its lid, as a cutaway.
pub fn hides_ceiling(ceiling_y: Option<f32>, eye_y: f32) -> bool {
    ceiling_y.is_some_and(|y| eye_y > y)
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_room_is_a_cutaway_from_above_and_closed_from_below() {
        assert!(hides_ceiling(Some(4.0), 10.0));
        assert!(!hides_ceiling(Some(4.0), 1.5));
        assert!(!hides_ceiling(None, 10.0));
    }
    use super::*;
    use vlab_protocol::{BodyId, BodyPose, Material, PartView, Shape};

    #[test]
    fn a_robot_is_found_by_its_first_body_and_bounded_by_its_bodies() {
        let mut floor = body(0, Shape::Box { half_extents: [6.0, 0.05, 6.0] }, [6.0, 0.0, 6.0]);
        floor.fixed = true;
        let mut chassis = body(1, Shape::Sphere { radius: 0.1 }, [2.0, 0.1, 3.0]);
        chassis.robot = Some("bot".into());
        let mut wheel = body(2, Shape::Sphere { radius: 0.03 }, [2.0, 0.03, 3.2]);
        wheel.robot = Some("bot".into());
        let mut world = World::default();
        assert_eq!(world.robot_position("bot"), None);
        world.apply_snapshot(SceneSnapshot {
            epoch: 1,
            sky: [0, 0, 0],
            bodies: vec![floor, chassis, wheel],
            links: vec![],
            zones: vec![],
        });
        assert_eq!(world.robot_position("bot"), Some([2.0, 0.1, 3.0]));
        assert_eq!(world.robot_position("other"), None);
        let bot = world.robot_bounds("bot").unwrap();
        assert_eq!((bot.min[1], bot.max[1]), (0.0, 0.2), "from the wheel's bottom to the chassis' top");
        assert_eq!(world.robot_bounds("other"), None);
    }

    fn body(id: u32, shape: Shape, position: [f32; 3]) -> BodyView {
        BodyView {
            id: BodyId(id),
            name: format!("b{id}"),
            parts: vec![PartView {
                shape,
                local: Pose::IDENTITY,
                material: Material {
                    name: "m".into(),
                    color: [9, 9, 9, 255],
                    roughness: 0.5,
                    metallic: 0.0,
                    texture: None,
                    transparent: false,
                },
                mesh: None,
            }],
            pose: Pose { position, rotation: [0.0, 0.0, 0.0, 1.0] },
            fixed: id == 0,
            robot: None,
            owner: None,
        }
    }

    fn snapshot(epoch: u32) -> SceneSnapshot {
        SceneSnapshot {
            epoch,
            sky: [0, 0, 0],
            links: vec![],
            zones: vec![],
            bodies: vec![
                body(0, Shape::Box { half_extents: [5.0, 0.05, 4.0] }, [0.0, -0.05, 0.0]),
                body(1, Shape::Sphere { radius: 0.5 }, [1.0, 2.0, 0.0]),
            ],
        }
    }

    fn frame(epoch: u32, id: u32, position: [f32; 3]) -> Frame {
        Frame {
            epoch,
            step: 10,
            time: 10.0 / 240.0,
            poses: vec![BodyPose { id: BodyId(id), position, rotation: [0.0, 0.0, 0.0, 1.0] }],
        }
    }

    #[test]
    fn frames_move_only_the_bodies_they_carry() {
        let mut world = World::default();
        world.apply_snapshot(snapshot(3));
        assert_eq!(world.apply_frame(&frame(3, 1, [1.0, 0.5, 0.0])), FrameOutcome::Applied);
        assert_eq!(world.poses()[1].position, [1.0, 0.5, 0.0]);
        assert_eq!(world.poses()[0].position, [0.0, -0.05, 0.0]);
    }

    #[test]
    fn a_preview_is_drawn_until_it_ends_and_frames_meanwhile_are_kept_for_then() {
        let mut world = World::default();
        world.apply_snapshot(snapshot(3));
        let shown = Pose { position: [4.0, 1.0, 4.0], rotation: [0.0, 0.0, 0.0, 1.0] };
        world.preview(&[1, 99], &[shown, shown]);
        assert_eq!(world.poses()[1], shown, "drawn where it is being placed");
        world.apply_frame(&frame(3, 1, [2.0, 0.5, 0.0]));
        assert_eq!(world.poses()[1], shown, "the preview stays while frames come");
        world.preview(&[1], &[Pose { position: [5.0, 1.0, 5.0], ..shown }]);
        world.end_preview();
        assert_eq!(world.poses()[1].position, [2.0, 0.5, 0.0], "back where the server last put it");
        world.apply_frame(&frame(3, 1, [3.0, 0.5, 0.0]));
        assert_eq!(world.poses()[1].position, [3.0, 0.5, 0.0]);
    }

    #[test]
    fn frames_of_another_epoch_or_before_any_snapshot_are_ignored() {
        let mut world = World::default();
        assert_eq!(world.apply_frame(&frame(3, 1, [0.0; 3])), FrameOutcome::NoScene);
        world.apply_snapshot(snapshot(4));
        let before = world.pose_generation();
        assert_eq!(world.apply_frame(&frame(3, 1, [9.0; 3])), FrameOutcome::WrongEpoch);
        assert_eq!(world.poses()[1].position, [1.0, 2.0, 0.0]);
        assert_eq!(world.pose_generation(), before);
    }

    #[test]
    fn ids_beyond_the_snapshot_are_skipped() {
        let mut world = World::default();
        world.apply_snapshot(snapshot(1));
        assert_eq!(world.apply_frame(&frame(1, 99, [0.0; 3])), FrameOutcome::Applied);
        assert_eq!(world.body_count(), 2);
    }

    #[test]
    fn a_new_snapshot_replaces_poses_and_bumps_the_generation() {
        let mut world = World::default();
        world.apply_snapshot(snapshot(1));
        world.apply_frame(&frame(1, 1, [7.0, 7.0, 7.0]));
        world.apply_snapshot(snapshot(2));
        assert_eq!(world.scene_generation(), 2);
        assert_eq!(world.poses()[1].position, [1.0, 2.0, 0.0]);
    }

    #[test]
    fn bounds_cover_every_part() {
        let mut world = World::default();
        assert_eq!(world.bounds(), None);
        world.apply_snapshot(snapshot(1));
        let b = world.bounds().unwrap();
        let close = |a: [f32; 3], e: [f32; 3]| a.iter().zip(e).all(|(x, y)| (x - y).abs() < 1e-5);
        assert!(close(b.min, [-5.0, -0.1, -4.0]), "{b:?}");
        assert!(close(b.max, [5.0, 2.5, 4.0]), "{b:?}");
    }

    #[test]
    fn a_turning_wheel_keeps_its_box() {
        let mut world = World::default();
        let mut wheel = body(0, Shape::Cylinder { radius: 0.08, half_length: 0.02 }, [0.0, 0.08, 0.0]);
        // Axle along Z, turned 45° about it: the unit cube's corners would reach 0.113 m.
        wheel.pose.rotation = vlab_protocol::pose::axis_angle([0.0, 0.0, 1.0], std::f32::consts::FRAC_PI_4);
        world.apply_snapshot(SceneSnapshot {
            epoch: 1,
            sky: [0, 0, 0],
            bodies: vec![wheel],
            links: vec![],
            zones: vec![],
        });
        let b = world.bounds().unwrap();
        assert!(b.min[1].abs() < 1e-5 && (b.max[1] - 0.16).abs() < 1e-5, "{b:?}");
        assert!((b.max[2] - 0.02).abs() < 1e-5, "{b:?}");
    }

    #[test]
    fn framing_bounds_follow_bodies_but_not_far_from_the_room() {
        let mut world = World::default();
        world.apply_snapshot(snapshot(1));
        // The ball 2.5 m up is close enough to the 10 m floor to be framed.
        assert_eq!(world.framing_bounds(), world.bounds());
        // One flung 1 km away is not: framing stops 3 m beyond the room.
        world.apply_frame(&frame(1, 1, [1000.0, 2.0, 0.0]));
        let framed = world.framing_bounds().unwrap();
        assert!((framed.max[0] - 8.0).abs() < 1e-4, "{framed:?}");
        assert!((framed.max[1] - 2.5).abs() < 1e-4, "{framed:?}");
        assert_eq!(world.frames_since_snapshot(), 1);
        // Without fixed bodies, everything counts.
        let mut loose = snapshot(2);
        loose.bodies[0].fixed = false;
        world.apply_snapshot(loose);
        assert_eq!(world.framing_bounds(), world.bounds());
        assert_eq!(world.frames_since_snapshot(), 0);
    }
}
