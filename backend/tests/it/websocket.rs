//! The websocket protocol against a real server: the join sequence, frames, the
//! handshake check, shared state between viewers, errors that keep the connection,
//! and a stalled reader that slows nobody.

use crate::common;

use std::collections::HashSet;

use common::{Received, TOKEN, TestServer};
use vlab_protocol::{
    CLOSE_LAB_NOT_FOUND, CLOSE_PROTOCOL_MISMATCH, ClientMsg, ControlAction, ErrorCode, LabMode, Role, ServerMsg,
};

#[tokio::test]
async fn a_viewer_gets_hello_snapshot_state_keyframe_then_moving_frames() {
    let server = TestServer::start(true).await;
    let mut client = server.connect("demo", None).await;
    let (hello, snapshot, state, keyframe) = client.join_sequence().await;
    let ServerMsg::Hello { protocol, lab, role, .. } = hello else { unreachable!() };
    assert_eq!(protocol, vlab_protocol::PROTOCOL_VERSION);
    assert_eq!(lab, "demo");
    assert_eq!(role, Role::Viewer);
    assert_eq!(snapshot.bodies.len(), 50);
    assert!(snapshot.bodies.iter().enumerate().all(|(i, b)| b.id.0 as usize == i));
    let moving = snapshot.bodies.iter().filter(|b| !b.fixed).count();
    assert_eq!(keyframe.poses.len(), moving, "the keyframe places every moving body");
    assert_eq!(keyframe.epoch, snapshot.epoch);
    assert_eq!(state.mode, LabMode::Running);

    // Frames follow, with rising steps, carrying only bodies that are not fixed.
    let fixed: HashSet<u32> = snapshot.bodies.iter().filter(|b| b.fixed).map(|b| b.id.0).collect();
    let mut last_step = keyframe.step;
    for _ in 0..5 {
        let frame = client.until(|r| if let Received::Frame(f) = r { Some(f.clone()) } else { None }).await;
        assert!(frame.step > last_step, "step {} after {last_step}", frame.step);
        assert!(frame.poses.iter().all(|p| !fixed.contains(&p.id.0)));
        assert!((frame.time - frame.step as f64 * state.dt_secs).abs() < 1e-9);
        last_step = frame.step;
    }
}

#[tokio::test]
async fn pausing_stops_the_frames_and_step_10_advances_exactly_10() {
    let server = TestServer::start(true).await;
    let mut client = server.connect("demo", Some(TOKEN)).await;
    let (hello, ..) = client.join_sequence().await;
    assert!(matches!(hello, ServerMsg::Hello { role: Role::Instructor, .. }));

    client.send(&ClientMsg::Control { command: ControlAction::Pause }).await;
    let paused = client.state_where(|s| s.mode == LabMode::Paused).await;
    let api_step = server.lab_state("demo").await["step"].as_u64().unwrap();
    assert_eq!(api_step, paused.step);

    client.send(&ClientMsg::Control { command: ControlAction::Step { steps: 10 } }).await;
    let target = paused.step + 10;
    // Frames and states travel separately: read until both show the target step, and
    // never anything beyond it.
    let (mut saw_state, mut saw_frame) = (false, false);
    while !(saw_state && saw_frame) {
        match client.next().await {
            Received::Json(ServerMsg::State(state)) if state.step != paused.step => {
                assert_eq!((state.step, state.mode), (target, LabMode::Paused));
                saw_state = true;
            }
            Received::Frame(frame) => {
                assert!(frame.step <= target, "frame at step {} beyond {target}", frame.step);
                saw_frame |= frame.step == target;
            }
            Received::Closed(code) => panic!("closed: {code:?}"),
            _ => {}
        }
    }
    assert_eq!(server.lab_state("demo").await["step"].as_u64().unwrap(), target);
}

#[tokio::test]
async fn two_viewers_see_the_same_state() {
    let server = TestServer::start(true).await;
    let mut first = server.connect("demo", None).await;
    let mut second = server.connect("demo", None).await;
    first.join_sequence().await;
    second.join_sequence().await;

    server.control("demo", ControlAction::Pause).await;
    let a = first.state_where(|s| s.mode == LabMode::Paused).await;
    let b = second.state_where(|s| s.mode == LabMode::Paused).await;
    assert_eq!(a, b);

    let stepped = server.control("demo", ControlAction::Step { steps: 10 }).await;
    let a = first.state_where(|s| s.step == stepped.step).await;
    let b = second.state_where(|s| s.step == stepped.step).await;
    assert_eq!(a, b);
    assert_eq!(a.step, stepped.step);

    // A late joiner starts from the same state, and sees the same poses.
    let mut late = server.connect("demo", None).await;
    let (_, _, state, keyframe) = late.join_sequence().await;
    assert_eq!(state, a);
    assert_eq!(keyframe.step, stepped.step);
}

#[tokio::test]
async fn a_mismatched_or_missing_protocol_version_is_refused_with_a_reason() {
    let server = TestServer::start(false).await;
    for query in ["?protocol=999", "", "?protocol=abc"] {
        let mut client = server.connect_raw(&format!("/ws/labs/demo{query}")).await;
        let Received::Json(ServerMsg::Error(error)) = client.next().await else { panic!("no error for {query:?}") };
        assert_eq!(error.code, ErrorCode::ProtocolMismatch);
        assert!(error.message.contains("reload"), "{}", error.message);
        let Received::Closed(code) = client.next().await else { panic!("not closed for {query:?}") };
        assert_eq!(code, Some(CLOSE_PROTOCOL_MISMATCH));
    }
}

#[tokio::test]
async fn an_unknown_lab_is_refused_with_a_reason() {
    let server = TestServer::start(false).await;
    let mut client = server.connect("nowhere", None).await;
    let Received::Json(ServerMsg::Error(error)) = client.next().await else { panic!("no error") };
    assert_eq!(error.code, ErrorCode::NotFound);
    assert!(error.message.contains("nowhere"));
    let Received::Closed(code) = client.next().await else { panic!("not closed") };
    assert_eq!(code, Some(CLOSE_LAB_NOT_FOUND));
}

#[tokio::test]
async fn malformed_and_forbidden_messages_get_errors_and_the_connection_goes_on() {
    let server = TestServer::start(false).await;
    let mut viewer = server.connect("demo", None).await;
    viewer.join_sequence().await;
    let error_code = |r: &Received| match r {
        Received::Json(ServerMsg::Error(e)) => Some(e.code),
        _ => None,
    };

    viewer.send_text("{this is not json").await;
    assert_eq!(viewer.until(error_code).await, ErrorCode::BadRequest);
    viewer.send_text(r#"{"type":"teleport","to":"mars"}"#).await;
    assert_eq!(viewer.until(error_code).await, ErrorCode::BadRequest);
    viewer.send_text(&"x".repeat(vlab_protocol::MAX_CLIENT_TEXT_BYTES + 1)).await;
    assert_eq!(viewer.until(error_code).await, ErrorCode::BadRequest);
    viewer.send(&ClientMsg::Control { command: ControlAction::Resume }).await;
    assert_eq!(viewer.until(error_code).await, ErrorCode::Unauthorized, "no session: refused as over HTTP");
    assert_eq!(server.lab_state("demo").await["mode"], "paused", "a viewer cannot start time");

    let mut instructor = server.connect("demo", Some(TOKEN)).await;
    instructor.join_sequence().await;
    instructor.send(&ClientMsg::Control { command: ControlAction::Step { steps: 0 } }).await;
    assert_eq!(instructor.until(error_code).await, ErrorCode::InvalidArgument);

    // Still connected and answering.
    viewer.send(&ClientMsg::Ping { nonce: 42 }).await;
    let nonce = viewer.until(|r| match r {
        Received::Json(ServerMsg::Pong { nonce }) => Some(*nonce),
        _ => None,
    });
    assert_eq!(nonce.await, 42);
}

#[tokio::test]
async fn an_unknown_token_watches_as_a_viewer_and_is_told_so() {
    let server = TestServer::start(false).await;
    let mut client = server.connect("demo", Some("stale-link")).await;
    let Received::Json(ServerMsg::Error(error)) = client.next().await else { panic!("no notice") };
    assert_eq!(error.code, ErrorCode::Unauthorized);
    let (hello, ..) = client.join_sequence().await;
    assert!(matches!(hello, ServerMsg::Hello { role: Role::Viewer, .. }));
}

#[tokio::test]
async fn a_stalled_reader_slows_neither_the_lab_nor_other_viewers() {
    let server = TestServer::start_with(common::busy_scene(), true).await;
    // This client connects with a tiny receive buffer and then reads nothing at all for
    // a while, so the server's writes to it back up.
    let mut stalled = server.connect_with_small_buffer("demo").await;
    let mut live = server.connect("demo", None).await;
    live.join_sequence().await;

    let start_step = server.lab_state("demo").await["step"].as_u64().unwrap();
    let stall_until = tokio::time::Instant::now() + std::time::Duration::from_secs(3);
    let mut live_frames = 0;
    let mut last = 0;
    while tokio::time::Instant::now() < stall_until {
        if let Received::Frame(frame) = live.next().await {
            assert!(frame.step > last, "the live viewer's frames go forward");
            last = frame.step;
            live_frames += 1;
        }
    }
    let end_step = server.lab_state("demo").await["step"].as_u64().unwrap();
    assert!(end_step > start_step, "the lab kept stepping");

    // The stalled client drains what was buffered, then catches up with the present
    // in fewer frames than the live one needed: its frames were merged, not queued.
    stalled.join_sequence().await;
    let mut stalled_frames = 0;
    loop {
        if let Received::Frame(frame) = stalled.next().await {
            stalled_frames += 1;
            if frame.step >= end_step {
                break;
            }
        }
    }
    eprintln!("live viewer: {live_frames} frames; stalled viewer: {stalled_frames} frames to catch up");
    assert!(
        stalled_frames < live_frames,
        "the stalled viewer got {stalled_frames} frames, the live one {live_frames}: nothing was merged"
    );
}

#[tokio::test]
async fn reset_sends_a_new_snapshot_in_a_new_epoch() {
    let server = TestServer::start(false).await;
    let mut client = server.connect("demo", None).await;
    let (_, first, ..) = client.join_sequence().await;
    server.control("demo", ControlAction::Step { steps: 100 }).await;
    server.control("demo", ControlAction::Reset).await;
    let snapshot = client
        .until(|r| match r {
            Received::Json(ServerMsg::Snapshot(s)) => Some(s.clone()),
            _ => None,
        })
        .await;
    assert_eq!(snapshot.epoch, first.epoch + 1);
    assert_eq!(snapshot.bodies.len(), first.bodies.len());
    let keyframe = client.until(|r| if let Received::Frame(f) = r { Some(f.clone()) } else { None }).await;
    assert_eq!(keyframe.epoch, snapshot.epoch);
    assert_eq!(keyframe.step, 0);
}
