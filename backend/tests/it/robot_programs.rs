//! Robot programs through the real server: uploaded with a robot over HTTP, run in
//! lockstep, their consoles streamed to their owners only, replaced, restarted and
//! stopped by their owners; hostile programs contained one by one while the lab and
//! every other robot go on; the same upload and seed giving the same run.

use crate::common;
use crate::example_wasm;

use std::time::Duration;

use common::{PATIENCE, TOKEN, TestServer};
use reqwest::Method;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use vlab_protocol::{ControlAction, ServerMsg};
use vlab_server::controller::{ProgramError, ProgramSpec, PythonProgram};
use vlab_server::scene::{MapLoader, Options, SceneModel, interpret};

/// An empty fenced yard, 12 m × 12 m from (0, 0) to (12, 12): room for many robots and
/// nothing else moving.
fn yard() -> SceneModel {
    let source = "environment wallrect { width 12; length 12; height 0.5; gravity -9.81; }";
    interpret(source, "yard.vlab", &MapLoader::new(), &Options::default()).unwrap().model
}

async fn serve_yard() -> TestServer {
    TestServer::start_with(yard(), false).await
}

/// Whether this machine can confine Python programs. Where it cannot, the server must
/// refuse them (fail closed) with the reason, which is checked here; the rest of a test
/// then has nothing to run.
async fn python_runs_here(server: &TestServer) -> bool {
    let probe = ProgramSpec::new("probe", "from vlab import Robot\nRobot().step()\n");
    match PythonProgram::start(probe) {
        Ok(mut program) => {
            let _ = program.stop();
            true
        }
        Err(ProgramError::SandboxUnavailable(_)) => {
            let (status, reply) = upload(server, TOKEN, &diffbot("probe", 11.0, 11.0), DRIVER).await;
            assert_eq!(status, 422, "{reply}");
            let message = reply["errors"][0]["message"].as_str().unwrap_or_default();
            assert!(message.contains("the sandbox cannot be enforced"), "{reply}");
            eprintln!("programs are refused on this machine, as they must be: {message}");
            false
        }
        Err(e) => panic!("a trivial program did not start: {e}"),
    }
}

/// A diffbot from the scene library, named `diffbot_{suffix}`.
fn diffbot(suffix: &str, x: f64, z: f64) -> String {
    format!("include \"diffbot_robot.vlab\";\ncall diffbot(\"_{suffix}\", {x}, {z}, 0);\n")
}

/// Drives straight at 0.2 m/s and prints its step and position each control step.
const DRIVER: &str = "\
from vlab import Robot

robot = Robot()
while robot.step():
    robot.actuator(\"drive\").set(0.2, 0.0)
    x, y, z = robot.sensor(\"gps\").value()
    print(f\"step {robot.step_count()} x={x:.3f}\")
";

async fn join(server: &TestServer, name: &str) -> String {
    let body = json!({ "join_code": "DEMOCODE", "name": name });
    let reply: Value =
        server.http.post(server.url("/api/labs/demo/join")).json(&body).send().await.unwrap().json().await.unwrap();
    reply["token"].as_str().expect("a session token").to_owned()
}

/// Uploads a robot description with a program (`program` field named `main.py`).
async fn upload(server: &TestServer, token: &str, description: &str, program: &str) -> (u16, Value) {
    let form = Form::new()
        .part("description", Part::text(description.to_owned()).file_name("robot.vlab"))
        .part("program", Part::text(program.to_owned()).file_name("main.py"));
    let response =
        server.http.post(server.url("/api/labs/demo/robots")).bearer_auth(token).multipart(form).send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

async fn call(server: &TestServer, method: Method, path: &str, token: Option<&str>) -> (u16, Value) {
    let mut request = server.http.request(method, server.url(path));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn robot(server: &TestServer, name: &str, token: Option<&str>) -> Value {
    let (status, report) = call(server, Method::GET, &format!("/api/labs/demo/robots/{name}"), token).await;
    assert_eq!(status, 200, "{report}");
    report
}

/// Waits until `robot`'s program has left `starting` (the clock does not wait for it:
/// the lab is paused here, so its robot is where it was).
async fn settled(server: &TestServer, name: &str) -> Value {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let report = robot(server, name, Some(TOKEN)).await;
        if report["program"]["state"] != "starting" {
            return report;
        }
        assert!(tokio::time::Instant::now() < deadline, "{name}'s program never started: {report}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn console_text(report: &Value) -> String {
    report["console"].as_array().map_or(String::new(), |lines| {
        lines
            .iter()
            .map(|l| format!("[{}] {}", l["source"].as_str().unwrap_or(""), l["text"].as_str().unwrap_or("")))
            .collect::<Vec<_>>()
            .join("\n")
    })
}

#[tokio::test]
async fn a_students_program_drives_their_robot_in_lockstep_and_only_they_read_its_console() {
    let server = serve_yard().await;
    if !python_runs_here(&server).await {
        return;
    }
    let ana = join(&server, "Ana").await;
    let bob = join(&server, "Bob").await;
    let mut ana_ws = server.connect("demo", Some(&ana)).await;
    ana_ws.join_sequence().await;
    let mut bob_ws = server.connect("demo", Some(&bob)).await;
    bob_ws.join_sequence().await;

    let (status, reply) = upload(&server, &ana, &diffbot("ana", 2.0, 6.0), DRIVER).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["robots"], json!(["diffbot_ana"]));
    let start = settled(&server, "diffbot_ana").await;
    assert_eq!(start["program"]["state"], "running", "{start}");
    assert_eq!(start["program"]["language"], "PYTHON");
    let x0 = start["pose"]["position"][0].as_f64().unwrap();

    // One second of sim time: 50 control steps of 5 physics steps each.
    let state = server.control("demo", ControlAction::Step { steps: 240 }).await;
    assert_eq!(state.step, 240);
    let after = robot(&server, "diffbot_ana", Some(&ana)).await;
    let moved = after["pose"]["position"][0].as_f64().unwrap() - x0;
    assert!((0.12..0.25).contains(&moved), "0.2 m/s for 1 s (minus the start-up) moved it {moved} m");
    let console = console_text(&after);
    // The program sees the lab's clock: it printed on control steps, every 5 steps;
    // its answer to step 240's readings is collected at the next control step.
    for step in [5, 10, 230, 235] {
        assert!(console.contains(&format!("[print] step {step} x=")), "step {step} missing from:\n{console}");
    }
    assert!(!console.contains("step 6 "), "{console}");
    let lines = after["console"].as_array().unwrap();
    let printed: Vec<&Value> = lines.iter().filter(|l| l["source"] == "print").collect();
    for line in &printed {
        let text = line["text"].as_str().unwrap();
        let said: u64 = text.split_whitespace().nth(1).unwrap().parse().unwrap();
        assert_eq!(line["step"].as_u64().unwrap(), said, "lines are stamped with the step they answer");
        assert!((line["time"].as_f64().unwrap() - said as f64 / 240.0).abs() < 1e-9);
    }

    // The owner's page got the lines live; another student's did not.
    let streamed = ana_ws
        .until(|received| match received {
            common::Received::Json(ServerMsg::Console { robot, lines }) if robot == "diffbot_ana" => {
                lines.iter().find(|l| l.text.starts_with("step 235 ")).cloned()
            }
            _ => None,
        })
        .await;
    assert_eq!(streamed.step, 235);
    let bob_sees = robot(&server, "diffbot_ana", Some(&bob)).await;
    assert!(bob_sees.get("console").is_none(), "another student reads no console: {bob_sees}");
    assert_eq!(bob_sees["program"]["state"], "running", "but sees that it runs");
    server.control("demo", ControlAction::Step { steps: 5 }).await;
    let quiet = tokio::time::timeout(
        Duration::from_millis(500),
        bob_ws.until(|received| match received {
            common::Received::Json(ServerMsg::Console { .. }) => Some(()),
            _ => None,
        }),
    )
    .await;
    assert!(quiet.is_err(), "Bob's page received Ana's console");
}

#[tokio::test]
async fn a_syntax_error_comes_back_at_its_line_and_column_and_inserts_nothing() {
    let server = serve_yard().await;
    if !python_runs_here(&server).await {
        return;
    }
    let ana = join(&server, "Ana").await;
    let broken = "from vlab import Robot\nrobot = Robot()\nwhile robot.step()\n    pass\n";
    let (status, reply) = upload(&server, &ana, &diffbot("ana", 2.0, 6.0), broken).await;
    assert_eq!(status, 422, "{reply}");
    let error = &reply["errors"][0];
    assert_eq!(error["file"], "main.py", "{reply}");
    assert_eq!(error["line"], 3, "{reply}");
    assert_eq!(error["col"], 19, "{reply}");
    assert!(error["message"].as_str().unwrap().contains("SyntaxError"), "{reply}");
    let (_, lab) = server.get_json("/api/labs/demo").await;
    assert!(!lab["robots"].as_array().unwrap().iter().any(|r| r == "diffbot_ana"), "nothing inserted: {lab}");

    // A helper module with the error is pointed at too.
    let form = Form::new()
        .part("description", Part::text(diffbot("ana", 2.0, 6.0)).file_name("robot.vlab"))
        .part("program", Part::text("import helper\n".to_owned()).file_name("main.py"))
        .part("helper", Part::text("def f(:\n    pass\n".to_owned()).file_name("helper.py"));
    let response =
        server.http.post(server.url("/api/labs/demo/robots")).bearer_auth(&ana).multipart(form).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 422);
    let reply: Value = response.json().await.unwrap();
    assert_eq!(reply["errors"][0]["file"], "helper.py", "{reply}");
    assert_eq!(reply["errors"][0]["line"], 1, "{reply}");
}

#[tokio::test]
async fn owners_replace_restart_and_stop_their_programs_and_nobody_else_may() {
    let server = serve_yard().await;
    if !python_runs_here(&server).await {
        return;
    }
    let ana = join(&server, "Ana").await;
    let bob = join(&server, "Bob").await;
    let (status, reply) = upload(&server, &ana, &diffbot("ana", 2.0, 6.0), DRIVER).await;
    assert_eq!(status, 200, "{reply}");
    settled(&server, "diffbot_ana").await;
    let base = "/api/labs/demo/robots/diffbot_ana/program";

    let (status, source) = call(&server, Method::GET, base, Some(&ana)).await;
    assert_eq!(status, 200);
    assert_eq!(source["files"]["main.py"], DRIVER);
    for (token, expected) in [(Some(bob.as_str()), 403), (None, 401)] {
        let (status, _) = call(&server, Method::GET, base, token).await;
        assert_eq!(status, expected);
        let (status, refused) = call(&server, Method::POST, &format!("{base}/restart"), token).await;
        assert_eq!(status, expected, "{refused}");
        let (status, _) = call(&server, Method::POST, &format!("{base}/stop"), token).await;
        assert_eq!(status, expected);
        let put = server.http.put(server.url(base)).body("print('hi')\n");
        let put = if let Some(token) = token { put.bearer_auth(token) } else { put };
        assert_eq!(put.send().await.unwrap().status().as_u16(), expected);
    }

    let (status, stopped) = call(&server, Method::POST, &format!("{base}/stop"), Some(&ana)).await;
    assert_eq!(status, 200);
    assert_eq!(stopped["state"], "stopped");
    let (status, restarted) = call(&server, Method::POST, &format!("{base}/restart"), Some(&ana)).await;
    assert_eq!(status, 200);
    assert_eq!(restarted["state"], "starting");
    assert_eq!(settled(&server, "diffbot_ana").await["program"]["state"], "running");

    // A broken replacement is refused and the running program stays.
    let broken = server.http.put(server.url(base)).bearer_auth(&ana).body("def (:\n").send().await.unwrap();
    assert_eq!(broken.status().as_u16(), 422);
    let (_, source) = call(&server, Method::GET, base, Some(&ana)).await;
    assert_eq!(source["files"]["main.py"], DRIVER);

    // The instructor replaces it (plain body = main.py); the robot stays where it is.
    let turner = "from vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    robot.actuator('drive').set(0.0, 1.0)\n    print('turning')\n";
    let before = robot(&server, "diffbot_ana", Some(TOKEN)).await;
    let put = server.http.put(server.url(base)).bearer_auth(TOKEN).body(turner).send().await.unwrap();
    assert_eq!(put.status().as_u16(), 200);
    settled(&server, "diffbot_ana").await;
    server.control("demo", ControlAction::Step { steps: 120 }).await;
    let after = robot(&server, "diffbot_ana", Some(&ana)).await;
    assert!(console_text(&after).contains("[print] turning"), "{}", console_text(&after));
    let dx = after["pose"]["position"][0].as_f64().unwrap() - before["pose"]["position"][0].as_f64().unwrap();
    // It was driving at 0.2 m/s when the program changed: it slows down, then turns.
    assert!(dx.abs() < 0.05, "turning on the spot, not driving on: moved {dx} m");
    let turned = after["pose"]["heading"].as_f64().unwrap() - before["pose"]["heading"].as_f64().unwrap();
    assert!(turned > 0.2, "it turned counter-clockwise: {turned} rad");
}

/// Each hostile program against the real server, beside a healthy one: each is stopped
/// alone with its message, the healthy robot keeps driving, the lab keeps stepping.
#[tokio::test]
async fn hostile_programs_are_stopped_alone_while_the_lab_and_the_other_robots_go_on() {
    let server = serve_yard().await;
    if !python_runs_here(&server).await {
        return;
    }
    let head = "from vlab import Robot\nrobot = Robot()\nrobot.step()\n";
    let hostile: [(&str, String, &str); 7] = [
        ("loop", format!("{head}while True:\n    pass\n"), "did not answer within"),
        // A grid far too big for the 512 MiB cap (a program that fills memory slowly
        // meets the step budget first: python_programs.rs covers that one).
        ("memory", format!("{head}grid = [0.0] * (100_000 * 100_000)\n"), "ran out of memory"),
        ("recursion", format!("{head}def down(n):\n    return down(n + 1)\n\ndown(0)\n"), "RecursionError"),
        ("raises", format!("{head}values = [1, 2]\nprint(values[5])\n"), "line 5"),
        ("flood", format!("{head}while True:\n    print('x' * 900)\n"), "printed more than"),
        ("exits", format!("{head}import sys\nsys.exit(3)\n"), "exited with code 3"),
        ("ends", format!("{head}print('bye')\n"), "the program ended"),
    ];
    let mut x = 1.5;
    for (suffix, program, _) in &hostile {
        let (status, reply) = upload(&server, TOKEN, &diffbot(suffix, x, 3.0), program).await;
        assert_eq!(status, 200, "{suffix}: {reply}");
        x += 1.2;
    }
    let (status, reply) = upload(&server, TOKEN, &diffbot("healthy", 2.0, 8.0), DRIVER).await;
    assert_eq!(status, 200, "{reply}");
    for (suffix, _, _) in &hostile {
        settled(&server, &format!("diffbot_{suffix}")).await;
    }
    let healthy_start = settled(&server, "diffbot_healthy").await["pose"]["position"][0].as_f64().unwrap();

    let state = server.control("demo", ControlAction::Step { steps: 240 }).await;
    assert_eq!(state.step, 240, "the lab stepped on through everything");
    for (suffix, _, expected) in &hostile {
        let report = robot(&server, &format!("diffbot_{suffix}"), Some(TOKEN)).await;
        assert_eq!(report["program"]["state"], "stopped", "{suffix}: {report}");
        let message = report["program"]["message"].as_str().unwrap();
        assert!(message.contains(expected), "{suffix}: expected '{expected}' in: {message}");
        assert!(console_text(&report).contains(expected), "{suffix}: its console says why");
    }
    let raised = robot(&server, "diffbot_raises", Some(TOKEN)).await;
    let traceback = raised["program"]["message"].as_str().unwrap();
    assert!(traceback.contains("IndexError") && traceback.contains("main.py"), "{traceback}");
    let healthy = robot(&server, "diffbot_healthy", Some(TOKEN)).await;
    assert_eq!(healthy["program"]["state"], "running", "{healthy}");
    let moved = healthy["pose"]["position"][0].as_f64().unwrap() - healthy_start;
    assert!(moved > 0.12, "the healthy robot drove on: {moved} m");
    assert!(console_text(&healthy).contains("step 235 "), "{}", console_text(&healthy));

    // The owner restarts a stopped program: it runs (and fails) again from its start.
    let (status, _) =
        call(&server, Method::POST, "/api/labs/demo/robots/diffbot_raises/program/restart", Some(TOKEN)).await;
    assert_eq!(status, 200);
    assert_eq!(settled(&server, "diffbot_raises").await["program"]["state"], "running");
    server.control("demo", ControlAction::Step { steps: 10 }).await;
    let again = robot(&server, "diffbot_raises", Some(TOKEN)).await;
    assert_eq!(again["program"]["state"], "stopped");
}

/// A program that tries every way out of its sandbox and reports each attempt.
const ESCAPE: &str = r#"
from vlab import Robot
import os

robot = Robot()

def attempt(what, action):
    try:
        action()
        print(f"ESCAPED: {what}")
    except BaseException as error:
        print(f"blocked: {what} ({type(error).__name__})")

def connect():
    import socket
    socket.create_connection(("127.0.0.1", 8080), timeout=1)

def udp():
    import socket
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", 53))

def spawn():
    import subprocess
    subprocess.run(["/bin/true"])

def write_own_folder():
    with open("note.txt", "w") as f:
        f.write("x")

attempt("read /etc/passwd", lambda: open("/etc/passwd").read())
attempt("list /home", lambda: os.listdir("/home"))
attempt("read /proc/self/environ", lambda: open("/proc/self/environ").read())
attempt("write /tmp", lambda: open("/tmp/vlab-escape", "w").write("x"))
attempt("write its own folder", write_own_folder)
attempt("connect to the server", connect)
attempt("send UDP", udp)
attempt("fork", os.fork)
attempt("run a program", spawn)
attempt("signal the server", lambda: os.kill(os.getppid(), 9))
print("attempts done")
while robot.step():
    robot.actuator("drive").set(0.1, 0.0)
"#;

#[tokio::test]
async fn an_escape_attempt_reports_everything_blocked() {
    let server = serve_yard().await;
    if !python_runs_here(&server).await {
        return;
    }
    let ana = join(&server, "Ana").await;
    let (status, reply) = upload(&server, &ana, &diffbot("ana", 2.0, 6.0), ESCAPE).await;
    assert_eq!(status, 200, "{reply}");
    settled(&server, "diffbot_ana").await;
    server.control("demo", ControlAction::Step { steps: 20 }).await;
    let report = robot(&server, "diffbot_ana", Some(&ana)).await;
    let console = console_text(&report);
    assert!(console.contains("attempts done"), "{console}");
    assert!(!console.contains("ESCAPED"), "{console}");
    assert_eq!(console.matches("blocked: ").count(), 10, "{console}");
    assert_eq!(report["program"]["state"], "running", "it runs on, confined: {report}");
}

/// Same scene, seed, program and inputs: the same trajectory, to the last bit.
#[tokio::test]
async fn the_same_upload_and_seed_give_the_same_run() {
    // Reads the lidar and the odometry, draws from `random`, and steers by them.
    let wanderer = "\
import random
from vlab import Robot

robot = Robot()
while robot.step():
    ranges = robot.sensor('lidar').value() or [8.0]
    near = min(ranges)
    turn = random.uniform(-0.5, 0.5) + (1.5 if near < 0.5 else 0.0)
    robot.actuator('drive').set(0.15, turn)
";
    let mut runs = Vec::new();
    for _ in 0..2 {
        let server = serve_yard().await;
        if !python_runs_here(&server).await {
            return;
        }
        let ana = join(&server, "Ana").await;
        let (status, reply) = upload(&server, &ana, &diffbot("ana", 2.0, 6.0), wanderer).await;
        assert_eq!(status, 200, "{reply}");
        settled(&server, "diffbot_ana").await;
        let mut track = Vec::new();
        for _ in 0..6 {
            server.control("demo", ControlAction::Step { steps: 100 }).await;
            let report = robot(&server, "diffbot_ana", Some(&ana)).await;
            track.push((report["pose"].to_string(), report["sensors"].to_string()));
        }
        runs.push(track);
    }
    assert_eq!(runs[0], runs[1], "two runs of the same upload differ");
    assert_ne!(runs[0][0].0, runs[0][5].0, "the robot moved");
}

/// The SDK's example robot, built to WebAssembly, uploaded as a student would: it runs in
/// the lab in lockstep, cruising until the fence is near, then turning away.
#[tokio::test]
async fn a_webassembly_program_uploaded_with_its_robot_drives_it() {
    let module = example_wasm::example_module();
    let server = serve_yard().await;
    let ana = join(&server, "Ana").await;
    let form = Form::new()
        .part("description", Part::text(diffbot("ana", 9.0, 6.0)).file_name("robot.vlab"))
        .part("program", Part::bytes(module.to_vec()).file_name("bumper.wasm"));
    let response =
        server.http.post(server.url("/api/labs/demo/robots")).bearer_auth(&ana).multipart(form).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200, "{}", response.text().await.unwrap());
    let start = settled(&server, "diffbot_ana").await;
    assert_eq!(start["program"]["state"], "running", "{start}");
    assert_eq!(start["program"]["language"], "WASM");
    let x0 = start["pose"]["position"][0].as_f64().unwrap();
    // Cruising at 0.3 m/s toward the fence at x = 12 (3 m away) for 12 s: it must turn
    // before it gets there and never touch it.
    let mut furthest = x0;
    for _ in 0..48 {
        server.control("demo", ControlAction::Step { steps: 60 }).await;
        let report = robot(&server, "diffbot_ana", Some(&ana)).await;
        assert_eq!(report["program"]["state"], "running", "{report}");
        furthest = furthest.max(report["pose"]["position"][0].as_f64().unwrap());
    }
    let end = robot(&server, "diffbot_ana", Some(&ana)).await;
    assert!(furthest - x0 > 0.5, "it cruised: {x0} → {furthest}");
    assert!(furthest < 11.8, "it turned before the fence: {furthest}");
    let turned = (end["pose"]["heading"].as_f64().unwrap()).abs();
    assert!(turned > 0.5, "it turned away from the fence: heading {turned}");
    assert!(console_text(&end).contains("[log]"), "its log reaches the console: {}", console_text(&end));

    // A module that does not fit the robot API is refused before anything is inserted.
    let form = Form::new()
        .part("description", Part::text(diffbot("bad", 3.0, 6.0)).file_name("robot.vlab"))
        .part("program", Part::bytes(b"\0asm\x01\0\0\0".to_vec()).file_name("empty.wasm"));
    let response =
        server.http.post(server.url("/api/labs/demo/robots")).bearer_auth(TOKEN).multipart(form).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 422);
    let reply: Value = response.json().await.unwrap();
    assert_eq!(reply["errors"][0]["file"], "empty.wasm", "{reply}");
    assert!(reply["errors"][0]["message"].as_str().unwrap().contains("does not export"), "{reply}");
}
