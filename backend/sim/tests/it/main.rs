//! The physics' integration tests: scenes built into worlds, robots' sensors and
//! actuators on them, joints, cameras, URDF robots. One test binary, one module per file.

mod joined_bodies;
mod joints_physics;
mod robots_cameras;
mod robots_perception;
mod robots_sensors;
mod scene_files;
mod urdf_robots;
mod vlab_tank;
