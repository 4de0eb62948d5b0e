//! Symptom: a student's robot of 10,000 bodies was accepted, and that lab fell to 0.07×
//! real time for as long as it stayed (quotas counted robots, not bodies). A student's
//! robot now has at most `MAX_ROBOT_ELEMENTS` elements (bodies, parts, joints, sensors,
//! actuators), and a lab at most `MAX_LAB_BODIES` bodies, whoever inserts them.

use crate::common;

use common::{TOKEN, TestServer};
use vlab_server::classroom::upload::{MAX_LAB_BODIES, MAX_ROBOT_ELEMENTS};

/// A robot named `name` of `bodies` one-part boxes (each body and its part count two),
/// in rows of 60 from `(x, z)` on, 15 cm apart, in layers of 60 rows: 4,990 boxes
/// cover 9 m by 9 m of the floor, two layers high.
fn robot_of(name: &str, bodies: usize, (x, z): (f64, f64)) -> String {
    format!(
        "robot {name} {{ body {{ for i in {{0>{bodies}}} {{ id:[\"{name}_\" . string(i)] {{ shape box(0.1, 0.1, 0.1); \
         pos({x} + mod(i, 60) * 0.15, 0.06 + floor(i / 3600) * 0.12, {z} + mod(floor(i / 60), 60) * 0.15); }} }} }} }}"
    )
}

/// Where the big robots go: the empty yard's floor, clear of its walls.
const CORNER: (f64, f64) = (1.5, 1.5);

#[tokio::test]
async fn a_students_robot_stops_at_its_element_limit() {
    let server = TestServer::start_with(common::yard(), false).await;
    let ana = server.join_demo("Ana").await;
    let before = server.lab_state("demo").await["bodies"].clone();

    let (status, reply) = server.add_demo_robots(&ana, robot_of("huge", 10_000, CORNER)).await;
    assert_eq!(status, 422, "{reply}");
    let message = reply["errors"][0]["message"].as_str().unwrap();
    assert!(message.contains("'huge' has 20000 elements") && message.contains("at most 300"), "{message}");
    assert_eq!(server.lab_state("demo").await["bodies"], before, "nothing inserted");

    // At the limit (150 boxes: 300 elements) it goes in; one more box does not.
    assert_eq!(MAX_ROBOT_ELEMENTS, 300);
    let (status, reply) = server.add_demo_robots(&ana, robot_of("edge", 150, CORNER)).await;
    assert_eq!(status, 200, "{reply}");
    let (status, reply) = server.add_demo_robots(&ana, robot_of("over", 151, (1.5, 3.0))).await;
    assert_eq!(status, 422, "{reply}");
    assert!(reply["errors"][0]["message"].as_str().unwrap().contains("'over' has 302 elements"), "{reply}");
}

#[tokio::test]
async fn a_lab_stops_at_its_body_limit_even_for_the_instructor() {
    let server = TestServer::start_with(common::yard(), false).await;
    let have = server.lab_state("demo").await["bodies"].as_u64().unwrap() as usize;
    // The instructor has no element limit per robot, but the lab has room for
    // MAX_LAB_BODIES bodies in all.
    let room = MAX_LAB_BODIES - have;
    let (status, reply) = server.add_demo_robots(TOKEN, robot_of("fills", room, CORNER)).await;
    assert_eq!(status, 200, "exactly up to the limit: {reply}");
    let (status, reply) = server.add_demo_robots(TOKEN, robot_of("one_more", 1, (0.5, 0.5))).await;
    assert_eq!(status, 422, "{reply}");
    let message = reply["errors"][0]["message"].as_str().unwrap();
    assert!(message.contains(&format!("at most {MAX_LAB_BODIES}")), "{message}");
}
