//! The 3D canvas: hosts the render loop, turns pointer and wheel input into camera moves, and a click on a robot into picking it; the robots' labels and the view's checkboxes float over it.

use leptos::html::{Canvas, Div};
use leptos::prelude::*;
use web_sys::{PointerEvent, WheelEvent};

use super::ViewState;
use super::belief_labels::BeliefLabels;
use super::render_loop::{RenderLoop, ViewCamera, ViewInputs};
use super::robot_labels::RobotLabels;
use super::view_toggles::ViewToggles;
use crate::inspector::InspectorState;
use crate::ui::{When, effect};
use crate::view3d::picking::{is_click, pick_robot};
use crate::view3d::screen::{Viewport, pixel_ray};
use crate::view3d::world::World;

/// Pixels one wheel "line" counts as (Firefox reports lines, Chromium pixels).
const WHEEL_LINE_PX: f64 = 16.0;
/// Pixels one wheel "page" counts as.
const WHEEL_PAGE_PX: f64 = 400.0;

/// What a drag does to the camera.
#[derive(Clone, Copy, PartialEq)]
enum DragMode {
    Orbit,
    Pan,
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

/// The lab's 3D view. `data-bodies`, `data-frames-drawn`, `data-picked`, `data-rays`
/// `data-trail-points` and `data-drawings` let tests see what it drew.
#[component]
pub fn LabCanvas() -> impl IntoView {
    let view = expect_context::<ViewState>();
    let inspector = expect_context::<InspectorState>();
    let canvas_ref = NodeRef::<Canvas>::new();
    let camera = StoredValue::new(ViewCamera::default());
    let drag = StoredValue::new(None::<Drag>);
    let render_loop = StoredValue::new_local(None::<RenderLoop>);
    let view_error = RwSignal::new(None::<String>);
    let labels = NodeRef::<Div>::new();
    let belief_labels = NodeRef::<Div>::new();

    // Start drawing once the canvas is in the document.
    effect(move |_| {
        let Some(canvas) = canvas_ref.get() else { return };
        if render_loop.with_value(Option::is_some) {
            return;
        }
        let inputs = ViewInputs {
            world: view.world,
            camera,
            follow: view.follow,
            picked: inspector.inspected,
            overlay: inspector.overlay,
            options: view.view_options,
            labels,
            belief_labels,
        };
        match RenderLoop::start(canvas, inputs) {
            Ok(running) => render_loop.set_value(Some(running)),
            Err(error) => view_error.set(Some(error)),
        }
    });
    on_cleanup(move || {
        render_loop.try_with_value(|running| running.as_ref().map(RenderLoop::stop));
    });

    let on_pointer_down = move |event: PointerEvent| {
        let mode = match event.button() {
            0 if !event.shift_key() => DragMode::Orbit,
            0..=2 => DragMode::Pan,
            _ => return,
        };
        event.prevent_default();
        if let Some(canvas) = canvas_ref.get_untracked() {
            let _ = canvas.set_pointer_capture(event.pointer_id());
        }
        drag.set_value(Some(Drag {
            pointer_id: event.pointer_id(),
            mode,
            last_x: event.client_x(),
            last_y: event.client_y(),
            path_px: 0.0,
        }));
    };
    let on_pointer_move = move |event: PointerEvent| {
        let Some(mut current) = drag.get_value() else { return };
        if current.pointer_id != event.pointer_id() {
            return;
        }
        let (dx, dy) = ((event.client_x() - current.last_x) as f32, (event.client_y() - current.last_y) as f32);
        current.last_x = event.client_x();
        current.last_y = event.client_y();
        current.path_px += f64::from(dx.hypot(dy));
        drag.set_value(Some(current));
        let height_px = canvas_ref.get_untracked().map_or(1, |c| c.client_height()) as f32;
        camera.update_value(|camera| {
            camera.user_moved = true;
            match current.mode {
                DragMode::Orbit => camera.orbit.orbit(dx, dy),
                DragMode::Pan => camera.orbit.pan(dx, dy, height_px),
            }
        });
    };
    let on_pointer_end = move |event: PointerEvent| {
        let Some(ended) = drag.get_value().filter(|d| d.pointer_id == event.pointer_id()) else { return };
        drag.set_value(None);
        // A left click that hardly moved picks the robot under it; a miss keeps the pick.
        if event.type_() == "pointerup" && ended.mode == DragMode::Orbit && is_click(ended.path_px) {
            let Some(canvas) = canvas_ref.get_untracked() else { return };
            let viewport = Viewport { width: canvas.client_width() as f32, height: canvas.client_height() as f32 };
            let orbit = camera.with_value(|camera| camera.orbit);
            let ray = pixel_ray(&orbit, viewport, event.offset_x() as f32, event.offset_y() as f32);
            if let Some(robot) = view.world.with_value(|world| pick_robot(world, &ray, orbit.eye(), orbit.target)) {
                inspector.inspect(Some(robot));
            }
        }
    };
    let on_wheel = move |event: WheelEvent| {
        event.prevent_default();
        let unit = match event.delta_mode() {
            WheelEvent::DOM_DELTA_LINE => WHEEL_LINE_PX,
            WheelEvent::DOM_DELTA_PAGE => WHEEL_PAGE_PX,
            _ => 1.0,
        };
        camera.update_value(|camera| {
            camera.user_moved = true;
            camera.orbit.zoom((event.delta_y() * unit) as f32);
        });
    };

    view! {
        <div class="canvas-host">
            <canvas
                class="lab-canvas"
                data-testid="lab-canvas"
                data-bodies=move || view.body_count.get().to_string()
                data-frames-drawn="0"
                data-quality="0"
                data-lighting="even"
                data-picked=move || inspector.inspected.get().unwrap_or_default()
                aria-label="3D view of the lab: click a robot to inspect it, drag to orbit, right-drag or shift-drag to pan, wheel to zoom, double-click to reframe"
                node_ref=canvas_ref
                on:pointerdown=on_pointer_down
                on:pointermove=on_pointer_move
                on:pointerup=on_pointer_end
                on:pointercancel=on_pointer_end
                on:wheel=on_wheel
                data-follow=move || view.follow.get().unwrap_or_default()
                on:dblclick=move |_| {
                    view.follow.set(None);
                    camera.update_value(ViewCamera::reframe);
                }
                on:contextmenu=|event| event.prevent_default()
            ></canvas>
            <RobotLabels container=labels />
            <BeliefLabels container=belief_labels />
            <ViewToggles />
            <button
                class="btn view-top"
                type="button"
                data-testid="btn-top-view"
                title="Look straight down on the whole lab (double-click the view to go back)"
                on:click=move |_| {
                    let Some(canvas) = canvas_ref.get_untracked() else { return };
                    let aspect = canvas.client_width().max(1) as f32 / canvas.client_height().max(1) as f32;
                    if let Some(bounds) = view.world.with_value(World::framing_bounds) {
                        view.follow.set(None);
                        camera.update_value(|camera| camera.look_from_above(bounds, aspect));
                    }
                }
            >
                "Top view"
            </button>
            <When when=move || view_error.get().is_some()>
                <div class="view-error">"The 3D view cannot start: " {move || view_error.get()}</div>
            </When>
            <p class="canvas-hint">
                "Click a robot to inspect it · drag to orbit · right-drag to pan · wheel to zoom · double-click to reframe"
            </p>
        </div>
    }
}
