//! The robots' labels over the 3D view: HTML boxes with each robot's name and its owner's, which the render loop moves onto the robots after every drawn frame.
//!
//! The boxes come from leptos (which robots, who owns them, which is picked); their
//! places from [`place_label`], lifted apart where they would cover one another
//! ([`lifts`]), written straight into their style: a reactive update
//! per frame would cost far more than the frame. They let the pointer through: a drag
//! that starts on a label still orbits the view.

use leptos::html::Div;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlDivElement, HtmlElement};

use super::ViewState;
use crate::classroom::ClassState;
use crate::inspector::InspectorState;
use crate::ui::{ForEachName, memo};
use crate::view3d::labels::{lifts, owner_text, place_label};
use crate::view3d::orbit_camera::OrbitCamera;
use crate::view3d::screen::Viewport;
use crate::view3d::world::World;

/// Gap between a label and the point above its robot, CSS pixels: seen from straight
/// above, the label would otherwise cover the robot.
const LABEL_GAP_PX: u32 = 8;

/// A label per robot of the scene, hidden with the "Labels" checkbox. `data-anchor-x`
/// and `data-anchor-y` say where the robot's main body is drawn (CSS pixels from the
/// canvas's corner): where a click picks it.
#[component]
pub fn RobotLabels(container: NodeRef<Div>) -> impl IntoView {
    let view = expect_context::<ViewState>();
    let inspector = expect_context::<InspectorState>();
    let class = expect_context::<ClassState>();
    view! {
        <div
            class="robot-labels"
            class:is-hidden=move || !view.view_options.get().labels
            data-testid="robot-labels"
            node_ref=container
            aria-hidden="true"
        >
            <ForEachName each=move || inspector.robots.get() let:name>
                {
                    let owner = {
                        let name = name.clone();
                        memo(move |_| class.participants.with(|people| owner_text(&name, people)))
                    };
                    let picked = {
                        let name = name.clone();
                        move || inspector.inspected.with(|robot| robot.as_ref() == Some(&name))
                    };
                    view! {
                        <div
                            class="robot-label"
                            class:is-picked=picked
                            data-testid="robot-label"
                            data-robot=name.clone()
                            data-owner=move || owner.get()
                        >
                            <span class="robot-label-name">{name.clone()}</span>
                            <span class="robot-label-owner">{move || owner.get()}</span>
                        </div>
                    }
                }
            </ForEachName>
        </div>
    }
}

/// Moves every label of `container` to its robot as `camera` sees the world on a
/// canvas of `viewport` CSS pixels; a robot out of sight hides its label.
pub fn place_labels(container: &HtmlDivElement, world: &World, camera: &OrbitCamera, viewport: Viewport) {
    let labels = container.children();
    // Sizes read first, then every position written: one layout per frame, not one per label.
    let mut shown = Vec::new();
    for index in 0..labels.length() {
        let Some(label) = labels.item(index) else { continue };
        let Some(robot) = label.get_attribute("data-robot") else { continue };
        match place_label(world, camera, viewport, &robot) {
            Some(place) => {
                let size = label
                    .dyn_ref::<HtmlElement>()
                    .map_or([0.0, 0.0], |element| [element.offset_width() as f32, element.offset_height() as f32]);
                shown.push((label, place, size));
            }
            None => set(&label, "data-placed", "false"),
        }
    }
    let lifted = lifts(&shown.iter().map(|(_, place, size)| (place.foot, *size)).collect::<Vec<_>>());
    for ((label, place, _), lift) in shown.iter().zip(lifted) {
        let [x, y] = place.foot;
        let y = y - lift;
        set(
            label,
            "style",
            &format!("transform: translate({x:.1}px, {y:.1}px) translate(-50%, calc(-100% - {LABEL_GAP_PX}px))"),
        );
        set(label, "data-anchor-x", &format!("{:.1}", place.anchor[0]));
        set(label, "data-anchor-y", &format!("{:.1}", place.anchor[1]));
        set(label, "data-placed", "true");
    }
}

/// Sets an attribute unless it already has that value (no needless style work).
fn set(element: &Element, name: &str, value: &str) {
    if element.get_attribute(name).as_deref() != Some(value) {
        let _ = element.set_attribute(name, value);
    }
}
