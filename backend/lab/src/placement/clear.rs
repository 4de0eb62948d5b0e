//! Clear of everything else: a robot inserted, a body moved or a robot put back at its
//! start must not sink into another body. The physics pushes overlapping bodies apart at
//! once and hard: a heavy robot uploaded onto another pushed it through the floor, a
//! robot moved half into a wall was thrown across the room. Refused instead, with the
//! nearest spot where it would fit.

use super::ground::Ground;
use vlab_sim::scene::{BodyModel, Motion, Pose, SceneModel};
use vlab_sim::sim::{BodyIndex, Solids, World};

/// Two bodies may sink this far into each other (metres) and count as touching: a
/// wheel resting on the floor, a caster a few millimetres into it as its scene drew it.
/// Deeper, the physics throws them apart.
pub const OVERLAP_TOLERANCE_M: f32 = 0.02;
/// The grid of spots tried around a refused one, metres apart.
pub const FIT_STEP_M: f32 = 0.25;
/// How far from a refused spot another is looked for, metres.
pub const FIT_RADIUS_M: f32 = 8.0;

/// Something would sink into another body; the lab is unchanged.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "{what} at x {x:.2}, z {z:.2} would sink {depth_m:.2} m into {other}, and the physics would throw them apart: {}",
    .remedy
)]
pub struct Overlap {
    /// What was placed: `robot 'name'`, or a body's name in quotes.
    pub what: String,
    /// Where its main body would be, along world X.
    pub x: f32,
    /// ... and world Z.
    pub z: f32,
    /// What it would sink into, e.g. `robot 'ana' where it starts`, `'wall_north'`.
    pub other: String,
    /// How deep, metres.
    pub depth_m: f32,
    /// What to do instead.
    pub remedy: Remedy,
}

/// What to do about an overlap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Remedy {
    /// Put it here instead: the nearest spot (x, z of its main body) where it is clear
    /// and stands.
    FitsAt([f32; 2]),
    /// Nothing near is clear.
    NoRoom,
    /// A robot put back at its start: what stands there now must move first.
    ClearItsStart,
}

impl std::fmt::Display for Remedy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Remedy::FitsAt([x, z]) => write!(f, "it would fit at x {x:.2}, z {z:.2}"),
            Remedy::NoRoom => write!(f, "there is no clear spot for it within {FIT_RADIUS_M} m; make room first"),
            Remedy::ClearItsStart => write!(
                f,
                "move what stands at its start away first (or reset the whole lab, which puts everything back at its start)"
            ),
        }
    }
}

/// What a placement keeps clear of, labelled so a refusal can name it.
pub struct Obstacles<'a> {
    solids: Solids,
    model: &'a SceneModel,
    /// Bodies of an insertion, numbered after the lab's.
    addition: Option<&'a SceneModel>,
}

impl<'a> Obstacles<'a> {
    /// Every body of the lab where it is now, except `except`; with `starts`, every
    /// moving body also where it starts (a reset puts it back there).
    pub fn of(model: &'a SceneModel, world: &World, except: &[BodyIndex], starts: bool) -> Obstacles<'a> {
        let mut solids = Solids::new();
        for (index, body) in model.bodies.iter().enumerate().filter(|(index, _)| !except.contains(index)) {
            solids.add_world_body(world, index, label(index, false));
            if starts && body.motion == Motion::Dynamic {
                solids.add_body(body, &body.pose, label(index, true));
            }
        }
        Obstacles { solids, model, addition: None }
    }

    /// The solids, without their names.
    pub fn into_solids(self) -> Solids {
        self.solids
    }

    /// Adds `bodies` of `addition` (an insertion) where they start.
    fn add_inserted(&mut self, addition: &'a SceneModel, bodies: &[BodyIndex]) {
        self.addition = Some(addition);
        let first = self.model.bodies.len();
        for &index in bodies {
            let body = &addition.bodies[index];
            self.solids.add_body(body, &body.pose, label(first + index, true));
        }
    }

    /// `Ok` when `placed` (named `what`, its main body at `main`) is clear of these
    /// obstacles; else the deepest overlap, with the nearest spot around where it is
    /// clear and `ground` holds it.
    pub fn check(&self, what: &str, placed: &Solids, main: [f32; 3], ground: &Ground) -> Result<(), Overlap> {
        let Some(overlap) = self.solids.deepest_overlap(placed, [0.0; 3], OVERLAP_TOLERANCE_M) else { return Ok(()) };
        Err(Overlap {
            what: what.to_owned(),
            x: main[0],
            z: main[2],
            other: self.name(overlap.label),
            depth_m: overlap.depth,
            remedy: self.fit(placed, main, ground).map_or(Remedy::NoRoom, Remedy::FitsAt),
        })
    }

    /// The nearest spot of a grid around `main` where `placed`, moved there, is clear and
    /// stands: rings of grid points outward, each ring nearest first.
    fn fit(&self, placed: &Solids, main: [f32; 3], ground: &Ground) -> Option<[f32; 2]> {
        let rings = (FIT_RADIUS_M / FIT_STEP_M).round() as i32;
        for ring in 1..=rings {
            let mut spots: Vec<(i32, i32)> = (-ring..=ring)
                .flat_map(|i| (-ring..=ring).map(move |j| (i, j)))
                .filter(|&(i, j)| i.abs() == ring || j.abs() == ring)
                .collect();
            spots.sort_by_key(|&(i, j)| (i * i + j * j, i, j));
            for (i, j) in spots {
                let offset = [i as f32 * FIT_STEP_M, 0.0, j as f32 * FIT_STEP_M];
                let spot = [main[0] + offset[0], main[1], main[2] + offset[2]];
                if ground.holds(spot) && self.solids.deepest_overlap(placed, offset, OVERLAP_TOLERANCE_M).is_none() {
                    return Some([spot[0], spot[2]]);
                }
            }
        }
        None
    }

    /// The words for obstacle `label`.
    fn name(&self, label: u32) -> String {
        let (index, start) = ((label / 2) as usize, label % 2 == 1);
        let body = match self.model.bodies.get(index) {
            Some(body) => body,
            None => match self.addition.and_then(|a| a.bodies.get(index - self.model.bodies.len())) {
                Some(body) => body,
                None => return "another body".into(),
            },
        };
        let what = words(body);
        if start { format!("{what} where it starts") } else { what }
    }
}

/// Labels an obstacle: a body of the lab (or of an insertion, after the lab's), where
/// it is now or where it starts.
fn label(index: BodyIndex, start: bool) -> u32 {
    index as u32 * 2 + u32::from(start)
}

/// A body in a refusal: its robot, or its own name.
pub fn words(body: &BodyModel) -> String {
    match &body.robot {
        Some(robot) => format!("robot '{robot}'"),
        None => format!("'{}'", body.name),
    }
}

/// The solids of `bodies` of `model` at `poses`.
pub fn solids_at<'b>(bodies: impl IntoIterator<Item = (&'b BodyModel, &'b Pose)>) -> Solids {
    let mut solids = Solids::new();
    for (body, pose) in bodies {
        solids.add_body(body, pose, 0);
    }
    solids
}

/// Whether every robot of `addition` is clear of the lab's bodies, now and where they
/// start, and of the insertion's robots before it.
pub fn check_insert(model: &SceneModel, world: &World, addition: &SceneModel, ground: &Ground) -> Result<(), Overlap> {
    let mut obstacles = Obstacles::of(model, world, &[], true);
    for robot in &addition.robots {
        let bodies: Vec<BodyIndex> = (0..addition.bodies.len())
            .filter(|&i| addition.bodies[i].robot.as_deref() == Some(robot.name.as_str()))
            .collect();
        let placed = solids_at(bodies.iter().map(|&i| (&addition.bodies[i], &addition.bodies[i].pose)));
        let main = addition.bodies[robot.main_body].pose.position;
        obstacles.check(&format!("robot '{}'", robot.name), &placed, main, ground)?;
        obstacles.add_inserted(addition, &bodies);
    }
    Ok(())
}

/// Whether the objects of `addition` (bodies of no robot) are clear of every body of
/// the lab where it is now and of every moving body where it starts, and of each other.
pub fn check_insert_objects(
    model: &SceneModel,
    world: &World,
    addition: &SceneModel,
    ground: &Ground,
) -> Result<(), Overlap> {
    let mut obstacles = Obstacles::of(model, world, &[], true);
    for (index, body) in addition.bodies.iter().enumerate().filter(|(_, b)| b.robot.is_none()) {
        let placed = solids_at(std::iter::once((body, &body.pose)));
        obstacles.check(&format!("object '{}'", body.name), &placed, body.pose.position, ground)?;
        obstacles.add_inserted(addition, &[index]);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use vlab_sim::scene::{self, MapLoader};

    fn model(source: &str) -> SceneModel {
        let options = scene::Options::default();
        scene::interpret(source, "s.vlab", &MapLoader::new(), &options).expect("the scene builds").model
    }

    fn robot_at(name: &str, x: f64, z: f64) -> SceneModel {
        model(&format!("robot {name} {{ body {{ {name}_base {{ shape box(0.4, 0.2, 0.4); pos({x}, 0.1, {z}); }} }} }}"))
    }

    fn lab(source: &str) -> (SceneModel, World) {
        let model = model(source);
        let world = World::build(&model).unwrap();
        (model, world)
    }

    fn insert(model: &SceneModel, world: &World, addition: &SceneModel) -> Result<(), Overlap> {
        check_insert(model, world, addition, &Ground::of(model, Some(addition)))
    }

    const ROOM: &str = "environment wallrect { width 6; length 6; height 0.5; }";

    #[test]
    fn a_robot_on_the_floor_of_an_empty_room_is_clear() {
        let (model, world) = lab(ROOM);
        assert_eq!(insert(&model, &world, &robot_at("a", 3.0, 3.0)), Ok(()));
    }

    #[test]
    fn a_robot_on_another_is_refused_with_the_nearest_clear_spot() {
        let (mut model, _) = lab(ROOM);
        model.merge(&robot_at("ana", 3.0, 3.0)).unwrap();
        let world = World::build(&model).unwrap();
        let refused = insert(&model, &world, &robot_at("bob", 3.1, 3.0)).unwrap_err();
        assert_eq!(refused.what, "robot 'bob'");
        assert_eq!(refused.other, "robot 'ana'", "where it is now, first of the equally deep");
        assert!((refused.depth_m - 0.2).abs() < 1e-3, "the shallowest way out: up, 0.2 m: {refused:?}");
        let Remedy::FitsAt([x, z]) = refused.remedy else { panic!("{refused:?}") };
        assert!((x - 3.1).abs() + (z - 3.0).abs() <= 0.5 + 1e-4, "{x} {z}");
        assert_eq!(insert(&model, &world, &robot_at("bob", x.into(), z.into())), Ok(()), "where it was told to go");
        assert!(refused.to_string().contains("would sink 0.20 m into robot 'ana'"), "{refused}");
    }

    #[test]
    fn a_robot_where_another_starts_is_refused_though_that_one_drove_away() {
        let (mut model, _) = lab(ROOM);
        model.merge(&robot_at("ana", 3.0, 3.0)).unwrap();
        let mut world = World::build(&model).unwrap();
        let ana = model.body_index("ana_base").unwrap();
        world.move_rigidly(&[ana], ana, [1.0, 0.1, 1.0], 0.0);
        let refused = insert(&model, &world, &robot_at("bob", 3.0, 3.0)).unwrap_err();
        assert_eq!(refused.other, "robot 'ana' where it starts");
    }

    #[test]
    fn a_robot_in_a_wall_is_refused_and_told_a_spot_inside() {
        let (model, world) = lab(ROOM);
        let refused = insert(&model, &world, &robot_at("bob", 0.05, 3.0)).unwrap_err();
        assert!(refused.other.starts_with("'wall"), "{refused:?}");
        let Remedy::FitsAt([x, _]) = refused.remedy else { panic!("{refused:?}") };
        assert!(x > 0.05, "inward: {x}");
    }

    #[test]
    fn two_robots_of_one_upload_on_each_other_are_refused() {
        let (model, world) = lab(ROOM);
        let mut both = robot_at("a", 3.0, 3.0);
        both.merge(&robot_at("b", 3.0, 3.2)).unwrap();
        let refused = insert(&model, &world, &both).unwrap_err();
        assert_eq!((refused.what.as_str(), refused.other.as_str()), ("robot 'b'", "robot 'a' where it starts"));
    }

    #[test]
    fn a_full_room_has_no_spot_to_offer() {
        let (model, world) = lab(&format!("{ROOM}\nstatic slab {{ shape box(40, 1, 40); pos(3, 0.5, 3); }}"));
        let refused = insert(&model, &world, &robot_at("bob", 3.0, 3.0)).unwrap_err();
        assert_eq!(refused.remedy, Remedy::NoRoom);
        assert!(refused.to_string().ends_with("there is no clear spot for it within 8 m; make room first"));
    }
}
