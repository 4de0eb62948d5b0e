//! The placing controls over the 3D view: the "Move things" toggle, and for the thing
//! selected its name, ⟲ ⟳ (turn), ↑ ↓ (lift), exact coordinates, Undo (also Ctrl+Z) and
//! the server's answer to the last placement.

use leptos::ev;
use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, KeyboardEvent};

use super::placing::{LIFT_STEP_M, Placement, TURN_STEP};
use super::placing_state::{PlaceStatus, Placer};
use crate::ui::When;

/// The toggle and, while it is on, the selected thing's controls.
#[component]
pub fn PlacingPanel(placer: Placer) -> impl IntoView {
    let state = placer.state;
    let keys = window_event_listener(ev::keydown, move |event: KeyboardEvent| {
        let undo =
            (event.ctrl_key() || event.meta_key()) && !event.shift_key() && event.key().eq_ignore_ascii_case("z");
        if undo && state.mode.get_untracked() && !typed_into_a_field(&event) {
            event.prevent_default();
            placer.undo();
        }
    });
    on_cleanup(move || keys.remove());
    let coordinates = RwSignal::new([String::new(), String::new(), String::new(), String::new()]);
    // The fields show where the selected thing is whenever another is selected.
    Effect::new(move |_| {
        let _ = state.selected.get();
        if let Some(at) = placer.selected_placement() {
            let [x, y, z] = at.position;
            coordinates.set([x, y, z, at.heading.to_degrees()].map(|v| format!("{v:.3}")));
        }
    });
    let field = move |index: usize, testid: &'static str, label: &'static str| {
        view! {
            <label class="placing-field">
                {label}
                <input
                    type="number"
                    step="0.01"
                    data-testid=testid
                    prop:value=move || coordinates.with(|c| c[index].clone())
                    on:input=move |event| coordinates.update(|c| c[index] = event_target_value(&event))
                />
            </label>
        }
    };
    let place_typed = move |_| {
        let values = coordinates.get_untracked().map(|v| v.trim().parse::<f32>().ok().filter(|v| v.is_finite()));
        let [Some(x), Some(y), Some(z), Some(degrees)] = values else {
            state
                .status
                .set(Some(PlaceStatus::Refused("type four numbers: x, y, z (metres) and heading (degrees)".into())));
            return;
        };
        placer.place_at(Placement { position: [x, y, z], heading: degrees.to_radians() });
    };
    view! {
        <div class="placing" data-testid="placing">
            <label class="view-toggle placing-mode" title="Press a thing you may move and drag it: Shift+drag lifts it, Alt+drag turns it">
                <input
                    type="checkbox"
                    data-testid="place-mode"
                    prop:checked=move || state.mode.get()
                    on:change=move |event| state.mode.set(event_target_checked(&event))
                />
                "Move things"
            </label>
            <When when=move || state.mode.get()>
                <div class="placing-panel" data-testid="placing-panel" role="group" aria-label="placing the selected thing">
                    <span class="placing-name" data-testid="placing-selected">
                        {move || state.selected.get().unwrap_or_else(|| "press a thing to move it".into())}
                    </span>
                    <When when=move || state.selected.get().is_some()>
                        <button type="button" class="btn" data-testid="place-turn-left" title="Turn 15° counter-clockwise"
                            on:click=move |_| placer.nudge(0.0, TURN_STEP)>"⟲"</button>
                        <button type="button" class="btn" data-testid="place-turn-right" title="Turn 15° clockwise"
                            on:click=move |_| placer.nudge(0.0, -TURN_STEP)>"⟳"</button>
                        <button type="button" class="btn" data-testid="place-lift-up" title="Lift 5 cm"
                            on:click=move |_| placer.nudge(LIFT_STEP_M, 0.0)>"↑"</button>
                        <button type="button" class="btn" data-testid="place-lift-down" title="Lower 5 cm"
                            on:click=move |_| placer.nudge(-LIFT_STEP_M, 0.0)>"↓"</button>
                        {field(0, "place-x", "x")}
                        {field(1, "place-y", "y")}
                        {field(2, "place-z", "z")}
                        {field(3, "place-heading", "heading °")}
                        <button type="button" class="btn" data-testid="place-typed" on:click=place_typed>"Place"</button>
                    </When>
                    <button
                        type="button"
                        class="btn"
                        data-testid="undo-placement"
                        title="Put the thing back where it was before the last placement (Ctrl+Z)"
                        prop:disabled=move || !state.can_undo.get()
                        on:click=move |_| placer.undo()
                    >
                        "Undo"
                    </button>
                    <span
                        class="placing-status"
                        data-testid="placement-status"
                        data-refused=move || matches!(state.status.get(), Some(PlaceStatus::Refused(_))).to_string()
                    >
                        {move || match state.status.get() {
                            Some(PlaceStatus::Done(text) | PlaceStatus::Refused(text)) => text,
                            None => String::new(),
                        }}
                    </span>
                </div>
            </When>
        </div>
    }
}

/// Whether the key went to a place that types text: those keep Ctrl+Z for themselves.
fn typed_into_a_field(event: &KeyboardEvent) -> bool {
    let Some(element) = event.target().and_then(|t| t.dyn_into::<HtmlElement>().ok()) else { return false };
    matches!(element.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT") || element.is_content_editable()
}
