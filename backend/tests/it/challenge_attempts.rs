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
const CHALLENGE_YARD: &str = r#"
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
const CART: &str = r#"
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

const FORWARD: &str = r#"
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
