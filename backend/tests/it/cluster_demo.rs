//! The demo lab in a cluster: every server keeps its record at start, and only the
//! server that claims it opens it. A server started while another runs the demo lab
//! leaves nothing in its recording (no run of its own, no scene); when the demo's
//! server is killed, the next run is the taker's, numbered right after the first.

use std::collections::BTreeSet;
use std::time::Duration;

use vlab_server::store::postgres::client::Pg;

use crate::common::binary::VlabProcess;
use crate::common::postgres::TestDatabase;

/// Only guards against a hang (a takeover is due within 15 s): a wait not over by then
/// has failed.
const HANG: Duration = Duration::from_secs(120);

/// The runs of the demo lab's recording that hold chunks, and those that hold scenes.
fn runs(pg: &Pg) -> (BTreeSet<i64>, BTreeSet<i64>) {
    let of = |table: &str| {
        let rows = pg.query(&format!("SELECT DISTINCT run FROM {table} WHERE lab = 'demo'"), &[]).unwrap();
        rows.iter().map(|row| row.get::<_, i64>(0)).collect()
    };
    (of("chunks"), of("scenes"))
}

/// Polls `check` until it gives a value (see [`HANG`]).
async fn eventually<T>(what: &str, check: impl AsyncFnMut() -> Option<T>) -> T {
    crate::common::eventually(what, HANG, check).await
}

#[tokio::test]
async fn a_server_that_does_not_win_the_demo_lab_leaves_no_run_in_its_recording() {
    let db = TestDatabase::create();
    let cluster = vlab_cluster::testkit::unique_name("demo");
    let dir = std::env::temp_dir().join(&cluster);
    std::fs::create_dir_all(&dir).unwrap();
    let nats = vlab_cluster::testkit::nats_url();
    let start = |id: &str| VlabProcess::start_in_cluster(&db.url, &cluster, id, "cluster-demo-key", &dir);
    let nats_client = async_nats::connect(&nats).await.unwrap();
    let directory = vlab_cluster::Directory::open(nats_client, &cluster, vlab_cluster::Timing::DEFAULT).await.unwrap();
    let pg = Pg::connect(&db.url).unwrap();

    let a = start("a");
    eventually("server a runs the demo lab and records it", async || {
        let owner = directory.owner_of("demo").await.unwrap();
        (owner.as_deref() == Some("a") && runs(&pg).0.contains(&1)).then_some(())
    })
    .await;
    let b = start("b");
    assert_eq!(directory.owner_of("demo").await.unwrap().as_deref(), Some("a"));

    drop(a);
    eventually("server b takes the demo lab over and records it", async || {
        let owner = directory.owner_of("demo").await.unwrap();
        (owner.as_deref() == Some("b") && runs(&pg).0.contains(&2)).then_some(())
    })
    .await;
    let (chunks, scenes) = runs(&pg);
    assert_eq!(chunks, BTreeSet::from([1, 2]), "a's run, then b's: none of b's own when it started");
    assert_eq!(scenes, BTreeSet::from([1, 2]), "no scene of a copy opened and closed");
    drop(b);
    let _ = std::fs::remove_dir_all(&dir);
}
