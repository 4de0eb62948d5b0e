//! A lab's room: read by anybody in the lab, changed by the instructor while the lab
//! runs (docs/classroom.md, "Changing the room of a running lab"): kept first, then made
//! between two steps, taken back if the lab refuses it.

use vlab_protocol::permissions::Action;
use vlab_protocol::{RoomChange, RoomView};

use super::access::authorize;
use super::{Classroom, ClassroomError};
use crate::store::Insertion;
use vlab_lab::{Caller, LabHandle};

/// The rooms of the classroom's labs.
#[derive(Clone, Copy)]
pub struct ClassroomRoom<'a> {
    pub(super) classroom: &'a Classroom,
}

impl ClassroomRoom<'_> {
    /// The lab's room as it stands; a lab whose scene declares none has no room (404).
    pub async fn now(self, lab: &LabHandle, caller: Caller) -> Result<RoomView, ClassroomError> {
        authorize(caller, Action::Watch)?;
        lab.room().now().await?.ok_or_else(|| no_room(lab))
    }

    /// Changes the room (the instructor): kept, so a restart builds the lab with it, then
    /// made between two steps; every page draws the new room. Refused, with nothing
    /// changed, for a value outside the language's limits or a moving body that would not
    /// stand inside the new room.
    pub async fn change(self, lab: &LabHandle, caller: Caller, change: RoomChange) -> Result<RoomView, ClassroomError> {
        authorize(caller, Action::ChangeEnvironment)?;
        let entry = Insertion::Room { change: change.clone() };
        let kept = self.classroom.keep(|store| store.record_insertion(lab.id(), &entry))?;
        match lab.room().change(change, true).await {
            Ok(room) => {
                tracing::info!(lab = %lab.id(), width = room.width, length = room.length, height = room.height, "room changed");
                Ok(room)
            }
            Err(e) => {
                if let Some(seq) = kept {
                    self.classroom.unkeep(lab.id(), "change of the room", |store| store.forget_insertion(seq));
                }
                Err(e.into())
            }
        }
    }
}

fn no_room(lab: &LabHandle) -> ClassroomError {
    ClassroomError::NotFound(format!(
        "lab '{}' has no room: its scene declares no environment (insert one with environment room {{ ... }})",
        lab.id()
    ))
}
