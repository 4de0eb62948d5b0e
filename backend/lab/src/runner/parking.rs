//! Parking: a running lab that nobody watches and whose world sleeps moves its clock
//! on without stepping, and makes the skipped steps good when it wakes.

use super::Runner;
use vlab_protocol::ProgramState;

impl Runner {
    /// Whether stepping would change nothing anybody can see: nobody watches (no
    /// viewer, no robot report wanted), no program runs or starts, every body sleeps
    /// and the robots leave the world as it is (no motor turning, no radio).
    pub(super) fn idle(&self) -> bool {
        use ProgramState::{Idle, None as NoProgram, Stopped};
        self.clock.may_park
            && self.clock.stepping.is_none()
            && !self.outputs.hub.has_viewers()
            && !self.sim.programs.starting()
            && self.sim.robots.all().iter().all(|r| matches!(r.program().state, NoProgram | Idle | Stopped))
            && self.sim.world.all_asleep()
            && self.sim.robots.at_rest()
            && self.outputs.telemetry.wanted().is_empty()
            && !self.live_run_on()
    }

    /// Parks a running lab that is [`Runner::idle`] (it has caught up with its clock):
    /// from now on it wakes every `PARKED_TICK` only to move its step on with the
    /// wall clock, skipping the physics and sensor phases, until a command, a viewer,
    /// a watched robot (or anything else that ends idleness) wakes it.
    pub(super) fn park(&mut self) {
        if self.clock.parked.is_none() && self.idle() {
            self.publish_frame();
            self.history.recorder.settle(&self.sim.robots);
            self.clock.parked = Some(self.clock.step);
        }
    }

    /// Ends a park: the steps skipped since are made good at once (no body moved
    /// during them, so every sensor's schedule is booked and its latest due reading
    /// taken as those steps would have left them; see `Robots::skip_still`).
    pub(super) fn unpark(&mut self) {
        let Some(from) = self.clock.parked.take() else { return };
        self.sim.robots.skip_still(&self.sim.world, from, self.clock.step, self.sim.model.dt_secs);
        self.publish_frame();
        self.publish_telemetry();
    }
}
