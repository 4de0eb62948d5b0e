//! `cargo bench -p vlab-server` (or `cargo xtask bench`): how long the demo lab's
//! steps take and how big its frames are, binary next to JSON.
//!
//! Prints figures rather than asserting them: timings are for reading, not for tests.

mod common;

use std::time::Instant;

use vlab_server::lab::frames::FrameBuilder;
use vlab_server::lab::hub::Hub;
use vlab_server::lab::wire;
use vlab_server::scene::demo_scene;
use vlab_server::sim::World;

/// Steps per frame at real time: 240 Hz physics, 60 Hz frames.
const STEPS_PER_FRAME: u64 = 4;
const VIEWERS: usize = 30;

fn main() {
    let model = demo_scene(1);
    let dt = model.dt_secs;
    let mut world = World::build(&model).expect("the demo builds");
    let snapshot = wire::snapshot(&model, &world, 0);
    let snapshot_json = wire::snapshot_json(&snapshot);
    let (mut frames, keyframe) = FrameBuilder::start(&world, 0);
    let hub = Hub::new(snapshot_json.clone(), wire::link_table(&snapshot), keyframe.clone());
    // Viewers that never read: the worst case for the hub (every frame merges).
    let viewers: Vec<_> = (0..VIEWERS).map(|_| hub.join()).collect();

    println!(
        "VLab bench: demo lab (seed 1), {} bodies, {} joints, dt = 1/{:.0} s",
        world.body_count(),
        model.joints.len(),
        1.0 / dt
    );
    println!("snapshot (JSON, sent once per viewer): {} bytes", snapshot_json.len());
    println!(
        "keyframe ({} moving bodies): binary {} bytes, JSON {} bytes",
        keyframe.poses.len(),
        keyframe.encode().len(),
        serde_json::to_vec(&keyframe).unwrap().len()
    );
    println!();

    let mut step = 0u64;
    for (phase, seconds) in [("settling (props falling, 0–2 s)", 2.0), ("steady (robots driving, 2–12 s)", 10.0)] {
        let steps = (seconds / dt) as u64;
        let mut physics = Vec::with_capacity(steps as usize);
        let mut full = Vec::with_capacity(steps as usize);
        let (mut binary_bytes, mut json_bytes, mut poses, mut frame_count) = (0usize, 0usize, 0usize, 0usize);
        for _ in 0..steps {
            let started = Instant::now();
            world.step();
            step += 1;
            let physics_done = Instant::now();
            if step.is_multiple_of(STEPS_PER_FRAME) {
                let frame = frames.next_frame(&world, 0, step, step as f64 * dt);
                binary_bytes += frame.encode().len();
                json_bytes += serde_json::to_vec(&frame).unwrap().len();
                poses += frame.poses.len();
                frame_count += 1;
                hub.publish_frame(frame);
            }
            let done = Instant::now();
            physics.push(physics_done - started);
            full.push(done - started);
        }
        println!("{phase}: {steps} steps");
        common::report_steps("  physics step", &mut physics, dt);
        common::report_steps("  full step   ", &mut full, dt);
        println!(
            "  frames (every {STEPS_PER_FRAME} steps, fan-out to {VIEWERS} viewers): {:.1} poses, binary {:.0} bytes, JSON {:.0} bytes ({:.1}× smaller)",
            poses as f64 / frame_count as f64,
            binary_bytes as f64 / frame_count as f64,
            json_bytes as f64 / frame_count as f64,
            json_bytes as f64 / binary_bytes as f64,
        );
        println!();
    }
    drop(viewers);
}
