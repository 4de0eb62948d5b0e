//! The test kit's services: fresh databases, and a private NATS that stops and restarts.

use std::process::Command;

use vlab_cluster::testkit::{NatsServer, fresh_database, postgres_url};

/// Runs `sql` with psql on `url`; its output, trimmed.
fn psql(url: &str, sql: &str) -> String {
    let output = Command::new("psql").args(["-X", "-A", "-t", "-d", url, "-c", sql]).output().expect("psql runs");
    assert!(output.status.success(), "psql {sql}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

#[test]
fn each_fresh_database_is_new_empty_and_reachable_by_its_url() {
    let (one, two) = (fresh_database(), fresh_database());
    assert_ne!(one, two);
    let name = one.rsplit('/').next().unwrap();
    assert_eq!(psql(&one, "SELECT current_database()"), name);
    psql(&one, "CREATE TABLE t (x int)");
    assert_eq!(psql(&two, "SELECT count(*) FROM pg_tables WHERE tablename = 't'"), "0");
    assert_eq!(psql(&postgres_url(), "SELECT rolsuper FROM pg_roles WHERE rolname = current_user"), "t");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_nats_server_stops_and_restarts_with_its_jetstream_store() {
    let mut nats = NatsServer::start_private();
    let jetstream = async_nats::jetstream::new(super::client(&nats.url()).await);
    let stream = async_nats::jetstream::stream::Config {
        name: "KEPT".into(),
        subjects: vec!["kept".into()],
        ..Default::default()
    };
    jetstream.create_stream(stream).await.unwrap();
    jetstream.publish("kept", "v".into()).await.unwrap().await.unwrap();
    nats.stop();
    assert!(std::net::TcpStream::connect(("127.0.0.1", nats.port())).is_err());
    nats.restart();
    let jetstream = async_nats::jetstream::new(super::client(&nats.url()).await);
    let mut kept = jetstream.get_stream("KEPT").await.unwrap();
    assert_eq!(kept.info().await.unwrap().state.messages, 1);
}
