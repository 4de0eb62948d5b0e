//! Cameras through the real server: a robot uploaded with a Python program reads its
//! camera's image and its depth camera's distances in every control step, pixels
//! included in the steps where only the summary travelled; its report over HTTP
//! carries the summary alone; a page that watches the camera receives its image as a
//! binary view, and a page that does not receives none.

use crate::common;

use std::time::Duration;

use common::{PATIENCE, Received, TOKEN, TestServer};
use reqwest::multipart::{Form, Part};
use serde_json::Value;
use vlab_protocol::{ClientMsg, ControlAction};
use vlab_server::scene::{MapLoader, Options, SceneModel, interpret};

/// A grey floor and a red wall whose near face is at x = 3.9 (y 0..2, z 3..6): the
/// scene of `robots_cameras.rs`, whose truths hold here.
fn red_wall() -> SceneModel {
    let source = r#"
        static ground { shape box(12, 0.2, 12); pos(5, -0.1, 5); material "Grey"; }
        static wall { shape box(0.2, 2, 3); pos(4, 1, 4.5); material "Red"; }
    "#;
    interpret(source, "wall.vlab", &MapLoader::new(), &Options::default()).unwrap().model
}

/// A robot that stands at (1, 0.5, 5) looking along +X.
const ROBOT: &str = r#"
robot cam {
  body {
    static chassis { shape box(0.4, 0.2, 0.3); pos(1, 0.5, 5);
      Camera eye { }
      DepthCamera depth { } }
  }
}
"#;

/// Prints what it sees in every control step.
const PROGRAM: &str = "\
from vlab import Robot

robot = Robot()
eye = robot.sensor('eye')
depth = robot.sensor('depth')
while robot.step():
    image = eye.image()
    d = depth.depth_image()
    print(f'step {robot.step_count()} {image.width}x{image.height} centre {image.pixel(80, 60)} '
          f'floor {image.pixel(80, 119)} sky {image.row(30)[128]} bytes {len(image.pixels)} '
          f'depth {d.at(80, 60):.3f} {d.at(0, 0):.3f} {d.at(80, 100):.3f} {d.at(140, 30):.1f} '
          f'n {len(depth.depths())}')
";

/// What the program must print in every step (hand truths of `robots_cameras.rs`).
const SEEN: &str = "160x120 centre (114, 30, 25) floor (146, 146, 146) sky (170, 200, 230) bytes 57600 \
                    depth 2.900 2.900 1.711 10.0 n 19200";

async fn upload(server: &TestServer) -> (u16, Value) {
    let form = Form::new()
        .part("description", Part::text(ROBOT).file_name("robot.vlab"))
        .part("program", Part::text(PROGRAM).file_name("main.py"));
    let response =
        server.http.post(server.url("/api/labs/demo/robots")).bearer_auth(TOKEN).multipart(form).send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

async fn report(server: &TestServer) -> Value {
    let response = server.http.get(server.url("/api/labs/demo/robots/cam")).bearer_auth(TOKEN).send().await.unwrap();
    response.json().await.unwrap()
}

#[tokio::test]
async fn a_program_reads_its_camera_and_depth_camera_in_every_step() {
    let server = TestServer::start_with(red_wall(), false).await;
    if !common::python_runs_here() {
        eprintln!("programs cannot be confined here; the sandbox's refusal is tested elsewhere");
        return;
    }
    let (status, reply) = upload(&server).await;
    assert_eq!(status, 200, "{reply}");
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while report(&server).await["program"]["state"] == "starting" {
        assert!(tokio::time::Instant::now() < deadline, "the program never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // 0.5 s: images at steps 0, 48, 96 (5 Hz), control steps every 5.
    server.control("demo", ControlAction::Step { steps: 120 }).await;
    let after = report(&server).await;
    let lines: Vec<&str> = after["console"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["source"] == "print")
        .map(|l| l["text"].as_str().unwrap())
        .collect();
    assert!(lines.len() >= 20, "{after}");
    for line in &lines {
        let (_, seen) = line.split_once(' ').and_then(|(_, rest)| rest.split_once(' ')).unwrap();
        assert_eq!(seen, SEEN, "{line}");
    }
    // Steps between two images, where only the summary travelled, see the same.
    for step in [10, 50, 100] {
        assert!(lines.iter().any(|l| l.starts_with(&format!("step {step} "))), "step {step}: {lines:?}");
    }
    let sensors = after["sensors"].as_array().unwrap();
    let eye = sensors.iter().find(|s| s["name"] == "eye").unwrap();
    assert_eq!(eye["measured"]["type"], "image");
    assert_eq!(eye["measured"]["width"], 160);
    assert!(eye["measured"].get("pixels").is_none(), "reports carry the summary only: {eye}");
    assert_eq!(eye["step"], 96);
}

#[tokio::test]
async fn only_a_page_that_watches_a_camera_receives_its_images() {
    let server = TestServer::start_with(red_wall(), false).await;
    let form = Form::new().part("description", Part::text(ROBOT).file_name("robot.vlab"));
    let response =
        server.http.post(server.url("/api/labs/demo/robots")).bearer_auth(TOKEN).multipart(form).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let mut watching = server.connect("demo", Some(TOKEN)).await;
    watching.join_sequence().await;
    let mut other = server.connect("demo", Some(TOKEN)).await;
    other.join_sequence().await;
    other.send(&ClientMsg::Subscribe { robot: "cam".into() }).await;
    watching.send(&ClientMsg::Subscribe { robot: "cam".into() }).await;
    watching.send(&ClientMsg::WatchCamera { robot: "cam".into(), sensor: "eye".into() }).await;
    // The views are published with the reports: after steps and while running.
    server.control("demo", ControlAction::Step { steps: 60 }).await;
    let view = watching
        .until(|received| match received {
            Received::Camera(view) => Some(view.clone()),
            _ => None,
        })
        .await;
    assert_eq!((view.robot.as_str(), view.sensor.as_str(), view.width, view.height), ("cam", "eye", 160, 120));
    assert!(!view.depth);
    let centre = 3 * (60 * 160 + 80);
    assert_eq!(&view.rgb[centre..centre + 3], &[114, 30, 25]);
    // The other page got its reports but no image.
    server.control("demo", ControlAction::Step { steps: 60 }).await;
    let quiet = tokio::time::timeout(
        Duration::from_millis(500),
        other.until(|received| match received {
            Received::Camera(_) => Some(()),
            _ => None,
        }),
    )
    .await;
    assert!(quiet.is_err(), "a page that did not ask received a camera image");
}
