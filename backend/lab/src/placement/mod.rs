//! Where things may be put in a lab: over something fixed ([`ground`]) and clear of every
//! other body ([`clear`]), and inside the room when the room changes ([`room`]). One check for robots inserted, bodies moved, a robot put back
//! at its start and a robot's start moved, made on the lab's thread as the change is made, so changes sent at once
//! cannot pass it together; a refusal changes nothing and says where it would fit. A
//! robot whose description leaves its start to the lab gets one that passes it
//! ([`start`]).

mod clear;
mod ground;
mod room;
mod start;

pub use self::clear::{FIT_RADIUS_M, FIT_STEP_M, OVERLAP_TOLERANCE_M, Overlap, Remedy};
pub use self::ground::{Ground, OffTheGround, check as check_ground};
pub use self::room::{OutsideRoom, Problem, check_room};
pub use self::start::{DEFAULT_CLEARANCE_M, MAX_CLEARANCE_M, NoStart, START_GRID_M, Start, StartSearch};

use self::clear::{Obstacles, check_insert, check_insert_objects as clear_of_others, solids_at, words};
use vlab_sim::scene::{Pose, SceneModel};
use vlab_sim::sim::{BodyIndex, World};

/// Why a placement is refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Misplaced {
    /// It would stand over nothing fixed.
    #[error(transparent)]
    OffTheGround(#[from] OffTheGround),
    /// It would sink into another body.
    #[error(transparent)]
    Overlap(#[from] Overlap),
    /// A change of the room would leave a body outside it or sunk into its walls.
    #[error(transparent)]
    OutsideRoom(#[from] OutsideRoom),
}

/// Whether the robots of `addition` may be inserted into the lab of `model` and `world`:
/// each over something fixed, clear of every body where it is now and of every moving
/// body where it starts (so a reset never stacks robots), and of each other.
pub fn check_insert_robots(model: &SceneModel, world: &World, addition: &SceneModel) -> Result<(), Misplaced> {
    check_ground(model, addition)?;
    if addition.robots.is_empty() {
        return Ok(());
    }
    Ok(check_insert(model, world, addition, &Ground::of(model, Some(addition)))?)
}

/// Whether the objects of `addition` (bodies of no robot, added by a participant or the
/// instructor one at a time) may be inserted into the lab of `model` and `world`: each
/// over something fixed, clear of every body where it is now and of every moving body
/// where it starts, and of each other.
pub fn check_insert_objects(model: &SceneModel, world: &World, addition: &SceneModel) -> Result<(), Misplaced> {
    let ground = Ground::of(model, Some(addition));
    for body in addition.bodies.iter().filter(|b| b.robot.is_none()) {
        ground.check(&format!("object '{}'", body.name), body.pose.position)?;
    }
    Ok(clear_of_others(model, world, addition, &ground)?)
}

/// Whether `bodies` (moved together, the first one the main body) may be put at `poses`:
/// over something fixed and clear of every other body where it is now.
pub fn check_move(model: &SceneModel, world: &World, bodies: &[BodyIndex], poses: &[Pose]) -> Result<(), Misplaced> {
    let (Some(&main), Some(main_pose)) = (bodies.first(), poses.first()) else { return Ok(()) };
    let what = words(&model.bodies[main]);
    let ground = Ground::of(model, None);
    ground.check(&what, main_pose.position)?;
    let placed = solids_at(bodies.iter().map(|&i| &model.bodies[i]).zip(poses));
    Ok(Obstacles::of(model, world, bodies, false).check(&what, &placed, main_pose.position, &ground)?)
}

/// Whether a robot's start may move to `poses` (its bodies `bodies`, the main one
/// first): over something fixed, clear of every other body where it is now and of every
/// other moving body where it starts, so a reset never stacks it on anything.
pub fn check_start(model: &SceneModel, world: &World, bodies: &[BodyIndex], poses: &[Pose]) -> Result<(), Misplaced> {
    let (Some(&main), Some(main_pose)) = (bodies.first(), poses.first()) else { return Ok(()) };
    let what = format!("the start of {}", words(&model.bodies[main]));
    let ground = Ground::of(model, None);
    ground.check(&what, main_pose.position)?;
    let placed = solids_at(bodies.iter().map(|&i| &model.bodies[i]).zip(poses));
    Ok(Obstacles::of(model, world, bodies, true).check(&what, &placed, main_pose.position, &ground)?)
}

/// Whether robot `name` may be put back at its start: clear of every other body where
/// it is now.
pub fn check_reset(model: &SceneModel, world: &World, name: &str) -> Result<(), Misplaced> {
    let Some(robot) = model.robots.iter().find(|r| r.name == name) else { return Ok(()) };
    let mut bodies: Vec<BodyIndex> =
        (0..model.bodies.len()).filter(|&i| model.bodies[i].robot.as_deref() == Some(name)).collect();
    // The main body first, as `check_move` has it.
    bodies.sort_by_key(|&i| i != robot.main_body);
    let poses: Vec<Pose> = bodies.iter().map(|&i| model.bodies[i].pose).collect();
    check_move(model, world, &bodies, &poses).map_err(|misplaced| match misplaced {
        Misplaced::Overlap(overlap) => Misplaced::Overlap(Overlap { remedy: Remedy::ClearItsStart, ..overlap }),
        off => off,
    })
}
