//! A change is kept before it is acknowledged, and a change the store refuses is not
//! made: with the database refusing writes (as a full disk would), every request that
//! changes something answers 500 with a clear message, and the lab, its people and its
//! robots are exactly as before.

use crate::common;

use std::path::{Path, PathBuf};

use common::TestServer;
use reqwest::Method;
use serde_json::{Value, json};
use vlab_server::classroom::{Classroom, ClassroomConfig, DemoLab};
use vlab_server::store::Store;

const KEY: &str = "store-failure-key";

/// The classroom `vlab serve` makes on database `db`, served on a free port.
async fn start(db: &Path) -> TestServer {
    let mut classroom =
        Classroom::new(ClassroomConfig { store: Some(Store::open(db).unwrap()), ..ClassroomConfig::default() });
    let demo = classroom
        .labs()
        .open_demo(DemoLab { instructor_token: Some(KEY.into()), seed: 1, start_running: false })
        .unwrap();
    classroom.set_server_key(demo.record.instructor);
    TestServer::serve(classroom).await
}

async fn call(
    server: &TestServer,
    method: Method,
    path: &str,
    token: Option<&str>,
    body: Option<Value>,
) -> (u16, Value) {
    let mut request = server.http.request(method, server.url(path));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (status, if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap() })
}

async fn add_robot(server: &TestServer, token: &str, name: &str) -> (u16, Value) {
    let describe = |x, z| {
        format!("robot {name} {{ body {{ {name}_chassis {{ shape box(0.3, 0.1, 0.2); pos({x}, 0.2, {z}); }} }} }}")
    };
    server.add_demo_robot_near(token, (1.0, 5.0), describe).await
}

/// Makes every write to the database fail from now on, through a second connection, as
/// a full disk would.
fn refuse_writes(db: &Path) {
    let connection = rusqlite::Connection::open(db).unwrap();
    for table in ["labs", "sessions", "insertions"] {
        connection
            .execute_batch(&format!(
                "CREATE TRIGGER refuse_insert_{table} BEFORE INSERT ON {table} BEGIN SELECT RAISE(FAIL, 'disk full'); END;
                 CREATE TRIGGER refuse_update_{table} BEFORE UPDATE ON {table} BEGIN SELECT RAISE(FAIL, 'disk full'); END;"
            ))
            .unwrap();
    }
}

fn temp_db(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("vlab-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("vlab.db");
    let _ = std::fs::remove_file(&db);
    db
}

#[tokio::test]
async fn a_store_that_refuses_writes_changes_nothing_and_says_so() {
    let db = temp_db("store-failures");
    let server = start(&db).await;
    let (_, lab) = call(&server, Method::GET, "/api/labs/demo", Some(KEY), None).await;
    let code = lab["join_code"].as_str().unwrap().to_owned();
    let (status, joined) =
        call(&server, Method::POST, "/api/join", None, Some(json!({"join_code": code, "name": "Ana"}))).await;
    assert_eq!(status, 200, "{joined}");
    let ana = joined["token"].as_str().unwrap().to_owned();
    let (status, reply) = add_robot(&server, &ana, "ana_bot").await;
    assert_eq!(status, 200, "{reply}");

    refuse_writes(&db);
    let people_before = call(&server, Method::GET, "/api/labs/demo/participants", None, None).await;
    let lab_before = call(&server, Method::GET, "/api/labs/demo", Some(KEY), None).await;

    // A join: refused, and Bob is not in the lab (his token would mean nothing).
    let (status, reply) =
        call(&server, Method::POST, "/api/join", None, Some(json!({"join_code": code, "name": "Bob"}))).await;
    assert_eq!(status, 500, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("could not be saved") && message.contains("nothing was changed"), "{message}");
    // A robot upload, a removal, a settings change: refused, nothing changed.
    let (status, reply) = add_robot(&server, &ana, "ana_bot2").await;
    assert_eq!(status, 500, "{reply}");
    let (status, reply) = call(&server, Method::DELETE, "/api/labs/demo/robots/ana_bot", Some(&ana), None).await;
    assert_eq!(status, 500, "{reply}");
    let (status, reply) =
        call(&server, Method::PATCH, "/api/labs/demo/settings", Some(KEY), Some(json!({"robot_quota": 1}))).await;
    assert_eq!(status, 500, "{reply}");
    // Removing Ana (her session and her robot's removal in one transaction) and a new
    // join code: refused; Ana, her robot and the code stay.
    let ana_id = joined["user"]["id"].as_u64().unwrap();
    let path = format!("/api/labs/demo/participants/{ana_id}");
    let (status, reply) = call(&server, Method::DELETE, &path, Some(KEY), None).await;
    assert_eq!(status, 500, "{reply}");
    let (status, reply) = call(&server, Method::GET, "/api/labs/demo", Some(&ana), None).await;
    assert_eq!(status, 200, "Ana's token still works: {reply}");
    let (status, reply) = call(&server, Method::POST, "/api/labs/demo/join-code", Some(KEY), None).await;
    assert_eq!(status, 500, "{reply}");
    // A new lab: refused, and not listed.
    let (status, reply) = call(&server, Method::POST, "/api/labs", Some(KEY), Some(json!({"name": "Physics"}))).await;
    assert_eq!(status, 500, "{reply}");

    assert_eq!(call(&server, Method::GET, "/api/labs/demo/participants", None, None).await, people_before);
    let lab_after = call(&server, Method::GET, "/api/labs/demo", Some(KEY), None).await;
    assert_eq!(lab_after.1["robots"], lab_before.1["robots"], "no robot added, none removed");
    assert_eq!(lab_after.1["settings"], lab_before.1["settings"]);
    assert_eq!(lab_after.1["join_code"], code.as_str(), "the code is unchanged");
    let (_, labs) = call(&server, Method::GET, "/api/labs", None, None).await;
    assert_eq!(labs.as_array().unwrap().len(), 1, "{labs}");
    drop(server);
    std::fs::remove_dir_all(db.parent().unwrap()).unwrap();
}

#[tokio::test]
async fn an_upload_the_lab_refuses_is_not_kept_for_the_restart() {
    let db = temp_db("store-refused-upload");
    {
        let server = start(&db).await;
        let (status, reply) = add_robot(&server, KEY, "teacher_bot").await;
        assert_eq!(status, 200, "{reply}");
        // Kept first, then refused by the lab (the name is taken): taken back.
        let (status, reply) = add_robot(&server, KEY, "teacher_bot").await;
        assert_eq!(status, 409, "{reply}");
        let (status, _) = call(&server, Method::GET, "/api/labs/demo", None, None).await;
        assert_eq!(status, 200);
    }
    let store = Store::open(&db).unwrap();
    assert_eq!(store.insertions("demo").unwrap().len(), 1, "only the accepted upload is kept");
    std::fs::remove_dir_all(db.parent().unwrap()).unwrap();
}
