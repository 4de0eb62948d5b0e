//! The 3D canvas: hosts the render loop, turns pointer and wheel input into camera moves, and a click on a robot into picking it; the robots' labels and the view's checkboxes float over it.

use leptos::html::{Canvas, Div};
use leptos::prelude::*;

use super::ViewState;
use super::belief_labels::BeliefLabels;
use super::camera_gestures::CameraGestures;
use super::placing_panel::PlacingPanel;
use super::placing_state::Placer;
use super::render_loop::{RenderLoop, ViewCamera, ViewInputs};
use super::robot_labels::RobotLabels;
use super::view_toggles::ViewToggles;
use crate::inspector::InspectorState;
use crate::ui::{When, effect};
use crate::view3d::world::World;

/// The lab's 3D view. `data-bodies`, `data-zones`, `data-frames-drawn`, `data-picked`, `data-rays`
/// `data-trail-points` and `data-drawings` let tests see what it drew.
#[component]
pub fn LabCanvas() -> impl IntoView {
    let view = expect_context::<ViewState>();
    let inspector = expect_context::<InspectorState>();
    let canvas_ref = NodeRef::<Canvas>::new();
    let camera = StoredValue::new(ViewCamera::default());
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
            live_world: view.live_world,
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

    let placer = Placer::from_context(view);
    let gestures = CameraGestures::new(view, inspector, canvas_ref, camera, placer);
    view! {
        <div class="canvas-host">
            <canvas
                class="lab-canvas"
                data-testid="lab-canvas"
                data-bodies=move || view.body_count.get().to_string()
                data-zones=move || view.zone_count.get().to_string()
                data-frames-drawn="0"
                data-quality="0"
                data-lighting="even"
                data-picked=move || inspector.inspected.get().unwrap_or_default()
                aria-label="3D view of the lab: click a robot to inspect it, drag to orbit, right-drag or shift-drag to pan, wheel to zoom, double-click to reframe"
                node_ref=canvas_ref
                on:pointerdown=move |event| gestures.pointer_down(event)
                on:pointermove=move |event| gestures.pointer_move(event)
                on:pointerup=move |event| gestures.pointer_end(event)
                on:pointercancel=move |event| gestures.pointer_end(event)
                on:wheel=move |event| gestures.wheel(event)
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
            {placer.map(|placer| view! { <PlacingPanel placer=placer /> })}
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
                "Click a robot to inspect it · drag to orbit · right-drag to pan · wheel to zoom · double-click to reframe · \"Move things\": drag a thing to place it"
            </p>
        </div>
    }
}
