//! Re-simulation: a run done again from where it started, with the inputs and changes
//! it recorded, up to a step: the world and the robots as they were then.
//!
//! What makes it exact: the same model and seed build the same world and the same noise
//! generators; every input that reached a robot's devices (commands from programs and
//! by hand, holds, keys) and every change of the world (insertions, removals, robots
//! put back, objects moved) is recorded with the step it came between, and is given
//! again at the same place, in the same order; the physics step and the sensors are the
//! same code ([`super::changes`]) on the same machine. Programs are not run again: what
//! they commanded is replayed, so a program late in a real-time lab repeats exactly.

use super::changes;
use super::recording::{Change, Record};
use super::runner::RunStart;
use crate::robot::{RobotInput, Robots};
use crate::scene::SceneModel;
use crate::sim::World;

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
/// but for insertions and removals right after it: see [`Record::replayed_before`]).
pub fn resimulate(run: &RunStart, seed: u64, inputs: &[Record], target: u64) -> Result<Resimulated, String> {
    let fails = |e: &dyn std::fmt::Display| format!("the run's start does not build again: {e}");
    let mut model = run.model.clone();
    let mut world = World::build(&model).map_err(|e| fails(&e))?;
    let mut robots = Robots::configure(&model, seed).map_err(|e| fails(&e))?;
    robots.restore_owners(run.owners.clone());
    robots.install(&mut world, 0, 0.0);
    let dt = model.dt_secs;
    let mut step = 0;
    for record in inputs {
        let Some(at) = record.input_step().filter(|_| record.replayed_before(target)) else { continue };
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
                Change::RobotReset { robot } => {
                    changes::reset_robot(&model, &mut world, &mut robots, robot, (step, time));
                }
                Change::Moved { name, position, heading } => {
                    changes::move_object(&model, &mut world, name, *position, *heading);
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
