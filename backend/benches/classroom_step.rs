//! `cargo bench -p vlab-server` (or `cargo xtask bench`): a whole class in one lab,
//! scenes/classroom.vlab (30 diffbots, each with a 180-beam lidar at 10 Hz, encoders,
//! odometry and a bumper, and 200 props), every robot driving a circle. How long a
//! step takes for the physics alone and with the robot phases around it (actuator
//! commands before, sensors after), and the real-time factor each allows.
//!
//! Prints figures rather than asserting them: timings are for reading, not for tests.

mod common;

use std::time::Instant;

use vlab_server::robot::Robots;
use vlab_server::sim::World;

/// Seconds of simulation before timing: the props settle and the robots spin up.
const WARM_UP_SECS: f64 = 1.0;
/// Seconds of simulation timed.
const TIMED_SECS: f64 = 10.0;

fn main() {
    let model = common::classroom();
    let dt = model.dt_secs;
    let mut world = World::build(&model).expect("the classroom builds");
    let mut robots = Robots::configure(&model, 1).expect("the classroom's robots configure");
    robots.install(&mut world, 0, 0.0);
    // Every robot drives a circle of radius 0.5 m (half of them clockwise) in its lane.
    let names: Vec<String> = robots.all().iter().map(|r| r.name().to_owned()).collect();
    for (i, name) in names.iter().enumerate() {
        robots.command(name, &common::circle_drive(i)).expect("a robot").expect("a drive command");
    }
    let sensors: usize = robots.all().iter().map(|r| r.sensors().len()).sum();
    println!(
        "VLab bench: classroom, {} bodies, {} joints, {} robots with {sensors} sensors, dt = 1/{:.0} s",
        world.body_count(),
        model.joints.len(),
        names.len(),
        1.0 / dt
    );

    let mut step = 0u64;
    let mut one_step = |world: &mut World, robots: &mut Robots| {
        step += 1;
        common::timed_step(world, robots, step, dt)
    };
    for _ in 0..(WARM_UP_SECS / dt) as usize {
        one_step(&mut world, &mut robots);
    }
    let steps = (TIMED_SECS / dt) as usize;
    let (mut actuators, mut physics, mut sensing, mut full) =
        (Vec::with_capacity(steps), Vec::with_capacity(steps), Vec::with_capacity(steps), Vec::with_capacity(steps));
    let wall = Instant::now();
    for _ in 0..steps {
        let [a, p, s] = one_step(&mut world, &mut robots);
        actuators.push(a);
        physics.push(p);
        sensing.push(s);
        full.push(a + p + s);
    }
    let wall = wall.elapsed();
    println!("{steps} steps ({TIMED_SECS} s of simulation) after {WARM_UP_SECS} s of warm-up:");
    common::report_steps("  physics alone (World::step)      ", &mut physics, dt);
    common::report_steps("  actuators (commands → joints)    ", &mut actuators, dt);
    common::report_steps("  sensors (lidars at 10 Hz, ...)   ", &mut sensing, dt);
    common::report_steps("  physics + actuators + sensors    ", &mut full, dt);
    println!(
        "  wall time {:.2} s for {TIMED_SECS} s of simulation: {:.1}× real time",
        wall.as_secs_f64(),
        TIMED_SECS / wall.as_secs_f64()
    );
    let travelled = robots.report(&names[0], &world, step, step as f64 * dt).expect("a robot").pose.position;
    println!("  (robot {} ended at {travelled:.2?})", names[0]);
}
