//! `cargo bench -p vlab-server --bench step_scaling`: how the cost of a step grows
//! with the class. Scenes like scenes/classroom.vlab (lidar diffbots from
//! scenes/diffbot_robot.vlab, every robot driving a circle, props between the rows)
//! built with 1 to 60 robots, 0 to 720 lidar beams per robot and 0 to 800 props. For
//! each, in the same run and the same steps: the bare physics step (`World::step`)
//! beside the full step (actuators, physics, sensors), their ratio and the real-time
//! factor the full step allows. Then, at the run's last poses, every lidar's scan cast
//! one beam at a time (`World::cast_ray`, as the sensors did before) beside the whole
//! fan at once (`World::cast_fan`, as they do now), which must answer the same.
//!
//! Prints figures rather than asserting them: timings are for reading, not for tests.

mod common;

use std::time::{Duration, Instant};

use vlab_protocol::pose::rotate;
use vlab_server::robot::Robots;
use vlab_server::robot::frame::wide;
use vlab_server::scene::{DirLoader, Mount, Options, ParamValue, SceneModel, interpret};
use vlab_server::sim::{Fan, RayFilter, World};

/// Seconds of simulation before timing: the props settle and the robots spin up.
const WARM_UP_SECS: f64 = 1.0;
/// Seconds of simulation timed per scene.
const TIMED_SECS: f64 = 4.0;
/// Robots per row; rows are 2.5 m apart.
const ROBOTS_PER_ROW: usize = 10;

/// One scene of the table.
#[derive(Clone, Copy)]
struct Class {
    robots: usize,
    /// Lidar beams per robot (0: no lidar).
    beams: usize,
    props: usize,
}

fn main() {
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let base = Class { robots: 30, beams: 180, props: 200 };
    let mut classes = Vec::new();
    for robots in [1, 5, 15, 30, 60] {
        classes.push(("robots", Class { robots, ..base }));
    }
    for beams in [0, 45, 180, 720] {
        classes.push(("beams", Class { beams, ..base }));
    }
    for props in [0, 50, 200, 800] {
        classes.push(("props", Class { props, ..base }));
    }
    println!(
        "VLab bench: step scaling, dt = 1/240 s, lidars at 10 Hz, {WARM_UP_SECS} s warm-up then {TIMED_SECS} s timed per scene"
    );
    println!(
        "{:<7} {:>6} {:>6} {:>6} | {:>12} {:>12} {:>12} {:>12} | {:>6} {:>9} | {:>13} {:>11}",
        "axis",
        "robots",
        "beams",
        "props",
        "physics µs",
        "actuators µs",
        "sensors µs",
        "full µs",
        "ratio",
        "real time",
        "scan beams µs",
        "scan fan µs"
    );
    for (axis, class) in classes {
        if filter.as_deref().is_some_and(|f| f != axis) {
            continue;
        }
        let ([physics, actuators, sensors, full], [by_beam, by_fan]) = measure(class);
        println!(
            "{axis:<7} {:>6} {:>6} {:>6} | {physics:>12.1} {actuators:>12.1} {sensors:>12.1} {full:>12.1} | {:>5.2}× {:>8.1}× | {by_beam:>13.1} {by_fan:>11.1}",
            class.robots,
            class.beams,
            class.props,
            full / physics,
            1e6 / 240.0 / full
        );
    }
}

/// Mean µs per step of the physics, the actuators, the sensors and the whole step, and
/// per lidar scan cast beam by beam and as a fan ([`scan_costs`]).
fn measure(class: Class) -> ([f64; 4], [f64; 2]) {
    let model = scene(class);
    let dt = model.dt_secs;
    let mut world = World::build(&model).expect("the scene builds");
    let mut robots = Robots::configure(&model, 1).expect("the robots configure");
    robots.install(&mut world, 0, 0.0);
    let names: Vec<String> = robots.all().iter().map(|r| r.name().to_owned()).collect();
    for (i, name) in names.iter().enumerate() {
        robots.command(name, &common::circle_drive(i)).expect("a robot").expect("a drive command");
    }
    let mut step = 0u64;
    let mut one_step = |world: &mut World, robots: &mut Robots| {
        step += 1;
        common::timed_step(world, robots, step, dt)
    };
    for _ in 0..(WARM_UP_SECS / dt) as usize {
        one_step(&mut world, &mut robots);
    }
    let steps = (TIMED_SECS / dt) as usize;
    let mut sums = [Duration::ZERO; 3];
    for _ in 0..steps {
        let [a, p, s] = one_step(&mut world, &mut robots);
        sums[0] += p;
        sums[1] += a;
        sums[2] += s;
    }
    let mean = |d: Duration| d.as_secs_f64() * 1e6 / steps as f64;
    let [physics, actuators, sensors] = sums.map(mean);
    ([physics, actuators, sensors, physics + actuators + sensors], scan_costs(&world, &model))
}

/// Rounds of every lidar's scan for [`scan_costs`].
const SCAN_ROUNDS: usize = 20;

/// Mean µs per lidar scan at the world's current poses, cast one beam at a time with
/// `World::cast_ray` and as one fan with `World::cast_fan`, the beams set out as the
/// lidar sensor sets them; panics if the two disagree. Zeros without lidars.
fn scan_costs(world: &World, model: &SceneModel) -> [f64; 2] {
    let lidars: Vec<(u32, usize, &vlab_server::scene::DeviceModel)> = (model.sensors.iter())
        .filter(|device| device.kind == "Lidar")
        .map(|device| {
            let robot = model.robots.iter().position(|r| Some(&r.name) == device.robot.as_ref()).expect("its robot");
            let body = match device.mount {
                Mount::Body(body) => body,
                _ => model.robots[robot].main_body,
            };
            (robot as u32, body, device)
        })
        .collect();
    if lidars.is_empty() {
        return [0.0; 2];
    }
    let (mut by_beam, mut by_fan) = (Duration::ZERO, Duration::ZERO);
    for &(robot, body, device) in &lidars {
        let (max_range, fov) = (device.num("range").unwrap_or(10.0), device.num("fov").unwrap_or(std::f64::consts::PI));
        let beams = device.num("beams").unwrap_or(361.0).max(1.0) as usize;
        let step = if beams > 1 { fov / (beams - 1) as f64 } else { 0.0 };
        let first = if beams > 1 { -fov / 2.0 } else { 0.0 };
        let pose = world.pose(body);
        let directions: Vec<[f32; 3]> = (0..beams)
            .map(|i| {
                let angle = first + step * i as f64;
                rotate(wide(pose.rotation), [angle.cos(), 0.0, -angle.sin()]).map(|c| c as f32)
            })
            .collect();
        let filter = RayFilter { ignore_robot: Some(robot), through_transparent: true };
        let fan = Fan {
            origin: pose.position,
            rotation: pose.rotation,
            angle_min: first as f32,
            angle_step: step as f32,
            directions: &directions,
        };
        let (mut single, mut together) = (vec![None; beams], vec![None; beams]);
        let started = Instant::now();
        for _ in 0..SCAN_ROUNDS {
            for (range, direction) in single.iter_mut().zip(&directions) {
                *range = world.cast_ray(pose.position, *direction, max_range as f32, filter);
            }
            std::hint::black_box(&single);
        }
        by_beam += started.elapsed();
        let started = Instant::now();
        for _ in 0..SCAN_ROUNDS {
            world.cast_fan(&fan, max_range as f32, filter, &mut together);
            std::hint::black_box(&together);
        }
        by_fan += started.elapsed();
        assert_eq!(single, together, "the fan answers as its beams one by one");
    }
    let scans = (lidars.len() * SCAN_ROUNDS) as f64;
    [by_beam, by_fan].map(|d| d.as_secs_f64() * 1e6 / scans)
}

/// The scene of `class` in the scene language: rows of diffbots 1.7 m apart, props in
/// two lines between each pair of rows; lidars given `beams` (taken out at 0).
fn scene(class: Class) -> SceneModel {
    let rows = class.robots.div_ceil(ROBOTS_PER_ROW).max(6);
    let length = 2.0 + 2.5 * rows as f64;
    let mut source = format!(
        "environment room {{ width 20; length {length}; height 3; gravity -9.81; }}\n\
         include \"diffbot_robot.vlab\";\n"
    );
    for k in 0..class.robots {
        let (i, j) = (k % ROBOTS_PER_ROW, k / ROBOTS_PER_ROW);
        let (x, z) = (1.5 + 1.9 * i as f64, 1.5 + 2.5 * j as f64);
        source.push_str(&format!("call diffbot(\"_{k:02}\", {x}, {z}, 0);\n"));
    }
    let lines = 2 * rows;
    let per_line = class.props.div_ceil(lines).max(1);
    for n in 0..class.props {
        let (line, a) = (n / per_line, n % per_line);
        let z = 2.4 + 2.5 * (line / 2) as f64 + 0.7 * (line % 2) as f64;
        let x = 0.5 + 19.0 * (a as f64 + 0.5) / per_line as f64;
        let size = 0.04 + 0.035 * ((n * 7919) % 100) as f64 / 100.0;
        let shape = match n % 3 {
            0 => format!("shape box({0}, {0}, {0}); pos({x}, {size}, {z});", 2.0 * size),
            1 => format!(
                "shape cylinder({size}, {}); pos({x}, {}, {z}); rotation_axis(1, 0, 0, pi / 2);",
                3.0 * size,
                1.5 * size
            ),
            _ => format!("shape sphere({size}); pos({x}, {size}, {z});"),
        };
        source.push_str(&format!("id:[\"prop_{n}\"] {{ {shape} material \"Wood\"; density 400; }}\n"));
    }
    let scenes = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes");
    let loader = DirLoader { scenes, assets: None };
    let mut model = interpret(&source, "step_scaling.vlab", &loader, &Options::default())
        .unwrap_or_else(|e| panic!("the generated scene: {}", e[0]))
        .model;
    if class.beams == 0 {
        model.sensors.retain(|s| s.kind != "Lidar");
    }
    for lidar in model.sensors.iter_mut().filter(|s| s.kind == "Lidar") {
        lidar.params.retain(|(name, _)| name != "beams");
        lidar.params.push(("beams".into(), ParamValue::Num(class.beams as f64)));
    }
    model
}
