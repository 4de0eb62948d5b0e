//! The demo lab's scene file: it interprets, builds, and its robots keep driving.

use vlab_backend::scene::{DirLoader, Options, interpret};
use vlab_backend::sim::World;

#[test]
fn the_demo_scene_file_builds_and_its_robots_drive() {
    let scenes = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes");
    let source = std::fs::read_to_string(scenes.join("demo.vlab")).unwrap();
    let loader = DirLoader { scenes, assets: None };
    let result = interpret(&source, "demo.vlab", &loader, &Options::default()).unwrap_or_else(|e| panic!("{}", e[0]));
    assert!(result.warnings.is_empty(), "{:?}", result.warnings);
    let model = result.model;
    let mut world = World::build(&model).unwrap();
    let chassis = model.robots[0].main_body;
    let start = world.pose(chassis).position;
    let mut travelled = 0.0;
    let mut previous = start;
    for step in 0..(240 * 8) {
        world.step();
        if step % 24 == 0 {
            let now = world.pose(chassis).position;
            travelled += ((now[0] - previous[0]).powi(2) + (now[2] - previous[2]).powi(2)).sqrt();
            previous = now;
        }
    }
    assert!(travelled > 1.0, "the robot only travelled {travelled} m in 8 s");
}
