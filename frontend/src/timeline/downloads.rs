//! The recording's download buttons: the picked robot's readings (CSV) and recording (MCAP) in the Robots panel for its owner and the instructor, the whole lab's in the instructor's tools; the run shown, whole or only up to the moment shown.
//!
//! Who sees them is the permission table's word (`ExportRobotRecording`,
//! `ExportRecording`); the server refuses the rest anyway, and a refusal shows under the
//! buttons. The files need the session's bearer token, which a plain link cannot carry:
//! they are fetched, then saved from a Blob.

use leptos::prelude::*;
use vlab_protocol::permissions::Action;

use super::TimelineState;
use crate::api::save_download;
use crate::classroom::ClassState;
use crate::connection::LabSession;
use crate::inspector::InspectorState;
use crate::timeline::exports::{ExportFormat, ExportScope, ExportSpan, export_file_name, export_url};
use crate::timeline::replay::Replay;
use crate::timeline::span::first_kept_step;
use crate::ui::When;

/// The picked robot's downloads, for those who may export its recording.
#[component]
pub fn RobotDownloads() -> impl IntoView {
    let inspector = expect_context::<InspectorState>();
    let class = expect_context::<ClassState>();
    let may = move || inspector.inspected.get().is_some_and(|robot| class.may_on(Action::ExportRobotRecording, &robot));
    let scope = Signal::derive(move || inspector.inspected.get().map(ExportScope::Robot));
    view! {
        <When when=may>
            <Downloads scope title="Recording" testid="robot-downloads" />
        </When>
    }
}

/// The whole lab's downloads, for those who may export the lab's recording.
#[component]
pub fn LabDownloads() -> impl IntoView {
    let class = expect_context::<ClassState>();
    let scope = Signal::derive(|| Some(ExportScope::Lab));
    view! {
        <When when=move || class.may(Action::ExportRecording)>
            <Downloads scope title="Recording of the lab" testid="lab-downloads" />
        </When>
    }
}

/// Two buttons (CSV, MCAP), the "up to the moment shown" choice while seeking, and the
/// error of the last attempt.
#[component]
fn Downloads(scope: Signal<Option<ExportScope>>, title: &'static str, testid: &'static str) -> impl IntoView {
    let session = expect_context::<LabSession>();
    let timeline = expect_context::<TimelineState>();
    let up_to_moment = RwSignal::new(true);
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let shown = move || timeline.replay.with(Replay::shown);
    // The run on screen: the moment's while seeking, the current one otherwise.
    let span = move || -> Option<ExportSpan> {
        timeline.recording.with(|summary| {
            let summary = summary.as_ref()?;
            Some(match shown() {
                Some(shown) if up_to_moment.get() => {
                    ExportSpan { run: shown.run, steps: Some((first_kept_step(summary, shown.run), shown.step)) }
                }
                Some(shown) => ExportSpan { run: shown.run, steps: None },
                None => ExportSpan { run: summary.run, steps: None },
            })
        })
    };
    let what = move || match span() {
        Some(ExportSpan { run, steps: Some((_, to)) }) => format!("Run {run}, up to step {to}"),
        Some(ExportSpan { run, steps: None }) => format!("Run {run}, all of it kept"),
        None => "Nothing recorded".to_owned(),
    };
    let download = move |format: ExportFormat| {
        let (Some(scope), Some(span)) = (scope.get_untracked(), span()) else { return };
        let lab = session.lab_id();
        let url = export_url(&lab, &scope, format, span);
        let name = export_file_name(&lab, &scope, format, span);
        let token = session.token();
        busy.set(true);
        error.set(None);
        leptos::task::spawn_local(async move {
            let saved = save_download(&url, token.as_deref(), &name).await;
            error.set(saved.err().map(|why| format!("Not downloaded: {why}")));
            busy.set(false);
        });
    };
    let button = move |format: ExportFormat, text: &'static str, hint: &'static str, id: &'static str| {
        view! {
            <button
                class="btn btn-small"
                data-testid=id
                data-format=match format {
                    ExportFormat::Csv => "csv",
                    ExportFormat::Mcap => "mcap",
                }
                title=hint
                disabled=move || busy.get() || span().is_none()
                on:click=move |_| download(format)
            >
                {text}
            </button>
        }
    };
    let (csv_text, csv_hint) = match scope.get_untracked() {
        Some(ExportScope::Robot(_)) => ("Readings (CSV)", "Every reading of its sensors, one per line"),
        _ => ("Readings (CSV)", "Every robot's readings, one per line"),
    };
    view! {
        <section class="robot-section downloads" data-testid=testid>
            <h4>{title}</h4>
            <p class="robot-hint downloads-what" data-testid="downloads-what">{what}</p>
            <div class="downloads-buttons">
                {button(ExportFormat::Csv, csv_text, csv_hint, "btn-download-csv")}
                {button(
                    ExportFormat::Mcap,
                    "Recording (MCAP)",
                    "Poses, readings, estimates and events, for Foxglove and other robotics tools",
                    "btn-download-mcap",
                )}
            </div>
            <When when=move || shown().is_some()>
                <label class="toggle downloads-upto">
                    <input
                        type="checkbox"
                        data-testid="toggle-download-upto"
                        prop:checked=move || up_to_moment.get()
                        on:change=move |event| up_to_moment.set(event_target_checked(&event))
                    />
                    <span>{move || format!("Only up to this step ({})", shown().map_or(0, |s| s.step))}</span>
                </label>
            </When>
            <When when=move || error.with(Option::is_some)>
                <p class="downloads-error" role="alert" data-testid="downloads-error">{move || error.get()}</p>
            </When>
        </section>
    }
}
