//! The VLAB tank as its files have it, in a room written as VLAB's are: its description
//! names its project by a path of the machine it was written on, its project file has
//! `INCLUDE_DIR`, and its program is C++ with the RobotAPI's names. Uploaded as a student
//! would (the three files in one form), the server compiles the program, and the tank
//! shuttles between x = 10 and x = 50, printing its GPS lines.
//!
//! Where the compiler is not installed, the upload must be refused naming the Debian
//! packages to install, which is what the test then checks.

use crate::common;

use common::{PATIENCE, TOKEN, TestServer};
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use vlab_protocol::ControlAction;
use vlab_server::controller::compile::{SourceLanguage, detected};
use vlab_server::scene::{DirLoader, Options, interpret};

const STEPS_PER_SEC: f64 = 240.0;

fn scenes() -> std::path::PathBuf {
    std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../scenes"))
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(scenes().join("vlab").join(name)).unwrap()
}

async fn tank_report(server: &TestServer) -> Value {
    let response =
        server.http.get(server.url("/api/labs/demo/robots/tankbot")).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    response.json().await.unwrap()
}

#[tokio::test]
async fn the_vlab_tank_uploaded_as_written_shuttles_in_its_room() {
    let loader = DirLoader { scenes: scenes(), assets: None };
    let room = interpret(&fixture("room.vlab"), "room.vlab", &loader, &Options::default()).unwrap().model;
    let server = TestServer::start_with(room, false).await;
    let sync = json!({ "sync": "lockstep" });
    let patched = server.http.patch(server.url("/api/labs/demo/settings")).bearer_auth(TOKEN).json(&sync).send();
    assert_eq!(patched.await.unwrap().status().as_u16(), 200);

    let form = Form::new()
        .part("description", Part::text(fixture("tank.vlab")).file_name("tank.vlab"))
        .part("tankbot.rprj", Part::text(fixture("tankbot.rprj")).file_name("tankbot.rprj"))
        .part("tankbot.cpp", Part::text(fixture("tankbot.cpp")).file_name("tankbot.cpp"));
    let response =
        server.http.post(server.url("/api/labs/demo/robots")).bearer_auth(TOKEN).multipart(form).send().await.unwrap();
    let status = response.status().as_u16();
    let reply: Value = response.json().await.unwrap();
    let missing = detected().missing(SourceLanguage::Cpp);
    if !missing.is_empty() {
        assert_eq!(status, 422, "{reply}");
        for package in missing {
            assert!(reply.to_string().contains(package), "the missing {package} is named: {reply}");
        }
        return;
    }
    assert_eq!(status, 200, "{reply}");
    let warnings = reply["warnings"].to_string();
    assert!(warnings.contains("tankbot.rprj"), "the foreign path is said to keep its file name: {warnings}");
    assert!(warnings.contains("INCLUDE_DIR"), "INCLUDE_DIR is said to be skipped: {warnings}");

    let deadline = tokio::time::Instant::now() + PATIENCE;
    while tank_report(&server).await["program"]["state"] == "starting" {
        assert!(tokio::time::Instant::now() < deadline, "the tank's program never started");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    // The console keeps its last lines: the program's name is among its first, as it
    // joins at the first control step.
    server.control("demo", ControlAction::Step { steps: 10 }).await;
    let opening = tank_report(&server).await["console"].to_string();
    assert!(opening.contains("Shuttle"), "the console names the program: {opening}");
    // 30 → 50 at about 8.5 units/s, back to 10, and out again: 16 s of the room.
    let mut xs = Vec::new();
    for _ in 0..64 {
        server.control("demo", ControlAction::Step { steps: (STEPS_PER_SEC / 4.0) as u32 }).await;
        xs.push(tank_report(&server).await["pose"]["position"][0].as_f64().unwrap());
    }
    let report = tank_report(&server).await;
    assert_eq!(report["program"]["state"], "running", "{}", report["program"]);
    let (far, near) = xs.iter().fold((f64::MIN, f64::MAX), |(hi, lo), &x| (hi.max(x), lo.min(x)));
    let turned_back = xs.iter().position(|&x| x > 50.0).is_some_and(|out| xs[out..].iter().any(|&x| x < 10.0));
    println!("the tank's x every quarter second: {xs:.1?}");
    // Turned round at full speed, it runs on a few units before its motors win: the
    // room's walls (x = 0 and 60) are farther, and pressed against one it would stay.
    assert!(far > 50.0 && far < 60.0, "it goes past x = 50 and turns: {xs:.1?}");
    assert!(near < 10.0 && near > 0.0, "it comes back past x = 10 and turns: {xs:.1?}");
    assert!(turned_back, "out to 50 first, then back to 10: {xs:.1?}");
    let lowest = xs.iter().position(|&x| x == near).unwrap();
    assert!(xs[lowest..].iter().any(|&x| x > 20.0), "and out again: {xs:.1?}");
    let console = report["console"].to_string();
    assert!(console.contains("GPS: "), "its GPS lines reach its console: {console}");
}
