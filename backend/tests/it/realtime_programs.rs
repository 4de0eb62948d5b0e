//! A real-time lab never waits for a program, against the real server: a program that
//! loops before its first step leaves the clock running while it "starts" (its robot
//! holding still) until its start-up budget stops it; a program that needs far more
//! CPU than its share is marked late (status and console) while the lab steps on; the
//! sync setting refuses what it does not know.

use crate::common;

use std::time::{Duration, Instant};

use common::{PATIENCE, TOKEN, TestServer, python_runs_here, yard};
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use vlab_protocol::ControlAction;

async fn upload(server: &TestServer, suffix: &str, z: u32, program: &str) {
    let description = format!("include \"diffbot_robot.vlab\";\ncall diffbot(\"_{suffix}\", 3, {z}, 0);\n");
    let form = Form::new()
        .part("description", Part::text(description).file_name("robot.vlab"))
        .part("program", Part::text(program.to_owned()).file_name("main.py"));
    let response =
        server.http.post(server.url("/api/labs/demo/robots")).bearer_auth(TOKEN).multipart(form).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200, "{}", response.text().await.unwrap());
}

async fn report(server: &TestServer, robot: &str) -> Value {
    let url = server.url(&format!("/api/labs/demo/robots/{robot}"));
    server.http.get(url).bearer_auth(TOKEN).send().await.unwrap().json().await.unwrap()
}

async fn step(server: &TestServer) -> u64 {
    server.lab_state("demo").await["step"].as_u64().unwrap()
}

fn console(report: &Value) -> String {
    let lines = report["console"].as_array().cloned().unwrap_or_default();
    lines.iter().map(|l| l["text"].as_str().unwrap_or_default().to_owned()).collect::<Vec<_>>().join("\n")
}

#[tokio::test]
async fn a_program_that_loops_before_its_first_step_never_holds_the_clock() {
    if !python_runs_here() {
        return;
    }
    let server = TestServer::start_with(yard(), true).await;
    upload(&server, "loops", 6, "n = 0\nwhile True:\n    n += 1\n").await;
    let first = report(&server, "diffbot_loops").await;
    assert_eq!(first["program"]["state"], "starting", "{first}");
    let (step0, x0) = (step(&server).await, first["pose"]["position"][0].as_f64().unwrap());
    tokio::time::sleep(Duration::from_millis(500)).await;
    let still = report(&server, "diffbot_loops").await;
    assert_eq!(still["program"]["state"], "starting", "still starting: {still}");
    assert!(step(&server).await > step0, "the clock goes on while the program starts");
    let x1 = still["pose"]["position"][0].as_f64().unwrap();
    assert!((x1 - x0).abs() < 1e-3, "its robot holds still meanwhile: {x0} → {x1}");

    // Its start-up budget (5 s) ends it, with the reason.
    let deadline = Instant::now() + PATIENCE;
    let stopped = loop {
        let now = report(&server, "diffbot_loops").await;
        if now["program"]["state"] == "stopped" {
            break now;
        }
        assert!(Instant::now() < deadline, "never stopped: {now}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let message = stopped["program"]["message"].as_str().unwrap();
    assert!(message.contains("did not answer within 5000 ms"), "{message}");
}

#[tokio::test]
async fn a_program_over_its_cpu_share_is_late_and_the_lab_steps_on() {
    if !python_runs_here() {
        return;
    }
    let server = TestServer::start_with(yard(), true).await;
    // 45 ms of its own CPU per 21 ms control step, measured by its CPU clock (the lab
    // replaces `time.time()`, never `time.process_time()`): twice its share and half
    // the 84 ms past which it would be stopped, however fast or busy the machine is.
    let hog = "import time\nfrom vlab import Robot\nrobot = Robot()\nwhile robot.step():\n\
               \x20   start = time.process_time()\n\
               \x20   while time.process_time() - start < 0.045:\n\
               \x20       pass\n";
    upload(&server, "hog", 6, hog).await;
    upload(&server, "calm", 9, "from vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    pass\n").await;
    let deadline = Instant::now() + PATIENCE;
    let late = loop {
        let now = report(&server, "diffbot_hog").await;
        if now["program"]["late"].is_object() {
            break now;
        }
        assert!(Instant::now() < deadline, "never marked late: {now}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let figures = &late["program"]["late"];
    let (cpu, share) = (figures["cpu_ms"].as_f64().unwrap(), figures["share_ms"].as_f64().unwrap());
    assert!((share - 1000.0 * 5.0 / 240.0).abs() < 0.01, "its share is a control period at 1×: {share}");
    assert!(cpu > share, "{cpu} ms over {share} ms");
    assert_eq!(late["program"]["state"], "running", "late, not stopped: {late}");
    assert!(
        console(&late).contains("late: ") && console(&late).contains("do less work per step"),
        "{}",
        console(&late)
    );

    let deadline = Instant::now() + PATIENCE;
    let calm = loop {
        let now = report(&server, "diffbot_calm").await;
        if now["program"]["state"] != "starting" {
            break now;
        }
        assert!(Instant::now() < deadline, "the light program never started: {now}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(calm["program"]["state"], "running", "{calm}");
    assert!(calm["program"].get("late").is_none(), "a light program is on time: {calm}");
    let before = step(&server).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(step(&server).await > before, "the lab steps on");
    // Paused and stepped by hand, the lab is lockstep: every answer is waited for.
    server.control("demo", ControlAction::Pause).await;
    let at = step(&server).await;
    assert_eq!(server.control("demo", ControlAction::Step { steps: 50 }).await.step, at + 50);
}

#[tokio::test]
async fn the_sync_setting_takes_realtime_or_lockstep_and_nothing_else() {
    let server = TestServer::start_with(yard(), false).await;
    let patch =
        |body: Value| server.http.patch(server.url("/api/labs/demo/settings")).bearer_auth(TOKEN).json(&body).send();
    let refused = patch(json!({ "sync": "sometimes" })).await.unwrap();
    assert!(matches!(refused.status().as_u16(), 400 | 422), "{}", refused.status());
    let body: Value = refused.json().await.unwrap();
    let message = body["error"]["message"].as_str().unwrap_or_default().to_owned();
    assert!(message.contains("realtime") && message.contains("lockstep"), "the choices are named: {body}");
    let settings: Value =
        server.http.get(server.url("/api/labs/demo")).bearer_auth(TOKEN).send().await.unwrap().json().await.unwrap();
    assert_ne!(settings["settings"]["sync"], "sometimes");
    let accepted = patch(json!({ "sync": "lockstep" })).await.unwrap();
    assert_eq!(accepted.status().as_u16(), 200);
    assert_eq!(accepted.json::<Value>().await.unwrap()["sync"], "lockstep");
    let back = patch(json!({ "sync": "realtime" })).await.unwrap();
    assert_eq!(back.json::<Value>().await.unwrap()["sync"], "realtime");
}
