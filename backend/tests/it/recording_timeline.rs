//! The timeline against the real server: a recorded step shows what the live run showed
//! then (poses and readings), steps between frames show the frame before, a recording
//! stays within its budget, and a run recorded before the server was killed can still
//! be scrubbed after it restarted.

use crate::common;

use std::collections::BTreeMap;

use common::binary::VlabProcess;
use common::{Client, Received, TOKEN, TestServer};
use serde_json::Value;
use vlab_protocol::{
    BodyId, BodyPose, ClientMsg, ControlAction, ErrorCode, Frame, LinkTable, PROTOCOL_VERSION, RecordedMoment,
    RecordingSummary, SensorReport, ServerMsg,
};
use vlab_server::classroom::{Classroom, ClassroomConfig};
use vlab_server::lab::{LabConfig, LabHandle};
use vlab_server::scene::demo_scene;
use vlab_server::secret::TokenDigest;

/// Reads until the moment answering a seek (or the error refusing it).
async fn moment(client: &mut Client) -> Result<RecordedMoment, vlab_protocol::ErrorBody> {
    client
        .until(|received| match received {
            Received::Json(ServerMsg::Moment(moment)) => Some(Ok((**moment).clone())),
            Received::Json(ServerMsg::Error(error)) => Some(Err(error.clone())),
            _ => None,
        })
        .await
}

async fn seek(client: &mut Client, run: Option<u32>, step: u64, epoch: Option<u32>, robots: &[&str]) {
    let robots = robots.iter().map(|r| r.to_string()).collect();
    client.send(&ClientMsg::Seek { run, step, epoch, robots }).await;
}

/// Reads frames until the one of `step`, folding every frame into `seen`.
async fn frame_of(client: &mut Client, seen: &mut Frame, step: u64) {
    loop {
        if let Received::Frame(frame) = client.next().await {
            let at = frame.step;
            seen.absorb(frame);
            if at == step {
                return;
            }
        }
    }
}

fn assert_same_poses(recorded: &[BodyPose], live: &[BodyPose], step: u64, links: &LinkTable) {
    let live: BTreeMap<BodyId, &BodyPose> = live.iter().map(|p| (p.id, p)).collect();
    assert_eq!(recorded.len(), live.len(), "step {step}: every moving body");
    // Live frames place a body on a hinge or slider (a wheel) exactly on its joint, from
    // its parent's pose and the joint's coordinate: so is its recorded pose here.
    let raw: BTreeMap<BodyId, BodyPose> = recorded.iter().map(|p| (p.id, *p)).collect();
    let mut on_joints = raw.clone();
    for link in links.links() {
        let coordinate = link.coordinate(&raw[&link.parent], &raw[&link.child]);
        let placed = link.child_pose(&on_joints[&link.parent], coordinate);
        on_joints.insert(link.child, placed);
    }
    for pose in on_joints.values() {
        let seen = live[&pose.id];
        // Live frames carry positions on a grid (within half of it) and rotations
        // quantized to 13 bits a component, and q and −q are the same rotation; a linked
        // body's position also carries its parent's rotation error at its distance
        // (0.035° is 0.1 mm at 0.15 m).
        let off = pose.position.iter().zip(seen.position).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
        let half_grid = (vlab_protocol::POSITION_RESOLUTION_M / 2.0) as f32 * 1.01;
        let allowed = if links.link_of(pose.id.0).is_some() { 0.0005 } else { half_grid };
        assert!(off <= allowed, "step {step}, body {:?}: {:?} vs {:?}", pose.id, pose.position, seen.position);
        let apart =
            |sign: f32| pose.rotation.iter().zip(seen.rotation).map(|(a, b)| (a - sign * b).abs()).fold(0.0, f32::max);
        let turned = apart(1.0).min(apart(-1.0));
        assert!(turned < 5e-4, "step {step}, body {:?}: {:?} vs {:?}", pose.id, pose.rotation, seen.rotation);
    }
}

#[tokio::test]
async fn a_recorded_step_shows_the_poses_and_readings_the_live_run_had_then() {
    let server = TestServer::start(false).await;
    let mut live = server.connect("demo", None).await;
    let (_, snapshot, _, mut seen) = live.join_sequence().await;
    let links = LinkTable::new(snapshot.links.clone()).unwrap();
    assert!(!links.is_empty(), "the demo's wheels are linked");
    let mut poses_at = BTreeMap::new();
    let mut reports_at = BTreeMap::new();
    for _ in 0..24 {
        let state = server.control("demo", ControlAction::Step { steps: 10 }).await;
        frame_of(&mut live, &mut seen, state.step).await;
        poses_at.insert(state.step, seen.poses.clone());
        let (_, report) = server.get_json("/api/labs/demo/robots/rover_red").await;
        reports_at.insert(state.step, report);
    }

    let mut viewer = server.connect("demo", None).await;
    viewer.join_sequence().await;
    for (&step, poses) in poses_at.iter().step_by(5) {
        seek(&mut viewer, None, step, Some(snapshot.epoch), &["rover_red"]).await;
        let shown = moment(&mut viewer).await.expect("recorded");
        assert_eq!((shown.step, shown.asked), (step, step));
        assert!(shown.snapshot.is_none(), "the page has this scene already");
        assert_same_poses(&shown.poses, poses, step, &links);
        // Every sensor reads as the live report read at that step.
        let live_sensors: Vec<SensorReport> = serde_json::from_value(reports_at[&step]["sensors"].clone()).unwrap();
        for sensor in &live_sensors {
            let kept = shown.robots[0].sensors.iter().find(|s| s.name == sensor.name).unwrap();
            assert_eq!((kept.step, kept.time), (sensor.step, sensor.time), "step {step}, {}", sensor.name);
            assert_eq!(
                (&kept.measured, &kept.truth),
                (&sensor.measured, &sensor.truth),
                "step {step}, {}",
                sensor.name
            );
        }
        let trail = &shown.trails[0];
        assert_eq!(trail.robot, "rover_red");
        assert!(trail.truth.iter().all(|p| p.step <= step) && trail.truth.len() as u64 >= step / 24);
    }

    // A step between frames shows the frame before it; one past the live step, the last.
    seek(&mut viewer, None, 125, None, &[]).await;
    let between = moment(&mut viewer).await.unwrap();
    assert_eq!((between.step, between.asked), (120, 125));
    assert_eq!(between.snapshot.as_ref().map(|s| s.epoch), Some(snapshot.epoch), "a page without the scene gets it");
    seek(&mut viewer, None, 1_000_000, Some(snapshot.epoch), &[]).await;
    assert_eq!(moment(&mut viewer).await.unwrap().step, 240);

    // More robots than a seek may ask about is a clear refusal.
    let many: Vec<String> = (0..9).map(|i| format!("r{i}")).collect();
    viewer.send(&ClientMsg::Seek { run: None, step: 10, epoch: None, robots: many }).await;
    let refused = moment(&mut viewer).await.unwrap_err();
    assert_eq!(refused.code, ErrorCode::InvalidArgument, "{}", refused.message);
}

#[tokio::test]
async fn a_page_that_goes_back_to_live_gets_the_live_scene_again() {
    let server = TestServer::start(false).await;
    server.control("demo", ControlAction::Step { steps: 50 }).await;
    let mut viewer = server.connect("demo", None).await;
    viewer.join_sequence().await;
    seek(&mut viewer, None, 10, None, &[]).await;
    let shown = moment(&mut viewer).await.unwrap();
    // One `step 50` sends viewers the frame of step 50 alone: before it, step 0.
    assert_eq!((shown.step, shown.asked), (0, 10));
    viewer.send(&ClientMsg::Live).await;
    let snapshot = viewer
        .until(|r| match r {
            Received::Json(ServerMsg::Snapshot(s)) => Some(s.clone()),
            _ => None,
        })
        .await;
    let Received::Frame(keyframe) = viewer.next().await else { panic!("the keyframe follows the snapshot") };
    assert_eq!((keyframe.epoch, keyframe.step), (snapshot.epoch, 50));
}

#[tokio::test]
async fn a_recording_over_its_budget_drops_its_oldest_steps_and_says_so() {
    const BUDGET: u64 = 96 * 1024;
    let classroom = Classroom::new(ClassroomConfig {
        server_key: Some(TokenDigest::of(TOKEN)),
        recording_budget: Some(BUDGET),
        ..ClassroomConfig::default()
    });
    classroom.registry.insert(
        LabHandle::open(LabConfig {
            id: "demo".into(),
            name: "Small budget".into(),
            scene: demo_scene(1),
            instructor: TokenDigest::of(TOKEN),
            start_running: false,
            seed: 1,
            join_code: "DEMOCODE".into(),
            settings: Default::default(),
            students: vec![],
            programs: Default::default(),
            recording: classroom.recording_sink(),
            first_run: 1,
        })
        .unwrap(),
    );
    let server = TestServer::serve(classroom).await;
    let mut viewer = server.connect("demo", None).await;
    for _ in 0..20 {
        server.control("demo", ControlAction::Step { steps: 480 }).await;
    }
    let summary = viewer
        .until(|r| match r {
            Received::Json(ServerMsg::Recording(s)) if s.last_step == Some(9600) => Some(s.clone()),
            _ => None,
        })
        .await;
    assert!(summary.dropped && summary.first_step.unwrap() > 0, "{summary:?}");
    assert!(summary.bytes <= BUDGET, "{} bytes kept, budget {BUDGET}", summary.bytes);
    assert_eq!(summary.budget_bytes, BUDGET);
    seek(&mut viewer, None, 0, None, &[]).await;
    let refused = moment(&mut viewer).await.unwrap_err();
    assert_eq!(refused.code, ErrorCode::NotFound);
    assert!(refused.message.contains("no longer recorded"), "{}", refused.message);
    seek(&mut viewer, None, summary.first_step.unwrap() + 100, None, &[]).await;
    assert!(moment(&mut viewer).await.is_ok(), "what is kept can be seen");
    let (status, over_http) = server.get_json("/api/labs/demo/recording").await;
    if status == 200 {
        let over_http: RecordingSummary = serde_json::from_value(over_http).unwrap();
        assert_eq!(over_http.first_step, summary.first_step);
    }
}

#[tokio::test]
async fn a_run_recorded_before_the_server_was_killed_is_still_there_after_it_restarts() {
    let dir = std::env::temp_dir().join(format!("vlab-recording-restart-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("vlab.db");
    let http = reqwest::Client::new();
    let control = |url: String, steps: u32| {
        let http = http.clone();
        async move {
            let body = serde_json::json!({ "action": "step", "steps": steps });
            let response = http.post(url).bearer_auth("restart-key").json(&body).send().await.unwrap();
            assert!(response.status().is_success());
        }
    };
    let connect = |url: String| async move {
        let (socket, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        Client::new(socket)
    };
    let ws = format!("/ws/labs/demo?protocol={PROTOCOL_VERSION}");

    let before = {
        let server = VlabProcess::start(&db, &["--paused", "--instructor-token", "restart-key"]);
        control(server.url("/api/labs/demo/control"), 600).await;
        let mut viewer = connect(server.ws_url(&ws)).await;
        viewer.join_sequence().await;
        // Kept once the keeper has written the last chunk (the lab never waits for it).
        let mut summary = RecordingSummary::default();
        for _ in 0..400 {
            summary = http.get(server.url("/api/labs/demo/recording")).send().await.unwrap().json().await.unwrap();
            if summary.last_step == Some(600) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        assert_eq!(summary.last_step, Some(600), "the last chunk is kept within 20 s: {summary:?}");
        seek(&mut viewer, None, 300, None, &["rover_red"]).await;
        let before = moment(&mut viewer).await.unwrap();
        assert_eq!(before.run, summary.run);
        before
        // The server is killed here (SIGKILL), not shut down.
    };

    let server = VlabProcess::start(&db, &["--paused", "--instructor-token", "restart-key"]);
    let mut viewer = connect(server.ws_url(&ws)).await;
    viewer.join_sequence().await;
    let summary = viewer
        .until(|r| match r {
            Received::Json(ServerMsg::Recording(s)) => Some(s.clone()),
            _ => None,
        })
        .await;
    assert!(summary.run > before.run, "a restart begins a new run: {summary:?}");
    let old = summary.runs.iter().find(|r| r.run == before.run).expect("the run before the restart is kept");
    assert_eq!((old.first_step, old.last_step), (0, 600));
    seek(&mut viewer, Some(before.run), 300, None, &["rover_red"]).await;
    let after = moment(&mut viewer).await.unwrap();
    assert_eq!((after.run, after.step), (before.run, before.step));
    assert_eq!(after.poses, before.poses);
    assert_eq!(after.robots, before.robots);
    assert!(after.snapshot.is_some(), "the scene of that run comes from the recording");
    let report: Value = http.get(server.url("/api/labs/demo")).send().await.unwrap().json().await.unwrap();
    assert_eq!(report["step"], 0, "the live lab starts again at step 0");
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}
