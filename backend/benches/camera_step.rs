//! `cargo bench -p vlab-server --bench camera_step` (or `cargo xtask bench`): what one
//! camera image costs the lab's thread, per image and per pixel, colour next to depth,
//! at the default size and at the largest allowed, with a lidar scan for scale, in a
//! furnished room; and how big an image is on its way to a program.
//!
//! Prints figures rather than asserting them: timings are for reading, not for tests.

mod common;

use std::time::{Duration, Instant};

use vlab_server::robot::Robots;
use vlab_server::scene;
use vlab_server::sim::World;

/// Images per configuration.
const IMAGES: usize = 60;

/// A 10 m room with four walls, a floor, 24 posts and crates, and one robot in the
/// middle, turned a little, carrying the sensor `{sensor}`.
fn room(sensor: &str) -> String {
    let mut props = String::new();
    for i in 0..24 {
        let (x, z) = (1.0 + (i % 6) as f64 * 1.6, 1.0 + (i / 6) as f64 * 2.6);
        let material = ["Red", "Blue", "Green", "Wood"][i % 4];
        if i % 2 == 0 {
            props += &format!(
                "static post{i} {{ shape cylinder(0.15, 1.2); rotation_axis(1, 0, 0, pi / 2); pos({x}, 0.6, {z}); material \"{material}\"; }}\n"
            );
        } else {
            props += &format!(
                "static crate{i} {{ shape box(0.5, 0.5, 0.5); pos({x}, 0.25, {z}); material \"{material}\"; }}\n"
            );
        }
    }
    format!(
        r#"
        static floor {{ shape box(10, 0.2, 10); pos(5, -0.1, 5); material "Tiles"; }}
        static north {{ shape box(10, 1, 0.2); pos(5, 0.5, -0.1); material "White"; }}
        static south {{ shape box(10, 1, 0.2); pos(5, 0.5, 10.1); material "White"; }}
        static west {{ shape box(0.2, 1, 10); pos(-0.1, 0.5, 5); material "White"; }}
        static east {{ shape box(0.2, 1, 10); pos(10.1, 0.5, 5); material "White"; }}
        {props}
        robot bot {{
          body {{
            static chassis {{ shape box(0.4, 0.2, 0.3); rotation_axis(0, 1, 0, 0.4); pos(5.1, 0.3, 5.3);
                       {sensor} }}
          }}
        }}
    "#
    )
}

/// Microseconds per reading of the robot's one sensor, which reads every step.
fn per_reading(sensor: &str) -> Vec<Duration> {
    // One image every step, to time images: far past a robot's camera budget, which
    // guards a lab's thread in a class.
    let budgets = scene::Budgets { max_camera_rays_per_robot: u64::MAX, ..scene::Budgets::default() };
    let options = scene::Options { budgets, ..scene::Options::default() };
    let model = scene::interpret(&room(sensor), "bench.vlab", &scene::MapLoader::new(), &options)
        .unwrap_or_else(|e| panic!("the bench's room loads: {e:?}"))
        .model;
    let mut world = World::build(&model).expect("the room builds");
    let mut robots = Robots::configure(&model, 1).expect("the robot configures");
    robots.install(&mut world, 0, 0.0);
    let dt = model.dt_secs;
    let mut samples = Vec::with_capacity(IMAGES);
    for step in 1..=IMAGES as u64 {
        world.step();
        let started = Instant::now();
        robots.update_sensors(&world, step, step as f64 * dt);
        samples.push(started.elapsed());
    }
    samples
}

fn main() {
    println!(
        "VLab bench: one sensor's reading in a furnished 10 m room, {IMAGES} readings each (rays through rapier's query index)"
    );
    for (label, sensor, pixels) in [
        ("Camera 160×120 (default)", "Camera eye { rate 240; }", 19_200u32),
        ("DepthCamera 160×120 (default)", "DepthCamera eye { rate 240; }", 19_200),
        ("Camera 160×120, noise 8", "Camera eye { rate 240; noise 8; }", 19_200),
        ("Camera 320×240 (the limit)", "Camera eye { rate 240; width 320; height 240; }", 76_800),
        ("Camera 80×60", "Camera eye { rate 240; width 80; height 60; }", 4_800),
        ("Lidar 361 beams (for scale)", "Lidar eye { rate 240; }", 361),
    ] {
        let mut samples = per_reading(sensor);
        let s = common::summarize(&mut samples, 1);
        println!(
            "{label:32}: mean {:8.1} µs, p50 {:8.1} µs, p99 {:8.1} µs per reading; {:6.0} ns per pixel/ray; at 5 Hz {:5.2} ms per s of sim",
            s.mean,
            s.p50,
            s.p99,
            s.mean * 1000.0 / f64::from(pixels),
            s.mean * 5.0 / 1000.0
        );
    }
    println!(
        "to a program, once per new image: 160×120 colour {} base64 characters, depth {}",
        (160 * 120 * 3usize).div_ceil(3) * 4,
        (160 * 120 * 2usize).div_ceil(3) * 4
    );
}
