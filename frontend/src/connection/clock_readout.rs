//! The lab clock as the toolbar shows it: sim time, step counter and mode (with the rate).

use leptos::prelude::*;
use vlab_protocol::LabMode;

use crate::connection::LabSession;
use crate::connection::clock::rate_option_value;

/// `12.345 s · step 2 963 · Running 1×`, each with a machine-readable attribute.
#[component]
pub fn ClockReadout() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let clock = session.clock;
    let mode = move || session.lab_state.get().map(|state| state.mode);
    let mode_attr = move || {
        mode().map(|mode| match mode {
            LabMode::Paused => "paused",
            LabMode::Running => "running",
            LabMode::Stepping => "stepping",
        })
    };
    let mode_text = move || match session.lab_state.get() {
        None => "—".to_owned(),
        Some(state) => {
            let rate = rate_option_value(state.rate);
            let rate = if rate == "max" { rate } else { format!("{rate}×") };
            match state.mode {
                LabMode::Paused => "Paused".to_owned(),
                LabMode::Running => format!("Running · {rate}"),
                LabMode::Stepping => "Stepping…".to_owned(),
            }
        }
    };

    view! {
        // Dimmed while disconnected: the values are the last ones known, not live.
        <div class="clock" class:is-stale=move || !session.is_connected()>
            <span
                class="readout sim-time"
                data-testid="sim-time"
                data-time=move || clock.get().time_attr()
                title="simulation time"
            >
                {move || clock.get().time_text()}
            </span>
            <span
                class="readout step-counter"
                data-testid="step-counter"
                data-step=move || clock.get().step.to_string()
                title="physics steps since the last reset"
            >
                {move || clock.get().step_text()}
            </span>
            <span class="chip lab-mode" data-testid="lab-mode" data-mode=mode_attr>
                <span class="dot"></span>
                <span>{mode_text}</span>
            </span>
        </div>
    }
}
