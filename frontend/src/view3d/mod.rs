//! The 3D view: draws the lab's world with three-d into the page's WebGL2 canvas, once per animation frame.
//!
//! [`assets`] fetches the meshes and textures the snapshot names. [`gl`] gets a three-d context from the canvas leptos created, [`renderer`] turns the
//! world into lit meshes and draws them (lit by [`environment`]'s ambient light and a
//! sun), [`render_loop`] drives it with `requestAnimationFrame`, keeps the canvas sized
//! to its box and adapts the quality to the machine.

mod assets;
mod environment;
mod gl;
mod render_loop;
mod renderer;

pub use render_loop::{RenderLoop, ViewCamera, ViewInputs};
