//! The clock of a lab, as its instructor drives it: pause, run, step, rate, reset.

use std::sync::Arc;

use tokio::sync::oneshot;
use vlab_protocol::permissions::Action;
use vlab_protocol::{ControlAction, LabState};

use super::ClassroomError;
use super::access::authorize;
use vlab_lab::{Caller, LabHandle};

/// The clocks of the classroom's labs: each call names its lab, so the view holds nothing.
#[derive(Clone, Copy)]
pub struct ClassroomClock;

impl ClassroomClock {
    /// Time control (instructor), checked and queued at once so one caller's commands
    /// keep their order; the receiver gives the clock's state once it took effect (for
    /// `step N`, once the steps are done).
    pub fn queue_control(
        self,
        lab: &Arc<LabHandle>,
        caller: Caller,
        action: ControlAction,
    ) -> Result<oneshot::Receiver<LabState>, ClassroomError> {
        authorize(caller, Action::ControlTime)?;
        action.validate().map_err(ClassroomError::Invalid)?;
        Ok(lab.clock().send_control(action)?)
    }

    /// Time control, awaited: the clock's state once the command took effect.
    pub async fn control(
        self,
        lab: &Arc<LabHandle>,
        caller: Caller,
        action: ControlAction,
    ) -> Result<LabState, ClassroomError> {
        let answer = self.queue_control(lab, caller, action)?;
        answer.await.map_err(|_| vlab_lab::LabError::Unavailable(lab.id().to_owned()).into())
    }
}
