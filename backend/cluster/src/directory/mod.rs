//! The cluster's directory: two JetStream key-value buckets on the NATS server, one of
//! live servers ([`servers`]) and one of leases: labs' ([`leases`]) and unfinished
//! evaluations' ([`evaluations`]); and the timing that makes a dead server's labs and
//! evaluations claimable within [`FAILOVER_WITHIN`].
//!
//! Both buckets keep one revision per key (`history` 1) and drop a key that was not
//! written for the bucket's `max_age`: a server that stops announcing itself leaves the
//! server list, a lease that is not renewed becomes claimable. NATS 2.9 sends no notice
//! when a key expires, so whoever needs to know polls ([`Directory::orphans`]).

pub mod evaluations;
pub mod leases;
pub mod servers;

mod keys;

use std::time::Duration;

use async_nats::jetstream::{self, kv};

/// How long a lease lives on the NATS server after its holder's last renewal was stored:
/// the leases bucket's `max_age`.
pub const LEASE_TTL: Duration = Duration::from_secs(10);

/// How often a holder renews its lease (and how long it waits for one renewal's
/// acknowledgement before trying again).
pub const RENEW: Duration = Duration::from_secs(2);

/// How long before the NATS server could expire a lease its holder stops believing it
/// holds it. It covers the holder's last step after its check (a step is milliseconds),
/// and the NATS server's clock running a little fast or being slewed (NATS expires by
/// its wall clock, the holder counts on its own monotonic clock). With [`RENEW`] 2 s the
/// holder tries three renewals (at 2, 4 and 6 s) before it gives up at 7 s.
pub const SAFETY: Duration = Duration::from_secs(3);

/// How often a server looks for labs without a live lease to claim (the failover loop;
/// see [`Directory::orphans`]).
pub const ORPHAN_POLL: Duration = Duration::from_secs(2);

/// A killed server's labs are claimed by another within this: its leases expire at most
/// [`LEASE_TTL`] after the kill (their last renewal was stored before it), and the next
/// poll, at most [`ORPHAN_POLL`] later, claims them; the rest is the claim's round trip.
pub const FAILOVER_WITHIN: Duration = Duration::from_secs(15);

/// How long a server stays in the server list after its last announcement: the servers
/// bucket's `max_age`.
pub const SERVER_TTL: Duration = Duration::from_secs(10);

/// How often a server refreshes its announcement (its load, and that it is alive).
pub const ANNOUNCE_EVERY: Duration = Duration::from_secs(2);

/// The buckets' name prefix in production: `vlab_servers` and `vlab_leases`.
pub const DEFAULT_NAME: &str = "vlab";

/// The directory's timing. Production uses [`Timing::DEFAULT`]; tests shorten it (with a
/// bucket name of their own: a bucket's `max_age` is fixed when it is created).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    /// The leases bucket's `max_age` ([`LEASE_TTL`]).
    pub lease_ttl: Duration,
    /// How often a holder renews ([`RENEW`]).
    pub renew: Duration,
    /// The margin before expiry at which a holder gives its lease up ([`SAFETY`]).
    pub safety: Duration,
    /// The servers bucket's `max_age` ([`SERVER_TTL`]).
    pub server_ttl: Duration,
    /// How often a server refreshes its announcement ([`ANNOUNCE_EVERY`]).
    pub announce_every: Duration,
}

impl Timing {
    /// Production's timing: the constants of this module.
    pub const DEFAULT: Timing = Timing {
        lease_ttl: LEASE_TTL,
        renew: RENEW,
        safety: SAFETY,
        server_ttl: SERVER_TTL,
        announce_every: ANNOUNCE_EVERY,
    };

    /// Checks the timing can work: a holder gets at least two renewals in before it gives
    /// up (one lost message must not cost a lease), and a server at least two
    /// announcements before it drops out of the list.
    pub fn check(&self) -> Result<(), DirectoryError> {
        let bad = |why: String| Err(DirectoryError::Timing(why));
        if self.safety >= self.lease_ttl {
            return bad(format!(
                "the safety margin {:?} must be shorter than the lease TTL {:?}",
                self.safety, self.lease_ttl
            ));
        }
        let held_for = self.lease_ttl - self.safety;
        if self.renew.is_zero() || self.renew * 2 > held_for {
            return bad(format!(
                "renewing every {:?} leaves fewer than two renewals in the {:?} a lease is held without one",
                self.renew, held_for
            ));
        }
        if self.announce_every.is_zero() || self.announce_every * 2 > self.server_ttl {
            return bad(format!(
                "announcing every {:?} leaves fewer than two announcements in the server TTL {:?}",
                self.announce_every, self.server_ttl
            ));
        }
        Ok(())
    }

    /// How long after a renewal was sent its holder still holds the lease:
    /// `lease_ttl - safety` (see [`leases`] for why it counts from the send).
    pub fn held_for(&self) -> Duration {
        self.lease_ttl.saturating_sub(self.safety)
    }
}

/// What went wrong talking to the directory.
#[derive(Debug, thiserror::Error)]
pub enum DirectoryError {
    /// The NATS server could not be reached.
    #[error("cannot connect to NATS at {url}: {source}")]
    Connect {
        /// The URL tried.
        url: String,
        /// Why.
        source: async_nats::ConnectError,
    },
    /// A bucket could not be created or opened (JetStream off, or a bucket of that name
    /// with another TTL).
    #[error("cannot open the key-value bucket {bucket} (is JetStream on, `nats-server -js`?): {source}")]
    Bucket {
        /// The bucket's name.
        bucket: String,
        /// Why.
        source: async_nats::Error,
    },
    /// A read or write of the directory failed.
    #[error("cannot {doing} {key} in the bucket {bucket}: {source}")]
    Nats {
        /// What was being done ("read", "write", "list", "delete").
        doing: &'static str,
        /// The bucket.
        bucket: String,
        /// The key, or "keys".
        key: String,
        /// Why.
        source: async_nats::Error,
    },
    /// A drain named a server that is not in the list.
    #[error("no live server {0} in the directory")]
    NoSuchServer(String),
    /// A record in the directory is not what this version writes.
    #[error("the record {key} in the bucket {bucket} is not readable: {source}")]
    Corrupt {
        /// The bucket.
        bucket: String,
        /// The key.
        key: String,
        /// Why.
        source: serde_json::Error,
    },
    /// A [`Timing`] that cannot work.
    #[error("unusable directory timing: {0}")]
    Timing(String),
}

/// The directory of one cluster: its two buckets on one NATS connection.
#[derive(Clone)]
pub struct Directory {
    pub(crate) servers: kv::Store,
    pub(crate) leases: kv::Store,
    pub(crate) timing: Timing,
}

impl Directory {
    /// Connects to NATS at `url` and opens the production buckets ([`DEFAULT_NAME`],
    /// [`Timing::DEFAULT`]).
    pub async fn connect(url: &str) -> Result<Directory, DirectoryError> {
        let client =
            async_nats::connect(url).await.map_err(|source| DirectoryError::Connect { url: url.to_owned(), source })?;
        Directory::open(client, DEFAULT_NAME, Timing::DEFAULT).await
    }

    /// Opens (creating them if needed) the buckets `<name>_servers` and `<name>_leases`
    /// on `client`'s NATS server. Every server of a cluster must use the same name and
    /// timing: a bucket's TTL is fixed when it is created, and opening it with another
    /// fails.
    pub async fn open(client: async_nats::Client, name: &str, timing: Timing) -> Result<Directory, DirectoryError> {
        timing.check()?;
        let jetstream = jetstream::new(client);
        let servers = open_bucket(&jetstream, format!("{name}_servers"), timing.server_ttl).await?;
        let leases = open_bucket(&jetstream, format!("{name}_leases"), timing.lease_ttl).await?;
        Ok(Directory { servers, leases, timing })
    }

    /// The timing this directory was opened with.
    pub fn timing(&self) -> Timing {
        self.timing
    }
}

/// Creates the bucket, or opens it when one with the same settings exists (JetStream
/// treats creating an identical stream as opening it).
///
/// The bucket's stream is created here rather than with async-nats's
/// `create_key_value`, which first reads the account's JetStream limits in a form only
/// nats-server 2.10 and later sends. The stream is the one `create_key_value` makes
/// (the key-value layout every NATS client shares): `KV_<bucket>` on the subjects
/// `$KV.<bucket>.>`, one message per subject, deletes as markers, direct gets.
async fn open_bucket(
    jetstream: &jetstream::Context,
    bucket: String,
    max_age: Duration,
) -> Result<kv::Store, DirectoryError> {
    let failed = |source: async_nats::Error| DirectoryError::Bucket { bucket: bucket.clone(), source };
    let stream = jetstream::stream::Config {
        name: format!("KV_{bucket}"),
        description: Some("VLab cluster directory".to_owned()),
        subjects: vec![format!("$KV.{bucket}.>")],
        max_messages_per_subject: 1,
        max_age,
        storage: jetstream::stream::StorageType::File,
        num_replicas: 1,
        allow_rollup: true,
        deny_delete: true,
        allow_direct: true,
        discard: jetstream::stream::DiscardPolicy::New,
        ..Default::default()
    };
    jetstream.create_stream(stream).await.map_err(|e| failed(e.into()))?;
    jetstream.get_key_value(&bucket).await.map_err(|e| failed(e.into()))
}

/// Lists the keys a bucket stores a message for: live ones, and deleted ones whose
/// delete marker is still kept (callers read each to tell). Expired keys are not listed.
///
/// Read from the stream's per-subject counts rather than async-nats's `keys()`: that
/// one replays the bucket through a consumer, which waits for idle heartbeats (seconds)
/// when an entry expires before it is delivered, as entries here do all the time.
pub(crate) async fn stored_keys(store: &kv::Store) -> Result<Vec<String>, DirectoryError> {
    use futures_util::TryStreamExt;
    let failed = |source: async_nats::Error| DirectoryError::Nats {
        doing: "list",
        bucket: store.name.clone(),
        key: "keys".to_owned(),
        source,
    };
    let prefix = format!("$KV.{}.", store.name);
    let subjects = store.stream.info_with_subjects(format!("{prefix}>")).await.map_err(|e| failed(e.into()))?;
    let subjects: Vec<(String, usize)> = subjects.try_collect().await.map_err(|e| failed(e.into()))?;
    let mut keys: Vec<String> =
        subjects.into_iter().filter_map(|(subject, _)| subject.strip_prefix(&prefix).map(str::to_owned)).collect();
    keys.sort();
    Ok(keys)
}

/// A key's live value: `None` when it is absent, expired or deleted.
pub(crate) async fn live_entry(
    store: &kv::Store,
    bucket: &str,
    key: &str,
) -> Result<Option<kv::Entry>, DirectoryError> {
    let entry = store.entry(key).await.map_err(|source| DirectoryError::Nats {
        doing: "read",
        bucket: bucket.to_owned(),
        key: key.to_owned(),
        source: source.into(),
    })?;
    Ok(entry.filter(|entry| entry.operation == kv::Operation::Put))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn production_timing_claims_a_dead_servers_labs_within_the_failover_bound() {
        Timing::DEFAULT.check().unwrap();
        // A killed holder's lease expires at most LEASE_TTL after the kill; the next
        // orphan poll claims it; a second is left for the claim's round trips.
        assert!(LEASE_TTL + ORPHAN_POLL + Duration::from_secs(1) <= FAILOVER_WITHIN);
        // A holder cut off from NATS gives up before its lease can expire.
        assert!(Timing::DEFAULT.held_for() < LEASE_TTL);
    }

    #[test]
    fn a_timing_with_exactly_two_renewals_before_giving_up_is_accepted_one_fewer_is_not() {
        let edge = Timing {
            lease_ttl: Duration::from_secs(10),
            safety: Duration::from_secs(2),
            renew: Duration::from_secs(4),
            ..Timing::DEFAULT
        };
        edge.check().unwrap();
        let past = Timing { renew: Duration::from_millis(4001), ..edge };
        assert!(matches!(past.check(), Err(DirectoryError::Timing(_))));
    }

    #[test]
    fn a_safety_margin_as_long_as_the_ttl_is_refused() {
        let timing = Timing { safety: LEASE_TTL, ..Timing::DEFAULT };
        assert!(matches!(timing.check(), Err(DirectoryError::Timing(_))));
    }

    #[test]
    fn announcing_exactly_twice_per_server_ttl_is_accepted_less_often_is_not() {
        let edge =
            Timing { server_ttl: Duration::from_secs(4), announce_every: Duration::from_secs(2), ..Timing::DEFAULT };
        edge.check().unwrap();
        let past = Timing { announce_every: Duration::from_millis(2001), ..edge };
        assert!(matches!(past.check(), Err(DirectoryError::Timing(_))));
        let never = Timing { announce_every: Duration::ZERO, ..edge };
        assert!(matches!(never.check(), Err(DirectoryError::Timing(_))));
    }
}
