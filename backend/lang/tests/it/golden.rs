//! Golden snapshots: the classic examples (the pyramid, the cart), a robot scene and a
//! challenge, interpreted from `scenes/` and compared with the checked-in text of their model.
//!
//! The text is `vlab_scene::dump` (rounded numbers, one element per line). To accept
//! a deliberate change: `UPDATE_GOLDEN=1 cargo test -p vlab-scene --test it golden`, then
//! review the diff of `tests/golden/`.

use std::path::PathBuf;

use vlab_scene::{DirLoader, Options, dump, interpret};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn check(scene: &str) {
    let scenes = root().join("../../scenes");
    let loader = DirLoader { scenes: scenes.clone(), assets: None };
    let source = std::fs::read_to_string(scenes.join(format!("{scene}.vlab"))).unwrap();
    let result = interpret(&source, &format!("{scene}.vlab"), &loader, &Options::default())
        .unwrap_or_else(|e| panic!("{scene}: {}", e[0]));
    let mut text = dump(&result.model);
    for line in &result.log {
        text.push_str(&format!("log {line}\n"));
    }
    for warning in &result.warnings {
        text.push_str(&format!("{warning}\n"));
    }
    let golden = root().join("tests/golden").join(format!("{}.txt", scene.replace('/', "_")));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &text).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&golden).unwrap_or_default();
    assert!(
        text == expected,
        "{scene}: the model differs from {}\n--- expected\n{expected}\n--- got\n{text}",
        golden.display()
    );
}

#[test]
fn the_pyramid_example() {
    check("pyramid");
}

#[test]
fn the_cart_example() {
    check("cart");
}

#[test]
fn a_robot_with_sensors_in_a_room() {
    check("tankbot");
}

#[test]
fn a_challenge_to_park_in_a_bay() {
    check("challenges/park");
}
