//! A course across a cluster's servers: a class made through one server, its roster
//! changed through a second and a student signing in through the third; each server
//! answers for the class as the one that made the change, and a student removed
//! through one server is refused by all of them.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::cluster_servers::{Cluster, KEY, call};

/// How long the servers may take to hear of a change before the test calls it lost (a
/// guard against a hang, not a measure: they hear of it in milliseconds; shorter than
/// the 30 s after which every server reads the course again anyway).
const HEARING_PATIENCE: Duration = Duration::from_secs(10);

#[tokio::test]
async fn a_class_changed_through_any_server_is_the_same_class_on_every_server() {
    let cluster = Cluster::start();
    let (a, b, c) = (cluster.server("a"), cluster.server("b"), cluster.server("c"));
    let (status, class) = call(a, Method::POST, "/api/classes", Some(KEY), json!({ "name": "Robotics 2B" })).await;
    assert_eq!(status, 201, "{class}");
    let text = |field: &str| class[field].as_str().unwrap().to_owned();
    let (id, code, teacher) = (text("id"), text("class_code"), text("teacher_token"));

    // The roster through b, which did not make the class.
    let students = format!("/api/classes/{id}/students");
    let (status, ana) = call(b, Method::POST, &students, Some(&teacher), json!({ "name": "Ana" })).await;
    assert_eq!(status, 201, "b adds to a class a made: {ana}");
    let pin = ana["pin"].as_str().unwrap();

    // Ana signs in through c, which knew neither the class nor her.
    let sign_in = json!({ "class_code": code, "name": "Ana", "pin": pin });
    let (status, session) = call(c, Method::POST, "/api/classes/sign-in", None, sign_in).await;
    assert_eq!(status, 200, "c signs in a student b added: {session}");
    let ana_token = session["token"].as_str().unwrap().to_owned();

    // Her session is hers on every server, and the roster is the same everywhere.
    for server in [a, b, c] {
        let (status, seen) =
            call(server, Method::GET, &format!("/api/classes/{id}"), Some(&ana_token), json!({})).await;
        assert_eq!(status, 200, "{seen}");
        let (status, roster) = call(server, Method::GET, &students, Some(&teacher), json!({})).await;
        assert_eq!(status, 200, "{roster}");
        assert_eq!(names(&roster), ["Ana"], "{roster}");
    }

    // Lessons made through a are placed over the servers; every server lists them all,
    // in the class view and in the teacher's overview.
    let mut lessons = Vec::new();
    for week in ["Week 1", "Week 2", "Week 3"] {
        let (status, lab) =
            call(a, Method::POST, &format!("/api/classes/{id}/labs"), Some(&teacher), json!({ "name": week })).await;
        assert_eq!(status, 201, "{lab}");
        lessons.push(lab["id"].as_str().unwrap().to_owned());
    }
    lessons.sort();
    for server in [a, b, c] {
        let (status, seen) =
            call(server, Method::GET, &format!("/api/classes/{id}"), Some(&ana_token), json!({})).await;
        assert_eq!(status, 200, "{seen}");
        assert_eq!(ids(&seen["labs"], |lab| lab), lessons, "{seen}");
        let path = format!("/api/classes/{id}/overview");
        let (status, overview) = call(server, Method::GET, &path, Some(&teacher), json!({})).await;
        assert_eq!(status, 200, "{overview}");
        assert_eq!(ids(&overview["labs"], |lab| &lab["lab"]), lessons, "{overview}");
    }

    // Removed through c: every server refuses her session.
    let ana_id = ana["student"]["id"].as_u64().unwrap();
    let (status, removed) = call(c, Method::DELETE, &format!("{students}/{ana_id}"), Some(&teacher), json!({})).await;
    assert!((200..300).contains(&status), "{status} {removed}");
    for (name, server) in [("a", a), ("b", b), ("c", c)] {
        let refused = tokio::time::timeout(HEARING_PATIENCE, async {
            loop {
                let path = format!("/api/classes/{id}");
                let (status, answer) = call(server, Method::GET, &path, Some(&ana_token), json!({})).await;
                if status != 200 {
                    return (status, answer);
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
        .await;
        let (status, answer) = refused.unwrap_or_else(|_| panic!("{name} still answers a removed student"));
        assert_eq!(status, 401, "{name}: {answer}");
    }
}

/// The names on a roster.
fn names(roster: &Value) -> Vec<String> {
    let students = roster.as_array().or_else(|| roster["students"].as_array()).expect("a roster");
    students.iter().map(|s| s["name"].as_str().unwrap().to_owned()).collect()
}

/// The lab ids of a list of lessons, sorted (`summary` finds each one's summary).
fn ids(labs: &Value, summary: impl Fn(&Value) -> &Value) -> Vec<String> {
    let mut ids: Vec<String> = labs
        .as_array()
        .expect("a list of labs")
        .iter()
        .map(|lab| summary(lab)["id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}
