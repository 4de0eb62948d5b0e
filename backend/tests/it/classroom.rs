//! The classroom through the real server: creating labs, joining with a code, presence,
//! the permission matrix (every action × instructor / owner / other student / anonymous,
//! over HTTP and websocket), isolation between labs, and a rehearsal with 25 students.

use crate::common;

use common::{Client, Received, TOKEN, TestServer};
use reqwest::Method;
use serde_json::{Value, json};
use vlab_protocol::{ClientMsg, ControlAction, ErrorCode, LabMode, Participant, ServerMsg};

/// An HTTP request with an optional bearer token; the status and the JSON body (or
/// `null` for an empty one).
async fn call(server: &TestServer, method: Method, path: &str, token: Option<&str>, body: &str) -> (u16, Value) {
    let mut request = server.http.request(method, server.url(path)).body(body.to_owned());
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (status, if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap() })
}

/// Joins `lab` as `name`; returns the session token and the user id.
async fn join(server: &TestServer, lab: &str, code: &str, name: &str) -> (String, u32) {
    let body = json!({ "join_code": code, "name": name }).to_string();
    let (status, reply) = call(server, Method::POST, &format!("/api/labs/{lab}/join"), None, &body).await;
    assert_eq!(status, 200, "{reply}");
    (reply["token"].as_str().unwrap().to_owned(), reply["user"]["id"].as_u64().unwrap() as u32)
}

/// A small robot `name` at (x, z): a chassis with a GPS and a keyboard, a wheel on a
/// motored hinge with an encoder.
fn robot(name: &str, x: f64, z: f64) -> String {
    format!(
        r#"robot {name} {{ body {{
             {name}_body {{ shape box(0.3, 0.1, 0.2); pos({x}, 0.15, {z}); SimpleGPS gps; }}
             {name}_wheel {{ shape cylinder(0.05, 0.02); pos({x}, 0.05, {z2}); }}
             JointHinge({name}_body, {name}_wheel) {{ anchor({x}, 0.05, {z2}); axis(0, 0, 1);
               SimpleMotor motor {{ speed 0; }} Encoder encoder {{ }} }}
             Keyboard keyboard;
           }} }}"#,
        z2 = z + 0.12
    )
}

async fn add_robot(server: &TestServer, lab: &str, token: Option<&str>, name: &str, x: f64) -> (u16, Value) {
    call(server, Method::POST, &format!("/api/labs/{lab}/robots"), token, &robot(name, x, 3.0)).await
}

#[tokio::test]
async fn an_instructor_creates_a_lab_and_students_join_it_with_its_code() {
    let server = TestServer::start(false).await;
    let create = json!({ "name": "Physics 1", "scene": "diffbot" }).to_string();
    let (status, reply) = call(&server, Method::POST, "/api/labs", None, &create).await;
    assert_eq!(status, 401, "creating a lab needs the server key: {reply}");
    let (status, reply) = call(&server, Method::POST, "/api/labs", Some("guess"), &create).await;
    assert_eq!(status, 401, "{reply}");
    let (status, created) = call(&server, Method::POST, "/api/labs", Some(TOKEN), &create).await;
    assert_eq!(status, 201, "{created}");
    let (id, code, instructor) = (
        created["id"].as_str().unwrap().to_owned(),
        created["join_code"].as_str().unwrap().to_owned(),
        created["instructor_token"].as_str().unwrap().to_owned(),
    );
    assert!(id.starts_with("physics-1-"), "{id}");
    assert_eq!(code.len(), 6);
    assert_eq!(created["instructor_path"], format!("/?lab={id}&token={instructor}"));

    // Listed, with its own clock and its scene's robot; the code shows to its instructor only.
    let (_, labs) = call(&server, Method::GET, "/api/labs", None, "").await;
    assert!(labs.as_array().unwrap().iter().any(|lab| lab["id"] == id.as_str()));
    let (_, public) = call(&server, Method::GET, &format!("/api/labs/{id}"), None, "").await;
    assert!(public.get("join_code").is_none(), "{public}");
    assert_eq!(public["robots"], json!(["diffbot"]));
    assert_eq!(
        (public["mode"].as_str(), public["step"].as_u64()),
        (Some("paused"), Some(0)),
        "it waits for the class: {public}"
    );
    let (_, private) = call(&server, Method::GET, &format!("/api/labs/{id}"), Some(&instructor), "").await;
    assert_eq!(private["join_code"], code.as_str());

    // Joining: wrong code, empty name, then two students with the same name.
    let wrong = json!({ "join_code": "ZZZZZZ", "name": "Ana" }).to_string();
    let (status, reply) = call(&server, Method::POST, &format!("/api/labs/{id}/join"), None, &wrong).await;
    assert_eq!(status, 403, "{reply}");
    assert!(reply["error"]["message"].as_str().unwrap().contains("join code"));
    let nameless = json!({ "join_code": code, "name": "  " }).to_string();
    let (status, _) = call(&server, Method::POST, &format!("/api/labs/{id}/join"), None, &nameless).await;
    assert_eq!(status, 422);
    let (_, ana) = join(&server, &id, &code.to_lowercase(), "Ana").await;
    // By code alone, as the landing page does.
    let body = json!({ "join_code": code, "name": "Ana" }).to_string();
    let (status, second) = call(&server, Method::POST, "/api/join", None, &body).await;
    assert_eq!(status, 200, "{second}");
    assert_eq!((second["lab"].as_str(), second["user"]["name"].as_str()), (Some(id.as_str()), Some("Ana (2)")));
    let (_, people) = call(&server, Method::GET, &format!("/api/labs/{id}/participants"), None, "").await;
    let people: Vec<Participant> = serde_json::from_value(people).unwrap();
    let names: Vec<&str> = people.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["Instructor", "Ana", "Ana (2)"]);
    assert_eq!(people[1].id, ana);

    // A library scene that does not exist, and a scene with an error: nothing created.
    let (status, _) =
        call(&server, Method::POST, "/api/labs", Some(TOKEN), &json!({"name": "X", "scene": "nowhere"}).to_string())
            .await;
    assert_eq!(status, 404);
    let broken = json!({ "name": "Broken", "scene_source": "ball { shape sphere(0.1) pos(1,1,1); }" }).to_string();
    let (status, reply) = call(&server, Method::POST, "/api/labs", Some(TOKEN), &broken).await;
    assert_eq!(status, 422, "{reply}");
    assert!(reply["error"]["details"][0].as_str().unwrap().contains("lab.vlab:1:"), "{reply}");
    let (_, labs) = call(&server, Method::GET, "/api/labs", None, "").await;
    assert_eq!(labs.as_array().unwrap().len(), 4, "demo, other, empty and Physics 1");

    // Closing it: connections are told, the lab is gone.
    let mut watcher = server.connect(&id, None).await;
    watcher.join_sequence().await;
    let (status, _) = call(&server, Method::DELETE, &format!("/api/labs/{id}"), second["token"].as_str(), "").await;
    assert_eq!(status, 403, "a student cannot close the lab");
    let (status, _) = call(&server, Method::DELETE, &format!("/api/labs/{id}"), Some(&instructor), "").await;
    assert_eq!(status, 204);
    watcher.until(|r| matches!(r, Received::Closed(_)).then_some(())).await;
    let (status, _) = call(&server, Method::GET, &format!("/api/labs/{id}"), None, "").await;
    assert_eq!(status, 404);
}

/// What each kind of caller may do.
#[derive(Clone, Copy, Debug)]
enum Who {
    Instructor,
    Owner,
    OtherStudent,
    Anonymous,
}

#[tokio::test]
async fn the_permission_matrix_holds_over_http() {
    let server = TestServer::start(false).await;
    let (ana, _) = join(&server, "demo", "DEMOCODE", "Ana").await;
    let (bob, _) = join(&server, "demo", "DEMOCODE", "Bob").await;
    let (status, reply) = add_robot(&server, "demo", Some(&ana), "ana_bot", 2.0).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["robots"], json!(["ana_bot"]));

    let token = |who: Who| match who {
        Who::Instructor => Some(TOKEN),
        Who::Owner => Some(ana.as_str()),
        Who::OtherStudent => Some(bob.as_str()),
        Who::Anonymous => None,
    };
    // (action, method, path, body, who may) — the robot under test is Ana's.
    let actions: Vec<(&str, Method, String, String, [bool; 4])> = vec![
        (
            "pause",
            Method::POST,
            "/api/labs/demo/control".into(),
            r#"{"action":"pause"}"#.into(),
            [true, false, false, false],
        ),
        (
            "step",
            Method::POST,
            "/api/labs/demo/control".into(),
            r#"{"action":"step","steps":2}"#.into(),
            [true, false, false, false],
        ),
        (
            "settings",
            Method::PATCH,
            "/api/labs/demo/settings".into(),
            r#"{"robot_quota":3}"#.into(),
            [true, false, false, false],
        ),
        (
            "notice",
            Method::POST,
            "/api/labs/demo/broadcast".into(),
            r#"{"message":"hello"}"#.into(),
            [true, false, false, false],
        ),
        (
            "scene",
            Method::POST,
            "/api/labs/demo/scene".into(),
            "crate_x { shape box(0.1,0.1,0.1); pos(1,1,1); }".into(),
            [true, false, false, false],
        ),
        (
            "move",
            Method::POST,
            "/api/labs/demo/objects/ana_bot/move".into(),
            r#"{"position":[2,0.2,3]}"#.into(),
            // Its owner, or the instructor any (docs/classroom.md, "Placing things by dragging").
            [true, true, false, false],
        ),
        (
            "drive",
            Method::POST,
            "/api/labs/demo/robots/ana_bot/actuators".into(),
            r#"{"motor":{"speed":1}}"#.into(),
            [true, true, false, false],
        ),
        (
            "reset robot",
            Method::POST,
            "/api/labs/demo/robots/ana_bot/reset".into(),
            String::new(),
            [true, true, false, false],
        ),
        ("inspect", Method::GET, "/api/labs/demo/robots/ana_bot".into(), String::new(), [true, true, true, true]),
        ("participants", Method::GET, "/api/labs/demo/participants".into(), String::new(), [true, true, true, true]),
    ];
    let mut scene_inserted = 0;
    for (name, method, path, body, allowed) in &actions {
        for (i, who) in [Who::Instructor, Who::Owner, Who::OtherStudent, Who::Anonymous].into_iter().enumerate() {
            let (status, reply) = call(&server, method.clone(), path, token(who), body).await;
            if allowed[i] {
                assert!((200..300).contains(&status), "{name} as {who:?}: {status} {reply}");
                if *name == "scene" {
                    scene_inserted += 1;
                }
            } else {
                let expected = if matches!(who, Who::Anonymous) { [401, 403] } else { [403, 403] };
                assert!(expected.contains(&status), "{name} as {who:?}: {status} {reply}");
                let message = reply["error"]["message"].as_str().unwrap_or_default();
                assert!(!message.is_empty(), "{name} as {who:?}: a reason");
            }
        }
        if *name == "scene" {
            assert_eq!(scene_inserted, 1);
        }
    }
    // Removing: not by Bob, not anonymously; by Ana. Then Bob's robot by the instructor.
    for who in [Who::OtherStudent, Who::Anonymous] {
        let (status, _) = call(&server, Method::DELETE, "/api/labs/demo/robots/ana_bot", token(who), "").await;
        assert!([401, 403].contains(&status), "{who:?}: {status}");
    }
    let (status, _) = call(&server, Method::DELETE, "/api/labs/demo/robots/ana_bot", Some(&ana), "").await;
    assert_eq!(status, 204);
    let (status, _) = add_robot(&server, "demo", Some(&bob), "bob_bot", 4.0).await;
    assert_eq!(status, 200);
    let (status, _) = call(&server, Method::DELETE, "/api/labs/demo/robots/bob_bot", Some(TOKEN), "").await;
    assert_eq!(status, 204);
    // Adding robots: anonymous callers need a session.
    let (status, reply) = add_robot(&server, "demo", None, "ghost_bot", 5.0).await;
    assert_eq!(status, 401, "{reply}");
}

#[tokio::test]
async fn the_permission_matrix_holds_over_the_websocket() {
    let server = TestServer::start(false).await;
    let (ana, _) = join(&server, "demo", "DEMOCODE", "Ana").await;
    let (bob, _) = join(&server, "demo", "DEMOCODE", "Bob").await;
    add_robot(&server, "demo", Some(&ana), "ana_bot", 2.0).await;

    async fn connect(server: &TestServer, token: Option<&str>) -> Client {
        let mut client = server.connect("demo", token).await;
        client.join_sequence().await;
        client
    }
    let mut instructor = connect(&server, Some(TOKEN)).await;
    let mut owner = connect(&server, Some(&ana)).await;
    let mut other = connect(&server, Some(&bob)).await;
    let mut anonymous = connect(&server, None).await;

    // Time control: the instructor only. Refused as over HTTP: a student lacks the
    // right (403), a caller without a session lacks credentials (401).
    for (client, refusal) in [
        (&mut owner, ErrorCode::Forbidden),
        (&mut other, ErrorCode::Forbidden),
        (&mut anonymous, ErrorCode::Unauthorized),
    ] {
        client.send(&ClientMsg::Control { command: ControlAction::Pause }).await;
        assert_eq!(client.until(error_code).await, refusal);
    }
    instructor.send(&ClientMsg::Control { command: ControlAction::Step { steps: 3 } }).await;
    instructor.state_where(|s| s.step == 3).await;

    // Keys for Ana's robot: Ana only (not Bob, not anonymous, not even the instructor).
    let keys = ClientMsg::Keys { robot: "ana_bot".into(), keys: vec!["W".into()] };
    for (client, refusal) in [
        (&mut instructor, ErrorCode::Forbidden),
        (&mut other, ErrorCode::Forbidden),
        (&mut anonymous, ErrorCode::Unauthorized),
    ] {
        client.send(&keys).await;
        assert_eq!(client.until(error_code).await, refusal);
    }
    owner.send(&ClientMsg::Subscribe { robot: "ana_bot".into() }).await;
    owner.send(&keys).await;
    let report = owner
        .until(|r| match r {
            Received::Json(ServerMsg::Robot(report)) if !report.keys.is_empty() => Some(report.clone()),
            _ => None,
        })
        .await;
    assert_eq!(report.keys, ["W"]);
    assert_eq!(report.owner.as_deref(), Some("Ana"));
    // The lab's own robots are the instructor's to drive.
    instructor.send(&ClientMsg::Keys { robot: "rover_red".into(), keys: vec!["I".into()] }).await;
    owner.send(&ClientMsg::Keys { robot: "rover_red".into(), keys: vec!["I".into()] }).await;
    assert_eq!(owner.until(error_code).await, ErrorCode::Forbidden);
    // Everybody may watch any robot.
    anonymous.send(&ClientMsg::Subscribe { robot: "ana_bot".into() }).await;
    anonymous.until(|r| matches!(r, Received::Json(ServerMsg::Robot(_))).then_some(())).await;
}

#[tokio::test]
async fn presence_quota_locks_notices_and_pause_on_join() {
    let server = TestServer::start(true).await;
    let mut instructor = server.connect("demo", Some(TOKEN)).await;
    instructor.join_sequence().await;
    let (ana, ana_id) = join(&server, "demo", "DEMOCODE", "<b>Ana</b>").await;
    let people = instructor.until(presence_with(ana_id)).await;
    assert_eq!(people.iter().find(|p| p.id == ana_id).unwrap().name, "<b>Ana</b>", "names travel as text");

    // Ana connects: she is online; her robot shows beside her name.
    let mut page = server.connect("demo", Some(&ana)).await;
    let hello = page.next().await;
    let Received::Json(ServerMsg::Hello { you: Some(me), role, .. }) = hello else { panic!("{hello:?}") };
    assert_eq!((me.id, role), (ana_id, vlab_protocol::Role::Student));
    instructor.until(|r| presence(r).filter(|p| p.iter().any(|p| p.id == ana_id && p.online))).await;
    add_robot(&server, "demo", Some(&ana), "ana_1", 2.0).await;
    instructor.until(|r| presence(r).filter(|p| p.iter().any(|p| p.robots == ["ana_1"]))).await;

    // The quota: 1 robot, and the lock.
    let patch = r#"{"robot_quota": 1}"#;
    let (status, settings) = call(&server, Method::PATCH, "/api/labs/demo/settings", Some(TOKEN), patch).await;
    assert_eq!((status, settings["robot_quota"].as_u64()), (200, Some(1)));
    let (status, reply) = add_robot(&server, "demo", Some(&ana), "ana_2", 3.0).await;
    assert_eq!(status, 403, "{reply}");
    assert!(reply["errors"][0]["message"].as_str().unwrap().contains("1 robot"), "{reply}");
    call(
        &server,
        Method::PATCH,
        "/api/labs/demo/settings",
        Some(TOKEN),
        r#"{"robot_quota": 5, "uploads_locked": true}"#,
    )
    .await;
    let (status, reply) = add_robot(&server, "demo", Some(&ana), "ana_2", 3.0).await;
    assert_eq!(status, 403, "{reply}");
    assert!(reply["error"]["message"].as_str().unwrap().contains("locked"));
    let (status, _) = add_robot(&server, "demo", Some(TOKEN), "teacher_bot", 4.0).await;
    assert_eq!(status, 200, "the lock is for students");
    // A robot upload holds robots only.
    let (status, reply) =
        call(&server, Method::POST, "/api/labs/demo/robots", Some(TOKEN), "rock { shape box(1,1,1); pos(1,1,1); }")
            .await;
    assert_eq!(status, 422, "{reply}");

    // A notice reaches everybody.
    call(&server, Method::POST, "/api/labs/demo/broadcast", Some(TOKEN), r#"{"message":"5 minutes left"}"#).await;
    let notice = page
        .until(|r| match r {
            Received::Json(ServerMsg::Notice { from, message }) => Some((from.clone(), message.clone())),
            _ => None,
        })
        .await;
    assert_eq!(notice, ("Instructor".into(), "5 minutes left".into()));

    // Pause on join.
    call(&server, Method::PATCH, "/api/labs/demo/settings", Some(TOKEN), r#"{"pause_on_join": true}"#).await;
    assert_eq!(server.lab_state("demo").await["mode"], "running");
    join(&server, "demo", "DEMOCODE", "Carla").await;
    assert_eq!(server.lab_state("demo").await["mode"], "paused");
}

#[tokio::test]
async fn removing_a_robot_leaves_the_others_running_as_they_were() {
    let server = TestServer::start(false).await;
    let (ana, _) = join(&server, "demo", "DEMOCODE", "Ana").await;
    let (bob, _) = join(&server, "demo", "DEMOCODE", "Bob").await;
    add_robot(&server, "demo", Some(&ana), "ana_bot", 2.0).await;
    add_robot(&server, "demo", Some(&bob), "bob_bot", 4.0).await;
    call(&server, Method::POST, "/api/labs/demo/robots/bob_bot/actuators", Some(&bob), r#"{"motor":{"speed":4}}"#)
        .await;
    server.control("demo", ControlAction::Step { steps: 240 }).await;
    let encoder = |report: &Value| {
        report["sensors"].as_array().unwrap().iter().find(|s| s["name"] == "encoder").unwrap()["truth"]["angle"]
            .as_f64()
            .unwrap()
    };
    let (_, before) = call(&server, Method::GET, "/api/labs/demo/robots/bob_bot", None, "").await;
    let bodies = server.lab_state("demo").await["bodies"].as_u64().unwrap();

    let (status, _) = call(&server, Method::DELETE, "/api/labs/demo/robots/ana_bot", Some(&ana), "").await;
    assert_eq!(status, 204);
    let state = server.lab_state("demo").await;
    assert_eq!(state["bodies"].as_u64().unwrap(), bodies - 2);
    assert!(!state["robots"].as_array().unwrap().contains(&json!("ana_bot")));
    assert_eq!(state["step"], 240, "removing does not step or reset");
    let (_, after) = call(&server, Method::GET, "/api/labs/demo/robots/bob_bot", None, "").await;
    assert_eq!(encoder(&after), encoder(&before), "Bob's encoder keeps its count");
    assert_eq!(after["pose"], before["pose"], "and his robot its place");
    server.control("demo", ControlAction::Step { steps: 120 }).await;
    let (_, later) = call(&server, Method::GET, "/api/labs/demo/robots/bob_bot", None, "").await;
    assert!(encoder(&later) > encoder(&after) + 1.0, "and his motor keeps turning");
    // The name is free again.
    let (status, reply) = add_robot(&server, "demo", Some(&ana), "ana_bot", 2.0).await;
    assert_eq!(status, 200, "{reply}");
    // Reset Bob's robot: back at its start, its encoder at zero.
    let (status, reset) = call(&server, Method::POST, "/api/labs/demo/robots/bob_bot/reset", Some(&bob), "").await;
    assert_eq!(status, 200, "{reset}");
    assert_eq!(encoder(&reset), 0.0);
}

#[tokio::test]
async fn two_labs_keep_their_own_clocks() {
    let server = TestServer::start(true).await;
    server.control("demo", ControlAction::Pause).await;
    let paused = server.control("demo", ControlAction::Step { steps: 5 }).await;
    let other_before = server.lab_state("other").await["step"].as_u64().unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(server.lab_state("demo").await["step"].as_u64(), Some(paused.step));
    let other = server.lab_state("other").await;
    assert_eq!(other["mode"], "running");
    assert!(other["step"].as_u64().unwrap() > other_before, "the other lab went on");
    // A student of one lab is nobody in the other.
    let (ana, _) = join(&server, "demo", "DEMOCODE", "Ana").await;
    let (status, _) = call(&server, Method::GET, "/api/labs/other/robots/rover_red", Some(&ana), "").await;
    assert_eq!(status, 200, "reading is open");
    let (status, _) = call(
        &server,
        Method::POST,
        "/api/labs/other/robots/rover_red/actuators",
        Some(&ana),
        r#"{"motor_0":{"speed":1}}"#,
    )
    .await;
    assert_eq!(status, 401, "her token means nothing in the other lab");
    let wrong = json!({ "join_code": "DEMOCODE", "name": "Ana" }).to_string();
    let (status, _) = call(&server, Method::POST, "/api/labs/other/join", None, &wrong).await;
    assert_eq!(status, 403, "one lab's code does not open another");
}

#[tokio::test]
async fn a_classroom_rehearsal_with_twenty_five_students() {
    let server = TestServer::start(true).await;
    let mut instructor = server.connect("demo", Some(TOKEN)).await;
    instructor.join_sequence().await;
    let mut students = Vec::new();
    for i in 0..25 {
        let (token, _) = join(&server, "demo", "DEMOCODE", &format!("Student {i}")).await;
        let mut client = server.connect("demo", Some(&token)).await;
        client.join_sequence().await;
        let x = 1.0 + (i % 5) as f64 * 2.0;
        let z = 1.0 + (i / 5) as f64 * 2.0;
        let (status, reply) = server.add_demo_robot_near(&token, (x, z), |x, z| robot(&format!("bot_{i}"), x, z)).await;
        assert_eq!(status, 200, "student {i}: {reply}");
        students.push(client);
    }
    let state = server.lab_state("demo").await;
    assert_eq!(state["robots"].as_array().unwrap().len(), 3 + 25);
    instructor.send(&ClientMsg::Control { command: ControlAction::Pause }).await;
    let paused = instructor.state_where(|s| s.mode == LabMode::Paused).await;
    let stepped = server.control("demo", ControlAction::Step { steps: 10 }).await;
    assert_eq!(stepped.step, paused.step + 10);
    for (i, client) in students.iter_mut().enumerate() {
        let state = client.state_where(|s| s.mode == LabMode::Paused && s.step == stepped.step).await;
        assert_eq!(state.epoch, stepped.epoch, "student {i}");
    }
    let (_, people) = call(&server, Method::GET, "/api/labs/demo/participants", None, "").await;
    let people: Vec<Participant> = serde_json::from_value(people).unwrap();
    assert_eq!(people.len(), 26);
    assert!(people.iter().skip(1).all(|p| p.online && p.robots.len() == 1));
}

fn error_code(received: &Received) -> Option<ErrorCode> {
    match received {
        Received::Json(ServerMsg::Error(body)) => Some(body.code),
        _ => None,
    }
}

fn presence(received: &Received) -> Option<Vec<Participant>> {
    match received {
        Received::Json(ServerMsg::Presence { participants }) => Some(participants.clone()),
        _ => None,
    }
}

fn presence_with(id: u32) -> impl FnMut(&Received) -> Option<Vec<Participant>> {
    move |received| presence(received).filter(|people| people.iter().any(|p| p.id == id))
}
