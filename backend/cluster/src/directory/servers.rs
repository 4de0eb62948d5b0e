//! The live servers of a cluster: each announces itself (its address, version, load and
//! whether it is draining) in the servers bucket and refreshes that every
//! `announce_every`; a server that stops refreshing drops out after `server_ttl`. New
//! labs go to the least-loaded server ([`least_loaded`]); an operator drains a server
//! ([`Directory::drain`]) so it gets no new labs.
//!
//! Every write is revision-checked against the record it read, so a drain and a refresh
//! racing each other never lose the drain: the refresh keeps the stored flag.

use std::sync::Arc;

use async_nats::jetstream::kv;
use bytes::Bytes;
use serde::{Deserialize, Serialize};
use tokio::sync::{Notify, watch};
use tokio::task::JoinHandle;

use super::keys::key_for;
use super::{Directory, DirectoryError, live_entry, stored_keys};

/// How many times a write retries after another write to the same record came between
/// its read and its write.
const WRITE_TRIES: u32 = 5;

/// A server's load, as it reports it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerLoad {
    /// Labs it runs (holds leases of).
    pub labs: u32,
    /// Viewers connected to it.
    pub viewers: u32,
    /// Its share of the machine's CPU, 0 to 1 (reported; placement does not use it yet).
    pub cpu_share: f32,
}

/// One server's record in the directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerRecord {
    /// Its id, unique in the cluster.
    pub id: String,
    /// Its HTTP address (where its viewers connect and other servers reach it).
    pub address: String,
    /// Its VLab version.
    pub version: String,
    /// Its load at its last announcement.
    pub load: ServerLoad,
    /// Set by an operator: it gets no new labs.
    pub draining: bool,
}

/// The server where a new lab goes: of those not draining, the one with the fewest labs,
/// then the fewest viewers, then the smallest id (so every server choosing from the same
/// list chooses the same).
pub fn least_loaded(servers: &[ServerRecord]) -> Option<&ServerRecord> {
    servers
        .iter()
        .filter(|server| !server.draining)
        .min_by(|a, b| (a.load.labs, a.load.viewers, &a.id).cmp(&(b.load.labs, b.load.viewers, &b.id)))
}

impl Directory {
    /// Announces this server (`id`, `address`, `version`, no load yet) and keeps its
    /// record fresh until the [`Announcement`] is withdrawn or dropped. The first write
    /// is done before this returns.
    pub async fn announce(&self, id: &str, address: &str, version: &str) -> Result<Announcement, DirectoryError> {
        let record = ServerRecord {
            id: id.to_owned(),
            address: address.to_owned(),
            version: version.to_owned(),
            load: ServerLoad::default(),
            draining: false,
        };
        let key = key_for(id);
        let written = self
            .write_server(&key, |stored| ServerRecord {
                draining: stored.is_some_and(|s| s.draining),
                ..record.clone()
            })
            .await?;
        let (load_tx, load_rx) = watch::channel(ServerLoad::default());
        let (draining_tx, draining_rx) = watch::channel(written.draining);
        let stop = Arc::new(Notify::new());
        let refresher = tokio::spawn(refresh(Refresh {
            directory: self.clone(),
            key: key.clone(),
            record,
            load: load_rx,
            draining: draining_tx,
            stop: stop.clone(),
        }));
        Ok(Announcement {
            directory: self.clone(),
            key,
            load: load_tx,
            draining: draining_rx,
            stop,
            refresher: Some(refresher),
        })
    }

    /// The live servers (announced within `server_ttl`), by id.
    pub async fn servers(&self) -> Result<Vec<ServerRecord>, DirectoryError> {
        let mut servers = Vec::new();
        for key in stored_keys(&self.servers).await? {
            // Withdrawn, or gone between the listing and the read: not live.
            if let Some(record) = self.read_server(&key).await? {
                servers.push(record);
            }
        }
        servers.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(servers)
    }

    /// Where a new lab goes ([`least_loaded`] of [`Directory::servers`]); `None` when no
    /// live server takes new labs.
    pub async fn least_loaded(&self) -> Result<Option<ServerRecord>, DirectoryError> {
        Ok(least_loaded(&self.servers().await?).cloned())
    }

    /// Drains the live server `id`: it gets no new labs, for as long as it lives (its
    /// own refreshes keep the flag).
    pub async fn drain(&self, id: &str) -> Result<(), DirectoryError> {
        let key = key_for(id);
        for _ in 0..WRITE_TRIES {
            let Some(entry) = live_entry(&self.servers, self.servers_bucket(), &key).await? else {
                return Err(DirectoryError::NoSuchServer(id.to_owned()));
            };
            let record = ServerRecord { draining: true, ..self.parse_server(&key, &entry.value)? };
            match self.servers.update(&key, encode(&record), entry.revision).await {
                Ok(_) => return Ok(()),
                Err(error) if error.kind() == kv::UpdateErrorKind::WrongLastRevision => continue,
                Err(error) => return Err(self.servers_error("write", &key, error.into())),
            }
        }
        Err(self.servers_error("write", &key, "kept being changed by others".into()))
    }

    /// Writes `make(stored)` over the stored record (or where there is none), at the
    /// revision read; returns what was written.
    async fn write_server(
        &self,
        key: &str,
        make: impl Fn(Option<&ServerRecord>) -> ServerRecord,
    ) -> Result<ServerRecord, DirectoryError> {
        for _ in 0..WRITE_TRIES {
            let entry = live_entry(&self.servers, self.servers_bucket(), key).await?;
            let written = match &entry {
                Some(entry) => {
                    let stored = self.parse_server(key, &entry.value)?;
                    let record = make(Some(&stored));
                    self.servers.update(key, encode(&record), entry.revision).await.map(|_| record)
                }
                None => {
                    let record = make(None);
                    self.servers.create(key, encode(&record)).await.map(|_| record).map_err(|error| {
                        match error.kind() {
                            kv::CreateErrorKind::AlreadyExists => {
                                kv::UpdateError::new(kv::UpdateErrorKind::WrongLastRevision)
                            }
                            _ => kv::UpdateError::with_source(kv::UpdateErrorKind::Other, error),
                        }
                    })
                }
            };
            match written {
                Ok(record) => return Ok(record),
                Err(error) if error.kind() == kv::UpdateErrorKind::WrongLastRevision => continue,
                Err(error) => return Err(self.servers_error("write", key, error.into())),
            }
        }
        Err(self.servers_error("write", key, "kept being changed by others".into()))
    }

    async fn read_server(&self, key: &str) -> Result<Option<ServerRecord>, DirectoryError> {
        match live_entry(&self.servers, self.servers_bucket(), key).await? {
            Some(entry) => Ok(Some(self.parse_server(key, &entry.value)?)),
            None => Ok(None),
        }
    }

    fn parse_server(&self, key: &str, value: &[u8]) -> Result<ServerRecord, DirectoryError> {
        serde_json::from_slice(value).map_err(|source| DirectoryError::Corrupt {
            bucket: self.servers_bucket().to_owned(),
            key: key.to_owned(),
            source,
        })
    }

    fn servers_bucket(&self) -> &str {
        &self.servers.name
    }

    fn servers_error(&self, doing: &'static str, key: &str, source: async_nats::Error) -> DirectoryError {
        DirectoryError::Nats { doing, bucket: self.servers_bucket().to_owned(), key: key.to_owned(), source }
    }
}

fn encode(record: &ServerRecord) -> Bytes {
    Bytes::from(serde_json::to_vec(record).expect("a server record serialises"))
}

/// This server's announcement: dropped, it stops refreshing and the record expires after
/// `server_ttl` (as if the server had died); [`Announcement::withdraw`] removes it at once.
pub struct Announcement {
    directory: Directory,
    key: String,
    load: watch::Sender<ServerLoad>,
    draining: watch::Receiver<bool>,
    stop: Arc<Notify>,
    refresher: Option<JoinHandle<()>>,
}

impl Announcement {
    /// The load the next refreshes report.
    pub fn set_load(&self, load: ServerLoad) {
        self.load.send_replace(load);
    }

    /// Whether an operator drained this server (as of the last refresh).
    pub fn is_draining(&self) -> bool {
        *self.draining.borrow()
    }

    /// Changes of the draining flag, to wait on.
    pub fn draining(&self) -> watch::Receiver<bool> {
        self.draining.clone()
    }

    /// Stops refreshing and deletes the record: a server shutting down cleanly leaves the
    /// list at once.
    pub async fn withdraw(mut self) -> Result<(), DirectoryError> {
        self.stop.notify_one();
        if let Some(refresher) = self.refresher.take() {
            let _ = refresher.await;
        }
        self.directory
            .servers
            .delete(&self.key)
            .await
            .map_err(|error| self.directory.servers_error("delete", &self.key, error.into()))
    }
}

impl Drop for Announcement {
    fn drop(&mut self) {
        if let Some(refresher) = self.refresher.take() {
            refresher.abort();
        }
    }
}

/// What the refreshing task needs.
struct Refresh {
    directory: Directory,
    key: String,
    record: ServerRecord,
    load: watch::Receiver<ServerLoad>,
    draining: watch::Sender<bool>,
    stop: Arc<Notify>,
}

/// Rewrites the record every `announce_every` with the current load, keeping a drain.
async fn refresh(refresh: Refresh) {
    let Refresh { directory, key, record, load, draining, stop } = refresh;
    let every = directory.timing.announce_every;
    loop {
        tokio::select! {
            () = tokio::time::sleep(every) => {}
            () = stop.notified() => return,
        }
        let load = *load.borrow();
        let was_draining = *draining.borrow();
        let written = directory
            .write_server(&key, |stored| ServerRecord {
                load,
                // A drain is kept even if the record expired meanwhile (a long cut from NATS).
                draining: was_draining || stored.is_some_and(|s| s.draining),
                ..record.clone()
            })
            .await;
        match written {
            Ok(written) => {
                draining.send_if_modified(|flag| std::mem::replace(flag, written.draining) != written.draining);
            }
            Err(error) => tracing::warn!(%error, "cannot refresh this server's announcement"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(id: &str, labs: u32, viewers: u32, draining: bool) -> ServerRecord {
        ServerRecord {
            id: id.into(),
            address: format!("{id}:8080"),
            version: "0".into(),
            load: ServerLoad { labs, viewers, cpu_share: 0.0 },
            draining,
        }
    }

    #[test]
    fn the_server_with_fewest_labs_gets_the_new_lab() {
        let servers = [server("a", 3, 0, false), server("b", 2, 50, false)];
        assert_eq!(least_loaded(&servers).unwrap().id, "b");
    }

    #[test]
    fn equal_labs_go_to_the_fewest_viewers_then_the_smallest_id() {
        let servers = [server("c", 2, 5, false), server("b", 2, 4, false), server("a", 2, 5, false)];
        assert_eq!(least_loaded(&servers).unwrap().id, "b");
        let tied = [server("c", 2, 4, false), server("a", 2, 4, false), server("b", 2, 4, false)];
        assert_eq!(least_loaded(&tied).unwrap().id, "a");
    }

    #[test]
    fn a_draining_server_is_never_chosen_even_when_empty() {
        let servers = [server("a", 0, 0, true), server("b", 9, 9, false)];
        assert_eq!(least_loaded(&servers).unwrap().id, "b");
        assert!(least_loaded(&[server("a", 0, 0, true)]).is_none());
        assert!(least_loaded(&[]).is_none());
    }
}
