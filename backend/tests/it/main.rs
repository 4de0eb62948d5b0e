//! The backend's integration tests: a real server on a free port, real HTTP, real
//! websockets, real program sandboxes. One test binary for all of them (one module per
//! file), so the suite links rapier, wasmtime, axum and rusqlite once, not once per file.

mod common;
#[path = "../../programs/tests/it/example_wasm/mod.rs"]
mod example_wasm;
mod hostile;

mod architecture_map;
mod assets;
mod camera_programs;
mod challenge_attempts;
mod classroom;
mod cpp_programs;
mod docs_self_contained;
mod every_step_programs;
mod example_robots;
mod fuzz_uploads;
mod http_api;
mod lockstep_runs_repeat;
mod mesh_triangles;
mod permissions;
mod program_beliefs;
mod program_cpus;
mod program_map;
mod python_programs;
mod radio_programs;
mod realtime_programs;
mod recording_exports;
mod recording_rewind;
mod recording_timeline;
mod regression_a_full_lab_locks_out_the_class;
mod regression_a_huge_robot_slows_the_lab;
mod regression_a_reset_piles_robots_up;
mod regression_camera_robots_fill_the_lab_thread;
mod regression_concurrent_uploads_pass_the_quota;
mod regression_huge_commands_freeze_robots;
mod regression_huge_websocket_frames_fill_memory;
mod regression_instructor_drives_own_robot;
mod regression_join_code_guessing;
mod regression_natural_program_upload;
mod regression_oversized_upload_says_not_utf8;
mod regression_removed_uploads_stay_forever;
mod regression_robot_off_the_floor_falls_forever;
mod regression_secrets_readable;
mod regression_server_key_printed_every_start;
mod regression_sleeping_program_slows_the_lab;
mod regression_slow_headers_hold_connections;
mod regression_student_uploads_fill_the_store;
mod regression_unlimited_connections;
mod remote_controllers;
mod restart;
mod rewind_time;
mod robot_programs;
mod robot_starts;
mod robots_http;
mod robots_physics;
mod scene_upload;
mod sensor_streams_only_to_watchers;
mod store_failures;
mod urdf_upload;
mod viewer_pacing;
mod vlab_project_upload;
mod vlab_tank_shuttle;
mod wasm_beliefs;
mod web_files;
mod websocket;
