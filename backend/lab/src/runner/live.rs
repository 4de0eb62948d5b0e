//! The lab thread's side of a live run of its challenge: starting one from a reset,
//! judging it after every step, ending it, and publishing how it stands.

use std::time::Instant;

use vlab_protocol::LabMode;
use vlab_sim::scene::ScoreRule;

use super::Runner;
use crate::attempt::START_WAIT;
use crate::error::LabError;
use crate::live_run::LiveRun;

impl Runner {
    /// Resets the lab (every robot to its start, the clock from zero, every program
    /// afresh), then runs it with every robot judged by the challenge.
    pub(super) fn start_live_run(&mut self) -> Result<(), LabError> {
        if self.sim.model.challenge.is_none() {
            return Err(LabError::NoChallenge);
        }
        self.end_live_run("a new run started");
        self.reset();
        self.live = LiveRun::start(&self.sim.model, self.clock.step);
        self.live_run_waits_since = Some(Instant::now());
        self.publish_live_run();
        self.begin_live_run_once_ready();
        Ok(())
    }

    /// A run just started waits, paused at step 0, until every program has started
    /// again (at most [`START_WAIT`]): the clock moves for everybody at once, however
    /// long the machine takes to start each one.
    pub(super) fn begin_live_run_once_ready(&mut self) {
        let Some(since) = self.live_run_waits_since else { return };
        if self.sim.programs.starting() && since.elapsed() < START_WAIT {
            return;
        }
        self.live_run_waits_since = None;
        if self.live_run_on() {
            self.clock.mode = LabMode::Running;
            self.clock.pacer.reanchor(Instant::now(), self.clock.step);
            self.publish_frame();
            self.publish_state();
        }
    }

    /// Ends a live run still on, for `why`.
    pub(super) fn end_live_run(&mut self, why: &str) {
        if self.live.as_mut().is_some_and(|run| run.end(why)) {
            self.publish_live_run();
        }
    }

    /// After a step: judges the live run; at its end the lab pauses.
    pub(super) fn judge_live_run(&mut self) {
        let Some(run) = self.live.as_mut() else { return };
        if !run.after_step(self.clock.step, self.sim.model.dt_secs, &self.sim.world, &self.sim.robots) {
            return;
        }
        if run.is_over() {
            self.clock.mode = LabMode::Paused;
            self.history.recorder.settle(&self.sim.robots);
            self.publish_frame();
            self.publish_state();
        }
        self.publish_live_run();
    }

    /// Whether a live run is on (a lab judging its robots never parks).
    pub(super) fn live_run_on(&self) -> bool {
        self.live.as_ref().is_some_and(|run| !run.is_over())
    }

    /// How the run stands, for the board; pages hear that it changed.
    pub(super) fn publish_live_run(&mut self) {
        let lower_is_better = self
            .sim
            .model
            .challenge
            .as_ref()
            .is_some_and(|challenge| matches!(challenge.score, ScoreRule::Time | ScoreRule::Distance { .. }));
        let view = self.live.as_ref().map(|run| run.view(self.clock.step, self.sim.model.dt_secs, lower_is_better));
        self.outputs.status.send_modify(|status| status.run = view);
        self.outputs.hub.broadcast(&vlab_protocol::ServerMsg::BoardChanged);
    }
}
