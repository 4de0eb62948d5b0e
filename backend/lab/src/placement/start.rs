//! Where a new robot starts when its description leaves that to the lab (`{x}` and `{z}`
//! in its text): the spot nearest the middle of the floor where it stands over something
//! fixed, is clear of every body where it is now and of every moving body where it
//! starts (so a reset never stacks robots), and has around it the free floor it asks for
//! (walls, fences and other robots kept that far away). When no spot has that much, the
//! most the floor offers, and the reply says so.
//!
//! The obstacles are gathered on the lab's thread ([`StartSearch::of`]); the search runs
//! off it, so a large floor costs the uploader's request, not the lab's steps. Two
//! uploads that choose at once can choose the same spot: the insertion's own check
//! ([`super::check_insert_robots`]) refuses the second, which chooses again.

use std::collections::BTreeMap;

use super::OVERLAP_TOLERANCE_M;
use super::clear::{Obstacles, solids_at};
use super::ground::Ground;
use vlab_sim::scene::SceneModel;
use vlab_sim::sim::{Solids, World};

/// Free floor a robot gets around it when its upload asks for none, metres from its
/// centre: another course robot then starts at least a metre away.
pub const DEFAULT_CLEARANCE_M: f32 = 0.75;
/// The most free floor an upload may ask for, metres.
pub const MAX_CLEARANCE_M: f32 = 5.0;
/// Spacing of the spots tried, metres.
pub const START_GRID_M: f32 = 0.25;
/// How far above its lowest point the free floor around a robot is checked, metres: a
/// floor it stands on is not in the way, a fence's lowest rail is.
const FLOOR_SKIP_M: f32 = 0.03;

/// Where a robot was put, and how much free floor it has there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Start {
    /// Where its main body starts, along world X (metres).
    pub x: f32,
    /// ... and world Z.
    pub z: f32,
    /// The free floor around it, metres from its centre: what it asked for, or less
    /// when no spot had that much.
    pub clearance_m: f32,
}

/// Why no start was chosen.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NoStart {
    /// The lab has no environment, so no floor to choose on.
    #[error(
        "this lab has no floor the lab can choose a start on: write the robot's x and z instead of {{x}} and {{z}}"
    )]
    NoFloor,
    /// The description has no robot to place.
    #[error("the description has no robot for {{x}} and {{z}} to place")]
    NoRobot,
    /// The objects to place are none.
    #[error("there is no object to place")]
    NoObject,
    /// Every spot of the floor is taken, for an object.
    #[error("there is no clear spot on the lab's floor for object '{object}'; make room first")]
    NoRoomForObject {
        /// The object that would not fit.
        object: String,
    },
    /// Every spot of the floor is taken.
    #[error("there is no clear spot on the lab's floor for robot '{robot}'; make room first")]
    NoRoom {
        /// The robot that would not fit.
        robot: String,
    },
}

/// What a start must keep clear of: the lab's bodies where they are and where they
/// start, the free floor earlier robots asked for, and what holds robots up, as they
/// were when gathered.
pub struct StartSearch {
    obstacles: Solids,
    /// The free floor around the starts of robots the lab placed, as they asked for it:
    /// a new robot may not stand in it (its own free floor may overlap it).
    asked: Solids,
    ground: Ground,
}

/// How high the free floor kept around a robot's start reaches, metres above its main
/// body: enough for any robot put beside it.
const KEPT_FLOOR_HEIGHT_M: f32 = 2.0;

impl StartSearch {
    /// The obstacles of the lab whose model is `model` and world `world`, with the free
    /// floor `kept_clear` (metres, by robot) around the starts of robots placed before.
    pub fn of(model: &SceneModel, world: &World, kept_clear: &BTreeMap<String, f32>) -> StartSearch {
        let mut asked = Solids::new();
        for robot in model.robots.iter().filter(|r| kept_clear.contains_key(&r.name)) {
            let Some(body) = model.bodies.get(robot.main_body) else { continue };
            let [x, y, z] = body.pose.position;
            asked.add_upright_cylinder(
                [x, z],
                kept_clear[&robot.name],
                y.min(FLOOR_SKIP_M),
                y + KEPT_FLOOR_HEIGHT_M,
                0,
            );
        }
        let obstacles = Obstacles::of(model, world, &[], true).into_solids();
        StartSearch { obstacles, asked, ground: Ground::of(model, None) }
    }

    /// The start of `addition`'s robots (moved together, placed where its first robot's
    /// main body is at the origin of the floor grid), with `wanted_m` of free floor around
    /// its first robot if any spot has it, else with the most any spot has (halving what
    /// is asked, down to none).
    pub fn choose(&self, addition: &SceneModel, wanted_m: f32) -> Result<Start, NoStart> {
        let robot = addition.robots.first().ok_or(NoStart::NoRobot)?;
        let main = addition.bodies.get(robot.main_body).ok_or(NoStart::NoRobot)?.pose.position;
        let placed = solids_at(addition.bodies.iter().filter(|b| b.robot.is_some()).map(|b| (b, &b.pose)));
        self.choose_for(main, &placed, wanted_m).ok_or_else(|| NoStart::NoRoom { robot: robot.name.clone() })?
    }

    /// Where `addition`'s objects go (moved together, placed where its first body is at
    /// the origin of the floor grid): as [`StartSearch::choose`] for a robot, with
    /// `wanted_m` of free floor around the first body if any spot has it.
    pub fn choose_for_objects(&self, addition: &SceneModel, wanted_m: f32) -> Result<Start, NoStart> {
        let first = addition.bodies.first().ok_or(NoStart::NoObject)?;
        let placed = solids_at(addition.bodies.iter().map(|b| (b, &b.pose)));
        self.choose_for(first.pose.position, &placed, wanted_m)
            .ok_or_else(|| NoStart::NoRoomForObject { object: first.name.clone() })?
    }

    /// The first spot where `placed` (whose main point is `main`) fits with the most
    /// free floor up to `wanted_m` around it; `None` when no spot has room at all.
    fn choose_for(&self, main: [f32; 3], placed: &Solids, wanted_m: f32) -> Option<Result<Start, NoStart>> {
        let Some((width, length)) = self.ground.floor() else { return Some(Err(NoStart::NoFloor)) };
        let Some((low, high)) = placed.bounds() else { return Some(Err(NoStart::NoRobot)) };
        let spots = spots_of_floor(width, length);
        let bottom = low[1] + FLOOR_SKIP_M;
        let top = high[1].max(bottom + 0.05);
        for clearance in clearances(wanted_m) {
            let mut around = Solids::new();
            if clearance > 0.0 {
                around.add_upright_cylinder([main[0], main[2]], clearance, bottom, top, 0);
            }
            for &[x, z] in &spots {
                let offset = [x - main[0], 0.0, z - main[2]];
                let clear = |of: &Solids, solids: &Solids, tolerance| {
                    solids.is_empty() || of.is_empty() || of.deepest_overlap(solids, offset, tolerance).is_none()
                };
                if self.ground.holds([x, main[1], z])
                    && clear(&self.obstacles, placed, OVERLAP_TOLERANCE_M)
                    && clear(&self.asked, placed, 0.0)
                    && clear(&self.obstacles, &around, 0.0)
                {
                    return Some(Ok(Start { x, z, clearance_m: clearance }));
                }
            }
        }
        None
    }
}

/// What to ask of a spot, most first: `wanted_m`, then half of it, down to none.
fn clearances(wanted_m: f32) -> Vec<f32> {
    let wanted = if wanted_m.is_finite() { wanted_m.clamp(0.0, MAX_CLEARANCE_M) } else { DEFAULT_CLEARANCE_M };
    let mut asks: Vec<f32> = [1.0, 0.5, 0.25].iter().map(|share| wanted * share).filter(|m| *m >= 0.1).collect();
    asks.push(0.0);
    asks
}

/// The grid spots of a floor `width` by `length` (from the origin), nearest its middle
/// first; equally near, by X then Z, so the same lab always gives the same order.
fn spots_of_floor(width: f32, length: f32) -> Vec<[f32; 2]> {
    let columns = (width / START_GRID_M).floor().max(0.0) as i32;
    let rows = (length / START_GRID_M).floor().max(0.0) as i32;
    let middle = [width * 0.5, length * 0.5];
    let mut spots: Vec<[f32; 2]> = (0..=columns)
        .flat_map(|i| (0..=rows).map(move |j| [i as f32 * START_GRID_M, j as f32 * START_GRID_M]))
        .collect();
    let away = |spot: &[f32; 2]| (spot[0] - middle[0]).powi(2) + (spot[1] - middle[1]).powi(2);
    spots.sort_by(|a, b| away(a).total_cmp(&away(b)).then(a[0].total_cmp(&b[0])).then(a[1].total_cmp(&b[1])));
    spots
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::placement::check_insert_robots;
    use vlab_sim::scene::{self, MapLoader};

    fn model(source: &str) -> SceneModel {
        let options = scene::Options::default();
        scene::interpret(source, "s.vlab", &MapLoader::new(), &options).expect("the scene builds").model
    }

    /// A course-sized robot (0.3 m across) with its main body at `x`, `z`.
    fn robot_at(name: &str, x: f32, z: f32) -> SceneModel {
        model(&format!(
            "robot {name} {{ body {{ {name}_base {{ shape box(0.3, 0.15, 0.3); pos({x}, 0.075, {z}); }} }} }}"
        ))
    }

    fn moved(name: &str, start: Start) -> SceneModel {
        robot_at(name, start.x, start.z)
    }

    const ROOM: &str = "environment wallrect { width 6; length 6; height 0.5; }";

    #[test]
    fn the_first_robot_starts_in_the_middle_of_the_floor() {
        let lab = model(ROOM);
        let world = World::build(&lab).unwrap();
        let start = StartSearch::of(&lab, &world, &BTreeMap::new())
            .choose(&robot_at("a", 0.0, 0.0), DEFAULT_CLEARANCE_M)
            .unwrap();
        assert_eq!(start, Start { x: 3.0, z: 3.0, clearance_m: DEFAULT_CLEARANCE_M });
    }

    #[test]
    fn robots_added_one_after_another_start_apart_and_a_reset_would_not_stack_them() {
        let mut lab = model(ROOM);
        let mut starts: Vec<Start> = Vec::new();
        for name in ["a", "b", "c", "d"] {
            let mut world = World::build(&lab).unwrap();
            // Every robot drives away from its start: the next one must still keep clear of it.
            for robot in &lab.robots {
                let body = robot.main_body;
                world.move_rigidly(&[body], body, [0.5, 0.075, 0.5], 0.0);
            }
            let start = StartSearch::of(&lab, &world, &BTreeMap::new())
                .choose(&robot_at(name, 0.0, 0.0), DEFAULT_CLEARANCE_M)
                .unwrap();
            let addition = moved(name, start);
            assert_eq!(check_insert_robots(&lab, &world, &addition), Ok(()), "{name} at {start:?}");
            for earlier in &starts {
                let apart = ((earlier.x - start.x).powi(2) + (earlier.z - start.z).powi(2)).sqrt();
                assert!(apart >= DEFAULT_CLEARANCE_M + 0.15 - 1e-3, "{name} {start:?} is {apart} m from {earlier:?}");
            }
            assert_eq!(start.clearance_m, DEFAULT_CLEARANCE_M);
            starts.push(start);
            lab.merge(&addition).unwrap();
        }
    }

    #[test]
    fn a_later_robot_keeps_out_of_the_free_floor_an_earlier_one_asked_for() {
        let mut lab = model("environment wallrect { width 12; length 12; height 0.5; }");
        lab.merge(&robot_at("goer", 6.0, 6.0)).unwrap();
        let world = World::build(&lab).unwrap();
        let kept = BTreeMap::from([("goer".to_owned(), 2.5)]);
        let start = StartSearch::of(&lab, &world, &kept).choose(&robot_at("b", 0.0, 0.0), DEFAULT_CLEARANCE_M).unwrap();
        let apart = ((start.x - 6.0).powi(2) + (start.z - 6.0).powi(2)).sqrt();
        assert!(apart >= 2.5 + 0.15 - 1e-3, "out of the 2.5 m the first asked for: {start:?}");
        let unkept =
            StartSearch::of(&lab, &world, &BTreeMap::new()).choose(&robot_at("b", 0.0, 0.0), DEFAULT_CLEARANCE_M);
        assert!(unkept.unwrap().x < 6.0 + 1.5, "without it, next to it");
    }

    #[test]
    fn a_start_keeps_the_free_floor_it_asks_for_from_walls_and_fences() {
        // A fence 1.2 m inside the west wall: the strip behind it is floor, but not free.
        let lab = model(&format!("{ROOM}\nstatic fence {{ shape box(0.05, 0.2, 6); pos(1.2, 0.1, 3); }}"));
        let world = World::build(&lab).unwrap();
        let search = StartSearch::of(&lab, &world, &BTreeMap::new());
        let start = search.choose(&robot_at("a", 0.0, 0.0), 1.5).unwrap();
        assert!(start.x >= 1.2 + 1.5 && start.x <= 6.0 - 1.5, "{start:?}");
        assert_eq!(start.clearance_m, 1.5);
    }

    #[test]
    fn when_no_spot_has_what_is_asked_the_most_there_is_is_given_and_said() {
        let lab = model(ROOM);
        let world = World::build(&lab).unwrap();
        let start = StartSearch::of(&lab, &world, &BTreeMap::new()).choose(&robot_at("a", 0.0, 0.0), 4.0).unwrap();
        assert_eq!(start.clearance_m, 2.0, "a 6 m room has no 4 m of free floor around any spot: half that");
        assert_eq!((start.x, start.z), (3.0, 3.0));
    }

    #[test]
    fn a_full_floor_or_no_floor_is_said() {
        let full = model(&format!("{ROOM}\nstatic slab {{ shape box(6, 1, 6); pos(3, 0.5, 3); }}"));
        let world = World::build(&full).unwrap();
        let refused =
            StartSearch::of(&full, &world, &BTreeMap::new()).choose(&robot_at("bob", 0.0, 0.0), 0.5).unwrap_err();
        assert_eq!(refused, NoStart::NoRoom { robot: "bob".into() });
        let bare = model("static floor { shape box(6, 0.1, 6); pos(3, -0.05, 3); }");
        let world = World::build(&bare).unwrap();
        assert_eq!(
            StartSearch::of(&bare, &world, &BTreeMap::new()).choose(&robot_at("a", 0.0, 0.0), 0.5),
            Err(NoStart::NoFloor)
        );
    }

    #[test]
    fn what_is_asked_is_halved_down_to_nothing_and_kept_within_bounds() {
        assert_eq!(clearances(2.0), vec![2.0, 1.0, 0.5, 0.0]);
        assert_eq!(clearances(0.15), vec![0.15, 0.0], "less than 10 cm is not worth asking for");
        assert_eq!(clearances(0.0), vec![0.0]);
        assert_eq!(clearances(99.0)[0], MAX_CLEARANCE_M);
        assert_eq!(clearances(f32::NAN)[0], DEFAULT_CLEARANCE_M);
    }
}
