//! Bench: what a remote controller costs a lockstep lab per control step, over loopback.
//!
//! A real server (this build's `vlab` binary) runs a lockstep lab with one diffbot (a
//! 180-beam lidar and seven more sensors). The lab steps 1200 steps (240 control steps)
//! at a time, five times, in each of these set-ups, all in this one run:
//! 1. the lab alone (the robot driven by hand, without a controller): the floor;
//! 2. a Rust websocket client (tokio-tungstenite) that answers every step at once: the
//!    transport's round trip;
//! 3. `vlab-client` (the Python package, from `clients/python/src`) running a small
//!    program that reads the lidar and drives;
//! 4. the same program uploaded, in its sandbox on the server: the baseline a remote
//!    program is compared with.
//!
//! Before each set-up the robot is put back at its start and the lab alone is timed
//! (the robot driven by hand, so the physics is the same); the round trip per control
//! step is the set-up's median time per control step less that of the lab alone. `cargo bench -p vlab-server --bench remote_controller_step`.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

const KEY: &str = "bench-instructor-token";
const STEPS: u32 = 1200;
const REPEATS: usize = 5;
const ROBOT: &str = "include \"diffbot_robot.vlab\";\ncall diffbot(\"_bench\", 10, 7, 0);\n";
const PROGRAM: &str = "\
from vlab import Robot
robot = Robot()
lidar, drive = robot.sensor(\"lidar\"), robot.actuator(\"drive\")
while robot.step():
    ranges = lidar.ranges() or [8.0]
    drive.set(0.2 if min(ranges) > 0.5 else 0.0, 0.3)
";

struct Lab {
    http: reqwest::Client,
    base: String,
    id: String,
    token: String,
}

impl Lab {
    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let mut request = self.http.request(method, format!("{}{path}", self.base)).bearer_auth(&self.token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let text = response.text().await.unwrap();
        assert!(status.is_success(), "{path}: {status} {text}");
        serde_json::from_str(&text).unwrap_or(Value::Null)
    }

    /// Median wall time per control step over the repeats, microseconds.
    async fn per_control_step(&self) -> f64 {
        let mut times = Vec::new();
        for _ in 0..REPEATS {
            let started = Instant::now();
            let path = format!("/api/labs/{}/control", self.id);
            self.call(reqwest::Method::POST, &path, Some(json!({"action": "step", "steps": STEPS}))).await;
            times.push(started.elapsed());
        }
        times.sort();
        times[REPEATS / 2].as_secs_f64() * 1e6 / f64::from(STEPS / 5)
    }

    /// Drives the robot by hand as the controllers do (the lab alone then carries the
    /// same physics: a robot at rest would sleep and cost next to nothing).
    async fn drive_by_hand(&self) {
        let path = format!("/api/labs/{}/robots/diffbot_bench/actuators", self.id);
        self.call(reqwest::Method::POST, &path, Some(json!({"drive": {"v": 0.2, "omega": 0.3}}))).await;
    }

    /// The robot back at its start, driven by hand, and the lab alone timed from there:
    /// every set-up is compared with the lab alone just before it, from the same state.
    async fn alone_from_the_start(&self) -> f64 {
        let reset = format!("/api/labs/{}/robots/diffbot_bench/reset", self.id);
        self.call(reqwest::Method::POST, &reset, None).await;
        self.drive_by_hand().await;
        let alone = self.per_control_step().await;
        self.call(reqwest::Method::POST, &reset, None).await;
        alone
    }

    async fn program_state(&self) -> (String, String) {
        let report =
            self.call(reqwest::Method::GET, &format!("/api/labs/{}/robots/diffbot_bench", self.id), None).await;
        let program = &report["program"];
        (program["state"].as_str().unwrap_or("").into(), program["file"].as_str().unwrap_or("").into())
    }

    async fn wait_running(&self, file: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.program_state().await != ("running".into(), file.into()) {
            assert!(Instant::now() < deadline, "the controller never ran: {:?}", self.program_state().await);
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(bench());
}

async fn bench() {
    let port = free_port();
    let folder = std::env::temp_dir().join(format!("vlab-remote-bench-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let mut server: Child = Command::new(env!("CARGO_BIN_EXE_vlab"))
        .args(["serve", "--addr", &format!("127.0.0.1:{port}"), "--instructor-token", KEY, "--paused"])
        .arg("--db")
        .arg(folder.join("bench.db"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let base = format!("http://127.0.0.1:{port}");
    let http = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while http.get(format!("{base}/api/health")).send().await.is_err() {
        assert!(Instant::now() < deadline, "the server did not come up");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let created: Value = http
        .post(format!("{base}/api/labs"))
        .bearer_auth(KEY)
        .json(&json!({"name": "bench", "scene": "arena", "seed": 3}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let lab = Lab {
        http: http.clone(),
        base: base.clone(),
        id: created["id"].as_str().unwrap().into(),
        token: created["instructor_token"].as_str().unwrap().into(),
    };
    let control = format!("/api/labs/{}/control", lab.id);
    lab.call(reqwest::Method::POST, &control, Some(json!({"action": "reset"}))).await;
    lab.call(reqwest::Method::PATCH, &format!("/api/labs/{}/settings", lab.id), Some(json!({"sync": "lockstep"})))
        .await;
    let form = Form::new().part("description", Part::text(ROBOT).file_name("robot.vlab"));
    let uploaded = http
        .post(format!("{base}/api/labs/{}/robots", lab.id))
        .bearer_auth(&lab.token)
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert!(uploaded.status().is_success(), "{}", uploaded.text().await.unwrap());

    println!(
        "remote_controller_step: lockstep lab, one diffbot (180-beam lidar, 7 more sensors), {REPEATS} × {} \
         control steps each from the robot's start, median per control step",
        STEPS / 5
    );
    let line = |what: &str, alone: f64, with: f64| {
        println!(
            "  {what:<36} {with:8.1} µs; the lab alone just before {alone:8.1} µs: round trip {:6.1} µs",
            with - alone
        );
    };

    // 2. A Rust websocket client answering at once.
    let alone = lab.alone_from_the_start().await;
    let url = format!("ws://127.0.0.1:{port}/ws/labs/{}/robots/diffbot_bench/control", lab.id);
    let mut request = url.into_client_request().unwrap();
    request.headers_mut().insert("Authorization", format!("Bearer {}", lab.token).parse().unwrap());
    let (mut socket, _) = tokio_tungstenite::connect_async(request).await.expect("attaches");
    let _hello = socket.next().await;
    let ready = json!({"type": "ready", "version": 1, "commands": {"drive": {"v": 0.2, "omega": 0.3}}});
    socket.send(Message::Text(ready.to_string().into())).await.unwrap();
    let answering = tokio::spawn(async move {
        while let Some(Ok(Message::Text(text))) = socket.next().await {
            let message: Value = serde_json::from_str(&text).unwrap();
            if message["type"] != "step" {
                break;
            }
            let answer = json!({"type": "commands", "step": message["step"], "commands": {}});
            if socket.send(Message::Text(answer.to_string().into())).await.is_err() {
                break;
            }
        }
        let _ = socket.close(None).await;
    });
    lab.wait_running("remote controller").await;
    line("a Rust websocket client", alone, lab.per_control_step().await);
    let stop = format!("/api/labs/{}/robots/diffbot_bench/program/stop", lab.id);
    lab.call(reqwest::Method::POST, &stop, None).await;
    let _ = answering.await;

    // 3. The Python client running the program.
    let alone = lab.alone_from_the_start().await;
    let main = folder.join("main.py");
    std::fs::write(&main, PROGRAM).unwrap();
    let python = Command::new("python3")
        .arg(&main)
        .env("PYTHONPATH", root().join("clients/python/src"))
        .env("VLAB_SERVER", &base)
        .env("VLAB_LAB", &lab.id)
        .env("VLAB_TOKEN", &lab.token)
        .env("VLAB_ROBOT", "diffbot_bench")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    match python {
        Ok(mut client) => {
            lab.wait_running("remote controller").await;
            line("vlab-client (Python) running it", alone, lab.per_control_step().await);
            lab.call(reqwest::Method::POST, &stop, None).await;
            let _ = client.wait();
        }
        Err(e) => println!("  + vlab-client (Python): not run ({e})"),
    }

    // 4. The same program uploaded, in its sandbox.
    let alone = lab.alone_from_the_start().await;
    let form = Form::new().part("program", Part::text(PROGRAM).file_name("main.py"));
    let replaced = http
        .put(format!("{base}/api/labs/{}/robots/diffbot_bench/program", lab.id))
        .bearer_auth(&lab.token)
        .multipart(form)
        .send()
        .await
        .unwrap();
    if replaced.status().is_success() {
        lab.wait_running("main.py").await;
        line("the same program, sandboxed", alone, lab.per_control_step().await);
        lab.call(reqwest::Method::POST, &stop, None).await;
    } else {
        println!("  + the same program, sandboxed: not run ({})", replaced.text().await.unwrap());
    }

    let _ = server.kill();
    let _ = server.wait();
    let _ = std::fs::remove_dir_all(&folder);
}
