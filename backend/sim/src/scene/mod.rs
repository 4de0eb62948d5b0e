//! The scene model: a lab's world as plain data (bodies, parts, joints, robots), before
//! and apart from any physics engine.
//!
//! The model and the `.vlab` language live in the `vlab-scene` crate (pure, wasm-ready);
//! this module re-exports them for the rest of the backend and adds the built-in demo.

mod demo;

pub use demo::demo_scene;
pub use vlab_scene::meshfile::stl_to_obj;
pub use vlab_scene::model::{
    BodyModel, ChallengeModel, Comparison, Condition, DEFAULT_DT_SECS, DeviceModel, ENVIRONMENT_BODIES,
    EnvironmentKind, EnvironmentModel, Event, GroupModel, Inserted, JointKind, JointModel, MAX_MAGNITUDE, Material,
    MeshRef, Motion, MotorModel, Mount, Palette, ParamValue, PartModel, Pose, ProgramRate, ProgramRef, ProjectFile,
    Renumbering, RobotModel, RoomError, SceneError, SceneModel, ScoreRule, Shape, StartPose, Touchable, ZoneModel,
    ZoneShape, check_magnitude,
};
pub use vlab_scene::{
    Budgets, DirLoader, Interpretation, LangError, LoadError, MapLoader, Options, SourceLoader, Warning, interpret,
    parse_project,
};
pub use vlab_scene::{Footprint, static_footprints};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_scene_is_valid() {
        demo_scene(1).validate().unwrap();
    }

    #[test]
    fn the_example_scenes_build_and_step_in_the_simulation() {
        let scenes = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
        let loader = vlab_scene::DirLoader { scenes: scenes.clone(), assets: None };
        for name in ["pyramid", "cart", "tankbot"] {
            let source = std::fs::read_to_string(scenes.join(format!("{name}.vlab"))).unwrap();
            let result = interpret(&source, &format!("{name}.vlab"), &loader, &Options::default())
                .unwrap_or_else(|e| panic!("{name}: {}", e[0]));
            let mut world = crate::sim::World::build(&result.model).unwrap_or_else(|e| panic!("{name}: {e}"));
            for _ in 0..24 {
                world.step();
            }
            assert_eq!(world.body_count(), result.model.bodies.len());
        }
    }
}
