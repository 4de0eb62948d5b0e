//! Frames with bodies placed by their joint: wheels, sliders and arms sent as one
//! coordinate, and everything a reader without the right links refuses.

use std::collections::BTreeMap;

use super::tests::{angle_between, pose};
use super::*;
use crate::Pose;
use crate::links::{JointLink, JointLinkKind};

/// Child positions within half a millimetre of the pose sent.
const MAX_LINKED_POSITION_ERROR: f32 = 0.0005;
/// Child rotations within 0.05° of the pose sent.
const MAX_LINKED_ROTATION_ERROR: f32 = 0.05 * std::f32::consts::PI / 180.0;

fn turn_about_y(angle: f32) -> [f32; 4] {
    let half = angle / 2.0;
    [0.0, half.sin(), 0.0, half.cos()]
}

/// A wheel of radius 5 cm at one side of body `parent`: a hinge about the joint frame's
/// X, the frame turned so that X is the parent's Z (the axle).
fn wheel(child: u32, parent: u32, side: f32) -> JointLink {
    let s = std::f32::consts::FRAC_1_SQRT_2;
    JointLink {
        child: BodyId(child),
        parent: BodyId(parent),
        kind: JointLinkKind::Hinge,
        parent_frame: Pose { position: [0.05, -0.02, 0.12 * side], rotation: [0.0, -s, 0.0, s] },
        child_frame: Pose { position: [0.0; 3], rotation: [0.0, -s, 0.0, s] },
        axis: [1.0, 0.0, 0.0],
    }
}

/// A slider along the parent's Y (a lift), its child's origin 10 cm off the axis.
fn lift(child: u32, parent: u32) -> JointLink {
    JointLink {
        child: BodyId(child),
        parent: BodyId(parent),
        kind: JointLinkKind::Slider,
        parent_frame: Pose { position: [0.0, 0.1, 0.0], rotation: [0.0, 0.0, 0.70710677, 0.70710677] },
        child_frame: Pose { position: [-0.1, 0.0, 0.0], rotation: [0.0, 0.0, 0.70710677, 0.70710677] },
        axis: [1.0, 0.0, 0.0],
    }
}

/// A robot (body 0) driving a circle and turning, wheels 1 and 2 rolling, a lift 3 going
/// up and down, an arm 4 ← 5 waving on the lift; body 6 on its own. Frame `k`.
fn robot(k: u32, table: &LinkTable) -> Frame {
    let t = k as f32 / 60.0;
    let heading = 0.4 * t;
    let chassis = pose(0, [3.0 * heading.cos(), 0.05, 3.0 * heading.sin()], turn_about_y(-heading));
    let mut poses = vec![chassis];
    let coordinates = [20.0 * t, -20.0 * t + 1.0, 0.2 * (t * 0.7).sin(), 1.5 * (t * 1.3).sin(), 2.0 * t];
    for (link, q) in table.links().iter().zip(coordinates) {
        let parent = *poses.iter().find(|p| p.id == link.parent).expect("parents first");
        poses.push(link.child_pose(&parent, f64::from(q)));
    }
    poses.push(pose(6, [5.0, 0.5 + t.sin(), 1.0], [0.0, 0.0, 0.0, 1.0]));
    poses.sort_unstable_by_key(|p| p.id);
    Frame { epoch: 3, step: u64::from(k) * 4, time: f64::from(k) * 4.0 / 240.0, poses }
}

fn robot_links() -> LinkTable {
    let mut arm = wheel(4, 3, 0.0);
    arm.parent_frame.position = [0.0, 0.3, 0.0];
    arm.child_frame.position = [0.0, -0.25, 0.0];
    let mut forearm = wheel(5, 4, 0.0);
    forearm.parent_frame.position = [0.0, 0.25, 0.0];
    forearm.child_frame.position = [0.0, -0.2, 0.0];
    LinkTable::new(vec![wheel(1, 0, 1.0), wheel(2, 0, -1.0), lift(3, 0), arm, forearm]).unwrap()
}

fn linked_decoder(table: &LinkTable) -> FrameDecoder {
    let mut decoder = FrameDecoder::new();
    decoder.set_links(table.links()).unwrap();
    decoder
}

fn assert_linked_close(sent: &BodyPose, got: &BodyPose) {
    assert_eq!(sent.id, got.id);
    let distance = [0, 1, 2].map(|i| (sent.position[i] - got.position[i]).powi(2)).iter().sum::<f32>().sqrt();
    assert!(distance <= MAX_LINKED_POSITION_ERROR, "body {} off by {distance} m", sent.id.0);
    let error = angle_between(sent.rotation, got.rotation);
    assert!(error <= MAX_LINKED_ROTATION_ERROR, "body {} turned {}° off", sent.id.0, error.to_degrees());
}

/// What a server does: frames completed from its keyframe, written after it.
struct Writer {
    table: LinkTable,
    keyframe: Frame,
}

impl Writer {
    fn publish(&mut self, mut frame: Frame) -> (Frame, Vec<u8>) {
        self.table.complete(&mut frame, &self.keyframe);
        let bytes = frame.encode_with(&self.table, Some(&self.keyframe));
        self.keyframe.absorb(frame.clone());
        (frame, bytes)
    }
}

#[test]
fn wheels_sliders_and_arms_round_trip_within_the_quantization() {
    let table = robot_links();
    let first = robot(0, &table);
    let mut decoder = linked_decoder(&table);
    let mut held: BTreeMap<u32, BodyPose> = BTreeMap::new();
    let keyframe = decoder.decode(&first.encode_with(&table, None)).unwrap();
    assert_eq!(keyframe.poses.len(), first.poses.len(), "the keyframe places every body");
    held.extend(keyframe.poses.iter().map(|p| (p.id.0, *p)));
    let mut writer = Writer { table: table.clone(), keyframe: first };
    for k in 1..600 {
        let (_, bytes) = writer.publish(robot(k, &table));
        for got in decoder.decode(&bytes).unwrap().poses {
            held.insert(got.id.0, got);
        }
        for sent in &writer.keyframe.poses {
            assert_linked_close(sent, &held[&sent.id.0]);
        }
    }
}

#[test]
fn a_spinning_wheel_costs_its_coordinate_not_a_pose() {
    let table = LinkTable::new(vec![wheel(1, 0, 1.0)]).unwrap();
    let frame_at = |k: u32| {
        let chassis = pose(0, [0.0, 0.05, 0.0], [0.0, 0.0, 0.0, 1.0]);
        let wheel = table.links()[0].child_pose(&chassis, f64::from(k) * 0.33);
        Frame { epoch: 1, step: u64::from(k), time: 0.0, poses: vec![chassis, wheel] }
    };
    let (before, after) = (frame_at(10), frame_at(11));
    // Only the wheel turned: its id gap, kind and a 2-byte change of angle.
    let only_wheel = Frame { poses: vec![after.poses[1]], ..after.clone() };
    let header = Frame { poses: vec![], ..after.clone() }.encode_after(&before).len();
    assert_eq!(only_wheel.encode_with(&table, Some(&before)).len(), header + 4);
    assert!(only_wheel.encode_after(&before).len() >= header + 6);
    let mut decoder = linked_decoder(&table);
    decoder.decode(&before.encode_with(&table, None)).unwrap();
    let got = decoder.decode(&only_wheel.encode_with(&table, Some(&before))).unwrap();
    assert_eq!(got.poses.len(), 1);
    assert_linked_close(&after.poses[1], &got.poses[0]);
}

#[test]
fn a_parent_moving_alone_moves_its_children_without_their_coordinates() {
    let table = robot_links();
    let first = robot(0, &table);
    let mut decoder = linked_decoder(&table);
    decoder.decode(&first.encode_with(&table, None)).unwrap();
    // The chassis moves and turns, carrying everything hung from it; no joint turns.
    let mut chassis = first.poses[0];
    chassis.position[0] += 0.2;
    chassis.rotation = turn_about_y(0.5);
    let mut poses = vec![chassis];
    for link in table.links() {
        let parent_before = first.poses.iter().find(|p| p.id == link.parent).unwrap();
        let q = link.coordinate(parent_before, first.poses.iter().find(|p| p.id == link.child).unwrap());
        let parent_now = *poses.iter().find(|p| p.id == link.parent).unwrap();
        poses.push(link.child_pose(&parent_now, q));
    }
    let frame = Frame { step: first.step + 4, poses, ..first.clone() };
    let bytes = frame.encode_with(&table, Some(&first));
    // The coordinates did not change: only the chassis is written.
    let chassis_only = Frame { poses: vec![chassis], ..frame.clone() };
    assert_eq!(bytes.len(), chassis_only.encode_after(&first).len());
    let got = decoder.decode(&bytes).unwrap();
    let ids: Vec<u32> = got.poses.iter().map(|p| p.id.0).collect();
    assert_eq!(ids, [0, 1, 2, 3, 4, 5], "every body hung from the chassis is placed again");
    for (sent, got) in frame.poses.iter().zip(&got.poses) {
        assert_linked_close(sent, got);
    }
}

#[test]
fn a_slow_readers_merged_frames_keep_it_in_step_with_the_fast_one() {
    let table = robot_links();
    let first = robot(0, &table);
    let mut writer = Writer { table: table.clone(), keyframe: first.clone() };
    let (mut fast, mut slow) = (linked_decoder(&table), linked_decoder(&table));
    let mut slow_held: BTreeMap<u32, BodyPose> = BTreeMap::new();
    let mut fast_held: BTreeMap<u32, BodyPose> = BTreeMap::new();
    for (decoder, held) in [(&mut fast, &mut fast_held), (&mut slow, &mut slow_held)] {
        held.extend(decoder.decode(&first.encode_with(&table, None)).unwrap().poses.iter().map(|p| (p.id.0, *p)));
    }
    let mut pending: Option<Frame> = None;
    for k in 1..300 {
        // Bodies rest now and then: the lab leaves them out.
        let mut frame = robot(k, &table);
        frame.poses.retain(|p| (p.id.0 + k) % 4 != 0);
        let (completed, bytes) = writer.publish(frame);
        for got in fast.decode(&bytes).unwrap().poses {
            fast_held.insert(got.id.0, got);
        }
        match &mut pending {
            Some(merged) => merged.absorb(completed),
            None => pending = Some(completed),
        }
        // The slow reader takes a merged frame, written without base, every fifth frame,
        // and shared changes in between.
        if k % 5 == 0 {
            let merged = pending.take().unwrap();
            for got in slow.decode(&merged.encode_with(&table, None)).unwrap().poses {
                slow_held.insert(got.id.0, got);
            }
        } else if k % 5 == 1 && k > 1 {
            pending = None;
            for got in slow.decode(&bytes).unwrap().poses {
                slow_held.insert(got.id.0, got);
            }
        }
        if k % 5 == 0 || (k % 5 == 1 && k > 1) {
            assert_eq!(slow_held, fast_held, "frame {k}");
        }
    }
}

#[test]
fn a_parent_beyond_the_grid_and_a_slider_beyond_it_still_place_their_children() {
    let table = LinkTable::new(vec![lift(1, 0), wheel(2, 1, 1.0)]).unwrap();
    let far = (MAX_GRID_METRES * 1.5) as f32;
    let chassis = pose(0, [far, 0.0, 1.0], turn_about_y(0.3));
    let lifted = table.links()[0].child_pose(&chassis, 3.0 * MAX_GRID_METRES);
    let wheel = table.links()[1].child_pose(&lifted, 1.0);
    let frame = Frame { epoch: 1, step: 1, time: 0.0, poses: vec![chassis, lifted, wheel] };
    let got = linked_decoder(&table).decode(&frame.encode_with(&table, None)).unwrap();
    assert_eq!(got.poses[0].position, chassis.position);
    for (sent, got) in frame.poses.iter().zip(&got.poses).skip(1) {
        // f32 positions far away are coarser than the grid: compare relative to it.
        let distance = [0, 1, 2].map(|i| (sent.position[i] - got.position[i]).abs()).into_iter().fold(0.0, f32::max);
        assert!(distance <= far * f32::EPSILON * 4.0, "body {} off by {distance}", sent.id.0);
        assert!(angle_between(sent.rotation, got.rotation) <= MAX_LINKED_ROTATION_ERROR);
    }
}

#[test]
fn a_coordinate_without_its_link_is_refused_and_leaves_the_decoder_as_it_was() {
    let table = robot_links();
    let (first, second) = (robot(0, &table), robot(1, &table));
    let changes = second.encode_with(&table, Some(&first));
    // A decoder without links.
    let mut plain = FrameDecoder::new();
    plain.decode(&first.encode()).unwrap();
    let before = format!("{plain:?}");
    assert!(matches!(plain.decode(&changes), Err(FrameDecodeError::NoLink { id: 1, .. })));
    assert_eq!(format!("{plain:?}"), before);
    assert!(matches!(Frame::decode(&first.encode_with(&table, None)), Err(FrameDecodeError::NoLink { .. })));
    // A decoder with other links: the wheels only.
    let mut wheels_only = linked_decoder(&LinkTable::new(table.links()[..2].to_vec()).unwrap());
    assert!(matches!(
        wheels_only.decode(&first.encode_with(&table, None)),
        Err(FrameDecodeError::NoLink { id: 3, .. })
    ));
    // A decoder with links, given a pose for a linked body.
    let mut linked = linked_decoder(&table);
    linked.decode(&first.encode_with(&table, None)).unwrap();
    let before = format!("{linked:?}");
    assert!(matches!(linked.decode(&second.encode_after(&first)), Err(FrameDecodeError::LinkedPose { id: 1, .. })));
    assert_eq!(format!("{linked:?}"), before);
    // Links that cannot be used are refused, and leave none.
    let mut broken = linked_decoder(&table);
    let reversed: Vec<JointLink> = table.links().iter().rev().cloned().collect();
    assert!(broken.set_links(&reversed).is_err());
    assert!(matches!(broken.decode(&first.encode_with(&table, None)), Err(FrameDecodeError::NoLink { .. })));
    // The decoder still reads frames after refusing one.
    assert!(linked.decode(&changes).is_ok());
}

#[test]
fn a_coordinate_whose_parent_is_not_held_is_refused() {
    let table = LinkTable::new(vec![wheel(1, 0, 1.0)]).unwrap();
    let chassis = pose(0, [0.0; 3], [0.0, 0.0, 0.0, 1.0]);
    let frame =
        Frame { epoch: 1, step: 1, time: 0.0, poses: vec![chassis, table.links()[0].child_pose(&chassis, 2.0)] };
    let bytes = frame.encode_with(&table, None);
    // The same frame without the chassis: header with a count of 1, then the wheel (id
    // gap 1, kind, a 3-byte angle).
    let header = 1 + 1 + 1 + 8;
    let mut alone = bytes[..header].to_vec();
    alone.extend_from_slice(&[1, 1]);
    alone.extend_from_slice(&bytes[bytes.len() - 4..]);
    assert_eq!(alone[header + 2], 0x12);
    assert!(matches!(linked_decoder(&table).decode(&alone), Err(FrameDecodeError::MissingBase { .. })));
    // The encoder without base leaves out a wheel without its chassis.
    let only_wheel = Frame { poses: vec![frame.poses[1]], ..frame.clone() };
    assert_eq!(linked_decoder(&table).decode(&only_wheel.encode_with(&table, None)).unwrap().poses, vec![]);
}

#[test]
fn a_new_scene_brings_new_links() {
    let table = robot_links();
    let first = robot(0, &table);
    let mut decoder = linked_decoder(&table);
    decoder.decode(&first.encode_with(&table, None)).unwrap();
    // The next scene has no links: its frames are plain poses.
    decoder.set_links(&[]).unwrap();
    let next = Frame { epoch: 4, ..robot(1, &table) };
    let got = decoder.decode(&next.encode()).unwrap();
    assert_eq!(got.poses.len(), next.poses.len());
    // set_links forgot what was held: a change from it is refused.
    decoder.set_links(table.links()).unwrap();
    assert!(matches!(
        decoder.decode(&robot(2, &table).encode_with(&table, Some(&first))),
        Err(FrameDecodeError::MissingBase { .. })
    ));
}

#[test]
fn corrupt_coordinates_are_refused_with_a_reason() {
    let table = LinkTable::new(vec![wheel(1, 0, 1.0), lift(2, 0)]).unwrap();
    let chassis = pose(0, [0.0; 3], [0.0, 0.0, 0.0, 1.0]);
    let frame =
        Frame { epoch: 1, step: 1, time: 0.0, poses: vec![chassis, table.links()[0].child_pose(&chassis, 2.0)] };
    let bytes = frame.encode_with(&table, None);
    let decode = |bytes: &[u8]| linked_decoder(&table).decode(bytes);
    decode(&bytes).unwrap();
    // The wheel is last: gap, kind 0x12 (absolute), a zigzag varint of 3 bytes.
    let kind_at = bytes.len() - 4;
    assert_eq!(bytes[kind_at], 0x12);
    let mut bad = bytes.clone();
    for kind in [0x13, 0x14, 0x32, 0x90] {
        bad[kind_at] = kind;
        assert!(matches!(decode(&bad), Err(FrameDecodeError::BadKind { .. })), "{kind:#x}");
    }
    // A change with nothing held.
    bad[kind_at] = 0x11;
    assert!(matches!(decode(&bad), Err(FrameDecodeError::MissingBase { .. })));
    // An absolute angle past a turn.
    let mut past = bytes[..kind_at + 1].to_vec();
    past.extend_from_slice(&[0x80, 0x80, 0x08]);
    assert!(matches!(decode(&past), Err(FrameDecodeError::OutOfRange { .. })));
    // A slider's float that the grid holds.
    let mut on_grid = bytes[..kind_at - 1].to_vec();
    on_grid.extend_from_slice(&[1, 0x13]);
    on_grid.extend_from_slice(&1.0f32.to_le_bytes());
    assert!(matches!(decode(&on_grid), Err(FrameDecodeError::OutOfRange { .. })), "{on_grid:?}");
}
