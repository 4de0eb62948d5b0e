//! The instructor's time controls: play/pause, step N, speed, reset. Only rendered for the instructor.

use leptos::prelude::*;
use vlab_protocol::{ControlAction, LabMode};

use crate::connection::LabSession;
use crate::connection::clock::{rate_from_option_value, rate_option_value};

/// The speeds offered, as option values and labels.
const RATES: [(&str, &str); 8] = [
    ("0.1", "0.1×"),
    ("0.25", "0.25×"),
    ("0.5", "0.5×"),
    ("1", "1×"),
    ("2", "2×"),
    ("5", "5×"),
    ("10", "10×"),
    ("max", "max"),
];

/// Step count offered by default.
const DEFAULT_STEPS: &str = "10";

/// What Reset asks before it rebuilds the lab for everybody.
const RESET_QUESTION: &str = "Reset the lab for everybody? Every robot goes back to where it started, at step 0, paused; \
     the recording starts a new run.";

/// Buttons that send `ClientMsg::Control`; the server enforces who may, this only hides them.
#[component]
pub fn TimeControls() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let steps_text = RwSignal::new(DEFAULT_STEPS.to_owned());
    let disabled = move || !session.is_connected() || session.lab_state.get().is_none();
    // Running or stepping: the button stops time; paused: it starts it.
    let advancing = move || session.lab_state.get().is_some_and(|s| s.mode != LabMode::Paused);
    let rate_value = move || session.lab_state.get().map(|s| rate_option_value(s.rate)).unwrap_or_default();

    let play_pause = move |_| {
        session.control(if advancing() { ControlAction::Pause } else { ControlAction::Resume });
    };
    let step = move |_| match steps_text.get_untracked().trim().parse::<u32>() {
        Ok(steps) => session.control(ControlAction::Step { steps }),
        Err(_) => session.error.set(Some(format!("“{}” is not a number of steps", steps_text.get_untracked()))),
    };
    let change_rate = move |event| match rate_from_option_value(&event_target_value(&event)) {
        Some(rate) => session.control(ControlAction::Rate { rate }),
        None => session.error.set(Some("unknown speed".into())),
    };

    view! {
        <div class="time-controls" data-testid="time-controls" role="group" aria-label="time controls">
            <button
                class="btn btn-primary play-pause"
                data-testid="btn-play-pause"
                disabled=disabled
                on:click=play_pause
                title=move || if advancing() { "Pause the simulation" } else { "Run the simulation" }
            >
                {move || if advancing() { "❚❚ Pause" } else { "▶ Play" }}
            </button>
            <div class="step-group">
                <input
                    class="step-count"
                    data-testid="step-count"
                    type="number"
                    min="1"
                    max=vlab_protocol::MAX_STEPS_PER_COMMAND.to_string()
                    step="1"
                    title="number of physics steps"
                    prop:value=move || steps_text.get()
                    on:input=move |event| steps_text.set(event_target_value(&event))
                />
                <button class="btn" data-testid="btn-step" disabled=disabled on:click=step title="Advance exactly this many steps">
                    "Step"
                </button>
            </div>
            <label class="rate" title="Speed of time (real-time factor)">
                <select data-testid="rate-select" aria-label="speed" disabled=disabled on:change=change_rate>
                    // Selection is set per option: a `value` set on the select before its
                    // options exist would be lost.
                    {RATES
                        .map(|(value, label)| {
                            view! {
                                <option value=value prop:selected=move || rate_value() == value>
                                    {label}
                                </option>
                            }
                        })}
                </select>
            </label>
            <button
                class="btn btn-danger"
                data-testid="btn-reset"
                disabled=disabled
                on:click=move |_| {
                    // Everybody's robots go back to their starts: asked first, as removing one robot is.
                    let sure = leptos::prelude::window().confirm_with_message(RESET_QUESTION).unwrap_or(false);
                    if sure {
                        session.control(ControlAction::Reset);
                    }
                }
                title="Rebuild the scene at step 0, paused"
            >
                "Reset"
            </button>
        </div>
    }
}
