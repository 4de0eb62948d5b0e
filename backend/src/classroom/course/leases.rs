//! Which server runs an evaluation. A server alone runs every evaluation it starts. In
//! cluster mode (`crate::cluster`) servers share the database, so each evaluation runs
//! only on the server holding its lease in the cluster's directory: claimed before it
//! is lined up, checked before each trial runs, at every step of it and before its
//! result is kept, so two servers never run one at once; and the unfinished evaluations
//! no server holds (their server died) are claimed and run by another
//! (`Evaluations::take_over`). Trials are deterministic: running one again gives the
//! same result.

use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

/// A question to the cluster's directory: its answer, or why there is none.
pub type Asked<'a, T> = Pin<Box<dyn Future<Output = Result<T, String>> + Send + 'a>>;

/// The cluster's leases of evaluations, as the classroom asks them.
pub trait EvaluationLeases: Send + Sync {
    /// Claims evaluation `id` for this server: its hold when won, `None` when another
    /// server holds it.
    fn claim(&self, id: i64) -> Asked<'_, Option<Box<dyn Hold>>>;

    /// Those of `ids` whose lease no server holds, in the order given.
    fn unheld(&self, ids: Vec<i64>) -> Asked<'_, Vec<i64>>;
}

/// A lease won: whether it is still held (once lost, never held again). Dropped, it is
/// given up.
pub trait Hold: Send + Sync {
    /// Whether this server still holds it.
    fn is_held(&self) -> bool;
}

/// The evaluations this server has lined up or runs, by id.
pub(super) type Here = Arc<Mutex<HashSet<i64>>>;

/// An evaluation this server may run: lined up in its class's line, then its trials in
/// the attempt queue, each keeping it (`Arc`) until it ends. It leaves [`Here`] when the
/// last of them lets it go, and its lease (if any) with it.
pub(super) struct Claimed {
    pub(super) id: i64,
    hold: Option<Box<dyn Hold>>,
    here: Here,
}

impl Claimed {
    /// Evaluation `id`, now this server's (`None`: it already is).
    pub(super) fn enter(here: &Here, id: i64) -> Option<Claimed> {
        let fresh = here.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).insert(id);
        fresh.then(|| Claimed { id, hold: None, here: Arc::clone(here) })
    }

    /// The same, held by `hold` (cluster mode).
    pub(super) fn held_by(mut self, hold: Box<dyn Hold>) -> Claimed {
        self.hold = Some(hold);
        self
    }

    /// Whether this server may still run and keep it: always when alone; in a cluster,
    /// while it holds the lease.
    pub(super) fn is_held(&self) -> bool {
        self.hold.as_ref().is_none_or(|hold| hold.is_held())
    }
}

impl Drop for Claimed {
    fn drop(&mut self) {
        self.here.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).remove(&self.id);
    }
}

/// How many evaluations a server holds at most before it stops taking over others'
/// (its own hand-ins it always runs): a server just started, or the last one alive,
/// does not line up every orphan at once while other servers could share them.
pub const TAKE_OVER_WHILE_FEWER_THAN: usize = 4;

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    struct Flag(Arc<AtomicBool>);

    impl Hold for Flag {
        fn is_held(&self) -> bool {
            self.0.load(Ordering::Relaxed)
        }
    }

    #[test]
    fn an_evaluation_is_here_once_until_its_last_holder_lets_it_go() {
        let here = Here::default();
        let claimed = Arc::new(Claimed::enter(&here, 7).unwrap());
        assert!(Claimed::enter(&here, 7).is_none(), "lined up once");
        let trial = Arc::clone(&claimed);
        drop(claimed);
        assert!(here.lock().unwrap().contains(&7), "a trial still holds it");
        drop(trial);
        assert!(here.lock().unwrap().is_empty());
        assert!(Claimed::enter(&here, 7).is_some());
    }

    #[test]
    fn alone_an_evaluation_is_always_held_and_in_a_cluster_while_its_lease_is() {
        let here = Here::default();
        assert!(Claimed::enter(&here, 1).unwrap().is_held());
        let lease = Arc::new(AtomicBool::new(true));
        let claimed = Claimed::enter(&here, 2).unwrap().held_by(Box::new(Flag(Arc::clone(&lease))));
        assert!(claimed.is_held());
        lease.store(false, Ordering::Relaxed);
        assert!(!claimed.is_held());
    }
}
