//! The timeline's run picker: the current run and the earlier ones kept (before a reset
//! or a server restart); shown only when there is more than one.

use leptos::prelude::*;
use web_sys::Event;

use super::bar::BarModel;
use crate::timeline::replay::Target;
use crate::timeline::throttle::Throttle;
use crate::ui::{ForEach, When};

/// The picker; picking the current run goes back to live, an earlier one opens at its start.
#[component]
pub(super) fn RunPicker(bar: BarModel) -> impl IntoView {
    let pick_run = move |event: Event| {
        let Ok(picked) = event_target_value(&event).parse::<u32>() else { return };
        let Some(choice) = bar.choices.with_untracked(|c| c.iter().find(|c| c.run == picked).cloned()) else { return };
        if choice.current {
            bar.back_to_live();
            return;
        }
        let first = bar.timeline.recording.with_untracked(|summary| {
            summary.as_ref().and_then(|s| s.runs.iter().find(|r| r.run == picked).map(|r| r.first_step))
        });
        bar.throttle.update_value(Throttle::cancel);
        // An earlier run opens at its start (its first step still kept).
        bar.seeker.seek(Target { run: Some(picked), step: first.unwrap_or(0) });
    };
    view! {
        <When when=move || bar.choices.with(|c| c.len() > 1)>
            <select
                id="timeline-run"
                class="input timeline-run"
                data-testid="timeline-run"
                aria-label="Run to show"
                title="Earlier runs: before a reset or a server restart"
                on:change=pick_run
            >
                <ForEach each=move || bar.choices.get() key=|choice| (choice.run, choice.label.clone()) let:choice>
                    <option value=choice.run.to_string() prop:selected=move || bar.shown_run() == Some(choice.run)>
                        {choice.label.clone()}
                    </option>
                </ForEach>
            </select>
        </When>
    }
}
