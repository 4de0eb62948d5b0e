//! Frame format 1, the first encoding: every pose absolute, positions as `f32`.
//!
//! ```text
//! "VF" (2 bytes) | format u8 = 1 | epoch u32 | step u64 | time f64 | count varint
//! count × { id gap varint | position 3×f32 | rotation index u8 | rotation 3×i16 }
//! ```
//! Ids are sorted ascending, each written as the gap from the previous id + 1.
//! Rotations are "smallest three" at 16 bits a component. A pose costs 20 bytes for
//! consecutive ids. Still read (by [`super::FrameDecoder`]) and written (by
//! [`super::Frame::encode_format1`]) so that benches can set it beside format 2.

use super::codec::{Reader, rebuild_rotation, smallest_three, write_varint};
use super::{BodyPose, Frame, FrameDecodeError};
use crate::BodyId;

pub(super) const MAGIC: [u8; 2] = *b"VF";
const FORMAT: u8 = 1;
pub(super) const HEADER_BYTES: usize = 2 + 1 + 4 + 8 + 8;
const ROTATION_MAX: i32 = 32767;
const POSE_BYTES: usize = 20;

pub(super) fn encode(frame: &Frame) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_BYTES + 5 + frame.poses.len() * POSE_BYTES);
    out.extend_from_slice(&MAGIC);
    out.push(FORMAT);
    out.extend_from_slice(&frame.epoch.to_le_bytes());
    out.extend_from_slice(&frame.step.to_le_bytes());
    out.extend_from_slice(&frame.time.to_le_bytes());
    write_varint(&mut out, frame.poses.len() as u64);
    let mut next_id = 0u32;
    for pose in &frame.poses {
        write_varint(&mut out, u64::from(pose.id.0 - next_id));
        next_id = pose.id.0 + 1;
        for c in pose.position {
            out.extend_from_slice(&c.to_le_bytes());
        }
        let (index, small) = smallest_three(pose.rotation, ROTATION_MAX);
        out.push(index);
        for c in small {
            out.extend_from_slice(&(c as i16).to_le_bytes());
        }
    }
    out
}

pub(super) fn decode(bytes: &[u8]) -> Result<Frame, FrameDecodeError> {
    let mut reader = Reader::new(bytes);
    if reader.take(2)? != MAGIC {
        return Err(FrameDecodeError::BadMagic);
    }
    let format = reader.byte()?;
    if format != FORMAT {
        return Err(FrameDecodeError::UnsupportedFormat(format));
    }
    let epoch = u32::from_le_bytes(reader.array()?);
    let step = u64::from_le_bytes(reader.array()?);
    let time = f64::from_le_bytes(reader.array()?);
    let count = reader.varint()?;
    // Refuse absurd counts before allocating.
    if (count as usize) > reader.remaining() / POSE_BYTES {
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
        let index = reader.byte()?;
        if index > 3 {
            return Err(FrameDecodeError::BadRotationIndex { index, at: index_at });
        }
        let mut small = [0i32; 3];
        for c in &mut small {
            *c = i32::from(i16::from_le_bytes(reader.array()?));
        }
        poses.push(BodyPose { id: BodyId(id), position, rotation: rebuild_rotation(index, small, ROTATION_MAX) });
    }
    if reader.remaining() != 0 {
        return Err(FrameDecodeError::TrailingBytes(reader.remaining()));
    }
    Ok(Frame { epoch, step, time, poses })
}

#[cfg(test)]
mod tests {
    use super::super::tests::{angle_between, pose, sample_frame};
    use super::*;

    #[test]
    fn format_1_round_trips_with_exact_positions_and_close_rotations() {
        let frame = sample_frame();
        let decoded = decode(&encode(&frame)).unwrap();
        assert_eq!((decoded.epoch, decoded.step, decoded.time), (frame.epoch, frame.step, frame.time));
        assert_eq!(decoded.poses.len(), frame.poses.len());
        for (a, b) in frame.poses.iter().zip(&decoded.poses) {
            assert_eq!(a.id, b.id);
            assert_eq!(a.position, b.position);
            assert!(angle_between(a.rotation, b.rotation) < 1e-4);
        }
    }

    #[test]
    fn consecutive_ids_cost_twenty_bytes_a_pose() {
        let poses = (0..100).map(|i| pose(i, [i as f32, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0])).collect();
        let frame = Frame { epoch: 0, step: 1, time: 0.1, poses };
        assert_eq!(encode(&frame).len(), HEADER_BYTES + 1 + 100 * POSE_BYTES);
    }

    #[test]
    fn corrupt_format_1_frames_are_rejected_with_a_reason() {
        let bytes = encode(&sample_frame());
        for len in 0..bytes.len() {
            assert!(decode(&bytes[..len]).is_err(), "prefix of {len} bytes decoded");
        }
        let mut bad_magic = bytes.clone();
        bad_magic[1] = b'X';
        assert_eq!(decode(&bad_magic), Err(FrameDecodeError::BadMagic));
        let mut bad_format = bytes.clone();
        bad_format[2] = 9;
        assert_eq!(decode(&bad_format), Err(FrameDecodeError::UnsupportedFormat(9)));
        let mut trailing = bytes.clone();
        trailing.push(0);
        assert_eq!(decode(&trailing), Err(FrameDecodeError::TrailingBytes(1)));
        let mut bad_index = bytes.clone();
        // First pose: header, count (1 byte), id gap (1 byte), position (12 bytes).
        bad_index[HEADER_BYTES + 1 + 1 + 12] = 4;
        assert!(matches!(decode(&bad_index), Err(FrameDecodeError::BadRotationIndex { index: 4, .. })));
        let mut huge_count = bytes[..HEADER_BYTES].to_vec();
        huge_count.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x0f]);
        assert!(decode(&huge_count).is_err());
    }
}
