//! The `step` message as a sandboxed program's pipe carries it (protocol version
//! [`crate::PIPE_PROTOCOL_VERSION`]), written straight from the readings into a buffer the
//! program keeps: a line `m<N>` and the N bytes after its newline, the message of
//! version 1 in Python's `marshal` format ([`super::marshal`]), except that a scan
//! whose ranges are all finite has them as `bytes`, little-endian `f64`, which the
//! program turns into floats only when it reads them, and a scan whose ranges are those
//! of the same sensor in the step before (a lidar's rate is below the control rate, so
//! most steps repeat its last scan) comes without them: the program keeps the ones it
//! has (version 4).
//!
//! Why: a 180-beam scan as JSON numbers costs the program's Python far more to parse
//! (a float object per number, through the JSON scanner: about 40 µs) than to read
//! 1440 bytes into an `array` (about 2 µs), and the rest of the step (its dicts, the
//! GPS's and the scan's other numbers) costs `marshal.loads` about 1 µs where `json`
//! takes 2.5 µs; a program reads one every control step, in 30 processes taking turns
//! on cold caches, where every microsecond saved counts several times over. Each
//! number is exactly the `f64` a JSON reader gets from the version-1 text (an `f32`'s
//! shortest decimal, as serde_json writes it, read back), so a program sees the same
//! numbers in a lab as over a remote controller's websocket, which keeps plain JSON.

use std::collections::BTreeMap;

use vlab_protocol::SensorValue;

use super::marshal;
use super::messages::StepInput;

/// Ranges below this (metres, 2^20 tenths of a millimetre) whose `f32` is the one
/// nearest a whole number of tenths of a millimetre (what the lab's scans hold) are
/// converted by arithmetic; others by writing and reading their decimal. The unit test
/// checks every one of them against the decimal route.
const FAST_TENTHS_OF_MM: f64 = 1_048_576.0;

/// Buffers one program's step messages are written with, kept between steps so a step
/// allocates nothing once they have grown.
#[derive(Debug, Default)]
pub(crate) struct StepWriter {
    /// The marshalled message being written.
    body: Vec<u8>,
    /// One value's decimal, on the slow route.
    decimal: Vec<u8>,
    /// Each sensor's scan ranges as the previous step carried them: a scan that has not
    /// changed since goes without its ranges.
    sent_scans: BTreeMap<String, Vec<f32>>,
}

impl StepWriter {
    /// Appends the step message of `input` to `out`: its line, then its marshalled body.
    pub fn write(&mut self, input: &StepInput, out: &mut Vec<u8>) {
        let body = &mut self.body;
        body.clear();
        marshal::dict_start(body);
        marshal::string(body, "type");
        marshal::string(body, "step");
        marshal::string(body, "step");
        marshal::int(body, input.step.into());
        marshal::string(body, "time");
        marshal::float(body, input.time_secs);
        marshal::string(body, "sensors");
        self.sensors(&input.sensors);
        marshal::dict_end(&mut self.body);
        out.push(b'm');
        out.extend_from_slice(self.body.len().to_string().as_bytes());
        out.push(b'\n');
        out.extend_from_slice(&self.body);
    }

    fn sensors(&mut self, sensors: &BTreeMap<String, Option<SensorValue>>) {
        // A scan is left out only where the previous step carried it: a sensor missing
        // from a step (or not a finite scan there, below) is forgotten.
        self.sent_scans.retain(|name, _| sensors.contains_key(name));
        let body = &mut self.body;
        marshal::dict_start(body);
        for (name, value) in sensors {
            marshal::string(body, name);
            match value {
                Some(SensorValue::Scan { angle_min, angle_step, max_range, ranges })
                    if ranges.iter().all(|r| r.is_finite()) =>
                {
                    marshal::dict_start(body);
                    marshal::string(body, "type");
                    marshal::string(body, "scan");
                    for (field, value) in
                        [("angle_min", angle_min), ("angle_step", angle_step), ("max_range", max_range)]
                    {
                        marshal::string(body, field);
                        marshal::float(body, *value);
                    }
                    if let Some(sent) = self.sent_scans.get_mut(name) {
                        if sent == ranges {
                            marshal::dict_end(body);
                            continue;
                        }
                        sent.clone_from(ranges);
                    } else {
                        self.sent_scans.insert(name.clone(), ranges.clone());
                    }
                    marshal::string(body, "ranges");
                    marshal::bytes_header(body, 8 * ranges.len());
                    for &range in ranges {
                        body.extend_from_slice(&as_json_reads(range, &mut self.decimal).to_le_bytes());
                    }
                    marshal::dict_end(body);
                }
                // Non-finite ranges are JSON's `null`: such a scan goes as version 1 has it.
                other => {
                    self.sent_scans.remove(name);
                    marshal::write(body, &mut self.decimal, other).expect("readings marshal");
                }
            }
        }
        marshal::dict_end(body);
    }
}

/// The `f64` a JSON reader gets from the finite `x` as serde_json writes it: the
/// nearest `f64` to `x`'s shortest decimal (not `x` widened: `0.1f32` reads as `0.1`).
pub(crate) fn as_json_reads(x: f32, decimal: &mut Vec<u8>) -> f64 {
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

    /// What Python reads: `marshal.loads` of the message `StepWriter` wrote and
    /// `json.loads` of version 1's text of the same step, each as `repr` with every
    /// float as its bits and a packed scan's bytes as the floats they hold.
    fn python_reads(input: &StepInput) -> (String, String) {
        let mut out = Vec::new();
        StepWriter::default().write(input, &mut out);
        let end = out.iter().position(|&b| b == b'\n').expect("a line");
        assert_eq!(&out[..end], format!("m{}", out.len() - end - 1).as_bytes(), "the line says the body's length");
        let text = serde_json::to_string(&input.to_message()).unwrap();
        let script = r#"
import sys, json, marshal, struct
def plain(v, packed=False):
    if isinstance(v, dict):
        return {k: plain(x, k == "ranges") for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, bytes) and packed:
        return [plain(x) for x in struct.unpack("<%dd" % (len(v) // 8), v)]
    if isinstance(v, float):
        return ("float", struct.pack("<d", v).hex())
    return v
data = sys.stdin.buffer.read()
line, rest = data.split(b"\n", 1)
body, text = rest[:int(line[1:])], rest[int(line[1:]):]
print(repr(plain(marshal.loads(body))))
print(repr(plain(json.loads(text))))
"#;
        let printed = python_prints(script, &[&out, text.as_bytes()].concat());
        let (marshalled, json) = printed.trim_end().split_once('\n').expect("two lines");
        (marshalled.to_owned(), json.to_owned())
    }

    #[test]
    fn python_reads_a_step_as_the_json_of_version_one() {
        let mut input = step(vec![0.1, 2.5, 9.9999, 10.0, 0.0, 1.0 / 3.0]);
        let second = SensorValue::Scan { angle_min: 0.0, angle_step: 0.5, max_range: 4.0, ranges: vec![0.7, 3.9] };
        input.sensors.insert("rear".to_owned(), Some(second));
        input.sensors.insert("keys".to_owned(), Some(SensorValue::Keys { keys: vec!["ARROWUP".into(), "é".into()] }));
        input.step = 5_000_000_000_000;
        let (marshalled, json) = python_reads(&input);
        assert!(
            marshalled.contains("'ranges': [('float', '9a9999999999b93f')"),
            "0.1, not 0.1f32 widened: {marshalled}"
        );
        assert_eq!(marshalled, json);
    }

    #[test]
    fn a_scan_with_a_non_finite_range_reads_as_version_one_has_it() {
        let (marshalled, json) = python_reads(&step(vec![1.0, f32::INFINITY, f32::NAN]));
        assert!(marshalled.contains("None, None"), "{marshalled}");
        assert_eq!(marshalled, json);
    }

    #[test]
    fn every_kind_of_reading_reads_as_its_json_does() {
        let mut input = step(vec![]);
        input.sensors.clear();
        let values: Vec<SensorValue> = serde_json::from_str(include_str!("packed_readings.json")).expect("readings");
        for (i, value) in values.into_iter().enumerate() {
            input.sensors.insert(format!("s{i}"), Some(value));
        }
        input.step = 7;
        let (marshalled, json) = python_reads(&input);
        assert_eq!(marshalled, json);
    }

    /// What the real `python3` prints running `script` with `input` on its stdin.
    fn python_prints(script: &str, input: &[u8]) -> String {
        let python = &crate::interpreter::Interpreter::system().expect("python3").executable;
        let mut child = std::process::Command::new(python)
            .args(["-I", "-S", "-c", script])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("python runs");
        let mut stdin = child.stdin.take().unwrap();
        std::io::Write::write_all(&mut stdin, input).unwrap();
        drop(stdin);
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success());
        String::from_utf8(output.stdout).unwrap()
    }

    /// The step messages one writer writes for `steps`, each as Python's `marshal`
    /// reads it, in `repr`.
    fn python_reads_in_turn(steps: &[StepInput]) -> Vec<String> {
        let mut writer = StepWriter::default();
        steps
            .iter()
            .map(|input| {
                let mut out = Vec::new();
                writer.write(input, &mut out);
                let body = &out[out.iter().position(|&b| b == b'\n').unwrap() + 1..];
                python_prints("import sys, marshal; print(repr(marshal.loads(sys.stdin.buffer.read())))", body)
            })
            .collect()
    }

    #[test]
    fn a_scan_the_step_before_carried_goes_without_its_ranges() {
        let same = step(vec![1.5, 2.5]);
        let mut without_lidar = step(vec![]);
        without_lidar.sensors.remove("lidar");
        let mut infinite = step(vec![1.5, f32::INFINITY]);
        infinite.step = 16;
        let read = python_reads_in_turn(&[
            same.clone(),
            same.clone(),
            step(vec![1.5, 2.25]),
            without_lidar,
            same.clone(),
            infinite,
            same.clone(),
            same,
        ]);
        let ranges =
            |i: usize| read[i].split("'ranges': ").nth(1).map(|rest| rest.split([',', '}']).next().unwrap().to_owned());
        assert!(ranges(0).is_some_and(|r| r.starts_with("b'")), "the first step carries them: {}", read[0]);
        assert_eq!(ranges(1), None, "the same scan again: {}", read[1]);
        assert!(
            read[1].contains("'type': 'scan', 'angle_min': -1.5, 'angle_step': 0.1, 'max_range': 10.0}"),
            "{}",
            read[1]
        );
        assert!(ranges(2).is_some(), "a changed scan carries them: {}", read[2]);
        assert!(!read[3].contains("lidar"), "{}", read[3]);
        assert!(ranges(4).is_some(), "after a step without the sensor: {}", read[4]);
        assert!(read[5].contains("'ranges': [1.5, None]"), "non-finite ranges go as a list: {}", read[5]);
        assert!(ranges(6).is_some(), "after a step that carried them as a list: {}", read[6]);
        assert_eq!(ranges(7), None, "{}", read[7]);
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
