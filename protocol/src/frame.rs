//! Binary frames: the poses of the bodies that moved, sent tens of times a second.
//!
//! Layout (little-endian), designed to be small rather than clever:
//! ```text
//! "VF" (2 bytes) | format u8 | epoch u32 | step u64 | time f64 | count varint
//! count × { id gap varint | position 3×f32 | rotation index u8 | rotation 3×i16 }
//! ```
//! Ids are sorted ascending; each is written as the gap from the previous id + 1, so
//! consecutive ids cost one byte. Rotations use the "smallest three" quantization: the
//! largest component of the unit quaternion is dropped (its sign made positive) and
//! rebuilt from the other three, each stored in 16 bits over `[-1/√2, 1/√2]`
//! (resolution ≈ 2·10⁻⁵, well under a thousandth of a degree). Positions stay `f32`.
//! A pose costs 20 bytes for consecutive ids, against ~100 in JSON.

use serde::{Deserialize, Serialize};

use crate::BodyId;

const MAGIC: [u8; 2] = *b"VF";
const FORMAT: u8 = 1;
const HEADER_BYTES: usize = 2 + 1 + 4 + 8 + 8;
const QUAT_SCALE: f32 = 32767.0 * std::f32::consts::SQRT_2;

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
    #[error("frame format {0} is not supported (this build reads format {FORMAT})")]
    UnsupportedFormat(u8),
    /// A rotation header byte out of range.
    #[error("bad rotation index {index} at byte {at}")]
    BadRotationIndex {
        /// The value read.
        index: u8,
        /// Its offset.
        at: usize,
    },
    /// A varint longer than 5 bytes, or an id beyond `u32`.
    #[error("bad varint or id overflow at byte {at}")]
    BadVarint {
        /// Its offset.
        at: usize,
    },
    /// Bytes left after the last pose.
    #[error("{0} unexpected bytes after the frame")]
    TrailingBytes(usize),
}

impl Frame {
    /// Encodes the frame. Poses must be sorted by ascending id (debug-asserted).
    pub fn encode(&self) -> Vec<u8> {
        debug_assert!(self.poses.windows(2).all(|w| w[0].id < w[1].id), "poses must be sorted by id");
        let mut out = Vec::with_capacity(HEADER_BYTES + 5 + self.poses.len() * 20);
        out.extend_from_slice(&MAGIC);
        out.push(FORMAT);
        out.extend_from_slice(&self.epoch.to_le_bytes());
        out.extend_from_slice(&self.step.to_le_bytes());
        out.extend_from_slice(&self.time.to_le_bytes());
        write_varint(&mut out, self.poses.len() as u32);
        let mut next_id = 0u32;
        for pose in &self.poses {
            write_varint(&mut out, pose.id.0 - next_id);
            next_id = pose.id.0 + 1;
            for c in pose.position {
                out.extend_from_slice(&c.to_le_bytes());
            }
            let (index, small) = quantize_rotation(pose.rotation);
            out.push(index);
            for c in small {
                out.extend_from_slice(&c.to_le_bytes());
            }
        }
        out
    }

    /// Decodes a frame written by [`Frame::encode`].
    pub fn decode(bytes: &[u8]) -> Result<Frame, FrameDecodeError> {
        let mut reader = Reader { bytes, at: 0 };
        if reader.take(2)? != MAGIC {
            return Err(FrameDecodeError::BadMagic);
        }
        let format = reader.take(1)?[0];
        if format != FORMAT {
            return Err(FrameDecodeError::UnsupportedFormat(format));
        }
        let epoch = u32::from_le_bytes(reader.array()?);
        let step = u64::from_le_bytes(reader.array()?);
        let time = f64::from_le_bytes(reader.array()?);
        let count = reader.varint()?;
        // Each pose takes at least 20 bytes: refuse absurd counts before allocating.
        let remaining = bytes.len() - reader.at;
        if (count as usize) > remaining / 20 {
            return Err(FrameDecodeError::Truncated { at: bytes.len(), len: bytes.len() });
        }
        let mut poses = Vec::with_capacity(count as usize);
        let mut next_id = 0u32;
        for _ in 0..count {
            let gap_at = reader.at;
            let gap = reader.varint()?;
            let id = next_id.checked_add(gap).ok_or(FrameDecodeError::BadVarint { at: gap_at })?;
            next_id = id.checked_add(1).ok_or(FrameDecodeError::BadVarint { at: gap_at })?;
            let mut position = [0f32; 3];
            for c in &mut position {
                *c = f32::from_le_bytes(reader.array()?);
            }
            let index_at = reader.at;
            let index = reader.take(1)?[0];
            if index > 3 {
                return Err(FrameDecodeError::BadRotationIndex { index, at: index_at });
            }
            let mut small = [0i16; 3];
            for c in &mut small {
                *c = i16::from_le_bytes(reader.array()?);
            }
            poses.push(BodyPose { id: BodyId(id), position, rotation: dequantize_rotation(index, small) });
        }
        if reader.at != bytes.len() {
            return Err(FrameDecodeError::TrailingBytes(bytes.len() - reader.at));
        }
        Ok(Frame { epoch, step, time, poses })
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

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], FrameDecodeError> {
        let end = self.at + n;
        let slice =
            self.bytes.get(self.at..end).ok_or(FrameDecodeError::Truncated { at: self.at, len: self.bytes.len() })?;
        self.at = end;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], FrameDecodeError> {
        Ok(self.take(N)?.try_into().expect("take returned N bytes"))
    }

    fn varint(&mut self) -> Result<u32, FrameDecodeError> {
        let start = self.at;
        let mut value = 0u64;
        for shift in (0..35).step_by(7) {
            let byte = self.take(1)?[0];
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return u32::try_from(value).map_err(|_| FrameDecodeError::BadVarint { at: start });
            }
        }
        Err(FrameDecodeError::BadVarint { at: start })
    }
}

fn write_varint(out: &mut Vec<u8>, mut value: u32) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn quantize_rotation(q: [f32; 4]) -> (u8, [i16; 3]) {
    let norm = q.iter().map(|c| c * c).sum::<f32>().sqrt();
    let q = if norm > 0.0 && norm.is_finite() { q.map(|c| c / norm) } else { [0.0, 0.0, 0.0, 1.0] };
    let largest = (0..4).max_by(|&i, &j| q[i].abs().total_cmp(&q[j].abs())).unwrap_or(3);
    // q and -q are the same rotation: make the dropped component positive.
    let sign = if q[largest] < 0.0 { -1.0 } else { 1.0 };
    let mut small = [0i16; 3];
    let mut k = 0;
    for (i, c) in q.iter().enumerate() {
        if i != largest {
            small[k] = (c * sign * QUAT_SCALE).round().clamp(-32767.0, 32767.0) as i16;
            k += 1;
        }
    }
    (largest as u8, small)
}

fn dequantize_rotation(largest: u8, small: [i16; 3]) -> [f32; 4] {
    let small = small.map(|c| f32::from(c) / QUAT_SCALE);
    let rest = small.iter().map(|c| c * c).sum::<f32>();
    let big = (1.0 - rest).max(0.0).sqrt();
    let mut q = [0f32; 4];
    let mut k = 0;
    for (i, c) in q.iter_mut().enumerate() {
        if i == usize::from(largest) {
            *c = big;
        } else {
            *c = small[k];
            k += 1;
        }
    }
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pose(id: u32, position: [f32; 3], rotation: [f32; 4]) -> BodyPose {
        BodyPose { id: BodyId(id), position, rotation }
    }

    fn normalized(q: [f32; 4]) -> [f32; 4] {
        let n = q.iter().map(|c| c * c).sum::<f32>().sqrt();
        q.map(|c| c / n)
    }

    /// Angle between two rotations, radians. Computed from the chord between the
    /// quaternions (q and -q are the same rotation), which stays accurate for tiny
    /// angles where `acos` of the dot product does not.
    fn angle_between(a: [f32; 4], b: [f32; 4]) -> f32 {
        let chord =
            |sign: f64| a.iter().zip(b).map(|(x, y)| (f64::from(*x) - sign * f64::from(y)).powi(2)).sum::<f64>().sqrt();
        (4.0 * (chord(1.0).min(chord(-1.0)) / 2.0).asin()) as f32
    }

    fn sample_frame() -> Frame {
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

    #[test]
    fn frames_round_trip_with_exact_positions_and_close_rotations() {
        let frame = sample_frame();
        let decoded = Frame::decode(&frame.encode()).unwrap();
        assert_eq!(decoded.epoch, frame.epoch);
        assert_eq!(decoded.step, frame.step);
        assert_eq!(decoded.time, frame.time);
        assert_eq!(decoded.poses.len(), frame.poses.len());
        for (a, b) in frame.poses.iter().zip(&decoded.poses) {
            assert_eq!(a.id, b.id);
            assert_eq!(a.position, b.position);
            let error = angle_between(a.rotation, b.rotation);
            assert!(error < 1e-4, "rotation error {error} rad for {a:?} vs {b:?}");
        }
    }

    #[test]
    fn rotation_quantization_is_accurate_over_many_rotations() {
        // A deterministic spread of rotations, including negative-w ones.
        let mut worst = 0f32;
        for i in 0..2000 {
            let t = i as f32;
            let q = normalized([(t * 0.37).sin(), (t * 0.91).cos(), (t * 1.73).sin(), (t * 0.13).cos() - 0.5]);
            let (index, small) = quantize_rotation(q);
            worst = worst.max(angle_between(q, dequantize_rotation(index, small)));
        }
        assert!(worst < 1e-4, "worst rotation error {worst} rad");
    }

    #[test]
    fn consecutive_ids_cost_twenty_bytes_a_pose() {
        let poses = (0..100).map(|i| pose(i, [i as f32, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0])).collect();
        let frame = Frame { epoch: 0, step: 1, time: 0.1, poses };
        assert_eq!(frame.encode().len(), HEADER_BYTES + 1 + 100 * 20);
    }

    #[test]
    fn an_empty_frame_round_trips() {
        let frame = Frame { epoch: 1, step: 5, time: 0.5, poses: vec![] };
        assert_eq!(Frame::decode(&frame.encode()).unwrap(), frame);
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let bytes = sample_frame().encode();
        for len in 0..bytes.len() {
            assert!(Frame::decode(&bytes[..len]).is_err(), "prefix of {len} bytes decoded");
        }
    }

    #[test]
    fn corrupt_frames_are_rejected_with_a_reason() {
        let bytes = sample_frame().encode();
        let mut bad_magic = bytes.clone();
        bad_magic[0] = b'X';
        assert_eq!(Frame::decode(&bad_magic), Err(FrameDecodeError::BadMagic));

        let mut bad_format = bytes.clone();
        bad_format[2] = 9;
        assert_eq!(Frame::decode(&bad_format), Err(FrameDecodeError::UnsupportedFormat(9)));

        let mut trailing = bytes.clone();
        trailing.push(0);
        assert_eq!(Frame::decode(&trailing), Err(FrameDecodeError::TrailingBytes(1)));

        let mut bad_index = bytes.clone();
        // First pose: header, count (1 byte), id gap (1 byte), position (12 bytes).
        bad_index[HEADER_BYTES + 1 + 1 + 12] = 4;
        assert!(matches!(Frame::decode(&bad_index), Err(FrameDecodeError::BadRotationIndex { index: 4, .. })));

        // A count far beyond the bytes present must not allocate or loop.
        let mut huge_count = bytes[..HEADER_BYTES].to_vec();
        huge_count.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x0f]);
        assert!(Frame::decode(&huge_count).is_err());
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        // A cheap deterministic fuzz: xorshift bytes, and mutations of a real frame.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let real = sample_frame().encode();
        for round in 0..5000 {
            let mut bytes = if round % 2 == 0 {
                real.clone()
            } else {
                (0..(next() % 200) as usize).map(|_| next() as u8).collect()
            };
            if !bytes.is_empty() {
                let i = (next() as usize) % bytes.len();
                bytes[i] = next() as u8;
            }
            let _ = Frame::decode(&bytes);
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
