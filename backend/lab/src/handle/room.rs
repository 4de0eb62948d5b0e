//! A lab's room as the server reaches it: read it, change it while the lab runs.

use vlab_protocol::{RoomChange, RoomView};

use super::LabHandle;
use crate::commands::LabCommand;
use crate::error::LabError;

/// The room of one lab.
#[derive(Clone, Copy)]
pub struct LabRoom<'a> {
    pub(super) lab: &'a LabHandle,
}

impl LabRoom<'_> {
    /// The room as it stands (`None`: the lab's scene declares no environment).
    pub async fn now(self) -> Result<Option<RoomView>, LabError> {
        let model = self.lab.request(|reply| LabCommand::Model { reply }).await?;
        Ok(crate::wire::room(&model))
    }

    /// Changes the room between two steps, all or nothing; with `checked`, refused while
    /// a moving body would not stand inside the new room.
    pub async fn change(self, change: RoomChange, checked: bool) -> Result<RoomView, LabError> {
        self.lab.request(|reply| LabCommand::ChangeRoom { change: Box::new(change), checked, reply }).await?
    }
}
