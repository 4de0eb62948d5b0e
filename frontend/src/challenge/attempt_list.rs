//! This page's attempts, newest first: robot, status (live while open), score, time,
//! seed and reason; a finished one has "Watch replay" and its MCAP to download.
//!
//! The MCAP needs the session's bearer token, which a plain link cannot carry: the link
//! names the file, and a click fetches it and saves it from a Blob.

use leptos::prelude::*;
use vlab_protocol::{AttemptReport, Role};

use super::ChallengeState;
use super::client::{mcap_path, replay};
use super::panel::score_unit;
use super::replay::ReplayTrack;
use super::words::{attempt_summary, is_open, status_name};
use crate::api::{error_sentence, save_download};
use crate::connection::LabSession;
use crate::timeline::seek::Seeker;
use crate::ui::{ForEach, When};
use crate::view3d::ViewState;

/// Attempts shown at most (the newest).
const MAX_SHOWN: usize = 8;

/// The list; nothing while this page has no attempts.
#[component]
pub fn AttemptList() -> impl IntoView {
    let challenge = expect_context::<ChallengeState>();
    let session = expect_context::<LabSession>();
    let heading = move || match session.role.get() {
        Some(Role::Instructor) => "Attempts",
        _ => "Your attempts",
    };
    let shown = move || challenge.attempts.with(|list| list.iter().take(MAX_SHOWN).cloned().collect::<Vec<_>>());
    view! {
        <When when=move || challenge.attempts.with(|list| !list.is_empty())>
            <h4 class="challenge-heading">{heading}</h4>
            <ul class="attempt-list" role="list" data-testid="attempt-list">
                <ForEach
                    each=shown
                    key=|report: &AttemptReport| (report.id, report.status, report.ahead)
                    let:report
                >
                    <AttemptItem report=report />
                </ForEach>
            </ul>
        </When>
    }
}

/// One attempt.
#[component]
fn AttemptItem(report: AttemptReport) -> impl IntoView {
    let challenge = expect_context::<ChallengeState>();
    let summary = attempt_summary(&report, score_unit(challenge));
    let finished = !is_open(report.status);
    let id = report.id;
    let watching = move || challenge.watch.with(|watch| watch.attempt() == Some(id));
    view! {
        <li
            class="attempt-item"
            class:is-watched=watching
            data-testid="attempt-item"
            data-attempt=id.to_string()
            data-status=status_name(report.status)
            data-score=report.score.map(|s| s.to_string()).unwrap_or_default()
        >
            <div class="attempt-line">
                <span class="attempt-robot">{format!("#{id} {}", report.robot)}</span>
                <span class=format!("attempt-status status-{}", status_name(report.status))>{summary}</span>
            </div>
            {report.reason.clone().map(|reason| view! { <p class="attempt-reason">{reason}</p> })}
            {finished.then(|| view! { <AttemptActions id=id /> })}
        </li>
    }
}

/// "Watch replay" and the MCAP of a finished attempt.
#[component]
fn AttemptActions(id: u64) -> impl IntoView {
    let challenge = expect_context::<ChallengeState>();
    let session = expect_context::<LabSession>();
    let view_state = expect_context::<ViewState>();
    let seeker = Seeker::from_context();
    let loading = RwSignal::new(false);
    let watch = move |_| {
        let (lab, token) = (session.lab_id(), session.token());
        loading.set(true);
        challenge.error.set(None);
        leptos::task::spawn_local(async move {
            match replay(&lab, id, token.as_deref()).await {
                Ok(recorded) => {
                    // A recorded moment of the lab's timeline gives way to the attempt.
                    seeker.go_live();
                    challenge.show_replay(view_state, ReplayTrack::new(recorded));
                }
                Err(error) => challenge.error.set(Some(format!("No replay of #{id}: {}", error_sentence(&error)))),
            }
            loading.set(false);
        });
    };
    let lab = session.lab_id();
    let file_name = format!("{lab}-attempt-{id}.mcap");
    let path = mcap_path(&lab, id);
    let download = {
        let (path, file_name) = (path.clone(), file_name.clone());
        move |event: web_sys::MouseEvent| {
            event.prevent_default();
            let (path, file_name, token) = (path.clone(), file_name.clone(), session.token());
            leptos::task::spawn_local(async move {
                let saved = save_download(&path, token.as_deref(), &file_name).await;
                if let Err(why) = saved {
                    challenge.error.set(Some(format!("Not downloaded: {why}")));
                }
            });
        }
    };
    view! {
        <div class="attempt-actions">
            <button
                class="btn btn-small"
                data-testid="btn-watch-replay"
                data-attempt=id.to_string()
                disabled=move || loading.get()
                title="Show this attempt in the 3D view instead of the live lab"
                on:click=watch
            >
                {move || if loading.get() { "Loading…" } else { "Watch replay" }}
            </button>
            <a
                class="attempt-mcap"
                data-testid="attempt-mcap"
                href=path
                download=file_name
                title="The attempt's recording, for Foxglove and other robotics tools"
                on:click=download
            >
                "MCAP"
            </a>
            <When when=move || challenge.watch.with(|w| w.attempt() == Some(id))>
                <span class="badge is-replay">"shown"</span>
            </When>
        </div>
    }
}
