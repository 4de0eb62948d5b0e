//! The `step` message as a sandboxed program's pipe carries it (protocol version
//! [`PIPE_PROTOCOL_VERSION`]), written straight from the readings into a buffer the
//! program keeps: the JSON line of version 1, except that a scan's `ranges` is its
//! number of beams, and the line ends with `"packed":N` when such scans are in it; the
//! N bytes after its newline are their ranges, little-endian `f64`, scan after scan in
//! the order of the line.
//!
//! Why: a 180-beam scan as JSON numbers costs the program's Python far more to parse
//! (a float object per number, through the JSON scanner: about 40 µs) than to read
//! 1440 bytes into an `array` (about 2 µs), and a program reads one every control
//! step. Each packed value is exactly the `f64` a JSON reader gets from the version-1
//! text (the `f32`'s shortest decimal, as serde_json writes it), so a program sees the
//! same numbers in a lab as over a remote controller's websocket, which keeps plain
//! JSON.

use std::collections::BTreeMap;

use vlab_protocol::SensorValue;

use super::messages::StepInput;

/// The version of the pipe between the lab and a sandboxed Python program: version 1
/// ([`super::PROTOCOL_VERSION`]) with scans packed as this module writes them.
pub const PIPE_PROTOCOL_VERSION: u32 = 2;

/// Ranges below this (metres, 2^20 tenths of a millimetre) whose `f32` is the one
/// nearest a whole number of tenths of a millimetre (what the lab's scans hold) are
/// converted by arithmetic; others by writing and reading their decimal. The unit test
/// checks every one of them against the decimal route.
const FAST_TENTHS_OF_MM: f64 = 1_048_576.0;

/// Buffers one program's step messages are written with, kept between steps so a step
/// allocates nothing once they have grown.
#[derive(Debug, Default)]
pub(crate) struct StepWriter {
    /// The packed ranges of the message being written.
    bytes: Vec<u8>,
    /// One value's decimal, on the slow route.
    decimal: Vec<u8>,
}

impl StepWriter {
    /// Appends the step message of `input` to `out`: its line, then its packed ranges.
    pub fn write(&mut self, input: &StepInput, out: &mut Vec<u8>) {
        self.bytes.clear();
        out.extend_from_slice(b"{\"type\":\"step\",\"step\":");
        json(out, &input.step);
        out.extend_from_slice(b",\"time\":");
        json(out, &input.time_secs);
        out.extend_from_slice(b",\"sensors\":{");
        self.sensors(&input.sensors, out);
        out.push(b'}');
        if !self.bytes.is_empty() {
            out.extend_from_slice(b",\"packed\":");
            json(out, &self.bytes.len());
        }
        out.extend_from_slice(b"}\n");
        out.extend_from_slice(&self.bytes);
    }

    fn sensors(&mut self, sensors: &BTreeMap<String, Option<SensorValue>>, out: &mut Vec<u8>) {
        for (i, (name, value)) in sensors.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            json(out, name);
            out.push(b':');
            match value {
                Some(SensorValue::Scan { angle_min, angle_step, max_range, ranges })
                    if ranges.iter().all(|r| r.is_finite()) =>
                {
                    out.extend_from_slice(b"{\"type\":\"scan\",\"angle_min\":");
                    json(out, angle_min);
                    out.extend_from_slice(b",\"angle_step\":");
                    json(out, angle_step);
                    out.extend_from_slice(b",\"max_range\":");
                    json(out, max_range);
                    out.extend_from_slice(b",\"ranges\":");
                    json(out, &ranges.len());
                    out.push(b'}');
                    for &range in ranges {
                        let value = as_json_reads(range, &mut self.decimal);
                        self.bytes.extend_from_slice(&value.to_le_bytes());
                    }
                }
                // Non-finite ranges are JSON's `null`: such a scan goes as version 1 has it.
                other => json(out, other),
            }
        }
    }
}

/// Appends `value`'s JSON.
fn json<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    serde_json::to_writer(&mut *out, value).expect("readings serialise");
}

/// The `f64` a JSON reader gets from the finite `x` as serde_json writes it: the
/// nearest `f64` to `x`'s shortest decimal (not `x` widened: `0.1f32` reads as `0.1`).
fn as_json_reads(x: f32, decimal: &mut Vec<u8>) -> f64 {
    if x >= 0.0 {
        let tenths = (f64::from(x) * 1e4).round();
        if tenths < FAST_TENTHS_OF_MM {
            let candidate = tenths / 1e4;
            if candidate as f32 == x {
                return candidate;
            }
        }
    }
    decimal.clear();
    serde_json::to_writer(&mut *decimal, &x).expect("a finite f32 writes");
    std::str::from_utf8(decimal).ok().and_then(|text| text.parse().ok()).unwrap_or(f64::from(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The decimal route alone: what the fast route must agree with.
    fn by_decimal(x: f32) -> f64 {
        serde_json::to_string(&x).unwrap().parse().unwrap()
    }

    #[test]
    fn every_fast_range_reads_as_its_json_does() {
        let mut decimal = Vec::new();
        // Every f32 the fast route can take is the f32 of some whole number of tenths
        // of a millimetre below the limit: check each of them.
        for tenths in 0..FAST_TENTHS_OF_MM as u32 {
            let x = (f64::from(tenths) / 1e4) as f32;
            assert_eq!(as_json_reads(x, &mut decimal).to_bits(), by_decimal(x).to_bits(), "{x}");
        }
    }

    #[test]
    fn other_ranges_read_as_their_json_does() {
        let mut decimal = Vec::new();
        for x in [0.1f32, 1.0 / 3.0, 1e-7, 123456.79, 1e30, -2.5, -0.0, 0.0, f32::MAX, f32::MIN_POSITIVE, 104.8576] {
            assert_eq!(as_json_reads(x, &mut decimal).to_bits(), by_decimal(x).to_bits(), "{x}");
        }
        let mut bits = 0x3f80_0001_u32;
        for _ in 0..100_000 {
            bits = bits.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let x = f32::from_bits(bits);
            if x.is_finite() {
                assert_eq!(as_json_reads(x, &mut decimal).to_bits(), by_decimal(x).to_bits(), "{x}");
            }
        }
    }

    fn step(ranges: Vec<f32>) -> StepInput {
        StepInput {
            step: 15,
            time_secs: 0.0625,
            sensors: BTreeMap::from([
                ("GPS \"1\"".to_owned(), Some(SensorValue::Vector { values: [1.5, -0.25, 1e-9] })),
                ("bump".to_owned(), None),
                (
                    "lidar".to_owned(),
                    Some(SensorValue::Scan { angle_min: -1.5, angle_step: 0.1, max_range: 10.0, ranges }),
                ),
            ]),
        }
    }

    /// Version 1's message of `input` as its text parses (not `to_value`, which widens
    /// an `f32` instead of reading its decimal).
    fn as_text_reads(input: &StepInput) -> serde_json::Value {
        serde_json::from_str(&serde_json::to_string(&input.to_message()).unwrap()).unwrap()
    }

    /// A message's line, parsed, and the bytes after it.
    fn split(out: &[u8]) -> (serde_json::Value, &[u8]) {
        let end = out.iter().position(|&b| b == b'\n').expect("a line");
        (serde_json::from_slice(&out[..end]).unwrap(), &out[end + 1..])
    }

    #[test]
    fn a_step_is_version_ones_json_with_its_scans_packed_after_it() {
        let ranges = vec![0.1, 2.5, 9.9999, 10.0, 0.0, 1.0 / 3.0];
        let mut input = step(ranges.clone());
        let second = SensorValue::Scan { angle_min: 0.0, angle_step: 0.5, max_range: 4.0, ranges: vec![0.7, 3.9] };
        input.sensors.insert("rear".to_owned(), Some(second));
        let mut out = Vec::new();
        StepWriter::default().write(&input, &mut out);
        let (mut packed, bytes) = split(&out);
        assert_eq!(packed["packed"], 64, "both scans' ranges follow the line");
        assert_eq!(bytes.len(), 64);
        assert_eq!(
            (&packed["sensors"]["lidar"]["ranges"], &packed["sensors"]["rear"]["ranges"]),
            (&6.into(), &2.into())
        );
        let values: Vec<u64> = bytes.chunks(8).map(|b| u64::from_le_bytes(b.try_into().unwrap())).collect();
        // Version 1's text of each range, read as a correctly rounding reader (Python's
        // json) reads it.
        let expected: Vec<u64> = ranges.iter().chain(&[0.7, 3.9]).map(|&r| by_decimal(r).to_bits()).collect();
        assert_eq!(values, expected, "every range is the number version 1's JSON reads as, in the line's order");
        assert_eq!(f64::from_bits(values[0]), 0.1, "not 0.1f32 widened");
        let plain = as_text_reads(&input);
        let object = packed.as_object_mut().unwrap();
        object.remove("packed");
        for name in ["lidar", "rear"] {
            object["sensors"][name]["ranges"] = plain["sensors"][name]["ranges"].clone();
        }
        assert_eq!(packed, plain, "everything else is as version 1 writes it");
    }

    #[test]
    fn a_step_without_scans_is_version_ones_line() {
        let mut input = step(vec![]);
        input.sensors.remove("lidar");
        let mut out = Vec::new();
        StepWriter::default().write(&input, &mut out);
        let expected = serde_json::to_string(&input.to_message()).unwrap() + "\n";
        assert_eq!(String::from_utf8(out).unwrap(), expected);
    }

    #[test]
    fn a_scan_with_a_non_finite_range_goes_as_version_one_has_it() {
        let input = step(vec![1.0, f32::INFINITY]);
        let mut out = Vec::new();
        StepWriter::default().write(&input, &mut out);
        let (packed, bytes) = split(&out);
        assert!(bytes.is_empty());
        assert_eq!(packed, as_text_reads(&input));
    }

    #[test]
    fn a_writer_reused_writes_the_same() {
        let mut writer = StepWriter::default();
        let (mut first, mut second) = (Vec::new(), Vec::new());
        writer.write(&step(vec![3.0; 180]), &mut first);
        writer.write(&step(vec![0.5; 4]), &mut second);
        let mut fresh = Vec::new();
        StepWriter::default().write(&step(vec![0.5; 4]), &mut fresh);
        assert_eq!(second, fresh);
    }
}
