//! The "Add robot" panel (students and the instructor): a name, an example robot to start
//! from (or a description of one's own, typed or loaded from a file), the robot's program
//! (Python typed in the editor, or a `.py`/`.wasm` file opened), uploaded with the
//! session's token; errors marked at their line in the editor of their file, refusals
//! (locked, quota) said plainly. The same panel edits the program of a robot already in
//! the lab ("Edit program" in its console): then it shows the program only and saves it.
//!
//! Everything typed lives in a [`super::RobotDraft`] kept by the app: closing the panel or a
//! refused upload loses nothing. The sections are `robot_description` and
//! `program_editor`; what they share is a [`RobotForm`].

use leptos::prelude::*;
use vlab_protocol::SourceMessage;

use super::RobotUploadOpen;
use super::client::load_examples;
use super::program_editor::ProgramEditor;
use super::robot_description::{DescriptionEditor, ExamplePicker, RobotNameFields};
use super::robot_form::RobotForm;
use super::template::suffix_from_name;
use crate::scene::SceneResult;
use crate::ui::When;

/// The side panel beside the 3D view.
#[component]
pub fn RobotUpload() -> impl IntoView {
    let form = RobotForm::from_context();
    let RobotForm { class, draft, .. } = form;
    let open = expect_context::<RobotUploadOpen>().0;
    let editing = move || draft.editing.get();
    start_draft(form);
    let close = move || {
        open.set(false);
        draft.editing.set(None);
    };

    view! {
        <aside class="scene-editor robot-upload" data-testid="robot-upload" aria-label="Add a robot">
            <header class="panel-header">
                <h2 data-testid="robot-upload-title">
                    {move || match editing() {
                        Some(robot) => format!("Program of {robot}"),
                        None => "Add a robot".to_owned(),
                    }}
                </h2>
                <div class="spacer"></div>
                <button
                    class="panel-close"
                    data-testid="btn-close-robot-upload"
                    title="Close (the text is kept)"
                    aria-label="Close"
                    on:click=move |_| close()
                ></button>
            </header>
            <When when=move || editing().is_none()>
                <RobotNameFields form />
                <ExamplePicker form />
                <DescriptionEditor form />
            </When>
            <When when=move || class.settings.with(|s| s.is_some_and(|s| s.uploads_locked)) && form.bound_by_settings()>
                <p class="form-error">"The instructor has locked uploads for now."</p>
            </When>
            <ProgramEditor form />
            <UploadActions form />
            <SceneResult
                outcome=draft.outcome
                busy=draft.busy
                in_editor=move |message: SourceMessage| form.in_editor(&message)
                jump=Callback::new(move |message: SourceMessage| form.jump(&message))
                subject="the robot's files"
                hint=Signal::derive(move || {
                    if draft.editing.with(Option::is_some) {
                        "Ctrl+Enter or “Save program” replaces the program; the robot stays where it is."
                    } else {
                        "Ctrl+Enter or “Upload” adds the robot; its program starts at once."
                    }
                })
            />
        </aside>
    }
}

/// Asks for the example robots (again at every opening until the server has answered
/// with a list), and fills an empty name from the user's and an empty description from
/// the template.
fn start_draft(form: RobotForm) {
    let RobotForm { class, draft, .. } = form;
    if draft.examples.with_untracked(|examples| !matches!(examples, Some(Ok(_)))) {
        leptos::task::spawn_local(async move {
            draft.examples.set(Some(load_examples().await));
        });
    }
    if draft.suffix.with_untracked(String::is_empty) {
        let name = class.you.with_untracked(|you| you.as_ref().map(|you| you.name.clone())).unwrap_or_default();
        draft.suffix.set(suffix_from_name(&name));
    }
    if draft.text.with_untracked(String::is_empty) {
        form.fill_template();
    }
}

/// The quota's hint and the Upload (or Save program) button.
#[component]
fn UploadActions(form: RobotForm) -> impl IntoView {
    let RobotForm { class, draft, .. } = form;
    let editing = move || draft.editing.get();
    let upload = Callback::new(move |()| form.upload());
    view! {
        <div class="panel-actions">
            <span class="hint">
                {move || {
                    class
                        .settings
                        .get()
                        .filter(|_| form.bound_by_settings() && editing().is_none())
                        .map(|s| format!("up to {} robot(s) each", s.robot_quota))
                        .unwrap_or_default()
                }}
            </span>
            <div class="spacer"></div>
            <When
                when=move || editing().is_some()
                fallback=move || {
                    view! {
                        <button
                            class="btn btn-primary"
                            data-testid="btn-upload-robot"
                            disabled=move || draft.busy.get()
                            on:click=move |_| upload.run(())
                            title="Add the robot (and start its program); it is yours (Ctrl+Enter)"
                        >
                            {move || if draft.busy.get() { "Uploading…" } else { "Upload" }}
                        </button>
                    }
                }
            >
                <button
                    class="btn btn-primary"
                    data-testid="btn-save-program"
                    disabled=move || draft.busy.get()
                    on:click=move |_| upload.run(())
                    title="Replace the robot's program: the old one stops, the new one starts where the robot is (Ctrl+Enter)"
                >
                    {move || if draft.busy.get() { "Saving…" } else { "Save program" }}
                </button>
            </When>
        </div>
    }
}
