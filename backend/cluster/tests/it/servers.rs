//! The server list on a real nats-server: announcements, placement, drain, and a
//! stopped server dropping out.

use vlab_cluster::directory::DirectoryError;
use vlab_cluster::testkit::{nats_url, unique_name};
use vlab_cluster::{Directory, ServerLoad};

use super::{directory, eventually};

/// Waits until the directory lists server `id` with `labs` labs.
async fn until_listed(directory: &Directory, id: &str, labs: u32) {
    eventually(&format!("{id} is listed with {labs} labs"), || async {
        let servers = directory.servers().await.unwrap();
        servers.iter().any(|s| s.id == id && s.load.labs == labs).then_some(())
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_labs_go_to_the_emptier_server_never_to_a_draining_one_and_a_stopped_one_drops_out() {
    let name = unique_name("servers");
    let (dir_a, dir_b) = (directory(&nats_url(), &name).await, directory(&nats_url(), &name).await);
    let a = dir_a.announce("server-a", "127.0.0.1:8081", "0.1.0").await.unwrap();
    let b = dir_b.announce("server-b", "127.0.0.1:8082", "0.1.0").await.unwrap();
    // Listed at once, before any refresh.
    let listed = dir_a.servers().await.unwrap();
    assert_eq!(listed.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), ["server-a", "server-b"]);
    assert_eq!(listed[1].address, "127.0.0.1:8082");

    a.set_load(ServerLoad { labs: 3, viewers: 0, cpu_share: 0.5 });
    b.set_load(ServerLoad { labs: 1, viewers: 40, cpu_share: 0.2 });
    until_listed(&dir_a, "server-a", 3).await;
    until_listed(&dir_a, "server-b", 1).await;
    assert_eq!(dir_a.least_loaded().await.unwrap().unwrap().id, "server-b");

    // The operator drains b: the emptier server gets nothing new, and b's own refreshes
    // keep the flag.
    dir_a.drain("server-b").await.unwrap();
    assert_eq!(dir_b.least_loaded().await.unwrap().unwrap().id, "server-a");
    let mut draining = b.draining();
    draining.wait_for(|draining| *draining).await.unwrap();
    b.set_load(ServerLoad { labs: 0, viewers: 0, cpu_share: 0.0 });
    until_listed(&dir_a, "server-b", 0).await;
    let b_listed = dir_a.servers().await.unwrap().into_iter().find(|s| s.id == "server-b").unwrap();
    assert!(b_listed.draining);
    assert_eq!(dir_a.least_loaded().await.unwrap().unwrap().id, "server-a");

    // a stops announcing (killed): it drops out after the TTL; b, draining, takes nothing.
    drop(a);
    eventually("server-a drops out", || async {
        let servers = dir_b.servers().await.unwrap();
        (servers.iter().map(|s| s.id.as_str()).collect::<Vec<_>>() == ["server-b"]).then_some(())
    })
    .await;
    assert_eq!(dir_b.least_loaded().await.unwrap(), None);
    assert!(matches!(dir_b.drain("server-a").await, Err(DirectoryError::NoSuchServer(id)) if id == "server-a"));

    // A clean shutdown leaves the list at once.
    b.withdraw().await.unwrap();
    assert!(dir_a.servers().await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_server_announced_there_is_nowhere_to_place_a_lab() {
    let dir = directory(&nats_url(), &unique_name("empty")).await;
    assert!(dir.servers().await.unwrap().is_empty());
    assert_eq!(dir.least_loaded().await.unwrap(), None);
    assert!(matches!(dir.drain("nobody").await, Err(DirectoryError::NoSuchServer(_))));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opening_a_directory_with_another_ttl_than_its_buckets_fails_clearly() {
    let name = unique_name("ttl");
    let _first = directory(&nats_url(), &name).await;
    let client = super::client(&nats_url()).await;
    let other = vlab_cluster::Timing { lease_ttl: super::FAST.lease_ttl * 2, ..super::FAST };
    match Directory::open(client, &name, other).await {
        Err(DirectoryError::Bucket { bucket, .. }) => assert_eq!(bucket, format!("{name}_leases")),
        Err(error) => panic!("unexpected error {error}"),
        Ok(_) => panic!("a bucket was opened with another TTL"),
    }
}
