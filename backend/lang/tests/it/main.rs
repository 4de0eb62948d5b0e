//! The scene language's integration tests, one module per file in one test binary.

mod common;

mod budgets;
mod challenges;
mod doc_examples;
mod errors;
mod fuzz;
mod golden;
mod language;
mod regression_huge_numbers_freeze_bodies;
mod regression_mesh_paths_probe_server_files;
mod saved_scenes;
mod vlab_files;
