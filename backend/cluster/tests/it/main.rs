//! The directory against a real nats-server (the test kit's), and the test kit itself.

mod leases;
mod proxy;
mod servers;
mod testkit;

use std::time::Duration;

use vlab_cluster::{Directory, Timing};

/// A short timing, so that expiries take seconds (a holder still renews four times before
/// it gives up, so a busy machine does not cost it its lease); each test opens buckets of
/// its own.
pub const FAST: Timing = Timing {
    lease_ttl: Duration::from_secs(3),
    renew: Duration::from_millis(500),
    safety: Duration::from_secs(1),
    server_ttl: Duration::from_secs(2),
    announce_every: Duration::from_millis(500),
};

/// Only guards against a hang: a wait that has not ended by then has failed.
pub const HANG: Duration = Duration::from_secs(120);

/// A NATS client of `url` that reconnects quickly and only ever to `url` (a client behind
/// the cutting proxy must not learn the server's own address).
pub async fn client(url: &str) -> async_nats::Client {
    async_nats::ConnectOptions::new()
        .ignore_discovered_servers()
        .reconnect_delay_callback(|_| Duration::from_millis(100))
        .connect(url)
        .await
        .unwrap_or_else(|e| panic!("cannot connect to {url}: {e}"))
}

/// The directory `name` on the NATS server at `url`, through a client of its own (as a
/// server of the cluster has).
pub async fn directory(url: &str, name: &str) -> Directory {
    Directory::open(client(url).await, name, FAST).await.expect("the directory opens")
}

/// Polls `check` every 50 ms until it gives a value; panics after [`HANG`].
pub async fn eventually<T, F: std::future::Future<Output = Option<T>>>(what: &str, mut check: impl FnMut() -> F) -> T {
    let poll = async {
        loop {
            if let Some(value) = check().await {
                return value;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(HANG, poll).await.unwrap_or_else(|_| panic!("never happened: {what}"))
}
