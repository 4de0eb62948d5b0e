//! The built-in demo lab: `scenes/demo.vlab`, embedded in the binary so the server
//! starts with a lively lab and nothing else installed.

use super::{MapLoader, Options, SceneModel, interpret};

/// The demo scene's source, as shipped in `scenes/`.
pub const DEMO_SOURCE: &str = include_str!("../../../../scenes/demo.vlab");

/// The demo scene for `seed` (the same seed gives the same yard).
///
/// # Panics
/// If the embedded file does not interpret: a build that ships a broken demo is a bug
/// that `the_demo_scene_is_valid` catches first.
pub fn demo_scene(seed: u64) -> SceneModel {
    match interpret(DEMO_SOURCE, "demo.vlab", &MapLoader::new(), &Options { seed, ..Options::default() }) {
        Ok(interpretation) => interpretation.model,
        Err(errors) => panic!("the embedded demo scene does not interpret: {}", errors[0]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{JointKind, Motion};

    #[test]
    fn the_demo_scene_interprets_without_warnings() {
        let interpretation = interpret(DEMO_SOURCE, "demo.vlab", &MapLoader::new(), &Options::default()).unwrap();
        assert!(interpretation.warnings.is_empty(), "{:?}", interpretation.warnings);
    }

    #[test]
    fn the_same_seed_gives_the_same_room_and_another_seed_another() {
        assert_eq!(demo_scene(7), demo_scene(7));
        assert_ne!(demo_scene(7), demo_scene(8));
    }

    #[test]
    fn the_demo_has_a_room_props_and_robots_with_motors() {
        let scene = demo_scene(1);
        assert_eq!(scene.bodies.len(), 50);
        assert!(scene.environment.is_some());
        assert_eq!(scene.robots.len(), 3);
        let motors = scene
            .joints
            .iter()
            .filter(|j| matches!(j.kind, JointKind::Hinge { motor: Some(m), .. } if m.target_velocity != 0.0))
            .count();
        assert_eq!(motors, 6);
        assert!(scene.bodies.iter().any(|b| b.name == "floor" && b.motion == Motion::Fixed));
    }
}
