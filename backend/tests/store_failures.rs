//! A change is kept before it is acknowledged, and a change the store refuses is not
//! made: with the database refusing writes (as a full disk would), every request that
//! changes something answers 500 with a clear message, and the lab, its people and its
//! robots are exactly as before.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};
use vlab_backend::classroom::{Classroom, ClassroomConfig, DemoLab};
use vlab_backend::net::{self, AppState};
use vlab_backend::store::Store;

const KEY: &str = "store-failure-key";

struct Server {
    base: String,
    state: Arc<AppState>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Server {
    async fn start(db: &Path) -> Server {
        let mut classroom =
            Classroom::new(ClassroomConfig { store: Some(Store::open(db).unwrap()), ..ClassroomConfig::default() });
        let demo =
            classroom.open_demo(DemoLab { instructor_token: Some(KEY.into()), seed: 1, start_running: false }).unwrap();
        classroom.set_server_key(demo.instructor_token);
        let state = Arc::new(AppState { classroom, web_dir: std::env::temp_dir().join("vlab-no-web-dir") });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (shutdown, stop) = tokio::sync::oneshot::channel::<()>();
        let served = Arc::clone(&state);
        tokio::spawn(async move {
            net::serve(listener, served, async {
                let _ = stop.await;
            })
            .await
            .unwrap();
        });
        Server { base, state, shutdown: Some(shutdown) }
    }

    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (u16, Value) {
        let mut request = reqwest::Client::new().request(method, format!("{}{path}", self.base));
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

    async fn add_robot(&self, token: &str, name: &str) -> (u16, Value) {
        let description =
            format!("robot {name} {{ body {{ {name}_chassis {{ shape box(0.3, 0.1, 0.2); pos(3, 0.2, 3); }} }} }}");
        let response = reqwest::Client::new()
            .post(format!("{}/api/labs/demo/robots", self.base))
            .bearer_auth(token)
            .body(description)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        self.state.classroom.shut_down();
    }
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
    use reqwest::Method;
    let db = temp_db("store-failures");
    let server = Server::start(&db).await;
    let (_, lab) = server.call(Method::GET, "/api/labs/demo", Some(KEY), None).await;
    let code = lab["join_code"].as_str().unwrap().to_owned();
    let (status, joined) =
        server.call(Method::POST, "/api/join", None, Some(json!({"join_code": code, "name": "Ana"}))).await;
    assert_eq!(status, 200, "{joined}");
    let ana = joined["token"].as_str().unwrap().to_owned();
    let (status, reply) = server.add_robot(&ana, "ana_bot").await;
    assert_eq!(status, 200, "{reply}");

    refuse_writes(&db);
    let people_before = server.call(Method::GET, "/api/labs/demo/participants", None, None).await;
    let lab_before = server.call(Method::GET, "/api/labs/demo", Some(KEY), None).await;

    // A join: refused, and Bob is not in the lab (his token would mean nothing).
    let (status, reply) =
        server.call(Method::POST, "/api/join", None, Some(json!({"join_code": code, "name": "Bob"}))).await;
    assert_eq!(status, 500, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("could not be saved") && message.contains("nothing was changed"), "{message}");
    // A robot upload, a removal, a settings change: refused, nothing changed.
    let (status, reply) = server.add_robot(&ana, "ana_bot2").await;
    assert_eq!(status, 500, "{reply}");
    let (status, reply) = server.call(Method::DELETE, "/api/labs/demo/robots/ana_bot", Some(&ana), None).await;
    assert_eq!(status, 500, "{reply}");
    let (status, reply) =
        server.call(Method::PATCH, "/api/labs/demo/settings", Some(KEY), Some(json!({"robot_quota": 1}))).await;
    assert_eq!(status, 500, "{reply}");
    // A new lab: refused, and not listed.
    let (status, reply) = server.call(Method::POST, "/api/labs", Some(KEY), Some(json!({"name": "Physics"}))).await;
    assert_eq!(status, 500, "{reply}");

    assert_eq!(server.call(Method::GET, "/api/labs/demo/participants", None, None).await, people_before);
    let lab_after = server.call(Method::GET, "/api/labs/demo", Some(KEY), None).await;
    assert_eq!(lab_after.1["robots"], lab_before.1["robots"], "no robot added, none removed");
    assert_eq!(lab_after.1["settings"], lab_before.1["settings"]);
    let (_, labs) = server.call(Method::GET, "/api/labs", None, None).await;
    assert_eq!(labs.as_array().unwrap().len(), 1, "{labs}");
    drop(server);
    std::fs::remove_dir_all(db.parent().unwrap()).unwrap();
}

#[tokio::test]
async fn an_upload_the_lab_refuses_is_not_kept_for_the_restart() {
    use reqwest::Method;
    let db = temp_db("store-refused-upload");
    {
        let server = Server::start(&db).await;
        let (status, reply) = server.add_robot(KEY, "teacher_bot").await;
        assert_eq!(status, 200, "{reply}");
        // Kept first, then refused by the lab (the name is taken): taken back.
        let (status, reply) = server.add_robot(KEY, "teacher_bot").await;
        assert_eq!(status, 409, "{reply}");
        let (status, _) = server.call(Method::GET, "/api/labs/demo", None, None).await;
        assert_eq!(status, 200);
    }
    let store = Store::open(&db).unwrap();
    assert_eq!(store.insertions("demo").unwrap().len(), 1, "only the accepted upload is kept");
    std::fs::remove_dir_all(db.parent().unwrap()).unwrap();
}
