//! A course across a cluster's servers: a class made through one server, its roster
//! changed through a second and a student signing in through the third; each server
//! answers for the class as the one that made the change, and a student removed
//! through one server is refused by all of them.

use std::time::Duration;

use reqwest::Method;
use reqwest::multipart::Part;
use serde_json::{Value, json};

use crate::cluster_servers::{Cluster, KEY, call};
use crate::common::python_runs_here;
use crate::course_assignments::park_solution;

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

#[tokio::test]
async fn a_robot_is_handed_in_through_a_server_that_does_not_run_its_lesson() {
    if !python_runs_here() {
        return;
    }
    let cluster = Cluster::start();
    let a = cluster.server("a");
    let (status, class) = call(a, Method::POST, "/api/classes", Some(KEY), json!({ "name": "Robotics 2B" })).await;
    assert_eq!(status, 201, "{class}");
    let (id, code, teacher) = (text(&class, "id"), text(&class, "class_code"), text(&class, "teacher_token"));
    let assignment = json!({ "challenge": "challenges/park", "trials": 1 });
    let (status, assignment) =
        call(a, Method::POST, &format!("/api/classes/{id}/assignments"), Some(&teacher), assignment).await;
    assert_eq!(status, 201, "{assignment}");
    let lesson = json!({ "name": "Lesson 1", "scene": "challenges/park" });
    let (status, lesson) = call(a, Method::POST, &format!("/api/classes/{id}/labs"), Some(&teacher), lesson).await;
    assert_eq!(status, 201, "{lesson}");
    let lab = text(&lesson, "id");
    let runs = cluster.owner_of(&lab).await.expect("the lesson runs on a server");
    let other = cluster.server(["a", "b", "c"].into_iter().find(|id| *id != runs).unwrap());

    // Ana, through a server that does not run the lesson: signs in, enters, adds her
    // robot with its program, and hands the robot in.
    let sign_in = json!({ "class_code": code, "name": "Ana", "pin": "4821" });
    let (status, session) = call(other, Method::POST, "/api/classes/sign-in", None, sign_in).await;
    assert_eq!(status, 200, "{session}");
    let ana = text(&session, "token");
    let (status, entered) = call(other, Method::POST, &format!("/api/labs/{lab}/enter"), Some(&ana), json!({})).await;
    assert_eq!(status, 200, "{entered}");
    let description = "include \"diffbot_robot.vlab\";\ncall diffbot(\"_ana\", {x}, {z}, 0);\n";
    let form = park_solution().part("description", Part::text(description).file_name("ana.vlab"));
    let added = reqwest::Client::new().post(other.url(&format!("/api/labs/{lab}/robots"))).bearer_auth(&ana);
    let added = added.multipart(form).send().await.unwrap();
    assert_eq!(added.status().as_u16(), 200);
    let robot = added.json::<Value>().await.unwrap()["robots"][0].as_str().unwrap().to_owned();
    let submissions = format!("/api/classes/{id}/assignments/{}/submissions", assignment["id"]);
    let hand_in = json!({ "lab": lab, "robot": robot });
    let (status, handed) = call(other, Method::POST, &submissions, Some(&ana), hand_in).await;
    assert_eq!(status, 202, "{handed}");
    assert_eq!(handed["files"], json!(["drive_to.py", "park.py"]), "her robot's program: {handed}");
    // Not hers: refused as one server refuses it.
    let (status, refused) =
        call(other, Method::POST, &submissions, Some(&ana), json!({ "lab": lab, "robot": "diffbot" })).await;
    assert_eq!(status, 403, "{refused}");
}

fn text(value: &Value, field: &str) -> String {
    value[field].as_str().unwrap_or_else(|| panic!("no {field} in {value}")).to_owned()
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
