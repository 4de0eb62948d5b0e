//! Regression: a student's program that answered every step at once but waited 450 ms
//! (no CPU) before reading the next held a real-time lab at 0.12–0.50× for everyone,
//! its state `running`, no `late`, nothing in any console. A step with a 320 × 240
//! camera image is larger than the 64 KiB pipe to the program, and the lab's thread
//! wrote it whole, waiting until the program read (up to the step budget; a program
//! that waited longer than that was stopped for "not answering"). Now the lab writes
//! what the pipe takes and never waits: the program is `late`, its console says it has
//! not read its last readings and how much is unread, it stays `running`, gets no new
//! readings until it reads, and is "on time again" once it reads promptly.

use std::time::Duration;

use reqwest::multipart::{Form, Part};
use serde_json::Value;
use vlab_protocol::ControlAction;

use crate::common::{self, PATIENCE, TOKEN, TestServer};

/// A robot standing still in the yard with the largest camera a scene may have.
const ROBOT: &str = r#"
robot eyebot {
  body {
    static chassis { shape box(0.4, 0.2, 0.3); pos(3, 0.3, 6);
      Camera eye { width 320; height 240; rate 2.5; } }
  }
}
"#;

/// Answers at once, then waits 1.5 s of wall time without computing (longer than the
/// 500 ms step budget the old lab waited in its write) before reading the lab's next
/// message; after three such naps it reads at once.
const PROGRAM: &str = r#"
import _thread
import vlab
from vlab import Robot

robot = Robot()

class LateReader:
    def __init__(self, reader):
        self.reader = reader
        self.naps = 3
        self.nap = _thread.allocate_lock()
        self.nap.acquire()

    def readline(self):
        if self.naps > 0:
            self.naps -= 1
            self.nap.acquire(timeout=1.5)
        return self.reader.readline()

    def read(self, n):
        return self.reader.read(n)

vlab._link._reader = LateReader(vlab._link._reader)
eye = robot.sensor('eye')
while robot.step():
    image = eye.image()
    if image is not None:
        print(f'image {image.width}x{image.height} at step {robot.step_count()}')
"#;

async fn report(server: &TestServer) -> Value {
    let url = server.url("/api/labs/demo/robots/eyebot");
    let response = server.http.get(url).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    response.json().await.unwrap()
}

fn console(report: &Value) -> Vec<String> {
    report["console"].as_array().unwrap().iter().map(|l| l["text"].as_str().unwrap().to_owned()).collect()
}

/// Waits until `done` holds for the robot's report, which it returns.
async fn report_until(server: &TestServer, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let report = report(server).await;
        if done(&report) {
            return report;
        }
        assert_eq!(report["program"]["state"], "running", "{report}");
        assert!(tokio::time::Instant::now() < deadline, "never came: {report}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_program_that_reads_its_camera_late_is_late_and_the_lab_goes_on() {
    let server = TestServer::start_with(common::yard(), false).await;
    if !common::python_runs_here() {
        return;
    }
    let form = Form::new()
        .part("description", Part::text(ROBOT).file_name("robot.vlab"))
        .part("program", Part::text(PROGRAM).file_name("main.py"));
    let url = server.url("/api/labs/demo/robots");
    let response = server.http.post(url).bearer_auth(TOKEN).multipart(form).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200, "{}", response.text().await.unwrap());
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while report(&server).await["program"]["state"] == "starting" {
        assert!(tokio::time::Instant::now() < deadline, "the program never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.control("demo", ControlAction::Resume).await;

    let late_line = |r: &Value| console(r).iter().any(|l| l.contains("has not read its last readings"));
    let late = report_until(&server, late_line).await;
    let said = console(&late).into_iter().find(|l| l.contains("has not read its last readings")).unwrap();
    assert!(said.starts_with("late: this program has not read its last readings ("), "{said}");
    assert!(said.contains(" KiB still unread), so its robot keeps its last commands"), "{said}");
    let unread = late["program"]["late"]["unread_bytes"].as_u64().expect("late for unread readings");
    assert!(unread > 64 * 1024, "a step with a 320 × 240 image is unread: {unread} bytes");
    let step_then = server.lab_state("demo").await["step"].as_u64().unwrap();

    // It reads three images late, then reads at once: on time again, and still running.
    let images = |r: &Value| console(r).iter().filter(|l| l.starts_with("image 320x240")).count();
    let caught_up = report_until(&server, |r| {
        images(r) >= 3 && console(r).iter().any(|l| l == "on time again") && r["program"]["late"].is_null()
    })
    .await;
    assert_eq!(caught_up["program"]["state"], "running", "{caught_up}");
    // While it napped the lab stepped on: at least three naps' worth of control steps.
    let step_now = server.lab_state("demo").await["step"].as_u64().unwrap();
    assert!(step_now > step_then + 3 * 5, "the lab went from step {step_then} to {step_now}");
    server.control("demo", ControlAction::Pause).await;
}
