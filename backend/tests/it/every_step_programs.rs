//! The step as VLAB ran it: a robot whose scene says `program_rate every_step;` (or whose
//! project file says `RATE:EVERY_STEP`) runs its program at every physics step, and in a
//! lockstep lab the commands it sets after the readings of step k act in the physics of
//! step k + 1 (pre-step, actuators, physics, sensors, post-step); one at the control
//! rate is asked every 5th step and acts one control period later. A lab runs at most
//! `MAX_EVERY_STEP_PROGRAMS` such programs; the next one runs at the control rate and
//! says why.

use crate::common;

use common::{PATIENCE, TOKEN, TestServer, python_runs_here, yard};
use serde_json::{Value, json};
use vlab_lab::programs::MAX_EVERY_STEP_PROGRAMS;
use vlab_protocol::ControlAction;

/// Spins its wheel from its first step on and prints, at every call, the step of its
/// readings and the wheel's angle then.
const SPINNER: &str = r#"
from vlab import Robot
robot = Robot()
motor = robot.actuator("m")
angle = robot.sensor("js")
while robot.step():
    motor.set_speed(5.0)
    print("at", robot.step_count(), "angle", angle.value())
"#;

/// A robot with a wheel on a hinge above its chassis, at `x`.
fn spinner(name: &str, x: f64, extra: &str) -> String {
    format!(
        r#"robot {name} {{
  {extra}
  body {{
    {name}_chassis {{ shape box(0.4, 0.2, 0.4); pos({x}, 0.1, 2); }}
    {name}_wheel {{ shape cylinder(0.1, 0.05); pos({x}, 0.45, 2); }}
    JointHinge({name}_chassis, {name}_wheel) {{ anchor({x}, 0.45, 2); axis(1, 0, 0); SimpleMotor m; JointState js; }}
  }}
}}
"#
    )
}

async fn report(server: &TestServer, robot: &str) -> Value {
    let url = server.url(&format!("/api/labs/demo/robots/{robot}"));
    let response = server.http.get(url).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    response.json().await.unwrap()
}

async fn started(server: &TestServer, robots: &[&str]) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    for robot in robots {
        while report(server, robot).await["program"]["state"] == "starting" {
            assert!(tokio::time::Instant::now() < deadline, "{robot}'s program never started");
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        assert_eq!(report(server, robot).await["program"]["state"], "running");
    }
}

/// The (step, angle) lines a robot's console holds, in order.
async fn seen(server: &TestServer, robot: &str) -> Vec<(u64, f64)> {
    let console = report(server, robot).await["console"].as_array().cloned().unwrap_or_default();
    console
        .iter()
        .filter_map(|line| {
            let words: Vec<&str> = line["text"].as_str()?.split_whitespace().collect();
            match words.as_slice() {
                ["at", step, "angle", angle] => Some((step.parse().ok()?, angle.parse().unwrap_or(0.0))),
                _ => None,
            }
        })
        .collect()
}

/// The first step whose readings show the wheel turned (5 rad/s turns it 0.02 rad per
/// step; the hinge settling under gravity moves it by micro-radians).
fn first_turned(lines: &[(u64, f64)]) -> u64 {
    lines.iter().find(|(_, angle)| angle.abs() > 0.005).unwrap_or_else(|| panic!("the wheel never turned: {lines:?}")).0
}

async fn lockstep_lab(scene: &str, files: &[(&str, &[u8])]) -> TestServer {
    let server = TestServer::start_with(yard(), false).await;
    server.patch_demo_settings(json!({ "sync": "lockstep" })).await;
    let response = server.upload_demo_bundle(scene, files).await;
    let status = response.status().as_u16();
    let reply: Value = response.json().await.unwrap();
    assert_eq!(status, 200, "{reply}");
    server
}

#[tokio::test]
async fn a_program_at_every_step_is_asked_at_every_step_and_acts_at_the_next() {
    if !python_runs_here() {
        return;
    }
    let scene = [
        spinner("every", 2.0, r#"code "every.rprj";"#),
        spinner("scene_word", 4.0, r#"code "spin.py"; program_rate every_step;"#),
        spinner("control", 6.0, r#"code "spin.py";"#),
    ]
    .concat();
    let project = "# runs as VLAB ran its programs\nTYPE:PYTHON\nSRC:spin.py\nRATE:EVERY_STEP\n";
    let files: [(&str, &[u8]); 2] = [("spin.py", SPINNER.as_bytes()), ("every.rprj", project.as_bytes())];
    let server = lockstep_lab(&scene, &files).await;
    started(&server, &["every", "scene_word", "control"]).await;
    server.control("demo", ControlAction::Step { steps: 40 }).await;

    for robot in ["every", "scene_word"] {
        let lines = seen(&server, robot).await;
        let steps: Vec<u64> = lines.iter().map(|(step, _)| *step).collect();
        assert!(steps.len() >= 30, "{robot} answered {steps:?}");
        assert!(steps.windows(2).all(|pair| pair[1] == pair[0] + 1), "{robot} is asked at every step: {steps:?}");
        assert_eq!(first_turned(&lines), steps[0] + 1, "{robot}'s first command acts at the next step: {lines:?}");
        let console = report(&server, robot).await["console"].to_string();
        assert!(console.contains("at every physics step"), "{robot}'s console says how it runs: {console}");
    }
    let lines = seen(&server, "control").await;
    let steps: Vec<u64> = lines.iter().map(|(step, _)| *step).collect();
    assert!(steps.windows(2).all(|pair| pair[1] == pair[0] + 5), "asked every control step: {steps:?}");
    assert_eq!(first_turned(&lines), steps[0] + 10, "acts one control period after it answers: {lines:?}");
}

#[tokio::test]
async fn past_the_most_a_lab_takes_a_program_runs_at_the_control_rate_and_says_why() {
    if !python_runs_here() {
        return;
    }
    let names: Vec<String> = (0..=MAX_EVERY_STEP_PROGRAMS).map(|i| format!("r{i:02}")).collect();
    let scene: String = names
        .iter()
        .enumerate()
        .map(|(i, name)| spinner(name, 1.0 + i as f64, r#"code "spin.py"; program_rate every_step;"#))
        .collect();
    let server = lockstep_lab(&scene, &[("spin.py", SPINNER.as_bytes())]).await;
    let robots: Vec<&str> = names.iter().map(String::as_str).collect();
    started(&server, &robots).await;
    server.control("demo", ControlAction::Step { steps: 20 }).await;

    let (last, first) = (names.last().unwrap(), &names[..MAX_EVERY_STEP_PROGRAMS]);
    for name in first {
        let steps: Vec<u64> = seen(&server, name).await.iter().map(|(step, _)| *step).collect();
        assert!(steps.windows(2).all(|pair| pair[1] == pair[0] + 1), "{name}: {steps:?}");
    }
    let console = report(&server, last).await["console"].to_string();
    let why = format!("{MAX_EVERY_STEP_PROGRAMS} programs of this lab already run at every step");
    assert!(console.contains(&why), "the one past the most says why: {console}");
    let steps: Vec<u64> = seen(&server, last).await.iter().map(|(step, _)| *step).collect();
    assert!(steps.len() >= 2 && steps.windows(2).all(|pair| pair[1] == pair[0] + 5), "{last}: {steps:?}");
}
