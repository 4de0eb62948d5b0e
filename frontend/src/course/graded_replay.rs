//! A graded trial watched from its class (`?class=<id>&replay=<evaluation>/<trial>`):
//! the trial's recorded world in the lab's 3D view, played by the challenge's replay bar,
//! with no lab behind it.
//!
//! The view and its labels read the states a lab page gives them; here they get empty
//! ones (nobody is in a replay, nothing is picked but by a click), and the replay's
//! scene and frames are all they draw.

use leptos::prelude::*;
use vlab_protocol::Role;

use super::client::trial_replay;
use super::state::ClassSession;
use crate::api::error_sentence;
use crate::challenge::replay::ReplayTrack;
use crate::challenge::{ReplayBar, ReplayPlayer};
use crate::classroom::ClassState;
use crate::inspector::InspectorState;
use crate::page::class_query;
use crate::ui::When;
use crate::view3d::{LabCanvas, ViewState};

/// The page: a bar on top, the view, the replay's bar under it.
#[component]
pub fn GradedReplayPage(session: ClassSession, evaluation: i64, trial: u32) -> impl IntoView {
    let title = format!("Trial {trial} of evaluation #{evaluation}");
    document().set_title(&format!("{title} · VLab"));
    let view = ViewState::new();
    provide_context(view);
    provide_context(InspectorState::new());
    provide_context(ClassState::new(RwSignal::new(None::<Role>).read_only()));
    let player = ReplayPlayer::new();
    let error = RwSignal::new(None::<String>);
    leptos::task::spawn_local(async move {
        match trial_replay(&session.class(), &session.token(), evaluation, trial).await {
            Ok(replay) => player.show(view, ReplayTrack::new(replay)),
            Err(problem) => error.set(Some(error_sentence(&problem))),
        }
    });
    let back = format!("/{}", class_query(&session.class(), None));
    let on_back = Callback::new(move |()| {
        let _ = window().location().set_href(&back);
    });
    let heading = title.clone();
    let bar_title = Signal::derive(move || {
        player.replay.with(|track| track.as_ref().map(|t| format!("{heading} · {}", t.challenge())))
    });
    view! {
        <div class="app graded-replay" data-testid="graded-replay" data-evaluation=evaluation.to_string() data-trial=trial.to_string()>
            <header class="toolbar">
                <a class="brand" href="/">
                    <span class="brand-mark">"V"</span>
                    <span class="brand-name">"VLab"</span>
                </a>
                <span class="lab-title lab-name">{title}</span>
            </header>
            <div class="workspace">
                <main class="stage">
                    <LabCanvas />
                    <When when=move || error.with(Option::is_some)>
                        <p class="form-error replay-error" role="alert" data-testid="graded-replay-error">
                            {move || error.get()}
                        </p>
                    </When>
                    <ReplayBar player title=bar_title back_label="Back to the class" back_hint="Back to the class's page" on_back />
                </main>
            </div>
        </div>
    }
}
