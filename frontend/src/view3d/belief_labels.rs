//! The texts the picked robot's program draws, as HTML labels over the 3D view that the render loop moves onto their points after every drawn frame, like the robots' labels.
//!
//! Each label carries its world point in `data-at`; placing it reads that back, so the
//! per-frame work touches only style attributes, never the reactive graph.

use leptos::html::Div;
use leptos::prelude::*;
use web_sys::{Element, HtmlDivElement};

use super::ViewState;
use crate::inspector::InspectorState;
use crate::ui::{ForEach, memo};
use crate::view3d::belief_shapes::belief_shapes;
use crate::view3d::orbit_camera::OrbitCamera;
use crate::view3d::screen::{Viewport, on_viewport, project};

/// How far beyond the canvas's edges a text may still be placed, CSS pixels.
const EDGE_MARGIN_PX: f32 = 60.0;

/// A label per text of the inspector's `belief`, hidden with the "Beliefs" checkbox.
#[component]
pub fn BeliefLabels(container: NodeRef<Div>) -> impl IntoView {
    let inspector = expect_context::<InspectorState>();
    let view = expect_context::<ViewState>();
    let texts =
        memo(move |_| inspector.belief.with(|b| b.as_ref().map(|b| belief_shapes(b).texts).unwrap_or_default()));
    let numbered = move || texts.get().into_iter().enumerate().collect::<Vec<_>>();
    view! {
        <div
            class="robot-labels belief-labels"
            class:is-hidden=move || !view.view_options.get().beliefs
            data-testid="belief-labels"
            node_ref=container
            aria-hidden="true"
        >
            <ForEach each=numbered key=|(index, text)| (*index, text.text.clone(), text.color.clone(), text.at.map(f32::to_bits)) let:item>
                {
                    let (_, text) = item;
                    let at = format!("{},{},{}", text.at[0], text.at[1], text.at[2]);
                    view! {
                        <div
                            class="belief-label"
                            data-testid="belief-label"
                            data-at=at
                            style:color=text.color.clone()
                        >
                            {text.text.clone()}
                        </div>
                    }
                }
            </ForEach>
        </div>
    }
}

/// Moves every label of `container` to its point as `camera` sees it on a canvas of
/// `viewport` CSS pixels; a point out of sight hides its label.
pub fn place_belief_labels(container: &HtmlDivElement, camera: &OrbitCamera, viewport: Viewport) {
    let labels = container.children();
    for index in 0..labels.length() {
        let Some(label) = labels.item(index) else { continue };
        let Some(at) = label.get_attribute("data-at") else { continue };
        let coordinates: Vec<f32> = at.split(',').filter_map(|c| c.parse().ok()).collect();
        let [x, y, z] = coordinates[..] else { continue };
        match project(camera, viewport, [x, y, z]).filter(|(pixel, _)| on_viewport(viewport, *pixel, EDGE_MARGIN_PX)) {
            Some(([px, py], _)) => {
                set(
                    &label,
                    "style",
                    &format!(
                        "{} transform: translate({px:.1}px, {py:.1}px) translate(-50%, -50%)",
                        color_style(&label)
                    ),
                );
                set(&label, "data-placed", "true");
            }
            None => set(&label, "data-placed", "false"),
        }
    }
}

/// The label's colour declaration, kept when its style is rewritten.
fn color_style(label: &Element) -> String {
    label
        .get_attribute("style")
        .and_then(|style| {
            style.split(';').find(|d| d.trim_start().starts_with("color")).map(|d| format!("{};", d.trim()))
        })
        .unwrap_or_default()
}

/// Sets an attribute unless it already has that value.
fn set(element: &Element, name: &str, value: &str) {
    if element.get_attribute(name).as_deref() != Some(value) {
        let _ = element.set_attribute(name, value);
    }
}
