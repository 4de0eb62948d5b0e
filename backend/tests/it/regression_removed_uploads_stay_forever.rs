//! Symptom: a student uploaded a robot with a 3.8 MB mesh (new content each time),
//! removed it, and did it again 36 times: the server's memory went from 157 to 289 MB
//! and the database from 124 to 262 MB, and start-up took twice as long, because a
//! removed upload's files stayed in memory and every upload and removal was done again
//! at every start. Now a removed robot's upload leaves memory and the store, and the
//! database file gives the space back.

use crate::common;

use common::Client;
use common::binary::VlabProcess;
use rand::Rng;
use serde_json::{Value, json};
use vlab_protocol::{PROTOCOL_VERSION, ServerMsg};
use vlab_server::store::Store;

const KEY: &str = "removed-uploads-key";
const MESH_BYTES: usize = 1024 * 1024;
const ROUNDS: usize = 24;
/// Rounds whose resident memory is compared: the median of the first window against
/// the median of the last. One sample swings by a few MiB as the allocator's arenas
/// fill and empty; a median of several does not, while a kept mesh would add
/// `MESH_BYTES` every round between the windows.
const WINDOW: usize = 6;
/// glibc's allocator for the server under test: every block of 64 KiB or more in its
/// own mapping, given back to the system when freed. By default glibc raises that
/// threshold after the first large free, so 1 MiB meshes then come from its arenas,
/// which keep freed memory and swing the resident size by several MiB (more, the
/// more threads took a turn): noise on exactly what this test measures. A mesh kept
/// after its robot left stays resident either way.
const LARGE_BLOCKS_MAPPED: (&str, &str) = ("MALLOC_MMAP_THRESHOLD_", "65536");

/// A valid OBJ triangle followed by `MESH_BYTES` of fresh random comment: every round
/// uploads content the server has never seen.
fn fresh_mesh() -> Vec<u8> {
    let mut rng = rand::rng();
    let mut obj = String::from("v 0 0 0\nv 0.3 0 0\nv 0 0.1 0\nf 1 2 3\n");
    while obj.len() < MESH_BYTES {
        obj.push_str(&format!("# {:032x}\n", rng.random::<u128>()));
    }
    obj.into_bytes()
}

fn database_bytes(db: &std::path::Path) -> u64 {
    let wal = db.with_extension("db-wal");
    std::fs::metadata(db).unwrap().len() + std::fs::metadata(wal).map(|m| m.len()).unwrap_or(0)
}

#[tokio::test]
async fn a_robot_uploaded_and_removed_again_and_again_leaves_nothing_behind() {
    let dir = std::env::temp_dir().join(format!("vlab-removed-uploads-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("vlab.db");
    let http = reqwest::Client::new();
    let ana_token = {
        let server = VlabProcess::start_with_env(&db, &["--paused", "--instructor-token", KEY], &[LARGE_BLOCKS_MAPPED]);
        let lab: Value =
            http.get(server.url("/api/labs/demo")).bearer_auth(KEY).send().await.unwrap().json().await.unwrap();
        let join = json!({ "join_code": lab["join_code"], "name": "Ana" });
        let joined: Value =
            http.post(server.url("/api/labs/demo/join")).json(&join).send().await.unwrap().json().await.unwrap();
        let ana = joined["token"].as_str().unwrap().to_owned();
        let (socket, _) =
            tokio_tungstenite::connect_async(server.ws_url(&format!("/ws/labs/demo?protocol={PROTOCOL_VERSION}")))
                .await
                .unwrap();
        let mut viewer = Client::new(socket);

        let (mut with_robot, mut without_robot) = (Vec::new(), Vec::new());
        let mut memory = Vec::new();
        for round in 0..ROUNDS {
            let description = "robot ana_bot { body { ana_hull { shape mesh(\"hull.mesh\", 1); \
                               customgeom box(0.3, 0.1, 0.2); pos(2, 0.3, 4); } } }";
            let form = reqwest::multipart::Form::new()
                .part("description", reqwest::multipart::Part::text(description).file_name("ana.vlab"))
                .part("hull.obj", reqwest::multipart::Part::bytes(fresh_mesh()).file_name("hull.obj"));
            let response =
                http.post(server.url("/api/labs/demo/robots")).bearer_auth(&ana).multipart(form).send().await.unwrap();
            let status = response.status().as_u16();
            assert_eq!(status, 200, "round {round}: {}", response.text().await.unwrap());
            let url = viewer
                .until(|received| match received {
                    common::Received::Json(ServerMsg::Snapshot(s)) => s
                        .bodies
                        .iter()
                        .find(|b| b.name == "ana_hull")
                        .and_then(|b| b.parts[0].mesh.as_ref())
                        .map(|mesh| mesh.url.clone()),
                    _ => None,
                })
                .await;
            let served = http.get(server.url(&url)).send().await.unwrap();
            assert_eq!(served.status().as_u16(), 200, "round {round}: the mesh is served while the robot is there");
            with_robot.push(database_bytes(&db));

            let removed =
                http.delete(server.url("/api/labs/demo/robots/ana_bot")).bearer_auth(&ana).send().await.unwrap();
            assert!(removed.status().is_success(), "round {round}: {}", removed.status());
            let gone = http.get(server.url(&url)).send().await.unwrap();
            assert_eq!(gone.status().as_u16(), 404, "round {round}: a removed robot's mesh leaves the server");
            without_robot.push(database_bytes(&db));
            memory.push(server.resident_bytes());
        }
        for round in 0..ROUNDS {
            assert!(
                without_robot[round] + (MESH_BYTES as u64) / 2 < with_robot[round],
                "round {round}: removing the robot gives the file its space back: {with_robot:?} → {without_robot:?}"
            );
        }
        assert!(
            without_robot[ROUNDS - 1] <= without_robot[0] + 64 * 1024,
            "the file does not grow round after round: {without_robot:?}"
        );
        // The windows are ROUNDS - WINDOW - 2 rounds apart: a 1 MiB mesh kept each
        // round would be 16 MiB more; the medians' noise is far less.
        let median = |window: &[u64]| {
            let mut sorted = window.to_vec();
            sorted.sort_unstable();
            sorted[sorted.len() / 2]
        };
        let (early, late) = (median(&memory[2..2 + WINDOW]), median(&memory[ROUNDS - WINDOW..]));
        let grown = late.saturating_sub(early);
        println!("resident bytes after each round: {memory:?}; medians {early} → {late}");
        assert!(grown < 5 * MESH_BYTES as u64, "memory grew {grown} bytes between windows: {memory:?}");
        ana
    };

    let store = Store::open(&db).unwrap();
    assert!(store.insertions("demo").unwrap().is_empty(), "nothing is left to do again at start-up");
    drop(store);
    // And after a restart Ana is still in, with her whole budget.
    let server = VlabProcess::start(&db, &["--paused", "--instructor-token", KEY]);
    let lab: Value = http.get(server.url("/api/labs/demo")).send().await.unwrap().json().await.unwrap();
    assert!(!lab["robots"].as_array().unwrap().iter().any(|r| r == "ana_bot"), "{lab}");
    let again = http
        .post(server.url("/api/labs/demo/robots"))
        .bearer_auth(&ana_token)
        .body("robot ana_bot { body { ana_hull { shape box(0.3, 0.1, 0.2); pos(2, 0.3, 4); } } }")
        .send()
        .await
        .unwrap();
    assert_eq!(again.status().as_u16(), 200);
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}
