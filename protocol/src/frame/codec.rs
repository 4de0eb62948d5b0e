//! The byte-level pieces both frame formats share: a bounds-checked reader, varints,
//! zigzag signed integers and the "smallest three" rotation quantization.

use super::FrameDecodeError;

/// Reads a byte slice front to back; every read past the end is a typed error.
pub(super) struct Reader<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) at: usize,
}

impl<'a> Reader<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    pub(super) fn take(&mut self, n: usize) -> Result<&'a [u8], FrameDecodeError> {
        let truncated = FrameDecodeError::Truncated { at: self.at, len: self.bytes.len() };
        let end = self.at.checked_add(n).ok_or(truncated.clone())?;
        let slice = self.bytes.get(self.at..end).ok_or(truncated)?;
        self.at = end;
        Ok(slice)
    }

    pub(super) fn byte(&mut self) -> Result<u8, FrameDecodeError> {
        Ok(self.take(1)?[0])
    }

    pub(super) fn array<const N: usize>(&mut self) -> Result<[u8; N], FrameDecodeError> {
        Ok(self.take(N)?.try_into().expect("take returned N bytes"))
    }

    pub(super) fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    /// A LEB128 varint of at most 10 bytes.
    pub(super) fn varint64(&mut self) -> Result<u64, FrameDecodeError> {
        let start = self.at;
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let byte = self.byte()?;
            let bits = u64::from(byte & 0x7f);
            // The tenth byte may only carry the top bit of a u64.
            if shift == 63 && bits > 1 {
                return Err(FrameDecodeError::BadVarint { at: start });
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(FrameDecodeError::BadVarint { at: start })
    }

    /// A varint that must fit a `u32`.
    pub(super) fn varint(&mut self) -> Result<u32, FrameDecodeError> {
        let start = self.at;
        u32::try_from(self.varint64()?).map_err(|_| FrameDecodeError::BadVarint { at: start })
    }

    /// A zigzag-coded signed varint.
    pub(super) fn signed(&mut self) -> Result<i64, FrameDecodeError> {
        let n = self.varint64()?;
        Ok(((n >> 1) as i64) ^ -((n & 1) as i64))
    }
}

pub(super) fn write_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Zigzag: small magnitudes of either sign take few bytes.
pub(super) fn write_signed(out: &mut Vec<u8>, value: i64) {
    write_varint(out, ((value << 1) ^ (value >> 63)) as u64);
}

/// Bytes [`write_signed`] takes for `value`.
pub(super) fn signed_len(value: i64) -> usize {
    let zigzag = ((value << 1) ^ (value >> 63)) as u64;
    (64 - zigzag.max(1).leading_zeros() as usize).div_ceil(7)
}

/// "Smallest three": the largest component of the unit quaternion `q` is dropped (its
/// sign made positive, since `q` and `-q` are the same rotation) and the other three,
/// each within `[-1/√2, 1/√2]`, are rounded to integers in `[-max, max]`.
pub(super) fn smallest_three(q: [f32; 4], max: i32) -> (u8, [i32; 3]) {
    let norm = q.iter().map(|c| c * c).sum::<f32>().sqrt();
    let q = if norm > 0.0 && norm.is_finite() { q.map(|c| c / norm) } else { [0.0, 0.0, 0.0, 1.0] };
    let largest = (0..4).max_by(|&i, &j| q[i].abs().total_cmp(&q[j].abs())).unwrap_or(3);
    let sign = if q[largest] < 0.0 { -1.0 } else { 1.0 };
    let scale = max as f32 * std::f32::consts::SQRT_2;
    let mut small = [0i32; 3];
    let mut k = 0;
    for (i, c) in q.iter().enumerate() {
        if i != largest {
            small[k] = ((c * sign * scale).round() as i32).clamp(-max, max);
            k += 1;
        }
    }
    (largest as u8, small)
}

/// The unit quaternion [`smallest_three`] quantized.
pub(super) fn rebuild_rotation(largest: u8, small: [i32; 3], max: i32) -> [f32; 4] {
    let scale = max as f32 * std::f32::consts::SQRT_2;
    let small = small.map(|c| c as f32 / scale);
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

    #[test]
    fn varints_round_trip_at_every_width() {
        for value in [0u64, 1, 127, 128, 16_383, 16_384, u64::from(u32::MAX), u64::MAX - 1, u64::MAX] {
            let mut out = Vec::new();
            write_varint(&mut out, value);
            let mut reader = Reader::new(&out);
            assert_eq!(reader.varint64().unwrap(), value);
            assert_eq!(reader.remaining(), 0);
        }
    }

    #[test]
    fn signed_values_round_trip_and_their_length_is_known() {
        for value in [0i64, 1, -1, 63, -64, 64, -65, 1 << 30, -(1 << 30), i64::MAX, i64::MIN] {
            let mut out = Vec::new();
            write_signed(&mut out, value);
            assert_eq!(out.len(), signed_len(value), "{value}");
            assert_eq!(Reader::new(&out).signed().unwrap(), value);
        }
    }

    #[test]
    fn overlong_varints_are_refused() {
        let eleven = [0xffu8; 11];
        assert_eq!(Reader::new(&eleven).varint64(), Err(FrameDecodeError::BadVarint { at: 0 }));
        // Ten bytes whose last carries more than the top bit of a u64.
        let mut too_big = [0xffu8; 10];
        too_big[9] = 0x02;
        assert_eq!(Reader::new(&too_big).varint64(), Err(FrameDecodeError::BadVarint { at: 0 }));
        let beyond_u32 = [0x80, 0x80, 0x80, 0x80, 0x10];
        assert_eq!(Reader::new(&beyond_u32).varint(), Err(FrameDecodeError::BadVarint { at: 0 }));
    }
}
