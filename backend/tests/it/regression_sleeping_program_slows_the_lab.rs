//! Regression: one student's program slowed the whole class. The lab waits for every
//! program's answer each control step, and `while robot.step(): time.sleep(0.3)` slept
//! 0.3 s of wall time per control step of 20.8 ms: the lab ran at 0.06× real time for
//! everybody. `time.sleep` now waits in simulation time (the program answers the
//! lab's steps with its commands kept meanwhile), so the lab keeps its pace, and
//! "drive; sleep(2); turn" turns at exactly 2.00 s on every run, whatever the load.

use crate::common;

use std::time::{Duration, Instant};

use common::{PATIENCE, TOKEN, TestServer};
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use vlab_protocol::{ControlAction, Rate};
use vlab_server::controller::{ProgramError, ProgramSpec, PythonProgram};
use vlab_server::scene::{MapLoader, Options, SceneModel, interpret};

/// An empty fenced yard, 12 m × 12 m: room to drive and nothing else moving.
fn yard() -> SceneModel {
    let source = "environment wallrect { width 12; length 12; height 0.5; gravity -9.81; }";
    interpret(source, "yard.vlab", &MapLoader::new(), &Options::default()).unwrap().model
}

/// Whether this machine can confine Python programs; where it cannot, the server must
/// refuse them with the reason, which is checked, and the test has nothing to run.
async fn python_runs_here(server: &TestServer) -> bool {
    match PythonProgram::start(ProgramSpec::new("probe", "from vlab import Robot\nRobot().step()\n")) {
        Ok(mut program) => {
            let _ = program.stop();
            true
        }
        Err(ProgramError::SandboxUnavailable(_)) => {
            let (status, reply) = upload(server, &diffbot("probe"), "pass\n").await;
            assert_eq!(status, 422, "{reply}");
            let message = reply["errors"][0]["message"].as_str().unwrap_or_default();
            assert!(message.contains("the sandbox cannot be enforced"), "{reply}");
            eprintln!("programs are refused on this machine, as they must be: {message}");
            false
        }
        Err(e) => panic!("a trivial program did not start: {e}"),
    }
}

/// A diffbot of the scene library, `diffbot_{suffix}`, in the yard.
fn diffbot(suffix: &str) -> String {
    format!("include \"diffbot_robot.vlab\";\ncall diffbot(\"_{suffix}\", 3, 6, 0);\n")
}

/// The instructor uploads a robot with its program (`main.py`).
async fn upload(server: &TestServer, description: &str, program: &str) -> (u16, Value) {
    let form = Form::new()
        .part("description", Part::text(description.to_owned()).file_name("robot.vlab"))
        .part("program", Part::text(program.to_owned()).file_name("main.py"));
    let response =
        server.http.post(server.url("/api/labs/demo/robots")).bearer_auth(TOKEN).multipart(form).send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

async fn report(server: &TestServer, name: &str) -> Value {
    let response =
        server.http.get(server.url(&format!("/api/labs/demo/robots/{name}"))).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    response.json().await.unwrap()
}

/// Uploads `program` on a diffbot into the paused yard and waits until it runs.
async fn running(server: &TestServer, program: &str) -> bool {
    if !python_runs_here(server).await {
        return false;
    }
    let (status, reply) = upload(server, &diffbot("ana"), program).await;
    assert_eq!(status, 200, "{reply}");
    let deadline = Instant::now() + PATIENCE;
    loop {
        let report = report(server, "diffbot_ana").await;
        match report["program"]["state"].as_str() {
            Some("starting") => {}
            Some("running") => return true,
            _ => panic!("the program did not start: {report}"),
        }
        assert!(Instant::now() < deadline, "the program never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The drive's command as the robot report gives it.
fn drive_command(report: &Value) -> Value {
    let actuators = report["actuators"].as_array().unwrap();
    actuators.iter().find(|a| a["name"] == "drive").unwrap()["command"].clone()
}

/// The program's own console lines (`[step] text`), the lab's left out.
fn printed(report: &Value) -> Vec<(u64, f64, String)> {
    report["console"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["source"] != "lab")
        .map(|l| (l["step"].as_u64().unwrap(), l["time"].as_f64().unwrap(), l["text"].as_str().unwrap().to_owned()))
        .collect()
}

#[tokio::test]
async fn a_program_sleeping_between_steps_keeps_the_lab_at_real_time() {
    let server = TestServer::start_with(yard(), false).await;
    let program = "import time\nfrom vlab import Robot\n\nrobot = Robot()\nwhile robot.step():\n    time.sleep(0.3)\n";
    if !running(&server, program).await {
        return;
    }
    server.control("demo", ControlAction::Resume).await;
    let (wall0, step0) = (Instant::now(), server.lab_state("demo").await["step"].as_u64().unwrap());
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (wall1, step1) = (Instant::now(), server.lab_state("demo").await["step"].as_u64().unwrap());
    server.control("demo", ControlAction::Pause).await;

    // Real time is 240 steps a wall second. Sleeping 0.3 s of wall time per control
    // step gave 5 steps per 0.3 s (6%); a quarter of real time is a loose floor.
    let wall = (wall1 - wall0).as_secs_f64();
    let advanced = step1 - step0;
    let real_time = wall * 240.0;
    eprintln!(
        "the lab advanced {advanced} steps in {wall:.2} s of wall time: {:.0} steps a second, {:.0}% of real time",
        advanced as f64 / wall,
        100.0 * advanced as f64 / real_time
    );
    assert!(advanced as f64 >= real_time / 4.0, "{advanced} steps in {wall:.2} s: the sleeping program slows the lab");
    let after = report(&server, "diffbot_ana").await;
    assert_eq!(after["program"]["state"], "running", "the program sleeps on, unpunished: {after}");
}

/// Drives, sleeps 2 s, turns, sleeps 1 s, stops; says when, by both clocks.
const DRIVE_SLEEP_TURN: &str = "\
import time
from vlab import Robot

robot = Robot()
drive = robot.actuator('drive')
drive.set(0.2, 0.0)
time.sleep(2)
drive.set(0.0, 1.0)
print(f'turning at step {robot.step_count()} t={time.time():.3f} same clock: {time.time() == robot.time()}')
time.sleep(1)
drive.set(0.0, 0.0)
print(f'stopping at step {robot.step_count()} t={time.time():.3f}')
while robot.step():
    pass
";

#[tokio::test]
async fn drive_sleep_two_seconds_turn_changes_the_commands_at_the_control_step_at_two_seconds() {
    let server = TestServer::start_with(yard(), false).await;
    if !running(&server, DRIVE_SLEEP_TURN).await {
        return;
    }
    let forward = json!({ "v": 0.2, "omega": 0.0 });
    let turning = json!({ "v": 0.0, "omega": 1.0 });

    // 2.00 s is step 480 (1/240 s steps), the 96th control step. The program reads
    // that step's readings, turns and prints; the lab collects the answer at the next
    // control step, 485, and it reaches the drive in the pre-step phase of step 486
    // (one control period of actuation delay).
    assert_eq!(server.control("demo", ControlAction::Step { steps: 480 }).await.step, 480);
    let before = report(&server, "diffbot_ana").await;
    assert_eq!(drive_command(&before), forward);
    assert_eq!(printed(&before), vec![], "asleep, or its answer not collected yet: nothing printed");

    server.control("demo", ControlAction::Step { steps: 5 }).await;
    let collected = report(&server, "diffbot_ana").await;
    assert_eq!(drive_command(&collected), forward, "the turn is answered for step 480, applied at 486");
    assert_eq!(printed(&collected), vec![(480, 2.0, "turning at step 480 t=2.000 same clock: True".to_string())]);

    server.control("demo", ControlAction::Step { steps: 1 }).await;
    assert_eq!(drive_command(&report(&server, "diffbot_ana").await), turning);

    server.control("demo", ControlAction::Step { steps: 239 }).await;
    let at_three = report(&server, "diffbot_ana").await;
    assert_eq!(at_three["step"], 725);
    assert_eq!(drive_command(&at_three), turning);
    assert_eq!(printed(&at_three)[1], (720, 3.0, "stopping at step 720 t=3.000".to_string()));
    server.control("demo", ControlAction::Step { steps: 1 }).await;
    assert_eq!(drive_command(&report(&server, "diffbot_ana").await), json!({ "v": 0.0, "omega": 0.0 }));
}

/// Random legs of random lengths, each ending with where the robot is and when.
const RANDOM_LEGS: &str = "\
import random
import time
from vlab import Robot

robot = Robot()
drive = robot.actuator('drive')
gps = robot.sensor('gps')
for leg in range(8):
    drive.set(0.2, random.uniform(-1.0, 1.0))
    time.sleep(random.choice([0.25, 0.5, 0.7]))
    x, y, z = gps.value()
    print(f'leg {leg} t={time.time()} step={robot.step_count()} x={x!r} z={z!r}')
drive.set(0.0, 0.0)
print('done at', time.monotonic())
while robot.step():
    pass
";

/// Sim time long enough for every leg (at most 8 × 0.7 s).
const RUN_STEPS: u64 = 1440;

/// The program's console up to [`RUN_STEPS`], as JSON text.
fn console_until_end(report: &Value) -> String {
    let lines: Vec<&Value> =
        report["console"].as_array().unwrap().iter().filter(|l| l["step"].as_u64().unwrap() <= RUN_STEPS).collect();
    serde_json::to_string(&lines).unwrap()
}

#[tokio::test]
async fn the_same_upload_and_seed_print_the_same_console_stepped_or_running_flat_out() {
    let mut consoles = Vec::new();
    for flat_out in [false, true] {
        let server = TestServer::start_with(yard(), false).await;
        if !running(&server, RANDOM_LEGS).await {
            return;
        }
        if flat_out {
            // As fast as the machine goes, paced by nothing but the programs' answers.
            server.control("demo", ControlAction::Rate { rate: Rate::Max }).await;
            server.control("demo", ControlAction::Resume).await;
            let deadline = Instant::now() + PATIENCE;
            while server.lab_state("demo").await["step"].as_u64().unwrap() < RUN_STEPS {
                assert!(Instant::now() < deadline, "the lab never reached step {RUN_STEPS}");
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            server.control("demo", ControlAction::Pause).await;
        } else {
            for _ in 0..RUN_STEPS / 120 {
                server.control("demo", ControlAction::Step { steps: 120 }).await;
            }
        }
        consoles.push(console_until_end(&report(&server, "diffbot_ana").await));
    }
    assert!(consoles[0].contains("leg 7 t=") && consoles[0].contains("done at"), "{}", consoles[0]);
    assert_eq!(consoles[0], consoles[1], "two runs of the same upload printed differently");
}
