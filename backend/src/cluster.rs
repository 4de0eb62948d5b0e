//! Cluster mode (docs/operations.md, "Running a cluster"): this server in the cluster's
//! directory, the leases of the labs it runs, and the labs it takes over.
//!
//! A lab runs here only while this server holds its lease: every lab added to the
//! registry is claimed (it steps only once the claim succeeded, [`LabHandle::step_only_while`]),
//! and closed here, without being closed in the store, when its lease is lost (another
//! server takes it over) or was never won. Labs kept in the database that no server
//! holds (their server died, or was drained, or none has opened it yet: the demo lab)
//! are claimed by whichever server polls first and restored there, claimed before they
//! are opened so that no other server opens a copy only to close it
//! ([`Node::take_over`]). The course's evaluations run likewise only
//! where their lease is held ([`Node::run_evaluations`]).

pub mod course;
mod evaluations;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use vlab_cluster::{Announcement, ClaimError, Directory, DirectoryError, Lease, ServerLoad};
use vlab_lab::LabHandle;

use crate::classroom::Classroom;
use crate::net::AppState;
use crate::net::peers::{Asked, Owners};

/// This server as a member of a cluster.
pub struct Node {
    directory: Directory,
    me: String,
    announcement: Announcement,
    leases: Mutex<HashMap<String, Lease>>,
    /// Leases won for labs not opened yet (taken over): the lab's claim takes its own
    /// from here once it is opened.
    won: Mutex<HashMap<String, Lease>>,
}

/// How often a lab whose lease was lost tries to claim it again: more often than the
/// other servers look for labs without a server (`ORPHAN_POLL`), so that after an outage
/// of NATS the server that ran a lab most likely runs it on, with its state.
const CLAIM_AGAIN_EVERY: Duration = Duration::from_secs(1);

/// Who the cluster's notices to pages are from.
const CLUSTER: &str = "VLab";

/// The notice to pages when a lab's lease is lost.
const STANDING_STILL: &str =
    "this lab's server cannot reach the cluster's directory: time stands still until it can (nothing is lost)";

/// The notice to pages when it holds the lease again.
const GOING_ON: &str = "the cluster's directory answers again: time goes on";

impl Node {
    /// Announces server `me`, reachable at `address`, in `directory`.
    pub async fn join(directory: Directory, me: String, address: &str) -> Result<Arc<Node>, DirectoryError> {
        let announcement = directory.announce(&me, address, env!("CARGO_PKG_VERSION")).await?;
        Ok(Arc::new(Node { directory, me, announcement, leases: Mutex::default(), won: Mutex::default() }))
    }

    /// Claims every lab the classroom `state` serves for this server, and from now on
    /// every lab added.
    pub fn claim_every_lab(self: &Arc<Node>, state: &Arc<AppState>) {
        let (node, served) = (Arc::clone(self), Arc::downgrade(state));
        state.classroom.registry.watch_inserts(Arc::new(move |lab: &Arc<LabHandle>| {
            if let Some(state) = served.upgrade() {
                node.claim(state, lab);
            }
        }));
        for lab in state.classroom.registry.all() {
            self.claim(Arc::clone(state), &lab);
        }
    }

    /// Claims `lab`'s lease; the lab steps once it is won and never after it is lost.
    /// A lab whose claim fails, or whose lease is lost, is closed here.
    fn claim(self: &Arc<Node>, state: Arc<AppState>, lab: &Arc<LabHandle>) {
        // Still until the claim is won; then the holder says.
        lab.step_only_while(Arc::new(|| false));
        let (node, lab) = (Arc::clone(self), Arc::clone(lab));
        tokio::spawn(async move {
            let won = node.won.lock().expect("won lock").remove(lab.id());
            let claimed = match won {
                Some(lease) => Ok(lease),
                None => node.directory.claim(lab.id(), &node.me).await,
            };
            let first = match claimed {
                Ok(lease) => Some(lease),
                Err(ClaimError::Taken { owner }) if owner != node.me => {
                    tracing::info!(lab = %lab.id(), %owner, "another server runs this lab");
                    None
                }
                Err(error) => {
                    tracing::warn!(lab = %lab.id(), %error, "cannot claim the lab's lease yet");
                    node.claim_again(&lab).await
                }
            };
            let Some(mut lease) = first else {
                node.let_go(&state.classroom, &lab);
                return;
            };
            tracing::info!(lab = %lab.id(), "this server holds the lab's lease");
            loop {
                let holder = lease.holder();
                // The permit asks the holder itself: cheap, and false from the moment
                // the lease may have expired on NATS, before anyone else can claim it.
                lab.step_only_while(Arc::new({
                    let holder = holder.clone();
                    move || holder.is_held()
                }));
                node.leases.lock().expect("leases lock").insert(lab.id().to_owned(), lease);
                tokio::select! {
                    _ = holder.lost() => {}
                    () = lab.wait_closed() => {
                        let lease = node.leases.lock().expect("leases lock").remove(lab.id());
                        if let Some(lease) = lease {
                            let _ = lease.release().await;
                        }
                        return;
                    }
                }
                node.leases.lock().expect("leases lock").remove(lab.id());
                tracing::warn!(lab = %lab.id(), "the lab's lease was lost: its time stands still until it is claimed again");
                lab.viewers().notice(CLUSTER, STANDING_STILL);
                match node.claim_again(&lab).await {
                    Some(again) => {
                        tracing::info!(lab = %lab.id(), "this server holds the lab's lease again");
                        lab.viewers().notice(CLUSTER, GOING_ON);
                        lease = again;
                    }
                    None => {
                        node.let_go(&state.classroom, &lab);
                        return;
                    }
                }
            }
        });
    }

    /// After a lease was lost (NATS unreachable, or this server cut off from it): claims
    /// it again, once NATS answers and the lease has expired, unless another server took
    /// it first (`None`: the lab now runs there, or was closed here).
    async fn claim_again(&self, lab: &LabHandle) -> Option<Lease> {
        let closed = lab.wait_closed();
        tokio::pin!(closed);
        loop {
            tokio::select! {
                () = &mut closed => return None,
                () = tokio::time::sleep(CLAIM_AGAIN_EVERY) => {}
            }
            match self.directory.claim(lab.id(), &self.me).await {
                Ok(lease) => return Some(lease),
                // Our own lease, not yet expired on NATS: it will be.
                Err(ClaimError::Taken { owner }) if owner == self.me => {}
                Err(ClaimError::Taken { owner }) => {
                    tracing::info!(lab = %lab.id(), %owner, "another server took the lab over");
                    return None;
                }
                Err(ClaimError::Directory(_)) => {}
            }
        }
    }

    /// Stops running `lab` here, leaving it open in the store for the server that holds it.
    fn let_go(&self, classroom: &Classroom, lab: &Arc<LabHandle>) {
        // Only this very lab: a newer one of the same id may have been opened since.
        if classroom.registry.get(lab.id()).is_some_and(|current| Arc::ptr_eq(&current, lab)) {
            classroom.registry.remove(lab.id());
        }
        let closing = Arc::clone(lab);
        tokio::task::spawn_blocking(move || closing.hand_over());
    }

    /// From now on the classroom runs an evaluation only while this server holds its
    /// lease, and takes over those no server holds when asked
    /// (`classroom.course().take_over_evaluations()`).
    pub fn run_evaluations(&self, classroom: &Classroom) {
        let claims = evaluations::EvaluationClaims { directory: self.directory.clone(), me: self.me.clone() };
        classroom.course().run_evaluations_under(Arc::new(claims));
    }

    /// Whether an operator drained this server: it takes no labs and hands over its own.
    pub fn is_draining(&self) -> bool {
        self.announcement.is_draining()
    }

    /// Hands over every lab this server runs: its checkpoint kept as it stands, then
    /// closed here (its pages told to connect again) and its lease released, and the
    /// other servers take it over from that checkpoint.
    pub async fn hand_over_all(&self, classroom: &Classroom) -> usize {
        let labs = classroom.registry.all();
        for lab in &labs {
            tracing::info!(lab = %lab.id(), "draining: the lab goes to another server");
            // Its clock and bodies as they stand, for the server taking it to go on from.
            if let Err(error) = classroom.checkpoints().keep_now(lab).await {
                tracing::warn!(lab = %lab.id(), %error, "the lab's checkpoint could not be kept before handing it over");
            }
            self.let_go(classroom, lab);
        }
        labs.len()
    }

    /// Claims and restores, once, every lab kept in the database that no server holds;
    /// how many it took over. Each is claimed before it is opened: a server that polled
    /// first wins the claim, and this one leaves the lab alone (nothing opened, nothing
    /// recorded).
    pub async fn take_over(&self, classroom: &Classroom) -> Result<usize, String> {
        let open = classroom.labs().kept_ids().map_err(|e| e.to_string())?;
        let orphans = self.directory.orphans(open.iter().map(String::as_str)).await.map_err(|e| e.to_string())?;
        let mut taken = 0;
        for lab in orphans {
            if classroom.registry.get(&lab).is_some() {
                continue;
            }
            match self.directory.claim(&lab, &self.me).await {
                Ok(lease) => {
                    self.won.lock().expect("won lock").insert(lab.clone(), lease);
                }
                Err(ClaimError::Taken { owner }) => {
                    tracing::debug!(%lab, %owner, "another server took the lab over first");
                    continue;
                }
                Err(error) => {
                    tracing::warn!(%lab, %error, "cannot claim a lab without a server");
                    continue;
                }
            }
            // Opening it registers it, and its claim takes the lease won above.
            match classroom.labs().restore_one(&lab).await {
                Ok(()) => taken += 1,
                Err(error) => {
                    tracing::error!(%lab, %error, "a lab without a server could not be restored here");
                    let unused = self.won.lock().expect("won lock").remove(&lab);
                    if let Some(lease) = unused {
                        let _ = lease.release().await;
                    }
                }
            }
        }
        Ok(taken)
    }

    /// Tells the directory how loaded this server is.
    pub fn report_load(&self, classroom: &Classroom, mirrored_viewers: usize) {
        let labs = classroom.registry.all();
        let viewers: usize = labs.iter().map(|lab| lab.summary().viewers).sum::<usize>() + mirrored_viewers;
        self.announcement.set_load(ServerLoad {
            labs: u32::try_from(labs.len()).unwrap_or(u32::MAX),
            viewers: u32::try_from(viewers).unwrap_or(u32::MAX),
            cpu_share: 0.0,
        });
    }
}

/// The directory as the network side asks it.
impl Owners for Node {
    fn owner_of<'a>(&'a self, lab: &'a str) -> Asked<'a, Option<String>> {
        Box::pin(async move { self.directory.owner_of(lab).await.map_err(|e| e.to_string()) })
    }

    fn place(&self) -> Asked<'_, String> {
        Box::pin(async move {
            let place = self.directory.least_loaded().await.map_err(|e| e.to_string())?;
            Ok(place.map_or_else(|| self.me.clone(), |server| server.id))
        })
    }

    fn servers(&self) -> Asked<'_, Vec<String>> {
        Box::pin(async move {
            let servers = self.directory.servers().await.map_err(|e| e.to_string())?;
            Ok(servers.into_iter().map(|server| server.id).collect())
        })
    }
}
