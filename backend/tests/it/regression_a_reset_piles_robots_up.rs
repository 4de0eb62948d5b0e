//! Symptom (a first lesson, three students): every upload of the course robot got the
//! same start, (0.8, 0.8), picked by each page from where robots were *then*; that spot
//! was in the strip behind the arena's fence; after the teacher's Reset the three robots
//! stood on each other. A description that writes `{x}` and `{z}` now has the lab choose
//! the start: clear of every robot where it is and where it starts, of walls and fences
//! by the free floor asked for, chosen again when another upload took it meanwhile.

use crate::common;

use common::{TOKEN, TestServer};
use serde_json::Value;
use vlab_protocol::ControlAction;
use vlab_server::scene::{MapLoader, Options, SceneModel, interpret};

/// The course robot as the page's template writes it: its start left to the lab.
const TEMPLATE: &str = "include \"diffbot_robot.vlab\";\ncall diffbot(\"{suffix}\", {x}, {z}, 0);\n";
/// Where the arena's fence stands, along X: the strip west of it is floor, not room.
const FENCE_X: f64 = 1.2;

/// A 6 m room with a fence 1.2 m inside its west wall.
fn arena() -> SceneModel {
    let source = "environment wallrect { width 6; length 6; height 0.5; gravity -9.81; }\n\
                  static fence { shape box(0.05, 0.3, 6); pos(1.2, 0.15, 3); }";
    interpret(source, "arena.vlab", &MapLoader::new(), &Options::default()).unwrap().model
}

async fn upload(server: &TestServer, token: &str, query: &str, description: &str) -> (u16, Value) {
    let url = server.url(&format!("/api/labs/demo/robots{query}"));
    let response = server.http.post(url).bearer_auth(token).body(description.to_owned()).send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

async fn position(server: &TestServer, robot: &str) -> [f64; 3] {
    let url = server.url(&format!("/api/labs/demo/robots/{robot}"));
    let report: Value = server.http.get(url).bearer_auth(TOKEN).send().await.unwrap().json().await.unwrap();
    let p = &report["pose"]["position"];
    [0, 1, 2].map(|i| p[i].as_f64().unwrap_or_else(|| panic!("{robot}: {report}")))
}

fn apart(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

#[tokio::test]
async fn three_students_uploading_at_once_start_apart_and_a_reset_keeps_them_apart() {
    let server = TestServer::start_with(arena(), true).await;
    let mut tokens = Vec::new();
    for name in ["Ana", "Bob", "Cleo"] {
        tokens.push(server.join_demo(name).await);
    }
    let uploads = tokens.iter().map(|token| upload(&server, token, "", TEMPLATE));
    let answers = futures_util::future::join_all(uploads).await;

    let mut starts = Vec::new();
    for ((status, reply), robot) in answers.iter().zip(["diffbot_ana", "diffbot_bob", "diffbot_cleo"]) {
        assert_eq!(*status, 200, "{reply}");
        assert_eq!(reply["robots"], serde_json::json!([robot]), "named after the student: {reply}");
        let start = &reply["start"];
        let (x, z) = (start["x"].as_f64().unwrap(), start["z"].as_f64().unwrap());
        assert_eq!(start["clearance_m"], 0.75, "the free floor a robot gets unasked: {reply}");
        assert!(x - 0.75 >= FENCE_X, "{robot} starts in the room, clear of the fence: {reply}");
        starts.push((robot, [x, 0.0, z]));
    }
    for (i, (a, at)) in starts.iter().enumerate() {
        for (b, bt) in &starts[i + 1..] {
            assert!(apart(*at, *bt) >= 0.9, "{a} at {at:?} and {b} at {bt:?} start too close");
        }
    }

    // The teacher resets: each robot goes back to its own start, none on another.
    server.control("demo", ControlAction::Reset).await;
    for (robot, start) in &starts {
        let now = position(&server, robot).await;
        assert!(apart(now, *start) < 0.05, "{robot} is back at {start:?}: {now:?}");
    }
}

#[tokio::test]
async fn an_example_on_disk_asks_for_its_free_floor_and_a_bad_ask_is_refused() {
    let server = TestServer::start_with(common::yard(), false).await;
    let ana = server.join_demo("Ana").await;
    let on_disk = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/examples/go_to_goal/robot.vlab"),
    )
    .unwrap();
    let (status, reply) = upload(&server, &ana, "?clearance_m=2.5", &on_disk).await;
    assert_eq!(status, 200, "the file as it is on disk: {reply}");
    assert_eq!(reply["robots"], serde_json::json!(["diffbot_ana"]));
    assert_eq!((reply["start"]["clearance_m"].as_f64(), reply["start"]["asked_m"].as_f64()), (Some(2.5), Some(2.5)));

    // A second one asking for more than the yard has left gets the most there is, and is told.
    let bob = server.join_demo("Bob").await;
    let (status, reply) = upload(&server, &bob, "?clearance_m=5", &on_disk).await;
    assert_eq!(status, 200, "{reply}");
    let given = reply["start"]["clearance_m"].as_f64().unwrap();
    assert!(given < 5.0, "{reply}");
    let warning = reply["warnings"][0]["message"].as_str().unwrap();
    assert!(warning.contains("no spot of the lab's floor has 5.00 m of free floor"), "{warning}");

    for ask in ["6", "-1", "wide"] {
        let (status, reply) = upload(&server, &bob, &format!("?clearance_m={ask}"), &on_disk).await;
        assert_eq!(status, 400, "{ask}: {reply}");
        assert!(reply["error"]["message"].as_str().unwrap().contains("clearance_m is the free floor"), "{reply}");
    }
    let robots = server.lab_state("demo").await["robots"].clone();
    assert_eq!(robots.as_array().unwrap().iter().filter(|r| r.as_str().unwrap().starts_with("diffbot_")).count(), 2);
}

#[tokio::test]
async fn a_robot_description_sent_as_text_is_named_as_the_page_s_tab_and_a_scene_is_told_where_it_goes() {
    let server = TestServer::start_with(common::yard(), false).await;
    let ana = server.join_demo("Ana").await;
    let (status, reply) =
        upload(&server, &ana, "", "include \"diffbot_robot.vlab\";\ncall diffbot(\"{suffix}\", {x});\n").await;
    assert_eq!(status, 422, "{reply}");
    assert_eq!(reply["errors"][0]["file"], "robot.vlab", "the name the Add-robot form's tab shows: {reply}");

    // The same robot sent as a scene: its placeholders are only filled for a robot.
    let response =
        server.http.post(server.url("/api/labs/demo/scene")).bearer_auth(TOKEN).body(TEMPLATE).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 422);
    let reply: Value = response.json().await.unwrap();
    let error = &reply["errors"][0];
    assert_eq!((error["line"].as_u64(), error["col"].as_u64()), (Some(2), Some(15)), "{reply}");
    assert!(error["message"].as_str().unwrap().starts_with("{suffix} is filled in when a robot is added"), "{reply}");
}
