//! The view's checkboxes over the canvas's corner: robot labels, the picked robot's rays, its trails, its program's belief.

use leptos::prelude::*;

use super::ViewState;
use crate::view3d::overlay::ViewOptions;

/// "Labels", "Rays", "Trails" and "Beliefs", bound to the view's `view_options`.
#[component]
pub fn ViewToggles() -> impl IntoView {
    let view = expect_context::<ViewState>();
    let options = view.view_options;
    let toggle = move |testid: &'static str,
                       text: &'static str,
                       hint: &'static str,
                       field: fn(&mut ViewOptions) -> &mut bool| {
        let checked = move || {
            let mut current = options.get();
            *field(&mut current)
        };
        view! {
            <label class="view-toggle" title=hint>
                <input
                    type="checkbox"
                    data-testid=testid
                    prop:checked=checked
                    on:change=move |event| {
                        let on = event_target_checked(&event);
                        options.update(|o| *field(o) = on);
                    }
                />
                {text}
            </label>
        }
    };
    view! {
        <div class="view-toggles" data-testid="view-toggles" role="group" aria-label="what the view shows">
            {toggle("toggle-labels", "Labels", "A label over every robot: its name and its owner's", |o| &mut o.labels)}
            {toggle("toggle-rays", "Rays", "The picked robot's sensor rays and where they hit", |o| &mut o.rays)}
            {toggle(
                "toggle-trails",
                "Trails",
                "The picked robot's path: true (green) and as its odometry believes (magenta)",
                |o| &mut o.trails,
            )}
            {toggle(
                "toggle-beliefs",
                "Beliefs",
                "What the picked robot's program believes: its estimate (orange, with its trail) and its drawings",
                |o| &mut o.beliefs,
            )}
        </div>
    }
}
