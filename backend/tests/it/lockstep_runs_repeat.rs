//! A lockstep lab repeats its run: the instructor sets `sync` to `lockstep`, a program
//! that draws random numbers, reads noisy sensors, iterates a set of strings and
//! computes hard on some steps runs at 1×; the lab is reset and runs again; every
//! control step's console line (the robot's position, the draws, the order) is the same
//! in both runs, and the same again when the lab is stepped by hand.

use crate::common;

use std::time::{Duration, Instant};

use common::{PATIENCE, TOKEN, TestServer, python_runs_here, yard};
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use vlab_protocol::ControlAction;

/// The program's lines are compared up to this step.
const COMPARED_STEPS: u64 = 480;

/// Wanders with random turns; every other control step prints where it is (noisy GPS
/// and lidar), a random draw and a set's order; every seventh it computes for a while.
const PROGRAM: &str = "\
import random
from vlab import Robot

robot = Robot()
drive, gps, lidar = robot.actuator('drive'), robot.sensor('gps'), robot.sensor('lidar')
names = {'ana', 'bea', 'carl', 'dora', 'emil', 'fay'}
while robot.step():
    n = robot.step_count() // 5
    if n % 7 == 0:
        total = sum(i * i for i in range(200_000))
    drive.set(0.2, random.uniform(-1.0, 1.0))
    if n % 2 == 0:
        x, y, z = gps.value()
        near = min(lidar.ranges() or [0.0])
        print(f'{robot.step_count()} x={x!r} z={z!r} near={near!r} r={random.random()!r} {list(names)}')
";

async fn report(server: &TestServer) -> Value {
    let url = server.url("/api/labs/demo/robots/diffbot_ana");
    let response = server.http.get(url).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    response.json().await.unwrap()
}

/// Waits until the program has left `starting`.
async fn started(server: &TestServer) {
    let deadline = Instant::now() + PATIENCE;
    while report(server).await["program"]["state"] == "starting" {
        assert!(Instant::now() < deadline, "the program never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The program's own lines of its latest run (after the lab's last "starting"), up to
/// [`COMPARED_STEPS`].
fn this_run(report: &Value) -> Vec<String> {
    let lines = report["console"].as_array().unwrap();
    let start = lines.iter().rposition(|l| l["source"] == "lab" && l["text"].as_str().unwrap().starts_with("starting"));
    lines[start.map_or(0, |i| i + 1)..]
        .iter()
        .filter(|l| l["source"] == "print" && l["step"].as_u64().unwrap() <= COMPARED_STEPS)
        .map(|l| format!("{} {}", l["step"], l["text"].as_str().unwrap()))
        .collect()
}

/// Runs the lab at 1× until it is past the compared steps (and their answers), pauses.
async fn run_at_one_x(server: &TestServer) -> Vec<String> {
    server.control("demo", ControlAction::Resume).await;
    let deadline = Instant::now() + PATIENCE;
    while server.lab_state("demo").await["step"].as_u64().unwrap() < COMPARED_STEPS + 20 {
        assert!(Instant::now() < deadline, "the lab never got past step {COMPARED_STEPS}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    server.control("demo", ControlAction::Pause).await;
    this_run(&report(server).await)
}

#[tokio::test]
async fn a_reset_lockstep_lab_runs_again_step_for_step() {
    if !python_runs_here() {
        return;
    }
    let server = TestServer::start_with(yard(), false).await;
    let patch = server
        .http
        .patch(server.url("/api/labs/demo/settings"))
        .bearer_auth(TOKEN)
        .json(&json!({ "sync": "lockstep" }))
        .send()
        .await
        .unwrap();
    assert_eq!(patch.status().as_u16(), 200);
    assert_eq!(patch.json::<Value>().await.unwrap()["sync"], "lockstep");

    let form = Form::new()
        .part(
            "description",
            Part::text("include \"diffbot_robot.vlab\";\ncall diffbot(\"_ana\", 3, 6, 0);\n").file_name("robot.vlab"),
        )
        .part("program", Part::text(PROGRAM).file_name("main.py"));
    let response =
        server.http.post(server.url("/api/labs/demo/robots")).bearer_auth(TOKEN).multipart(form).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    started(&server).await;

    let first = run_at_one_x(&server).await;
    assert_eq!(first.len() as u64, COMPARED_STEPS / 10, "a line every other control step: {first:#?}");
    let joined = report(&server).await["console"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["text"].as_str().filter(|t| t.starts_with("running from step")).map(str::to_owned))
        .next_back()
        .expect("the lab says when the program joined");

    // Reset: the program starts again at step 0 and joins where it joined before.
    server.control("demo", ControlAction::Reset).await;
    started(&server).await;
    let second = run_at_one_x(&server).await;
    for (one, two) in first.iter().zip(&second) {
        assert_eq!(one, two, "the runs part at this control step");
    }
    assert_eq!(first, second);
    let rejoined = report(&server).await["console"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["text"].as_str().filter(|t| t.starts_with("running from step")).map(str::to_owned))
        .next_back()
        .unwrap();
    assert_eq!(rejoined, joined, "the program joins at the same step after the reset");

    // Stepped by hand (always lockstep), a third run is the same again.
    server.control("demo", ControlAction::Reset).await;
    started(&server).await;
    for _ in 0..(COMPARED_STEPS + 20) / 50 {
        server.control("demo", ControlAction::Step { steps: 50 }).await;
    }
    assert_eq!(this_run(&report(&server).await), first);
}
