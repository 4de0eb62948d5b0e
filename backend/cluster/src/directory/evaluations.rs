//! Evaluation leases: which server runs an unfinished evaluation of a course's
//! hand-in. The same leases as labs' ([`super::leases`]: claimed with a revision-checked
//! create, renewed, expiring `lease_ttl` after a dead holder's last renewal), in the same
//! bucket under keys of their own (`evaluation.<id>`, which no lab's key can be). A
//! server runs an evaluation only while it holds its lease, so two servers never run
//! one at once; one whose holder died shows up in [`Directory::unheld_evaluations`].

use super::keys::evaluation_key;
use super::leases::{ClaimError, Lease};
use super::{Directory, DirectoryError};

impl Directory {
    /// Claims evaluation `id`'s lease for the server `owner`; it renews itself until
    /// released or dropped.
    pub async fn claim_evaluation(&self, id: i64, owner: &str) -> Result<Lease, ClaimError> {
        self.claim_key(evaluation_key(id), &format!("evaluation {id}"), owner).await
    }

    /// The server holding evaluation `id`'s lease, if any.
    pub async fn evaluation_owner(&self, id: i64) -> Result<Option<String>, DirectoryError> {
        self.holder_of_key(&evaluation_key(id)).await
    }

    /// Those of evaluations `ids` whose lease no server holds, in the order given: the
    /// unfinished evaluations a server may claim and run.
    pub async fn unheld_evaluations(&self, ids: impl IntoIterator<Item = i64>) -> Result<Vec<i64>, DirectoryError> {
        self.unheld_keys(ids.into_iter().map(|id| (evaluation_key(id), id)).collect()).await
    }
}
