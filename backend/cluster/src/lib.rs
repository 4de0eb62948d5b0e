//! Cluster mode's directory on NATS: the servers, the leases of labs and of evaluations,
//! and where a new lab goes. The relays between servers are the server's (`net::peers`).
//!
//! In cluster mode several VLab servers share one NATS server and one PostgreSQL
//! database. Each lab runs on exactly one server at a time: the one holding the lab's
//! **lease** in the directory ([`directory::leases`]). Every server **announces** itself
//! (its address and load) so a new lab goes to the least-loaded one and an operator can
//! drain one ([`directory::servers`]). This crate knows nothing of labs' insides, of
//! HTTP or of the store: a lab is a name, a server an id and its load.
//!
//! # Why NATS key-value buckets, not PostgreSQL, for leases
//!
//! - A bucket's writes are **revision-checked** (`create` only if absent, `update` only
//!   if the key is still at the revision we last wrote, `delete` likewise), and a bucket
//!   has a **per-bucket time to live** (`max_age`): a lease that is not renewed expires
//!   on the NATS server by itself. No clock is shared with the database or between the
//!   VLab servers: each holder measures its own lease with its own monotonic clock from
//!   the moment it *sent* a renewal (see [`directory::leases`]).
//! - The same connection will carry the relays between servers (viewers on one server
//!   watching a lab on another), so one link decides both.
//! - A server partitioned from NATS loses its leases, and that is exactly the failure
//!   that must be detected: a server that cannot reach NATS cannot renew, stops stepping
//!   its labs before the leases can expire, and others take them over. A lease in
//!   PostgreSQL would let a server that reaches the database but not NATS keep its labs
//!   while its viewers (relayed over NATS) could not see them.
//!
//! NATS here is Debian's `nats-server` 2.9 with JetStream (`-js`); `async-nats` is built
//! without the settings of newer servers.

pub mod directory;
#[cfg(feature = "testkit")]
pub mod testkit;

pub use directory::leases::{ClaimError, Lease, LeaseHolder, ReleaseError};
pub use directory::servers::{Announcement, ServerLoad, ServerRecord};
pub use directory::{Directory, DirectoryError, Timing};
