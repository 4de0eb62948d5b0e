//! Robots through the real server: inspecting one over HTTP, driving it by hand through
//! its actuators (instructor only, all or nothing, clear errors), and watching its
//! sensor stream over a websocket.

use crate::common;

use common::{Received, TOKEN, TestServer};
use serde_json::Value;
use vlab_protocol::{ClientMsg, ControlAction, ErrorCode, RobotReport, SensorValue, ServerMsg};

async fn post_actuators(server: &TestServer, robot: &str, token: Option<&str>, body: &str) -> (u16, Value) {
    let mut request =
        server.http.post(server.url(&format!("/api/labs/demo/robots/{robot}/actuators"))).body(body.to_owned());
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

async fn report(server: &TestServer, robot: &str) -> RobotReport {
    let (status, body) = server.get_json(&format!("/api/labs/demo/robots/{robot}")).await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_value(body).unwrap()
}

#[tokio::test]
async fn a_robot_report_has_its_true_pose_and_every_sensor_stamped_with_sim_time() {
    let server = TestServer::start(false).await;
    server.control("demo", ControlAction::Step { steps: 48 }).await;
    let robot = report(&server, "rover_red").await;
    assert_eq!((robot.name.as_str(), robot.step), ("rover_red", 48));
    assert!((robot.time - 48.0 / 240.0).abs() < 1e-12);
    let names: Vec<&str> = robot.sensors.iter().map(|s| s.name.as_str()).collect();
    for expected in ["gps", "compass", "accelerometer", "lidar", "bumper", "keyboard", "encoder_0", "odometry"] {
        assert!(names.contains(&expected), "{expected} missing from {names:?}");
    }
    for sensor in &robot.sensors {
        let (step, time) = (sensor.step.unwrap(), sensor.time.unwrap());
        assert!(step <= 48, "{}: step {step}", sensor.name);
        assert!((time - step as f64 / 240.0).abs() < 1e-12, "{}: time {time} at step {step}", sensor.name);
        if let Some(rate) = sensor.rate {
            // A reading at most one period old.
            assert!(48.0 / 240.0 - time <= 1.0 / rate + 1e-9, "{} is stale", sensor.name);
        }
        assert!(sensor.measured.is_some() && sensor.truth.is_some(), "{}", sensor.name);
    }
    // The GPS reads where the robot's main body is (noise 0): the report's true pose.
    let gps = robot.sensors.iter().find(|s| s.name == "gps").unwrap();
    let Some(SensorValue::Vector { values }) = gps.truth else { panic!("{gps:?}") };
    let moved = report(&server, "rover_red").await; // paused: the same step
    assert_eq!(moved.step, 48);
    if gps.step == Some(48) {
        assert!(values.iter().zip(robot.pose.position).all(|(a, b)| (a - b).abs() < 1e-6));
    }
    let mut actuators: Vec<&str> = robot.actuators.iter().map(|a| a.name.as_str()).collect();
    actuators.sort_unstable();
    assert_eq!(actuators, ["drive", "motor_0", "motor_2"]);

    let (status, body) = server.get_json("/api/labs/demo/robots/nobody").await;
    assert_eq!(status, 404);
    assert_eq!(body["error"]["code"], "not_found");
    assert!(body["error"]["message"].as_str().unwrap().contains("nobody"));
}

#[tokio::test]
async fn the_instructor_drives_a_robot_by_hand_and_the_wheels_follow() {
    let server = TestServer::start(false).await;
    let (status, body) =
        post_actuators(&server, "rover_red", Some(TOKEN), r#"{"motor_0": {"speed": -3}, "motor_2": {"speed": -3}}"#)
            .await;
    assert_eq!(status, 200, "{body}");
    let robot: RobotReport = serde_json::from_value(body).unwrap();
    assert_eq!(actuator(&robot, "motor_0").command, vlab_protocol::ActuatorCommand::Speed { speed: -3.0 });
    server.control("demo", ControlAction::Step { steps: 240 }).await;
    let robot = report(&server, "rover_red").await;
    for motor in [actuator(&robot, "motor_0"), actuator(&robot, "motor_2")] {
        let velocity = motor.joint.unwrap().velocity;
        assert!((velocity + 3.0).abs() < 0.3, "{} turns at {velocity} rad/s", motor.name);
        assert!(!motor.stalled, "{}", motor.name);
    }
    // Through the drive: spin in place (v = 0), wheels opposite.
    let (status, body) = post_actuators(&server, "rover_red", Some(TOKEN), r#"{"drive": {"v": 0, "omega": 1}}"#).await;
    assert_eq!(status, 200, "{body}");
    let robot: RobotReport = serde_json::from_value(body).unwrap();
    let speeds: Vec<f64> = [actuator(&robot, "motor_0"), actuator(&robot, "motor_2")]
        .iter()
        .map(|a| match a.command {
            vlab_protocol::ActuatorCommand::Speed { speed } => speed,
            other => panic!("{other:?}"),
        })
        .collect();
    assert!((speeds[0] + speeds[1]).abs() < 1e-9 && speeds[0].abs() > 0.5, "{speeds:?}");
    let heading_before = robot.pose.heading;
    server.control("demo", ControlAction::Step { steps: 240 }).await;
    let after = report(&server, "rover_red").await;
    let turned = (after.pose.heading - heading_before).sin();
    assert!(turned > 0.3, "ω = +1 turns counter-clockwise seen from above: turned sin = {turned}");
}

#[tokio::test]
async fn hand_commands_are_refused_clearly_and_change_nothing() {
    let server = TestServer::start(false).await;
    let speed = |report: &RobotReport| actuator(report, "motor_0").command;
    let before = speed(&report(&server, "rover_red").await);

    let (status, body) = post_actuators(&server, "rover_red", None, r#"{"motor_0": {"speed": 1}}"#).await;
    assert_eq!((status, body["error"]["code"].as_str()), (401, Some("unauthorized")), "{body}");
    let (status, body) = post_actuators(&server, "rover_red", Some("guess"), r#"{"motor_0": {"speed": 1}}"#).await;
    assert_eq!(status, 401, "{body}");

    // One good command and one bad: neither is applied.
    let (status, body) =
        post_actuators(&server, "rover_red", Some(TOKEN), r#"{"motor_0": {"speed": 1}, "motor_2": {"position": 1}}"#)
            .await;
    assert_eq!(status, 422, "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("'motor_2' is a SimpleMotor") && message.contains("speed"), "{message}");
    assert_eq!(speed(&report(&server, "rover_red").await), before);

    let (status, body) = post_actuators(&server, "rover_red", Some(TOKEN), r#"{"warp_drive": {"speed": 1}}"#).await;
    assert_eq!(status, 422, "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("warp_drive") && message.contains("drive, motor_0, motor_2"), "{message}");

    for (body, expected) in [
        ("not json", 400),
        ("{}", 400),
        (r#"{"motor_0": {"speed": "fast"}}"#, 422),
        (r#"{"motor_0": {"speed": 1, "boost": true}}"#, 422),
        (r#"{"drive": {}}"#, 422),
    ] {
        let (status, reply) = post_actuators(&server, "rover_red", Some(TOKEN), body).await;
        assert_eq!(status, expected, "{body}: {reply}");
        assert!(reply["error"]["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    let (status, _) = post_actuators(&server, "nobody", Some(TOKEN), r#"{"m": {"speed": 1}}"#).await;
    assert_eq!(status, 404);
    assert_eq!(speed(&report(&server, "rover_red").await), before);
}

#[tokio::test]
async fn a_websocket_subscription_streams_a_robots_readings_as_the_lab_runs() {
    let server = TestServer::start(false).await;
    let mut client = server.connect("demo", None).await;
    client.join_sequence().await;
    client.send(&ClientMsg::Subscribe { robot: "rover_blue".into() }).await;
    // At once, even though the lab is paused.
    let first = client.until(robot_report).await;
    assert_eq!((first.name.as_str(), first.step), ("rover_blue", 0));

    server.control("demo", ControlAction::Resume).await;
    let mut steps = vec![first.step];
    while steps.len() < 4 {
        let report = client.until(robot_report).await;
        assert_eq!(report.name, "rover_blue", "only the robot subscribed to");
        steps.push(report.step);
    }
    assert!(steps.windows(2).all(|w| w[0] <= w[1]) && steps[3] > steps[0], "{steps:?}");
    server.control("demo", ControlAction::Pause).await;

    client.send(&ClientMsg::Subscribe { robot: "ghost".into() }).await;
    let error = client.until(error_reply).await;
    assert_eq!(error.0, ErrorCode::NotFound);
    assert!(error.1.contains("ghost"));
}

#[tokio::test]
async fn keys_reach_the_keyboard_sensor_only_from_who_may_drive() {
    let server = TestServer::start(false).await;
    let mut viewer = server.connect("demo", None).await;
    viewer.join_sequence().await;
    viewer.send(&ClientMsg::Keys { robot: "rover_red".into(), keys: vec!["I".into()] }).await;
    let (code, _) = viewer.until(error_reply).await;
    assert_eq!(code, ErrorCode::Unauthorized, "no session: refused as over HTTP");

    let mut instructor = server.connect("demo", Some(TOKEN)).await;
    instructor.join_sequence().await;
    instructor.send(&ClientMsg::Subscribe { robot: "rover_red".into() }).await;
    instructor.until(robot_report).await;
    instructor.send(&ClientMsg::Keys { robot: "rover_red".into(), keys: vec!["i".into(), "ArrowUp".into()] }).await;
    let held = instructor.until(|r| robot_report(r).filter(|report| !report.keys.is_empty())).await;
    assert_eq!(held.keys, ["ARROWUP", "I"]);
    server.control("demo", ControlAction::Step { steps: 1 }).await;
    let robot = report(&server, "rover_red").await;
    let keyboard = robot.sensors.iter().find(|s| s.name == "keyboard").unwrap();
    assert_eq!(keyboard.measured, Some(SensorValue::Keys { keys: vec!["ARROWUP".into(), "I".into()] }));
    assert_eq!(keyboard.step, Some(1));

    let too_many: Vec<String> = (0..40).map(|i| format!("K{i}")).collect();
    instructor.send(&ClientMsg::Keys { robot: "rover_red".into(), keys: too_many }).await;
    let (code, message) = instructor.until(error_reply).await;
    assert_eq!(code, ErrorCode::InvalidArgument, "{message}");
}

fn actuator<'a>(robot: &'a RobotReport, name: &str) -> &'a vlab_protocol::ActuatorReport {
    robot.actuators.iter().find(|a| a.name == name).unwrap_or_else(|| panic!("no actuator {name}"))
}

fn robot_report(received: &Received) -> Option<RobotReport> {
    match received {
        Received::Json(ServerMsg::Robot(report)) => Some(report.clone()),
        _ => None,
    }
}

fn error_reply(received: &Received) -> Option<(ErrorCode, String)> {
    match received {
        Received::Json(ServerMsg::Error(body)) => Some((body.code, body.message.clone())),
        _ => None,
    }
}

#[tokio::test]
async fn keys_arrive_in_the_order_sent_and_are_released_when_the_page_goes() {
    let server = TestServer::start(false).await;
    let mut instructor = server.connect("demo", Some(TOKEN)).await;
    instructor.join_sequence().await;
    for i in 0..30 {
        let keys = if i % 2 == 0 { vec!["A".to_owned(), format!("K{i}")] } else { vec![] };
        instructor.send(&ClientMsg::Keys { robot: "rover_green".into(), keys }).await;
    }
    instructor.send(&ClientMsg::Keys { robot: "rover_green".into(), keys: vec!["Z".into()] }).await;
    // The pong comes after the server has read (and queued) every message before it.
    instructor.send(&ClientMsg::Ping { nonce: 7 }).await;
    instructor.until(|r| matches!(r, Received::Json(ServerMsg::Pong { nonce: 7 })).then_some(())).await;
    assert_eq!(report(&server, "rover_green").await.keys, ["Z"], "the last keys sent win");

    drop(instructor);
    let deadline = std::time::Instant::now() + common::PATIENCE;
    while !report(&server, "rover_green").await.keys.is_empty() {
        assert!(std::time::Instant::now() < deadline, "the keys of a closed page were never released");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}
