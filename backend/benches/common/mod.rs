//! What every bench reports of a set of timings: mean, median, 99th percentile and
//! maximum, in microseconds.

use std::time::Duration;

/// Timings summarised, microseconds.
pub struct Summary {
    /// Mean.
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest.
    pub max: f64,
}

/// The summary of `samples` (sorted in place), each divided by `per` (1: as measured).
pub fn summarize(samples: &mut [Duration], per: u32) -> Summary {
    samples.sort();
    let micros = |d: Duration| d.as_secs_f64() * 1e6 / f64::from(per);
    let at = |q: f64| micros(samples[((samples.len() - 1) as f64 * q).round() as usize]);
    let mean = samples.iter().map(|d| micros(*d)).sum::<f64>() / samples.len() as f64;
    Summary { mean, p50: at(0.5), p99: at(0.99), max: at(1.0) }
}

/// Prints `label` with the summary of `samples` and the real-time factor of a step of
/// `dt` seconds taking the mean.
#[allow(dead_code)] // not every bench times simulation steps
pub fn report_steps(label: &str, samples: &mut [Duration], dt: f64) {
    let s = summarize(samples, 1);
    println!(
        "{label}: mean {:8.1} µs, p50 {:8.1} µs, p99 {:8.1} µs, max {:8.1} µs → {:.1}× real time",
        s.mean,
        s.p50,
        s.p99,
        s.max,
        dt * 1e6 / s.mean
    );
}

/// A 180-beam lidar scan over the half-plane ahead that changes with the step `k` and
/// differs between robots `i`, its ranges from `nearest` metres up.
#[allow(dead_code)] // only the controller benches feed programs
pub fn moving_scan(k: u64, i: usize, nearest: f32) -> vlab_protocol::SensorValue {
    vlab_protocol::SensorValue::Scan {
        angle_min: -std::f64::consts::FRAC_PI_2,
        angle_step: std::f64::consts::PI / 179.0,
        max_range: 10.0,
        ranges: (0..180).map(|b| nearest + ((b + k as usize + i) % 50) as f32 * 0.1).collect(),
    }
}

/// The lab's lockstep over `programs` for `warm_up + steps` control steps (5 physics
/// steps each at 1/240 s): every program gets its readings from `readings(k, i)`, then
/// every answer is collected and must command `actuator`. Returns the wall time of each
/// measured exchange; stops every program at the end.
#[allow(dead_code)] // only the controller benches feed programs
pub fn lockstep<C: vlab_server::controller::Controller>(
    programs: &mut [C],
    warm_up: u64,
    steps: u64,
    actuator: &str,
    readings: impl Fn(u64, usize) -> std::collections::BTreeMap<String, Option<vlab_protocol::SensorValue>>,
) -> Vec<Duration> {
    let mut per_step = Vec::with_capacity(steps as usize);
    for k in 0..warm_up + steps {
        let step = (k + 1) * 5;
        let inputs: Vec<vlab_server::controller::StepInput> = (0..programs.len())
            .map(|i| vlab_server::controller::StepInput {
                step,
                time_secs: step as f64 / 240.0,
                sensors: readings(k, i),
            })
            .collect();
        let started = std::time::Instant::now();
        for (program, input) in programs.iter_mut().zip(&inputs) {
            program.send_step(input).expect("sent");
        }
        for program in programs.iter_mut() {
            let reply = program.receive().expect("answer");
            assert!(reply.commands.contains_key(actuator), "every answer commands {actuator}");
        }
        if k >= warm_up {
            per_step.push(started.elapsed());
        }
    }
    for program in programs.iter_mut() {
        program.stop().expect("a clean stop");
    }
    per_step
}

/// Prints the whole exchange per control step and per robot per step.
#[allow(dead_code)] // only the controller benches feed programs
pub fn report_exchange(bench: &str, robots: usize, per_step: &mut [Duration]) {
    println!("{bench}: {} control steps, {robots} programs, send to all then collect from all", per_step.len());
    for (label, per) in [("whole exchange/step", 1), ("per robot per step", robots as u32)] {
        let s = summarize(per_step, per);
        println!(
            "{bench}: {label:<22} mean {:8.1} µs  p50 {:8.1} µs  p99 {:8.1} µs  max {:8.1} µs",
            s.mean, s.p50, s.p99, s.max
        );
    }
}

/// scenes/classroom.vlab: 30 diffbots with 180-beam lidars and 200 props.
#[allow(dead_code)] // only the classroom benches load it
pub fn classroom() -> vlab_server::scene::SceneModel {
    use vlab_server::scene::{DirLoader, Options, interpret};
    let scenes = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes");
    let source = std::fs::read_to_string(scenes.join("classroom.vlab")).expect("scenes/classroom.vlab");
    let loader = DirLoader { scenes, assets: None };
    interpret(&source, "classroom.vlab", &loader, &Options::default())
        .unwrap_or_else(|e| panic!("classroom.vlab: {}", e[0]))
        .model
}

/// The drive command of the `i`-th robot of a classroom bench: a circle of radius 0.5 m
/// at 0.15 m/s, every other one clockwise, so the robots stay in their lanes.
#[allow(dead_code)] // only the benches that drive robots by hand use it
pub fn circle_drive(i: usize) -> std::collections::BTreeMap<String, serde_json::Value> {
    let omega = if i.is_multiple_of(2) { 0.3 } else { -0.3 };
    std::collections::BTreeMap::from([("drive".to_owned(), serde_json::json!({"v": 0.15, "omega": omega}))])
}

/// Step `step` of a lab's loop, timed per phase: the actuators' commands reach the
/// joints, the physics steps, the sensors read (the time of step `step` is `step × dt`).
#[allow(dead_code)] // only the benches that time the loop's phases use it
pub fn timed_step(
    world: &mut vlab_server::sim::World,
    robots: &mut vlab_server::robot::Robots,
    step: u64,
    dt: f64,
) -> [Duration; 3] {
    let started = std::time::Instant::now();
    robots.apply_actuators(world);
    let commanded = std::time::Instant::now();
    world.step();
    let stepped = std::time::Instant::now();
    robots.update_sensors(world, step, step as f64 * dt);
    [commanded - started, stepped - commanded, stepped.elapsed()]
}

/// Each robot wanders: ahead while the lidar's front sector is clear, turning away
/// from the nearer side when it is not, and logs now and then.
#[allow(dead_code)] // only the program benches run it
pub const WANDERER: &str = include_str!("wanderer.py");
