//! A lab's clock as the server drives it: pause, run, step, rate, reset, a live run of
//! its challenge, and the state its thread last published.

use tokio::sync::oneshot;
use vlab_protocol::{ControlAction, LabState};

use super::LabHandle;
use crate::commands::LabCommand;
use crate::error::LabError;
use crate::resume::KeptCheckpoint;

/// The clock of one lab.
#[derive(Clone, Copy)]
pub struct LabClock<'a> {
    pub(super) lab: &'a LabHandle,
}

impl LabClock<'_> {
    /// Sends a time-control command and waits until it took effect.
    pub async fn control(self, action: ControlAction) -> Result<LabState, LabError> {
        let answer = self.send_control(action)?;
        self.lab.answer(answer).await
    }

    /// Queues a time-control command now (commands from one caller keep their order)
    /// and gives the receiver of the resulting state, to await elsewhere.
    pub fn send_control(self, action: ControlAction) -> Result<oneshot::Receiver<LabState>, LabError> {
        self.lab.queue(|reply| LabCommand::Control { action, reply })
    }

    /// The latest published clock state.
    pub fn state(self) -> LabState {
        self.lab.status.borrow().state.clone()
    }

    /// Goes on from `checkpoint`, kept in the database (see [`LabCommand::GoOnFrom`]).
    pub async fn go_on_from(self, checkpoint: KeptCheckpoint) -> Result<LabState, LabError> {
        self.lab.request(|reply| LabCommand::GoOnFrom { checkpoint: Box::new(checkpoint), reply }).await
    }

    /// The lab as it stands, as its last checkpoint (see [`LabCommand::CheckpointNow`]).
    pub async fn checkpoint_now(self) -> Result<std::sync::Arc<KeptCheckpoint>, LabError> {
        self.lab.request(|reply| LabCommand::CheckpointNow { reply }).await
    }

    /// The checkpoint the lab took last, as the database keeps it (`None`: none yet).
    pub fn kept_checkpoint(self) -> Option<std::sync::Arc<KeptCheckpoint>> {
        self.lab.status.borrow().checkpoint.clone()
    }

    /// Starts the challenge live: the lab reset, then running, every robot judged.
    pub async fn start_run(self) -> Result<(), LabError> {
        self.lab.request(|reply| LabCommand::StartRun { reply }).await?
    }

    /// Ends a live run still on; the lab goes on.
    pub async fn stop_run(self) -> Result<(), LabError> {
        self.lab.request(|reply| LabCommand::StopRun { reply }).await
    }

    /// The live run as the lab last published it (owners' names empty).
    pub fn live_run(self) -> Option<vlab_protocol::LiveRun> {
        self.lab.status.borrow().run.clone()
    }
}
