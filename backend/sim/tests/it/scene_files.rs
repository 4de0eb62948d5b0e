//! Every scene file in `scenes/` is interpreted by the language crate, built into a
//! physics world and stepped: a scene that stops parsing, interpreting or building
//! fails here with its name and the first error.

use vlab_sim::scene::{DirLoader, Options, interpret};
use vlab_sim::sim::World;

/// One second at the default 240 Hz: long enough for dropped objects to land and
/// jointed ones to swing; a broken joint or an overlap explosion shows as NaN or as
/// a body far outside the lab.
const STEPS: usize = 240;

#[test]
fn every_scene_file_interprets_builds_and_steps() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
    let loader = DirLoader { scenes: dir.clone(), assets: None };
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".vlab"))
        .collect();
    names.sort();
    for expected in ["arena.vlab", "corridor.vlab", "glass_room.vlab", "joints.vlab", "maze.vlab"] {
        assert!(names.iter().any(|n| n == expected), "scenes/{expected} is missing");
    }
    for name in &names {
        let source = std::fs::read_to_string(dir.join(name)).unwrap();
        let result = interpret(&source, name, &loader, &Options::default())
            .unwrap_or_else(|errors| panic!("{name}: {}", errors[0]));
        let model = &result.model;
        let mut world = World::build(model).unwrap_or_else(|e| panic!("{name}: {e}"));
        for _ in 0..STEPS {
            world.step();
        }
        assert_eq!(world.body_count(), model.bodies.len(), "{name}");
        let extent = model.environment.as_ref().map_or(200.0, |env| env.width.max(env.length).max(env.height) + 5.0);
        for (i, body) in model.bodies.iter().enumerate() {
            let p = world.pose(i).position;
            assert!(p.iter().all(|c| c.is_finite() && c.abs() < extent), "{name}: {} is at {p:?}", body.name);
        }
        println!(
            "{name}: {} bodies, {} joints, {} warnings",
            model.bodies.len(),
            model.joints.len(),
            result.warnings.len()
        );
        for warning in &result.warnings {
            println!("  {warning}");
        }
    }
}

/// The robot scenes a teacher hands out: each interprets with no error and no warning,
/// declares the robots its header promises, and its robots' devices configure.
#[test]
fn the_robot_scenes_load_cleanly_with_their_robots() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
    let loader = DirLoader { scenes: dir.clone(), assets: None };
    let expected: [(&str, &[&str]); 7] = [
        ("tankbot.vlab", &["tankbot"]),
        ("tankbot_robot.vlab", &[]),
        ("diffbot.vlab", &["diffbot"]),
        ("diffbot_robot.vlab", &[]),
        ("skidsteer.vlab", &["skidsteer"]),
        ("arm.vlab", &["arm"]),
        ("classroom.vlab", &["diffbot_00", "diffbot_17", "diffbot_29"]),
    ];
    for (name, robots) in expected {
        let source = std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("scenes/{name}: {e}"));
        let result = interpret(&source, name, &loader, &Options::default())
            .unwrap_or_else(|errors| panic!("{name}: {}", errors[0]));
        assert!(result.warnings.is_empty(), "{name}: {:?}", result.warnings);
        let model = &result.model;
        for robot in robots {
            assert!(model.robots.iter().any(|r| r.name == *robot), "{name}: no robot {robot}");
        }
        vlab_sim::robot::Robots::configure(model, 1).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let classroom = std::fs::read_to_string(dir.join("classroom.vlab")).unwrap();
    let model = interpret(&classroom, "classroom.vlab", &loader, &Options::default()).unwrap().model;
    assert_eq!(model.robots.len(), 30);
    assert_eq!(model.bodies.iter().filter(|b| b.name.starts_with("prop_")).count(), 200);
    let lidars: Vec<_> = model.sensors.iter().filter(|s| s.kind == "Lidar").collect();
    assert_eq!(lidars.len(), 30);
    assert!(lidars.iter().all(|l| l.num("beams") == Some(180.0) && l.num("rate") == Some(10.0)));
    let skidsteer = std::fs::read_to_string(dir.join("skidsteer.vlab")).unwrap();
    let model = interpret(&skidsteer, "skidsteer.vlab", &loader, &Options::default()).unwrap().model;
    assert_eq!(model.sensors.iter().filter(|s| s.kind == "Sonar").count(), 16);
    assert_eq!(model.actuators.iter().filter(|a| a.kind == "SimpleMotor").count(), 4);
}
