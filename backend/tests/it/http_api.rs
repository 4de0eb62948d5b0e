//! The HTTP API against a real server: health, lab listing, time control and its
//! permissions, and clear errors for bad requests.

use crate::common;

use common::{TOKEN, TestServer};
use vlab_protocol::{ControlAction, LabMode, Rate};

#[tokio::test]
async fn health_and_lab_listing_answer() {
    let server = TestServer::start(true).await;
    let (status, health) = server.get_json("/api/health").await;
    assert_eq!(status, 200);
    assert_eq!(health["ok"], true);
    assert!(health["version"].is_string());

    let (status, labs) = server.get_json("/api/labs").await;
    assert_eq!(status, 200);
    let ids: Vec<&str> = labs.as_array().unwrap().iter().map(|l| l["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["demo", "empty", "other"]);

    let demo = server.lab_state("demo").await;
    assert_eq!(demo["name"], "Lab demo");
    assert_eq!(demo["mode"], "running");
    assert_eq!(demo["bodies"], 50);
    assert_eq!(demo["robots"].as_array().unwrap().len(), 3);
    assert!(demo["time"].is_number() && demo["step"].is_number());
}

#[tokio::test]
async fn pause_then_step_10_advances_exactly_10() {
    let server = TestServer::start(true).await;
    let paused = server.control("demo", ControlAction::Pause).await;
    assert_eq!(paused.mode, LabMode::Paused);
    let before = server.lab_state("demo").await;
    assert_eq!(before["step"], paused.step);

    let stepped = server.control("demo", ControlAction::Step { steps: 10 }).await;
    assert_eq!(stepped.step, paused.step + 10);
    assert_eq!(stepped.mode, LabMode::Paused);
    let after = server.lab_state("demo").await;
    assert_eq!(after["step"].as_u64().unwrap(), paused.step + 10);
    assert_eq!(after["mode"], "paused");
    let expected_time = (paused.step + 10) as f64 * stepped.dt_secs;
    assert!((after["time"].as_f64().unwrap() - expected_time).abs() < 1e-9);
}

#[tokio::test]
async fn a_paused_lab_stays_on_its_step() {
    let server = TestServer::start(true).await;
    let paused = server.control("demo", ControlAction::Pause).await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(server.lab_state("demo").await["step"].as_u64().unwrap(), paused.step);
}

#[tokio::test]
async fn resume_rate_and_reset_take_effect() {
    let server = TestServer::start(false).await;
    let state = server.control("demo", ControlAction::Rate { rate: Rate::Max }).await;
    assert_eq!(state.rate, Rate::Max);
    assert_eq!(state.mode, LabMode::Paused, "changing the rate does not start the clock");
    server.control("demo", ControlAction::Resume).await;
    let deadline = std::time::Instant::now() + common::PATIENCE;
    while server.lab_state("demo").await["step"].as_u64().unwrap() < 100 {
        assert!(std::time::Instant::now() < deadline, "the lab never advanced");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let state = server.control("demo", ControlAction::Rate { rate: Rate::RealTime(0.5) }).await;
    assert_eq!(state.rate, Rate::RealTime(0.5));
    assert_eq!(server.lab_state("demo").await["rate"], 0.5);

    let reset = server.control("demo", ControlAction::Reset).await;
    assert_eq!((reset.step, reset.epoch, reset.mode), (0, 1, LabMode::Paused));
    assert_eq!(server.lab_state("demo").await["step"], 0);
}

#[tokio::test]
async fn time_control_needs_the_instructor_token() {
    let server = TestServer::start(false).await;
    let pause = r#"{"action":"pause"}"#;
    let (status, body) = server.control_raw("demo", None, pause).await;
    assert_eq!(status, 401, "{body}");
    assert_eq!(body["error"]["code"], "unauthorized");
    assert!(body["error"]["message"].as_str().unwrap().contains("instructor"));

    let (status, body) = server.control_raw("demo", Some("not-the-token"), pause).await;
    assert_eq!(status, 401, "{body}");

    let (status, _) = server.control_raw("demo", Some(TOKEN), pause).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn bad_commands_get_clear_errors_and_change_nothing() {
    let server = TestServer::start(false).await;
    let before = server.lab_state("demo").await;
    let cases = [
        ("not json", 400, "bad_request"),
        (r#"{"action":"fly"}"#, 400, "bad_request"),
        (r#"{"action":"step"}"#, 400, "bad_request"),
        (r#"{"action":"step","steps":0}"#, 422, "invalid_argument"),
        (r#"{"action":"step","steps":100001}"#, 422, "invalid_argument"),
        (r#"{"action":"rate","rate":50}"#, 422, "invalid_argument"),
        (r#"{"action":"rate","rate":"fast"}"#, 400, "bad_request"),
    ];
    for (body, status, code) in cases {
        let (got_status, reply) = server.control_raw("demo", Some(TOKEN), body).await;
        assert_eq!(got_status, status, "{body} → {reply}");
        assert_eq!(reply["error"]["code"], code, "{body} → {reply}");
        assert!(!reply["error"]["message"].as_str().unwrap().is_empty());
    }
    let after = server.lab_state("demo").await;
    assert_eq!(before["step"], after["step"]);
    assert_eq!(before["rate"], after["rate"]);
}

#[tokio::test]
async fn unknown_labs_and_endpoints_are_404_with_a_reason() {
    let server = TestServer::start(false).await;
    let (status, body) = server.get_json("/api/labs/nowhere").await;
    assert_eq!(status, 404);
    assert!(body["error"]["message"].as_str().unwrap().contains("nowhere"));
    let (status, _) = server.control_raw("nowhere", Some(TOKEN), r#"{"action":"pause"}"#).await;
    assert_eq!(status, 404);
    let (status, body) = server.get_json("/api/teleport").await;
    assert_eq!(status, 404);
    assert_eq!(body["error"]["code"], "not_found");
}

#[tokio::test]
async fn labs_keep_their_own_clocks() {
    let server = TestServer::start(false).await;
    server.control("demo", ControlAction::Step { steps: 30 }).await;
    assert_eq!(server.lab_state("demo").await["step"], 30);
    assert_eq!(server.lab_state("other").await["step"], 0);
}

#[tokio::test]
async fn without_a_built_app_the_root_page_says_how_to_build_it() {
    let server = TestServer::start(false).await;
    let response = server.http.get(server.url("/")).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 503);
    assert!(response.text().await.unwrap().contains("cargo xtask web"));
}
