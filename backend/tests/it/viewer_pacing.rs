//! Pacing viewers by the frames they draw, against a real server over real websockets:
//! a page that says which frames it drew (`drawn`) has at most a few frames in flight,
//! one that says so at once receives more frames than one that waits, a client that
//! never says so is sent every frame, and a page that waited ends with every body's
//! latest pose as soon as it acknowledges. A page that counts its pictures is told to
//! acknowledge every second frame, and every frame again once it skips some.

use crate::common;

use std::collections::BTreeMap;

use common::{Client, Received, TOKEN, TestServer};
use vlab_protocol::{ClientMsg, ControlAction, DrawnFrames, Frame, LabMode, ServerMsg};
use vlab_server::lab::hub::MAX_FRAMES_IN_FLIGHT;

/// Frames the fast viewer draws before the others are looked at.
const FAST_FRAMES: usize = 12;

/// Every body's pose as a viewer holds it: position and rotation, by body id.
type Held = BTreeMap<u32, ([f32; 3], [f32; 4])>;

fn hold(held: &mut Held, frame: &Frame) {
    for pose in &frame.poses {
        held.insert(pose.id.0, (pose.position, pose.rotation));
    }
}

async fn next_frame(client: &mut Client) -> Frame {
    client.until(|r| if let Received::Frame(f) = r { Some(f.clone()) } else { None }).await
}

/// Reads until the pong of `nonce`: the frames the server sent before it answered.
async fn frames_until_pong(client: &mut Client, nonce: u64, held: &mut Held) -> Vec<Frame> {
    client.send(&ClientMsg::Ping { nonce }).await;
    let mut frames = Vec::new();
    loop {
        match client.next().await {
            Received::Frame(frame) => {
                hold(held, &frame);
                frames.push(frame);
            }
            Received::Json(ServerMsg::Pong { nonce: n }) if n == nonce => return frames,
            Received::Closed(code) => panic!("closed ({code:?})"),
            _ => {}
        }
    }
}

#[tokio::test]
async fn a_viewer_that_draws_slowly_gets_fewer_frames_and_then_every_latest_pose() {
    // Paused at first: every viewer acknowledges its keyframe before a frame is made.
    let server = TestServer::start(false).await;
    let mut instructor = server.connect("demo", Some(TOKEN)).await;
    instructor.join_sequence().await;
    let mut fast = server.connect("demo", None).await;
    let mut slow = server.connect("demo", None).await;
    let mut script = server.connect("demo", None).await;
    let (mut fast_held, mut slow_held) = (Held::new(), Held::new());
    for (viewer, held) in [(&mut fast, &mut fast_held), (&mut slow, &mut slow_held)] {
        let (.., keyframe) = viewer.join_sequence().await;
        hold(held, &keyframe);
        viewer.send(&ClientMsg::Drawn { step: keyframe.step, pictures: None }).await;
        // Answered after the acknowledgement was read: pacing is on from here.
        frames_until_pong(viewer, 1, held).await;
    }
    script.join_sequence().await;

    instructor.send(&ClientMsg::Control { command: ControlAction::Resume }).await;
    // The fast page draws every frame as it comes; the slow one draws nothing meanwhile.
    let mut fast_frames = 0;
    while fast_frames < FAST_FRAMES {
        let frame = next_frame(&mut fast).await;
        hold(&mut fast_held, &frame);
        fast.send(&ClientMsg::Drawn { step: frame.step, pictures: None }).await;
        fast_frames += 1;
    }
    let slow_frames = frames_until_pong(&mut slow, 2, &mut slow_held).await;
    assert!(
        slow_frames.len() <= MAX_FRAMES_IN_FLIGHT,
        "{} frames in flight to a page that drew none of them",
        slow_frames.len()
    );
    assert!(slow_frames.len() < fast_frames);
    // A client that never acknowledges is not held back.
    let mut script_frames = 0;
    while script_frames <= MAX_FRAMES_IN_FLIGHT {
        next_frame(&mut script).await;
        script_frames += 1;
    }

    // The lab stops; the slow page draws what it has: the poses it missed come merged.
    instructor.send(&ClientMsg::Control { command: ControlAction::Pause }).await;
    instructor.state_where(|s| s.mode == LabMode::Paused).await;
    let mut newcomer = server.connect("demo", None).await;
    let (.., latest) = newcomer.join_sequence().await;
    let mut latest_held = Held::new();
    hold(&mut latest_held, &latest);
    // A frame published after the pause was seen would reach the newcomer too.
    for frame in frames_until_pong(&mut newcomer, 3, &mut latest_held).await {
        assert_eq!(frame.epoch, latest.epoch);
    }
    let newest_step = slow_frames.last().map_or(0, |f| f.step);
    assert!(newest_step < latest.step, "the lab went on past what the slow page holds");
    slow.send(&ClientMsg::Drawn { step: newest_step, pictures: None }).await;
    loop {
        let frame = next_frame(&mut slow).await;
        hold(&mut slow_held, &frame);
        assert!(frame.step <= latest.step);
        if frame.step == latest.step {
            break;
        }
        slow.send(&ClientMsg::Drawn { step: frame.step, pictures: None }).await;
    }
    assert_eq!(slow_held.len(), latest_held.len());
    for (id, (position, rotation)) in &latest_held {
        let (p, r) = slow_held[id];
        let close = |a: &[f32], b: &[f32], tolerance: f32| a.iter().zip(b).all(|(a, b)| (a - b).abs() <= tolerance);
        // Both read off the same quarter-millimetre grid and 13-bit rotations.
        assert!(close(&p, position, 2.5e-4), "body {id}: {p:?} against {position:?}");
        assert!(close(&r, rotation, 1e-3), "body {id}: {r:?} against {rotation:?}");
    }
}

#[tokio::test]
async fn acknowledging_steps_that_are_not_in_flight_changes_nothing() {
    let server = TestServer::start(false).await;
    let mut instructor = server.connect("demo", Some(TOKEN)).await;
    instructor.join_sequence().await;
    let mut viewer = server.connect("demo", None).await;
    let (.., keyframe) = viewer.join_sequence().await;
    let mut held = Held::new();
    viewer.send(&ClientMsg::Drawn { step: keyframe.step, pictures: None }).await;
    frames_until_pong(&mut viewer, 1, &mut held).await;
    instructor.send(&ClientMsg::Control { command: ControlAction::Resume }).await;
    let first = next_frame(&mut viewer).await;
    // Steps never sent, or long drawn: the window stays as it was.
    for step in [u64::MAX, first.step + 1_000_000, keyframe.step] {
        viewer.send(&ClientMsg::Drawn { step, pictures: None }).await;
    }
    let more = frames_until_pong(&mut viewer, 2, &mut held).await;
    assert!(more.len() < MAX_FRAMES_IN_FLIGHT, "{} frames besides the first", more.len());
    // The right step opens it again.
    let newest = more.last().unwrap_or(&first).step;
    viewer.send(&ClientMsg::Drawn { step: newest, pictures: None }).await;
    let after = next_frame(&mut viewer).await;
    assert!(after.step > newest);
}

/// Reads until the server says how often to acknowledge.
async fn told_drawn_every(client: &mut Client) -> u32 {
    client
        .until(|r| if let Received::Json(ServerMsg::Pacing { drawn_every }) = r { Some(*drawn_every) } else { None })
        .await
}

#[tokio::test]
async fn a_page_that_counts_its_pictures_acknowledges_every_second_frame_until_it_skips() {
    let server = TestServer::start(false).await;
    let mut instructor = server.connect("demo", Some(TOKEN)).await;
    instructor.join_sequence().await;
    let mut page = server.connect("demo", None).await;
    let (.., keyframe) = page.join_sequence().await;
    let mut drawn = DrawnFrames::default();
    drawn.received(keyframe.step);
    let first = drawn.drawn().expect("until told, every frame is acknowledged");
    assert_eq!(first, ClientMsg::Drawn { step: keyframe.step, pictures: Some(1) });
    page.send(&first).await;
    let drawn_every = told_drawn_every(&mut page).await;
    assert_eq!(drawn_every, (MAX_FRAMES_IN_FLIGHT - 2) as u32, "a full window keeps two frames for the round trip");
    drawn.pacing(drawn_every);

    // The page draws every frame as it comes: one `drawn` for two frames, and the
    // frames keep coming (the server never waits for one not yet due).
    instructor.send(&ClientMsg::Control { command: ControlAction::Resume }).await;
    let (mut frames, mut acknowledgements) = (0, 0);
    while frames < 24 {
        match page.next().await {
            Received::Frame(frame) => {
                drawn.received(frame.step);
                frames += 1;
                if let Some(message) = drawn.drawn() {
                    page.send(&message).await;
                    acknowledgements += 1;
                }
            }
            Received::Json(ServerMsg::Pacing { drawn_every }) => panic!("told {drawn_every} while skipping nothing"),
            Received::Closed(code) => panic!("closed ({code:?})"),
            _ => {}
        }
    }
    assert_eq!(acknowledgements, 12);

    // It stops drawing: the window's worth comes, then nothing; one picture shows them
    // all, so it skipped frames and is asked to acknowledge every frame again.
    let mut held = 0;
    while held < MAX_FRAMES_IN_FLIGHT - 1 {
        drawn.received(next_frame(&mut page).await.step);
        held += 1;
    }
    let Some(ClientMsg::Drawn { step, pictures }) = drawn.drawn() else { panic!("frames are held") };
    assert_eq!(pictures, Some(1));
    page.send(&ClientMsg::Drawn { step, pictures }).await;
    assert_eq!(told_drawn_every(&mut page).await, 1);
}
