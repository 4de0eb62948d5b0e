//! Attempts at a lab's challenge, over real HTTP: a student tries her robot with its
//! program in a private copy of the lab (even while the lab is paused), and the server
//! says how it went: solved, with its time as the score, the same on a second try with
//! the same seed; a program that crashes is a program error with its traceback. Nobody
//! else may try her robot or read her attempts; a lab without a challenge has nothing
//! to try; a student has at most three attempts open at once.

use crate::common;

use common::{PATIENCE, TOKEN, TestServer, python_runs_here};
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use vlab_server::scene::{MapLoader, Options, interpret};

/// A 12 × 12 yard whose challenge is to drive from x = 1.5 into a bay at x = 4.
pub(crate) const CHALLENGE_YARD: &str = r#"
environment wallrect { width 12; length 12; height 0.5; gravity -9.81; }
challenge "Reach the bay" {
  time_limit 20;
  zone bay { box(1, 1, 2); pos(4, 0, 2); color "Green"; }
  start { pos(1.5, 0.08, 2); heading 0; }
  success inside(bay);
  failure touched(walls) or no_progress(5);
  score time;
}
"#;

/// Ana's cart, away from the start: the attempt puts it there.
pub(crate) const CART: &str = r#"
robot cart {
  code "drive.py";
  body {
    chassis { shape box(0.4, 0.1, 0.3); pos(8, 0.08, 8); density 500; }
    wheel_l { shape cylinder(0.05, 0.02); pos(8, 0.05, 8.17); density 800; }
    wheel_r { shape cylinder(0.05, 0.02); pos(8, 0.05, 7.83); density 800; }
    caster { shape sphere(0.03); pos(8.15, 0.03, 8); density 500; friction 0; }
    JointHinge(chassis, wheel_l) { anchor(8, 0.05, 8.17); axis(0, 0, 1); SimpleMotor m_l; }
    JointHinge(chassis, wheel_r) { anchor(8, 0.05, 7.83); axis(0, 0, 1); SimpleMotor m_r; }
    JointBall(chassis, caster) { anchor(8.15, 0.03, 8); }
    DiffDrive base { left "m_l"; right "m_r"; wheel_radius 0.05; track 0.34; }
  }
}
"#;

pub(crate) const FORWARD: &str = r#"
from vlab import Robot
robot = Robot()
print("off to the bay")
while robot.step():
    robot.actuator("base").set(0.5, 0.0)
"#;

async fn lab_with_challenge() -> TestServer {
    let yard = interpret(CHALLENGE_YARD, "yard.vlab", &MapLoader::new(), &Options::default()).unwrap().model;
    // Paused: attempts run in their own world, whatever the lab's clock does.
    TestServer::start_with(yard, false).await
}

async fn add_cart(server: &TestServer, token: &str, program: &str) {
    let form = Form::new()
        .part("description", Part::text(CART).file_name("cart.vlab"))
        .part("drive.py", Part::text(program.to_owned()).file_name("drive.py"));
    let response =
        server.http.post(server.url("/api/labs/demo/robots")).bearer_auth(token).multipart(form).send().await.unwrap();
    let status = response.status().as_u16();
    assert_eq!(status, 200, "{}", response.text().await.unwrap());
}

async fn start(server: &TestServer, token: Option<&str>, body: Value) -> (u16, Value) {
    let mut request = server.http.post(server.url("/api/labs/demo/robots/cart/attempts")).json(&body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

async fn read(server: &TestServer, token: &str, id: u64) -> (u16, Value) {
    let url = server.url(&format!("/api/labs/demo/attempts/{id}"));
    let response = server.http.get(url).bearer_auth(token).send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

/// The attempt's answer once it is over.
async fn finished(server: &TestServer, token: &str, id: u64) -> Value {
    let deadline = tokio::time::Instant::now() + PATIENCE * 3;
    loop {
        let (status, report) = read(server, token, id).await;
        assert_eq!(status, 200, "{report}");
        if !matches!(report["status"].as_str(), Some("queued" | "running")) {
            return report;
        }
        assert!(tokio::time::Instant::now() < deadline, "attempt {id} never ended: {report}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_student_tries_her_robot_at_the_challenge_and_the_same_seed_scores_the_same() {
    if !python_runs_here() {
        return;
    }
    let server = lab_with_challenge().await;
    let ana = server.join_demo("Ana").await;
    add_cart(&server, &ana, FORWARD).await;

    let (status, queued) = start(&server, Some(&ana), json!({ "seed": 7 })).await;
    assert_eq!(status, 202, "{queued}");
    assert_eq!((queued["robot"].as_str(), queued["challenge"].as_str()), (Some("cart"), Some("Reach the bay")));
    assert_eq!(queued["seed"], 7);
    let first = finished(&server, &ana, queued["id"].as_u64().unwrap()).await;
    assert_eq!(first["status"], "solved", "{first}");
    // From x = 1.5 the chassis' centre reaches the bay's edge at x = 3.5 at 0.5 m/s.
    let score = first["score"].as_f64().unwrap();
    assert!((3.0..6.0).contains(&score), "solved in {score} s: {first}");
    assert_eq!(first["sim_secs"].as_f64(), Some(score), "the score is the time it took");
    assert!(first["console"].to_string().contains("off to the bay"), "its console: {first}");

    let (_, again) = start(&server, Some(&ana), json!({ "seed": 7 })).await;
    let again = finished(&server, &ana, again["id"].as_u64().unwrap()).await;
    assert_eq!((again["status"].clone(), again["score"].clone()), (first["status"].clone(), first["score"].clone()));

    // The lab itself never moved: it is paused, and the cart is where Ana put it.
    let (_, lab) = server.get_json("/api/labs/demo").await;
    assert_eq!(lab["step"], 0, "{lab}");
}

#[tokio::test]
async fn a_crash_is_a_program_error_and_nobody_else_tries_her_robot() {
    if !python_runs_here() {
        return;
    }
    let server = lab_with_challenge().await;
    let ana = server.join_demo("Ana").await;
    let bob = server.join_demo("Bob").await;
    add_cart(&server, &ana, "from vlab import Robot\nrobot = Robot()\nrobot.step()\nraise RuntimeError('wheels?')\n")
        .await;
    let (status, queued) = start(&server, Some(&ana), json!({})).await;
    assert_eq!(status, 202, "{queued}");
    assert!(queued["seed"].as_u64().is_some(), "a fresh seed: {queued}");
    let id = queued["id"].as_u64().unwrap();
    let report = finished(&server, &ana, id).await;
    assert_eq!(report["status"], "program_error", "{report}");
    assert!(report["reason"].as_str().unwrap().contains("RuntimeError: wheels?"), "{report}");
    assert!(report["score"].is_null(), "no time for an attempt that did not solve it: {report}");

    let (status, refused) = start(&server, Some(&bob), json!({})).await;
    assert_eq!(status, 403, "{refused}");
    assert_eq!(read(&server, &bob, id).await.0, 403, "Bob reads Ana's attempt");
    assert_eq!(start(&server, None, json!({})).await.0, 401);
    assert_eq!(read(&server, TOKEN, id).await.0, 200, "the instructor reads every attempt");
    assert_eq!(read(&server, &ana, id + 100).await.0, 404);
    let url = server.url("/api/labs/demo/robots/cart/attempts");
    let garbled = server.http.post(url).bearer_auth(&ana).body("{\"seed\": \"seven\"}").send().await.unwrap();
    assert_eq!(garbled.status().as_u16(), 400);
}

#[tokio::test]
async fn a_lab_without_a_challenge_has_nothing_to_try_and_a_student_has_three_attempts_open() {
    if !python_runs_here() {
        return;
    }
    let plain = TestServer::start_with(common::yard(), false).await;
    let ana = plain.join_demo("Ana").await;
    add_cart(&plain, &ana, FORWARD).await;
    let (status, refused) = start(&plain, Some(&ana), json!({})).await;
    assert_eq!(status, 409, "{refused}");
    assert!(refused.to_string().contains("no challenge"), "{refused}");

    // Each attempt computes for 20 ms of CPU per step, 20 s of simulation: long enough
    // that none of the first three is over when the fourth is asked for.
    let slow = "import time\nfrom vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    \
                end = time.process_time() + 0.02\n    while time.process_time() < end:\n        pass\n";
    let server = lab_with_challenge().await;
    let ana = server.join_demo("Ana").await;
    add_cart(&server, &ana, slow).await;
    for _ in 0..3 {
        assert_eq!(start(&server, Some(&ana), json!({})).await.0, 202);
    }
    let (status, refused) = start(&server, Some(&ana), json!({})).await;
    assert_eq!(status, 429, "{refused}");
    assert!(refused.to_string().contains("3 attempts waiting or running"), "{refused}");
}

async fn add_cart_named(server: &TestServer, token: &str, name: &str, z: f64) {
    add_cart_with(server, token, name, z, FORWARD).await;
}

async fn try_robot(server: &TestServer, token: &str, robot: &str) -> Value {
    let url = server.url(&format!("/api/labs/demo/robots/{robot}/attempts"));
    let response = server.http.post(url).bearer_auth(token).json(&json!({ "seed": 3 })).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 202);
    let queued: Value = response.json().await.unwrap();
    finished(server, token, queued["id"].as_u64().unwrap()).await
}

async fn get(server: &TestServer, token: Option<&str>, path: &str) -> (u16, Vec<u8>) {
    let mut request = server.http.get(server.url(path));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    (response.status().as_u16(), response.bytes().await.unwrap().to_vec())
}

async fn board(server: &TestServer, token: Option<&str>) -> Value {
    let (status, body) = get(server, token, "/api/labs/demo/challenge").await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    serde_json::from_slice(&body).unwrap()
}

fn names(board: &Value) -> Vec<String> {
    board["rows"].as_array().unwrap().iter().map(|row| row["name"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn finished_attempts_make_the_board_and_each_one_replays_and_exports() {
    if !python_runs_here() {
        return;
    }
    let server = lab_with_challenge().await;
    let ana = server.join_demo("Ana").await;
    let bob = server.join_demo("Bob").await;
    add_cart_named(&server, &ana, "cart_ana", 8.0).await;
    add_cart_named(&server, &bob, "cart_bob", 5.0).await;
    let mut ana_page = server.connect("demo", Some(&ana)).await;

    let solved = try_robot(&server, &ana, "cart_ana").await;
    assert_eq!(solved["status"], "solved", "{solved}");
    ana_page.until(|m| matches!(m, common::Received::Json(vlab_protocol::ServerMsg::BoardChanged)).then_some(())).await;
    try_robot(&server, &bob, "cart_bob").await;

    // The board: the instructor sees both rows, a student her own, a viewer none.
    let all = board(&server, Some(TOKEN)).await;
    assert_eq!(all["title"], "Reach the bay");
    assert_eq!(all["score"], "time in seconds (lower is better)");
    assert_eq!(all["zones"][0]["name"], "bay");
    assert_eq!(names(&all), ["Ana", "Bob"], "the same time: the first to try first: {all}");
    let row = &all["rows"][0];
    assert_eq!((row["attempts"].as_u64(), row["solved"].as_bool()), (Some(1), Some(true)), "{row}");
    assert_eq!(row["best"]["score"], solved["score"]);
    let own = board(&server, Some(&bob)).await;
    assert_eq!(names(&own), ["Bob"]);
    assert_eq!(own["rows"][0]["you"], true);
    assert!(names(&board(&server, None).await).is_empty());
    server.patch_demo_settings(json!({ "board": "names" })).await;
    assert_eq!(names(&board(&server, Some(&bob)).await), ["Ana", "Bob"], "the instructor shows names");
    assert!(names(&board(&server, None).await).is_empty(), "names are for the class, not passers-by");

    // Her attempts, newest first; the instructor's list holds everybody's.
    let (_, mine) = get(&server, Some(&ana), "/api/labs/demo/attempts").await;
    let mine: Value = serde_json::from_slice(&mine).unwrap();
    assert_eq!(mine.as_array().unwrap().len(), 1, "{mine}");
    let (_, every) = get(&server, Some(TOKEN), "/api/labs/demo/attempts").await;
    assert_eq!(serde_json::from_slice::<Value>(&every).unwrap().as_array().unwrap().len(), 2);

    // The replay: from the start at x = 1.5 into the bay, ending solved.
    let id = solved["id"].as_u64().unwrap();
    let (status, replay) = get(&server, Some(&ana), &format!("/api/labs/demo/attempts/{id}/replay")).await;
    assert_eq!(status, 200);
    let replay: vlab_protocol::AttemptReplay = serde_json::from_slice(&replay).unwrap();
    assert_eq!(replay.attempt.id, id);
    assert_eq!(replay.zones.len(), 1);
    let chassis = replay.snapshot.bodies.iter().find(|b| b.name == "cart_ana_chassis").map(|b| b.id.0);
    let chassis = replay.moving.iter().position(|&b| Some(b) == chassis).expect("the chassis moves");
    let x = |frame: &vlab_protocol::ReplayFrame| frame.poses[chassis].position[0];
    let (first, last) = (replay.frames.first().unwrap(), replay.frames.last().unwrap());
    assert!((x(first) - 1.5).abs() < 0.05 && x(last) > 3.4, "{} → {}", x(first), x(last));
    assert_eq!(last.time, solved["sim_secs"].as_f64().unwrap());
    let texts: Vec<&str> = replay.events.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(texts, ["entered bay", "solved"], "{texts:?}");
    let (status, mcap) = get(&server, Some(&ana), &format!("/api/labs/demo/attempts/{id}/recording.mcap")).await;
    assert_eq!(status, 200);
    assert!(mcap.starts_with(b"\x89MCAP0\r\n") && mcap.ends_with(b"\x89MCAP0\r\n"), "a whole MCAP file");
    assert_eq!(get(&server, Some(&bob), &format!("/api/labs/demo/attempts/{id}/replay")).await.0, 403);
    assert_eq!(get(&server, Some(TOKEN), &format!("/api/labs/demo/attempts/{id}/replay")).await.0, 200);
}

/// Programs a class might send to the challenge: one that solves it, one that crashes,
/// one that hangs after its first step, one that floods its console.
const CLASS_PROGRAMS: [(&str, &str); 4] = [
    ("good", FORWARD),
    ("crash", "from vlab import Robot\nrobot = Robot()\nrobot.step()\nraise RuntimeError('wheels?')\n"),
    ("hang", "from vlab import Robot\nrobot = Robot()\nrobot.step()\nwhile True:\n    pass\n"),
    ("flood", "from vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    print('x' * 1000 * 1000)\n"),
];

#[tokio::test]
async fn twenty_one_attempts_of_a_class_end_each_with_its_status_while_the_shared_lab_runs_on() {
    if !python_runs_here() {
        return;
    }
    let yard = interpret(CHALLENGE_YARD, "yard.vlab", &MapLoader::new(), &Options::default()).unwrap().model;
    let server = TestServer::start_with(yard, true).await;
    let mut students = Vec::new();
    for i in 0..7 {
        let token = server.join_demo(&format!("Student {i}")).await;
        let (kind, program) = CLASS_PROGRAMS[i % CLASS_PROGRAMS.len()];
        let robot = format!("cart_{i}");
        add_cart_with(&server, &token, &robot, 1.0 + 1.4 * i as f64, program).await;
        students.push((token, robot, kind));
    }
    let step_before = server.lab_state("demo").await["step"].as_u64().unwrap();
    let mut attempts = Vec::new();
    for round in 0..3 {
        for (token, robot, kind) in &students {
            let url = server.url(&format!("/api/labs/demo/robots/{robot}/attempts"));
            let response =
                server.http.post(url).bearer_auth(token).json(&json!({ "seed": round })).send().await.unwrap();
            assert_eq!(response.status().as_u16(), 202, "{}", response.text().await.unwrap());
            let queued: Value = response.json().await.unwrap();
            attempts.push((token.clone(), queued["id"].as_u64().unwrap(), *kind));
        }
    }
    assert_eq!(attempts.len(), 21);
    for (token, id, kind) in &attempts {
        let report = finished(&server, token, *id).await;
        let status = report["status"].as_str().unwrap();
        match *kind {
            "good" => assert_eq!(status, "solved", "{report}"),
            "crash" => {
                assert!(status == "program_error" && report["reason"].to_string().contains("wheels?"), "{report}")
            }
            "hang" => {
                assert_eq!(status, "program_error", "{report}");
                assert!(report["reason"].as_str().is_some_and(|reason| reason.starts_with("stopped")), "{report}");
            }
            // Its megabyte lines are cut, it never drives: the challenge's no_progress.
            "flood" => {
                let reason = report["reason"].as_str().unwrap_or_default();
                assert!(status == "failed" && reason.contains("failure happened"), "{status}: {reason}");
                let longest = report["console"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|l| l["text"].as_str().unwrap().chars().count())
                    .max();
                assert_eq!(longest, Some(vlab_server::controller::MAX_CONSOLE_LINE_CHARS), "its lines are cut");
            }
            other => unreachable!("{other}"),
        }
    }
    // The shared lab ran on all along, and its good program still drives there.
    let lab = server.lab_state("demo").await;
    assert_eq!(lab["mode"], "running", "{lab}");
    assert!(lab["step"].as_u64().unwrap() > step_before, "{lab}");
    let (_, good) = server.get_json("/api/labs/demo/robots/cart_0").await;
    assert_eq!(good["program"]["state"], "running", "{good}");
}

async fn add_cart_with(server: &TestServer, token: &str, name: &str, z: f64, program: &str) {
    add_cart_from(server, token, name, z, program, CART).await;
}

/// A cart named `name` at (`x`, `z`), driving `program`.
async fn add_cart_at(server: &TestServer, token: &str, name: &str, x: f64, z: f64, program: &str) {
    let cart = CART.replace("(8, ", &format!("({x}, ")).replace("(8.15, ", &format!("({}, ", x + 0.15));
    add_cart_from(server, token, name, z, program, &cart).await;
}

async fn add_cart_from(server: &TestServer, token: &str, name: &str, z: f64, program: &str, cart: &str) {
    let description = cart
        .replace("robot cart", &format!("robot {name}"))
        .replace(", 8)", &format!(", {z})"))
        .replace(", 8.17)", &format!(", {})", z + 0.17))
        .replace(", 7.83)", &format!(", {})", z - 0.17))
        .replace("chassis", &format!("{name}_chassis"))
        .replace("wheel_l", &format!("{name}_wheel_l"))
        .replace("wheel_r", &format!("{name}_wheel_r"))
        .replace("caster", &format!("{name}_caster"))
        .replace(&format!("{name}_wheel_radius"), "wheel_radius");
    let form = Form::new()
        .part("description", Part::text(description).file_name(format!("{name}.vlab")))
        .part("drive.py", Part::text(program.to_owned()).file_name("drive.py"));
    let response =
        server.http.post(server.url("/api/labs/demo/robots")).bearer_auth(token).multipart(form).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200, "{}", response.text().await.unwrap());
}

async fn run_challenge(server: &TestServer, token: Option<&str>, action: &str) -> (u16, Value) {
    let mut request = server.http.post(server.url("/api/labs/demo/challenge/run")).json(&json!({ "action": action }));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

#[tokio::test]
async fn the_instructor_runs_the_challenge_live_and_the_board_shows_who_solved_it_in_how_long() {
    if !python_runs_here() {
        return;
    }
    let server = lab_with_challenge().await;
    let ana = server.join_demo("Ana").await;
    let bob = server.join_demo("Bob").await;
    // Ana's program computes for a second before its first step: the run waits for it.
    let slow_start = format!("import time\nwhile time.process_time() < 1.0:\n    pass\n{FORWARD}");
    add_cart_at(&server, &ana, "cart_ana", 1.5, 2.0, &slow_start).await;
    add_cart_at(
        &server,
        &bob,
        "cart_bob",
        1.5,
        6.0,
        "from vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    pass\n",
    )
    .await;
    // Drive the carts a little first: the run puts every robot back at its start.
    server.control("demo", vlab_protocol::ControlAction::Rate { rate: vlab_protocol::Rate::Max }).await;
    server.control("demo", vlab_protocol::ControlAction::Step { steps: 240 }).await;
    let mut ana_page = server.connect("demo", Some(&ana)).await;

    assert_eq!(run_challenge(&server, Some(&bob), "start").await.0, 403);
    assert_eq!(run_challenge(&server, None, "start").await.0, 401);
    let (status, started) = run_challenge(&server, Some(TOKEN), "start").await;
    assert_eq!(status, 200, "{started}");
    assert!(started["run"]["over"].is_null(), "{started}");
    ana_page.until(|m| matches!(m, common::Received::Json(vlab_protocol::ServerMsg::BoardChanged)).then_some(())).await;

    let deadline = tokio::time::Instant::now() + PATIENCE * 3;
    let over = loop {
        let board = board(&server, Some(&ana)).await;
        if !board["run"]["over"].is_null() {
            break board;
        }
        assert!(tokio::time::Instant::now() < deadline, "the run never ended: {board}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    let run = &over["run"];
    assert_eq!(run["over"], "every robot finished", "{run}");
    let robots = run["robots"].as_array().unwrap();
    assert_eq!(robots[0]["robot"], "cart_ana", "the solver first: {run}");
    assert_eq!((robots[0]["name"].as_str(), robots[0]["status"].as_str()), (Some("Ana"), Some("solved")), "{run}");
    let score = robots[0]["score"].as_f64().unwrap();
    assert!((3.0..6.0).contains(&score), "from x = 1.5 into the bay at 0.5 m/s: {score}");
    assert_eq!(robots[0]["finished_secs"].as_f64(), Some(score));
    assert_eq!((robots[1]["name"].as_str(), robots[1]["status"].as_str()), (Some("Bob"), Some("failed")), "{run}");
    assert!(robots[1]["reason"].as_str().unwrap().contains("failure happened at 5.00 s"), "no progress: {run}");
    assert_eq!(server.lab_state("demo").await["mode"], "paused", "the run's end pauses the lab");

    // Starting again resets the lab; stopping ends the run and the lab goes on.
    let (_, again) = run_challenge(&server, Some(TOKEN), "start").await;
    assert!(again["run"]["over"].is_null(), "{again}");
    let (status, stopped) = run_challenge(&server, Some(TOKEN), "stop").await;
    assert_eq!(status, 200);
    assert_eq!(stopped["run"]["over"], "stopped by the instructor", "{stopped}");
}

#[tokio::test]
async fn the_library_offers_its_challenges_and_a_lab_created_from_one_has_its_board() {
    let server = TestServer::start(false).await;
    let (status, scenes) = server.get_json("/api/scenes").await;
    assert_eq!(status, 200, "{scenes}");
    let files: Vec<&str> = scenes.as_array().unwrap().iter().filter_map(|s| s["file"].as_str()).collect();
    for file in ["challenges/park.vlab", "challenges/corridor.vlab", "challenges/push.vlab"] {
        assert!(files.contains(&file), "{file} in {files:?}");
    }
    let create = |scene: &str| {
        server
            .http
            .post(server.url("/api/labs"))
            .bearer_auth(TOKEN)
            .json(&json!({ "name": format!("Lab {scene}"), "scene": scene }))
            .send()
    };
    let created = create("challenges/park").await.unwrap();
    assert_eq!(created.status().as_u16(), 201);
    let created: Value = created.json().await.unwrap();
    let id = created["id"].as_str().unwrap();
    let (status, board) = server.get_json(&format!("/api/labs/{id}/challenge")).await;
    assert_eq!(status, 200, "{board}");
    assert_eq!(board["title"], "Park in the green bay");
    assert_eq!(board["zones"][0]["name"], "bay");
    for outside in ["challenges/../diffbot", "urdf/diffbot", "../scenes/diffbot", "challenges/.hidden"] {
        assert_eq!(create(outside).await.unwrap().status().as_u16(), 404, "{outside}");
    }
    let (status, none) = server.get_json("/api/labs/demo/challenge").await;
    assert_eq!(status, 404, "the demo sets no challenge: {none}");
}

#[tokio::test]
async fn finished_attempts_their_board_and_replays_outlive_a_restart_of_the_server() {
    if !python_runs_here() {
        return;
    }
    use common::binary::VlabProcess;
    let dir = std::env::temp_dir().join(format!("vlab-attempts-restart-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("vlab.db");
    let key = "attempts-restart-key";
    let http = reqwest::Client::new();
    let get = |base: &str, path: &str| http.get(format!("{base}{path}")).bearer_auth(key).send();

    let first = VlabProcess::start(&db, &["--paused", "--instructor-token", key]);
    let challenge = r#"challenge "Reach the bay" {
      time_limit 10; zone bay { box(1, 1, 2); pos(4, 0, 2); } start { pos(1.5, 0.08, 2); heading 0; }
      success inside(bay); score time;
    }"#;
    let inserted = http.post(format!("{}/api/labs/demo/scene", first.base)).bearer_auth(key).body(challenge);
    let inserted = inserted.send().await.unwrap();
    assert_eq!(inserted.status().as_u16(), 200, "{}", inserted.text().await.unwrap());
    let cart = CART.replace("(8, ", "(1.5, ").replace("(8.15, ", "(1.65, ");
    let form = Form::new()
        .part("description", Part::text(cart).file_name("cart.vlab"))
        .part("drive.py", Part::text(FORWARD).file_name("drive.py"));
    let added = http.post(format!("{}/api/labs/demo/robots", first.base)).bearer_auth(key).multipart(form);
    let added = added.send().await.unwrap();
    assert_eq!(added.status().as_u16(), 200, "{}", added.text().await.unwrap());
    let started =
        http.post(format!("{}/api/labs/demo/robots/cart/attempts", first.base)).bearer_auth(key).json(&json!({}));
    let queued: Value = started.send().await.unwrap().json().await.unwrap();
    let id = queued["id"].as_u64().unwrap();
    let deadline = tokio::time::Instant::now() + PATIENCE * 3;
    let before = loop {
        let report: Value =
            get(&first.base, &format!("/api/labs/demo/attempts/{id}")).await.unwrap().json().await.unwrap();
        if !matches!(report["status"].as_str(), Some("queued" | "running")) {
            break report;
        }
        assert!(tokio::time::Instant::now() < deadline, "{report}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert!(before["status"].is_string() && before["sim_secs"].is_number(), "{before}");
    drop(first);

    let again = VlabProcess::start(&db, &["--paused", "--instructor-token", key]);
    let after: Value = get(&again.base, &format!("/api/labs/demo/attempts/{id}")).await.unwrap().json().await.unwrap();
    assert_eq!(after, before, "the same answer after the restart");
    let board: Value = get(&again.base, "/api/labs/demo/challenge").await.unwrap().json().await.unwrap();
    assert_eq!(board["rows"][0]["last"]["id"].as_u64(), Some(id), "{board}");
    let replay = get(&again.base, &format!("/api/labs/demo/attempts/{id}/replay")).await.unwrap();
    assert_eq!(replay.status().as_u16(), 200);
    let next =
        http.post(format!("{}/api/labs/demo/robots/cart/attempts", again.base)).bearer_auth(key).json(&json!({}));
    let next: Value = next.send().await.unwrap().json().await.unwrap();
    assert!(next["id"].as_u64().unwrap() > id, "numbers go on: {next}");
    drop(again);
    let _ = std::fs::remove_dir_all(&dir);
}
