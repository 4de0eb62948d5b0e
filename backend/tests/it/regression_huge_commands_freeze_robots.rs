//! Symptom: `{"speed": 1e300}` sent to a motor was accepted (NaN and infinity were
//! refused, but a finite value past 32-bit floats became infinity): the robot froze,
//! even after a reset. A command number past ±1e9 is now refused by name, and nothing
//! changes.

use crate::common;

use common::{TOKEN, TestServer};
use serde_json::Value;

async fn post(server: &TestServer, body: &str) -> (u16, Value) {
    let response = server
        .http
        .post(server.url("/api/labs/demo/robots/rover_red/actuators"))
        .bearer_auth(TOKEN)
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

fn speed(report: &Value) -> Value {
    report["actuators"].as_array().unwrap().iter().find(|a| a["name"] == "motor_0").unwrap()["command"].clone()
}

#[tokio::test]
async fn commands_past_the_limit_are_refused_by_name_and_change_nothing() {
    let server = TestServer::start(false).await;
    let (status, before) = post(&server, r#"{"motor_0": {"speed": 1e9}}"#).await;
    assert_eq!(status, 200, "the limit itself is accepted: {before}");
    for body in [r#"{"motor_0": {"speed": 1e300}}"#, r#"{"motor_0": {"speed": -1.5e9}}"#, r#"{"drive": {"v": 1e39}}"#] {
        let (status, reply) = post(&server, body).await;
        assert_eq!(status, 422, "{body}: {reply}");
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(message.contains("between -1e9 and 1e9"), "{message}");
        let (_, report) = server.get_json("/api/labs/demo/robots/rover_red").await;
        assert_eq!(speed(&report), speed(&before), "{body} changed nothing");
    }
}
