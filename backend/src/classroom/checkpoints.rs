//! Labs' checkpoints in the database: each lab's last one kept every few seconds, and a
//! lab opened again (after a restart, or taken over from a server that died) going on
//! from it instead of from step 0 (docs/operations.md, "Running a cluster").
//!
//! The lab's thread publishes a checkpoint as it takes one (every 5 s of simulation,
//! and at every new run's start); writing it is left to a task of the server's, so a
//! slow or unavailable database never holds a lab's clock.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use super::{Classroom, ClassroomError};
use vlab_lab::LabHandle;
use vlab_lab::resume::KeptCheckpoint;
use vlab_protocol::ControlAction;

/// How often the server writes the checkpoints its labs took since: a lab opened
/// again loses at most this plus the simulated time between checkpoints.
pub const CHECKPOINT_KEEPING: Duration = Duration::from_secs(5);

/// The checkpoints a server last wrote, by lab: only newer ones are written.
#[derive(Default)]
pub struct KeptCheckpoints {
    written: HashMap<String, Arc<KeptCheckpoint>>,
}

/// The classroom's labs' checkpoints, for one call.
#[derive(Clone, Copy)]
pub struct ClassroomCheckpoints<'a> {
    pub(super) classroom: &'a Classroom,
}

impl ClassroomCheckpoints<'_> {
    /// Writes the checkpoint each lab running here took last, where it is not the one
    /// written before. A lab handed over to another server is left to it. A write that
    /// fails is logged and tried again next time; returns how many were written.
    pub fn keep_new(self, kept: &mut KeptCheckpoints) -> usize {
        let labs = self.classroom.registry.all();
        kept.written.retain(|id, _| labs.iter().any(|lab| lab.id() == id));
        let mut written = 0;
        for lab in labs.iter().filter(|lab| !lab.handed_over()) {
            let Some(checkpoint) = lab.clock().kept_checkpoint() else { continue };
            if kept.written.get(lab.id()).is_some_and(|last| Arc::ptr_eq(last, &checkpoint)) {
                continue;
            }
            match self.write(lab.id(), &checkpoint) {
                Ok(()) => {
                    kept.written.insert(lab.id().to_owned(), checkpoint);
                    written += 1;
                }
                Err(error) => tracing::warn!(lab = %lab.id(), %error, "a lab's checkpoint could not be kept"),
            }
        }
        written
    }

    /// Writes lab `lab` as it stands as its last checkpoint (its server is about to
    /// stop, or to hand it to another), so it goes on from here.
    pub async fn keep_now(self, lab: &LabHandle) -> Result<(), ClassroomError> {
        let checkpoint = lab.clock().checkpoint_now().await?;
        self.write(lab.id(), &checkpoint)
    }

    /// Writes `checkpoint` as lab `id`'s last, over the one before.
    fn write(self, id: &str, checkpoint: &KeptCheckpoint) -> Result<(), ClassroomError> {
        let json = checkpoint.to_json();
        self.classroom.keep(|store| store.save_checkpoint(id, checkpoint.step, &json))?;
        Ok(())
    }

    /// The checkpoint the database kept of lab `id`, if any past step 0 (a lab reset
    /// since starts from step 0 anyway). One that cannot be read is logged, and the lab
    /// starts from step 0. Read before the lab is opened again: once open, the lab
    /// publishes checkpoints of its own, which this server may write over it.
    pub fn kept(self, id: &str) -> Result<Option<KeptCheckpoint>, ClassroomError> {
        let Some(text) = self.classroom.keep(|store| store.checkpoint(id))?.flatten() else { return Ok(None) };
        match KeptCheckpoint::from_json(&text) {
            Ok(kept) => Ok(Some(kept).filter(|kept| kept.step > 0)),
            Err(error) => {
                tracing::error!(lab = %id, %error, "the lab's kept checkpoint cannot be read: it starts from step 0");
                Ok(None)
            }
        }
    }

    /// Lab `lab`, opened again paused with its uploads done again, goes on from `kept`
    /// (see [`ClassroomCheckpoints::kept`]), then runs if `running`.
    pub async fn go_on_from(
        self,
        lab: &Arc<LabHandle>,
        kept: KeptCheckpoint,
        running: bool,
    ) -> Result<(), ClassroomError> {
        let state = lab.clock().go_on_from(kept).await?;
        tracing::info!(lab = %lab.id(), step = state.step, "the lab goes on from its last kept checkpoint");
        if running {
            lab.clock().control(ControlAction::Resume).await?;
        }
        Ok(())
    }
}
