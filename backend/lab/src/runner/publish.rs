//! What the lab publishes: scenes and frames to the hub, the clock to its status and
//! viewers, robot reports to those who watch them.

use std::sync::Arc;
use std::time::Instant;

use vlab_protocol::{LabState, ProgramState, ProgramStatus, ServerMsg};

use super::Runner;
use crate::frames::FrameBuilder;
use crate::telemetry::Published;
use crate::wire;

impl Runner {
    /// A new epoch: the snapshot and keyframe of the world as it is now.
    pub(super) fn publish_scene(&mut self) {
        // A run judges the robots of the scene it started with.
        self.end_live_run("the scene changed");
        self.clock.epoch += 1;
        let (frames, mut keyframe) = FrameBuilder::start(&self.sim.world, self.clock.epoch);
        keyframe.step = self.clock.step;
        keyframe.time = self.time();
        self.outputs.frames = frames;
        self.outputs.last_frame_step = self.clock.step;
        let snapshot = wire::snapshot(&self.sim.model, &self.sim.world, self.clock.epoch);
        let snapshot_json = wire::snapshot_json(&snapshot);
        self.history.recorder.scene(&keyframe, Arc::clone(&snapshot_json), &self.sim.model, &self.sim.robots);
        self.outputs.hub.publish_scene(snapshot_json, wire::link_table(&snapshot), keyframe);
        let (bodies, robots) =
            (self.sim.world.body_count(), self.sim.model.robots.iter().map(|r| r.name.clone()).collect());
        let owners = self.sim.robots.owners();
        let objects = wire::objects(&self.sim.model);
        self.outputs.status.send_modify(|status| {
            status.bodies = bodies;
            status.robots = robots;
            status.owners = owners;
            status.objects = objects;
        });
    }

    pub(super) fn program_status(&self, robot: &str) -> ProgramStatus {
        self.sim.robots.get(robot).map(|r| r.program().clone()).unwrap_or(ProgramStatus {
            file: None,
            language: None,
            state: ProgramState::None,
            message: None,
            late: None,
        })
    }

    /// Sends the latest report of every robot somebody watches.
    pub(super) fn publish_telemetry(&mut self) {
        self.outputs.last_telemetry_at = Instant::now();
        self.outputs.telemetry.cameras.publish(&self.sim.robots);
        let wanted = self.outputs.telemetry.wanted();
        if wanted.is_empty() {
            return;
        }
        let (step, time) = (self.clock.step, self.time());
        let reports = wanted
            .into_iter()
            .filter_map(|name| {
                let report = self.sim.robots.report(&name, &self.sim.world, step, time)?;
                let owner = self.sim.robots.get(&name).and_then(|r| r.owner()).map(|o| o.id);
                let json = serde_json::to_string(&ServerMsg::Robot(report)).expect("reports serialise");
                let belief = self.sim.programs.belief(&name).map(|belief| {
                    Arc::from(serde_json::to_string(&ServerMsg::Belief(belief)).expect("beliefs serialise"))
                });
                Some((name, Published { report: Arc::from(json), belief, owner }))
            })
            .collect();
        self.outputs.telemetry.publish(reports);
    }

    pub(super) fn time(&self) -> f64 {
        self.clock.time(self.sim.model.dt_secs)
    }

    pub(super) fn state(&self) -> LabState {
        self.clock.state(self.sim.model.dt_secs)
    }

    pub(super) fn publish_frame(&mut self) {
        self.outputs.last_frame_at = Instant::now();
        let frame = self.outputs.frames.next_frame(&self.sim.world, self.clock.epoch, self.clock.step, self.time());
        if frame.poses.is_empty() && self.clock.step == self.outputs.last_frame_step {
            return;
        }
        self.outputs.last_frame_step = self.clock.step;
        self.history.recorder.frame(&frame);
        self.outputs.hub.publish_frame(frame);
    }

    pub(super) fn publish_state(&mut self) {
        let state = self.state();
        self.outputs.status.send_modify(|status| status.state = state.clone());
        self.outputs.hub.broadcast(&ServerMsg::State(state));
    }
}
