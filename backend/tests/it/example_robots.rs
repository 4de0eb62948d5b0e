//! The example robots of `scenes/examples/` through the real server: each listed by
//! `GET /api/examples`, uploaded as a student would (its robot description with the
//! placeholders filled in, its `main.py` as the form's `program`), run for a stated
//! simulation time, and held to what its summary promises, measured independently from
//! the robot's true pose in `GET /api/labs/demo/robots/{robot}`.

use crate::common;

use std::time::Duration;

use common::{PATIENCE, TOKEN, TestServer};
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use vlab_protocol::{ClientMsg, ControlAction, ExampleRobot};
use vlab_server::examples::fill_placeholders;
use vlab_server::scene::{MapLoader, Options, SceneModel, interpret};

/// Physics steps per second of simulation time.
const STEPS_PER_SEC: f64 = 240.0;

/// A lab from a scene text (no includes).
fn scene(source: &str) -> SceneModel {
    interpret(source, "lab.vlab", &MapLoader::new(), &Options::default()).unwrap_or_else(|e| panic!("{}", e[0])).model
}

/// An empty fenced yard, `width` × `length` metres from (0, 0).
fn yard(width: f64, length: f64) -> String {
    format!("environment wallrect {{ width {width}; length {length}; height 0.5; gravity -9.81; }}\n")
}

async fn examples(server: &TestServer) -> Vec<ExampleRobot> {
    let (status, body) = server.get_json("/api/examples").await;
    assert_eq!(status, 200, "{body}");
    serde_json::from_value(body).unwrap()
}

async fn example(server: &TestServer, id: &str) -> ExampleRobot {
    examples(server).await.into_iter().find(|e| e.id == id).unwrap_or_else(|| panic!("no example '{id}'"))
}

async fn join(server: &TestServer, name: &str) -> String {
    let body = json!({ "join_code": "DEMOCODE", "name": name });
    let reply: Value =
        server.http.post(server.url("/api/labs/demo/join")).json(&body).send().await.unwrap().json().await.unwrap();
    reply["token"].as_str().expect("a session token").to_owned()
}

/// Uploads `example` as a student does: its robot with `suffix` at (x, z), and its
/// program's files (`main.py` as the form's `program`).
async fn upload(
    server: &TestServer,
    token: &str,
    example: &ExampleRobot,
    suffix: &str,
    x: f64,
    z: f64,
) -> (u16, Value) {
    let description = fill_placeholders(&example.robot, suffix, x, z);
    let mut form = Form::new().part("description", Part::text(description).file_name("robot.vlab"));
    for (name, text) in &example.program.files {
        let field = if *name == example.program.main { "program".to_owned() } else { name.clone() };
        form = form.part(field, Part::text(text.clone()).file_name(name.clone()));
    }
    let response =
        server.http.post(server.url("/api/labs/demo/robots")).bearer_auth(token).multipart(form).send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

async fn robot(server: &TestServer, name: &str) -> Value {
    let response =
        server.http.get(server.url(&format!("/api/labs/demo/robots/{name}"))).bearer_auth(TOKEN).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    response.json().await.unwrap()
}

/// Uploads `id` for a new student into a paused lab and waits until its program runs.
async fn start(server: &TestServer, id: &str, suffix: &str, x: f64, z: f64) -> (String, String) {
    let token = join(server, "Ana").await;
    let example = example(server, id).await;
    let (status, reply) = upload(server, &token, &example, suffix, x, z).await;
    assert_eq!(status, 200, "{id}: {reply}");
    let name = reply["robots"][0].as_str().unwrap().to_owned();
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let report = robot(server, &name).await;
        if report["program"]["state"] != "starting" {
            assert_eq!(report["program"]["state"], "running", "{report}");
            return (token, name);
        }
        assert!(tokio::time::Instant::now() < deadline, "{name}'s program never started");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A robot's true pose at one moment.
#[derive(Clone, Copy, Debug)]
struct Sample {
    time: f64,
    x: f64,
    z: f64,
    heading: f64,
}

fn sample(report: &Value) -> Sample {
    let position = &report["pose"]["position"];
    Sample {
        time: report["time"].as_f64().unwrap(),
        x: position[0].as_f64().unwrap(),
        z: position[2].as_f64().unwrap(),
        heading: report["pose"]["heading"].as_f64().unwrap(),
    }
}

/// Steps the lab `secs` of simulation time, sampling `name`'s true pose every `every`
/// physics steps.
async fn run(server: &TestServer, name: &str, secs: f64, every: u32) -> Vec<Sample> {
    let total = (secs * STEPS_PER_SEC).round() as u32;
    let mut samples = Vec::new();
    let mut done = 0;
    while done < total {
        let steps = every.min(total - done);
        server.control("demo", ControlAction::Step { steps }).await;
        done += steps;
        samples.push(sample(&robot(server, name).await));
    }
    samples
}

fn console(report: &Value) -> String {
    report["console"].as_array().map_or(String::new(), |lines| {
        lines.iter().map(|l| l["text"].as_str().unwrap_or("")).collect::<Vec<_>>().join("\n")
    })
}

/// `a - b` wrapped into -π..π.
fn angle_between(a: f64, b: f64) -> f64 {
    (a - b).sin().atan2((a - b).cos())
}

#[tokio::test]
async fn the_nine_examples_are_listed_and_each_uploads_without_errors() {
    let server = TestServer::start_with(scene(&yard(20.0, 20.0)), false).await;
    let listed = examples(&server).await;
    let ids: Vec<&str> = listed.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "beacon_localization",
            "bumper_and_turn",
            "go_to_goal",
            "localization",
            "rendezvous",
            "tank_back_and_forth",
            "teleop",
            "track_red_post",
            "wall_follower"
        ]
    );
    let ana = join(&server, "Ana").await;
    for (i, example) in listed.iter().enumerate() {
        assert!(!example.title.trim().is_empty() && !example.summary.trim().is_empty(), "{}", example.id);
        assert!(example.summary.len() > 80, "{}: a summary says what it does and what to try", example.id);
        assert_eq!(example.program.main, "main.py");
        assert!(example.program.files["main.py"].contains("from vlab import Robot"), "{}", example.id);
        let suffix = format!("_{i}");
        // Two metres apart along the middle of the 20 m yard, all on its floor.
        let (status, reply) = upload(&server, TOKEN, example, &suffix, 2.0 + 2.0 * i as f64, 10.0).await;
        assert_eq!(status, 200, "{}: {reply}", example.id);
        assert!(reply["errors"].as_array().is_none_or(|e| e.is_empty()), "{}: {reply}", example.id);
        assert!(reply["warnings"].as_array().is_none_or(|w| w.is_empty()), "{}: {reply}", example.id);
        let name = reply["robots"][0].as_str().unwrap();
        assert!(name.ends_with(&suffix), "{}: {name}", example.id);
    }
    // A student's upload of one, too (robots only, within the quota).
    let teleop = listed.iter().find(|e| e.id == "teleop").unwrap();
    let (status, reply) = upload(&server, &ana, teleop, "_ana", 10.0, 15.0).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["robots"], json!(["diffbot_ana"]));
}

/// Track a red post: in a yard with a red post behind it and to its left, the camera
/// robot turns until it sees the post, drives to it and stops about half a metre from
/// its centre, where the post fills a third of its 80-pixel-wide image (a 0.1 m radius
/// seen across 2·atan(0.1/d) of a 1.2 rad view: d ≈ 0.49 m from the camera).
#[tokio::test]
async fn track_red_post_finds_the_post_and_stops_in_front_of_it() {
    let post = (1.5, 8.0);
    let source = format!(
        "{}static red_post {{ shape cylinder(0.1, 1); rotation_axis(1, 0, 0, pi / 2); pos({}, 0.5, {}); material \"Red\"; }}\n",
        yard(12.0, 12.0),
        post.0,
        post.1
    );
    let server = TestServer::start_with(scene(&source), false).await;
    let (_, name) = start(&server, "track_red_post", "_ana", 3.0, 6.0).await;
    let samples = run(&server, &name, 40.0, 240).await;
    let end = *samples.last().unwrap();
    let before = samples[samples.len() - 3];
    let distance = (end.x - post.0).hypot(end.z - post.1);
    let still = (end.x - before.x).hypot(end.z - before.z);
    let report = robot(&server, &name).await;
    println!("track red post: ends {distance:.3} m from the post's centre, moved {still:.4} m in its last 2 s");
    let log = console(&report);
    assert!(log.contains("searching") && log.contains("tracking") && log.contains("reached the red post"), "{log}");
    assert!((0.3..0.75).contains(&distance), "it stopped {distance:.3} m from the post's centre");
    assert!(still < 0.01, "it stopped: moved {still} m in 2 s");
}

/// Teleop: holding I drives forward, J turns left on the spot, no key stops it.
#[tokio::test]
async fn teleop_follows_the_owners_keys() {
    let server = TestServer::start_with(scene(&yard(12.0, 12.0)), false).await;
    let (token, name) = start(&server, "teleop", "_ana", 4.0, 6.0).await;
    let mut page = server.connect("demo", Some(&token)).await;
    page.join_sequence().await;
    let mut hold = async |keys: &[&str]| {
        let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        page.send(&ClientMsg::Keys { robot: name.clone(), keys: keys.clone() }).await;
        let deadline = tokio::time::Instant::now() + PATIENCE;
        while robot(&server, &name).await["keys"] != json!(keys) {
            assert!(tokio::time::Instant::now() < deadline, "the keys {keys:?} never arrived");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };

    let start = sample(&robot(&server, &name).await);
    hold(&["I"]).await;
    let forward = *run(&server, &name, 2.0, 480).await.last().unwrap();
    let ahead = (forward.x - start.x) * start.heading.cos() - (forward.z - start.z) * start.heading.sin();
    let aside = (forward.z - start.z).abs();
    println!("I for 2 s: {ahead:.3} m ahead, {aside:.3} m aside, heading {:.3} rad", forward.heading);
    // 0.2 m/s for 2 s, less the start-up.
    assert!((0.3..0.42).contains(&ahead), "I for 2 s drove {ahead} m forward");
    assert!(aside < 0.03 && forward.heading.abs() < 0.05, "I drives straight: {forward:?}");

    hold(&["J"]).await;
    let turned = *run(&server, &name, 1.0, 240).await.last().unwrap();
    let left = angle_between(turned.heading, forward.heading);
    let moved = (turned.x - forward.x).hypot(turned.z - forward.z);
    println!("J for 1 s: turned {left:.3} rad, moved {moved:.3} m");
    // 1.5 rad/s for 1 s (less the start-up, and the wind-down from driving ahead).
    assert!((1.0..1.6).contains(&left), "J for 1 s turned it {left} rad counter-clockwise");
    assert!(moved < 0.06, "J turns on the spot: moved {moved} m");

    hold(&[]).await;
    run(&server, &name, 0.5, 120).await; // it comes to rest
    let rest = *run(&server, &name, 0.5, 120).await.last().unwrap();
    let stopped = *run(&server, &name, 1.0, 240).await.last().unwrap();
    let drift = (stopped.x - rest.x).hypot(stopped.z - rest.z);
    let spin = angle_between(stopped.heading, rest.heading).abs();
    println!("no key for 1 s: moved {drift:.4} m, turned {spin:.4} rad");
    assert!(drift < 0.005 && spin < 0.01, "with no key it stays put: {drift} m, {spin} rad");
    let report = robot(&server, &name).await;
    assert_eq!(report["program"]["state"], "running", "{report}");
}

/// The wall follower in a walled 4 m × 3 m yard: after settling it stays within 0.1 m
/// of its 0.4 m target from the nearest wall for 60 s, and goes round the yard.
#[tokio::test]
async fn the_wall_follower_keeps_its_distance_along_the_walls() {
    let (width, length) = (4.0, 3.0);
    let server = TestServer::start_with(scene(&yard(width, length)), false).await;
    let (_, name) = start(&server, "wall_follower", "_ana", 2.0, 1.5).await;
    let settle = run(&server, &name, 20.0, 24).await;
    let follow = run(&server, &name, 60.0, 24).await;
    let wall = |s: &Sample| s.x.min(width - s.x).min(s.z).min(length - s.z);
    let (near, far) = follow.iter().map(wall).fold((f64::MAX, f64::MIN), |(lo, hi), d| (lo.min(d), hi.max(d)));
    let path: f64 = follow.windows(2).map(|w| (w[1].x - w[0].x).hypot(w[1].z - w[0].z)).sum();
    // Which walls it went along (the one nearest it, sample by sample).
    let mut sides = std::collections::BTreeSet::new();
    for s in &follow {
        let distances = [s.x, width - s.x, s.z, length - s.z];
        let nearest = (0..4).min_by(|&a, &b| distances[a].total_cmp(&distances[b])).unwrap();
        sides.insert(nearest);
    }
    let report = robot(&server, &name).await;
    println!(
        "wall follower: settled at {:.3} m from a wall; over 60 s the nearest wall stayed {near:.3}..{far:.3} m away; \
         path {path:.2} m along {} walls",
        wall(settle.last().unwrap()),
        sides.len()
    );
    assert!(near > 0.3 && far < 0.5, "the wall stayed {near:.3}..{far:.3} m away, not 0.4 ± 0.1 m");
    assert!(path > 7.0, "it travelled only {path:.2} m in 60 s");
    assert_eq!(sides.len(), 4, "it went round the yard, along every wall");
    assert_eq!(report["program"]["state"], "running", "{}", console(&report));
}

/// Rendezvous: two radio robots 4 m apart, both facing +X, meet half-way: each stops
/// 0.2 m from the mean of the two positions, (5, 6), so they end about 0.4 m apart
/// around it. Neither knows where the other is but by radio.
#[tokio::test]
async fn rendezvous_robots_meet_half_way_by_radio() {
    if !common::python_runs_here() {
        return;
    }
    let server = TestServer::start_with(scene(&yard(12.0, 12.0)), false).await;
    let example = example(&server, "rendezvous").await;
    let mut names = Vec::new();
    for (suffix, x) in [("_a", 3.0), ("_b", 7.0)] {
        let (status, reply) = upload(&server, TOKEN, &example, suffix, x, 6.0).await;
        assert_eq!(status, 200, "{reply}");
        names.push(reply["robots"][0].as_str().unwrap().to_owned());
    }
    for name in &names {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        while robot(&server, name).await["program"]["state"] == "starting" {
            assert!(tokio::time::Instant::now() < deadline, "{name}'s program never started");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    let a = run(&server, &names[0], 40.0, 480).await;
    let b = sample(&robot(&server, &names[1]).await);
    let a = *a.last().unwrap();
    let apart = (a.x - b.x).hypot(a.z - b.z);
    let middle = ((a.x + b.x) / 2.0, (a.z + b.z) / 2.0);
    println!("rendezvous: {apart:.3} m apart around ({:.3}, {:.3})", middle.0, middle.1);
    assert!((0.25..0.6).contains(&apart), "they end {apart:.3} m apart: {a:?} {b:?}");
    assert!((middle.0 - 5.0).hypot(middle.1 - 6.0) < 0.15, "they meet around {middle:?}, not (5, 6)");
}

/// Beacon localization: in scenes/beacons.vlab, starting at (3, 8) facing +X, the robot
/// finds where it is from the four beacons alone and drives to the yard's centre, (6, -6)
/// on the ground, i.e. world (6, 6); it ends within 0.15 m of it (its estimate's noise:
/// 3 cm on distances, 0.01 rad on bearings and compass, averaged over the beacons).
#[tokio::test]
async fn beacon_localization_reaches_the_centre_by_its_beacons() {
    if !common::python_runs_here() {
        return;
    }
    let scenes = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../scenes"));
    let source = std::fs::read_to_string(scenes.join("beacons.vlab")).unwrap();
    let loader = vlab_server::scene::DirLoader { scenes: scenes.clone(), assets: None };
    let lab = interpret(&source, "beacons.vlab", &loader, &Options::default()).unwrap().model;
    assert_eq!(lab.beacons.len(), 4);
    let server = TestServer::start_with(lab, false).await;
    let (_, name) = start(&server, "beacon_localization", "_ana", 3.0, 8.0).await;
    let samples = run(&server, &name, 40.0, 480).await;
    let end = *samples.last().unwrap();
    let miss = (end.x - 6.0).hypot(end.z - 6.0);
    println!("beacon localization: ends {miss:.3} m from the centre, at ({:.3}, {:.3})", end.x, end.z);
    assert!(miss < 0.15, "it ended {miss:.3} m from (6, 6): {end:?}");
    let report = robot(&server, &name).await;
    let seen = &report["sensors"].as_array().unwrap().iter().find(|s| s["name"] == "beacons").unwrap()["truth"];
    assert_eq!(seen["landmarks"].as_array().unwrap().len(), 4, "all four in view from the centre: {seen}");
}

/// Go to goal: the goal is 2 m ahead and 1 m to the left of the start (odometry); the
/// true pose ends within 0.1 m of it, at rest.
#[tokio::test]
async fn go_to_goal_stops_at_the_goal() {
    let server = TestServer::start_with(scene(&yard(12.0, 12.0)), false).await;
    let (x0, z0) = (3.0, 6.0);
    let (_, name) = start(&server, "go_to_goal", "_ana", x0, z0).await;
    // Facing +X, the robot's left is world -Z.
    let goal = (x0 + 2.0, z0 - 1.0);
    let samples = run(&server, &name, 30.0, 240).await;
    let end = *samples.last().unwrap();
    let before = samples[samples.len() - 3];
    let miss = (end.x - goal.0).hypot(end.z - goal.1);
    let still = (end.x - before.x).hypot(end.z - before.z);
    let report = robot(&server, &name).await;
    let arrived = samples.iter().find(|s| (s.x - goal.0).hypot(s.z - goal.1) < 0.1).map(|s| s.time);
    let odom = &report["sensors"].as_array().unwrap().iter().find(|s| s["name"] == "odom").unwrap()["measured"];
    println!("go to goal: its odometry ends at ({}, {}) (x, -z)", odom["x"], odom["y"]);
    println!(
        "go to goal: ends {miss:.3} m from the goal (first within 0.1 m at {arrived:?} s), moved {still:.4} m in its last 2 s"
    );
    assert!(miss < 0.1, "it ended {miss:.3} m from the goal {goal:?}: at ({:.3}, {:.3})", end.x, end.z);
    assert!(still < 0.005, "it stopped there: moved {still} m in 2 s");
    assert!(console(&report).contains("reached the goal"), "{}", console(&report));
    assert_eq!(report["program"]["state"], "running");
}

/// Bumper and turn in a 6 m yard with a crate 1 m ahead: it drives into the crate,
/// backs up and turns away, and in 60 s it is never pinned (it keeps moving); its
/// bumper fires on the way (the fence).
#[tokio::test]
async fn bumper_and_turn_bumps_backs_up_turns_and_drives_on() {
    let crate_face = 3.0;
    let source = format!(
        "{}static crate {{ shape box(0.4, 0.3, 1.2); pos({}, 0.15, 3); material \"Wood\"; }}\n",
        yard(6.0, 6.0),
        crate_face + 0.2
    );
    let server = TestServer::start_with(scene(&source), false).await;
    let (_, name) = start(&server, "bumper_and_turn", "_ana", 2.0, 3.0).await;
    let samples = run(&server, &name, 60.0, 12).await;
    // The bumper's front face is 0.08 m ahead of the chassis origin.
    let (contact, closest) = samples
        .iter()
        .enumerate()
        .map(|(i, s)| (i, crate_face - (s.x + 0.08 * s.heading.cos())))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap();
    let at = samples[contact];
    let after = &samples[contact..];
    let backed = after.iter().map(|s| at.x - s.x).fold(f64::MIN, f64::max);
    let heading_away = after.iter().find(|s| angle_between(s.heading, at.heading).abs() > 1.5).map(|s| s.time);
    // Pinned: three seconds without moving 5 cm or turning 0.3 rad.
    let window = (3.0 * STEPS_PER_SEC / 12.0) as usize;
    // (Turning on the spot is not pinned: 0.3 rad of turn counts as 5 cm of travel.)
    let least = samples
        .windows(window)
        .map(|w| {
            w.iter()
                .map(|s| (s.x - w[0].x).hypot(s.z - w[0].z).max(angle_between(s.heading, w[0].heading).abs() / 6.0))
                .fold(0.0, f64::max)
        })
        .fold(f64::MAX, f64::min);
    let report = robot(&server, &name).await;
    let text = console(&report);
    let (events, touched) = (text.matches(" so far: backing up").count(), text.matches("bump, ").count());
    println!(
        "bumper and turn: closest to the crate {closest:.4} m at {:.2} s; backed {backed:.3} m; heading 1.5 rad away \
         at {heading_away:?} s; least movement in any 3 s: {least:.3} m; {events} bumps, {touched} felt by the bumper",
        at.time
    );
    assert!(closest < 0.02, "it never reached the crate: {closest:.3} m short");
    assert!(backed > 0.1, "it backed up only {backed:.3} m after the bump");
    assert!(heading_away.is_some(), "it never turned away from the crate");
    assert!(least > 0.05, "pinned: moved only {least:.3} m (or turned {:.2} rad) in some 3 s", least * 6.0);
    assert!(events >= 2, "in 60 s in a yard it bumps into more than the crate:\n{text}");
    assert!(touched >= 1, "its bumper never fired:\n{text}");
    assert_eq!(report["program"]["state"], "running", "{report}");
}

/// The tank's back and forth: x turns back at each limit (start ± 1.5 m), and at once
/// when its owner presses I.
#[tokio::test]
async fn the_tank_goes_back_and_forth_between_its_limits_and_reverses_on_i() {
    let server = TestServer::start_with(scene(&yard(12.0, 12.0)), false).await;
    let (x0, z0) = (6.0, 6.0);
    let (token, name) = start(&server, "tank_back_and_forth", "_ana", x0, z0).await;
    let (low, high) = (x0 - 1.5, x0 + 1.5);
    let mut samples = run(&server, &name, 40.0, 24).await;

    // Press I while it drives, away from both limits, then let go.
    let mut page = server.connect("demo", Some(&token)).await;
    page.join_sequence().await;
    loop {
        let s = *samples.last().unwrap();
        if (s.x - x0).abs() < 0.3 {
            break;
        }
        samples.extend(run(&server, &name, 0.1, 24).await);
    }
    let pressed_at = *samples.last().unwrap();
    for keys in [vec!["I".to_owned()], vec![]] {
        page.send(&ClientMsg::Keys { robot: name.clone(), keys: keys.clone() }).await;
        while robot(&server, &name).await["keys"] != json!(keys) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        samples.extend(run(&server, &name, 0.2, 24).await);
    }
    samples.extend(run(&server, &name, 10.0, 24).await);

    // Turning points: where x, having moved 5 cm one way, starts back the other.
    let mut turns = Vec::new();
    let (mut extreme, mut rising) = (samples[0], true);
    for s in &samples {
        if (rising && s.x > extreme.x) || (!rising && s.x < extreme.x) {
            extreme = *s;
        } else if (s.x - extreme.x).abs() > 0.05 {
            turns.push(extreme);
            extreme = *s;
            rising = !rising;
        }
    }
    let report = robot(&server, &name).await;
    let drift = samples.iter().map(|s| (s.z - z0).abs()).fold(0.0, f64::max);
    let lines: Vec<String> = turns.iter().map(|t| format!("x={:.3} at {:.2} s", t.x, t.time)).collect();
    println!("tank: turning points {lines:?}; I pressed at x={:.3}; z drifted {drift:.3} m", pressed_at.x);
    let at_limits: Vec<&Sample> = turns.iter().filter(|t| t.time < pressed_at.time).collect();
    assert!(at_limits.len() >= 5, "only {} reversals in 40 s: {lines:?}", at_limits.len());
    for (i, turn) in at_limits.iter().enumerate() {
        // It goes to +X first: high, low, high, ...
        let (limit, beyond) = if i % 2 == 0 { (high, turn.x - high) } else { (low, low - turn.x) };
        assert!((0.0..0.2).contains(&beyond), "reversal {i} at x={:.3}, not just past the limit {limit}", turn.x);
    }
    let on_key = turns.iter().find(|t| t.time >= pressed_at.time).expect("no reversal after I");
    assert!(
        (on_key.x - pressed_at.x).abs() < 0.15 && on_key.time - pressed_at.time < 0.5,
        "I reversed it at x={:.3} at {:.2} s, pressed at x={:.3} at {:.2} s",
        on_key.x,
        on_key.time,
        pressed_at.x,
        pressed_at.time
    );
    assert!(turns.len() > at_limits.len() + 1, "it went on between its limits after I: {lines:?}");
    assert!(drift < 0.3, "it keeps to its line along x: z drifted {drift:.3} m");
    assert!(console(&report).contains("GPS: "), "{}", console(&report));
    assert_eq!(report["program"]["state"], "running", "{report}");
}

/// Localization: in the corridor lab, started with no idea where it is in the corridor,
/// the robot's first guesses cover the corridor, and after driving past its doorway
/// recess, round the corner and to the dead end its published estimate is within 0.3 m
/// and 15° of its true pose and stays there, measured against the true pose the lab
/// reports (not what the program says of itself). Sim-time based: the lab is stepped
/// by hand, one second at a time, and the estimate compared after each second.
#[tokio::test]
async fn localization_finds_where_it_is_in_the_corridor() {
    if !common::python_runs_here() {
        return;
    }
    const SECONDS: u32 = 120;
    let scenes = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../scenes"));
    let source = std::fs::read_to_string(scenes.join("corridor.vlab")).unwrap();
    let loader = vlab_server::scene::DirLoader { scenes: scenes.clone(), assets: None };
    let corridor = interpret(&source, "corridor.vlab", &loader, &Options::default()).unwrap().model;
    let server = TestServer::start_with(corridor, false).await;
    // At the corridor's open end, facing down its first leg (the example's heading).
    let (token, name) = start(&server, "localization", "_ana", 2.95, 1.8).await;
    let mut page = server.connect("demo", Some(&token)).await;
    page.join_sequence().await;
    page.send(&ClientMsg::Subscribe { robot: name.clone() }).await;

    // The latest estimate and drawn points the owner's page got, and the first points.
    let mut estimate = None;
    let mut first_points: Option<Vec<[f32; 3]>> = None;
    // (second, distance from the true position, heading error) after each second.
    let mut errors: Vec<(u32, f64, f64)> = Vec::new();
    for second in 1..=SECONDS {
        server.control("demo", ControlAction::Step { steps: STEPS_PER_SEC as u32 }).await;
        // The report after the step, then the belief the lab sends right after it (once
        // the program has published anything, every report is followed by its belief).
        let mut truth = None;
        loop {
            match page.next().await {
                common::Received::Json(vlab_protocol::ServerMsg::Belief(belief)) => {
                    estimate = belief.estimate.or(estimate);
                    let points: Vec<[f32; 3]> = belief
                        .drawings
                        .iter()
                        .flat_map(|d| match d {
                            vlab_protocol::Drawing::Points { points, .. } => points.clone(),
                            _ => Vec::new(),
                        })
                        .collect();
                    if first_points.is_none() && !points.is_empty() {
                        first_points = Some(points);
                    }
                    if truth.is_some() {
                        break;
                    }
                }
                common::Received::Json(vlab_protocol::ServerMsg::Robot(report))
                    if report.time >= f64::from(second) - 1e-9 =>
                {
                    truth = Some(report.pose);
                    if first_points.is_none() && estimate.is_none() {
                        break;
                    }
                }
                _ => {}
            }
        }
        let truth = truth.unwrap();
        if let Some(e) = estimate {
            // The true pose on the ground plane: (x, y) = world (X, -Z).
            let (x, y) = (truth.position[0], -truth.position[2]);
            let distance = ((e.x - x).powi(2) + (e.y - y).powi(2)).sqrt();
            let heading = angle_between(e.theta, truth.heading).abs().to_degrees();
            if std::env::var("VLAB_DEBUG_LOCALIZATION").is_ok() {
                eprintln!(
                    "{second}: truth ({x:.2}, {y:.2}, {:.0}°) estimate ({:.2}, {:.2}, {:.0}°)",
                    truth.heading.to_degrees(),
                    e.x,
                    e.y,
                    e.theta.to_degrees()
                );
            }
            errors.push((second, distance, heading));
        }
    }
    let report = robot(&server, &name).await;
    eprintln!("{}", console(&report));
    eprintln!("distance (m) and heading (°) errors by second: {errors:.2?}");
    assert_eq!(report["program"]["state"], "running", "{}", console(&report));

    // At the start the guesses covered the corridor, not one spot: the first points
    // it drew span most of its first leg's 12 m and both legs' widths.
    let first = first_points.expect("the program drew its particles");
    let span = |axis: usize| {
        let values = first.iter().map(|p| f64::from(p[axis]));
        values.clone().fold(f64::NEG_INFINITY, f64::max) - values.fold(f64::INFINITY, f64::min)
    };
    assert!(
        first.len() >= 500 && span(0) > 4.0 && span(1) > 8.0,
        "{} points over {:.1} × {:.1} m",
        first.len(),
        span(0),
        span(1)
    );
    // So its first estimates were off: the mean of guesses spread along the corridor.
    assert!(errors.iter().take(3).any(|(_, d, _)| *d > 1.0), "the first estimates were far off: {errors:.2?}");
    // Once it has driven past the doorway recess (it is sure by about 30 s), it has
    // found where it is, and it stays there round the corner, to the dead end and back.
    let late: Vec<&(u32, f64, f64)> = errors.iter().filter(|(s, _, _)| *s >= SECONDS / 2).collect();
    assert_eq!(late.len(), 61, "an estimate every second: {errors:.2?}");
    assert!(late.iter().all(|(_, d, h)| *d < 0.3 && *h < 15.0), "within 0.3 m and 15° from 60 s on: {errors:.2?}");
}
