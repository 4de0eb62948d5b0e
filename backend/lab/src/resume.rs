//! A lab's checkpoint as the database keeps it: the step it was taken at and where and
//! how fast each moving body was, so a server that opens the lab again (another one
//! after a takeover, or this one after a restart) goes on from there instead of from
//! step 0.
//!
//! It is small on purpose (a few dozen bytes a body, written every
//! [`crate::checkpoints::CHECKPOINT_INTERVAL_SECS`] of simulation): the scene, the robots
//! and their programs are kept elsewhere and built again as they were; what only the
//! running lab knew (a program's own state, a sensor's noise so far, contacts' warm
//! starts) starts afresh from the kept step.

use serde::{Deserialize, Serialize};
use vlab_sim::scene::{Pose, SceneModel};
use vlab_sim::sim::World;

/// One moving body at a checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KeptBody {
    /// The body's name (unique in the lab).
    pub name: String,
    /// Metres.
    pub position: [f32; 3],
    /// Unit quaternion `[x, y, z, w]`.
    pub rotation: [f32; 4],
    /// Metres a second.
    pub linear: [f32; 3],
    /// Radians a second.
    pub angular: [f32; 3],
}

/// A lab's step and moving bodies right after that step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KeptCheckpoint {
    /// The run of the lab's recording it was taken in (0: none known): the run that
    /// goes on from it starts with that one's recording up to its step.
    #[serde(default)]
    pub run: u32,
    /// The lab's scene epoch then: the run going on from it numbers its scenes after.
    #[serde(default)]
    pub epoch: u32,
    /// The step it was taken at (0: the start of a run).
    pub step: u64,
    /// Every body that is not fixed, in the scene's order.
    pub bodies: Vec<KeptBody>,
}

impl KeptCheckpoint {
    /// The lab of `model` and `world` right after `step` (of no run known: see
    /// [`KeptCheckpoint::run`]).
    pub fn of(step: u64, model: &SceneModel, world: &World) -> KeptCheckpoint {
        let bodies = (0..world.body_count().min(model.bodies.len()))
            .filter(|&index| !world.is_fixed(index))
            .map(|index| {
                let Pose { position, rotation } = world.pose(index);
                let (linear, angular) = world.velocities(index);
                KeptBody { name: model.bodies[index].name.clone(), position, rotation, linear, angular }
            })
            .collect();
        KeptCheckpoint { run: 0, epoch: 0, step, bodies }
    }

    /// Puts each kept body of `world` (found by name in `model`) where and as fast as it
    /// was; a body the lab no longer has is skipped. Returns how many were put back.
    pub fn apply(&self, model: &SceneModel, world: &mut World) -> usize {
        let mut put = 0;
        for body in &self.bodies {
            let Some(index) = model.bodies.iter().position(|b| b.name == body.name) else { continue };
            if index >= world.body_count() || world.is_fixed(index) {
                continue;
            }
            let pose = Pose { position: body.position, rotation: body.rotation };
            world.set_body_state(index, &pose, body.linear, body.angular);
            put += 1;
        }
        put
    }

    /// As the database keeps it.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a checkpoint is plain data")
    }

    /// Read back from the database.
    pub fn from_json(text: &str) -> Result<KeptCheckpoint, serde_json::Error> {
        serde_json::from_str(text)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use vlab_sim::robot::Robots;
    use vlab_sim::scene::demo_scene;

    fn demo() -> (SceneModel, World, Robots) {
        let model = demo_scene(1);
        let mut world = World::build(&model).expect("the demo builds");
        let mut robots = Robots::configure(&model, 1).expect("the demo's robots configure");
        robots.install(&mut world, 0, 0.0);
        (model, world, robots)
    }

    #[test]
    fn a_kept_checkpoint_read_back_puts_every_moving_body_where_it_was() {
        let (model, mut world, mut robots) = demo();
        for step in 1..=600 {
            crate::changes::bare_step(&mut world, &mut robots, step, model.dt_secs);
        }
        let kept = KeptCheckpoint::of(600, &model, &world);
        let moving = (0..world.body_count()).filter(|&i| !world.is_fixed(i)).count();
        assert_eq!(kept.bodies.len(), moving, "every moving body, no fixed one");
        let read = KeptCheckpoint::from_json(&kept.to_json()).expect("it reads back");
        assert_eq!(read, kept, "floats survive the text bit for bit");
        let (_, mut fresh, _) = demo();
        assert_ne!(KeptCheckpoint::of(600, &model, &fresh), kept, "a fresh world stands elsewhere");
        assert_eq!(read.apply(&model, &mut fresh), moving);
        assert!(
            same_bodies(&KeptCheckpoint::of(600, &model, &fresh), &kept),
            "put back where and as fast as they were"
        );
    }

    /// The same bodies at the same step, where and as fast as each other; rotations to
    /// within rounding (rapier keeps a body's rotation normalised, which may move its
    /// last bit).
    pub(crate) fn same_bodies(a: &KeptCheckpoint, b: &KeptCheckpoint) -> bool {
        let near = |x: &[f32; 4], y: &[f32; 4]| x.iter().zip(y).all(|(x, y)| (x - y).abs() <= 1e-6);
        a.step == b.step
            && a.bodies.len() == b.bodies.len()
            && a.bodies.iter().zip(&b.bodies).all(|(a, b)| {
                (&a.name, a.position, a.linear, a.angular) == (&b.name, b.position, b.linear, b.angular)
                    && near(&a.rotation, &b.rotation)
            })
    }

    #[test]
    fn a_body_the_lab_no_longer_has_is_skipped() {
        let (model, mut world, _) = demo();
        let mut kept = KeptCheckpoint::of(5, &model, &world);
        let known = kept.bodies.len();
        let mut gone = kept.bodies[0].clone();
        gone.name = "no_such_body".into();
        kept.bodies.push(gone);
        assert_eq!(kept.apply(&model, &mut world), known);
    }
}
