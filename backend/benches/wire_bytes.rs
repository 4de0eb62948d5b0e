//! `cargo bench -p vlab-server --bench wire_bytes`: how many bytes a viewer receives,
//! frame format 1 beside format 2, and format 2 with wheels sent as their joint angle
//! (the scene's joint links), in the same run.
//!
//! The demo lab runs with its robots driving for a few seconds of simulation time;
//! frames are built every 4 steps (60 frames/s at 240 Hz), as the lab builds them, and
//! published through a real hub to an up-to-date viewer (which takes every frame) and
//! to a slow one (which takes every fourth, so gets merged frames), and through a second
//! hub that knows the scene's joint links to two such viewers holding the links. Then
//! the same with synthetic rooms of 5 to 400 moving bodies, and of robots on two
//! wheels. Prints figures, asserts nothing; the last column is the time the
//! up-to-date viewer holding the links took to decode a frame (what a page and the load
//! tool pay for each frame they receive).

use vlab_protocol::{BodyId, BodyPose, Frame, FrameDecoder, JointLink, JointLinkKind, LinkTable, Pose};
use vlab_server::lab::frames::FrameBuilder;
use vlab_server::lab::hub::Hub;
use vlab_server::lab::wire;
use vlab_server::scene::demo_scene;
use vlab_server::sim::World;

/// Steps per frame: 240 Hz physics, 60 Hz frames.
const STEPS_PER_FRAME: u64 = 4;
/// Seconds the props take to fall and settle before measuring.
const SETTLE_SECS: f64 = 2.0;
/// Seconds of simulation measured.
const MEASURE_SECS: f64 = 20.0;
/// The slow viewer takes one frame in this many.
const SLOW_EVERY: u64 = 4;

/// What a run of frames cost.
#[derive(Default)]
struct Tally {
    frames: u64,
    poses: u64,
    format1: u64,
    shared: u64,
    slow: u64,
    /// The shared encoding with joint links.
    linked: u64,
    /// Time the up-to-date viewer holding the links spent decoding.
    linked_decode: std::time::Duration,
}

impl Tally {
    fn print(&self, label: &str, seconds: f64) {
        let per_s = |bytes: u64| bytes as f64 / seconds;
        let moving = self.poses as f64 / self.frames as f64;
        println!(
            "{label:<22} {:>6.1} {:>8.1} {:>10.0} {:>10.0} {:>8.1}× {:>10.0} {:>10.1} {:>10.1} {:>10.0} {:>11.2}",
            self.frames as f64 / seconds,
            moving,
            per_s(self.format1),
            per_s(self.shared),
            self.format1 as f64 / self.shared as f64,
            per_s(self.slow),
            per_s(self.format1) / moving,
            per_s(self.shared) / moving,
            per_s(self.linked),
            self.linked_decode.as_secs_f64() * 1e6 / self.frames as f64,
        );
    }
}

fn header() {
    println!(
        "{:<22} {:>6} {:>8} {:>10} {:>10} {:>9} {:>10} {:>10} {:>10} {:>10} {:>11}",
        "",
        "fps",
        "moving",
        "fmt1 B/s",
        "fmt2 B/s",
        "ratio",
        "slow B/s",
        "fmt1 B/s/b",
        "fmt2 B/s/b",
        "links B/s",
        "decode µs"
    );
}

/// A hub with an up-to-date and a slow viewer.
struct Audience {
    hub: Hub,
    fast: vlab_server::lab::hub::Subscription,
    slow: vlab_server::lab::hub::Subscription,
    fast_decoder: FrameDecoder,
    slow_decoder: FrameDecoder,
}

impl Audience {
    fn new(keyframe: Frame, links: &LinkTable) -> Audience {
        let hub = Hub::new("{}".into(), links.clone(), keyframe);
        let (fast, slow) = (hub.join(), hub.join());
        let mut audience =
            Audience { hub, fast, slow, fast_decoder: FrameDecoder::new(), slow_decoder: FrameDecoder::new() };
        for (sub, decoder) in
            [(&audience.fast, &mut audience.fast_decoder), (&audience.slow, &mut audience.slow_decoder)]
        {
            decoder.set_links(links.links()).expect("usable links");
            let keyframe = sub.mailbox.take().frame.expect("a keyframe on joining").into_bytes();
            decoder.decode(&keyframe).expect("the keyframe decodes");
        }
        audience
    }

    /// Publishes `frame`; returns the bytes of the shared encoding and of the slow
    /// viewer's merged frame, if it took one, and how long the fast viewer took to decode
    /// its frame. Checks that both decoders follow.
    fn publish(&mut self, frame: Frame, index: u64) -> (u64, u64, std::time::Duration) {
        self.hub.publish_frame(frame);
        let bytes = self.fast.mailbox.take().frame.expect("a frame for the fast viewer").into_bytes();
        let started = std::time::Instant::now();
        let decoded = self.fast_decoder.decode(&bytes);
        let decoding = started.elapsed();
        std::hint::black_box(decoded).expect("the fast viewer decodes every frame");
        let mut slow = 0;
        if index.is_multiple_of(SLOW_EVERY) {
            let merged = self.slow.mailbox.take().frame.expect("a merged frame for the slow viewer").into_bytes();
            self.slow_decoder.decode(&merged).expect("the slow viewer decodes its merged frame");
            slow = merged.len() as u64;
        }
        (bytes.len() as u64, slow, decoding)
    }
}

/// Publishes each frame to a hub without joint links and to one with the scene's, each
/// with an up-to-date and a slow viewer, and adds what they received.
struct Viewers {
    plain: Audience,
    linked: Audience,
}

impl Viewers {
    fn new(keyframe: Frame, links: &LinkTable) -> Viewers {
        Viewers {
            plain: Audience::new(keyframe.clone(), &LinkTable::default()),
            linked: Audience::new(keyframe, links),
        }
    }

    fn publish(&mut self, frame: Frame, index: u64, tally: &mut Tally) {
        tally.frames += 1;
        tally.poses += frame.poses.len() as u64;
        tally.format1 += frame.encode_format1().len() as u64;
        let (shared, slow, _) = self.plain.publish(frame.clone(), index);
        tally.shared += shared;
        tally.slow += slow;
        let (linked, _, decoding) = self.linked.publish(frame, index);
        tally.linked += linked;
        tally.linked_decode += decoding;
    }
}

fn demo_lab() {
    let model = demo_scene(1);
    let mut world = World::build(&model).expect("the demo builds");
    let links = wire::link_table(&wire::snapshot(&model, &world, 0));
    let (mut frames, keyframe) = FrameBuilder::start(&world, 0);
    let mut viewers = Viewers::new(keyframe, &links);
    let dt = model.dt_secs;
    let mut step = 0u64;
    for (label, seconds) in [("demo, settling", SETTLE_SECS), ("demo, robots driving", MEASURE_SECS)] {
        let mut tally = Tally::default();
        for _ in 0..(seconds / dt) as u64 {
            world.step();
            step += 1;
            if step.is_multiple_of(STEPS_PER_FRAME) {
                let frame = frames.next_frame(&world, 0, step, step as f64 * dt);
                viewers.publish(frame, step / STEPS_PER_FRAME, &mut tally);
            }
        }
        tally.print(label, seconds);
    }
}

/// `count` bodies driving about a 20 m room at up to 1 m/s and turning, all moving
/// every frame (the worst case: nothing rests).
fn synthetic(count: u32) {
    let frame_at = |k: u64| {
        let t = k as f32 / 60.0;
        let poses = (0..count)
            .map(|i| {
                let f = i as f32;
                let radius = 1.0 + (f * 0.37).sin().abs() * 8.0;
                let speed = 0.2 + (f * 0.71).cos().abs() * 0.8;
                let angle = f + t * speed / radius;
                let half = 0.5 * (angle + std::f32::consts::FRAC_PI_2);
                BodyPose {
                    id: BodyId(i),
                    position: [radius * angle.cos(), 0.05, radius * angle.sin()],
                    rotation: [0.0, -half.sin(), 0.0, half.cos()],
                }
            })
            .collect();
        Frame { epoch: 0, step: k * STEPS_PER_FRAME, time: k as f64 / 60.0, poses }
    };
    let mut viewers = Viewers::new(frame_at(0), &LinkTable::default());
    let mut tally = Tally::default();
    let frames = (MEASURE_SECS * 60.0) as u64;
    for k in 1..=frames {
        viewers.publish(frame_at(k), k, &mut tally);
    }
    tally.print(&format!("{count} bodies driving"), MEASURE_SECS);
}

/// `count` robots, each a chassis on two wheels (10 cm across, on hinges), driving
/// circles about a 20 m room at up to 1 m/s, the wheels rolling without slipping.
fn wheeled(count: u32) {
    const RADIUS: f32 = 0.05;
    const HALF_TRACK: f32 = 0.12;
    let axle = std::f32::consts::FRAC_1_SQRT_2;
    let wheel = |robot: u32, side: f32| JointLink {
        child: BodyId(3 * robot + if side > 0.0 { 1 } else { 2 }),
        parent: BodyId(3 * robot),
        kind: JointLinkKind::Hinge,
        // The joint frame's X along the chassis' Z (the axle).
        parent_frame: Pose { position: [0.0, 0.0, side * HALF_TRACK], rotation: [0.0, -axle, 0.0, axle] },
        child_frame: Pose { position: [0.0; 3], rotation: [0.0, -axle, 0.0, axle] },
        axis: [1.0, 0.0, 0.0],
    };
    let links = LinkTable::new((0..count).flat_map(|r| [wheel(r, 1.0), wheel(r, -1.0)]).collect()).unwrap();
    let frame_at = |k: u64| {
        let t = k as f32 / 60.0;
        let mut poses = Vec::new();
        for r in 0..count {
            let f = r as f32;
            let radius = 1.0 + (f * 0.37).sin().abs() * 8.0;
            let speed = 0.2 + (f * 0.71).cos().abs() * 0.8;
            let angle = f + t * speed / radius;
            let half = 0.5 * (angle + std::f32::consts::FRAC_PI_2);
            let chassis = BodyPose {
                id: BodyId(3 * r),
                position: [radius * angle.cos(), RADIUS, radius * angle.sin()],
                rotation: [0.0, -half.sin(), 0.0, half.cos()],
            };
            poses.push(chassis);
            for (link, side) in links.links()[2 * r as usize..2 * r as usize + 2].iter().zip([1.0f32, -1.0]) {
                // Each wheel rolls its own circle's arc: the outer one a little faster.
                let rolled = t * speed * (radius + side * HALF_TRACK) / radius / RADIUS;
                poses.push(link.child_pose(&chassis, f64::from(-rolled)));
            }
        }
        Frame { epoch: 0, step: k * STEPS_PER_FRAME, time: k as f64 / 60.0, poses }
    };
    let mut viewers = Viewers::new(frame_at(0), &links);
    let mut tally = Tally::default();
    for k in 1..=(MEASURE_SECS * 60.0) as u64 {
        viewers.publish(frame_at(k), k, &mut tally);
    }
    tally.print(&format!("{count} robots on wheels"), MEASURE_SECS);
}

fn main() {
    println!("VLab bench: bytes a viewer receives a second, frame format 1 beside format 2");
    println!(
        "(fps: frames/s; moving: poses a frame; fmt2: the shared encoding an up-to-date viewer gets; slow: a viewer \
         taking one frame in {SLOW_EVERY}, merged; B/s/b: per moving body; links: fmt2 with wheels sent as their \
         joint angle)"
    );
    println!();
    header();
    demo_lab();
    for count in [5, 25, 100, 400] {
        synthetic(count);
    }
    for count in [5, 25, 100] {
        wheeled(count);
    }
}
