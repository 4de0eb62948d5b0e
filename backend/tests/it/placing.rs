//! Placing things over the websocket (`place`, what the page sends while dragging in the
//! 3D view): who may place what, what is refused and why (nothing moved then), that
//! every other page sees the new pose in its frames, that a robot's program runs on
//! after it is moved, that a flood of placements is cut to the newest, and that a
//! placement is kept across a restart.

use crate::common;

use common::{Client, PATIENCE, Received, TOKEN, TestServer};
use reqwest::multipart::{Form, Part};
use serde_json::json;
use vlab_protocol::{ClientMsg, ControlAction, ErrorBody, ErrorCode, PLACE_INTERVAL_MS, SceneSnapshot, ServerMsg};
use vlab_server::scene::{MapLoader, Options, SceneModel, interpret};

/// The fenced yard (12 m × 12 m) with two crates, a fixed pillar and nothing else.
fn props_yard() -> SceneModel {
    let source = "environment wallrect { width 12; length 12; height 0.5; gravity -9.81; }
        crate_a { shape box(0.4, 0.4, 0.4); pos(3, 0.2, 3); }
        crate_b { shape box(0.4, 0.4, 0.4); pos(9, 0.2, 3); }
        static pillar { shape box(0.4, 1, 0.4); pos(6, 0.5, 2); }";
    interpret(source, "props.vlab", &MapLoader::new(), &Options::default()).unwrap().model
}

/// A robot `name` at (x, z): a box chassis and a wheel on a hinge.
fn robot(name: &str, x: f64, z: f64) -> String {
    format!(
        r#"robot {name} {{ body {{
             {name}_body {{ shape box(0.3, 0.1, 0.2); pos({x}, 0.15, {z}); }}
             {name}_wheel {{ shape cylinder(0.05, 0.02); pos({x}, 0.05, {z2}); }}
             JointHinge({name}_body, {name}_wheel) {{ anchor({x}, 0.05, {z2}); axis(0, 0, 1);
               SimpleMotor motor_0 {{ speed 0; }} }}
           }} }}"#,
        z2 = z + 0.12
    )
}

/// A WebAssembly program that logs "tick" every control step.
fn tick_module() -> Vec<u8> {
    wat::parse_str(
        r#"(module
             (import "vlab" "log" (func $log (param i32 i32)))
             (memory (export "memory") 1)
             (data (i32.const 0) "tick")
             (func (export "vlab_abi_version") (result i32) (i32.const 1))
             (func (export "pre_step") (call $log (i32.const 0) (i32.const 4))))"#,
    )
    .expect("valid WAT")
}

/// `token` adds robot `name` at (x, z) running `tick.wasm`.
async fn add_robot(server: &TestServer, token: &str, name: &str, x: f64, z: f64) {
    let form = Form::new()
        .part("program", Part::bytes(tick_module()).file_name("tick.wasm"))
        .part("description", Part::text(robot(name, x, z)).file_name("robot.vlab"));
    let response =
        server.http.post(server.url("/api/labs/demo/robots")).bearer_auth(token).multipart(form).send().await.unwrap();
    let status = response.status().as_u16();
    assert_eq!(status, 200, "{name} goes in: {}", response.text().await.unwrap());
}

/// The answer to placement `id`: its pose when placed, else the refusal.
pub(crate) async fn answer(client: &mut Client, id: u32) -> Result<[f32; 3], ErrorBody> {
    client
        .until(|r| match r {
            Received::Json(ServerMsg::Placed { id: got, position, .. }) if *got == id => Some(Ok(*position)),
            Received::Json(ServerMsg::PlaceRefused { id: got, error, .. }) if *got == id => Some(Err(error.clone())),
            _ => None,
        })
        .await
}

pub(crate) async fn place(client: &mut Client, id: u32, name: &str, position: [f32; 3], heading: Option<f32>) {
    client.send(&ClientMsg::Place { id, name: name.into(), position, heading }).await;
}

/// Body `name`'s index in `snapshot`.
fn body_id(snapshot: &SceneSnapshot, name: &str) -> u32 {
    snapshot.bodies.iter().position(|b| b.name == name).unwrap_or_else(|| panic!("no body {name}")) as u32
}

/// Reads frames until body `id` is within a millimetre of `position` (x and z).
async fn sees_at(client: &mut Client, id: u32, position: [f32; 3]) {
    client.until(|r| shows_at(r, id, position).then_some(())).await
}

/// Whether `received` is a frame with body `id` at `position` (along the floor).
fn shows_at(received: &Received, id: u32, position: [f32; 3]) -> bool {
    match received {
        Received::Frame(frame) => frame.poses.iter().any(|p| {
            p.id.0 == id && (p.position[0] - position[0]).abs() < 1e-3 && (p.position[2] - position[2]).abs() < 1e-3
        }),
        _ => false,
    }
}

/// Robot `name`'s position as its report says it.
async fn robot_position(server: &TestServer, name: &str) -> [f64; 3] {
    let (status, report) = server.get_json(&format!("/api/labs/demo/robots/{name}")).await;
    assert_eq!(status, 200, "{report}");
    let p = &report["pose"]["position"];
    [p[0].as_f64().unwrap(), p[1].as_f64().unwrap(), p[2].as_f64().unwrap()]
}

/// The instructor's page, joined.
async fn page(server: &TestServer, token: Option<&str>) -> (Client, SceneSnapshot) {
    let mut client = server.connect("demo", token).await;
    let (_, snapshot, _, _) = client.join_sequence().await;
    (client, snapshot)
}

#[tokio::test]
async fn the_instructor_places_a_crate_and_every_page_sees_it_there() {
    let server = TestServer::start_with(props_yard(), false).await;
    let (mut teacher, snapshot) = page(&server, Some(TOKEN)).await;
    let (mut watcher, _) = page(&server, None).await;
    let crate_a = body_id(&snapshot, "crate_a");

    let target = [4.5, 0.2, 8.0];
    place(&mut teacher, 1, "crate_a", target, Some(0.5)).await;
    assert_eq!(answer(&mut teacher, 1).await, Ok(target), "placed, and told so with its id");
    sees_at(&mut watcher, crate_a, target).await;

    // HTTP and the websocket answer alike: the same move, by coordinates.
    let back = json!({ "position": [3.0, 0.2, 3.0] });
    let url = server.url("/api/labs/demo/objects/crate_a/move");
    let response = server.http.post(url).bearer_auth(TOKEN).json(&back).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 204);
    sees_at(&mut watcher, crate_a, [3.0, 0.2, 3.0]).await;
}

#[tokio::test]
async fn a_student_places_her_own_robot_but_not_another_s_nor_the_lab_s() {
    let server = TestServer::start_with(props_yard(), false).await;
    let ana = server.join_demo("Ana").await;
    let bob = server.join_demo("Bob").await;
    add_robot(&server, &ana, "ana_bot", 4.0, 8.0).await;
    add_robot(&server, &bob, "bob_bot", 8.0, 8.0).await;
    let (mut ana_page, snapshot) = page(&server, Some(&ana)).await;
    let (mut teacher, _) = page(&server, Some(TOKEN)).await;

    place(&mut ana_page, 1, "ana_bot", [4.0, 0.15, 10.0], Some(1.0)).await;
    assert_eq!(answer(&mut ana_page, 1).await, Ok([4.0, 0.15, 10.0]), "her own robot");
    let moved = robot_position(&server, "ana_bot").await;
    assert!((moved[2] - 10.0).abs() < 1e-3, "{moved:?}");
    sees_at(&mut teacher, body_id(&snapshot, "ana_bot_body"), [4.0, 0.15, 10.0]).await;

    let bob_before = robot_position(&server, "bob_bot").await;
    place(&mut ana_page, 2, "bob_bot", [10.0, 0.15, 10.0], None).await;
    let refused = answer(&mut ana_page, 2).await.expect_err("not hers");
    assert_eq!(refused.code, ErrorCode::Forbidden);
    assert_eq!(refused.message, "only the owner of 'bob_bot' or the instructor may move it; it is not yours");
    assert_eq!(robot_position(&server, "bob_bot").await, bob_before, "nothing moved");

    place(&mut ana_page, 3, "crate_b", [10.0, 0.2, 6.0], None).await;
    let refused = answer(&mut ana_page, 3).await.expect_err("the lab's crate");
    assert_eq!(refused.code, ErrorCode::Forbidden);
    assert!(refused.message.contains("'crate_b'"), "{}", refused.message);

    // A viewer is told to join first.
    let (mut viewer, _) = page(&server, None).await;
    place(&mut viewer, 4, "ana_bot", [6.0, 0.15, 6.0], None).await;
    assert_eq!(answer(&mut viewer, 4).await.expect_err("no session").code, ErrorCode::Unauthorized);

    // The instructor places anybody's robot, as supervisor.
    place(&mut teacher, 5, "bob_bot", [10.0, 0.15, 10.0], None).await;
    assert!(answer(&mut teacher, 5).await.is_ok());
    let bob_now = robot_position(&server, "bob_bot").await;
    assert!((bob_now[0] - 10.0).abs() < 1e-3 && (bob_now[2] - 10.0).abs() < 1e-3, "{bob_now:?}");
}

#[tokio::test]
async fn an_overlap_an_unknown_name_a_fixed_body_and_non_finite_numbers_are_refused_with_why() {
    let server = TestServer::start_with(props_yard(), false).await;
    let (mut teacher, _) = page(&server, Some(TOKEN)).await;
    let ana = server.join_demo("Ana").await;
    let (mut ana_page, _) = page(&server, Some(&ana)).await;

    // Onto crate_b: refused, saying why, and crate_a stays where it was.
    place(&mut teacher, 1, "crate_a", [9.0, 0.2, 3.0], None).await;
    let refused = answer(&mut teacher, 1).await.expect_err("overlaps crate_b");
    assert_eq!(refused.code, ErrorCode::InvalidArgument);
    assert!(refused.message.contains("crate_b"), "names what is in the way: {}", refused.message);
    place(&mut teacher, 2, "crate_a", [3.0, 0.2, 3.0], None).await;
    assert!(answer(&mut teacher, 2).await.is_ok(), "crate_a was still at its own place");

    // Unknown: 404 whoever asks, before any permission answer.
    for client in [&mut teacher, &mut ana_page] {
        place(client, 3, "no_such_thing", [6.0, 0.2, 6.0], None).await;
        let refused = answer(client, 3).await.expect_err("unknown");
        assert_eq!(refused.code, ErrorCode::NotFound, "{}", refused.message);
        assert!(refused.message.contains("no_such_thing"), "{}", refused.message);
    }
    // Fixed: not movable, not even by the instructor, as over HTTP.
    place(&mut teacher, 4, "pillar", [7.0, 0.5, 7.0], None).await;
    assert_eq!(answer(&mut teacher, 4).await.expect_err("fixed").code, ErrorCode::NotFound);

    // Not finite: JSON has no NaN, but 1e39 is past what an f32 holds.
    teacher.send_text(r#"{"type":"place","id":5,"name":"crate_a","position":[1e39,0.2,0],"heading":null}"#).await;
    let refused = answer(&mut teacher, 5).await.expect_err("infinite");
    assert_eq!(
        (refused.code, refused.message.as_str()),
        (ErrorCode::InvalidArgument, "position and heading must be finite numbers")
    );
    teacher.send_text(r#"{"type":"place","id":6,"name":"crate_a","position":[6,0.2,6],"heading":-1e39}"#).await;
    assert_eq!(answer(&mut teacher, 6).await.expect_err("infinite heading").code, ErrorCode::InvalidArgument);
    place(&mut teacher, 7, "crate_a", [3.0, 0.2, 3.0], None).await;
    assert!(answer(&mut teacher, 7).await.is_ok(), "crate_a never left its place");
}

#[tokio::test]
async fn a_robot_s_program_runs_on_after_it_is_placed() {
    let server = TestServer::start_with(props_yard(), false).await;
    let ana = server.join_demo("Ana").await;
    add_robot(&server, &ana, "ana_bot", 4.0, 8.0).await;
    let (mut ana_page, _) = page(&server, Some(&ana)).await;
    server.control("demo", ControlAction::Step { steps: 20 }).await;

    place(&mut ana_page, 1, "ana_bot", [8.0, 0.15, 9.0], Some(2.0)).await;
    assert!(answer(&mut ana_page, 1).await.is_ok());
    let placed_at = server.lab_state("demo").await["step"].as_u64().unwrap();
    server.control("demo", ControlAction::Step { steps: 20 }).await;
    // Console lines of steps after the move: the program was not stopped nor restarted.
    let after = ana_page
        .until(|r| match r {
            Received::Json(ServerMsg::Console { robot, lines }) if robot == "ana_bot" => {
                lines.iter().find(|l| l.step > placed_at && l.text.contains("tick")).map(|l| l.step)
            }
            _ => None,
        })
        .await;
    assert!(after > placed_at);
    let (_, report) = server.get_json("/api/labs/demo/robots/ana_bot").await;
    assert_eq!(report["program"]["state"], "running", "{report}");
}

#[tokio::test]
async fn a_flood_of_placements_is_cut_to_the_newest_and_every_one_is_answered() {
    let server = TestServer::start_with(props_yard(), false).await;
    let (mut teacher, snapshot) = page(&server, Some(TOKEN)).await;
    let crate_a = body_id(&snapshot, "crate_a");
    const FLOOD: u32 = 1000;
    for id in 1..=FLOOD {
        let x = 3.0 + 2.0 * id as f32 / FLOOD as f32;
        place(&mut teacher, id, "crate_a", [x, 0.2, 7.0], None).await;
    }
    let (mut placed, mut superseded) = (Vec::new(), 0);
    let mut answered = std::collections::BTreeSet::new();
    // The frame of the last placement may come before its answer (the paused lab sends no
    // other): noted as the answers are read.
    let mut seen_last = false;
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while answered.len() < FLOOD as usize {
        assert!(tokio::time::Instant::now() < deadline, "answered {} of {FLOOD}", answered.len());
        let received = teacher.next().await;
        seen_last |= shows_at(&received, crate_a, [5.0, 0.2, 7.0]);
        match received {
            Received::Json(ServerMsg::Placed { id, .. }) => {
                placed.push(id);
                assert!(answered.insert(id), "{id} answered twice");
            }
            Received::Json(ServerMsg::PlaceRefused { id, error, .. }) => {
                assert_eq!(error.code, ErrorCode::TooManyRequests, "{}", error.message);
                assert!(error.message.contains(&format!("{PLACE_INTERVAL_MS} ms")), "{}", error.message);
                superseded += 1;
                assert!(answered.insert(id), "{id} answered twice");
            }
            _ => {}
        }
    }
    // The first is done at once; the last one, the newest, always has its turn.
    assert_eq!(placed.first(), Some(&1));
    assert_eq!(placed.last(), Some(&FLOOD));
    assert!(placed.windows(2).all(|w| w[0] < w[1]), "done in the order sent: {placed:?}");
    assert_eq!(placed.len() + superseded, FLOOD as usize);
    assert!(superseded > 0, "the ones waiting were cut");
    if !seen_last {
        sees_at(&mut teacher, crate_a, [5.0, 0.2, 7.0]).await;
    }
    // The lab answers as ever.
    teacher.send(&ClientMsg::Ping { nonce: 9 }).await;
    teacher.until(|r| matches!(r, Received::Json(ServerMsg::Pong { nonce: 9 })).then_some(())).await;
}

#[tokio::test]
async fn a_placement_is_kept_across_a_restart() {
    use vlab_server::classroom::{Classroom, ClassroomConfig, DemoLab};
    use vlab_server::store::Store;
    let dir = std::env::temp_dir().join(format!("vlab-placing-restart-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("vlab.db");
    let _ = std::fs::remove_file(&db);
    let start = || async {
        let store = Store::open(&db).unwrap();
        let mut classroom = Classroom::new(ClassroomConfig { store: Some(store), ..ClassroomConfig::default() });
        let demo = classroom
            .labs()
            .open_demo(DemoLab { instructor_token: Some(TOKEN.into()), seed: 1, start_running: false })
            .unwrap();
        classroom.set_server_key(demo.record.instructor);
        assert_eq!(classroom.labs().restore().await.unwrap(), 0, "every kept edit is done again");
        TestServer::serve(classroom).await
    };

    let placed = {
        let server = start().await;
        let (mut teacher, _) = page(&server, Some(TOKEN)).await;
        // Somewhere free in the demo yard: the spot a refusal offers, if the first is taken.
        let start = robot_position(&server, "rover_red").await;
        let y = start[1] as f32;
        let mut target = [1.0f32, y, 1.0];
        let mut id = 0;
        loop {
            id += 1;
            place(&mut teacher, id, "rover_red", target, Some(1.2)).await;
            match answer(&mut teacher, id).await {
                Ok(_) => break,
                Err(refused) => {
                    let reply = json!({ "error": { "message": refused.message } });
                    let (x, z) = common::offered_spot(&reply).unwrap_or_else(|| panic!("{}", refused.message));
                    assert!(id < 5, "{}", refused.message);
                    target = [x as f32, target[1], z as f32];
                }
            }
        }
        let placed = robot_position(&server, "rover_red").await;
        assert!((placed[0] - start[0]).hypot(placed[2] - start[2]) > 0.1, "moved away from its start");
        placed
    };
    let server = start().await;
    let again = robot_position(&server, "rover_red").await;
    assert!((again[0] - placed[0]).abs() < 1e-3 && (again[2] - placed[2]).abs() < 1e-3, "{again:?} {placed:?}");
    let (_, report) = server.get_json("/api/labs/demo/robots/rover_red").await;
    let heading = report["pose"]["heading"].as_f64().unwrap();
    assert!((heading - 1.2).abs() < 1e-3, "turned as placed: {report}");
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}
