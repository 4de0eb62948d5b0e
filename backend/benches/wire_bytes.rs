//! `cargo bench -p vlab-backend --bench wire_bytes`: how many bytes a viewer receives,
//! frame format 1 beside format 2 in the same run.
//!
//! The demo lab runs with its robots driving for a few seconds of simulation time;
//! frames are built every 4 steps (60 frames/s at 240 Hz), as the lab builds them, and
//! published through a real hub to an up-to-date viewer (which takes every frame) and
//! to a slow one (which takes every fourth, so gets merged frames). Then the same with
//! synthetic rooms of 5 to 400 moving bodies. Prints figures, asserts nothing.

use vlab_backend::lab::frames::FrameBuilder;
use vlab_backend::lab::hub::Hub;
use vlab_backend::scene::demo_scene;
use vlab_backend::sim::World;
use vlab_protocol::{BodyId, BodyPose, Frame, FrameDecoder};

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
}

impl Tally {
    fn print(&self, label: &str, seconds: f64) {
        let per_s = |bytes: u64| bytes as f64 / seconds;
        let moving = self.poses as f64 / self.frames as f64;
        println!(
            "{label:<22} {:>6.1} {:>8.1} {:>10.0} {:>10.0} {:>8.1}× {:>10.0} {:>10.1} {:>10.1}",
            self.frames as f64 / seconds,
            moving,
            per_s(self.format1),
            per_s(self.shared),
            self.format1 as f64 / self.shared as f64,
            per_s(self.slow),
            per_s(self.format1) / moving,
            per_s(self.shared) / moving,
        );
    }
}

fn header() {
    println!(
        "{:<22} {:>6} {:>8} {:>10} {:>10} {:>9} {:>10} {:>10} {:>10}",
        "", "fps", "moving", "fmt1 B/s", "fmt2 B/s", "ratio", "slow B/s", "fmt1 B/s/b", "fmt2 B/s/b"
    );
}

/// Publishes `frame` to a hub with an up-to-date and a slow viewer and adds what each
/// received; checks that both viewers' decoders follow the stream.
struct Viewers {
    hub: Hub,
    fast: vlab_backend::lab::hub::Subscription,
    slow: vlab_backend::lab::hub::Subscription,
    fast_decoder: FrameDecoder,
    slow_decoder: FrameDecoder,
}

impl Viewers {
    fn new(keyframe: Frame) -> Viewers {
        let hub = Hub::new("{}".into(), keyframe);
        let (fast, slow) = (hub.join(), hub.join());
        let mut viewers =
            Viewers { hub, fast, slow, fast_decoder: FrameDecoder::new(), slow_decoder: FrameDecoder::new() };
        for (sub, decoder) in [(&viewers.fast, &mut viewers.fast_decoder), (&viewers.slow, &mut viewers.slow_decoder)] {
            let keyframe = sub.slot.take().frame.expect("a keyframe on joining").into_bytes();
            decoder.decode(&keyframe).expect("the keyframe decodes");
        }
        viewers
    }

    fn publish(&mut self, frame: Frame, index: u64, tally: &mut Tally) {
        tally.frames += 1;
        tally.poses += frame.poses.len() as u64;
        tally.format1 += frame.encode_format1().len() as u64;
        self.hub.publish_frame(frame);
        let bytes = self.fast.slot.take().frame.expect("a frame for the fast viewer").into_bytes();
        self.fast_decoder.decode(&bytes).expect("the fast viewer decodes every frame");
        tally.shared += bytes.len() as u64;
        if index.is_multiple_of(SLOW_EVERY) {
            let bytes = self.slow.slot.take().frame.expect("a merged frame for the slow viewer").into_bytes();
            self.slow_decoder.decode(&bytes).expect("the slow viewer decodes its merged frame");
            tally.slow += bytes.len() as u64;
        }
    }
}

fn demo_lab() {
    let model = demo_scene(1);
    let mut world = World::build(&model).expect("the demo builds");
    let (mut frames, keyframe) = FrameBuilder::start(&world, 0);
    let mut viewers = Viewers::new(keyframe);
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
    let mut viewers = Viewers::new(frame_at(0));
    let mut tally = Tally::default();
    let frames = (MEASURE_SECS * 60.0) as u64;
    for k in 1..=frames {
        viewers.publish(frame_at(k), k, &mut tally);
    }
    tally.print(&format!("{count} bodies driving"), MEASURE_SECS);
}

fn main() {
    println!("VLab bench: bytes a viewer receives a second, frame format 1 beside format 2");
    println!(
        "(fps: frames/s; moving: poses a frame; fmt2: the shared encoding an up-to-date viewer gets; slow: a viewer \
         taking one frame in {SLOW_EVERY}, merged; B/s/b: per moving body)"
    );
    println!();
    header();
    demo_lab();
    for count in [5, 25, 100, 400] {
        synthetic(count);
    }
}
