//! Symptom: the instructor moved a robot half into a wall, and it was launched 2.7 m up
//! and across the room; moved to x = 1e6, it was accepted and fell forever. A move that
//! would sink into another body, or stand over nothing fixed, is now refused with where
//! it would fit (or where the floor is), and the robot stays where it was.

use serde_json::{Value, json};
use vlab_protocol::ControlAction;

use crate::common::{TOKEN, TestServer};

async fn move_rover(server: &TestServer, position: [f64; 3]) -> (u16, String) {
    let response = server
        .http
        .post(server.url("/api/labs/demo/objects/rover_red/move"))
        .bearer_auth(TOKEN)
        .json(&json!({ "position": position }))
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

async fn pose(server: &TestServer) -> Value {
    server.get_json("/api/labs/demo/robots/rover_red").await.1["pose"].clone()
}

#[tokio::test]
async fn a_move_into_a_wall_or_off_the_floor_is_refused_and_the_robot_stays() {
    let server = TestServer::start(false).await;
    server.control("demo", ControlAction::Pause).await;
    let before = pose(&server).await;

    let (status, body) = move_rover(&server, [0.05, 0.1, 6.0]).await;
    assert_eq!(status, 422, "half into the west wall: {body}");
    assert!(
        body.contains("robot 'rover_red' at x 0.05, z 6.00 would sink") && body.contains("into 'wall_west'"),
        "{body}"
    );
    assert!(body.contains("it would fit at x "), "{body}");
    assert_eq!(pose(&server).await, before, "the robot did not move");

    let (status, body) = move_rover(&server, [1e6, 0.1, 6.0]).await;
    assert_eq!(status, 422, "a million metres away: {body}");
    assert!(body.contains("over nothing fixed"), "{body}");
    assert_eq!(pose(&server).await, before, "the robot did not move");

    let (status, body) = move_rover(&server, [1.0, 0.1, 6.0]).await;
    assert_eq!(status, 204, "inside the room, clear of everything: {body}");
    server.control("demo", ControlAction::Step { steps: 240 }).await;
    let y = pose(&server).await["position"][1].as_f64().unwrap();
    assert!((y - 0.1).abs() < 0.05, "it stands where it was put: y {y}");
}
