//! Robots' programs talking by radio through the real server: a talker sends its step
//! number every control step; a listener in range hears exactly that, one control step
//! (5 steps) later, and one out of range hears nothing; a message past `max_length` is
//! dropped and its sender told why; a reset lockstep run hears the same again.

use crate::common;

use std::time::{Duration, Instant};

use common::{PATIENCE, TOKEN, TestServer, python_runs_here, yard};
use reqwest::multipart::{Form, Part};
use serde_json::Value;
use vlab_protocol::ControlAction;

/// Sends its step number every control step, and once, at its tenth, a message one
/// byte over its radio's `max_length` of 8.
const TALKER: &str = "\
from vlab import Robot
robot = Robot()
n = 0
while robot.step():
    n += 1
    robot.send(str(robot.step_count()))
    if n == 10:
        robot.send('123456789')
";

/// Prints every message it hears with the step it heard it at.
const LISTENER: &str = "\
from vlab import Robot
robot = Robot()
while robot.step():
    for message in robot.receive():
        print(robot.step_count(), message.sender, message.text)
";

/// A robot standing still at (x, 0.15, 6) with a radio.
fn robot(name: &str, x: f64, program: &str) -> Form {
    robot_at(name, x, 6.0, program)
}

/// A robot standing still at (x, 0.15, z) with a radio.
fn robot_at(name: &str, x: f64, z: f64, program: &str) -> Form {
    let scene = format!(
        "robot {name} {{ code \"main.py\"; body {{ static {name}_box {{ shape box(0.3, 0.3, 0.3); pos({x}, 0.15, {z});\n\
         Radio radio {{ range 4; max_length 8; }} }} }} }}\n"
    );
    Form::new()
        .part("description", Part::text(scene).file_name("robot.vlab"))
        .part("program", Part::text(program.to_owned()).file_name("main.py"))
}

async fn report(server: &TestServer, robot: &str) -> Value {
    let url = server.url(&format!("/api/labs/demo/robots/{robot}"));
    let response = server.http.get(url).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    response.json().await.unwrap()
}

async fn running(server: &TestServer, robot: &str) {
    let deadline = Instant::now() + PATIENCE;
    while report(server, robot).await["program"]["state"] == "starting" {
        assert!(Instant::now() < deadline, "{robot}'s program never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A robot's printed lines of its latest run: `(step printed at, sender, text)`.
fn heard(report: &Value) -> Vec<(u64, String, String)> {
    let lines = report["console"].as_array().unwrap();
    let start = lines.iter().rposition(|l| l["source"] == "lab" && l["text"].as_str().unwrap().starts_with("starting"));
    lines[start.map_or(0, |i| i + 1)..]
        .iter()
        .filter(|l| l["source"] == "print")
        .map(|l| {
            let text = l["text"].as_str().unwrap();
            let parts: Vec<&str> = text.split(' ').collect();
            (parts[0].parse().unwrap(), parts[1].to_owned(), parts[2].to_owned())
        })
        .collect()
}

fn lab_lines(report: &Value) -> Vec<String> {
    let lines = report["console"].as_array().unwrap();
    lines.iter().filter(|l| l["source"] == "lab").map(|l| l["text"].as_str().unwrap().to_owned()).collect()
}

/// Steps the paused lab by hand (lockstep) `steps` steps.
async fn step(server: &TestServer, steps: u64) {
    for _ in 0..steps / 50 {
        server.control("demo", ControlAction::Step { steps: 50 }).await;
    }
}

#[tokio::test]
async fn a_listener_in_range_hears_each_message_one_control_step_later_and_one_out_of_range_nothing() {
    if !python_runs_here() {
        return;
    }
    let server = TestServer::start_with(yard(), false).await;
    // The talker at x = 2; the listener 3.9 m away (in its 4 m range); the far one 4.1 m,
    // off to the side (beside the listener, the two boxes would overlap).
    for form in [robot("talker", 2.0, TALKER), robot("near", 5.9, LISTENER), robot_at("far", 2.0, 10.1, LISTENER)] {
        let response = server
            .http
            .post(server.url("/api/labs/demo/robots"))
            .bearer_auth(TOKEN)
            .multipart(form)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200, "{}", response.text().await.unwrap());
    }
    for name in ["talker", "near", "far"] {
        running(&server, name).await;
    }
    step(&server, 400).await;

    let near = heard(&report(&server, "near").await);
    assert!(near.len() >= 60, "about 80 control steps of messages: {near:?}");
    for (at, sender, text) in &near {
        assert_eq!(sender, "talker");
        let sent_at: u64 = text.parse().unwrap_or_else(|_| panic!("only the talker's step numbers: {text}"));
        assert_eq!(*at, sent_at + 5, "sent with the answer to step {sent_at}, heard at the next control step");
    }
    // One message per control step, none lost, none twice.
    for pair in near.windows(2) {
        assert_eq!(pair[1].0, pair[0].0 + 5, "{pair:?}");
    }
    assert_eq!(heard(&report(&server, "far").await), vec![], "4.1 m is beyond the talker's 4 m");

    let talker = lab_lines(&report(&server, "talker").await);
    let refusals: Vec<&String> = talker.iter().filter(|l| l.starts_with("radio:")).collect();
    assert_eq!(
        refusals,
        vec!["radio: a message of 9 bytes not sent: this radio sends at most 8 bytes (max_length)"],
        "{talker:?}"
    );
    let reading = &report(&server, "near").await["sensors"][0];
    assert_eq!(reading["kind"], "Radio");
    assert_eq!(reading["measured"]["type"], "radio");

    // A reset lockstep lab hears the same again.
    server.control("demo", ControlAction::Reset).await;
    for name in ["talker", "near", "far"] {
        running(&server, name).await;
    }
    step(&server, 400).await;
    assert_eq!(heard(&report(&server, "near").await), near);
}
