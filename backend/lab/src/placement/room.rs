//! Inside the room: a change of the room (`SceneModel::with_room`) must leave every moving
//! body (robots' and props) standing in it, where it is now and where it starts (a reset,
//! and a restart, put it back there). A wall moved through a robot would have the
//! physics throw it across the room; a room shrunk past it would leave it outside for
//! good; a floor grown under a body that fell off the old one would hold it inside the
//! slab. Refused instead, naming the body and where it is.

use super::clear::{OVERLAP_TOLERANCE_M, words};
use vlab_sim::scene::{EnvironmentKind, EnvironmentModel, Motion, SceneModel};
use vlab_sim::sim::{Solids, World};

/// A room change would leave a body outside the new room, under its floor or sunk into
/// its walls; the lab is unchanged.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{what} at x {x:.2}, y {y:.2}, z {z:.2} would {problem}, so the room was not changed: {}", self.remedy())]
pub struct OutsideRoom {
    /// The body: `robot 'name'` or a body's name in quotes, and `where it starts` for
    /// its start.
    pub what: String,
    /// Whether it is the body's start (else where it is now).
    pub start: bool,
    /// The middle of its bounds, along world X...
    pub x: f32,
    /// ... Y ...
    pub y: f32,
    /// ... and Z.
    pub z: f32,
    /// What would be wrong.
    pub problem: Problem,
}

/// What a room change would do to a body.
#[derive(Debug, Clone, PartialEq)]
pub enum Problem {
    /// It would stand outside the new room's walls (or above its ceiling).
    Outside {
        /// The new room's extent along X...
        width: f32,
        /// ... along Z...
        length: f32,
        /// ... and its ceiling, for a room that has one.
        ceiling: Option<f32>,
    },
    /// It fell off the old floor, and the new floor would reach over it.
    UnderFloor,
    /// It would sink into the new floor, a new wall or the new ceiling.
    Sinks {
        /// Which: `'wall_east'`.
        into: String,
        /// How deep, metres.
        depth_m: f32,
    },
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Outside { width, length, ceiling: None } => {
                write!(f, "be outside the new room (x 0 to {width}, z 0 to {length})")
            }
            Problem::Outside { width, length, ceiling: Some(height) } => {
                write!(f, "be outside the new room (x 0 to {width}, z 0 to {length}, y 0 to {height})")
            }
            Problem::UnderFloor => write!(f, "be under the new floor"),
            Problem::Sinks { into, depth_m } => write!(f, "sink {depth_m:.2} m into the new {into}"),
        }
    }
}

impl OutsideRoom {
    fn remedy(&self) -> &'static str {
        match (&self.problem, self.start) {
            (Problem::UnderFloor, _) => "remove it or reset the lab first, or keep the floor as it is",
            (_, false) => "move it inside the new room first, or change the room less",
            (_, true) => "move its start inside the new room first (or reset the lab), or change the room less",
        }
    }
}

/// Whether the room of `after` (the lab's model `before` with its room changed) leaves
/// every moving body of `world` inside it, where it is and where it starts.
pub fn check_room(before: &SceneModel, after: &SceneModel, world: &World) -> Result<(), OutsideRoom> {
    let (Some(old_room), Some(new_room)) = (&before.environment, &after.environment) else { return Ok(()) };
    let walls = after.environment_body_indices();
    let old_walls: Vec<Solids> = walls.iter().map(|&i| solids_of(before, i)).collect();
    let new_walls: Vec<Solids> = walls.iter().map(|&i| solids_of(after, i)).collect();
    for (index, body) in before.bodies.iter().enumerate().filter(|(_, b)| b.motion == Motion::Dynamic) {
        let mut now = Solids::new();
        now.add_world_body(world, index, 0);
        let mut start = Solids::new();
        start.add_body(body, &body.pose, 0);
        for (solids, is_start) in [(now, false), (start, true)] {
            let Some((low, high)) = solids.bounds() else { continue };
            let middle = [0, 1, 2].map(|axis| (low[axis] + high[axis]) * 0.5);
            let refuse = |problem: Problem| {
                let what = if is_start { format!("{} where it starts", words(body)) } else { words(body) };
                let [x, y, z] = middle;
                Err(OutsideRoom { what, start: is_start, x, y, z, problem })
            };
            let (was, will) = (inside(old_room, middle), inside(new_room, middle));
            if was && !will {
                let ceiling = (new_room.kind == EnvironmentKind::Room).then_some(new_room.height);
                return refuse(Problem::Outside { width: new_room.width, length: new_room.length, ceiling });
            }
            if will && !was && middle[1] < 0.0 {
                return refuse(Problem::UnderFloor);
            }
            for ((&wall, old), new) in walls.iter().zip(&old_walls).zip(&new_walls) {
                let depth =
                    |wall: &Solids| wall.deepest_overlap(&solids, [0.0; 3], OVERLAP_TOLERANCE_M).map(|o| o.depth);
                let Some(deeper) = depth(new) else { continue };
                // Sunk as deep into the old one already, this change is not what put it there.
                if depth(old).is_none_or(|before| deeper > before + 1e-3) {
                    let into = format!("'{}'", after.bodies[wall].name);
                    return refuse(Problem::Sinks { into, depth_m: deeper });
                }
            }
        }
    }
    Ok(())
}

/// The solids of body `index` of `model` where it starts (the environment's never move).
fn solids_of(model: &SceneModel, index: usize) -> Solids {
    let mut solids = Solids::new();
    let body = &model.bodies[index];
    solids.add_body(body, &body.pose, 0);
    solids
}

/// Whether `point` is within the room's walls, and below its ceiling if it has one.
fn inside(room: &EnvironmentModel, [x, y, z]: [f32; 3]) -> bool {
    let under_ceiling = room.kind == EnvironmentKind::WallRect || y <= room.height;
    (0.0..=room.width).contains(&x) && (0.0..=room.length).contains(&z) && under_ceiling
}

#[cfg(test)]
mod tests {
    use super::*;
    use vlab_sim::scene::{self, MapLoader, Palette};

    fn lab(source: &str) -> (SceneModel, World) {
        let options = scene::Options::default();
        let model = scene::interpret(source, "s.vlab", &MapLoader::new(), &options).expect("the scene builds").model;
        let world = World::build(&model).unwrap();
        (model, world)
    }

    fn changed(model: &SceneModel, json: &str) -> SceneModel {
        model.with_room(&serde_json::from_str(json).unwrap(), &Palette::default()).unwrap()
    }

    const SCENE: &str = "environment room { width 10; length 8; height 3; }\n\
        robot bot { body { bot_base { shape box(0.4, 0.2, 0.4); pos(8, 0.1, 4); } } }\n\
        crate1 { shape box(0.5, 0.5, 0.5); pos(2, 0.25, 2); }";

    #[test]
    fn a_larger_room_or_one_that_keeps_everything_inside_passes() {
        let (model, world) = lab(SCENE);
        assert_eq!(check_room(&model, &changed(&model, r#"{"width": 14, "length": 12, "height": 4}"#), &world), Ok(()));
        assert_eq!(check_room(&model, &changed(&model, r#"{"width": 8.5}"#), &world), Ok(()), "0.3 m to spare");
        assert_eq!(check_room(&model, &changed(&model, r#"{"ground": "Wood"}"#), &world), Ok(()));
    }

    #[test]
    fn a_room_shrunk_past_a_robot_is_refused_naming_it_and_where_it_is() {
        let (model, world) = lab(SCENE);
        let refused = check_room(&model, &changed(&model, r#"{"width": 6}"#), &world).unwrap_err();
        assert_eq!((refused.what.as_str(), refused.start), ("robot 'bot'", false));
        assert_eq!(refused.problem, Problem::Outside { width: 6.0, length: 8.0, ceiling: Some(3.0) });
        let message = refused.to_string();
        assert!(
            message.starts_with("robot 'bot' at x 8.00, y 0.10, z 4.00 would be outside the new room"),
            "{message}"
        );
        assert!(message.contains("(x 0 to 6, z 0 to 8, y 0 to 3)"), "{message}");
    }

    #[test]
    fn a_wall_moved_into_a_robot_is_refused_with_how_deep() {
        let (model, world) = lab(SCENE);
        // The east wall's inner face at x 8.1: 0.1 m into the robot, whose middle stays inside.
        let refused = check_room(&model, &changed(&model, r#"{"width": 8.1}"#), &world).unwrap_err();
        let Problem::Sinks { into, depth_m } = &refused.problem else { panic!("{refused:?}") };
        assert_eq!(into, "'wall_east'");
        assert!((depth_m - 0.1).abs() < 1e-3, "{depth_m}");
        let low = check_room(&model, &changed(&model, r#"{"height": 0.15}"#), &world).unwrap_err();
        assert!(matches!(&low.problem, Problem::Sinks { into, .. } if into == "'ceiling'"), "{low:?}");
    }

    #[test]
    fn where_a_robot_starts_must_stay_inside_too() {
        let (model, mut world) = lab(SCENE);
        let bot = model.body_index("bot_base").unwrap();
        world.move_rigidly(&[bot], bot, [3.0, 0.1, 4.0], 0.0);
        let refused = check_room(&model, &changed(&model, r#"{"width": 6}"#), &world).unwrap_err();
        assert_eq!((refused.what.as_str(), refused.start), ("robot 'bot' where it starts", true));
        assert!(refused.to_string().contains("move its start inside the new room first"), "{refused}");
    }

    #[test]
    fn a_floor_grown_over_a_body_that_fell_off_is_refused_but_one_beside_it_is_not() {
        let (model, mut world) = lab(SCENE);
        let crate1 = model.body_index("crate1").unwrap();
        world.move_rigidly(&[crate1], crate1, [12.0, -2.0, 4.0], 0.0);
        let mut model = model;
        model.bodies[crate1].pose.position = [12.0, -2.0, 4.0];
        let refused = check_room(&model, &changed(&model, r#"{"width": 14}"#), &world).unwrap_err();
        assert_eq!((refused.what.as_str(), &refused.problem), ("'crate1'", &Problem::UnderFloor));
        assert_eq!(check_room(&model, &changed(&model, r#"{"width": 11}"#), &world), Ok(()), "it stays outside");
    }
}
