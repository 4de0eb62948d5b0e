//! The 3D view: the lab's world as the server streams it, drawn with three-d into the page's WebGL2 canvas, once per animation frame, from an orbit camera.
//!
//! Pure, host-tested: [`world`] (snapshot + frames → body poses; the arithmetic is
//! `vlab_protocol::pose`), [`overlay`] (the picked robot's rays, trails and belief), [`belief_shapes`] (a
//! program's drawings and estimate in world space),
//! [`primitives`] (parts as unit primitives), [`orbit_camera`], [`quality`] (adaptive
//! resolution and shadows), [`asset_cache`] (per-URL state of meshes and textures),
//! [`sky`] (the colours of the ambient light's gradient), [`cutaway`] (walls between the
//! eye and what it looks at, left out of the picture), [`zones`] (a challenge's zones as
//! see-through primitives), [`placing`] (a thing dragged, lifted and turned by hand; undo).
//! Web only: `assets` fetches the meshes (as the triangles the server read from their
//! files) and textures the snapshot names, `gl` gets a
//! three-d context from the canvas leptos created, `renderer` turns the world into lit
//! meshes and draws them (lit by `environment`'s ambient light, made by the
//! `lighting` part a moment after the view opens, and a sun), `render_loop`
//! drives it with `requestAnimationFrame`, keeps the canvas sized to its box and adapts
//! the quality to the machine; `lab_canvas` is the component around it all, `camera_gestures` its pointer and wheel input,
//! `placing_state` and `placing_panel` placing things by hand (the drag, the server's answers, the panel's buttons).

pub mod asset_cache;
pub mod belief_shapes;
pub mod cutaway;
pub mod labels;
pub mod orbit_camera;
pub mod overlay;
pub mod picking;
pub mod placing;
pub mod primitives;
pub mod quality;
pub mod screen;
pub mod sensor_rays;
pub mod sky;
pub mod trail;
pub mod world;
pub mod zones;

#[cfg(target_arch = "wasm32")]
mod assets;
#[cfg(target_arch = "wasm32")]
mod belief_labels;
#[cfg(target_arch = "wasm32")]
mod camera_gestures;
#[cfg(target_arch = "wasm32")]
mod environment;
#[cfg(target_arch = "wasm32")]
mod gl;
#[cfg(target_arch = "wasm32")]
mod lab_canvas;
#[cfg(target_arch = "wasm32")]
mod overlay_meshes;
#[cfg(target_arch = "wasm32")]
mod placing_panel;
#[cfg(target_arch = "wasm32")]
mod placing_state;
#[cfg(target_arch = "wasm32")]
mod render_loop;
#[cfg(target_arch = "wasm32")]
mod renderer;
#[cfg(target_arch = "wasm32")]
mod robot_labels;
#[cfg(target_arch = "wasm32")]
mod state;
#[cfg(target_arch = "wasm32")]
mod view_toggles;

#[cfg(target_arch = "wasm32")]
pub(crate) use self::lab_canvas::LabCanvas;
#[cfg(target_arch = "wasm32")]
pub(crate) use self::state::ViewState;
