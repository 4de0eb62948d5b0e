//! Re-simulation: a run done again from where it started, or from a checkpoint taken
//! on the way ([`super::checkpoints`]), with the inputs and changes it recorded, up to a
//! step: the world and the robots as they were then.
//!
//! What makes it exact: the same model and seed build the same world and the same noise
//! generators; every input that reached a robot's devices (commands from programs and
//! by hand, holds, keys) and every change of the world (insertions, removals, robots
//! put back, objects moved) is recorded with the step it came between, and is given
//! again at the same place, in the same order; the physics step and the sensors are the
//! same code ([`super::changes`]) on the same machine. Programs are not run again: what
//! they commanded is replayed, so a program late in a real-time lab repeats exactly.

use super::changes;
use super::checkpoints::Checkpoint;
use super::recording::{Change, Record};
use super::runner::RunStart;
use vlab_sim::robot::{RobotInput, Robots};
use vlab_sim::scene::SceneModel;
use vlab_sim::sim::World;

/// A world re-simulated to a step.
pub struct Resimulated {
    /// The model then.
    pub model: SceneModel,
    /// The world then.
    pub world: World,
    /// The robots then.
    pub robots: Robots,
}

/// Run `run` done again to `target` with `inputs` (those given after `target` are not,
/// but for insertions and removals right after it: see [`Record::replayed_before`]),
/// from checkpoint `from` (taken at or before `target`) or else from the run's start
/// (step 0, or where a resumed run started).
/// `inputs` must hold every input from the step it starts at on; those before it are
/// skipped.
pub fn resimulate(
    run: &RunStart,
    seed: u64,
    inputs: &[Record],
    target: u64,
    from: Option<&Checkpoint>,
) -> Result<Resimulated, String> {
    let (mut model, mut world, mut robots, mut step) = match from {
        Some(checkpoint) => {
            debug_assert!(checkpoint.step <= target, "a checkpoint after the step rewound to");
            let Checkpoint { step, model, world, robots } = checkpoint;
            (model.clone(), world.clone(), robots.clone(), *step)
        }
        None => match run.resumed.as_deref() {
            Some(Checkpoint { step, model, world, robots }) => (model.clone(), world.clone(), robots.clone(), *step),
            None => {
                let (model, world, robots) = start(run, seed)?;
                (model, world, robots, 0)
            }
        },
    };
    let first = step;
    let dt = model.dt_secs;
    for record in inputs {
        let Some(at) = record.input_step().filter(|&at| at >= first && record.replayed_before(target)) else {
            continue;
        };
        while step < at {
            step += 1;
            changes::bare_step(&mut world, &mut robots, step, dt);
        }
        let time = step as f64 * dt;
        match record {
            Record::Command { robot, commands, .. } => {
                robots.replay(&RobotInput::Command { robot: robot.clone(), commands: commands.clone() });
            }
            Record::Hold { robot, .. } => robots.replay(&RobotInput::Hold { robot: robot.clone() }),
            Record::Keys { robot, keys, .. } => {
                robots.replay(&RobotInput::Keys { robot: robot.clone(), keys: keys.clone() });
            }
            Record::Change { change, .. } => match change {
                Change::Inserted { index } => {
                    let (addition, owner) = run
                        .insertions
                        .get(*index)
                        .ok_or_else(|| format!("insertion {index} of this run is not known to the lab"))?;
                    changes::insert(&mut model, &mut world, &mut robots, addition, owner.clone(), (step, time))
                        .map_err(|e| format!("an insertion does not go in again: {e}"))?;
                }
                Change::Removed { robot } => {
                    changes::remove_robot(&mut model, &mut world, &mut robots, robot);
                }
                Change::ObjectRemoved { name } => {
                    changes::remove_object(&mut model, &mut world, &mut robots, name);
                }
                Change::RobotReset { robot } => {
                    changes::reset_robot(&model, &mut world, &mut robots, robot, (step, time));
                }
                Change::StartMoved { robot, position, heading } => {
                    changes::set_start(&mut model, robot, *position, *heading);
                }
                Change::Moved { name, position, heading } => {
                    changes::move_object(&model, &mut world, name, *position, *heading);
                }
                Change::Room { room } => {
                    let changed = changes::room_changed(&model, room)
                        .map_err(|e| format!("a change of the room does not apply again: {e}"))?;
                    changes::apply_room(&mut model, &mut world, changed);
                }
            },
            _ => {}
        }
    }
    while step < target {
        step += 1;
        changes::bare_step(&mut world, &mut robots, step, dt);
    }
    robots.take_inputs();
    Ok(Resimulated { model, world, robots })
}

/// The run's step 0, built again from its model and seed.
fn start(run: &RunStart, seed: u64) -> Result<(SceneModel, World, Robots), String> {
    let fails = |e: &dyn std::fmt::Display| format!("the run's start does not build again: {e}");
    let model = run.model.clone();
    let mut world = World::build(&model).map_err(|e| fails(&e))?;
    let mut robots = Robots::configure(&model, seed).map_err(|e| fails(&e))?;
    robots.restore_owners(run.owners.clone());
    robots.install(&mut world, 0, 0.0);
    Ok((model, world, robots))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;
    use crate::checkpoints::Checkpoints;
    use crate::recording::CommandSource;
    use vlab_sim::robot::RobotInput;
    use vlab_sim::scene::demo_scene;

    const SEED: u64 = 5;
    const ROVERS: [&str; 3] = ["rover_red", "rover_blue", "rover_green"];

    /// The demo lab as the lab's thread runs it, its rovers driven by hand every 700
    /// steps: what it recorded and the checkpoints it took.
    struct Live {
        run: RunStart,
        model: SceneModel,
        world: World,
        robots: Robots,
        inputs: Vec<Record>,
        checkpoints: Checkpoints,
    }

    /// [`Live`] after `steps` steps, before the inputs of the last one.
    fn live(steps: u64) -> Live {
        let run = RunStart::new(demo_scene(1), BTreeMap::new());
        let (model, mut world, mut robots) = start(&run, SEED).expect("the demo builds");
        let mut checkpoints = Checkpoints::new(model.dt_secs);
        let mut inputs = Vec::new();
        for step in 1..=steps {
            changes::bare_step(&mut world, &mut robots, step, model.dt_secs);
            if checkpoints.due(step) {
                checkpoints.take(step, &model, &world, &robots);
            }
            if step % 700 == 0 && step < steps {
                let turn = (step / 700 % 5) as f64 * 0.4 - 0.8;
                let drive = BTreeMap::from([("drive".to_owned(), json!({ "v": 0.3, "omega": turn }))]);
                let motor = BTreeMap::from([("motor_0".to_owned(), json!({ "speed": -turn * 4.0 }))]);
                robots.command("rover_red", &drive).expect("a rover").expect("a drive");
                robots.command("rover_blue", &motor).expect("a rover").expect("a motor");
                inputs.extend(robots.take_inputs().into_iter().map(|input| match input {
                    RobotInput::Command { robot, commands } => {
                        Record::Command { step, robot, source: CommandSource::Hand, commands }
                    }
                    other => panic!("only commands are given here, not {other:?}"),
                }));
            }
        }
        Live { run, model, world, robots, inputs, checkpoints }
    }

    /// Every body's pose and every rover's report (true pose, readings with their noise).
    fn seen(world: &World, robots: &Robots, step: u64, dt: f64) -> (Vec<vlab_sim::scene::Pose>, Vec<String>) {
        let poses = (0..world.body_count()).map(|i| world.pose(i)).collect();
        let reports = ROVERS
            .iter()
            .map(|rover| format!("{:?}", robots.report(rover, world, step, step as f64 * dt).expect("a rover")))
            .collect();
        (poses, reports)
    }

    #[test]
    fn a_rewind_from_a_checkpoint_is_bit_for_bit_the_run_and_the_rewind_from_its_start() {
        let target = 4000;
        let run = live(target);
        let dt = run.model.dt_secs;
        let checkpoint = run.checkpoints.at_or_before(target).expect("checkpoints were taken");
        assert_eq!(checkpoint.step, 3600, "the third checkpoint, 400 steps before");
        let from_start = resimulate(&run.run, SEED, &run.inputs, target, None).expect("it re-simulates");
        let from_checkpoint =
            resimulate(&run.run, SEED, &run.inputs, target, Some(checkpoint)).expect("it re-simulates");
        let again = resimulate(&run.run, SEED, &run.inputs, target, Some(checkpoint)).expect("it re-simulates");
        let live = seen(&run.world, &run.robots, target, dt);
        assert_ne!(live, seen(&checkpoint.world, &checkpoint.robots, target, dt), "the rovers moved since");
        assert_eq!(seen(&from_checkpoint.world, &from_checkpoint.robots, target, dt), live, "as the run was");
        assert_eq!(seen(&from_start.world, &from_start.robots, target, dt), live, "as from the run's start");
        assert_eq!(seen(&again.world, &again.robots, target, dt), live, "the checkpoint itself is left as it was");
    }

    #[test]
    fn a_room_changed_during_the_run_is_changed_again_at_the_same_step() {
        let run = RunStart::new(demo_scene(1), BTreeMap::new());
        let (mut model, mut world, mut robots) = start(&run, SEED).expect("the demo builds");
        let dt = model.dt_secs;
        let room: vlab_protocol::RoomChange = serde_json::from_str(r#"{"width": 16, "gravity": -5}"#).unwrap();
        let (changed_at, target) = (300, 900);
        for step in 1..=target {
            changes::bare_step(&mut world, &mut robots, step, dt);
            if step == changed_at {
                let changed = changes::room_changed(&model, &room).expect("a room 16 m wide");
                changes::apply_room(&mut model, &mut world, changed);
            }
        }
        let inputs = vec![Record::Change { step: changed_at, change: Change::Room { room } }];
        let again = resimulate(&run, SEED, &inputs, target, None).expect("it re-simulates");
        assert_eq!(again.model, model, "the room as it was changed");
        assert_eq!(seen(&again.world, &again.robots, target, dt), seen(&world, &robots, target, dt));
        let unchanged = resimulate(&run, SEED, &[], target, None).expect("it re-simulates");
        assert_ne!(seen(&unchanged.world, &unchanged.robots, target, dt), seen(&world, &robots, target, dt));
    }
}
