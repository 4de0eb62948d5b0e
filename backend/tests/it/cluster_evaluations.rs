//! A course's evaluations in a cluster: each runs only on the server holding its lease.
//! A server killed (SIGKILL) mid-evaluation leaves it unfinished in the shared
//! database, and another server claims it once its lease expires and finishes it with
//! a grade; an evaluation another server still holds is never started.

use std::sync::Arc;
use std::time::Duration;

use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use vlab_server::classroom::{Classroom, ClassroomConfig};
use vlab_server::cluster::Node;
use vlab_server::net::peers::Owners;
use vlab_server::secret::TokenDigest;
use vlab_server::store::postgres::client::Pg;
use vlab_server::store::{AttemptStore, Database, Store};

use crate::common::binary::VlabProcess;
use crate::common::postgres::TestDatabase;
use crate::common::{TOKEN, TestServer, python_runs_here};
use crate::course_assignments::{IDLE, park_solution};

/// Only guards against a hang (a takeover is due within 15 s, an evaluation within a
/// minute or two on a loaded machine): a wait not over by then has failed.
const HANG: Duration = Duration::from_secs(300);

async fn call(base: &str, token: Option<&str>, path: &str, body: Value) -> (u16, Value) {
    let mut request = reqwest::Client::new().post(format!("{base}{path}")).json(&body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Through the server at `base` with server key `key`: a class, a student signed in to
/// it, an assignment of the park challenge over `trials` trials, and her hand-in of
/// `program`. Returns the class and its evaluation's id.
async fn hand_in(base: &str, key: &str, trials: u32, program: Form) -> (String, i64) {
    let (status, class) = call(base, Some(key), "/api/classes", json!({ "name": "Robotics 6A" })).await;
    assert_eq!(status, 201, "{class}");
    let (id, code, teacher) = (
        class["id"].as_str().unwrap(),
        class["class_code"].as_str().unwrap(),
        class["teacher_token"].as_str().unwrap(),
    );
    let (status, signed) =
        call(base, None, "/api/classes/sign-in", json!({ "class_code": code, "name": "Ana", "pin": "4821" })).await;
    assert_eq!(status, 200, "{signed}");
    let ana = signed["token"].as_str().unwrap();
    let request = json!({ "challenge": "challenges/park", "trials": trials });
    let (status, assignment) = call(base, Some(teacher), &format!("/api/classes/{id}/assignments"), request).await;
    assert_eq!(status, 201, "{assignment}");
    let path = format!("{base}/api/classes/{id}/assignments/{}/submissions", assignment["id"]);
    let response = reqwest::Client::new().post(path).bearer_auth(ana).multipart(program).send().await.unwrap();
    let status = response.status().as_u16();
    let submission: Value = response.json().await.unwrap();
    assert_eq!(status, 202, "{submission}");
    (id.to_owned(), submission["evaluation"]["id"].as_i64().unwrap())
}

/// Evaluation `id` as the database keeps it: its status, grade and trials.
fn kept(pg: &Pg, id: i64) -> (String, Option<f64>, Vec<Value>) {
    let row = pg.query_one("SELECT status, grade, trials FROM evaluations WHERE id = $1", &[&id]).unwrap();
    let trials: String = row.get(2);
    (row.get(0), row.get(1), serde_json::from_str(&trials).unwrap())
}

fn over(trial: &Value) -> bool {
    !matches!(trial["status"].as_str(), Some("queued" | "running"))
}

/// Polls `check` until it gives a value (see [`HANG`]).
async fn eventually<T>(what: &str, check: impl AsyncFnMut() -> Option<T>) -> T {
    crate::common::eventually(what, HANG, check).await
}

async fn directory(cluster: &str) -> vlab_cluster::Directory {
    let nats = async_nats::connect(vlab_cluster::testkit::nats_url()).await.unwrap();
    vlab_cluster::Directory::open(nats, cluster, vlab_cluster::Timing::DEFAULT).await.unwrap()
}

#[tokio::test]
async fn an_evaluation_its_server_was_killed_running_is_finished_by_another_with_a_grade() {
    if !python_runs_here() {
        return;
    }
    let db = TestDatabase::create();
    let cluster = vlab_cluster::testkit::unique_name("eval");
    let dir = std::env::temp_dir().join(&cluster);
    std::fs::create_dir_all(&dir).unwrap();
    let key = "cluster-evaluation-key";
    let start = |id: &str| VlabProcess::start_in_cluster(&db.url, &cluster, id, key, &dir);
    let a = start("a");
    let (_, evaluation) = hand_in(&a.base, key, 20, park_solution()).await;
    let b = start("b");
    let directory = directory(&cluster).await;
    eventually("server a holds the evaluation's lease", async || {
        (directory.evaluation_owner(evaluation).await.unwrap().as_deref() == Some("a")).then_some(())
    })
    .await;

    let pg = Pg::connect(&db.url).unwrap();
    eventually("server a keeps a first trial", async || kept(&pg, evaluation).2.iter().any(over).then_some(())).await;

    drop(a);
    let (status, _, before) = kept(&pg, evaluation);
    let left = before.iter().filter(|t| !over(t)).count();
    assert!(status != "graded" && left > 0, "killed mid-evaluation: {status}, {left} trials left of {}", before.len());
    assert_eq!(
        directory.evaluation_owner(evaluation).await.unwrap().as_deref(),
        Some("a"),
        "its lease outlives it a while"
    );

    let owner = eventually("another server claims the evaluation", async || {
        directory.evaluation_owner(evaluation).await.unwrap().filter(|owner| owner != "a")
    })
    .await;
    assert_eq!(owner, "b");
    let (grade, trials) = eventually("the evaluation is graded", async || {
        let (status, grade, trials) = kept(&pg, evaluation);
        (status == "graded").then_some((grade, trials))
    })
    .await;
    assert_eq!(trials.len(), 20);
    assert!(trials.iter().all(over), "every trial kept: {trials:?}");
    assert!(trials.iter().all(|t| t["credit"].as_f64().is_some()), "{trials:?}");
    for kept_by_a in before.iter().filter(|t| over(t)) {
        assert!(trials.contains(kept_by_a), "a trial kept before the kill stays as it was: {kept_by_a}");
    }
    let credits: Vec<f64> = trials.iter().map(|t| t["credit"].as_f64().unwrap()).collect();
    assert_eq!(grade, Some(vlab_server::classroom::course::grade(10.0, &credits)), "graded from all its trials");
    assert!(grade.unwrap() > 0.0, "the reference solution parks: {trials:?}");
    println!(
        "evaluation {evaluation}: {left} of 20 trials left when its server was killed; {owner} finished it: {grade:?}"
    );
    drop(b);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn an_evaluation_another_server_holds_is_not_started_here_and_is_taken_over_once_let_go() {
    if !python_runs_here() {
        return;
    }
    let db = TestDatabase::create();
    let cluster = vlab_cluster::testkit::unique_name("held");
    let database = Database::Postgres(db.url.clone());
    let key_file = std::env::temp_dir().join(format!("{cluster}.key"));
    let classroom = Classroom::new(ClassroomConfig {
        server_key: Some(TokenDigest::of(TOKEN)),
        store: Some(Store::open_database(&database, &key_file).unwrap()),
        attempts: Some(AttemptStore::open_database(&database).unwrap()),
        ..ClassroomConfig::default()
    });
    let directory = directory(&cluster).await;
    let node = Node::join(directory.clone(), "b".to_owned(), "127.0.0.1:1").await.unwrap();
    node.run_evaluations(&classroom);
    let nats = async_nats::connect(vlab_cluster::testkit::nats_url()).await.unwrap();
    let b = TestServer::serve_in_cluster(classroom, nats, &cluster, "b", Arc::clone(&node) as Arc<dyn Owners>).await;

    // Server "a" holds evaluation 1 (the first of a new database) before it is handed in.
    let held = directory.claim_evaluation(1, "a").await.unwrap();
    let (_, evaluation) =
        hand_in(&b.url(""), TOKEN, 2, Form::new().part("program", Part::text(IDLE).file_name("main.py"))).await;
    assert_eq!(evaluation, 1);
    let taken = b.classroom().course().take_over_evaluations().await.unwrap();
    assert_eq!(taken, 0, "held by a: not taken");
    let pg = Pg::connect(&db.url).unwrap();
    let (status, _, trials) = kept(&pg, evaluation);
    assert_eq!(status, "queued", "not started here");
    assert!(trials.iter().all(|t| t["status"] == "queued"), "{trials:?}");
    assert_eq!(directory.evaluation_owner(1).await.unwrap().as_deref(), Some("a"));

    // Let go (as a drained or stopped server would): b claims it and grades it.
    held.release().await.unwrap();
    let mut taken = 0;
    let grade = eventually("the evaluation is graded here", async || {
        taken += b.classroom().course().take_over_evaluations().await.unwrap();
        let (status, grade, _) = kept(&pg, evaluation);
        (status == "graded").then_some(grade)
    })
    .await;
    // b's own claim from the hand-in (refused while a held it) may come late on a busy
    // machine and win once a lets go: then b runs it from its hand-in, not a takeover.
    // Either way it is lined up here once (a second entry is refused).
    assert!(taken <= 1, "taken over at most once: {taken}");
    assert_eq!(grade, Some(0.0), "a program that does nothing earns nothing");
    let _ = std::fs::remove_file(&key_file);
}
