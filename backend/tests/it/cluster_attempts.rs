//! Attempts on two servers of a cluster sharing one PostgreSQL database: each server
//! runs a lab of its own with a challenge, attempts are queued on both at once, and
//! every one gets a number no other has, its answer and replay kept apart and readable
//! through either server. With the database away an attempt cannot be numbered: it is
//! refused (503) and not queued, and the next one, once the database is back, passes.

use std::collections::BTreeMap;
use std::sync::Arc;

use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use vlab_server::classroom::{Classroom, ClassroomConfig};
use vlab_server::net::peers::{Asked, Owners};
use vlab_server::scene::{MapLoader, Options, interpret};
use vlab_server::secret::TokenDigest;
use vlab_server::store::{AttemptStore, Database};

use crate::challenge_attempts::{CART, CHALLENGE_YARD, FORWARD};
use crate::common::postgres::TestDatabase;
use crate::common::{PATIENCE, TOKEN, TestServer, python_runs_here, test_lab};

/// Lab `yard-a` runs on server `a`, `yard-b` on `b`.
struct Fixed;

impl Owners for Fixed {
    fn owner_of<'a>(&'a self, lab: &'a str) -> Asked<'a, Option<String>> {
        Box::pin(async move { Ok(lab.strip_prefix("yard-").map(str::to_owned)) })
    }

    fn place(&self) -> Asked<'_, String> {
        Box::pin(async move { Ok("a".to_owned()) })
    }

    fn servers(&self) -> Asked<'_, Vec<String>> {
        Box::pin(async move { Ok(vec!["a".to_owned(), "b".to_owned()]) })
    }
}

/// Server `me` keeping its attempts in the database at `url`, running lab `yard-{me}`.
async fn server(url: &str, cluster: &str, me: &str) -> TestServer {
    let attempts = AttemptStore::open_database(&Database::Postgres(url.to_owned())).unwrap();
    let classroom = Classroom::new(ClassroomConfig {
        server_key: Some(TokenDigest::of(TOKEN)),
        attempts: Some(attempts),
        ..ClassroomConfig::default()
    });
    let yard = interpret(CHALLENGE_YARD, "yard.vlab", &MapLoader::new(), &Options::default()).unwrap().model;
    classroom.registry.insert(test_lab(&classroom, &format!("yard-{me}"), yard, false));
    let nats = async_nats::connect(vlab_cluster::testkit::nats_url()).await.expect("nats-server answers");
    TestServer::serve_in_cluster(classroom, nats, cluster, me, Arc::new(Fixed)).await
}

async fn add_cart(server: &TestServer, lab: &str) {
    let form = Form::new()
        .part("description", Part::text(CART).file_name("cart.vlab"))
        .part("drive.py", Part::text(FORWARD).file_name("drive.py"));
    let url = server.url(&format!("/api/labs/{lab}/robots"));
    let response = server.http.post(url).bearer_auth(TOKEN).multipart(form).send().await.unwrap();
    let status = response.status().as_u16();
    assert_eq!(status, 200, "{}", response.text().await.unwrap());
}

async fn get(server: &TestServer, path: &str) -> (u16, Value) {
    let response = server.http.get(server.url(path)).bearer_auth(TOKEN).send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

/// Attempt `id` of `lab` once it is over, read through `server`.
async fn finished(server: &TestServer, lab: &str, id: u64) -> Value {
    let deadline = tokio::time::Instant::now() + PATIENCE * 3;
    loop {
        let (status, report) = get(server, &format!("/api/labs/{lab}/attempts/{id}")).await;
        assert_eq!(status, 200, "{report}");
        if !matches!(report["status"].as_str(), Some("queued" | "running")) {
            return report;
        }
        assert!(tokio::time::Instant::now() < deadline, "attempt {id} never ended: {report}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn attempts_queued_on_two_servers_sharing_a_database_get_numbers_no_other_has_and_are_all_kept() {
    if !python_runs_here() {
        return;
    }
    let db = TestDatabase::create();
    let cluster = vlab_cluster::testkit::unique_name("attempts");
    let (a, b) = (server(&db.url, &cluster, "a").await, server(&db.url, &cluster, "b").await);
    add_cart(&a, "yard-a").await;
    add_cart(&b, "yard-b").await;

    // Three each (the most one participant may have open), in turn, each through the
    // server that does not run its lab: asked of the owner through the cluster.
    let mut queued: BTreeMap<u64, (&str, u64)> = BTreeMap::new();
    for seed in 1..=3u64 {
        for (through, lab) in [(&b, "yard-a"), (&a, "yard-b")] {
            let url = through.url(&format!("/api/labs/{lab}/robots/cart/attempts"));
            let response =
                through.http.post(url).bearer_auth(TOKEN).json(&json!({ "seed": seed })).send().await.unwrap();
            let status = response.status().as_u16();
            let report: Value = response.json().await.unwrap();
            assert_eq!(status, 202, "{report}");
            let id = report["id"].as_u64().unwrap();
            assert!(queued.insert(id, (lab, seed)).is_none(), "attempt number {id} was given twice: {queued:?}");
        }
    }
    assert_eq!(queued.len(), 6);

    for (&id, &(lab, seed)) in &queued {
        for through in [&a, &b] {
            let report = finished(through, lab, id).await;
            assert_eq!((report["id"].as_u64(), report["seed"].as_u64()), (Some(id), Some(seed)), "{report}");
            assert_eq!(report["status"], "solved", "{report}");
        }
        let (status, replay) = get(&a, &format!("/api/labs/{lab}/attempts/{id}/replay")).await;
        assert_eq!(status, 200, "attempt {id}'s replay: {replay}");
        assert_eq!(replay["attempt"]["id"].as_u64(), Some(id), "its own replay");
        // Another lab's number is not this lab's attempt.
        let other = if lab == "yard-a" { "yard-b" } else { "yard-a" };
        let (status, _) = get(&b, &format!("/api/labs/{other}/attempts/{id}")).await;
        assert_eq!(status, 404, "attempt {id} belongs to {lab} only");
    }
    for lab in ["yard-a", "yard-b"] {
        let (status, listed) = get(&a, &format!("/api/labs/{lab}/attempts")).await;
        assert_eq!(status, 200, "{listed}");
        let ids: Vec<u64> = listed.as_array().unwrap().iter().map(|r| r["id"].as_u64().unwrap()).collect();
        let mut expected: Vec<u64> = queued.iter().filter(|(_, (l, _))| *l == lab).map(|(id, _)| *id).collect();
        expected.reverse();
        assert_eq!(ids, expected, "{lab}: its three, newest first");
    }
}

#[tokio::test]
async fn an_attempt_that_cannot_be_numbered_while_the_database_is_away_is_refused_and_the_next_one_passes() {
    if !python_runs_here() {
        return;
    }
    let postgres = crate::common::postgres::PrivatePostgres::start();
    let cluster = vlab_cluster::testkit::unique_name("numbering");
    let a = server(&postgres.url(), &cluster, "a").await;
    add_cart(&a, "yard-a").await;
    let attempt = async || {
        let url = a.url("/api/labs/yard-a/robots/cart/attempts");
        let response = a.http.post(url).bearer_auth(TOKEN).json(&json!({ "seed": 1 })).send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json::<Value>().await.unwrap())
    };
    let (status, first) = attempt().await;
    assert_eq!(status, 202, "{first}");
    finished(&a, "yard-a", first["id"].as_u64().unwrap()).await;

    postgres.stop();
    let (status, refused) = attempt().await;
    assert_eq!(status, 503, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("cannot be numbered"), "{message}");

    postgres.start_again();
    let (status, next) = attempt().await;
    assert_eq!(status, 202, "{next}");
    let next = finished(&a, "yard-a", next["id"].as_u64().unwrap()).await;
    assert!(next["id"].as_u64() > first["id"].as_u64(), "{first} then {next}");
    let (_, listed) = get(&a, "/api/labs/yard-a/attempts").await;
    assert_eq!(listed.as_array().unwrap().len(), 2, "the refused one was never queued: {listed}");
}
