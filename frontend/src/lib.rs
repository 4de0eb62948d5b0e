//! The VLab browser app: leptos UI and three-d view of a lab, compiled to wasm.
//!
//! It knows the wire contract (`vlab-protocol`) and the browser, nothing of the server's
//! internals (rapier, axum, the store): everything it shows arrives over one websocket.
//!
//! Native vs web: the modules at the top of this list are pure (no DOM, no GL, no
//! clock) and tested on the host with `cargo test -p vlab-frontend`. The rest only
//! builds for `wasm32`, where the constraints are: one thread, no files, no `std` time
//! (use `performance.now()`), and every callback handed to JS must outlive its use.

pub mod asset_cache;
pub mod classroom;
pub mod clock;
pub mod connection_state;
pub mod console_log;
pub mod inspector;
pub mod orbit_camera;
pub mod page;
pub mod pose_math;
pub mod primitives;
pub mod program_upload;
pub mod python_syntax;
pub mod quality;
pub mod reconnect;
pub mod scene_upload;
pub mod vlab_syntax;
pub mod world;

#[cfg(target_arch = "wasm32")]
mod api_client;
#[cfg(target_arch = "wasm32")]
mod app;
#[cfg(target_arch = "wasm32")]
mod components;
#[cfg(target_arch = "wasm32")]
mod program_client;
#[cfg(target_arch = "wasm32")]
mod robot_client;
#[cfg(target_arch = "wasm32")]
mod scene_client;
#[cfg(target_arch = "wasm32")]
mod session;
#[cfg(target_arch = "wasm32")]
mod view3d;
#[cfg(target_arch = "wasm32")]
mod ws_client;

/// Entry point, run by the JS glue once the module is instantiated: mounts the app.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(app::App);
}
