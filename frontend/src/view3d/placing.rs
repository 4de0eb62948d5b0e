//! Placing a thing by hand, as arithmetic: where a drag puts it (the pointer's ray on the
//! level plane at the height it was grabbed), a lift and a turn about the vertical, its
//! bodies moved rigidly for the preview, when the next placement may go to the server,
//! and the poses to go back to on undo.

use vlab_protocol::pose::{axis_angle, heading, multiply, normalized, rotate, sub};
use vlab_protocol::{BodyView, Pose, SceneSnapshot};

use crate::view3d::screen::Ray;

/// A drag sends at most one placement every this many milliseconds (the server does at
/// most one every `vlab_protocol::PLACE_INTERVAL_MS`); the last pose goes on release.
pub const DRAG_SEND_INTERVAL_MS: f64 = 250.0;
/// One press of ⟲ or ⟳ turns the thing this much, radians (15°).
pub const TURN_STEP: f32 = std::f32::consts::PI / 12.0;
/// One press of ↑ or ↓ lifts or lowers it this much, metres.
pub const LIFT_STEP_M: f32 = 0.05;
/// Metres a vertical drag lifts per CSS pixel, per metre between the eye and the thing.
pub const LIFT_PER_PX_PER_M: f32 = 0.002;
/// Radians a drag with the turning modifier turns per CSS pixel.
pub const TURN_PER_PX: f32 = 0.01;
/// How many placements Undo remembers.
pub const UNDO_DEPTH: usize = 20;
/// The farthest a drag may carry a thing from where the ray leaves the eye, metres: a
/// ray almost level with the plane meets it far away.
const MAX_REACH_M: f32 = 200.0;

/// A pose about the vertical, as placements say it: where the (main) body is and its
/// heading (radians, counter-clockwise from +X seen from above).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    /// Where the (main) body is, metres.
    pub position: [f32; 3],
    /// Its heading, radians.
    pub heading: f32,
}

/// The point where `ray` meets the level plane at height `y`, if it does ahead of the
/// eye and within reach.
pub fn ray_on_level(ray: &Ray, y: f32) -> Option<[f32; 3]> {
    if ray.direction[1].abs() < 1e-6 {
        return None;
    }
    let t = (y - ray.origin[1]) / ray.direction[1];
    (t > 0.0 && t <= MAX_REACH_M).then(|| ray.at(t))
}

/// A drag on the ground: the thing keeps the offset between its position and the point
/// grabbed, so it does not jump under the pointer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroundDrag {
    /// Where the thing was when grabbed.
    pub start: Placement,
    /// Where the pointer's ray met the level plane of the thing's height then.
    pub grabbed: [f32; 3],
}

impl GroundDrag {
    /// A drag of a thing at `start` grabbed where `ray` meets its level plane; `None`
    /// when the ray does not meet it (looking along it or away).
    pub fn grab(start: Placement, ray: &Ray) -> Option<GroundDrag> {
        Some(GroundDrag { start, grabbed: ray_on_level(ray, start.position[1])? })
    }

    /// Where the thing goes with the pointer's ray now, at its height and heading of
    /// `now` (a lift or a turn during the drag keeps them); `None` when the ray misses
    /// the plane.
    pub fn to(&self, ray: &Ray, now: Placement) -> Option<Placement> {
        let hit = ray_on_level(ray, self.grabbed[1])?;
        let shift = sub(hit, self.grabbed);
        let position = [self.start.position[0] + shift[0], now.position[1], self.start.position[2] + shift[2]];
        Some(Placement { position, heading: now.heading })
    }
}

/// `placement` lifted by `dy` metres (a negative one lowers it).
pub fn lifted(placement: Placement, dy: f32) -> Placement {
    let [x, y, z] = placement.position;
    Placement { position: [x, y + dy, z], ..placement }
}

/// `placement` turned by `angle` radians about the vertical, its heading kept in (-π, π].
pub fn turned(placement: Placement, angle: f32) -> Placement {
    Placement { heading: wrap_angle(placement.heading + angle), ..placement }
}

/// `angle` in (-π, π].
pub fn wrap_angle(angle: f32) -> f32 {
    use std::f32::consts::{PI, TAU};
    let wrapped = (angle + PI).rem_euclid(TAU) - PI;
    if wrapped <= -PI { wrapped + TAU } else { wrapped }
}

/// The lift of a vertical drag of `dy_px` CSS pixels (down the screen is positive)
/// seen from `distance_m` away: up the screen lifts.
pub fn lift_of_drag(dy_px: f32, distance_m: f32) -> f32 {
    -dy_px * LIFT_PER_PX_PER_M * distance_m.max(0.5)
}

/// A thing one may place: a robot (all its bodies), a body that is not fixed, or an
/// object somebody added (a palette's ramp or wall is fixed, and placed all the same).
#[derive(Clone, Debug, PartialEq)]
pub struct Thing {
    /// The name a placement gives (the robot's, or the body's).
    pub name: String,
    /// Its bodies' indices, the main one first.
    pub bodies: Vec<usize>,
}

/// The thing body `index` belongs to: its robot, or itself if it moves or was added;
/// `None` for the lab's own fixed bodies (the floor, walls).
pub fn thing_of(snapshot: &SceneSnapshot, index: usize) -> Option<Thing> {
    let body = snapshot.bodies.get(index)?;
    match &body.robot {
        Some(robot) => {
            let bodies = bodies_of_robot(&snapshot.bodies, robot);
            Some(Thing { name: robot.clone(), bodies })
        }
        None if placeable(body) => Some(Thing { name: body.name.clone(), bodies: vec![index] }),
        None => None,
    }
}

/// The thing called `name` in `snapshot`, if any.
pub fn thing_named(snapshot: &SceneSnapshot, name: &str) -> Option<Thing> {
    if snapshot.bodies.iter().any(|b| b.robot.as_deref() == Some(name)) {
        return Some(Thing { name: name.to_owned(), bodies: bodies_of_robot(&snapshot.bodies, name) });
    }
    let index = snapshot.bodies.iter().position(|b| b.name == name && b.robot.is_none() && placeable(b))?;
    Some(Thing { name: name.to_owned(), bodies: vec![index] })
}

/// Whether a body of no robot may be placed: it moves, or somebody added it.
fn placeable(body: &BodyView) -> bool {
    !body.fixed || body.owner.is_some()
}

fn bodies_of_robot(bodies: &[BodyView], robot: &str) -> Vec<usize> {
    (0..bodies.len()).filter(|&i| bodies[i].robot.as_deref() == Some(robot)).collect()
}

/// Where the thing whose main body is at `pose` stands, as a placement.
pub fn placement_of(pose: &Pose) -> Placement {
    Placement { position: pose.position, heading: heading(pose.rotation) }
}

/// Every pose of `poses` (the thing's bodies, the main one first) moved rigidly so the
/// main one stands at `to`: turned about the vertical through it, then carried. What
/// the server does to the bodies, drawn ahead of its answer.
pub fn moved_rigidly(poses: &[Pose], to: Placement) -> Vec<Pose> {
    let Some(main) = poses.first() else { return Vec::new() };
    let turn = axis_angle([0.0, 1.0, 0.0], wrap_angle(to.heading - heading(main.rotation)));
    poses
        .iter()
        .map(|pose| {
            let offset = rotate(turn, sub(pose.position, main.position));
            Pose {
                position: [to.position[0] + offset[0], to.position[1] + offset[1], to.position[2] + offset[2]],
                rotation: normalized(multiply(turn, pose.rotation)),
            }
        })
        .collect()
}

/// When a drag's next placement may go: at most one every [`DRAG_SEND_INTERVAL_MS`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SendPace {
    last_ms: Option<f64>,
}

impl SendPace {
    /// Whether a placement may go at `now_ms`; if so, it counts as sent.
    pub fn may_send(&mut self, now_ms: f64) -> bool {
        if self.last_ms.is_some_and(|last| now_ms - last < DRAG_SEND_INTERVAL_MS) {
            return false;
        }
        self.last_ms = Some(now_ms);
        true
    }
}

/// Where things were before the placements the server accepted, newest last, so Undo
/// puts the last one back; at most [`UNDO_DEPTH`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UndoList {
    entries: Vec<(String, Placement)>,
}

impl UndoList {
    /// A placement of `name` was accepted; it stood at `before`.
    pub fn accepted(&mut self, name: &str, before: Placement) {
        self.entries.push((name.to_owned(), before));
        if self.entries.len() > UNDO_DEPTH {
            self.entries.remove(0);
        }
    }

    /// The placement that undoes the last one, left in the list until the server
    /// accepts it.
    pub fn last(&self) -> Option<&(String, Placement)> {
        self.entries.last()
    }

    /// The undo was accepted: it is forgotten.
    pub fn undone(&mut self) {
        self.entries.pop();
    }

    /// Whether there is nothing to undo.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f32::consts::{FRAC_PI_2, PI};

    fn ray(origin: [f32; 3], direction: [f32; 3]) -> Ray {
        Ray { origin, direction }
    }

    fn close(a: [f32; 3], b: [f32; 3]) -> bool {
        a.iter().zip(b).all(|(a, b)| (a - b).abs() < 1e-4)
    }

    #[test]
    fn a_ray_meets_the_level_plane_ahead_and_not_behind_nor_along_it() {
        let down = ray([0.0, 5.0, 0.0], [0.6, -0.8, 0.0]);
        assert!(close(ray_on_level(&down, 1.0).unwrap(), [3.0, 1.0, 0.0]));
        assert_eq!(ray_on_level(&down, 6.0), None, "behind the eye");
        assert_eq!(ray_on_level(&ray([0.0, 5.0, 0.0], [1.0, 0.0, 0.0]), 1.0), None, "along it");
        let grazing = ray([0.0, 5.0, 0.0], [1.0, -0.001, 0.0]);
        assert_eq!(ray_on_level(&grazing, 0.0), None, "out of reach");
    }

    #[test]
    fn a_ground_drag_keeps_the_grab_offset_height_and_heading() {
        let start = Placement { position: [1.0, 0.2, 1.0], heading: 0.3 };
        // Grabbed 0.5 m to the thing's +X side, from straight above.
        let grab = GroundDrag::grab(start, &ray([1.5, 5.0, 1.0], [0.0, -1.0, 0.0])).unwrap();
        assert!(close(grab.grabbed, [1.5, 0.2, 1.0]));
        let moved = grab.to(&ray([3.5, 5.0, -2.0], [0.0, -1.0, 0.0]), start).unwrap();
        assert!(close(moved.position, [3.0, 0.2, -2.0]), "{moved:?}");
        assert_eq!(moved.heading, 0.3);
        // Lifted and turned meanwhile: the drag keeps both.
        let now = turned(lifted(start, 0.1), 0.2);
        let moved = grab.to(&ray([1.5, 5.0, 1.0], [0.0, -1.0, 0.0]), now).unwrap();
        assert!(close(moved.position, [1.0, 0.3, 1.0]) && (moved.heading - 0.5).abs() < 1e-6, "{moved:?}");
        // A slanted ray: the point on the plane, not on the floor.
        let slanted = grab.to(&ray([0.0, 2.2, 0.0], [0.6, -0.8, 0.0]), start).unwrap();
        assert!(close(slanted.position, [1.0, 0.2, 1.0 - 1.0]), "{slanted:?}");
    }

    #[test]
    fn turns_wrap_and_lifts_follow_the_pointer() {
        let p = Placement { position: [0.0; 3], heading: PI - 0.1 };
        assert!((turned(p, 0.2).heading - (-PI + 0.1)).abs() < 1e-5);
        assert!((turned(p, -4.0 * PI).heading - (PI - 0.1)).abs() < 1e-5);
        assert_eq!(wrap_angle(-PI), PI);
        assert!(lift_of_drag(-10.0, 5.0) > 0.0, "up the screen lifts");
        assert!((lift_of_drag(10.0, 5.0) + 0.1).abs() < 1e-6);
        assert!(close(lifted(p, LIFT_STEP_M).position, [0.0, 0.05, 0.0]));
    }

    #[test]
    fn a_robot_moves_rigidly_about_its_main_body() {
        let main = Pose { position: [1.0, 0.2, 0.0], rotation: [0.0, 0.0, 0.0, 1.0] };
        let wheel = Pose { position: [2.0, 0.1, 0.0], rotation: [0.0, 0.0, 0.0, 1.0] };
        let to = Placement { position: [5.0, 0.2, 5.0], heading: FRAC_PI_2 };
        let moved = moved_rigidly(&[main, wheel], to);
        assert!(close(moved[0].position, [5.0, 0.2, 5.0]));
        assert!((heading(moved[0].rotation) - FRAC_PI_2).abs() < 1e-5);
        // +X turned a quarter counter-clockwise seen from above is −Z.
        assert!(close(moved[1].position, [5.0, 0.1, 4.0]), "{:?}", moved[1].position);
        assert!((placement_of(&moved[1]).heading - FRAC_PI_2).abs() < 1e-5);
    }

    #[test]
    fn a_drag_sends_a_few_a_second() {
        let mut pace = SendPace::default();
        assert!(pace.may_send(1000.0));
        assert!(!pace.may_send(1000.0 + DRAG_SEND_INTERVAL_MS - 1.0));
        assert!(pace.may_send(1000.0 + DRAG_SEND_INTERVAL_MS));
        let sent = (0..1000).filter(|ms| pace.may_send(2000.0 + *ms as f64)).count();
        assert_eq!(sent, 4, "a second of pointer moves");
    }

    #[test]
    fn undo_goes_back_one_accepted_placement_at_a_time() {
        let at = |x: f32| Placement { position: [x, 0.0, 0.0], heading: 0.0 };
        let mut undo = UndoList::default();
        assert!(undo.is_empty());
        undo.accepted("crate", at(1.0));
        undo.accepted("bot", at(2.0));
        assert_eq!(undo.last(), Some(&("bot".to_owned(), at(2.0))));
        undo.undone();
        assert_eq!(undo.last(), Some(&("crate".to_owned(), at(1.0))));
        for i in 0..2 * UNDO_DEPTH {
            undo.accepted("crate", at(i as f32));
        }
        let mut count = 0;
        while undo.last().is_some() {
            undo.undone();
            count += 1;
        }
        assert_eq!(count, UNDO_DEPTH);
    }

    #[test]
    fn things_are_robots_or_bodies_that_move() {
        let body = |name: &str, fixed: bool, robot: Option<&str>, owner: Option<u32>| BodyView {
            id: vlab_protocol::BodyId(0),
            name: name.into(),
            parts: vec![],
            pose: Pose::IDENTITY,
            fixed,
            robot: robot.map(str::to_owned),
            owner,
        };
        let snapshot = SceneSnapshot {
            epoch: 1,
            sky: [0, 0, 0],
            links: vec![],
            zones: vec![],
            bodies: vec![
                body("floor", true, None, None),
                body("bot_body", false, Some("bot"), None),
                body("crate", false, None, None),
                body("bot_wheel", false, Some("bot"), None),
                body("ana_ramp_1", true, None, Some(3)),
            ],
        };
        assert_eq!(thing_of(&snapshot, 0), None, "the floor");
        let bot = Thing { name: "bot".into(), bodies: vec![1, 3] };
        assert_eq!(thing_of(&snapshot, 3), Some(bot.clone()), "a wheel picks its robot");
        assert_eq!(thing_of(&snapshot, 2), Some(Thing { name: "crate".into(), bodies: vec![2] }));
        assert_eq!(thing_named(&snapshot, "bot"), Some(bot));
        assert_eq!(thing_named(&snapshot, "floor"), None);
        let ramp = Thing { name: "ana_ramp_1".into(), bodies: vec![4] };
        assert_eq!(thing_of(&snapshot, 4), Some(ramp.clone()), "a fixed object somebody added");
        assert_eq!(thing_named(&snapshot, "ana_ramp_1"), Some(ramp));
    }
}
