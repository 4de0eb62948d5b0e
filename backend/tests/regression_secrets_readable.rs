//! Symptoms: the SQLite file (session tokens, instructor tokens, students' programs) was
//! world-readable; the instructor's link (`?token=…`) could leave the page in a
//! `Referer` header. The database is now the server user's alone, and every answer says
//! `Referrer-Policy: no-referrer`.

mod common;

use common::TestServer;
use vlab_backend::store::Store;

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
