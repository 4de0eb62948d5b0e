//! Going on from a checkpoint the database kept: the lab, just opened again with its
//! uploads done again, jumps to the kept step with its moving bodies where they were,
//! and publishes each checkpoint it takes for the database to keep.

use std::sync::Arc;
use std::time::Instant;

use vlab_protocol::LabState;

use super::{RunStart, Runner};
use crate::checkpoints::Checkpoint;
use crate::recording::CommandSource;
use crate::resume::KeptCheckpoint;

impl Runner {
    /// Goes on from `kept` in a new run (which starts with the recording of the run
    /// `kept` was taken in, up to its step): the clock at its step (the pace kept from
    /// there), the moving bodies it names where and as fast as they were, every program
    /// started afresh (their own state lived only on the server that ran them). A
    /// rewind of this run goes back to the kept step at the earliest.
    pub(super) fn go_on_from(&mut self, kept: &KeptCheckpoint) -> LabState {
        if let Some((_, Some(waiting))) = self.clock.stepping.take() {
            let _ = waiting.send(self.state());
        }
        let put = kept.apply(&self.sim.model, &mut self.sim.world);
        tracing::info!(step = kept.step, bodies = put, "the lab goes on from its last kept checkpoint");
        let step = kept.step;
        self.clock.step = step;
        self.clock.parked = None;
        self.clock.pacer.reanchor(Instant::now(), step);
        self.sim.programs.restart_all(&mut self.sim.robots, self.sim.model.dt_secs, step);
        // Its scenes are numbered after those of the run it goes on from.
        self.clock.epoch = self.clock.epoch.max(kept.epoch);
        self.history.recorder.go_on_from(kept.run, step);
        self.history.checkpoints.start_at(step);
        let owners = self.sim.robots.take_owners();
        self.sim.robots.restore_owners(owners.clone());
        let model = self.sim.model.clone();
        let start =
            Checkpoint { step, model: model.clone(), world: self.sim.world.clone(), robots: self.sim.robots.clone() };
        self.history.run = RunStart { resumed: Some(Box::new(start)), ..RunStart::new(model, owners) };
        self.arrive();
        self.state()
    }

    /// Tells everybody the lab is somewhere else in time (a rewind, or going on from a
    /// kept checkpoint): the recording learns the readings it starts from, viewers get
    /// a new scene, the database the new checkpoint, programs their first commands.
    pub(super) fn arrive(&mut self) {
        self.history.recorder.prime(&self.sim.robots);
        self.publish_scene();
        self.publish_checkpoint();
        self.take_inputs(CommandSource::Program);
        self.publish_state();
        self.publish_telemetry();
    }

    /// Publishes the lab as it is now as its last checkpoint, for the database to keep.
    pub(super) fn publish_checkpoint(&mut self) -> Arc<KeptCheckpoint> {
        let (run, epoch) = (self.history.recorder.run(), self.clock.epoch);
        let kept = Arc::new(KeptCheckpoint {
            run,
            epoch,
            ..KeptCheckpoint::of(self.clock.step, &self.sim.model, &self.sim.world)
        });
        self.outputs.status.send_modify(|status| status.checkpoint = Some(Arc::clone(&kept)));
        kept
    }
}
