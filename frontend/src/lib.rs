//! The VLab browser app: leptos UI and three-d view of a lab, compiled to wasm.
//!
//! It knows the wire contract (`vlab-protocol`) and the browser, nothing of the server's
//! internals (rapier, axum, the store): everything it shows arrives over one websocket
//! and a few HTTP requests.
//!
//! One folder per feature, each holding its state, its requests and its components:
//! [`connection`] (websocket, session state, clock), [`scene`] (the scene editor and
//! upload), [`programs`] (robots of one's own, their programs and console),
//! [`classroom`] (landing, joining, people, instructor tools), [`inspector`] (the Robots
//! panel), [`view3d`] (the 3D view), [`timeline`] (scrubbing the recording, replay,
//! downloads), [`challenge`] (the lab's challenge: its panel, attempts, board and
//! replays), [`course`] (classes: signing in, the class page, assignments, grades);
//! `ui` holds the pieces several of them share.
//!
//! Native vs web: in every folder the pure modules (no DOM, no GL, no clock) are public
//! and tested on the host with `cargo test -p vlab-frontend`. The rest only builds for
//! `wasm32`, where the constraints are: one thread, no files, no `std` time (use
//! `performance.now()`), and every callback handed to JS must outlive its use.

pub mod api;
pub mod challenge;
pub mod classroom;
pub mod connection;
pub mod course;
pub mod inspector;
pub mod page;
pub mod programs;
pub mod scene;
pub mod timeline;
pub mod ui;
pub mod view3d;

#[cfg(target_arch = "wasm32")]
mod app;
#[cfg(target_arch = "wasm32")]
mod features;
#[cfg(target_arch = "wasm32")]
mod toolbar;

/// Entry point, run by the JS glue once the module is instantiated: mounts the app.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn start() {
    ui::fault::install();
    leptos::mount::mount_to_body(app::App);
}
