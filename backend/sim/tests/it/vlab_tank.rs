//! The tank of `scenes/vlab/tank.vlab`, written in the style of the original VLAB
//! files, on a plain floor: its wheels and casters overlap its body at their joints, and
//! both motors at +10 roll it towards +X at its wheels' speed, 10 rad/s × 0.85 = 8.5
//! units/s, without hopping. The same tank with its joints' contacts kept (`collide
//! true;`) shows why joined bodies must not collide.
//!
//! Figures: the tank reaches its speed within about two seconds (10 N·m per wheel on
//! 5.5 kg); its speed is measured over the fourth second, ±10 % (the wheels sink a
//! little into the floor, and the casters drag). Its body rises and falls by
//! millimetres as it rolls; a body pushed by its own wheels jumps by tenths.

use std::collections::BTreeMap;

use serde_json::json;
use vlab_sim::robot::Robots;
use vlab_sim::scene::{DirLoader, Options, SceneModel, interpret};
use vlab_sim::sim::World;

/// The tank's composed body, as `build_tank(30, 0, 20)` names it.
const TANK_BODY: &str = "base_tankbot_30020";

/// Half the height band its body may move in while it rolls, units.
const HOP_TOLERANCE: f32 = 0.05;

/// A floor 100 × 40 with low walls around it, and the tank of `scenes/vlab/tank.vlab`
/// at (30, 0, 20): its robot without the `code` line (the program is not run here), and
/// with `extra` added to every joint's block.
fn tank_scene(extra: &str) -> SceneModel {
    let scenes = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
    let tank = std::fs::read_to_string(scenes.join("vlab/tank.vlab")).unwrap();
    let tank: String =
        tank.lines().filter(|line| !line.trim_start().starts_with("code ")).collect::<Vec<_>>().join("\n");
    assert!(!tank.contains("code \""), "the robot still names its program");
    let tank = tank
        .replace("SimpleMotor Motor1; }", &format!("SimpleMotor Motor1; {extra} }}"))
        .replace("SimpleMotor Motor2; }", &format!("SimpleMotor Motor2; {extra} }}"))
        .replace("y + pin_size, z); }", &format!("y + pin_size, z); {extra} }}"));
    let source = format!(
        "environment wallrect {{ width 100; length 40; height 1; ground \"Tiles\"; walls \"Pattern\"; gravity -9.8; }}\n{tank}"
    );
    let loader = DirLoader { scenes: scenes.join("vlab"), assets: Some(scenes.join("../assets")) };
    let result = interpret(&source, "tank_on_a_floor.vlab", &loader, &Options::default())
        .unwrap_or_else(|errors| panic!("{}", errors[0]));
    assert!(result.warnings.is_empty(), "{:?}", result.warnings);
    result.model
}

/// What the tank did in `seconds` with both motors at `speed`.
struct Run {
    /// Its body's X at 3 s and at 4 s.
    x_at_3: f32,
    x_at_4: f32,
    /// Its body's lowest and highest Y after the first half second (it settles).
    y_range: (f32, f32),
    /// Whether each motor reports a stall at the end.
    stalled: Vec<bool>,
}

fn drive(model: &SceneModel, speed: f64) -> Run {
    let body = model.bodies.iter().position(|b| b.name == TANK_BODY).expect("the tank's body");
    let mut world = World::build(model).unwrap();
    let mut robots = Robots::configure(model, 1).unwrap();
    robots.install(&mut world, 0, 0.0);
    let commands: BTreeMap<String, serde_json::Value> =
        serde_json::from_value(json!({"Motor1": {"speed": speed}, "Motor2": {"speed": speed}})).unwrap();
    robots.command("tankbot", &commands).expect("the tank exists").expect("its motors take speeds");
    let dt = model.dt_secs;
    let steps_per_second = (1.0 / dt).round() as u64;
    let (mut x_at_3, mut low, mut high) = (f32::NAN, f32::INFINITY, f32::NEG_INFINITY);
    for step in 1..=4 * steps_per_second {
        robots.apply_actuators(&mut world);
        world.step();
        robots.update_sensors(&world, step, step as f64 * dt);
        let at = world.pose(body).position;
        if step > steps_per_second / 2 {
            low = low.min(at[1]);
            high = high.max(at[1]);
        }
        if step == 3 * steps_per_second {
            x_at_3 = at[0];
        }
    }
    let report = robots.report("tankbot", &world, 4 * steps_per_second, 4.0).unwrap();
    Run {
        x_at_3,
        x_at_4: world.pose(body).position[0],
        y_range: (low, high),
        stalled: report.actuators.iter().map(|a| a.stalled).collect(),
    }
}

#[test]
fn both_motors_at_plus_ten_roll_the_tank_towards_plus_x_at_8_5_units_a_second() {
    let model = tank_scene("");
    assert!(model.joints.iter().all(|j| !j.bodies_touch), "a joint keeps its contacts by default");
    let run = drive(&model, 10.0);
    let speed = run.x_at_4 - run.x_at_3;
    let (low, high) = run.y_range;
    println!(
        "tank: {speed:.3} units/s over the fourth second, body y in {low:.4}..{high:.4}, stalled {:?}",
        run.stalled
    );
    assert!((speed - 8.5).abs() < 0.85, "it rolled at {speed} units/s, expected 8.5 ± 10 % towards +X");
    assert!(high - low < 2.0 * HOP_TOLERANCE, "its body hopped between y = {low} and {high}");
    assert_eq!(run.stalled, [false, false], "a motor stalled");
}

#[test]
fn negative_speeds_roll_the_tank_towards_minus_x() {
    let run = drive(&tank_scene(""), -10.0);
    let speed = run.x_at_4 - run.x_at_3;
    assert!((speed + 8.5).abs() < 0.85, "it rolled at {speed} units/s, expected −8.5 ± 10 %");
}

#[test]
fn the_tank_with_its_joints_contacts_kept_fights_its_own_wheels() {
    let model = tank_scene("collide true;");
    assert!(model.joints.iter().all(|j| j.bodies_touch), "collide true; did not keep the contacts");
    let kept = drive(&model, 10.0);
    let free = drive(&tank_scene(""), 10.0);
    let (kept_speed, free_speed) = (kept.x_at_4 - kept.x_at_3, free.x_at_4 - free.x_at_3);
    let (kept_band, free_band) = (kept.y_range.1 - kept.y_range.0, free.y_range.1 - free.y_range.0);
    println!(
        "contacts kept: {kept_speed:.3} units/s, body y band {kept_band:.4}, stalled {:?}; \
         without: {free_speed:.3} units/s, band {free_band:.4}",
        kept.stalled
    );
    // The overlapping drum and wheels jam the wheels or throw the body up.
    let jammed = kept_speed < 0.5 * free_speed;
    let hopped = kept_band > 2.0 * HOP_TOLERANCE;
    assert!(jammed || hopped, "keeping the contacts changed nothing: {kept_speed} units/s, band {kept_band}");
}

#[test]
fn its_box_takes_its_drums_density_and_given_1000_it_would_outweigh_the_tank() {
    let model = tank_scene("");
    let body = model.bodies.iter().find(|b| b.name == TANK_BODY).expect("the tank's body");
    let densities: Vec<f32> = body.parts.iter().map(|p| p.density).collect();
    assert_eq!(densities, [0.05, 0.05], "the box gives no density: it takes the drum's");
    let heavy = {
        let scenes = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
        let printed = std::fs::read_to_string(scenes.join("vlab/tank.vlab")).unwrap();
        assert!(printed.contains(r#"material "Red"; SimpleGPS"#), "the box gives no density, as in the design");
        let mut model = tank_scene("");
        let body = model.bodies.iter_mut().find(|b| b.name == TANK_BODY).unwrap();
        body.parts[1].density = 1000.0;
        drive(&model, 10.0)
    };
    let speed = heavy.x_at_4 - heavy.x_at_3;
    println!("the box at 1000 kg/m³: {speed:.3} units/s, body y in {:?}", heavy.y_range);
    assert!(speed < 1.0, "a 1000 kg box on 10 N·m wheels rolled at {speed} units/s");
}
