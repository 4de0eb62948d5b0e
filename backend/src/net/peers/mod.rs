//! Cluster mode's ways between servers (docs/operations.md, "Running a cluster"). Any
//! server serves any page; each lab runs on one of them, its owner:
//! - a request for a lab another server runs goes to the owner as a NATS request, and
//!   the owner's own router answers it (`forward`, `edge::elsewhere`);
//! - a page watching such a lab is served by its own server from a mirror of the lab's
//!   viewers' side (`mirrors`), fed by one tap on the owner for all servers; what is
//!   the page's own (its greeting, replies, console, reports, cameras, seeks,
//!   placements) goes through a tunnel to the owner (`tunnel`, `edge::watch`);
//! - `owner` is the owner's side of the three.
//!
//! Who owns a lab is the directory's business ([`Owners`]); this module only carries.

pub mod edge;
mod mirrors;
mod owner;
pub mod tunnel;
mod turns;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use async_nats::Client;

pub use owner::serve_owned;

/// An answer from the cluster's directory (`Err`: it cannot be read now, said plainly).
pub type Asked<'a, T> = Pin<Box<dyn Future<Output = Result<T, String>> + Send + 'a>>;

/// Who runs which lab, and where a new one goes, as the cluster's directory says.
pub trait Owners: Send + Sync + 'static {
    /// The server that holds `lab`'s lease, if any does.
    fn owner_of<'a>(&'a self, lab: &'a str) -> Asked<'a, Option<String>>;

    /// The server a new lab goes to (the least loaded).
    fn place(&self) -> Asked<'_, String>;

    /// Every live server.
    fn servers(&self) -> Asked<'_, Vec<String>>;
}

/// This server's ways to the others.
pub struct Peers {
    nats: Client,
    subjects: Subjects,
    /// This server's id in the directory.
    me: String,
    owners: Arc<dyn Owners>,
    mirrors: mirrors::Mirrors,
}

/// Where a lab's requests are answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// Here: the lab runs on this server, or nobody runs it (this server then answers
    /// as it does for any lab it does not know).
    Here,
    /// On this server of the cluster.
    Owner(String),
}

/// Why a request could not be carried to the lab's server.
#[derive(Debug, thiserror::Error)]
pub enum PeerError {
    /// The directory cannot be read.
    #[error("the cluster's directory cannot be read ({0}): try again in a few seconds")]
    Directory(String),
    /// The owner did not answer in time, or is gone.
    #[error("the server running this lab ({server}) did not answer ({why}): try again in a few seconds")]
    Unreachable {
        /// The owner's id.
        server: String,
        /// What NATS said.
        why: String,
    },
    /// No server runs the lab this moment: its server died or is handing it over, and
    /// another takes it over within seconds.
    #[error("this lab is moving to another server: try again in a few seconds")]
    Moving,
    /// Too large for the cluster's messages.
    #[error("the request of {size} bytes is larger than the cluster carries between servers ({max} bytes)")]
    TooLarge {
        /// Its size.
        size: usize,
        /// The NATS server's `max_payload`.
        max: usize,
    },
    /// The owner answered with bytes this server cannot read.
    #[error("the server running this lab answered unreadably: {0}")]
    Garbled(String),
}

/// How long a server holds its labs' leases without reaching NATS (`LEASE_TTL -
/// SAFETY`), for the words of the health route.
const LEASE_HELD_SECS: u64 = vlab_cluster::directory::LEASE_TTL.as_secs() - vlab_cluster::directory::SAFETY.as_secs();

/// How long a forwarded request may take, the owner's work included (a C++ robot's
/// compile is the longest).
pub const FORWARD_TIMEOUT: Duration = Duration::from_secs(120);

/// Subjects: what each server listens to, under the cluster's name (so that clusters,
/// and tests, sharing one nats-server never hear each other).
#[derive(Clone, Debug)]
pub struct Subjects {
    cluster: String,
}

impl Subjects {
    /// The subjects of cluster `cluster` (a name of `[A-Za-z0-9_-]`).
    pub fn new(cluster: &str) -> Subjects {
        Subjects { cluster: cluster.to_owned() }
    }

    /// Requests forwarded to server `server`.
    pub fn http(&self, server: &str) -> String {
        format!("{}.server.{server}.http", self.cluster)
    }

    /// Tunnels opened to server `server`.
    pub fn open(&self, server: &str) -> String {
        format!("{}.server.{server}.open", self.cluster)
    }

    /// A lab's tap: its scenes, frames and events.
    pub fn frames(&self, lab: &str) -> String {
        format!("{}.lab.{lab}.frames", self.cluster)
    }

    /// Servers that want a lab's frames say so here.
    pub fn want(&self, lab: &str) -> String {
        format!("{}.lab.{lab}.want", self.cluster)
    }

    /// Every lab's wants, which every server hears (and answers for its own labs).
    pub fn all_wants(&self) -> String {
        format!("{}.lab.*.want", self.cluster)
    }

    /// The lab a want is for.
    pub fn wanted<'a>(&self, subject: &'a str) -> Option<&'a str> {
        subject.strip_prefix(&self.cluster)?.strip_prefix(".lab.")?.strip_suffix(".want")
    }

    /// The subjects of tunnel `id`: towards the lab's server, and towards the page's.
    pub fn tunnel(&self, id: &str) -> (String, String) {
        (format!("{}.tunnel.{id}.up", self.cluster), format!("{}.tunnel.{id}.down", self.cluster))
    }
}

/// Whether `name` can be a token of a subject: lab ids are `[a-z0-9-]` (`unique_slug`),
/// but a path can say anything, and a dot or a wildcard would reach other subjects.
pub fn valid_token(name: &str) -> bool {
    !name.is_empty() && name.len() <= 128 && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

impl Peers {
    /// This server, `me`, of cluster `cluster`, on the cluster's NATS connection.
    pub fn new(nats: Client, cluster: &str, me: String, owners: Arc<dyn Owners>) -> Peers {
        let subjects = Subjects::new(cluster);
        let mirrors = mirrors::Mirrors::new(nats.clone(), subjects.clone());
        Peers { nats, subjects, me, owners, mirrors }
    }

    /// This server's id.
    pub fn me(&self) -> &str {
        &self.me
    }

    /// Where `lab`'s requests go, when it does not run here.
    pub async fn route(&self, lab: &str) -> Result<Route, PeerError> {
        if !valid_token(lab) {
            return Ok(Route::Here);
        }
        match self.owners.owner_of(lab).await.map_err(PeerError::Directory)? {
            Some(owner) if owner != self.me => Ok(Route::Owner(owner)),
            _ => Ok(Route::Here),
        }
    }

    /// The cluster connection as the health route says it: `ok`, or why not.
    pub fn health(&self) -> String {
        match self.nats.connection_state() {
            async_nats::connection::State::Connected => "ok".to_owned(),
            state => format!(
                "unavailable: the NATS server cannot be reached ({state}); labs here stand still after {} s without it",
                LEASE_HELD_SECS
            ),
        }
    }

    /// Where a new lab goes.
    pub async fn place(&self) -> Result<String, PeerError> {
        self.owners.place().await.map_err(PeerError::Directory)
    }

    /// Every live server but this one.
    pub async fn others(&self) -> Result<Vec<String>, PeerError> {
        let mut servers = self.owners.servers().await.map_err(PeerError::Directory)?;
        servers.retain(|server| *server != self.me);
        Ok(servers)
    }

    /// How many servers' pages watch labs through this server's mirrors, by lab.
    pub fn mirrored(&self) -> Vec<(String, usize)> {
        self.mirrors.viewers()
    }
}
