//! Lab leases: which server runs a lab. A server claims a lab's lease before it runs
//! the lab, renews it while it does, and stops stepping the lab the moment the lease is
//! no longer held ([`LeaseHolder::is_held`], cheap enough for every step).
//!
//! A lease is a key in the leases bucket, written only with revision checks: a claim
//! is a `create` (fails if anyone holds it), a renewal an `update` at the revision the
//! holder last wrote (fails if anyone else wrote since), a release a `delete` at that
//! revision (never deletes someone else's). A lease nobody renews expires on the NATS
//! server `lease_ttl` after its last renewal was stored.
//!
//! # Never two owners
//!
//! The holder cannot see the NATS server's clock, so it counts on its own: it notes the
//! monotonic time `sent` just before sending each renewal, and once that renewal is
//! acknowledged it holds the lease until `sent + lease_ttl - safety`. The NATS server
//! stored that renewal at some moment after `sent` (the message was still on its way),
//! and expires it `lease_ttl` after storing it, so no one else can claim the lease before
//! `sent + lease_ttl`: the holder gives up at least `safety` earlier. Counting from the
//! acknowledgement instead would be wrong: the acknowledgement arrives after the store,
//! and a slow one would push the holder's deadline past the real expiry. A holder cut
//! off from NATS gets no acknowledgements, so its deadline stops moving and it gives up
//! by itself; no message needs to reach it.
//!
//! A lease once lost stays lost ([`LeaseHolder::is_held`] never turns true again): the
//! lab has stopped, and the failover on another server may already be restoring it.
//!
//! NATS 2.9 sends no notice when a key expires: [`Directory::orphans`] lists the labs
//! without a live lease, for a failover loop that polls it.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use async_nats::jetstream::kv;
use bytes::Bytes;
use serde::{Deserialize, Serialize};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use super::keys::key_for;
use super::{Directory, DirectoryError, Timing, live_entry, stored_keys};

/// How many times a claim retries when the lease it found taken has expired meanwhile.
const CLAIM_TRIES: u32 = 3;

/// What a lease's key holds.
#[derive(Debug, Serialize, Deserialize)]
struct LeaseRecord {
    /// The holding server's id.
    owner: String,
    /// This claim's own mark, so a holder recognises its own renewal when the
    /// acknowledgement was lost but the write landed.
    token: String,
}

/// Why a claim failed.
#[derive(Debug, thiserror::Error)]
pub enum ClaimError {
    /// Another server (or this one, through an earlier claim) holds the lease.
    #[error("the lab's lease is held by server {owner}")]
    Taken {
        /// The holder's id.
        owner: String,
    },
    /// The directory could not be reached or read.
    #[error(transparent)]
    Directory(#[from] DirectoryError),
}

/// Why a release did not delete the lease.
#[derive(Debug, thiserror::Error)]
pub enum ReleaseError {
    /// The lease had already expired or been taken over: nothing of ours to delete.
    #[error("the lease of {lab} was no longer ours to release")]
    NotOurs {
        /// The lab.
        lab: String,
    },
    /// The delete could not be sent or was not acknowledged; the lease expires by itself.
    #[error("cannot release the lease of {lab}: {source}")]
    Nats {
        /// The lab.
        lab: String,
        /// Why.
        source: async_nats::Error,
    },
}

impl Directory {
    /// Claims `lab`'s lease for the server `owner`; it renews itself until released or
    /// dropped.
    pub async fn claim(&self, lab: &str, owner: &str) -> Result<Lease, ClaimError> {
        self.claim_key(key_for(lab), lab, owner).await
    }

    /// Claims the lease under `key` (for `name`: a lab's id, or what else it is for) for
    /// the server `owner`.
    pub(super) async fn claim_key(&self, key: String, name: &str, owner: &str) -> Result<Lease, ClaimError> {
        let token = new_token(owner);
        let value = Bytes::from(
            serde_json::to_vec(&LeaseRecord { owner: owner.to_owned(), token: token.clone() })
                .expect("a lease record serialises"),
        );
        for _ in 0..CLAIM_TRIES {
            // Before sending: the NATS server stores the claim later than this.
            let sent = Instant::now();
            match self.leases.create(&key, value.clone()).await {
                Ok(revision) => return Ok(Lease::start(self, name, key, value, token, sent, revision)),
                Err(error) if error.kind() == kv::CreateErrorKind::AlreadyExists => {
                    if let Some(owner) = self.holder_of_key(&key).await? {
                        return Err(ClaimError::Taken { owner });
                    }
                    // Expired or released between the two calls: try again.
                }
                Err(error) => return Err(self.leases_error("write", &key, error.into()).into()),
            }
        }
        Err(ClaimError::Taken { owner: self.holder_of_key(&key).await?.unwrap_or_default() })
    }

    /// The server holding `lab`'s lease, if any.
    pub async fn owner_of(&self, lab: &str) -> Result<Option<String>, DirectoryError> {
        self.holder_of_key(&key_for(lab)).await
    }

    /// The server holding the lease under `key`, if any.
    pub(super) async fn holder_of_key(&self, key: &str) -> Result<Option<String>, DirectoryError> {
        let Some(entry) = live_entry(&self.leases, self.leases_bucket(), key).await? else {
            return Ok(None);
        };
        let record: LeaseRecord = serde_json::from_slice(&entry.value).map_err(|source| DirectoryError::Corrupt {
            bucket: self.leases_bucket().to_owned(),
            key: key.to_owned(),
            source,
        })?;
        Ok(Some(record.owner))
    }

    /// Those of `known_labs` that no server holds a lease on (in the order given): the
    /// labs a failover loop claims, polling every [`super::ORPHAN_POLL`]. A lab whose
    /// holder was killed shows up here once its lease expired. One listing of the bucket,
    /// then one read per known lab it stores something for (a released lease leaves a
    /// delete marker until it expires).
    pub async fn orphans<'a>(
        &self,
        known_labs: impl IntoIterator<Item = &'a str>,
    ) -> Result<Vec<String>, DirectoryError> {
        let keys: Vec<(String, &str)> = known_labs.into_iter().map(|lab| (key_for(lab), lab)).collect();
        let unheld = self.unheld_keys(keys).await?;
        Ok(unheld.into_iter().map(str::to_owned).collect())
    }

    /// Those of `known` (keys and what each is for) whose lease no server holds, in the
    /// order given: one listing of the bucket, then one read per key it stores
    /// something for.
    pub(super) async fn unheld_keys<T>(&self, known: Vec<(String, T)>) -> Result<Vec<T>, DirectoryError> {
        let stored: HashSet<String> = stored_keys(&self.leases).await?.into_iter().collect();
        let mut unheld = Vec::new();
        for (key, what) in known {
            if !stored.contains(&key) || live_entry(&self.leases, self.leases_bucket(), &key).await?.is_none() {
                unheld.push(what);
            }
        }
        Ok(unheld)
    }

    fn leases_bucket(&self) -> &str {
        &self.leases.name
    }

    fn leases_error(&self, doing: &'static str, key: &str, source: async_nats::Error) -> DirectoryError {
        DirectoryError::Nats { doing, bucket: self.leases_bucket().to_owned(), key: key.to_owned(), source }
    }
}

/// A claim's token: the owner, the wall-clock time and a counter, unique enough to tell
/// this claim's writes from any other's.
fn new_token(owner: &str) -> String {
    static CLAIMS: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or_default();
    format!("{owner}/{}/{nanos}/{}", std::process::id(), CLAIMS.fetch_add(1, Ordering::Relaxed))
}

/// A held lease of one lab. It renews itself every `renew` until [`Lease::release`]d or
/// dropped; dropped without a release it stops renewing and expires on the NATS server
/// (as if the server had died).
pub struct Lease {
    lab: String,
    key: String,
    holder: LeaseHolder,
    stop: Arc<Notify>,
    renewer: Option<JoinHandle<()>>,
    store: kv::Store,
}

impl Lease {
    fn start(
        directory: &Directory,
        lab: &str,
        key: String,
        value: Bytes,
        token: String,
        sent: Instant,
        revision: u64,
    ) -> Lease {
        let held = Arc::new(Held {
            state: Mutex::new(HeldState { deadline: sent + directory.timing.held_for(), lost_at: None, revision }),
            changed: Notify::new(),
        });
        let stop = Arc::new(Notify::new());
        let renewer = tokio::spawn(renew(Renewal {
            store: directory.leases.clone(),
            key: key.clone(),
            value,
            token,
            held: held.clone(),
            stop: stop.clone(),
            timing: directory.timing,
        }));
        Lease {
            lab: lab.to_owned(),
            key,
            holder: LeaseHolder { lab: lab.to_owned(), held },
            stop,
            renewer: Some(renewer),
            store: directory.leases.clone(),
        }
    }

    /// What this lease is for: a lab's id (`evaluation <id>` for an evaluation's).
    pub fn lab(&self) -> &str {
        &self.lab
    }

    /// Whether the lease is still held (see [`LeaseHolder::is_held`]).
    pub fn is_held(&self) -> bool {
        self.holder.is_held()
    }

    /// A handle the lab keeps to check the lease every step.
    pub fn holder(&self) -> LeaseHolder {
        self.holder.clone()
    }

    /// Gives the lease up: it stops being held at once (before anyone else can claim
    /// it), then its key is deleted at our last revision, so the lab is claimable at once.
    pub async fn release(mut self) -> Result<(), ReleaseError> {
        self.holder.held.lose(Instant::now());
        self.stop.notify_one();
        if let Some(renewer) = self.renewer.take() {
            // It ends between renewals, so no renewal of ours lands after the delete.
            let _ = renewer.await;
        }
        let revision = self.holder.held.lock().revision;
        match self.store.delete_expect_revision(&self.key, Some(revision)).await {
            Ok(()) => Ok(()),
            Err(error) if error.kind() == kv::UpdateErrorKind::WrongLastRevision => {
                Err(ReleaseError::NotOurs { lab: self.lab.clone() })
            }
            Err(error) => Err(ReleaseError::Nats { lab: self.lab.clone(), source: error.into() }),
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if let Some(renewer) = self.renewer.take() {
            renewer.abort();
        }
    }
}

/// A cheap handle on a lease, for the lab to check before every step.
#[derive(Clone)]
pub struct LeaseHolder {
    lab: String,
    held: Arc<Held>,
}

impl LeaseHolder {
    /// Whether the lease is still held: false from `sent + lease_ttl - safety` of the last
    /// acknowledged renewal on, or since a renewal found someone else's write, or since
    /// the release. Once false, never true again.
    pub fn is_held(&self) -> bool {
        self.held.lock().still_held(Instant::now())
    }

    /// Waits until the lease is no longer held; returns the moment it stopped being held.
    pub async fn lost(&self) -> Instant {
        loop {
            let changed = self.held.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let deadline = {
                let mut state = self.held.lock();
                if !state.still_held(Instant::now()) {
                    return state.lost_at.expect("a lease not held has the moment it was lost");
                }
                state.deadline
            };
            tokio::select! {
                () = tokio::time::sleep_until(deadline.into()) => {}
                () = changed => {}
            }
        }
    }

    /// The lab this lease is for.
    pub fn lab(&self) -> &str {
        &self.lab
    }
}

/// What the holder knows of its lease, shared by the lease, its holders and its renewer.
struct Held {
    state: Mutex<HeldState>,
    /// Woken when the lease is lost otherwise than by its deadline passing.
    changed: Notify,
}

struct HeldState {
    /// Held until then: `sent + lease_ttl - safety` of the last acknowledged write.
    deadline: Instant,
    /// When it stopped being held.
    lost_at: Option<Instant>,
    /// The revision of our last acknowledged write.
    revision: u64,
}

impl HeldState {
    /// Whether still held at `now`; records the loss when the deadline has passed.
    fn still_held(&mut self, now: Instant) -> bool {
        if self.lost_at.is_none() && now >= self.deadline {
            self.lost_at = Some(self.deadline);
        }
        self.lost_at.is_none()
    }
}

impl Held {
    fn lock(&self) -> MutexGuard<'_, HeldState> {
        // The state is three plain fields, consistent after any panic.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A write sent at `sent` was acknowledged at `revision`: held until `sent + ttl -
    /// safety`. False (and nothing changes) if the lease was lost meanwhile.
    fn acknowledged(&self, sent: Instant, revision: u64, timing: &Timing) -> bool {
        let mut state = self.lock();
        if !state.still_held(Instant::now()) {
            return false;
        }
        state.deadline = state.deadline.max(sent + timing.held_for());
        state.revision = revision;
        true
    }

    /// Our write whose acknowledgement was lost landed at `revision`: renew from there.
    /// The deadline stays (we cannot tell when that write was sent).
    fn adopt(&self, revision: u64) {
        self.lock().revision = revision;
    }

    /// The lease is lost at `at` (or earlier, if its deadline passed before).
    fn lose(&self, at: Instant) {
        let mut state = self.lock();
        if state.still_held(at) {
            state.lost_at = Some(at);
        }
        drop(state);
        self.changed.notify_waiters();
    }
}

/// What the renewing task needs.
struct Renewal {
    store: kv::Store,
    key: String,
    value: Bytes,
    token: String,
    held: Arc<Held>,
    stop: Arc<Notify>,
    timing: Timing,
}

/// Renews the lease every `renew` until it is lost or stopped. Each try waits at most
/// `renew` for its acknowledgement; a try that fails on the connection changes nothing
/// (the deadline decides), one that finds another claim's write loses the lease at once.
async fn renew(renewal: Renewal) {
    let Renewal { store, key, value, token, held, stop, timing } = renewal;
    let mut next = tokio::time::Instant::now() + timing.renew;
    loop {
        tokio::select! {
            () = tokio::time::sleep_until(next) => {}
            () = stop.notified() => return,
        }
        let sent = Instant::now();
        next = tokio::time::Instant::from_std(sent) + timing.renew;
        let revision = held.lock().revision;
        match tokio::time::timeout(timing.renew, store.update(&key, value.clone(), revision)).await {
            Ok(Ok(revision)) => {
                if !held.acknowledged(sent, revision, &timing) {
                    return;
                }
            }
            Ok(Err(error)) if error.kind() == kv::UpdateErrorKind::WrongLastRevision => {
                match store.entry(key.as_str()).await {
                    Ok(Some(entry)) if entry.operation == kv::Operation::Put && is_ours(&entry.value, &token) => {
                        held.adopt(entry.revision);
                    }
                    Ok(_) => {
                        tracing::warn!(key, "lease taken over or expired: giving it up");
                        held.lose(Instant::now());
                        return;
                    }
                    Err(error) => tracing::warn!(key, %error, "cannot read the lease after a refused renewal"),
                }
            }
            Ok(Err(error)) => tracing::warn!(key, %error, "lease renewal failed"),
            Err(_) => tracing::warn!(key, "lease renewal not acknowledged in time"),
        }
        if !held.lock().still_held(Instant::now()) {
            held.changed.notify_waiters();
            return;
        }
    }
}

/// Whether a lease value is this claim's own write.
fn is_ours(value: &[u8], token: &str) -> bool {
    serde_json::from_slice::<LeaseRecord>(value).is_ok_and(|record| record.token == token)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn held(deadline: Instant) -> Held {
        Held { state: Mutex::new(HeldState { deadline, lost_at: None, revision: 1 }), changed: Notify::new() }
    }

    #[test]
    fn a_lease_is_held_until_just_before_its_deadline_and_lost_from_it_on() {
        let start = Instant::now();
        let deadline = start + Duration::from_secs(7);
        let held = held(deadline);
        assert!(held.lock().still_held(deadline - Duration::from_nanos(1)));
        assert!(!held.lock().still_held(deadline));
        assert_eq!(held.lock().lost_at, Some(deadline));
    }

    #[test]
    fn an_acknowledgement_moves_the_deadline_to_its_send_plus_ttl_minus_safety() {
        let timing = Timing::DEFAULT;
        let sent = Instant::now();
        let held = held(sent + Duration::from_secs(1));
        assert!(held.acknowledged(sent, 2, &timing));
        let state = held.lock();
        assert_eq!(state.deadline, sent + timing.lease_ttl - timing.safety);
        assert_eq!(state.revision, 2);
    }

    #[test]
    fn an_acknowledgement_after_the_loss_does_not_bring_the_lease_back() {
        let timing = Timing::DEFAULT;
        let past = Instant::now();
        let held = held(past);
        assert!(!held.acknowledged(Instant::now(), 5, &timing));
        assert!(!held.lock().still_held(Instant::now()));
        assert_eq!(held.lock().revision, 1);
    }

    #[test]
    fn a_loss_noticed_after_the_deadline_is_dated_by_the_deadline() {
        let deadline = Instant::now();
        let held = held(deadline);
        held.lose(deadline + Duration::from_secs(1));
        assert_eq!(held.lock().lost_at, Some(deadline));
    }

    #[test]
    fn a_loss_before_the_deadline_is_dated_by_the_loss_and_stays() {
        let now = Instant::now();
        let held = held(now + Duration::from_secs(60));
        held.lose(now);
        assert_eq!(held.lock().lost_at, Some(now));
        assert!(!held.lock().still_held(now));
        assert!(!held.acknowledged(now, 9, &Timing::DEFAULT));
    }

    #[test]
    fn a_renewal_is_recognised_as_ours_by_its_token_only() {
        let value = serde_json::to_vec(&LeaseRecord { owner: "a".into(), token: "t1".into() }).unwrap();
        assert!(is_ours(&value, "t1"));
        assert!(!is_ours(&value, "t2"));
        assert!(!is_ours(b"not json", "t1"));
    }

    #[test]
    fn tokens_differ_claim_to_claim() {
        assert_ne!(new_token("a"), new_token("a"));
    }
}
