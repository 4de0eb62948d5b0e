//! The directory's leases of evaluations, as the classroom asks them
//! (`classroom::course::leases`): this server claims an evaluation before it runs it,
//! and finds those no server holds.

use vlab_cluster::{ClaimError, Directory, Lease};

use crate::classroom::course::leases::{Asked, EvaluationLeases, Hold};

/// Server `me`'s claims of evaluations in `directory`.
pub(super) struct EvaluationClaims {
    pub(super) directory: Directory,
    pub(super) me: String,
}

impl EvaluationLeases for EvaluationClaims {
    fn claim(&self, id: i64) -> Asked<'_, Option<Box<dyn Hold>>> {
        Box::pin(async move {
            match self.directory.claim_evaluation(id, &self.me).await {
                Ok(lease) => Ok(Some(Box::new(lease) as Box<dyn Hold>)),
                Err(ClaimError::Taken { .. }) => Ok(None),
                Err(error @ ClaimError::Directory(_)) => Err(error.to_string()),
            }
        })
    }

    fn unheld(&self, ids: Vec<i64>) -> Asked<'_, Vec<i64>> {
        Box::pin(async move { self.directory.unheld_evaluations(ids).await.map_err(|e| e.to_string()) })
    }
}

/// A lease renews itself while kept, and stops when dropped (expiring on NATS).
impl Hold for Lease {
    fn is_held(&self) -> bool {
        Lease::is_held(self)
    }
}
