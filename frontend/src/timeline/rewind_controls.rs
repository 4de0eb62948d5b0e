//! The timeline's "Rewind the lab to here": a button while the instructor's page shows a moment of the current run, an inline confirm row, the request, back to live once the lab is there; a refusal under the bar.
//!
//! Who sees the button is the permission table's word (`ControlTime`, as for the time
//! controls); the server refuses the rest anyway. When and what it asks is in
//! [`super::rewind`].

use leptos::prelude::*;
use vlab_protocol::LabState;
use vlab_protocol::permissions::Action;

use super::TimelineState;
use crate::api::{error_sentence, fetch_json};
use crate::classroom::ClassState;
use crate::connection::LabSession;
use crate::timeline::replay::Replay;
use crate::timeline::rewind::{RewindPoint, confirm_text, rewind_point, rewind_request};
use crate::ui::{When, effect, memo};

/// The rewind's state on the bar; `Copy`, for the bar's two places.
#[derive(Clone, Copy)]
pub struct RewindUi {
    /// Where the button would take the lab, when it is offered.
    point: Memo<Option<RewindPoint>>,
    /// The step the confirm row asks about, while it is open.
    confirming: RwSignal<Option<RewindPoint>>,
    /// A rewind is on its way.
    busy: RwSignal<bool>,
    /// Why the last rewind was refused.
    error: RwSignal<Option<String>>,
}

impl RewindUi {
    /// The rewind of this page: the confirm row closes when the moment shown changes,
    /// and the refusal goes when the page is live again.
    pub fn new() -> RewindUi {
        let (class, timeline) = (expect_context::<ClassState>(), expect_context::<TimelineState>());
        let point = memo(move |_| {
            let current_run = timeline.recording.with(|summary| summary.as_ref().map(|s| s.run));
            rewind_point(class.may(Action::ControlTime), timeline.replay.with(Replay::shown), current_run)
        });
        let ui =
            RewindUi { point, confirming: RwSignal::new(None), busy: RwSignal::new(false), error: RwSignal::new(None) };
        effect(move |_| {
            let point = point.get();
            if ui.busy.get_untracked() {
                return;
            }
            if ui.confirming.get_untracked().is_some_and(|asked| Some(asked) != point) {
                ui.confirming.set(None);
            }
            if point.is_none() && timeline.replay.with_untracked(|r| !r.is_seeking()) {
                ui.error.set(None);
            }
        });
        ui
    }
}

/// "Rewind the lab to here", in the bar's row.
#[component]
pub fn RewindButton(ui: RewindUi) -> impl IntoView {
    let ask = move |_| {
        ui.error.set(None);
        ui.confirming.set(ui.point.get_untracked());
    };
    view! {
        <When when=move || ui.point.with(Option::is_some)>
            <button
                id="timeline-rewind"
                class="btn btn-small btn-danger"
                data-testid="timeline-rewind"
                data-step=move || ui.point.get().map(|p| p.step.to_string()).unwrap_or_default()
                title="Take the whole lab back to this step, paused; it goes on from here in a new run (the rest stays in the recording)"
                disabled=move || ui.busy.get() || ui.confirming.with(Option::is_some)
                on:click=ask
            >
                "Rewind the lab to here"
            </button>
        </When>
    }
}

/// The confirm row and the refusal, under the bar's row; `on_live` takes the page back
/// to live once the lab is rewound.
#[component]
pub fn RewindConfirm(ui: RewindUi, on_live: Callback<()>) -> impl IntoView {
    let session = expect_context::<LabSession>();
    let rewind = move |_| {
        let Some(point) = ui.confirming.get_untracked() else { return };
        let (url, body) = rewind_request(&session.lab_id(), point);
        let token = session.token();
        ui.busy.set(true);
        ui.error.set(None);
        leptos::task::spawn_local(async move {
            let done = fetch_json::<LabState>("POST", &url, token.as_deref(), body).await;
            ui.busy.set(false);
            ui.confirming.set(None);
            match done {
                // The lab waits at that step, paused: the page shows it live.
                Ok(_) => on_live.run(()),
                Err(refused) => ui.error.set(Some(format!("Not rewound: {}", error_sentence(&refused)))),
            }
        });
    };
    view! {
        <When when=move || ui.confirming.with(Option::is_some)>
            <div class="timeline-confirm" id="timeline-confirm" data-testid="timeline-confirm" role="alertdialog" aria-label="Rewind the lab?">
                <span class="timeline-confirm-text" data-testid="timeline-confirm-text">
                    {move || ui.confirming.get().map(confirm_text)}
                </span>
                <button
                    id="timeline-rewind-yes"
                    class="btn btn-small btn-danger"
                    data-testid="timeline-rewind-yes"
                    disabled=move || ui.busy.get()
                    on:click=rewind
                >
                    {move || if ui.busy.get() { "Rewinding…" } else { "Rewind" }}
                </button>
                <button
                    id="timeline-rewind-cancel"
                    class="btn btn-small"
                    data-testid="timeline-rewind-cancel"
                    disabled=move || ui.busy.get()
                    on:click=move |_| ui.confirming.set(None)
                >
                    "Cancel"
                </button>
            </div>
        </When>
        <When when=move || ui.error.with(Option::is_some)>
            <p id="timeline-error" class="timeline-error" role="alert" data-testid="timeline-error">
                {move || ui.error.get()}
            </p>
        </When>
    }
}
