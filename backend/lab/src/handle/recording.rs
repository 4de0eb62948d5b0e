//! A lab's recording as the server reaches it: the open chunk, and rewinds.

use super::LabHandle;
use crate::commands::LabCommand;
use crate::error::LabError;
use crate::recording::{Chunk, Record};
use crate::runner::{RewindStart, Rewound};

/// The recording of one lab.
#[derive(Clone, Copy)]
pub struct LabRecording<'a> {
    pub(super) lab: &'a LabHandle,
}

impl LabRecording<'_> {
    /// The recording's open chunk: what happened since the last chunk was kept.
    pub async fn tail(self) -> Result<Chunk, LabError> {
        self.lab.request(|reply| LabCommand::RecordingTail { reply }).await
    }

    /// Where a rewind to `step` of the current run would start re-simulating, or why
    /// the lab cannot go back there (see [`LabCommand::RewindStart`]); the lab goes on
    /// as it was.
    pub async fn rewind_start(self, step: u64, kept: Vec<(u32, u64)>) -> Result<RewindStart, LabError> {
        self.lab.request(|reply| LabCommand::RewindStart { step, kept, reply }).await?
    }

    /// Rewinds the lab to `step`, re-simulated from `start` with `inputs` (see
    /// [`LabCommand::Rewind`]).
    pub async fn rewind(
        self,
        start: RewindStart,
        step: u64,
        (inputs, through): (Vec<Record>, u64),
    ) -> Result<Rewound, LabError> {
        self.lab.request(|reply| LabCommand::Rewind { start, step, inputs, through, reply }).await?
    }
}
