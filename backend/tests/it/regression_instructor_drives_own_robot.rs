//! Regression: the instructor adds a robot through `/robots`, then sends keyboard keys
//! for it: "Forbidden: only the owner of 'teacher_bot' drives it with the keyboard",
//! while the page shows them the keyboard control.
//!
//! A robot the instructor added is the lab's own, and its owner is the instructor: they
//! hold its keys as they hold those of the scene's robots. A student's robot is still
//! driven by its owner alone.

use crate::common;

use common::{Client, Received, TOKEN, TestServer};
use serde_json::{Value, json};
use vlab_protocol::{ClientMsg, ErrorCode, ServerMsg};

/// A robot `name` at (x, 3) with a keyboard.
fn robot(name: &str, x: f64) -> String {
    format!(
        r#"robot {name} {{ body {{
             {name}_body {{ shape box(0.3, 0.1, 0.2); pos({x}, 0.15, 3); SimpleGPS gps; }}
             {name}_wheel {{ shape cylinder(0.05, 0.02); pos({x}, 0.05, 3.12); }}
             JointHinge({name}_body, {name}_wheel) {{ anchor({x}, 0.05, 3.12); axis(0, 0, 1);
               SimpleMotor motor {{ speed 0; }} }}
             Keyboard keyboard;
           }} }}"#
    )
}

/// `POST /api/labs/demo/robots` with `token`.
async fn add_robot(server: &TestServer, token: &str, name: &str, x: f64) {
    let response = server
        .http
        .post(server.url("/api/labs/demo/robots"))
        .bearer_auth(token)
        .body(robot(name, x))
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let reply: Value = response.json().await.unwrap();
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["robots"], json!([name]));
}

async fn join(server: &TestServer, name: &str) -> String {
    let body = json!({ "join_code": "DEMOCODE", "name": name });
    let reply: Value =
        server.http.post(server.url("/api/labs/demo/join")).json(&body).send().await.unwrap().json().await.unwrap();
    reply["token"].as_str().expect("a session token").to_owned()
}

async fn connect(server: &TestServer, token: &str) -> Client {
    let mut client = server.connect("demo", Some(token)).await;
    client.join_sequence().await;
    client
}

#[tokio::test]
async fn the_instructor_drives_the_robot_they_added_with_the_keyboard() {
    let server = TestServer::start(false).await;
    add_robot(&server, TOKEN, "teacher_bot", 2.0).await;
    let mut instructor = connect(&server, TOKEN).await;
    instructor.send(&ClientMsg::Subscribe { robot: "teacher_bot".into() }).await;
    instructor.send(&ClientMsg::Keys { robot: "teacher_bot".into(), keys: vec!["W".into()] }).await;
    let report = instructor
        .until(|received| match received {
            Received::Json(ServerMsg::Error(refused)) => {
                panic!("the instructor's keys for their own robot were refused: {refused:?}")
            }
            Received::Json(ServerMsg::Robot(report)) if report.name == "teacher_bot" && !report.keys.is_empty() => {
                Some(report.clone())
            }
            _ => None,
        })
        .await;
    assert_eq!(report.keys, ["W"]);
}

#[tokio::test]
async fn the_instructor_still_may_not_send_keys_to_a_students_robot() {
    let server = TestServer::start(false).await;
    let ana = join(&server, "Ana").await;
    add_robot(&server, &ana, "ana_bot", 2.0).await;
    let mut instructor = connect(&server, TOKEN).await;
    instructor.send(&ClientMsg::Keys { robot: "ana_bot".into(), keys: vec!["W".into()] }).await;
    let refused = instructor
        .until(|received| match received {
            Received::Json(ServerMsg::Error(body)) => Some(body.clone()),
            _ => None,
        })
        .await;
    assert_eq!(refused.code, ErrorCode::Forbidden, "{refused:?}");
    assert!(refused.message.contains("ana_bot"), "names the robot: {refused:?}");
    // Nothing held: Ana's robot reads no keys.
    let report: Value =
        server.http.get(server.url("/api/labs/demo/robots/ana_bot")).send().await.unwrap().json().await.unwrap();
    assert_eq!(report["keys"], json!([]), "{report}");
}
