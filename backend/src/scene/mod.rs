//! The scene model: a lab's world as plain data (bodies, parts, joints, robots), before
//! and apart from any physics engine.
//!
//! The model and the `.vlab` language live in the `vlab-scene` crate (pure, wasm-ready);
//! this module re-exports them for the rest of the backend and adds the built-in demo.

mod demo;

pub use demo::demo_scene;
pub use vlab_scene::model::{
    BodyModel, DEFAULT_DT_SECS, DeviceModel, EnvironmentKind, EnvironmentModel, GroupModel, JointKind, JointModel,
    Material, MeshRef, MotorModel, Motion, Mount, Palette, ParamValue, PartModel, Pose, ProgramRef, ProjectFile,
    RobotModel, SceneError, SceneModel, Shape,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_scene_is_valid() {
        demo_scene(1).validate().unwrap();
    }
}
