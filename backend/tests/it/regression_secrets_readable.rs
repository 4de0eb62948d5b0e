//! Symptoms: the SQLite file (session tokens, instructor tokens, the server key,
//! students' programs) was world-readable and held every token in clear; the
//! instructor's link (`?token=…`) could leave the page in a `Referer` header. The
//! database is now the server user's alone and holds digests of tokens only, the key
//! is in a private key file, and every answer says `Referrer-Policy: no-referrer`.

use crate::common;

use common::TestServer;
use vlab_server::store::Store;

#[cfg(unix)]
#[test]
fn the_database_is_readable_by_the_server_user_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("vlab-private-db-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("vlab.db");
    // Even a file an operator created world-readable beforehand.
    std::fs::write(&db, b"").unwrap();
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
    let store = Store::open(&db).unwrap();
    drop(store);
    let mode = std::fs::metadata(&db).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "mode {mode:o}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn no_answer_sends_the_page_address_to_other_sites() {
    let server = TestServer::start(false).await;
    for path in ["/", "/api/labs", "/api/labs/demo", "/api/no-such-endpoint", "/assets/materials.json"] {
        let response = server.http.get(server.url(path)).send().await.unwrap();
        let policy = response.headers().get("referrer-policy").map(|v| v.to_str().unwrap().to_owned());
        assert_eq!(policy.as_deref(), Some("no-referrer"), "{path}");
    }
}

/// Symptom: the database held session tokens, instructor tokens and the server key in
/// clear: whoever read the file (or a backup of it) could act as any of them. It now
/// holds their digests only; the server key is in a key file of its own, private.
#[cfg(unix)]
#[tokio::test]
async fn the_database_holds_no_token_anybody_could_use() {
    use std::os::unix::fs::PermissionsExt;
    use vlab_server::store::key_file_of;
    let dir = std::env::temp_dir().join(format!("vlab-hashed-tokens-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("vlab.db");
    let key = "server-key-in-clear-nowhere";
    let http = reqwest::Client::new();
    let tokens = {
        let server = common::binary::VlabProcess::start(&db, &["--paused", "--instructor-token", key]);
        let created: serde_json::Value = http
            .post(server.url("/api/labs"))
            .bearer_auth(key)
            .json(&serde_json::json!({ "name": "Physics" }))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let instructor = created["instructor_token"].as_str().unwrap().to_owned();
        let join = serde_json::json!({ "join_code": created["join_code"], "name": "Ana" });
        let joined: serde_json::Value =
            http.post(server.url("/api/join")).json(&join).send().await.unwrap().json().await.unwrap();
        let student = joined["token"].as_str().unwrap().to_owned();
        vec![key.to_owned(), instructor, student]
    };
    let bytes = std::fs::read(&db).unwrap();
    for token in &tokens {
        let found = bytes.windows(token.len()).any(|w| w == token.as_bytes());
        assert!(!found, "the database file holds {token}");
    }
    // Every token still works after a restart.
    let server = common::binary::VlabProcess::start(&db, &["--paused"]);
    let labs: serde_json::Value = http.get(server.url("/api/labs")).send().await.unwrap().json().await.unwrap();
    let physics = labs.as_array().unwrap().iter().find(|l| l["name"] == "Physics").unwrap()["id"].clone();
    let physics = physics.as_str().unwrap();
    let role = |token: &str| {
        let request = http.get(server.url(&format!("/api/labs/{physics}"))).bearer_auth(token);
        async move { request.send().await.unwrap().json::<serde_json::Value>().await.unwrap()["join_code"].clone() }
    };
    assert!(role(&tokens[1]).await.is_string(), "the instructor's token still opens their lab");
    let created = http.post(server.url("/api/labs")).bearer_auth(key).json(&serde_json::json!({ "name": "P2" }));
    assert_eq!(created.send().await.unwrap().status().as_u16(), 201, "the server key still creates labs");
    let robot = "robot ana_bot { body { ana_hull { shape box(0.3, 0.1, 0.2); pos(2, 0.3, 4); } } }";
    let upload = http.post(server.url(&format!("/api/labs/{physics}/robots"))).bearer_auth(&tokens[2]).body(robot);
    assert_eq!(upload.send().await.unwrap().status().as_u16(), 200, "the student's session still holds");
    let wrong = http.post(server.url(&format!("/api/labs/{physics}/robots"))).bearer_auth("not-a-token").body(robot);
    assert_eq!(wrong.send().await.unwrap().status().as_u16(), 401);
    drop(server);
    // The key is where `vlab key` finds it, and only the server's user reads it.
    let mode = std::fs::metadata(key_file_of(&db)).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "key file mode {mode:o}");
    let printed =
        std::process::Command::new(env!("CARGO_BIN_EXE_vlab")).args(["key", "--db"]).arg(&db).output().unwrap();
    assert!(String::from_utf8_lossy(&printed.stdout).contains(&format!("server key (creates labs): {key}")));
    // A key file that does not match the database is refused, not printed.
    std::fs::write(key_file_of(&db), "edited\n").unwrap();
    let printed =
        std::process::Command::new(env!("CARGO_BIN_EXE_vlab")).args(["key", "--db"]).arg(&db).output().unwrap();
    assert!(!printed.status.success());
    assert!(String::from_utf8_lossy(&printed.stderr).contains("not the demo lab's token"), "{printed:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
