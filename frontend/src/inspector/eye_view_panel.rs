//! The robot's-eye view: the picked robot's cameras to choose from and, once one is
//! chosen, its latest image drawn on a canvas as the server sends it.
//!
//! The socket watches the chosen camera (`ClientMsg::WatchCamera`) only while it is
//! chosen and the panel shows it: the server encodes images for watched cameras only,
//! a few a second at most, and a page that falls behind skips images.

use leptos::prelude::*;
use vlab_protocol::{CameraView, ClientMsg};
use wasm_bindgen::JsCast;

use super::InspectorState;
use super::eye_view::{camera_names, rgba_of};
use crate::connection::LabSession;
use crate::ui::{ForEachName, When, effect, memo};

/// The section under the picked robot's report; nothing for a robot without cameras.
#[component]
pub fn RobotEyeView() -> impl IntoView {
    let inspector = expect_context::<InspectorState>();
    let cameras = memo(move |_| {
        inspector.robot_report.with(|report| report.as_ref().map(|r| camera_names(&r.sensors)).unwrap_or_default())
    });
    let chosen = RwSignal::new(None::<String>);
    // Another robot picked: its cameras are other ones.
    effect(move |previous: Option<Option<String>>| {
        let picked = inspector.inspected.get();
        if previous.is_some_and(|previous| previous != picked) {
            chosen.set(None);
        }
        picked
    });
    keep_watching(chosen);
    let canvas = NodeRef::<leptos::html::Canvas>::new();
    effect(move |_| {
        inspector.camera_view.with(|view| {
            if let (Some(view), Some(canvas)) = (view, canvas.get()) {
                draw(&canvas, view);
            }
        });
    });
    let shown_step = move || inspector.camera_view.with(|v| v.as_ref().map_or(String::new(), |v| v.step.to_string()));
    let caption = move || {
        inspector.camera_view.with(|view| match view {
            Some(view) => format!("{} · {}×{} · step {}", view.sensor, view.width, view.height, view.step),
            None if chosen.with(Option::is_some) => "Waiting for the camera's next image…".into(),
            None => "Pick a camera to see what the robot sees.".into(),
        })
    };
    view! {
        <When when=move || cameras.with(|c| !c.is_empty())>
            <section class="eye-view" data-testid="robot-eye-view">
                <h4>"Robot's-eye view"</h4>
                <div class="eye-view-cameras">
                    <ForEachName each=move || cameras.get() let:name>
                        {
                            let this = name.clone();
                            let on = move || chosen.with(|c| c.as_deref() == Some(this.as_str()));
                            let toggled = name.clone();
                            view! {
                                <button
                                    class="eye-view-camera"
                                    class:is-on=on.clone()
                                    data-testid="btn-watch-camera"
                                    data-camera=name.clone()
                                    title="Show what this camera sees, live"
                                    on:click=move |_| {
                                        chosen.update(|c| {
                                            *c = if c.as_deref() == Some(toggled.as_str()) { None } else { Some(toggled.clone()) };
                                        })
                                    }
                                >
                                    {name.clone()}
                                </button>
                            }
                        }
                    </ForEachName>
                </div>
                <When when=move || chosen.with(Option::is_some)>
                    <canvas node_ref=canvas class="eye-view-canvas" data-testid="eye-view-canvas" data-step=shown_step
                        width="160" height="120"></canvas>
                </When>
                <p class="eye-view-caption">{caption}</p>
            </section>
        </When>
    }
}

/// Watches `chosen` camera of the picked robot while connected; watches none when
/// nothing is chosen, and again after a reconnection (the server forgets it).
fn keep_watching(chosen: RwSignal<Option<String>>) {
    let (session, inspector) = (expect_context::<LabSession>(), expect_context::<InspectorState>());
    let watched = StoredValue::new(None::<(String, String)>);
    effect(move |_| {
        let connected = session.is_connected();
        let wanted = inspector.inspected.get().zip(chosen.get());
        if !connected {
            watched.set_value(None);
            return;
        }
        if watched.get_value() == wanted {
            return;
        }
        inspector.camera_view.set(None);
        match &wanted {
            Some((robot, sensor)) => {
                session.send(&ClientMsg::WatchCamera { robot: robot.clone(), sensor: sensor.clone() })
            }
            None => session.send(&ClientMsg::UnwatchCamera),
        };
        watched.set_value(wanted);
    });
    on_cleanup(move || {
        if watched.get_value().is_some() {
            session.send(&ClientMsg::UnwatchCamera);
            inspector.camera_view.set(None);
        }
    });
}

/// Draws `view` on `canvas` at its own size (the CSS scales it).
fn draw(canvas: &web_sys::HtmlCanvasElement, view: &CameraView) {
    let (width, height) = (u32::from(view.width), u32::from(view.height));
    if canvas.width() != width || canvas.height() != height {
        canvas.set_width(width);
        canvas.set_height(height);
    }
    let Ok(Some(context)) = canvas.get_context("2d") else { return };
    let Ok(context) = context.dyn_into::<web_sys::CanvasRenderingContext2d>() else { return };
    let rgba = rgba_of(&view.rgb);
    let clamped = wasm_bindgen::Clamped(rgba.as_slice());
    if let Ok(image) = web_sys::ImageData::new_with_u8_clamped_array_and_sh(clamped, width, height) {
        let _ = context.put_image_data(&image, 0.0, 0.0);
    }
}
