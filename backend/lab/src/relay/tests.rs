use std::time::Duration;

use super::*;
use vlab_protocol::{BodyId, BodyPose, ServerMsg};

fn frame(epoch: u32, step: u64, ids: &[u32]) -> Frame {
    Frame {
        epoch,
        step,
        time: step as f64 / 240.0,
        poses: ids
            .iter()
            .map(|&id| BodyPose {
                id: BodyId(id),
                position: [step as f32, id as f32, 0.5],
                rotation: [0.0, 0.0, 0.0, 1.0],
            })
            .collect(),
    }
}

/// The tap's next message, decoded from its bytes as a mirror on another server would.
async fn relayed(tap: &mut RelayTap) -> (u64, Relayed) {
    let (seq, message) = tokio::time::timeout(Duration::from_secs(5), tap.next()).await.expect("a message");
    Relayed::decode(&message.encode(seq)).expect("readable")
}

/// Every latest pose a viewer of `hub` starts with.
fn joined_keyframe(hub: &Hub) -> Frame {
    let pending = hub.join().mailbox.take();
    Frame::decode(&pending.frame.expect("a keyframe").into_bytes()).expect("a frame")
}

#[test]
fn every_kind_reads_back_as_written() {
    let messages = [
        Relayed::Scene { snapshot_json: r#"{"type":"snapshot","links":[]}"#.into(), keyframe: frame(2, 7, &[1, 4]) },
        Relayed::Frame(frame(2, 8, &[4])),
        Relayed::Event(r#"{"type":"notice","text":"é"}"#.into()),
    ];
    for (n, message) in messages.into_iter().enumerate() {
        let seq = 1u64 << (8 * n);
        assert_eq!(Relayed::decode(&message.encode(seq)), Ok((seq, message)));
    }
}

#[test]
fn damaged_messages_are_refused_with_why() {
    let scene = Relayed::Scene { snapshot_json: "{}".into(), keyframe: frame(0, 1, &[1]) }.encode(1);
    assert_eq!(Relayed::decode(&scene[..5]), Err(RelayDecodeError::Short(5)));
    assert_eq!(Relayed::decode(&scene[..11]), Err(RelayDecodeError::Short(11)));
    let mut unknown = Relayed::Event("{}".into()).encode(1);
    unknown[8] = 9;
    assert_eq!(Relayed::decode(&unknown), Err(RelayDecodeError::UnknownKind(9)));
    let mut not_text = Relayed::Event("{}".into()).encode(1);
    not_text.push(0xff);
    assert_eq!(Relayed::decode(&not_text), Err(RelayDecodeError::NotUtf8));
}

#[tokio::test]
async fn a_mirror_fed_by_the_tap_shows_what_the_lab_shows() {
    let hub = Hub::new("snap".into(), LinkTable::default(), frame(0, 0, &[1, 2, 3]));
    hub.publish_frame(frame(0, 4, &[2]));
    let mut tap = RelayTap::new(hub.join());
    let mut mirror = Mirror::new();
    assert!(mirror.hub().is_none(), "no hub before the first scene");
    let (seq, scene) = relayed(&mut tap).await;
    assert!(matches!(scene, Relayed::Scene { .. }));
    assert_eq!(mirror.apply(seq, scene), Applied::Done);
    // A viewer of the mirror, joined before the lab moves, and one after.
    let early = mirror.hub().unwrap().join();
    early.mailbox.take();
    for step in 5..=7 {
        hub.publish_frame(frame(0, step, &[step as u32 % 3 + 1]));
        let (seq, message) = relayed(&mut tap).await;
        assert_eq!(mirror.apply(seq, message), Applied::Done);
    }
    let mirrored = mirror.hub().unwrap();
    assert_eq!(joined_keyframe(mirrored), joined_keyframe(&hub), "a late joiner's keyframe");
    assert_eq!(&*mirrored.snapshot_json(), "snap");
    let merged = Frame::decode(&early.mailbox.take().frame.unwrap().into_bytes()).unwrap();
    assert_eq!(merged.step, 7);
    assert_eq!(merged.poses.iter().map(|p| p.id.0).collect::<Vec<_>>(), [1, 2, 3]);
}

#[tokio::test]
async fn a_tap_that_fell_behind_sends_one_merged_frame() {
    let hub = Hub::new("snap".into(), LinkTable::default(), frame(0, 0, &[]));
    let mut tap = RelayTap::new(hub.join());
    relayed(&mut tap).await;
    for step in 1..=50 {
        hub.publish_frame(frame(0, step, &[(step % 5) as u32]));
    }
    let (seq, message) = relayed(&mut tap).await;
    assert_eq!(seq, 2);
    let Relayed::Frame(merged) = message else { panic!("a frame, got {message:?}") };
    assert_eq!(merged.step, 50);
    assert_eq!(merged.poses.len(), 5);
}

#[tokio::test]
async fn a_lost_message_holds_frames_until_the_scene_comes_again() {
    let hub = Hub::new("snap".into(), LinkTable::default(), frame(0, 0, &[1, 2]));
    let mut tap = RelayTap::new(hub.join());
    let mut mirror = Mirror::new();
    let (seq, scene) = relayed(&mut tap).await;
    mirror.apply(seq, scene);
    hub.publish_frame(frame(0, 1, &[1]));
    let _lost = relayed(&mut tap).await;
    hub.publish_frame(frame(0, 2, &[2]));
    let (seq, message) = relayed(&mut tap).await;
    assert_eq!(mirror.apply(seq, message), Applied::NeedsScene);
    hub.publish_frame(frame(0, 3, &[2]));
    let (seq, message) = relayed(&mut tap).await;
    assert_eq!(mirror.apply(seq, message), Applied::NeedsScene, "still waiting for the scene");
    hub.resync(tap.mailbox());
    let (seq, message) = relayed(&mut tap).await;
    assert!(matches!(message, Relayed::Scene { .. }));
    assert_eq!(mirror.apply(seq, message), Applied::Done);
    assert_eq!(joined_keyframe(mirror.hub().unwrap()), joined_keyframe(&hub), "whole again, body 1 included");
    hub.publish_frame(frame(0, 4, &[1]));
    let (seq, message) = relayed(&mut tap).await;
    assert_eq!(mirror.apply(seq, message), Applied::Done);
}

#[tokio::test]
async fn events_reach_the_mirrors_viewers_and_the_latest_are_kept() {
    let hub = Hub::new("snap".into(), LinkTable::default(), frame(0, 0, &[]));
    let mut tap = RelayTap::new(hub.join());
    let mut mirror = Mirror::new();
    let (seq, scene) = relayed(&mut tap).await;
    mirror.apply(seq, scene);
    let mut viewer = mirror.hub().unwrap().join();
    let notice = ServerMsg::Notice { from: "Mr Lee".into(), message: "hello from the lab".into() };
    hub.broadcast(&notice);
    hub.broadcast(&ServerMsg::Presence { participants: vec![] });
    for _ in 0..2 {
        let (seq, message) = relayed(&mut tap).await;
        assert!(matches!(message, Relayed::Event(_)));
        assert_eq!(mirror.apply(seq, message), Applied::Done);
    }
    let first = viewer.events.recv().await.unwrap();
    assert_eq!(&*first, serde_json::to_string(&notice).unwrap());
    assert_eq!(mirror.latest().presence.as_deref(), Some(r#"{"type":"presence","participants":[]}"#));
    assert!(mirror.latest().state.is_none(), "a notice is not kept");
}
