//! Binary frames: the poses of the bodies that moved, sent tens of times a second.
//!
//! The server writes format 2 (layout in `frame/format2.rs`): positions on a
//! quarter-millimetre grid, rotations "smallest three" at 13 bits a component, and, for
//! viewers that got every frame before, each pose as the change from the pose of the
//! frame before (a robot driving at walking pace costs 2–3 bytes of position a frame).
//! Such a frame is read by a [`FrameDecoder`] that holds what it decoded before; a frame
//! written without base ([`Frame::encode`]: the keyframe, a slow viewer's merged frame)
//! is read by anyone ([`Frame::decode`]). A body hung from another by a hinge or a
//! slider (a wheel) is sent as its joint coordinate when writer and reader share the
//! scene's [`LinkTable`] ([`Frame::encode_with`], [`FrameDecoder::set_links`]); the
//! reader rebuilds its pose. Format 1 (`frame/format1.rs`: every pose absolute, 20
//! bytes) is still read, and written for comparison ([`Frame::encode_format1`]).

mod codec;
mod format1;
mod format2;
#[cfg(test)]
mod links_tests;

use serde::{Deserialize, Serialize};

pub use format2::{MAX_GRID_METRES, POSITION_RESOLUTION_M};

use crate::BodyId;
use crate::links::{JointLink, LinkTable, LinkTableError};

/// The pose of one body at a frame's step.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BodyPose {
    /// Which body (index in the scene snapshot).
    pub id: BodyId,
    /// World position, metres.
    pub position: [f32; 3],
    /// World rotation, unit quaternion `[x, y, z, w]`.
    pub rotation: [f32; 4],
}

/// The bodies that moved since the previous frame, at one simulation step.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    /// The scene epoch the ids refer to (see [`crate::SceneSnapshot::epoch`]).
    pub epoch: u32,
    /// Physics step this frame shows.
    pub step: u64,
    /// Simulation time of that step, seconds.
    pub time: f64,
    /// Poses, sorted by ascending id, each id at most once.
    pub poses: Vec<BodyPose>,
}

/// Why bytes could not be read as a [`Frame`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameDecodeError {
    /// The message ended before the frame did.
    #[error("frame truncated at byte {at} of {len}")]
    Truncated {
        /// Offset where more bytes were needed.
        at: usize,
        /// Total length received.
        len: usize,
    },
    /// Not a frame at all.
    #[error("not a VLab frame (bad magic)")]
    BadMagic,
    /// A frame format this build does not read.
    #[error("frame format {0} is not supported (this build reads formats 1 and 2)")]
    UnsupportedFormat(u8),
    /// A rotation header byte out of range (format 1).
    #[error("bad rotation index {index} at byte {at}")]
    BadRotationIndex {
        /// The value read.
        index: u8,
        /// Its offset.
        at: usize,
    },
    /// A pose kind byte this build does not know (format 2).
    #[error("bad pose kind {kind:#04x} at byte {at}")]
    BadKind {
        /// The value read.
        kind: u8,
        /// Its offset.
        at: usize,
    },
    /// A change from a pose or step the decoder does not hold: it missed a frame, or
    /// the frame belongs to another epoch (format 2).
    #[error("a change from a pose or step not held, at byte {at}")]
    MissingBase {
        /// Offset of the field that needed it.
        at: usize,
    },
    /// A value beyond its range: a position off the grid, a rotation component past
    /// 13 bits, a step past `u64` (format 2).
    #[error("value out of range at byte {at}")]
    OutOfRange {
        /// Its offset.
        at: usize,
    },
    /// A varint longer than its type, or an id beyond `u32`.
    #[error("bad varint or id overflow at byte {at}")]
    BadVarint {
        /// Its offset.
        at: usize,
    },
    /// A joint coordinate for a body the reader holds no joint link for (format 2).
    #[error("a joint coordinate for body {id}, which has no joint link here, at byte {at}")]
    NoLink {
        /// The body.
        id: u32,
        /// Offset of its kind byte.
        at: usize,
    },
    /// A pose for a body the reader places by its joint link (format 2).
    #[error("a pose for body {id}, which its joint link places, at byte {at}")]
    LinkedPose {
        /// The body.
        id: u32,
        /// Offset of its kind byte.
        at: usize,
    },
    /// Bytes left after the last pose.
    #[error("{0} unexpected bytes after the frame")]
    TrailingBytes(usize),
}

/// Reads a stream of frames of one connection, holding the poses and step it decoded
/// so that format-2 changes apply to them.
///
/// A frame that fails to decode leaves the decoder as it was. Reset it when the
/// connection is replaced (the server then starts again from a frame without base),
/// and give it each scene snapshot's links ([`FrameDecoder::set_links`]) before the
/// frames that follow the snapshot.
#[derive(Clone, Debug, Default)]
pub struct FrameDecoder {
    bases: format2::Bases,
    links: LinkTable,
}

impl FrameDecoder {
    /// A decoder holding nothing: it reads frames written without base.
    pub fn new() -> FrameDecoder {
        FrameDecoder::default()
    }

    /// Forgets what it holds, links included.
    pub fn reset(&mut self) {
        *self = FrameDecoder::default();
    }

    /// Takes a new scene's links ([`crate::SceneSnapshot::links`]) and forgets the poses
    /// it holds (the server follows a snapshot with a frame without base). Links that
    /// cannot be used are refused, and the decoder then holds none: a frame with
    /// coordinates is refused ([`FrameDecodeError::NoLink`]) rather than misread.
    pub fn set_links(&mut self, links: &[JointLink]) -> Result<(), LinkTableError> {
        self.bases = format2::Bases::default();
        self.links = LinkTable::default();
        self.links = LinkTable::new(links.to_vec())?;
        Ok(())
    }

    /// Decodes the next frame of the stream (format 1 or 2).
    pub fn decode(&mut self, bytes: &[u8]) -> Result<Frame, FrameDecodeError> {
        match bytes.first() {
            Some(&first) if first & 0x7f == format2::FORMAT => format2::decode(bytes, &mut self.bases, &self.links),
            Some(&first) if first == format1::MAGIC[0] => format1::decode(bytes),
            Some(_) => Err(FrameDecodeError::BadMagic),
            None => Err(FrameDecodeError::Truncated { at: 0, len: 0 }),
        }
    }
}

impl Frame {
    /// Encodes the frame in format 2, every pose absolute: readable by anyone.
    /// Poses must be sorted by ascending id (debug-asserted).
    pub fn encode(&self) -> Vec<u8> {
        debug_assert!(self.poses.windows(2).all(|w| w[0].id < w[1].id), "poses must be sorted by id");
        format2::encode(self, None, &LinkTable::default())
    }

    /// Encodes the frame in format 2 for readers that hold `base` (the latest pose of
    /// every body and the step, as of the frame before; same epoch): each pose as the
    /// change from `base` where shorter, poses that did not change on the wire left
    /// out. A `base` of another epoch or a later step is ignored.
    pub fn encode_after(&self, base: &Frame) -> Vec<u8> {
        debug_assert!(self.poses.windows(2).all(|w| w[0].id < w[1].id), "poses must be sorted by id");
        debug_assert!(base.poses.windows(2).all(|w| w[0].id < w[1].id), "base poses must be sorted by id");
        format2::encode(self, Some(base), &LinkTable::default())
    }

    /// Encodes the frame in format 2 with the bodies of `links` as their joint
    /// coordinate, for readers holding those links: without `base` as [`Frame::encode`]
    /// (the frame must then name a linked body's parent with it, as one completed with
    /// [`LinkTable::complete`] does; a linked body without is left out), with it as
    /// [`Frame::encode_after`] (the frame is completed from `base` first).
    pub fn encode_with(&self, links: &LinkTable, base: Option<&Frame>) -> Vec<u8> {
        debug_assert!(self.poses.windows(2).all(|w| w[0].id < w[1].id), "poses must be sorted by id");
        if let Some(base) = base {
            debug_assert!(base.poses.windows(2).all(|w| w[0].id < w[1].id), "base poses must be sorted by id");
        }
        format2::encode(self, base, links)
    }

    /// Encodes the frame in format 1 (every pose absolute, `f32` positions).
    pub fn encode_format1(&self) -> Vec<u8> {
        debug_assert!(self.poses.windows(2).all(|w| w[0].id < w[1].id), "poses must be sorted by id");
        format1::encode(self)
    }

    /// Decodes a frame that needs no base: any format-1 frame, a format-2 frame from
    /// [`Frame::encode`]. A stream of frames is read with a [`FrameDecoder`].
    pub fn decode(bytes: &[u8]) -> Result<Frame, FrameDecodeError> {
        FrameDecoder::new().decode(bytes)
    }

    /// Folds a newer frame into this one, so a reader that skipped `self` still ends
    /// up with every body's latest pose: the newer step, time and poses win; bodies
    /// only in `self` keep their pose. A newer epoch replaces everything.
    pub fn absorb(&mut self, newer: Frame) {
        if newer.epoch != self.epoch {
            *self = newer;
            return;
        }
        let older = std::mem::take(&mut self.poses);
        let mut merged = Vec::with_capacity(older.len().max(newer.poses.len()));
        let (mut a, mut b) = (older.into_iter().peekable(), newer.poses.into_iter().peekable());
        loop {
            match (a.peek(), b.peek()) {
                (Some(x), Some(y)) if x.id < y.id => merged.extend(a.next()),
                (Some(x), Some(y)) if x.id == y.id => {
                    a.next();
                    merged.extend(b.next());
                }
                (_, Some(_)) => merged.extend(b.next()),
                (Some(_), None) => merged.extend(a.next()),
                (None, None) => break,
            }
        }
        self.step = newer.step;
        self.time = newer.time;
        self.poses = merged;
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::pose::normalized;

    pub(super) fn pose(id: u32, position: [f32; 3], rotation: [f32; 4]) -> BodyPose {
        BodyPose { id: BodyId(id), position, rotation }
    }

    /// Angle between two rotations, radians. Computed from the chord between the
    /// quaternions (q and -q are the same rotation), which stays accurate for tiny
    /// angles where `acos` of the dot product does not.
    pub(super) fn angle_between(a: [f32; 4], b: [f32; 4]) -> f32 {
        let chord =
            |sign: f64| a.iter().zip(b).map(|(x, y)| (f64::from(*x) - sign * f64::from(y)).powi(2)).sum::<f64>().sqrt();
        (4.0 * (chord(1.0).min(chord(-1.0)) / 2.0).asin()) as f32
    }

    pub(super) fn sample_frame() -> Frame {
        Frame {
            epoch: 2,
            step: 123_456,
            time: 123_456.0 / 240.0,
            poses: vec![
                pose(0, [1.0, 2.0, 3.0], [0.0, 0.0, 0.0, 1.0]),
                pose(1, [-4.5, 0.25, 1e3], normalized([0.1, -0.7, 0.2, 0.6])),
                pose(7, [0.0, 0.0, 0.0], normalized([-0.9, 0.1, 0.1, -0.1])),
                pose(300, [5.0, 5.0, 5.0], normalized([0.5, 0.5, -0.5, 0.5])),
                pose(70_000, [9.0, 8.0, 7.0], normalized([0.0, 1.0, 0.0, 0.0])),
            ],
        }
    }

    /// The largest rotation error the format allows: 0.05°.
    const MAX_ROTATION_ERROR: f32 = 0.05 * std::f32::consts::PI / 180.0;
    /// Half the grid, with room for the `f32` rounding of the decoded metres.
    const MAX_POSITION_ERROR: f32 = (POSITION_RESOLUTION_M / 2.0) as f32 * 1.01;

    fn assert_close(sent: &BodyPose, got: &BodyPose) {
        assert_eq!(sent.id, got.id);
        for (a, b) in sent.position.iter().zip(got.position) {
            let allowed = MAX_POSITION_ERROR.max(a.abs() * f32::EPSILON);
            assert!((a - b).abs() <= allowed, "position {:?} came back as {:?}", sent.position, got.position);
        }
        let error = angle_between(sent.rotation, got.rotation);
        assert!(error <= MAX_ROTATION_ERROR, "rotation error {error} rad for {sent:?} vs {got:?}");
    }

    /// A deterministic walk: body `i` at frame `k`, moving and turning a little.
    fn walking(k: u32, ids: &[u32]) -> Frame {
        let t = k as f32 / 60.0;
        let poses = ids
            .iter()
            .map(|&i| {
                let f = i as f32;
                let (s, c) = ((t + f) * 0.9).sin_cos();
                let half = 0.5 * (t * (1.0 + f * 0.1) + f);
                pose(i, [f + 3.0 * c, 0.05 + 0.01 * s, -2.0 + 3.0 * s], [0.0, half.sin(), 0.0, half.cos()])
            })
            .collect();
        Frame { epoch: 4, step: u64::from(k) * 4, time: f64::from(k) * 4.0 / 240.0, poses }
    }

    #[test]
    fn frames_round_trip_within_the_quantization() {
        let frame = sample_frame();
        let decoded = Frame::decode(&frame.encode()).unwrap();
        assert_eq!((decoded.epoch, decoded.step, decoded.time), (frame.epoch, frame.step, frame.time));
        assert_eq!(decoded.poses.len(), frame.poses.len());
        for (a, b) in frame.poses.iter().zip(&decoded.poses) {
            assert_close(a, b);
        }
    }

    #[test]
    fn positions_stay_within_half_the_grid_everywhere_on_it() {
        let mut worst = 0f64;
        for i in 0..5000 {
            let t = i as f32;
            let position = [(t * 0.37).sin() * 20.0, (t * 0.11).cos() * 3.0, (t * 0.73).sin() * 150.0];
            let frame = Frame { poses: vec![pose(0, position, [0.0, 0.0, 0.0, 1.0])], ..Frame::default() };
            let got = Frame::decode(&frame.encode()).unwrap().poses[0];
            assert_close(&frame.poses[0], &got);
            for (a, b) in position.iter().zip(got.position) {
                worst = worst.max(f64::from((a - b).abs()));
            }
        }
        assert!(worst > 0.0, "a grid that never rounds is not being tested");
    }

    #[test]
    fn rotations_stay_within_five_hundredths_of_a_degree() {
        // A deterministic spread of rotations, including negative-w ones.
        let mut worst = 0f32;
        for i in 0..20_000 {
            let t = i as f32;
            let q = normalized([(t * 0.37).sin(), (t * 0.91).cos(), (t * 1.73).sin(), (t * 0.13).cos() - 0.5]);
            let frame = Frame { poses: vec![pose(3, [0.0; 3], q)], ..Frame::default() };
            let got = Frame::decode(&frame.encode()).unwrap().poses[0];
            worst = worst.max(angle_between(q, got.rotation));
        }
        assert!(worst <= MAX_ROTATION_ERROR, "worst rotation error {}°", worst.to_degrees());
    }

    #[test]
    fn positions_off_the_grid_fall_back_to_floats() {
        let far = (MAX_GRID_METRES * 2.0) as f32;
        let frame = Frame {
            poses: vec![
                pose(0, [far, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]),
                pose(1, [0.0, -far, 1.0], [0.0, 0.0, 0.0, 1.0]),
                pose(2, [f32::INFINITY, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]),
            ],
            ..Frame::default()
        };
        let decoded = Frame::decode(&frame.encode()).unwrap();
        for (a, b) in frame.poses.iter().zip(&decoded.poses) {
            assert_eq!(a.position, b.position, "a body off the grid comes back exactly");
        }
        // And a body coming back onto the grid after a fallback.
        let mut decoder = FrameDecoder::new();
        decoder.decode(&frame.encode()).unwrap();
        let back = Frame { step: 1, poses: vec![pose(0, [1.0, 2.0, 3.0], [0.0, 0.0, 0.0, 1.0])], ..Frame::default() };
        let got = decoder.decode(&back.encode_after(&frame)).unwrap();
        assert_close(&back.poses[0], &got.poses[0]);
    }

    #[test]
    fn a_stream_of_changes_decodes_to_what_absolute_frames_would() {
        let ids: Vec<u32> = (0..30).collect();
        let mut decoder = FrameDecoder::new();
        let mut base = walking(0, &ids);
        decoder.decode(&base.encode()).unwrap();
        for k in 1..600 {
            // Every third body rests every other frame, as resting bodies are not sent.
            let moving: Vec<u32> = ids.iter().copied().filter(|i| k % 2 == 0 || i % 3 != 0).collect();
            let frame = walking(k, &moving);
            let bytes = frame.encode_after(&base);
            let got = decoder.decode(&bytes).unwrap();
            assert_eq!((got.epoch, got.step, got.time), (frame.epoch, frame.step, frame.time));
            let absolute = Frame::decode(&frame.encode()).unwrap();
            for pose in &got.poses {
                let same = absolute.poses.iter().find(|p| p.id == pose.id).unwrap();
                assert_eq!(pose, same, "a change decodes bit for bit as the absolute pose");
            }
            // Poses left out are exactly those unchanged on the wire.
            for pose in &absolute.poses {
                if !got.poses.iter().any(|p| p.id == pose.id) {
                    let held = base.poses.iter().find(|p| p.id == pose.id).unwrap();
                    assert_eq!(
                        Frame::decode(&Frame { poses: vec![*held], ..frame.clone() }.encode()).unwrap().poses[0],
                        *pose
                    );
                }
            }
            base.absorb(frame);
        }
    }

    #[test]
    fn changes_are_smaller_than_absolute_poses_and_than_format_1() {
        let ids: Vec<u32> = (0..20).collect();
        let (before, after) = (walking(100, &ids), walking(101, &ids));
        let changes = after.encode_after(&before).len();
        let absolute = after.encode().len();
        let format1 = after.encode_format1().len();
        assert!(changes < absolute, "changes {changes} B, absolute {absolute} B");
        // Bodies running at up to 3 m/s and turning: half the bytes of format 1 or less.
        assert!(changes * 3 < format1 * 2, "changes {changes} B, format 1 {format1} B");
        // The header of a frame after another: format, epoch, step change, time, count.
        let empty = Frame { poses: vec![], ..after.clone() };
        assert_eq!(empty.encode_after(&before).len(), 1 + 1 + 1 + 8 + 1);
    }

    #[test]
    fn a_base_of_another_epoch_or_a_later_step_is_not_used() {
        let ids = [1, 2, 3];
        let frame = walking(10, &ids);
        let other_epoch = Frame { epoch: 9, ..walking(9, &ids) };
        assert_eq!(frame.encode_after(&other_epoch), frame.encode());
        let later = walking(11, &ids);
        assert_eq!(frame.encode_after(&later), frame.encode());
    }

    #[test]
    fn a_change_without_its_base_is_refused_and_leaves_the_decoder_as_it_was() {
        let ids = [1, 2, 3];
        let (first, second) = (walking(1, &ids), walking(2, &ids));
        let changes = second.encode_after(&first);
        assert!(matches!(Frame::decode(&changes), Err(FrameDecodeError::MissingBase { .. })));
        // Held poses of another epoch are no base either.
        let mut decoder = FrameDecoder::new();
        decoder.decode(&Frame { epoch: 1, ..first.clone() }.encode()).unwrap();
        assert!(matches!(decoder.decode(&changes), Err(FrameDecodeError::MissingBase { .. })));
        // A body the decoder never held.
        let mut decoder = FrameDecoder::new();
        decoder.decode(&walking(1, &[1, 2]).encode()).unwrap();
        let before = decoder.clone();
        assert!(matches!(decoder.decode(&changes), Err(FrameDecodeError::MissingBase { .. })));
        assert_eq!(format!("{decoder:?}"), format!("{before:?}"));
        // After a reset only frames without base are read.
        decoder.reset();
        assert!(decoder.decode(&changes).is_err());
        assert!(decoder.decode(&second.encode()).is_ok());
    }

    #[test]
    fn an_empty_frame_round_trips() {
        let frame = Frame { epoch: 1, step: 5, time: 0.5, poses: vec![] };
        assert_eq!(Frame::decode(&frame.encode()).unwrap(), frame);
    }

    #[test]
    fn format_1_frames_are_still_read() {
        let frame = sample_frame();
        assert_eq!(Frame::decode(&frame.encode_format1()).unwrap().poses.len(), frame.poses.len());
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let ids: Vec<u32> = (0..10).collect();
        let mut decoder = FrameDecoder::new();
        decoder.decode(&walking(1, &ids).encode()).unwrap();
        let changes = walking(2, &ids).encode_after(&walking(1, &ids));
        let absolute = sample_frame().encode();
        for len in 0..absolute.len() {
            assert!(Frame::decode(&absolute[..len]).is_err(), "prefix of {len} bytes decoded");
        }
        for len in 0..changes.len() {
            assert!(decoder.clone().decode(&changes[..len]).is_err(), "prefix of {len} bytes decoded");
        }
        assert!(decoder.decode(&changes).is_ok());
    }

    #[test]
    fn corrupt_frames_are_rejected_with_a_reason() {
        let frame = Frame { epoch: 1, step: 2, time: 0.5, poses: vec![pose(0, [1.0; 3], [0.0, 0.0, 0.0, 1.0])] };
        let bytes = frame.encode();
        // format, epoch, step, time (8), count, id gap: then the kind byte.
        let kind_at = 1 + 1 + 1 + 8 + 1 + 1;
        assert_eq!(bytes[kind_at], 2 | (2 << 2));

        assert_eq!(Frame::decode(b"XYZ"), Err(FrameDecodeError::BadMagic));
        assert_eq!(Frame::decode(&[]), Err(FrameDecodeError::Truncated { at: 0, len: 0 }));

        let mut trailing = bytes.clone();
        trailing.push(0);
        assert_eq!(Frame::decode(&trailing), Err(FrameDecodeError::TrailingBytes(1)));

        let mut bad_kind = bytes.clone();
        bad_kind[kind_at] = 2 | (3 << 2);
        assert_eq!(Frame::decode(&bad_kind), Err(FrameDecodeError::BadKind { kind: 2 | (3 << 2), at: kind_at }));
        bad_kind[kind_at] = 0x42;
        assert!(matches!(Frame::decode(&bad_kind), Err(FrameDecodeError::BadKind { .. })));

        // The packed rotation's top bits must be zero.
        let mut bad_rotation = bytes.clone();
        *bad_rotation.last_mut().unwrap() |= 0x80;
        assert!(matches!(Frame::decode(&bad_rotation), Err(FrameDecodeError::OutOfRange { .. })));

        // A grid position beyond the grid.
        let mut off_grid = bytes[..kind_at].to_vec();
        off_grid.push(2 | (2 << 2));
        for _ in 0..3 {
            off_grid.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x0f]);
        }
        off_grid.extend_from_slice(&bytes[bytes.len() - 6..]);
        assert!(matches!(Frame::decode(&off_grid), Err(FrameDecodeError::OutOfRange { .. })));

        // A count far beyond the bytes present must not allocate or loop.
        let mut huge_count = bytes[..kind_at - 2].to_vec();
        huge_count.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x0f]);
        assert!(Frame::decode(&huge_count).is_err());
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        // A cheap deterministic fuzz: xorshift bytes, and mutations of real frames,
        // read by a fresh decoder and by one that holds poses.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let ids: Vec<u32> = (0..10).collect();
        let mut holding = FrameDecoder::new();
        holding.decode(&walking(1, &ids).encode()).unwrap();
        let reals = [
            sample_frame().encode(),
            sample_frame().encode_format1(),
            walking(2, &ids).encode_after(&walking(1, &ids)),
        ];
        for round in 0..20_000 {
            let mut bytes = if round % 2 == 0 {
                reals[round % 3].clone()
            } else {
                (0..(next() % 200) as usize).map(|_| next() as u8).collect()
            };
            if !bytes.is_empty() {
                let i = (next() as usize) % bytes.len();
                bytes[i] = next() as u8;
            }
            let _ = Frame::decode(&bytes);
            let _ = holding.clone().decode(&bytes);
        }
    }

    #[test]
    fn absorb_keeps_every_latest_pose() {
        let mut older = Frame {
            epoch: 1,
            step: 10,
            time: 1.0,
            poses: vec![pose(1, [1.0; 3], [0.0, 0.0, 0.0, 1.0]), pose(3, [3.0; 3], [0.0, 0.0, 0.0, 1.0])],
        };
        let newer = Frame {
            epoch: 1,
            step: 12,
            time: 1.2,
            poses: vec![pose(0, [0.5; 3], [0.0, 0.0, 0.0, 1.0]), pose(3, [3.5; 3], [0.0, 0.0, 0.0, 1.0])],
        };
        older.absorb(newer);
        assert_eq!(older.step, 12);
        assert_eq!(older.time, 1.2);
        let ids: Vec<u32> = older.poses.iter().map(|p| p.id.0).collect();
        assert_eq!(ids, [0, 1, 3]);
        assert_eq!(older.poses[2].position, [3.5; 3]);
        assert_eq!(older.poses[1].position, [1.0; 3]);
    }

    #[test]
    fn absorb_across_epochs_replaces() {
        let mut older = sample_frame();
        let newer = Frame { epoch: 99, step: 0, time: 0.0, poses: vec![pose(5, [0.0; 3], [0.0, 0.0, 0.0, 1.0])] };
        older.absorb(newer.clone());
        assert_eq!(older, newer);
    }

    #[test]
    fn frames_are_much_smaller_than_json() {
        let frame = sample_frame();
        let binary = frame.encode().len();
        let json = serde_json::to_vec(&frame).unwrap().len();
        assert!(binary * 3 < json, "binary {binary} B vs json {json} B");
    }
}
