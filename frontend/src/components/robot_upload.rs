//! The "Add robot" panel (students and the instructor): a name and a prefilled `.vlab` template of the course's diffbot at a free spot, editable, uploaded with the session's token; errors marked at their line, refusals (locked, quota) said plainly.
//!
//! The text lives in a [`RobotDraft`] kept by the app: closing the panel or a refused
//! upload loses nothing.

use leptos::prelude::*;
use vlab_protocol::{SceneUploadReply, SourceMessage};

use super::class_panel::RobotUploadOpen;
use super::code_editor::{CodeEditor, CodeEditorRefs};
use super::scene_result::SceneResult;
use crate::api_client::request;
use crate::classroom::{free_spot, interpret_robot_upload, robot_suffix, robot_template, suffix_from_name};
use crate::page::lab_api_path;
use crate::scene_upload::{UploadOutcome, caret_offset_utf16, editor_line, network_failure};
use crate::session::LabSession;

/// The robot being written.
#[derive(Clone, Copy)]
pub struct RobotDraft {
    /// The name typed (its suffix: `diffbot_<suffix>`).
    pub suffix: RwSignal<String>,
    /// The `.vlab` text.
    pub text: RwSignal<String>,
    /// An upload is under way.
    pub busy: RwSignal<bool>,
    /// How the last upload ended.
    pub outcome: RwSignal<Option<UploadOutcome>>,
}

impl RobotDraft {
    /// An empty draft (filled from the template when the panel first opens).
    pub fn new() -> RobotDraft {
        RobotDraft {
            suffix: RwSignal::new(String::new()),
            text: RwSignal::new(String::new()),
            busy: RwSignal::new(false),
            outcome: RwSignal::new(None),
        }
    }
}

/// The side panel beside the 3D view.
#[component]
pub fn RobotUpload() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let draft = expect_context::<RobotDraft>();
    let open = expect_context::<RobotUploadOpen>().0;
    let refs = CodeEditorRefs::new();
    let name_problem = RwSignal::new(None::<String>);

    // The template: this name, at a spot clear of everything that moves now.
    let fill_template = move || {
        let suffix = match robot_suffix(&draft.suffix.get_untracked()) {
            Ok(suffix) => suffix,
            Err(message) => {
                name_problem.set(Some(message));
                return;
            }
        };
        name_problem.set(None);
        let spot = session
            .world
            .with_value(|world| world.floor_and_occupied())
            .map_or([1.0, 1.0], |(area, occupied)| free_spot(area, &occupied));
        draft.text.set(robot_template(&suffix, spot));
        draft.outcome.set(None);
    };
    if draft.suffix.with_untracked(String::is_empty) {
        let name = session.you.with_untracked(|you| you.as_ref().map(|you| you.name.clone())).unwrap_or_default();
        draft.suffix.set(suffix_from_name(&name));
    }
    if draft.text.with_untracked(String::is_empty) {
        fill_template();
    }

    let line_of = move |message: &SourceMessage| draft.text.with_untracked(|text| editor_line(message, &[], text));
    let jump = Callback::new(move |message: SourceMessage| {
        let Some(line) = line_of(&message) else { return };
        let offset = draft.text.with_untracked(|text| caret_offset_utf16(text, line, message.col));
        refs.jump_to(offset, line);
    });
    let error_line = Signal::derive(move || match draft.outcome.get() {
        Some(UploadOutcome::Rejected { errors, .. }) => errors.iter().find_map(&line_of),
        _ => None,
    });

    let upload = Callback::new(move |()| {
        if draft.busy.get_untracked() {
            return;
        }
        let text = draft.text.get_untracked();
        if text.trim().is_empty() {
            draft.outcome.set(Some(UploadOutcome::Failed("The editor is empty: write your robot first.".into())));
            return;
        }
        let path = lab_api_path(&session.lab_id(), "/robots");
        let token = session.token();
        draft.busy.set(true);
        leptos::task::spawn_local(async move {
            let (outcome, robots) = match request("POST", &path, token.as_deref(), Some(&text), true).await {
                Ok((status, body)) => {
                    let robots =
                        serde_json::from_str::<SceneUploadReply>(&body).map(|reply| reply.robots).unwrap_or_default();
                    (interpret_robot_upload(status, &body), robots)
                }
                Err(message) => (network_failure(&message), Vec::new()),
            };
            let first_error = match &outcome {
                UploadOutcome::Rejected { errors, .. } => errors.first().cloned(),
                _ => None,
            };
            draft.busy.set(false);
            let added = matches!(outcome, UploadOutcome::Inserted { .. });
            draft.outcome.set(Some(outcome));
            if let Some(message) = first_error {
                jump.run(message);
            }
            if added && let Some(robot) = robots.into_iter().next() {
                // The new robot in the inspector: its sensors, and the keys to drive it.
                session.inspect(Some(robot));
            }
        });
    });

    view! {
        <aside class="scene-editor robot-upload" data-testid="robot-upload" aria-label="Add a robot">
            <header class="panel-header">
                <h2>"Add a robot"</h2>
                <div class="spacer"></div>
                <button
                    class="panel-close"
                    data-testid="btn-close-robot-upload"
                    title="Close (the text is kept)"
                    aria-label="Close"
                    on:click=move |_| open.set(false)
                ></button>
            </header>
            <div class="field-row">
                <label for="robot-suffix">"Name: diffbot_"</label>
                <input
                    id="robot-suffix"
                    class="input"
                    class:is-invalid=move || name_problem.with(Option::is_some)
                    data-testid="robot-suffix"
                    maxlength="24"
                    spellcheck="false"
                    autocomplete="off"
                    prop:value=move || draft.suffix.get()
                    on:input=move |event| draft.suffix.set(event_target_value(&event))
                    on:keydown=move |event: web_sys::KeyboardEvent| {
                        if event.key() == "Enter" {
                            fill_template();
                        }
                    }
                />
                <button
                    class="btn btn-small"
                    data-testid="btn-robot-template"
                    title="Write the template again with this name, at a free spot"
                    on:click=move |_| fill_template()
                >
                    "Use template"
                </button>
            </div>
            <Show when=move || name_problem.with(Option::is_some)>
                <p class="form-error" data-testid="robot-name-error">{move || name_problem.get()}</p>
            </Show>
            <Show when=move || session.settings.with(|s| s.is_some_and(|s| s.uploads_locked)) && !session.is_instructor()>
                <p class="form-error">"The instructor has locked uploads for now."</p>
            </Show>
            <CodeEditor text=draft.text error_line=error_line refs=refs on_submit=upload />
            <div class="panel-actions">
                <span class="hint">
                    {move || {
                        session
                            .settings
                            .get()
                            .filter(|_| !session.is_instructor())
                            .map(|s| format!("up to {} robot(s) each", s.robot_quota))
                            .unwrap_or_default()
                    }}
                </span>
                <div class="spacer"></div>
                <button
                    class="btn btn-primary"
                    data-testid="btn-upload-robot"
                    disabled=move || draft.busy.get()
                    on:click=move |_| upload.run(())
                    title="Add the robot to the lab; it is yours (Ctrl+Enter)"
                >
                    {move || if draft.busy.get() { "Uploading…" } else { "Upload" }}
                </button>
            </div>
            <SceneResult
                outcome=draft.outcome
                busy=draft.busy
                in_editor=move |message: SourceMessage| line_of(&message).is_some()
                jump=jump
            />
        </aside>
    }
}
