//! What changes a lab's world between two steps (an insertion, a robot taken out, put
//! back at its start, its start moved, or moved by hand, the room changed) and one bare physics step: done the same way
//! live and when a run is re-simulated, so a re-simulation cannot drift from the run
//! it repeats.

use vlab_protocol::RoomChange;
use vlab_sim::robot::{Owner, Robots};
use vlab_sim::scene::{Inserted, Palette, Pose, RoomError, SceneError, SceneModel};
use vlab_sim::sim::{BodyIndex, World};

/// Adds `addition` to the model and the world, all or nothing; its robots (owned by
/// `owner`) are installed at `step` / `time`.
pub fn insert(
    model: &mut SceneModel,
    world: &mut World,
    robots: &mut Robots,
    addition: &SceneModel,
    owner: Option<Owner>,
    (step, time): (u64, f64),
) -> Result<Inserted, SceneError> {
    let mut merged = model.clone();
    let first_new = merged.bodies.len();
    let inserted = merged.merge(addition)?;
    // A participant's objects are theirs (the robots' bodies belong to their robots).
    for body in merged.bodies[first_new..].iter_mut().filter(|b| b.robot.is_none()) {
        body.owner = owner.as_ref().map(|o| o.id);
    }
    // Configure the new robots before the world changes: a device that cannot work as
    // declared refuses the whole insertion.
    let added = robots.configure_from(&merged, model.robots.len())?;
    world.insert(addition)?;
    if addition.environment.is_some() {
        world.set_gravity_y(merged.gravity_y);
    }
    *model = merged;
    robots.add(added, owner);
    robots.install(world, step, time);
    Ok(inserted)
}

/// Takes robot `name` out: the world is rebuilt without it, every other body where and
/// as fast as it was, every other robot's devices carrying on. `false` when there is
/// no such robot (or, which cannot happen, the rest does not build).
pub fn remove_robot(model: &mut SceneModel, world: &mut World, robots: &mut Robots, name: &str) -> bool {
    let Some((without, moved)) = model.without_robot(name) else { return false };
    let rebuilt = match world.rebuilt_without(&without, &moved) {
        Ok(rebuilt) => rebuilt,
        Err(error) => {
            // Removing elements cannot make a buildable model unbuildable; if it did,
            // the lab keeps the robot rather than break.
            tracing::error!(%error, robot = name, "the lab without this robot does not build");
            return false;
        }
    };
    *model = without;
    *world = rebuilt;
    robots.remove(name, &moved, world);
    true
}

/// Takes object `name` (a body of no robot) out: the world is rebuilt without it, every
/// other body where and as fast as it was, every robot carrying on. `false` when there
/// is no such object.
pub fn remove_object(model: &mut SceneModel, world: &mut World, robots: &mut Robots, name: &str) -> bool {
    let Some((without, moved)) = model.without_object(name) else { return false };
    let rebuilt = match world.rebuilt_without(&without, &moved) {
        Ok(rebuilt) => rebuilt,
        Err(error) => {
            tracing::error!(%error, object = name, "the lab without this object does not build");
            return false;
        }
    };
    *model = without;
    *world = rebuilt;
    robots.renumber(&moved, world);
    true
}

/// Puts robot `name`'s bodies back at their start poses, at rest, and its devices at
/// their start, at `step` / `time`. `false` when there is no such robot.
pub fn reset_robot(model: &SceneModel, world: &mut World, robots: &mut Robots, name: &str, at: (u64, f64)) -> bool {
    if !model.robots.iter().any(|r| r.name == name) {
        return false;
    }
    for (index, body) in model.bodies.iter().enumerate() {
        if body.robot.as_deref() == Some(name) {
            world.set_body_state(index, &body.pose, [0.0; 3], [0.0; 3]);
        }
    }
    robots.restart(name, model, world, at.0, at.1);
    true
}

/// Moves a body, or a robot as a whole, to `position` at rest, turned to `heading` if
/// given. Returns the heading it ends with; `None` when there is no such movable thing.
pub fn move_object(
    model: &SceneModel,
    world: &mut World,
    name: &str,
    position: [f32; 3],
    heading: Option<f32>,
) -> Option<f32> {
    Some(MovePlan::of(model, world, name, position, heading)?.apply(world))
}

/// A move by hand worked out before it is made, so it can be checked first.
pub struct MovePlan {
    /// The bodies that move together, the main one first.
    pub bodies: Vec<BodyIndex>,
    position: [f32; 3],
    /// The turn about the vertical, radians, and the heading it ends with.
    turn: f32,
    heading: f32,
}

impl MovePlan {
    /// Moving the body or the robot `name` so its (main) body is at `position`, turned to
    /// `heading` if given; `None` when there is no such movable thing. A fixed body is
    /// movable when somebody added it as an object (a palette's ramp or wall), never when
    /// it is the lab's own (its room, its scene's statics).
    pub fn of(
        model: &SceneModel,
        world: &World,
        name: &str,
        position: [f32; 3],
        heading: Option<f32>,
    ) -> Option<MovePlan> {
        let bodies: Vec<usize> = match model.robots.iter().find(|r| r.name == name) {
            Some(robot) => std::iter::once(robot.main_body)
                .chain(
                    (0..model.bodies.len())
                        .filter(|&i| i != robot.main_body && model.bodies[i].robot.as_deref() == Some(name)),
                )
                .collect(),
            None => match model.body_index(name) {
                Some(index) if !world.is_fixed(index) || model.bodies[index].owner.is_some() => vec![index],
                _ => return None,
            },
        };
        let now = vlab_sim::robot::frame::heading(&world.pose(bodies[0])) as f32;
        let turn = heading.map_or(0.0, |heading| heading - now);
        Some(MovePlan { bodies, position, turn, heading: now + turn })
    }

    /// Where the bodies would be, in the order of [`MovePlan::bodies`].
    pub fn poses(&self, world: &World) -> Vec<Pose> {
        world.moved_rigidly(&self.bodies, self.bodies[0], self.position, self.turn)
    }

    /// Makes the move; returns the heading it ends with.
    pub fn apply(self, world: &mut World) -> f32 {
        world.move_rigidly(&self.bodies, self.bodies[0], self.position, self.turn);
        self.heading
    }
}

/// A robot's start moved, worked out before it is made, so it can be checked first.
pub struct StartPlan {
    /// The robot's bodies, the main one first.
    pub bodies: Vec<BodyIndex>,
    /// Where each starts from now on, in the order of [`StartPlan::bodies`].
    pub poses: Vec<Pose>,
}

impl StartPlan {
    /// Robot `name`'s start moved so its main body starts at `position`, turned to
    /// `heading` if given (else as it started): its other bodies keep their places
    /// around the main one. `None` when there is no such robot.
    pub fn of(model: &SceneModel, name: &str, position: [f32; 3], heading: Option<f32>) -> Option<StartPlan> {
        let robot = model.robots.iter().find(|r| r.name == name)?;
        let bodies: Vec<BodyIndex> = std::iter::once(robot.main_body)
            .chain(
                (0..model.bodies.len())
                    .filter(|&i| i != robot.main_body && model.bodies[i].robot.as_deref() == Some(name)),
            )
            .collect();
        let starts: Vec<Pose> = bodies.iter().map(|&i| model.bodies[i].pose).collect();
        let now = vlab_sim::robot::frame::heading(&starts[0]) as f32;
        let turn = heading.map_or(0.0, |heading| heading - now);
        let poses = vlab_sim::sim::rigidly_moved(&starts, 0, position, turn);
        Some(StartPlan { bodies, poses })
    }

    /// Makes the move: resets put the robot here from now on. Its joints' anchors and
    /// axes (in the world's frame) come along, so a world built again from the model
    /// (a removal rebuilds it) joins its bodies where they are.
    pub fn apply(self, model: &mut SceneModel) {
        let (Some(&main), Some(new_main)) = (self.bodies.first(), self.poses.first()) else { return };
        let delta = new_main.compose(&model.bodies[main].pose.inverse());
        for joint in &mut model.joints {
            if self.bodies.contains(&joint.body1) || self.bodies.contains(&joint.body2) {
                joint.kind = joint.kind.moved(&delta);
            }
        }
        for (index, pose) in self.bodies.into_iter().zip(self.poses) {
            model.bodies[index].pose = pose;
        }
    }
}

/// Moves robot `name`'s start (see [`StartPlan::of`]); `false` when there is no such robot.
pub fn set_start(model: &mut SceneModel, name: &str, position: [f32; 3], heading: Option<f32>) -> bool {
    let Some(plan) = StartPlan::of(model, name, position, heading) else { return false };
    plan.apply(model);
    true
}

/// The lab's model with its room changed as `change` says (see `SceneModel::with_room`),
/// materials from the shipped library; the world is not touched.
pub fn room_changed(model: &SceneModel, change: &RoomChange) -> Result<SceneModel, RoomError> {
    model.with_room(change, &Palette::default())
}

/// Makes `changed` (from [`room_changed`]) the lab's model and gives the world its room:
/// the environment's bodies reshaped where they are (their indices stay), gravity.
pub fn apply_room(model: &mut SceneModel, world: &mut World, changed: SceneModel) {
    for index in changed.environment_body_indices() {
        world.reshape_fixed(index, &changed.bodies[index]);
    }
    world.set_gravity_y(changed.gravity_y);
    *model = changed;
}

/// One physics step with no programs: the robots' commands reach the joints, the world
/// steps to `step`, sensors that are due read it.
pub fn bare_step(world: &mut World, robots: &mut Robots, step: u64, dt_secs: f64) {
    robots.apply_actuators(world);
    world.step();
    robots.update_sensors(world, step, step as f64 * dt_secs);
}

#[cfg(test)]
mod tests {
    use super::*;
    use vlab_sim::scene::{MapLoader, Options, interpret};

    #[test]
    fn a_moved_start_takes_the_joints_along_so_a_rebuilt_world_keeps_its_wheels_on() {
        let source = r#"
            robot cart { body {
              chassis { shape box(0.4, 0.1, 0.3); pos(2, 0.08, 10); }
              wheel { shape cylinder(0.05, 0.02); pos(2, 0.05, 10.17); }
              JointHinge(chassis, wheel) { anchor(2, 0.05, 10.17); axis(0, 0, 1); SimpleMotor m; }
            } }
        "#;
        let mut model = interpret(source, "cart.vlab", &MapLoader::new(), &Options::default()).unwrap().model;
        assert!(set_start(&mut model, "cart", [6.0, 0.08, 3.0], Some(1.0)));
        let world = World::build(&model).unwrap();
        // The hinge was declared at the wheel's centre: it is there still, in the wheel.
        let (_, in_wheel) = world.joint_frames(0).expect("the hinge");
        let off: f32 = in_wheel.position.iter().map(|v| v * v).sum::<f32>().sqrt();
        assert!(off < 1e-4, "the hinge is {off} m from the wheel's centre: {in_wheel:?}");
    }
}
