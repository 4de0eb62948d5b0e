//! The real `vlab` binary on PostgreSQL (`--db postgres://…`): what a class keeps
//! comes back after a restart; with the database stopped mid-lesson an upload answers
//! 503 and changes nothing while the lab's clock goes on, and once the database is back
//! the next upload succeeds with no restart of the server.

use std::time::Duration;

use crate::common;

use common::binary::VlabProcess;
use common::postgres::{PrivatePostgres, TestDatabase};
use reqwest::Method;
use serde_json::{Value, json};

const KEY: &str = "postgres-test-key";

/// `vlab serve --db URL`, its key file in a folder of the test's.
fn serve(url: &str, key_file: &std::path::Path, args: &[&str]) -> VlabProcess {
    let key_file = key_file.display().to_string();
    let mut all = vec!["--instructor-token", KEY, "--key-file", key_file.as_str()];
    all.extend_from_slice(args);
    VlabProcess::start(std::path::Path::new(url), &all)
}

async fn call(http: &reqwest::Client, method: Method, url: String, token: Option<&str>, body: Value) -> (u16, Value) {
    let mut request = http.request(method, url).json(&body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (status, if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap() })
}

/// `token` uploads robot `name` (a box at `x`) into lab `lab`; the status and answer.
async fn upload(
    http: &reqwest::Client,
    server: &VlabProcess,
    lab: &str,
    token: &str,
    name: &str,
    x: f64,
) -> (u16, Value) {
    let text =
        format!("robot {name} {{ body {{ {name}_chassis {{ shape box(0.3, 0.1, 0.2); pos({x}, 0.2, 1.5); }} }} }}");
    let response =
        http.post(server.url(&format!("/api/labs/{lab}/robots"))).bearer_auth(token).body(text).send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

fn robot_names(lab: &Value) -> Vec<String> {
    let mut names: Vec<String> =
        lab["robots"].as_array().unwrap().iter().map(|r| r.as_str().unwrap().to_owned()).collect();
    names.sort();
    names
}

/// A lab created over HTTP (running), a student who joined it and her robot: the lab's
/// id and her token.
async fn lab_with_a_student_and_her_robot(http: &reqwest::Client, server: &VlabProcess) -> (String, String) {
    let (status, created) =
        call(http, Method::POST, server.url("/api/labs"), Some(KEY), json!({ "name": "Robotics 2" })).await;
    assert_eq!(status, 201, "{created}");
    let lab = created["id"].as_str().unwrap().to_owned();
    let code = created["join_code"].as_str().unwrap();
    let instructor = created["instructor_token"].as_str().unwrap();
    let control = server.url(&format!("/api/labs/{lab}/control"));
    let (status, state) = call(http, Method::POST, control, Some(instructor), json!({ "action": "resume" })).await;
    assert_eq!(status, 200, "{state}");
    let (status, joined) =
        call(http, Method::POST, server.url("/api/join"), None, json!({ "join_code": code, "name": "Ana" })).await;
    assert_eq!(status, 200, "{joined}");
    let ana = joined["token"].as_str().unwrap().to_owned();
    let (status, reply) = upload(http, server, &lab, &ana, "ana_bot", 1.0).await;
    assert_eq!(status, 200, "{reply}");
    (lab, ana)
}

#[tokio::test]
async fn a_lab_its_student_and_her_robot_come_back_from_postgres_after_a_restart() {
    let db = TestDatabase::create();
    let dir = std::env::temp_dir().join(format!("vlab-pg-restart-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let key_file = dir.join("vlab.key");
    let http = reqwest::Client::new();
    let (lab, ana, before) = {
        let server = serve(&db.url, &key_file, &[]);
        let (lab, ana) = lab_with_a_student_and_her_robot(&http, &server).await;
        let (_, before) =
            call(&http, Method::GET, server.url(&format!("/api/labs/{lab}")), Some(&ana), json!({})).await;
        (lab, ana, before)
        // Killed here, as a pulled plug would.
    };
    let server = serve(&db.url, &key_file, &[]);
    let (status, after) =
        call(&http, Method::GET, server.url(&format!("/api/labs/{lab}")), Some(&ana), json!({})).await;
    assert_eq!(status, 200, "her session is still valid: {after}");
    assert_eq!(robot_names(&after), robot_names(&before));
    assert!(robot_names(&after).contains(&"ana_bot".to_owned()), "{after}");
    let (_, people) =
        call(&http, Method::GET, server.url(&format!("/api/labs/{lab}/participants")), None, json!({})).await;
    assert!(people.to_string().contains("Ana"), "{people}");
    // The key file beside nothing but itself: `vlab key` reads it with the database.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_vlab"))
        .args(["key", "--db", &db.url, "--key-file"])
        .arg(&key_file)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stdout).contains(KEY));
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn with_postgres_stopped_an_upload_answers_503_changes_nothing_and_the_next_one_succeeds_once_it_is_back() {
    let postgres = PrivatePostgres::start();
    let db = TestDatabase::on(&postgres.url());
    let dir = std::env::temp_dir().join(format!("vlab-pg-outage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let http = reqwest::Client::new();
    let server = serve(&db.url, &dir.join("vlab.key"), &[]);
    let (lab, ana) = lab_with_a_student_and_her_robot(&http, &server).await;
    let lab_url = server.url(&format!("/api/labs/{lab}"));
    let (_, health) = call(&http, Method::GET, server.url("/api/health"), None, json!({})).await;
    assert_eq!(health["database"], "ok", "{health}");

    postgres.stop();
    let (_, before) = call(&http, Method::GET, lab_url.clone(), Some(&ana), json!({})).await;
    let (status, reply) = upload(&http, &server, &lab, &ana, "ana_bot2", 2.5).await;
    assert_eq!(status, 503, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("the database is unavailable; nothing was changed"), "{message}");
    let (_, health) = call(&http, Method::GET, server.url("/api/health"), None, json!({})).await;
    assert!(health["database"].as_str().unwrap().starts_with("unavailable: "), "{health}");
    // Nothing changed, and the lab runs on: its clock advances with the database down.
    let step = before["step"].as_u64().unwrap();
    let advanced = async {
        loop {
            let (_, now) = call(&http, Method::GET, lab_url.clone(), Some(&ana), json!({})).await;
            if now["step"].as_u64().unwrap() > step {
                break now;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let after = tokio::time::timeout(common::PATIENCE, advanced).await.expect("the lab's clock advances");
    assert_eq!(robot_names(&after), robot_names(&before), "the refused robot is not in the lab");
    let mut with_the_second = robot_names(&before);
    with_the_second.push("ana_bot2".to_owned());
    with_the_second.sort();

    postgres.start_again();
    let (status, reply) = upload(&http, &server, &lab, &ana, "ana_bot2", 2.5).await;
    assert_eq!(status, 200, "the server connects again by itself: {reply}");
    let (_, health) = call(&http, Method::GET, server.url("/api/health"), None, json!({})).await;
    assert_eq!(health["database"], "ok", "{health}");
    let (_, now) = call(&http, Method::GET, lab_url.clone(), Some(&ana), json!({})).await;
    assert_eq!(robot_names(&now), with_the_second);
    // And it was kept: a restart brings both robots back.
    drop(server);
    let server = serve(&db.url, &dir.join("vlab.key"), &[]);
    let (_, restarted) = call(&http, Method::GET, server.url(&format!("/api/labs/{lab}")), Some(&ana), json!({})).await;
    assert_eq!(robot_names(&restarted), with_the_second);
    drop(server);
    drop(db);
    std::fs::remove_dir_all(&dir).unwrap();
}
