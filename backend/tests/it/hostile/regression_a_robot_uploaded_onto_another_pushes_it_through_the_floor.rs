//! Symptom: a student uploaded a heavy one-body robot at another robot's position. It
//! was accepted, and the physics threw the two apart: the other robot was pushed through
//! the floor (y −284 m after 8 s) and fell forever. An upload that would sink into
//! another body, where it is now or where it starts, is now refused with the nearest
//! spot where it would fit, and nothing changes; put there, it goes in.

use serde_json::Value;
use vlab_protocol::ControlAction;

use crate::common::{TOKEN, TestServer};

/// A heavy one-body robot (a 0.6 m cube of lead) at `x`, `z`.
fn heavy_robot(name: &str, x: f64, z: f64) -> String {
    format!(
        "robot {name} {{ body {{ {name}_base {{ shape box(0.6, 0.6, 0.6); pos({x}, 0.3, {z}); density 11000; }} }} }}"
    )
}

async fn position(server: &TestServer, robot: &str) -> [f64; 3] {
    let (status, report) = server.get_json(&format!("/api/labs/demo/robots/{robot}")).await;
    assert_eq!(status, 200, "{report}");
    serde_json::from_value(report["pose"]["position"].clone()).unwrap()
}

/// The spot a refusal offers: "... it would fit at x 1.25, z 3.00".
fn offered_spot(message: &str) -> (f64, f64) {
    let (_, spot) = message.rsplit_once("it would fit at x ").unwrap_or_else(|| panic!("no spot offered: {message}"));
    let (x, z) = spot.split_once(", z ").unwrap();
    (x.parse().unwrap(), z.trim_end_matches(|c: char| !c.is_ascii_digit()).parse().unwrap())
}

#[tokio::test]
async fn a_robot_uploaded_onto_another_is_refused_with_where_it_would_fit() {
    let server = TestServer::start(false).await;
    server.control("demo", ControlAction::Pause).await;
    let ana = server.join_demo("Ana").await;
    let red = position(&server, "rover_red").await;
    let robots_before: Value = server.lab_state("demo").await["robots"].clone();

    let (status, reply) = server.add_demo_robots(&ana, heavy_robot("anvil", red[0], red[2])).await;
    assert_eq!(status, 422, "an upload onto another robot is refused: {reply}");
    let message = reply["errors"][0]["message"].as_str().unwrap();
    assert!(message.contains("robot 'anvil' at x 3.00, z 3.00 would sink"), "{message}");
    assert!(message.contains("into robot 'rover_red'"), "{message}");
    assert_eq!(server.lab_state("demo").await["robots"], robots_before, "nothing inserted");

    let (x, z) = offered_spot(message);
    let (status, reply) = server.add_demo_robots(&ana, heavy_robot("anvil", x, z)).await;
    assert_eq!(status, 200, "put where the refusal said, it goes in: {reply}");
    server.control("demo", ControlAction::Step { steps: 1920 }).await;
    let after = position(&server, "rover_red").await;
    assert!((after[1] - red[1]).abs() < 0.05, "rover_red still stands on the floor: {red:?} -> {after:?}");
}

#[tokio::test]
async fn a_robot_uploaded_where_another_starts_is_refused_so_a_reset_never_stacks_them() {
    let server = TestServer::start(false).await;
    server.control("demo", ControlAction::Pause).await;
    let ana = server.join_demo("Ana").await;
    let bob = server.join_demo("Bob").await;
    let (status, reply) = server.add_demo_robots(&ana, heavy_robot("ana_box", 6.0, 3.0)).await;
    assert_eq!(status, 200, "{reply}");
    // The instructor moves it away: where it starts stays taken, for the next reset.
    let moved = serde_json::json!({ "position": [6.0, 0.3, 8.0] });
    let response = server
        .http
        .post(server.url("/api/labs/demo/objects/ana_box/move"))
        .bearer_auth(TOKEN)
        .json(&moved)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 204, "{}", response.text().await.unwrap());

    let (status, reply) = server.add_demo_robots(&bob, heavy_robot("bob_box", 6.0, 3.0)).await;
    assert_eq!(status, 422, "where Ana's robot starts is taken, though it stands elsewhere now: {reply}");
    let message = reply["errors"][0]["message"].as_str().unwrap();
    assert!(message.contains("into robot 'ana_box' where it starts"), "{message}");
}
