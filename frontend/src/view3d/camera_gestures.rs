//! Pointer and wheel input on the 3D canvas: a drag orbits (left) or pans (right, or
//! shift-left), the wheel zooms, and a left click that hardly moved picks the robot
//! under it. With "Move things" on, a left press on a thing this page may move grabs it
//! instead: the drag places it (`placing_state`), and the camera holds still.

use leptos::html::Canvas;
use leptos::prelude::*;
use web_sys::{PointerEvent, WheelEvent};

use super::ViewState;
use super::placing_state::Placer;
use super::render_loop::ViewCamera;
use crate::inspector::InspectorState;
use crate::view3d::picking::{is_click, pick_body, pick_robot};
use crate::view3d::screen::{Viewport, pixel_ray};

/// Pixels one wheel "line" counts as (Firefox reports lines, Chromium pixels).
const WHEEL_LINE_PX: f64 = 16.0;
/// Pixels one wheel "page" counts as.
const WHEEL_PAGE_PX: f64 = 400.0;

/// What a drag does to the camera.
#[derive(Clone, Copy, PartialEq)]
enum DragMode {
    Orbit,
    Pan,
    /// A thing grabbed: the drag places it.
    Place,
}

/// A drag in progress.
#[derive(Clone, Copy)]
struct Drag {
    pointer_id: i32,
    mode: DragMode,
    last_x: i32,
    last_y: i32,
    /// How far the pointer travelled since the press, CSS pixels: a short one is a click.
    path_px: f64,
}

/// The canvas's gestures and what they move.
#[derive(Clone, Copy)]
pub(super) struct CameraGestures {
    pub view: ViewState,
    pub inspector: InspectorState,
    pub canvas: NodeRef<Canvas>,
    pub camera: StoredValue<ViewCamera>,
    placer: Option<Placer>,
    drag: StoredValue<Option<Drag>>,
}

impl CameraGestures {
    pub fn new(
        view: ViewState,
        inspector: InspectorState,
        canvas: NodeRef<Canvas>,
        camera: StoredValue<ViewCamera>,
        placer: Option<Placer>,
    ) -> Self {
        CameraGestures { view, inspector, canvas, camera, placer, drag: StoredValue::new(None) }
    }

    /// The ray from the eye through the pointer of `event`.
    fn ray(self, event: &PointerEvent) -> Option<crate::view3d::screen::Ray> {
        let canvas = self.canvas.get_untracked()?;
        let viewport = Viewport { width: canvas.client_width() as f32, height: canvas.client_height() as f32 };
        let orbit = self.camera.with_value(|camera| camera.orbit);
        Some(pixel_ray(&orbit, viewport, event.offset_x() as f32, event.offset_y() as f32))
    }

    /// A left press in placing mode on a thing this page may move grabs it.
    fn grabs(self, event: &PointerEvent) -> bool {
        let Some(placer) = self.placer.filter(|p| event.button() == 0 && p.state.mode.get_untracked()) else {
            return false;
        };
        let Some(ray) = self.ray(event) else { return false };
        let orbit = self.camera.with_value(|camera| camera.orbit);
        let body = self.view.world.with_value(|world| pick_body(world, &ray, orbit.eye(), orbit.target));
        body.is_some_and(|index| placer.grab(index, &ray))
    }

    pub fn pointer_down(self, event: PointerEvent) {
        let mode = match event.button() {
            0 if self.grabs(&event) => DragMode::Place,
            0 if !event.shift_key() => DragMode::Orbit,
            0..=2 => DragMode::Pan,
            _ => return,
        };
        event.prevent_default();
        if let Some(canvas) = self.canvas.get_untracked() {
            let _ = canvas.set_pointer_capture(event.pointer_id());
        }
        self.drag.set_value(Some(Drag {
            pointer_id: event.pointer_id(),
            mode,
            last_x: event.client_x(),
            last_y: event.client_y(),
            path_px: 0.0,
        }));
    }

    pub fn pointer_move(self, event: PointerEvent) {
        let Some(mut current) = self.drag.get_value() else { return };
        if current.pointer_id != event.pointer_id() {
            return;
        }
        let (dx, dy) = ((event.client_x() - current.last_x) as f32, (event.client_y() - current.last_y) as f32);
        current.last_x = event.client_x();
        current.last_y = event.client_y();
        current.path_px += f64::from(dx.hypot(dy));
        self.drag.set_value(Some(current));
        if current.mode == DragMode::Place {
            let (Some(placer), Some(ray)) = (self.placer, self.ray(&event)) else { return };
            let distance = self.camera.with_value(|camera| camera.orbit.distance);
            let turn = event.alt_key() || event.ctrl_key();
            placer.drag_to(&ray, event.shift_key(), turn, (dx, dy), distance, js_sys::Date::now());
            return;
        }
        let height_px = self.canvas.get_untracked().map_or(1, |c| c.client_height()) as f32;
        self.camera.update_value(|camera| {
            camera.user_moved = true;
            match current.mode {
                DragMode::Orbit => camera.orbit.orbit(dx, dy),
                DragMode::Pan => camera.orbit.pan(dx, dy, height_px),
                // Handled above: the camera holds still while a thing is dragged.
                DragMode::Place => {}
            }
        });
    }

    pub fn pointer_end(self, event: PointerEvent) {
        let Some(ended) = self.drag.get_value().filter(|d| d.pointer_id == event.pointer_id()) else { return };
        self.drag.set_value(None);
        if ended.mode == DragMode::Place {
            if let Some(placer) = self.placer {
                placer.release();
            }
            return;
        }
        // A left click that hardly moved picks the robot under it; a miss keeps the pick.
        if event.type_() == "pointerup" && ended.mode == DragMode::Orbit && is_click(ended.path_px) {
            let Some(canvas) = self.canvas.get_untracked() else { return };
            let viewport = Viewport { width: canvas.client_width() as f32, height: canvas.client_height() as f32 };
            let orbit = self.camera.with_value(|camera| camera.orbit);
            let ray = pixel_ray(&orbit, viewport, event.offset_x() as f32, event.offset_y() as f32);
            if let Some(robot) = self.view.world.with_value(|world| pick_robot(world, &ray, orbit.eye(), orbit.target))
            {
                self.inspector.inspect(Some(robot));
            }
        }
    }

    pub fn wheel(self, event: WheelEvent) {
        event.prevent_default();
        let unit = match event.delta_mode() {
            WheelEvent::DOM_DELTA_LINE => WHEEL_LINE_PX,
            WheelEvent::DOM_DELTA_PAGE => WHEEL_PAGE_PX,
            _ => 1.0,
        };
        self.camera.update_value(|camera| {
            camera.user_moved = true;
            camera.orbit.zoom((event.delta_y() * unit) as f32);
        });
    }
}
