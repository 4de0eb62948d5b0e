//! Moving a robot's start: `POST .../robots/{robot}/start` by its owner or the
//! instructor. A reset (the robot's or the lab's) puts it there from then on; a start on
//! another robot, where another robot starts, in a wall or off the floor is refused with
//! where it would fit, and changes nothing; nobody else may move it.

use crate::common;

use common::{TOKEN, TestServer};
use serde_json::{Value, json};
use vlab_protocol::ControlAction;
use vlab_server::scene::{MapLoader, Options, SceneModel, interpret};

/// A 6 m room, empty.
fn room() -> SceneModel {
    let source = "environment wallrect { width 6; length 6; height 0.5; gravity -9.81; }";
    interpret(source, "room.vlab", &MapLoader::new(), &Options::default()).unwrap().model
}

/// The course robot of `suffix`, starting at (`x`, `z`) facing +X.
fn diffbot(suffix: &str, x: f64, z: f64) -> String {
    format!("include \"diffbot_robot.vlab\";\ncall diffbot(\"{suffix}\", {x}, {z}, 0);\n")
}

async fn set_start(server: &TestServer, token: Option<&str>, robot: &str, body: Value) -> (u16, Value) {
    let mut request = server.http.post(server.url(&format!("/api/labs/demo/robots/{robot}/start"))).json(&body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (status, if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap() })
}

async fn reset(server: &TestServer, token: &str, robot: &str) {
    let url = server.url(&format!("/api/labs/demo/robots/{robot}/reset"));
    let response = server.http.post(url).bearer_auth(token).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200, "{}", response.text().await.unwrap());
}

/// Where robot `robot` is, `[x, z]`, and its heading.
async fn pose(server: &TestServer, robot: &str) -> ([f64; 2], f64) {
    let (_, report) = server.get_json(&format!("/api/labs/demo/robots/{robot}")).await;
    let p = &report["pose"]["position"];
    ([p[0].as_f64().unwrap(), p[2].as_f64().unwrap()], report["pose"]["heading"].as_f64().unwrap())
}

fn near(a: [f64; 2], b: [f64; 2]) -> bool {
    (a[0] - b[0]).hypot(a[1] - b[1]) < 0.05
}

#[tokio::test]
async fn a_student_moves_her_robot_s_start_and_every_reset_puts_it_there() {
    let server = TestServer::start_with(room(), false).await;
    let ana = server.join_demo("Ana").await;
    let (status, reply) = server.add_demo_robots(&ana, diffbot("_ana", 1.5, 1.5)).await;
    assert_eq!(status, 200, "{reply}");

    let (status, reply) =
        set_start(&server, Some(&ana), "diffbot_ana", json!({"position": [4, 0.05, 4], "heading": 1.5})).await;
    assert_eq!(status, 204, "{reply}");
    let (now, _) = pose(&server, "diffbot_ana").await;
    assert!(near(now, [1.5, 1.5]), "the robot stays where it is until a reset: {now:?}");

    reset(&server, &ana, "diffbot_ana").await;
    let (now, heading) = pose(&server, "diffbot_ana").await;
    assert!(near(now, [4.0, 4.0]), "its own reset: {now:?}");
    assert!((heading - 1.5).abs() < 0.01, "turned as asked: {heading}");

    // The instructor moves it back to where it stood; the lab's reset uses that start.
    let (status, reply) = set_start(&server, Some(TOKEN), "diffbot_ana", json!({"position": [2, 0.05, 3]})).await;
    assert_eq!(status, 204, "{reply}");
    server.control("demo", ControlAction::Reset).await;
    let (now, heading) = pose(&server, "diffbot_ana").await;
    assert!(near(now, [2.0, 3.0]), "the lab's reset: {now:?}");
    assert!((heading - 1.5).abs() < 0.01, "no heading given: the start's stays: {heading}");
}

#[tokio::test]
async fn a_start_where_another_robot_starts_is_refused_with_where_it_would_fit() {
    let server = TestServer::start_with(room(), false).await;
    let ana = server.join_demo("Ana").await;
    let bob = server.join_demo("Bob").await;
    assert_eq!(server.add_demo_robots(&ana, diffbot("_ana", 1.5, 1.5)).await.0, 200);
    assert_eq!(server.add_demo_robots(&bob, diffbot("_bob", 4.0, 4.0)).await.0, 200);
    // Bob's robot drives away; where it starts stays taken.
    let (status, _) = set_start(&server, Some(&bob), "diffbot_bob", json!({"position": [4, 0.05, 4]})).await;
    assert_eq!(status, 204);
    let move_bob = json!({"position": [4.5, 0.1, 1.5]});
    let url = server.url("/api/labs/demo/objects/diffbot_bob/move");
    assert_eq!(server.http.post(url).bearer_auth(TOKEN).json(&move_bob).send().await.unwrap().status().as_u16(), 204);

    let (status, reply) = set_start(&server, Some(&ana), "diffbot_ana", json!({"position": [4.05, 0.05, 4]})).await;
    assert_eq!(status, 422, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("the start of robot 'diffbot_ana' at x 4.05, z 4.00 would sink"), "{message}");
    assert!(message.contains("into robot 'diffbot_bob' where it starts"), "{message}");
    let (x, z) = common::offered_spot(&reply).unwrap_or_else(|| panic!("no spot offered: {message}"));

    reset(&server, &ana, "diffbot_ana").await;
    assert!(near(pose(&server, "diffbot_ana").await.0, [1.5, 1.5]), "a refusal changes nothing");

    let (status, reply) = set_start(&server, Some(&ana), "diffbot_ana", json!({"position": [x, 0.05, z]})).await;
    assert_eq!(status, 204, "where it was told it would fit: {reply}");
    reset(&server, &ana, "diffbot_ana").await;
    assert!(near(pose(&server, "diffbot_ana").await.0, [x, z]));
}

#[tokio::test]
async fn a_start_in_a_wall_or_off_the_floor_is_refused() {
    let server = TestServer::start_with(room(), false).await;
    let ana = server.join_demo("Ana").await;
    assert_eq!(server.add_demo_robots(&ana, diffbot("_ana", 1.5, 1.5)).await.0, 200);
    let (status, reply) = set_start(&server, Some(&ana), "diffbot_ana", json!({"position": [0.02, 0.05, 3]})).await;
    assert_eq!(status, 422, "{reply}");
    assert!(reply["error"]["message"].as_str().unwrap().contains("into 'wall"), "{reply}");
    let (status, reply) = set_start(&server, Some(&ana), "diffbot_ana", json!({"position": [-3, 0.05, 3]})).await;
    assert_eq!(status, 422, "{reply}");
    assert!(reply["error"]["message"].as_str().unwrap().contains("over nothing fixed"), "{reply}");
}

#[tokio::test]
async fn only_its_owner_and_the_instructor_may_move_a_start_and_bad_requests_say_why() {
    let server = TestServer::start_with(room(), false).await;
    let ana = server.join_demo("Ana").await;
    let bob = server.join_demo("Bob").await;
    assert_eq!(server.add_demo_robots(&ana, diffbot("_ana", 1.5, 1.5)).await.0, 200);
    let to = json!({"position": [3, 0.05, 3]});

    let (status, reply) = set_start(&server, Some(&bob), "diffbot_ana", to.clone()).await;
    assert_eq!(status, 403, "{reply}");
    assert!(reply["error"]["message"].as_str().unwrap().contains("move its start"), "{reply}");
    assert_eq!(set_start(&server, None, "diffbot_ana", to.clone()).await.0, 401);
    assert_eq!(set_start(&server, Some(&ana), "nobody", to.clone()).await.0, 404);
    for bad in [json!({"position": [3, 0.05]}), json!({"position": [3, 0, 3], "speed": 1}), json!({"heading": 1})] {
        let (status, reply) = set_start(&server, Some(&ana), "diffbot_ana", bad.clone()).await;
        assert_eq!(status, 400, "{bad}: {reply}");
    }
    reset(&server, &ana, "diffbot_ana").await;
    assert!(near(pose(&server, "diffbot_ana").await.0, [1.5, 1.5]), "nothing refused changed it");
}
