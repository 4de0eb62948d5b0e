//! Symptom: a student's robot placed beside the lab's floor (a mistyped `pos`) was
//! accepted and fell for as long as the lab ran: it cost the lab's thread, and its
//! owner saw nothing but a robot that was never there. It is now refused, saying where
//! it would stand and where the floor is, and nothing changes.

use crate::common;

use common::TestServer;
use vlab_protocol::ControlAction;

fn robot_at(name: &str, x: f64, z: f64) -> String {
    format!("robot {name} {{ body {{ {name}_base {{ shape box(0.2, 0.1, 0.2); pos({x}, 0.1, {z}); }} }} }}")
}

#[tokio::test]
async fn a_robot_beside_the_floor_is_refused_and_one_on_it_goes_in() {
    let server = TestServer::start(false).await;
    server.control("demo", ControlAction::Pause).await;
    let ana = server.join_demo("Ana").await;
    let before = server.lab_state("demo").await["robots"].clone();

    let (status, reply) = server.add_demo_robots(&ana, robot_at("lost", -3.0, 2.0)).await;
    assert_eq!(status, 422, "{reply}");
    let message = reply["errors"][0]["message"].as_str().unwrap();
    assert!(
        message.contains("robot 'lost' would stand at x -3.00, z 2.00, over nothing fixed")
            && message.contains("the lab's floor spans x 0 to 12 and z 0 to 12"),
        "{message}"
    );
    assert_eq!(server.lab_state("demo").await["robots"], before, "nothing inserted");

    let (status, reply) = server.add_demo_robots(&ana, robot_at("found", 2.0, 3.0)).await;
    assert_eq!(status, 200, "{reply}");
}
