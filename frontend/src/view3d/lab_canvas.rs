//! The 3D canvas: hosts the render loop and turns pointer and wheel input into camera moves.

use leptos::html::Canvas;
use leptos::prelude::*;
use web_sys::{PointerEvent, WheelEvent};

use super::render_loop::{RenderLoop, ViewCamera, ViewInputs};
use crate::connection::LabSession;

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
}

/// The lab's 3D view. `data-bodies` and `data-frames-drawn` let tests see what it drew.
#[component]
pub fn LabCanvas() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let canvas_ref = NodeRef::<Canvas>::new();
    let camera = StoredValue::new(ViewCamera::default());
    let drag = StoredValue::new(None::<Drag>);
    let render_loop = StoredValue::new_local(None::<RenderLoop>);
    let view_error = RwSignal::new(None::<String>);

    // Start drawing once the canvas is in the document.
    Effect::new(move |_| {
        let Some(canvas) = canvas_ref.get() else { return };
        if render_loop.with_value(Option::is_some) {
            return;
        }
        match RenderLoop::start(canvas, ViewInputs { world: session.world, camera, follow: session.follow }) {
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
        if drag.get_value().is_some_and(|d| d.pointer_id == event.pointer_id()) {
            drag.set_value(None);
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
                data-bodies=move || session.body_count.get().to_string()
                data-frames-drawn="0"
                data-quality="0"
                aria-label="3D view of the lab: drag to orbit, right-drag or shift-drag to pan, wheel to zoom, double-click to reframe"
                node_ref=canvas_ref
                on:pointerdown=on_pointer_down
                on:pointermove=on_pointer_move
                on:pointerup=on_pointer_end
                on:pointercancel=on_pointer_end
                on:wheel=on_wheel
                data-follow=move || session.follow.get().unwrap_or_default()
                on:dblclick=move |_| {
                    session.follow.set(None);
                    camera.update_value(ViewCamera::reframe);
                }
                on:contextmenu=|event| event.prevent_default()
            ></canvas>
            <Show when=move || view_error.get().is_some()>
                <div class="view-error">"The 3D view cannot start: " {move || view_error.get()}</div>
            </Show>
            <p class="canvas-hint">"Drag to orbit · right-drag to pan · wheel to zoom · double-click to reframe"</p>
        </div>
    }
}
