//! A deterministic fuzz loop over the protocol's two decoders, run by every `cargo test`:
//! binary frames (`Frame::decode`, and a `FrameDecoder` holding a scene's joint links)
//! and JSON client messages (`ClientMsg` through serde_json) never panic on mutations
//! of valid messages, on JSON reshaped at random or on random bytes.
//!
//! - Every frame the decoder accepts re-encodes to bytes that decode to the same frame
//!   (header, ids and positions bit for bit, rotations up to their 13-bit quantization;
//!   a body placed by its joint within the grid); every refusal says why.
//! - Every client message serde accepts serializes back to itself, and the server's
//!   `from_str` (it reads websocket text) agrees with `from_slice` wherever the bytes
//!   are UTF-8.
//!
//! Deterministic, as `backend/lang/tests/fuzz.rs`: each case has its own generator
//! seeded from the case's number (xorshift64*, written here so that the protocol crate
//! takes no dependency for its tests), so a failure names the case and prints its input
//! in hex. `VLAB_FUZZ_ITERATIONS` sets the cases per target for longer runs by hand
//! (docs/operations.md, "Fuzzing").

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::OnceLock;

use serde_json::{Map, Value, json};
use vlab_protocol::{
    BodyId, BodyPose, ClientMsg, ControlAction, Frame, FrameDecoder, JointLink, JointLinkKind, LinkTable,
    MAX_GRID_METRES, MAX_KEYS_HELD, MAX_STEPS_PER_COMMAND, Pose, Rate,
};

/// Cases per target when `VLAB_FUZZ_ITERATIONS` is not set: a few seconds at most in a
/// debug build on two cores.
const DEFAULT_ITERATIONS: u64 = 100_000;

/// Deepest nesting a case writes; serde_json refuses beyond 128 on its own.
const MAX_NESTING: usize = 400;

/// Largest rotation drift allowed between a decoded frame and its re-encoding, radians:
/// a few steps of frame format 2's 13-bit quantization (≈ 1.7·10⁻⁴ per component).
const ROTATION_TOLERANCE: f64 = 1.6e-3;

fn iterations() -> u64 {
    match std::env::var("VLAB_FUZZ_ITERATIONS") {
        Ok(text) => text
            .replace('_', "")
            .parse()
            .unwrap_or_else(|_| panic!("VLAB_FUZZ_ITERATIONS must be a number of cases, got {text:?}")),
        Err(_) => DEFAULT_ITERATIONS,
    }
}

/// xorshift64*, seeded through splitmix64 so that consecutive seeds start far apart.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Rng((z ^ (z >> 31)) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// `0..n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }

    fn one_in(&mut self, n: u64) -> bool {
        self.next().is_multiple_of(n)
    }

    fn byte(&mut self) -> u8 {
        (self.next() >> 56) as u8
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// A float in `[-1, 1)`.
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
}

/// The first 2 KiB of an input in hex, and its length: enough to see it, while the case
/// number replays it whole.
fn hex(bytes: &[u8]) -> String {
    let shown: String = bytes.iter().take(2048).map(|b| format!("{b:02x}")).collect();
    if bytes.len() > 2048 {
        format!("{shown}… ({} bytes)", bytes.len())
    } else {
        format!("{shown} ({} bytes)", bytes.len())
    }
}

/// Runs one case; a panic or a broken property fails the test with the case's input.
fn run_case(target: &str, case: u64, input: &[u8], check: fn(&[u8]) -> Result<bool, String>) -> bool {
    match catch_unwind(AssertUnwindSafe(|| check(input))) {
        Ok(Ok(accepted)) => accepted,
        Ok(Err(broken)) => panic!("fuzz {target} case {case}: {broken}\ninput: {}", hex(input)),
        Err(_) => panic!("fuzz {target} case {case}: the decoder panicked (message above)\ninput: {}", hex(input)),
    }
}

fn report(target: &str, executions: u64, accepted: u64) {
    let refused = executions - accepted;
    println!("fuzz {target}: {executions} executions, 0 panics ({accepted} accepted, {refused} refused)");
    // Both outcomes must be common, or the mutations explore only one side of the decoder.
    assert!(accepted * 50 >= executions, "fuzz {target}: only {accepted} of {executions} cases were accepted");
    assert!(refused * 50 >= executions, "fuzz {target}: only {refused} of {executions} cases were refused");
}

// ---------------------------------------------------------------------------------------
// Byte mutations, shared by both targets.

/// Applies one to a few byte edits; `other` is another input to splice with, `tokens`
/// bytes that mean something to the decoder.
fn mutate_bytes(rng: &mut Rng, data: &mut Vec<u8>, other: &[u8], tokens: &[&[u8]]) {
    const INTERESTING: [u8; 10] = [0x00, 0x01, 0x03, 0x04, 0x7f, 0x80, 0x81, 0xfe, 0xff, b'"'];
    let edits = if rng.one_in(8) { 1 + rng.below(16) } else { 1 + rng.below(3) };
    for _ in 0..edits {
        // A quarter of the edits land in the first 32 bytes: a frame's header, a message's type.
        let span = if rng.one_in(4) { data.len().min(32) } else { data.len() };
        let at = rng.below(span + 1).min(data.len());
        match rng.below(11) {
            0 if !data.is_empty() => {
                let i = at.min(data.len() - 1);
                data[i] ^= 1 << rng.below(8);
            }
            1 if !data.is_empty() => {
                let i = at.min(data.len() - 1);
                data[i] = if rng.one_in(2) { *rng.pick(&INTERESTING) } else { rng.byte() };
            }
            2 => data.truncate(rng.below(data.len() + 1)),
            3 => {
                let len = 1 + rng.below(64);
                data.extend((0..len).map(|_| rng.byte()));
            }
            4 => {
                // Splice: this input's head, the other's tail.
                let from = rng.below(other.len() + 1);
                data.truncate(at);
                data.extend_from_slice(&other[from..]);
            }
            5 => {
                let token = rng.pick(tokens);
                data.splice(at..at, token.iter().copied());
            }
            6 => {
                let end = (at + 1 + rng.below(24)).min(data.len());
                data.drain(at..end);
            }
            7 => {
                let end = (at + 1 + rng.below(48)).min(data.len());
                let span: Vec<u8> = data[at..end].to_vec();
                let times = 1 + rng.below(4);
                for _ in 0..times {
                    data.splice(at..at, span.iter().copied());
                }
            }
            8 => {
                // A run of continuation bytes: endless varints, huge counts.
                let len = 1 + rng.below(8);
                let fill = *rng.pick(&[0xff, 0x80, 0x8f]);
                let end = (at + len).min(data.len());
                data[at..end].fill(fill);
                if rng.one_in(2) {
                    data.splice(end..end, std::iter::repeat_n(fill, len));
                }
            }
            9 => {
                // An extreme little-endian integer over whatever field is there.
                let value: u64 = *rng.pick(&[0, 1, u64::MAX, u64::from(u32::MAX), 0x8000_0000, 1 << 63, 20, 0x7fff]);
                let width = *rng.pick(&[1usize, 2, 4, 8]);
                for (i, b) in value.to_le_bytes().iter().take(width).enumerate() {
                    if let Some(slot) = data.get_mut(at + i) {
                        *slot = *b;
                    }
                }
            }
            _ => {
                let len = rng.below(4);
                data.splice(at..at, (0..len).map(|_| rng.byte()));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Binary frames.

const FRAME_TOKENS: &[&[u8]] = &[
    b"VF",
    b"VF\x01",
    b"VF\x02",
    b"\x02",
    b"\x82",
    b"\x0a",
    b"\x00",
    b"\x7f",
    b"\x80\x01",
    b"\xff\xff\xff\xff\x0f",
    b"\xff\xff\xff\xff\xff\xff",
    b"\x00\x00\xc0\x7f",                 // f32 NaN
    b"\x00\x00\x80\x7f",                 // f32 +inf
    b"\x00\x00\x00\x00\x00\x00\xf8\x7f", // f64 NaN
    b"\x04",
    b"\xff\x7f",
    b"\x01\x80",
];

fn pose(id: u32, position: [f32; 3], rotation: [f32; 4]) -> BodyPose {
    BodyPose { id: BodyId(id), position, rotation }
}

/// Valid frames of every shape: empty, edge ids and header values, odd floats, and
/// random ones of 1 to 300 poses.
fn frame_corpus() -> Vec<Vec<u8>> {
    let identity = [0.0, 0.0, 0.0, 1.0];
    let mut frames = vec![
        Frame::default(),
        Frame { epoch: u32::MAX, step: u64::MAX, time: f64::MAX, poses: vec![] },
        Frame { epoch: 1, step: 1, time: 1.0 / 240.0, poses: vec![pose(0, [0.0; 3], identity)] },
        // The largest id a frame can carry (the one after it would overflow `u32`).
        Frame { epoch: 3, step: 9, time: 0.5, poses: vec![pose(u32::MAX - 1, [1.0, 2.0, 3.0], identity)] },
        // Gaps at the varint's byte boundaries.
        Frame {
            epoch: 2,
            step: 1 << 40,
            time: -0.0,
            poses: [0u32, 128, 256, 16_640, 16_641, 2_113_793, 270_549_121]
                .iter()
                .map(|&id| pose(id, [id as f32, -1.5, 1e-3], [0.5, -0.5, 0.5, -0.5]))
                .collect(),
        },
        // Floats that are not numbers, infinite or tiny; rotations that are not unit.
        Frame {
            epoch: 0,
            step: 0,
            time: f64::NAN,
            poses: vec![
                pose(1, [f32::NAN, f32::INFINITY, f32::NEG_INFINITY], [0.0; 4]),
                pose(2, [f32::MIN_POSITIVE / 2.0, -0.0, f32::MAX], [f32::NAN, 0.0, 0.0, 1.0]),
                pose(3, [1.0; 3], [3.0, 4.0, 0.0, 0.0]),
                pose(4, [1.0; 3], [0.0, 0.0, 0.0, -1.0]),
                pose(5, [1.0; 3], [f32::INFINITY, 1.0, 0.0, 0.0]),
                pose(6, [1.0; 3], [1.0, 1.0, 1.0, 1.0]),
            ],
        },
        Frame { epoch: 7, step: 3, time: f64::INFINITY, poses: vec![pose(9, [0.0; 3], [1e-30, 0.0, 0.0, 0.0])] },
    ];
    let mut rng = Rng::new(0x00f4_a3e5);
    for i in 0..48u32 {
        let count = *rng.pick(&[0usize, 1, 2, 3, 5, 8, 20, 64, 300]);
        let mut id = 0u32;
        let poses = (0..count)
            .map(|_| {
                let gap = if rng.one_in(6) { rng.below(100_000) } else { rng.below(3) };
                let this = id.saturating_add(gap as u32).min(u32::MAX - 2);
                id = this + 1;
                let scale = *rng.pick(&[1.0f32, 50.0, 1e6]);
                pose(
                    this,
                    [rng.unit() * scale, rng.unit() * scale, rng.unit() * scale],
                    [rng.unit(), rng.unit(), rng.unit(), rng.unit()],
                )
            })
            .collect();
        frames.push(Frame { epoch: i % 5, step: rng.next() >> rng.below(64), time: f64::from(i) * 0.25, poses });
    }
    frames.iter().map(Frame::encode).collect()
}

/// The angle between two rotations, radians, each normalized first (q and -q are the
/// same rotation). From the chord, which stays accurate for tiny angles.
fn angle_between(a: [f32; 4], b: [f32; 4]) -> f64 {
    let normalized = |q: [f32; 4]| {
        let q = q.map(f64::from);
        let norm = q.iter().map(|c| c * c).sum::<f64>().sqrt();
        q.map(|c| c / norm)
    };
    let (a, b) = (normalized(a), normalized(b));
    let chord = |sign: f64| a.iter().zip(b).map(|(x, y)| (x - sign * y).powi(2)).sum::<f64>().sqrt();
    4.0 * (chord(1.0).min(chord(-1.0)) / 2.0).min(1.0).asin()
}

/// Decodes; an accepted frame must survive a round trip, a refusal must say why.
fn check_frame(bytes: &[u8]) -> Result<bool, String> {
    check_frame_with(bytes, &LinkTable::default())
}

/// Decodes with a fresh decoder holding `links`; an accepted frame must survive a round
/// trip, a refusal must say why.
fn check_frame_with(bytes: &[u8], links: &LinkTable) -> Result<bool, String> {
    let decode = |bytes: &[u8]| {
        let mut decoder = FrameDecoder::new();
        decoder.set_links(links.links()).expect("usable links");
        decoder.decode(bytes)
    };
    let frame = match decode(bytes) {
        Err(error) if error.to_string().is_empty() => return Err(format!("refused without a message: {error:?}")),
        Err(_) => return Ok(false),
        Ok(frame) => frame,
    };
    let again = decode(&frame.encode_with(links, None)).map_err(|e| format!("its re-encoding was refused: {e}"))?;
    if (again.epoch, again.step, again.time.to_bits()) != (frame.epoch, frame.step, frame.time.to_bits()) {
        return Err(format!("header changed in a round trip: {frame:?} became {again:?}"));
    }
    if again.poses.len() != frame.poses.len() {
        return Err(format!("{} poses became {}", frame.poses.len(), again.poses.len()));
    }
    for (a, b) in frame.poses.iter().zip(&again.poses) {
        // A body placed by its joint is placed again from its coordinate read back from
        // its placed pose, the same, but from a root body whose rotation may have moved
        // as any rotation does (below): by up to that angle at the body's distance from
        // the root, plus the `f32` rounding of far positions. A slider placed from a
        // parent somewhere not finite has no distance to read back.
        let find = |id: BodyId| frame.poses.iter().find(|p| p.id == id);
        let linked = links.link_of(a.id.0).is_some_and(|link| {
            let mut root = link.parent;
            while let Some(up) = links.link_of(root.0) {
                root = up.parent;
            }
            let Some(root) = find(root).filter(|p| p.position.iter().all(|c| c.is_finite())) else { return true };
            if !find(link.parent).is_some_and(|p| p.position.iter().all(|c| c.is_finite())) {
                return true;
            }
            let lever = (0..3).map(|k| (a.position[k] - root.position[k]).powi(2)).sum::<f32>().sqrt();
            let allowed =
                ROTATION_TOLERANCE as f32 * (1.0 + lever) + 1e-6 * a.position.iter().fold(0f32, |m, c| m.max(c.abs()));
            (0..3).all(|k| {
                a.position[k].to_bits() == b.position[k].to_bits() || (a.position[k] - b.position[k]).abs() <= allowed
            })
        });
        if a.id != b.id || (a.position.map(f32::to_bits) != b.position.map(f32::to_bits) && !linked) {
            return Err(format!("pose changed in a round trip: {a:?} became {b:?}"));
        }
        let drift = angle_between(a.rotation, b.rotation);
        // NaN fails too.
        if drift.is_nan() || drift > ROTATION_TOLERANCE {
            return Err(format!("rotation drifted {drift} rad in a round trip: {a:?} became {b:?}"));
        }
    }
    Ok(true)
}

#[test]
fn frame_decoder_survives_mutations() {
    let corpus = frame_corpus();
    let executions = iterations();
    let mut accepted = 0;
    for case in 0..executions {
        let mut rng = Rng::new(case);
        let input = if rng.one_in(32) {
            // Random bytes, half of them behind a valid magic and format (1 or 2).
            let mut bytes: Vec<u8> = match rng.below(4) {
                0 => b"VF\x01".to_vec(),
                1 => vec![2],
                _ => Vec::new(),
            };
            let len = rng.below(96);
            bytes.extend((0..len).map(|_| rng.byte()));
            bytes
        } else {
            let mut bytes = rng.pick(&corpus).clone();
            let other = rng.pick(&corpus);
            mutate_bytes(&mut rng, &mut bytes, other, FRAME_TOKENS);
            bytes
        };
        accepted += u64::from(run_case("frames", case, &input, check_frame));
    }
    report("frames", executions, accepted);
}

// ---------------------------------------------------------------------------------------
// Binary frames with bodies placed by their joint.

/// Coordinate kinds, and pose kinds, a mutation may write over a kind byte.
const LINK_TOKENS: &[&[u8]] = &[b"\x10", b"\x11", b"\x12", b"\x13", b"\x01\x11", b"\x01\x12\x80\x80\x08", b"\x0a"];

/// A chassis 0 on two wheels 1 and 2, a lift 3 on it carrying an arm 4 ← 5, and a
/// wheel 8 on body 7: hinges and sliders, in chains.
fn fuzz_links() -> &'static LinkTable {
    static LINKS: OnceLock<LinkTable> = OnceLock::new();
    LINKS.get_or_init(|| {
        let link = |child: u32, parent: u32, kind: JointLinkKind, at: [f32; 3]| JointLink {
            child: BodyId(child),
            parent: BodyId(parent),
            kind,
            parent_frame: Pose { position: at, rotation: [0.0, -0.707_106_77, 0.0, 0.707_106_77] },
            child_frame: Pose { position: [0.0, -0.1, 0.0], rotation: [0.0, -0.707_106_77, 0.0, 0.707_106_77] },
            axis: [1.0, 0.0, 0.0],
        };
        LinkTable::new(vec![
            link(1, 0, JointLinkKind::Hinge, [0.0, 0.0, 0.12]),
            link(2, 0, JointLinkKind::Hinge, [0.0, 0.0, -0.12]),
            link(3, 0, JointLinkKind::Slider, [0.0, 0.1, 0.0]),
            link(4, 3, JointLinkKind::Hinge, [0.0, 0.3, 0.0]),
            link(5, 4, JointLinkKind::Hinge, [0.0, 0.25, 0.0]),
            link(8, 7, JointLinkKind::Hinge, [0.2, 0.0, 0.0]),
        ])
        .expect("parents first")
    })
}

/// Valid frames of the linked bodies: parents anywhere (on the grid, beyond it, not
/// finite), coordinates of every size, some bodies left out.
fn linked_frame_corpus() -> Vec<Vec<u8>> {
    let links = fuzz_links();
    let mut rng = Rng::new(0x11_4e5);
    let mut frames = Vec::new();
    for i in 0..48u32 {
        let mut poses: Vec<BodyPose> = Vec::new();
        for root in [0u32, 6, 7] {
            let scale = *rng.pick(&[1.0f32, 50.0, 1e6]);
            let position = if rng.one_in(16) {
                [f32::NAN, 0.0, f32::INFINITY]
            } else {
                [rng.unit() * scale, rng.unit() * scale, rng.unit() * scale]
            };
            poses.push(pose(root, position, [rng.unit(), rng.unit(), rng.unit(), rng.unit()]));
        }
        for link in links.links() {
            let parent = *poses.iter().find(|p| p.id == link.parent).expect("parents first");
            let coordinate = match link.kind {
                JointLinkKind::Hinge => f64::from(rng.unit()) * 10.0,
                JointLinkKind::Slider => f64::from(rng.unit()) * *rng.pick(&[0.5, 3.0 * MAX_GRID_METRES]),
            };
            poses.push(link.child_pose(&parent, coordinate));
        }
        poses.retain(|_| !rng.one_in(5));
        poses.sort_unstable_by_key(|p| p.id);
        frames.push(Frame { epoch: i % 3, step: rng.next() >> rng.below(64), time: f64::from(i) * 0.25, poses });
    }
    frames.iter().map(|frame| frame.encode_with(links, None)).collect()
}

fn check_linked_frame(bytes: &[u8]) -> Result<bool, String> {
    check_frame_with(bytes, fuzz_links())
}

#[test]
fn linked_frame_decoder_survives_mutations() {
    let corpus = linked_frame_corpus();
    let tokens: Vec<&[u8]> = FRAME_TOKENS.iter().chain(LINK_TOKENS).copied().collect();
    let executions = iterations();
    let mut accepted = 0;
    for case in 0..executions {
        let mut rng = Rng::new(case ^ 0x1111_0000);
        let mut bytes = rng.pick(&corpus).clone();
        let other = rng.pick(&corpus);
        mutate_bytes(&mut rng, &mut bytes, other, &tokens);
        accepted += u64::from(run_case("linked frames", case, &bytes, check_linked_frame));
    }
    report("linked frames", executions, accepted);
}

// ---------------------------------------------------------------------------------------
// JSON client messages.

const JSON_TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b",",
    b":",
    b"\\",
    b"\\u",
    b"\\ud800",
    b"\\udc00\\ud800",
    b"\\u0000",
    b"\\u202e",
    "\u{202e}".as_bytes(),
    "\u{feff}".as_bytes(),
    b"\xff\xfe",
    b"\xc0\x80",     // overlong NUL
    b"\xed\xa0\x80", // a surrogate in UTF-8
    b"null",
    b"true",
    b"-0",
    b"1e400",
    b"-1e400",
    b"1e-400",
    b"18446744073709551616",
    b"340282366920938463463374607431768211456",
    b"0.1e1",
    b"01",
    b".5",
    b"NaN",
    b"Infinity",
    b"\"type\":",
    b"\"type\":\"ping\",",
    b"\"nonce\":1,",
    b"\"action\":\"step\",",
    b"\"steps\":",
    b"\"rate\":\"max\"",
    b"\"keys\":[",
    b"/*",
    b"\t\r\n ",
];

fn client_corpus() -> Vec<Value> {
    let many_keys: Vec<String> = (0..MAX_KEYS_HELD).map(|i| format!("KEY{i}")).collect();
    let control = |command| ClientMsg::Control { command };
    let messages = vec![
        control(ControlAction::Pause),
        control(ControlAction::Resume),
        control(ControlAction::Reset),
        control(ControlAction::Step { steps: 1 }),
        control(ControlAction::Step { steps: MAX_STEPS_PER_COMMAND }),
        control(ControlAction::Step { steps: 0 }),
        control(ControlAction::Step { steps: u32::MAX }),
        control(ControlAction::Rate { rate: Rate::Max }),
        control(ControlAction::Rate { rate: Rate::RealTime(1.0) }),
        control(ControlAction::Rate { rate: Rate::RealTime(0.1) }),
        control(ControlAction::Rate { rate: Rate::RealTime(10.0) }),
        control(ControlAction::Rate { rate: Rate::RealTime(2.5) }),
        ClientMsg::Subscribe { robot: "bot".into() },
        ClientMsg::Subscribe { robot: "robot_ana_1".into() },
        ClientMsg::Subscribe { robot: "\u{202e}tob_ana".into() },
        ClientMsg::Unsubscribe { robot: "日本語のロボット".into() },
        ClientMsg::Keys { robot: "bot".into(), keys: vec![] },
        ClientMsg::Keys { robot: "bot".into(), keys: vec!["I".into(), "ARROWUP".into(), "SPACE".into()] },
        ClientMsg::Keys { robot: "tank".into(), keys: many_keys },
        ClientMsg::Ping { nonce: 0 },
        ClientMsg::Ping { nonce: u64::MAX },
        ClientMsg::Ping { nonce: 1_234_567 },
    ];
    messages.iter().map(|m| serde_json::to_value(m).expect("a client message serializes")).collect()
}

/// Strings a field may be given: names of real variants and actions in other cases,
/// controls, bidirectional overrides, emoji, combining marks.
const ODD_STRINGS: &[&str] = &[
    "",
    "ping",
    "PING",
    "Ping",
    "control",
    "keys",
    "subscribe",
    "unsubscribe",
    "step",
    "rate",
    "pause",
    "max",
    "MAX",
    "teleport",
    "\u{202e}",
    "bot\u{202e}gnp.exe",
    "\u{0}",
    "a\u{0}b",
    "\u{feff}",
    "\u{fffd}",
    "\u{ffff}",
    "🤖🦀",
    "e\u{301}\u{301}\u{301}",
    "../../etc/passwd",
    "<script>",
    " ",
    "\n",
];

/// A random value of some type: numbers at their limits, odd strings, small containers.
fn odd_value(rng: &mut Rng) -> Value {
    match rng.below(12) {
        0 => Value::Null,
        1 => Value::Bool(rng.one_in(2)),
        2 => json!(*rng.pick(&[0i64, -1, 1, i64::MIN, i64::MAX, i64::from(u32::MAX) + 1, 100_001])),
        3 => json!(u64::MAX),
        4 => json!(*rng.pick(&[1.5f64, -0.0, 1e308, -1e308, f64::MIN_POSITIVE, 5e-324, 0.099_999, 10.000_001])),
        5 | 6 => Value::String((*rng.pick(ODD_STRINGS)).to_owned()),
        7 => Value::String(long_string(rng)),
        8 => json!([]),
        9 => json!({}),
        10 => json!([1, "I", null, {"type": "ping"}]),
        _ => json!({"type": "ping", "nonce": 1}),
    }
}

/// Mostly a few hundred characters; now and then 64 KiB or more (four times what a
/// client may send over the websocket).
fn long_string(rng: &mut Rng) -> String {
    let len = if rng.one_in(16) { 65_536 + rng.below(4096) } else { 1 + rng.below(600) };
    let piece = *rng.pick(&["A", "é", "\u{202e}", "🤖", "\\", "\""]);
    piece.repeat(len)
}

/// A random node of `value`: the root, or somewhere down its containers.
fn random_node<'a>(rng: &mut Rng, value: &'a mut Value) -> &'a mut Value {
    let descend = match value {
        Value::Object(map) if !map.is_empty() && !rng.one_in(3) => Some(rng.below(map.len())),
        Value::Array(items) if !items.is_empty() && !rng.one_in(3) => Some(rng.below(items.len())),
        _ => None,
    };
    match (descend, value) {
        (Some(i), Value::Object(map)) => random_node(rng, map.values_mut().nth(i).expect("index below len")),
        (Some(i), Value::Array(items)) => random_node(rng, &mut items[i]),
        (_, value) => value,
    }
}

/// One structural edit: wrong types, limits of numbers, unknown, missing or renamed
/// fields, odd strings, repeated elements, a few levels of extra nesting.
fn mutate_value(rng: &mut Rng, root: &mut Value) {
    let node = random_node(rng, root);
    match (rng.below(8), node) {
        (0, node) => *node = odd_value(rng),
        (1, Value::Object(map)) => {
            let key =
                *rng.pick(&["extra", "Type", "type ", "TYPE", "nonce", "steps", "rate", "robot", "keys", "action"]);
            map.insert(key.to_owned(), odd_value(rng));
        }
        (2, Value::Object(map)) if !map.is_empty() => {
            let key = map.keys().nth(rng.below(map.len())).expect("index below len").clone();
            let value = map.remove(&key).expect("key present");
            if rng.one_in(2) {
                // Renamed rather than removed.
                let renamed = if rng.one_in(2) { key.to_uppercase() } else { format!("{key}\u{202e}") };
                map.insert(renamed, value);
            }
        }
        (3, Value::Array(items)) => {
            let extra = odd_value(rng);
            let times = if rng.one_in(4) { 1 + rng.below(200) } else { 1 };
            let element = items.first().cloned().filter(|_| rng.one_in(2)).unwrap_or(extra);
            items.extend(std::iter::repeat_n(element, times));
        }
        (4, Value::String(text)) => {
            let odd = *rng.pick(ODD_STRINGS);
            match rng.below(3) {
                0 => text.push_str(odd),
                1 => text.insert_str(0, odd),
                _ => *text = text.to_uppercase(),
            }
        }
        (5, node) => {
            let levels = 1 + rng.below(8);
            for _ in 0..levels {
                let inner = node.take();
                *node =
                    if rng.one_in(2) { json!([inner]) } else { Value::Object(Map::from_iter([("a".into(), inner)])) };
            }
        }
        (6, Value::Object(map)) => {
            // Another variant's `type`, or a field moved to another message.
            let ty = *rng.pick(&["ping", "control", "keys", "subscribe", "unsubscribe", "pong", "hello", ""]);
            map.insert("type".into(), Value::String(ty.into()));
        }
        (_, node) if node.is_number() => *node = edge_number(rng),
        (_, node) => *node = odd_value(rng),
    }
}

/// Numbers at the edges of the fields' types (`u32` steps, `u64` nonces, `f64` rates).
fn edge_number(rng: &mut Rng) -> Value {
    match rng.below(6) {
        0 => json!(u64::from(u32::MAX) + 1),
        1 => json!(-1),
        2 => json!(u64::MAX),
        3 => json!(1e300),
        4 => json!(0.5),
        _ => json!(i64::MIN),
    }
}

/// Texts serde_json must refuse without exhausting the stack or the memory: nesting
/// past its limit, duplicate fields, two messages in one.
fn special_json(rng: &mut Rng, base: &[u8]) -> Vec<u8> {
    match rng.below(4) {
        0 => {
            let depth = 1 + rng.below(MAX_NESTING);
            let (open, close) = if rng.one_in(2) { ("[", "]") } else { ("{\"a\":", "}") };
            let inner = format!("{}\"I\"{}", open.repeat(depth), close.repeat(depth));
            let field = *rng.pick(&["keys", "nonce", "command", "robot", "steps"]);
            format!("{{\"type\":\"keys\",\"robot\":\"b\",\"{field}\":{inner}}}").into_bytes()
        }
        1 => {
            let depth = 1 + rng.below(MAX_NESTING);
            let unclosed = if rng.one_in(2) { depth } else { 0 };
            format!("{}{}", "[".repeat(depth), "]".repeat(depth - unclosed)).into_bytes()
        }
        2 => {
            // A field given twice.
            let mut text = b"{\"type\":\"ping\",\"nonce\":1,".to_vec();
            text.extend_from_slice(&base[base.len().min(1)..]);
            text
        }
        _ => {
            let mut text = base.to_vec();
            text.extend_from_slice(base);
            text
        }
    }
}

/// Changes that mostly keep a message valid (a letter of an escape such as `\n` can
/// change its meaning), so the accepting side of the decoder is explored too: other
/// names, keys, nonces, step counts and rates; letters written as `\u` escapes;
/// whitespace between tokens; pretty printing.
fn benign(rng: &mut Rng, mut value: Value) -> Vec<u8> {
    if let Value::Object(map) = &mut value {
        for (key, field) in map.iter_mut() {
            match (key.as_str(), field) {
                ("robot", field) => *field = Value::String((*rng.pick(ODD_STRINGS)).to_owned()),
                ("keys", Value::Array(keys)) => {
                    keys.truncate(rng.below(keys.len() + 1));
                    keys.push(Value::String((*rng.pick(ODD_STRINGS)).to_owned()));
                }
                ("nonce", field) => *field = json!(rng.next() >> rng.below(64)),
                ("command", Value::Object(command)) => {
                    if let Some(steps) = command.get_mut("steps") {
                        *steps = json!(rng.next() as u32 >> rng.below(32));
                    }
                    if let Some(rate @ Value::Number(_)) = command.get_mut("rate") {
                        *rate = json!(f64::from(rng.unit()) * 1e3);
                    }
                }
                _ => {}
            }
        }
    }
    let mut text = if rng.one_in(4) { serde_json::to_vec_pretty(&value) } else { serde_json::to_vec(&value) }
        .expect("a Value serializes");
    let edits = 1 + rng.below(4);
    for _ in 0..edits {
        let at = rng.below(text.len());
        match text[at] {
            // Outside strings only `true`, `false` and `null` have letters, and messages have none.
            b @ b'a'..=b'z' => {
                text.splice(at..=at, format!("\\u{:04x}", b).bytes());
            }
            b',' | b':' | b'{' | b'[' => {
                let space = *rng.pick(&[&b" "[..], b"\n", b"\t\r\n  "]);
                text.splice(at + 1..at + 1, space.iter().copied());
            }
            _ => {}
        }
    }
    text
}

/// Decodes; an accepted message must serialize back to itself, and `from_str` (the
/// server's websocket path) must agree wherever the bytes are text.
fn check_client_message(bytes: &[u8]) -> Result<bool, String> {
    let decoded = serde_json::from_slice::<ClientMsg>(bytes);
    if let Ok(text) = std::str::from_utf8(bytes) {
        let as_text = serde_json::from_str::<ClientMsg>(text);
        if as_text.as_ref().ok() != decoded.as_ref().ok() {
            return Err(format!("from_str gave {as_text:?} where from_slice gave {decoded:?}"));
        }
    }
    let message = match decoded {
        Err(error) if error.to_string().is_empty() => return Err(format!("refused without a message: {error:?}")),
        Err(_) => return Ok(false),
        Ok(message) => message,
    };
    let json = serde_json::to_string(&message).map_err(|e| format!("{message:?} does not serialize: {e}"))?;
    let again: ClientMsg =
        serde_json::from_str(&json).map_err(|e| format!("its serialization {json} is refused: {e}"))?;
    if again != message {
        return Err(format!("{message:?} became {again:?} through {json}"));
    }
    Ok(true)
}

#[test]
fn client_message_decoder_survives_mutations() {
    let corpus = client_corpus();
    let texts: Vec<Vec<u8>> = corpus.iter().map(|v| serde_json::to_vec(v).expect("serializes")).collect();
    let executions = iterations();
    let mut accepted = 0;
    for case in 0..executions {
        let mut rng = Rng::new(case ^ 0x6a50_0000_0000);
        let which = rng.below(corpus.len());
        let other = rng.pick(&texts);
        let input = match rng.below(20) {
            0..=3 => benign(&mut rng, corpus[which].clone()),
            4..=11 => {
                let mut value = corpus[which].clone();
                let edits = 1 + rng.below(3);
                for _ in 0..edits {
                    mutate_value(&mut rng, &mut value);
                }
                serde_json::to_vec(&value).expect("a Value serializes")
            }
            12..=16 => {
                let mut bytes = texts[which].clone();
                mutate_bytes(&mut rng, &mut bytes, other, JSON_TOKENS);
                bytes
            }
            17 => {
                let mut value = corpus[which].clone();
                mutate_value(&mut rng, &mut value);
                let mut bytes = serde_json::to_vec(&value).expect("a Value serializes");
                mutate_bytes(&mut rng, &mut bytes, other, JSON_TOKENS);
                bytes
            }
            18 => special_json(&mut rng, &texts[which]),
            _ => {
                let len = rng.below(64);
                (0..len)
                    .map(|_| if rng.one_in(2) { *rng.pick(b"{}[]\":,0123456789.-eE ntrufals\\") } else { rng.byte() })
                    .collect()
            }
        };
        accepted += u64::from(run_case("client_json", case, &input, check_client_message));
    }
    report("client_json", executions, accepted);
}
