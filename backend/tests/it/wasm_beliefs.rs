//! What a WebAssembly program believes and draws, against the real server, as
//! `program_beliefs.rs` has it for Python: a module publishes its estimate and draws
//! points, a line and a kept text; the robot's owner and the instructor get them over
//! the websocket, other students and viewers do not until the instructor shares
//! beliefs; the SDK's example robot shows its odometry and its lidar's hits; a module
//! drawing past the step's budget is refused at the call with a console line.

use crate::common;
use crate::example_wasm;

use std::time::Duration;

use common::{Client, Received, TOKEN, TestServer, yard};
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use vlab_protocol::{Belief, ClientMsg, Drawing, ServerMsg};

/// The f64 little-endian bytes of `values`, escaped for a WAT data string.
fn wat_bytes(values: &[f64]) -> String {
    values.iter().flat_map(|v| v.to_le_bytes()).map(|b| format!("\\{b:02x}")).collect()
}

/// A module that draws a kept "start" in yellow at its start, then every step
/// publishes the estimate (1.5, -2, 0.25), draws two green dots and a cyan line: the
/// Python test's program, in WebAssembly. `extra` runs at the end of each `pre_step`.
fn drawing_module(extra: &str) -> Vec<u8> {
    let dots = wat_bytes(&[1.0, 1.0, 0.05, 2.0, 2.0, 0.5]);
    let line = wat_bytes(&[0.0, 0.0, 0.05, 1.0, 0.0, 0.05, 1.0, 1.0, 0.05]);
    let text = format!(
        r##"(module
            (import "vlab" "publish_estimate" (func $estimate (param f64 f64 f64) (result i32)))
            (import "vlab" "draw_points" (func $points (param i32 i32 i32 i32 i32) (result i32)))
            (import "vlab" "draw_lines" (func $lines (param i32 i32 i32 i32 i32) (result i32)))
            (import "vlab" "draw_text" (func $text (param f64 f64 f64 i32 i32 i32 i32 i32) (result i32)))
            (memory (export "memory") 2)
            (data (i32.const 0) "yellow")
            (data (i32.const 8) "#00ff00")
            (data (i32.const 16) "cyan")
            (data (i32.const 24) "start")
            (data (i32.const 64) "{dots}")
            (data (i32.const 128) "{line}")
            (func (export "vlab_abi_version") (result i32) (i32.const 1))
            (func (export "init")
                (drop (call $text (f64.const 0) (f64.const 0) (f64.const 0.3)
                    (i32.const 24) (i32.const 5) (i32.const 0) (i32.const 6) (i32.const 1))))
            (func (export "pre_step")
                (drop (call $estimate (f64.const 1.5) (f64.const -2) (f64.const 0.25)))
                (drop (call $points (i32.const 64) (i32.const 2) (i32.const 8) (i32.const 7) (i32.const 0)))
                (drop (call $lines (i32.const 128) (i32.const 3) (i32.const 16) (i32.const 4) (i32.const 0)))
                {extra}))"##
    );
    wat::parse_str(text).expect("valid WAT")
}

/// Uploads the diffbot `diffbot_ana` at (3, 6) with `module` as its program.
async fn upload(server: &TestServer, token: &str, module: Vec<u8>) -> (u16, Value) {
    let description = "include \"diffbot_robot.vlab\";\ncall diffbot(\"_ana\", 3, 6, 0);\n";
    let form = Form::new()
        .part("description", Part::text(description).file_name("robot.vlab"))
        .part("program", Part::bytes(module).file_name("bot.wasm"));
    let response =
        server.http.post(server.url("/api/labs/demo/robots")).bearer_auth(token).multipart(form).send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

/// A page watching the robot, from the server's first answers on.
async fn watcher(server: &TestServer, token: Option<&str>) -> Client {
    let mut client = server.connect("demo", token).await;
    client.join_sequence().await;
    client.send(&ClientMsg::Subscribe { robot: "diffbot_ana".into() }).await;
    client
}

/// The first belief a page gets that `accept`s, within `reports` reports of the robot.
async fn belief_within(client: &mut Client, reports: usize, accept: impl Fn(&Belief) -> bool) -> Option<Belief> {
    let mut seen = 0;
    loop {
        match client.next().await {
            Received::Json(ServerMsg::Belief(belief)) if accept(&belief) => return Some(belief),
            Received::Json(ServerMsg::Robot(report)) if report.name == "diffbot_ana" => {
                seen += 1;
                if seen > reports {
                    return None;
                }
            }
            _ => {}
        }
    }
}

fn any(_: &Belief) -> bool {
    true
}

#[tokio::test]
async fn the_owner_and_the_instructor_see_a_modules_belief_and_others_once_shared() {
    let server = TestServer::start_with(yard(), true).await;
    let ana = server.join_demo("Ana").await;
    let bob = server.join_demo("Bob").await;
    let (status, reply) = upload(&server, &ana, drawing_module("")).await;
    assert_eq!(status, 200, "{reply}");

    let mut owner = watcher(&server, Some(&ana)).await;
    let belief = belief_within(&mut owner, 100, any).await.expect("the owner sees the belief");
    assert_eq!(belief.robot, "diffbot_ana");
    let estimate = belief.estimate.expect("the estimate");
    assert_eq!((estimate.x, estimate.y, estimate.theta), (1.5, -2.0, 0.25));
    assert!(belief.time > 0.0 && belief.step > 0, "stamped with the answer's step: {belief:?}");
    assert_eq!(belief.drawings.len(), 3, "the kept text, then the step's points and line: {belief:?}");
    assert_eq!(
        belief.drawings[0],
        Drawing::Text { at: [0.0, 0.0, 0.3], text: "start".into(), color: "#fdd835".into() }
    );
    assert_eq!(
        belief.drawings[1],
        Drawing::Points { points: vec![[1.0, 1.0, 0.05], [2.0, 2.0, 0.5]], color: "#00ff00".into() }
    );
    assert_eq!(
        belief.drawings[2],
        Drawing::Lines { points: vec![[0.0, 0.0, 0.05], [1.0, 0.0, 0.05], [1.0, 1.0, 0.05]], color: "#00acc1".into() }
    );
    let mut teacher = watcher(&server, Some(TOKEN)).await;
    assert!(belief_within(&mut teacher, 100, any).await.is_some(), "the instructor sees it");

    let mut other = watcher(&server, Some(&bob)).await;
    let mut viewer = watcher(&server, None).await;
    assert!(belief_within(&mut other, 5, any).await.is_none(), "another student does not");
    assert!(belief_within(&mut viewer, 5, any).await.is_none(), "nor an anonymous viewer");

    server.patch_demo_settings(json!({ "share_beliefs": true })).await;
    assert!(belief_within(&mut other, 100, any).await.is_some(), "shared: other students see it");
    assert!(belief_within(&mut viewer, 100, any).await.is_some(), "and viewers");
}

/// The SDK's example robot, built to wasm32: on a diffbot, with an odometry, it
/// publishes its pose and draws its lidar's hits through the SDK's calls.
#[tokio::test]
async fn the_sdk_s_example_shows_its_odometry_and_its_lidar_hits() {
    let module = example_wasm::example_module();
    let server = TestServer::start_with(yard(), true).await;
    let ana = server.join_demo("Ana").await;
    let (status, reply) = upload(&server, &ana, module.to_vec()).await;
    assert_eq!(status, 200, "{reply}");

    let mut owner = watcher(&server, Some(&ana)).await;
    let hits = |b: &Belief| matches!(b.drawings.as_slice(), [Drawing::Points { points, .. }] if !points.is_empty());
    let belief = belief_within(&mut owner, 200, hits).await.expect("the owner sees the dots");
    let estimate = belief.estimate.expect("the odometry's pose");
    // It starts at x = 3, z = 6 (y = -6), facing +X, and cruises on.
    assert!((estimate.y + 6.0).abs() < 0.5 && estimate.x > 2.5 && estimate.x < 12.0, "{estimate:?}");
    let [Drawing::Points { points, color }] = belief.drawings.as_slice() else { panic!("{belief:?}") };
    assert_eq!(color, "#fb8c00", "orange");
    // The yard's fences are x = 0 and 12 and y = 0 and -12: every hit is on one.
    for [x, y, _] in points {
        let on_fence = [x.abs(), (x - 12.0).abs(), y.abs(), (y + 12.0).abs()].iter().any(|d| *d < 0.5);
        assert!(on_fence, "a hit off the fences: ({x}, {y}) of {points:?}");
    }
    let mut viewer = watcher(&server, None).await;
    assert!(belief_within(&mut viewer, 5, any).await.is_none(), "an anonymous viewer sees none of it");
}

#[tokio::test]
async fn drawing_past_the_budget_is_refused_at_the_call_with_a_console_line() {
    let server = TestServer::start_with(yard(), true).await;
    // 3000 kept dots, then 1001 more: the step's second call is past 4000. The point
    // data is read from the module's memory, 24 bytes a point, all zeros.
    let extra = "(drop (call $points (i32.const 4096) (i32.const 3000) (i32.const 8) (i32.const 7) (i32.const 1)))
                 (drop (call $points (i32.const 4096) (i32.const 1001) (i32.const 8) (i32.const 7) (i32.const 0)))";
    let (status, reply) = upload(&server, TOKEN, drawing_module(extra)).await;
    assert_eq!(status, 200, "{reply}");
    let url = server.url("/api/labs/demo/robots/diffbot_ana");
    let deadline = std::time::Instant::now() + common::PATIENCE;
    loop {
        let report: Value = server.http.get(&url).bearer_auth(TOKEN).send().await.unwrap().json().await.unwrap();
        let console: String = report["console"]
            .as_array()
            .map(|lines| lines.iter().filter_map(|l| l["text"].as_str()).collect::<Vec<_>>().join("\n"))
            .unwrap_or_default();
        // Reports are published ten times a second and the console as it comes: the
        // line may be read with a report from before the program ran.
        let refused = console.contains("draw_points: a step may draw at most 4000 points and line vertices");
        if refused && report["program"]["state"] != "starting" {
            assert_eq!(report["program"]["state"], "running", "a refused call does not stop it: {report}");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "never refused: {report}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
