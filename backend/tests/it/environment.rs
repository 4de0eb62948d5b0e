//! Changing the room of a running lab over real HTTP (`PATCH /api/labs/{lab}/environment`,
//! docs/classroom.md, "Changing the room of a running lab"): the instructor's alone; the
//! new walls stand for bodies and sensors and every page gets the new room; a change
//! that would leave a robot outside, or a value outside the language's limits, is refused
//! naming it and changes nothing; the room is kept through a restart and in the saved
//! scene.

use crate::common::{Client, Received, TOKEN, TestServer};

use serde_json::{Value, json};
use vlab_protocol::{RobotReport, RoomView, SensorValue, ServerMsg};
use vlab_server::classroom::{Classroom, ClassroomConfig, DemoLab};
use vlab_server::store::Store;

/// A lab of the library's `diffbot` scene (a 5 m × 5 m room, 1.5 m high, the robot
/// `diffbot` at x 1.5, z 2.5 facing +X); its id and instructor token.
async fn diffbot_lab(server: &TestServer, key: &str) -> (String, String) {
    let request = json!({ "name": "Rooms", "scene": "diffbot" });
    let response = server.http.post(server.url("/api/labs")).bearer_auth(key).json(&request).send().await.unwrap();
    let status = response.status().as_u16();
    let created: Value = response.json().await.unwrap();
    assert_eq!(status, 201, "{created}");
    (created["id"].as_str().unwrap().to_owned(), created["instructor_token"].as_str().unwrap().to_owned())
}

async fn send(request: reqwest::RequestBuilder, token: Option<&str>) -> (u16, Value) {
    let request = match token {
        Some(token) => request.bearer_auth(token),
        None => request,
    };
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

async fn change_room(server: &TestServer, lab: &str, token: Option<&str>, change: Value) -> (u16, Value) {
    send(server.http.patch(server.url(&format!("/api/labs/{lab}/environment"))).json(&change), token).await
}

async fn room(server: &TestServer, lab: &str) -> RoomView {
    let (status, body) = server.get_json(&format!("/api/labs/{lab}/environment")).await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_value(body).unwrap()
}

/// The distance straight ahead of robot `diffbot`, as its lidar saw it last (truth).
async fn range_ahead(server: &TestServer, lab: &str) -> f32 {
    let (status, body) = server.get_json(&format!("/api/labs/{lab}/robots/diffbot")).await;
    assert_eq!(status, 200, "{body}");
    let report: RobotReport = serde_json::from_value(body).unwrap();
    let lidar = report.sensors.iter().find(|s| s.name == "lidar").expect("a lidar");
    let Some(SensorValue::Scan { angle_min, angle_step, ranges, .. }) = &lidar.truth else { panic!("{lidar:?}") };
    let ahead = (-angle_min / angle_step).round() as usize;
    ranges[ahead]
}

async fn step(server: &TestServer, lab: &str, token: &str, steps: u32) {
    let body = json!({ "action": "step", "steps": steps }).to_string();
    let (status, answer) = server.control_raw(lab, Some(token), &body).await;
    assert_eq!(status, 200, "{answer}");
}

/// The next snapshot a page receives, skipping frames and other messages.
async fn next_snapshot(page: &mut Client) -> vlab_protocol::SceneSnapshot {
    page.until(|received| match received {
        Received::Json(ServerMsg::Snapshot(snapshot)) => Some(snapshot.clone()),
        _ => None,
    })
    .await
}

fn body<'a>(snapshot: &'a vlab_protocol::SceneSnapshot, name: &str) -> &'a vlab_protocol::BodyView {
    snapshot.bodies.iter().find(|b| b.name == name).unwrap_or_else(|| panic!("no body {name}"))
}

#[tokio::test]
async fn the_instructor_enlarges_the_room_pages_redraw_it_and_robots_and_sensors_meet_the_new_walls() {
    let server = TestServer::start(false).await;
    let (lab, instructor) = diffbot_lab(&server, TOKEN).await;
    let mut page = server.connect(&lab, None).await;
    let (_, before, _, _) = page.join_sequence().await;
    assert_eq!(body(&before, "wall_east").pose.position[0], 5.1);
    step(&server, &lab, &instructor, 48).await;
    let near = range_ahead(&server, &lab).await;
    assert!((near - 3.5).abs() < 0.1, "the old east wall, 3.5 m ahead: {near}");
    // Off the old floor, the robot may not go.
    let out_there = json!({ "position": [6.5, 0.05, 2.5], "heading": 0.0 });
    let move_url = server.url(&format!("/api/labs/{lab}/objects/diffbot/move"));
    let (status, refused) = send(server.http.post(&move_url).json(&out_there), Some(&instructor)).await;
    assert_eq!(status, 422, "{refused}");

    let (status, changed) =
        change_room(&server, &lab, Some(&instructor), json!({ "width": 8, "length": 6, "walls": "Steel" })).await;
    assert_eq!(status, 200, "{changed}");
    let changed: RoomView = serde_json::from_value(changed).unwrap();
    assert_eq!((changed.width, changed.length, changed.height, changed.walls.as_str()), (8.0, 6.0, 1.5, "Steel"));
    assert_eq!((changed.ground.as_str(), changed.kind.as_str()), ("Tiles", "room"), "what was left out stays");
    assert_eq!(room(&server, &lab).await, changed);

    // Every page gets the new room: a new epoch whose walls stand at the new size.
    let after = next_snapshot(&mut page).await;
    assert!(after.epoch > before.epoch);
    assert_eq!(after.bodies.len(), before.bodies.len(), "the same bodies, reshaped");
    assert_eq!(body(&after, "wall_east").pose.position[0], 8.1);
    assert_eq!(body(&after, "wall_north").pose.position[2], 6.1);
    assert_eq!(body(&after, "wall_east").parts[0].material.name, "Steel");

    // The lidar sees the new wall; the robot goes where the new floor is, and stands on it.
    step(&server, &lab, &instructor, 48).await;
    let far = range_ahead(&server, &lab).await;
    assert!((far - 6.5).abs() < 0.1, "the new east wall, 6.5 m ahead: {far}");
    let (status, moved) = send(server.http.post(&move_url).json(&out_there), Some(&instructor)).await;
    assert_eq!(status, 204, "{moved}");
    step(&server, &lab, &instructor, 240).await;
    let (_, report) = server.get_json(&format!("/api/labs/{lab}/robots/diffbot")).await;
    let report: RobotReport = serde_json::from_value(report).unwrap();
    let [x, y, _] = report.pose.position;
    assert!((x - 6.5).abs() < 0.05 && y > 0.0 && y < 0.1, "on the new floor: {:?}", report.pose.position);
    let near = range_ahead(&server, &lab).await;
    assert!((near - 1.5).abs() < 0.1, "the new east wall, 1.5 m ahead now: {near}");
}

#[tokio::test]
async fn a_room_shrunk_past_a_robot_is_refused_naming_it_and_nothing_changes() {
    let server = TestServer::start(false).await;
    let (lab, instructor) = diffbot_lab(&server, TOKEN).await;
    let before = room(&server, &lab).await;
    let (status, refused) =
        change_room(&server, &lab, Some(&instructor), json!({ "width": 1.2, "ground": "Wood" })).await;
    assert_eq!(status, 422, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("robot 'diffbot' at x 1.46, y 0.06, z 2.50 would be outside"), "{message}");
    assert!(message.contains("would be outside the new room (x 0 to 1.2, z 0 to 5, y 0 to 1.5)"), "{message}");
    assert_eq!(room(&server, &lab).await, before, "all or nothing: the floor's material stayed too");
    // The north wall between its deck and its right wheel.
    let (status, refused) = change_room(&server, &lab, Some(&instructor), json!({ "length": 2.57 })).await;
    assert_eq!(status, 422, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("robot 'diffbot' at x") && message.contains("z 0 to 2.57"), "{message}");
    assert_eq!(room(&server, &lab).await, before);
}

#[tokio::test]
async fn only_the_instructor_changes_the_room_and_everybody_reads_it() {
    let server = TestServer::start(false).await;
    let student = server.join_demo("Ana").await;
    let before = room(&server, "demo").await;
    assert_eq!((before.kind.as_str(), before.width, before.height), ("wallrect", 12.0, 0.8));
    let (status, refused) = change_room(&server, "demo", Some(&student), json!({ "width": 14 })).await;
    assert_eq!(status, 403, "{refused}");
    assert_eq!(refused["error"]["message"], "only the instructor of this lab may change the lab's room");
    let (status, refused) = change_room(&server, "demo", None, json!({ "width": 14 })).await;
    assert_eq!(status, 401, "{refused}");
    assert_eq!(
        refused["error"]["message"],
        "to change the lab's room you need the instructor's token (Authorization: Bearer <token>)"
    );
    assert_eq!(room(&server, "demo").await, before);
    // A lab whose scene declares no room has none to read or change.
    let (status, body) = server.get_json("/api/labs/empty/environment").await;
    assert_eq!(status, 404, "{body}");
    let (status, body) = change_room(&server, "empty", Some(TOKEN), json!({ "width": 14 })).await;
    assert_eq!(status, 422, "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("no room to change"), "{body}");
}

#[tokio::test]
async fn numbers_outside_the_languages_limits_are_refused_naming_the_field() {
    let server = TestServer::start(false).await;
    let before = room(&server, "demo").await;
    let refusals = [
        (json!({ "width": -3 }), 422, "width must be positive, got -3"),
        (json!({ "length": 0 }), 422, "length must be positive, got 0"),
        (json!({ "height": "NaN" }), 422, "height must be a number between -1e9 and 1e9, got NaN"),
        (json!({ "width": 2e9 }), 422, "width must be a number between -1e9 and 1e9, got 2e9"),
        (json!({ "gravity": "-inf" }), 422, "gravity must be a number between -1e9 and 1e9, got -inf"),
        (json!({ "ground": "Plaid" }), 422, "ground: there is no material 'Plaid' in the library"),
        (json!({ "width": "wide" }), 400, "'wide' is not a number"),
        (json!({ "widht": 14 }), 400, "unknown field `widht`"),
        (json!({}), 422, "nothing to change"),
    ];
    for (change, want, words) in refusals {
        let (status, body) = change_room(&server, "demo", Some(TOKEN), change.clone()).await;
        assert_eq!(status, want, "{change}: {body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(words), "{change}: {message}");
    }
    assert_eq!(room(&server, "demo").await, before, "nothing changed");
    // At the edge: the largest the language takes, then back.
    let (status, body) = change_room(&server, "demo", Some(TOKEN), json!({ "width": 1e9, "length": 1e9 })).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = change_room(&server, "demo", Some(TOKEN), json!({ "width": 12, "length": 12 })).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(room(&server, "demo").await, before);
}

/// A classroom on the database at `db`, as `vlab serve` opens it, served.
async fn serve_on(db: &std::path::Path, key: &str) -> TestServer {
    let store = Store::open(db).unwrap();
    let mut classroom = Classroom::new(ClassroomConfig { store: Some(store), ..ClassroomConfig::default() });
    let demo = classroom
        .labs()
        .open_demo(DemoLab { instructor_token: Some(key.into()), seed: 1, start_running: false })
        .unwrap();
    classroom.set_server_key(demo.record.instructor);
    assert_eq!(classroom.labs().restore().await.unwrap(), 0, "every kept change is done again");
    TestServer::serve(classroom).await
}

async fn saved_scene(server: &TestServer, lab: &str, token: &str) -> String {
    let url = server.url(&format!("/api/labs/{lab}/scene.vlab"));
    let response = server.http.get(url).bearer_auth(token).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    response.text().await.unwrap()
}

#[tokio::test]
async fn the_changed_room_outlives_a_restart_and_is_written_in_the_saved_scene() {
    let key = "environment-restart-key";
    let dir = std::env::temp_dir().join(format!("vlab-environment-restart-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("vlab.db");
    let _ = std::fs::remove_file(&db);
    let change = json!({ "width": 7, "length": 6.5, "height": 2, "ground": "Wood", "gravity": -3.7 });
    let (lab, instructor, changed) = {
        let server = serve_on(&db, key).await;
        let (lab, instructor) = diffbot_lab(&server, key).await;
        // A refused change leaves nothing kept behind.
        let (status, _) = change_room(&server, &lab, Some(&instructor), json!({ "width": 1 })).await;
        assert_eq!(status, 422);
        let (status, changed) = change_room(&server, &lab, Some(&instructor), change).await;
        assert_eq!(status, 200, "{changed}");
        let saved = saved_scene(&server, &lab, &instructor).await;
        assert!(saved.contains("environment room {\n  width 7; length 6.5; height 2;\n"), "{saved}");
        assert!(saved.contains("ground \"Wood\";") && saved.contains("gravity -3.7;"), "{saved}");
        (lab, instructor, serde_json::from_value::<RoomView>(changed).unwrap())
    };
    let server = serve_on(&db, key).await;
    assert_eq!(room(&server, &lab).await, changed, "rebuilt with the changed room");
    let mut page = server.connect(&lab, None).await;
    let (_, snapshot, _, _) = page.join_sequence().await;
    assert_eq!(body(&snapshot, "wall_east").pose.position[0], 7.1);
    assert_eq!(body(&snapshot, "ceiling").pose.position[1], 2.1);
    let saved = saved_scene(&server, &lab, &instructor).await;
    assert!(saved.contains("width 7; length 6.5; height 2;"), "{saved}");
    // The saved text makes a lab with the same room.
    let request = json!({ "name": "Again", "scene_source": saved });
    let response = server.http.post(server.url("/api/labs")).bearer_auth(key).json(&request).send().await.unwrap();
    let created: Value = response.json().await.unwrap();
    let again = created["id"].as_str().unwrap_or_else(|| panic!("{created}"));
    assert_eq!(room(&server, again).await, changed);
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}
