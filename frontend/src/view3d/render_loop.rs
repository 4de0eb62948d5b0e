//! Drives the renderer with requestAnimationFrame: keeps the canvas at its box size times devicePixelRatio, frames the scene, draws, counts frames.
//!
//! A frame is only drawn when something changed (bodies moved, camera, size) or
//! [`HEARTBEAT_MS`] passed: a paused lab then costs almost nothing, which matters on
//! laptops and under software WebGL, where one frame of this scene takes tens of ms.
//! When frames still come too slowly, [`QualityGovernor`] lowers the resolution, then
//! drops shadows. After every animation frame the page tells the server it drew the
//! frames received so far, so frames come as fast as the page draws them.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use leptos::html::Div;
use leptos::prelude::*;
use web_sys::HtmlCanvasElement;

use super::belief_labels::place_belief_labels;
use super::gl::three_d_context;
use super::renderer::Renderer;
use super::robot_labels::place_labels;
use crate::view3d::orbit_camera::OrbitCamera;
use crate::view3d::overlay::{Overlay, ViewOptions};
use crate::view3d::quality::QualityGovernor;
use crate::view3d::screen::Viewport;
use crate::view3d::world::World;

/// Longest time between two drawn frames, milliseconds, even when nothing changed:
/// keeps the picture fresh if the GL context was disturbed, and `data-frames-drawn` alive.
const HEARTBEAT_MS: f64 = 250.0;

/// How long framing waits for the first frame after a snapshot, milliseconds.
const FIRST_FRAME_WAIT_MS: f64 = 500.0;

/// Largest drawing-buffer edge, pixels: beyond it a 4K screen at 2× costs more than it shows.
const MAX_CANVAS_PX: f64 = 4096.0;

/// The camera as the view uses it: the orbit plus whether to frame the scene for the user.
#[derive(Clone, Copy, Debug, Default)]
pub struct ViewCamera {
    /// Where the eye is.
    pub orbit: OrbitCamera,
    /// The user dragged or zoomed: stop reframing automatically.
    pub user_moved: bool,
    /// Scene generation and canvas size the automatic framing was computed for.
    framed_for: Option<(u64, u32, u32)>,
}

impl ViewCamera {
    /// Asks for the scene to be framed again (double-click).
    pub fn reframe(&mut self) {
        self.user_moved = false;
        self.framed_for = None;
    }

    /// Looks straight down on `bounds` in a viewport of this `aspect` (the Top view
    /// button); the user's view from then on.
    pub fn look_from_above(&mut self, bounds: crate::view3d::world::Aabb, aspect: f32) {
        self.orbit = OrbitCamera::top_view(bounds, aspect);
        self.user_moved = true;
    }
}

/// What the loop reads each frame, shared with the UI.
#[derive(Clone, Copy)]
pub struct ViewInputs {
    /// Snapshot and poses.
    pub world: StoredValue<World>,
    /// The camera the pointer handlers move.
    pub camera: StoredValue<ViewCamera>,
    /// The robot whose main body the camera's target tracks every frame, if any.
    pub follow: RwSignal<Option<String>>,
    /// The picked robot: it glows, its overlay shows.
    pub picked: RwSignal<Option<String>>,
    /// Whether the world shown is the live lab's, which the picked robot and its
    /// overlay belong to (not while another world, such as an attempt's, is shown).
    pub live_world: RwSignal<bool>,
    /// The picked robot's rays and trails.
    pub overlay: StoredValue<Overlay>,
    /// Which overlays to show.
    pub options: RwSignal<ViewOptions>,
    /// The robots' labels, placed after every drawn frame.
    pub labels: NodeRef<Div>,
    /// The texts the picked robot's program draws, placed after every drawn frame.
    pub belief_labels: NodeRef<Div>,
}

/// A running render loop; [`RenderLoop::stop`] cancels the pending animation frame.
pub struct RenderLoop {
    state: Rc<LoopState>,
}

/// What a drawn frame showed, and when.
#[derive(Clone, Copy)]
struct DrawnFrame {
    orbit: OrbitCamera,
    size: (u32, u32),
    /// `performance.now()`, milliseconds.
    at_ms: f64,
}

struct LoopState {
    canvas: HtmlCanvasElement,
    renderer: RefCell<Renderer>,
    inputs: ViewInputs,
    frames_drawn: Cell<u64>,
    last_drawn: Cell<Option<DrawnFrame>>,
    /// Whether the previous animation frame drew (then the interval measures drawing speed).
    drew_last_tick: Cell<bool>,
    /// The scene generation last seen, and when it arrived (`performance.now()` ms).
    scene_seen: Cell<(u64, f64)>,
    quality: RefCell<QualityGovernor>,
    pending: Cell<Option<AnimationFrameRequestHandle>>,
    stopped: Cell<bool>,
}

impl RenderLoop {
    /// Creates the GL context on `canvas` and starts drawing every animation frame.
    pub fn start(canvas: HtmlCanvasElement, inputs: ViewInputs) -> Result<RenderLoop, String> {
        let gl = three_d_context(&canvas)?;
        let quality = if gl.software { QualityGovernor::for_software_rendering() } else { QualityGovernor::default() };
        let _ = canvas.set_attribute("data-quality", &quality.level().to_string());
        let mut renderer = Renderer::new(gl.context);
        renderer.set_shadows(quality.quality().shadows);
        let state = Rc::new(LoopState {
            canvas,
            renderer: RefCell::new(renderer),
            inputs,
            frames_drawn: Cell::new(0),
            last_drawn: Cell::new(None),
            drew_last_tick: Cell::new(false),
            scene_seen: Cell::new((0, 0.0)),
            quality: RefCell::new(quality),
            pending: Cell::new(None),
            stopped: Cell::new(false),
        });
        schedule(&state);
        Ok(RenderLoop { state })
    }

    /// Stops drawing; the next animation frame is cancelled.
    pub fn stop(&self) {
        self.state.stopped.set(true);
        if let Some(handle) = self.state.pending.take() {
            handle.cancel();
        }
    }
}

fn schedule(state: &Rc<LoopState>) {
    let next = state.clone();
    let handle = request_animation_frame_with_handle(move || {
        if next.stopped.get() {
            return;
        }
        next.tick();
        // Drawn or not, the page now shows every frame it received: the server may
        // send the next ones (see `connection::drawn`).
        crate::connection::drawn::frames_drawn();
        schedule(&next);
    });
    state.pending.set(handle.ok());
}

impl LoopState {
    fn tick(&self) {
        let (width, height) = self.fit_canvas();
        let now_ms = window().performance().map_or(0.0, |p| p.now());
        let mut renderer = self.renderer.borrow_mut();
        let Some((world_changed, scene_generation, frames_since_snapshot)) = self
            .inputs
            .world
            .try_with_value(|world| (renderer.sync(world), world.scene_generation(), world.frames_since_snapshot()))
        else {
            return;
        };
        if self.scene_seen.get().0 != scene_generation {
            self.scene_seen.set((scene_generation, now_ms));
        }
        // Following a robot: the orbit pivots on its main body, wherever it drives.
        if let Some(robot) = self.inputs.follow.try_get_untracked().flatten()
            && let Some(position) = self.inputs.world.try_with_value(|world| world.robot_position(&robot)).flatten()
        {
            self.inputs.camera.try_update_value(|camera| {
                camera.orbit.target = position;
                camera.user_moved = true;
            });
        }
        // A snapshot's poses may be stale (the server's first frame brings the live
        // ones): frame the scene on that frame, or after a short wait without one.
        let poses_current = frames_since_snapshot > 0 || now_ms - self.scene_seen.get().1 >= FIRST_FRAME_WAIT_MS;
        let hold = self.inputs.camera.try_update_value(|camera| {
            let wanted = (scene_generation, width, height);
            if camera.user_moved || camera.framed_for == Some(wanted) {
                return false;
            }
            if !poses_current {
                // Never framed yet: draw nothing rather than a view that jumps a moment later.
                return camera.framed_for.is_none();
            }
            if let Some(bounds) = self.inputs.world.with_value(World::framing_bounds) {
                camera.orbit = OrbitCamera::framing(bounds, width as f32 / height.max(1) as f32);
                camera.framed_for = Some(wanted);
            }
            false
        });
        if hold != Some(false) {
            self.drew_last_tick.set(false);
            return;
        }
        let orbit = self.inputs.camera.with_value(|camera| camera.orbit);
        let picked = self.inputs.picked.try_get_untracked().flatten().filter(|_| {
            // Another world than the live lab's: its robot of the same name is not the
            // picked one, and the picked one's rays are not there.
            self.inputs.live_world.try_get_untracked().unwrap_or(true)
        });
        let options = self.inputs.options.try_get_untracked().unwrap_or_default();
        let css = Viewport {
            width: self.canvas.client_width().max(1) as f32,
            height: self.canvas.client_height().max(1) as f32,
        };
        let metres_per_px = 2.0 * orbit.distance * (orbit.fov_y_rad * 0.5).tan() / css.height;
        let overlay_changed = self
            .inputs
            .overlay
            .try_with_value(|overlay| {
                self.inputs
                    .world
                    .with_value(|world| renderer.sync_picked(world, picked.as_deref(), overlay, options, metres_per_px))
            })
            .unwrap_or(false);
        let due = match self.last_drawn.get() {
            None => true,
            Some(last) => {
                overlay_changed
                    || world_changed
                    || renderer.shadows_pending()
                    || last.orbit != orbit
                    || last.size != (width, height)
                    || now_ms - last.at_ms >= HEARTBEAT_MS
            }
        };
        if !due {
            self.drew_last_tick.set(false);
            return;
        }
        if self.drew_last_tick.get()
            && let Some(last) = self.last_drawn.get()
        {
            let mut quality = self.quality.borrow_mut();
            if quality.record_frame_interval(now_ms - last.at_ms) {
                renderer.set_shadows(quality.quality().shadows);
                let _ = self.canvas.set_attribute("data-quality", &quality.level().to_string());
            }
        }
        renderer.render(&orbit, width, height, now_ms);
        self.last_drawn.set(Some(DrawnFrame { orbit, size: (width, height), at_ms: now_ms }));
        self.drew_last_tick.set(true);

        let frames = self.frames_drawn.get() + 1;
        self.frames_drawn.set(frames);
        let _ = self.canvas.set_attribute("data-frames-drawn", &frames.to_string());
        let (rays, trail_points) = renderer.overlay_counts();
        let _ = self.canvas.set_attribute("data-rays", &rays.to_string());
        let _ = self.canvas.set_attribute("data-trail-points", &trail_points.to_string());
        let _ = self.canvas.set_attribute("data-drawings", &renderer.drawn_drawings().to_string());
        let _ = self.canvas.set_attribute("data-lighting", renderer.lighting());
        if options.beliefs
            && let Some(container) = self.inputs.belief_labels.get_untracked()
        {
            place_belief_labels(&container, &orbit, css);
        }
        if options.labels
            && let Some(container) = self.inputs.labels.get_untracked()
        {
            self.inputs.world.with_value(|world| place_labels(&container, world, &orbit, css));
        }
    }

    /// Sizes the drawing buffer to the canvas's CSS box in device pixels (times the
    /// quality's resolution scale); returns it.
    fn fit_canvas(&self) -> (u32, u32) {
        let ratio = window().device_pixel_ratio().max(0.5) * self.quality.borrow().quality().resolution_scale;
        let scale = |css_px: i32| (f64::from(css_px.max(1)) * ratio).round().min(MAX_CANVAS_PX) as u32;
        let (width, height) = (scale(self.canvas.client_width()), scale(self.canvas.client_height()));
        if self.canvas.width() != width {
            self.canvas.set_width(width);
        }
        if self.canvas.height() != height {
            self.canvas.set_height(height);
        }
        (width, height)
    }
}
