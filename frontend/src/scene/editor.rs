//! The instructor's "Add to scene" panel: write or load `.vlab` source, insert it into the running lab, see what happened.
//!
//! The text lives in the app's [`SceneDraft`], not here: closing the panel, a refused
//! upload or a reload (through `localStorage`) loses nothing.

use leptos::prelude::*;
use vlab_protocol::SourceMessage;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;

use super::result::SceneResult;
use super::syntax::highlight_html;
use crate::connection::LabSession;
use crate::scene::client::{SceneDraft, read_files, upload};
use crate::scene::upload::{UploadOutcome, caret_offset_utf16, editor_line, file_names, sort_picked_files};
use crate::ui::{AttachedFiles, CodeEditor, CodeEditorRefs};

/// The side panel; render it only for the instructor.
#[component]
pub fn SceneEditor() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let draft = expect_context::<SceneDraft>();
    let refs = CodeEditorRefs::new();
    let highlighted = Signal::derive(move || draft.text.with(|text| highlight_html(text)));

    let line_of = move |message: &SourceMessage| {
        // A file attached or removed may move an error into or out of the editor.
        draft.includes.track();
        line_in_editor(draft, message)
    };
    let jump = Callback::new(move |message: SourceMessage| {
        let Some(line) = line_of(&message) else {
            return;
        };
        let offset = draft.text.with_untracked(|text| caret_offset_utf16(text, line, message.col));
        refs.jump_to(offset, line);
    });
    // The first error in the editor's text, marked in the gutter and the line.
    let error_line = Signal::derive(move || match draft.outcome.get() {
        Some(UploadOutcome::Rejected { errors, .. }) => errors.iter().find_map(&line_of),
        _ => None,
    });
    let insert = Callback::new(move |()| insert_scene(session, draft, jump));
    let pick_files = move |event: web_sys::Event| load_picked_files(draft, event);

    view! {
        <aside class="scene-editor" data-testid="scene-editor" aria-label="Add to scene">
            <header class="panel-header">
                <h2>"Add to scene"</h2>
                <span class="main-name" title="the name errors refer to">{move || draft.main_name.get()}</span>
                <div class="spacer"></div>
                <button
                    class="panel-close"
                    data-testid="btn-close-scene-editor"
                    title="Close (the text is kept)"
                    aria-label="Close"
                    on:click=move |_| draft.open.set(false)
                ></button>
            </header>
            <div class="panel-files">
                <label class="btn file-pick" title="Load a .vlab scene, and the files it includes">
                    "Load files…"
                    <input
                        type="file"
                        multiple=true
                        accept=".vlab,.rhai,.rprj,.txt"
                        data-testid="scene-files"
                        on:change=pick_files
                    />
                </label>
                <AttachedFiles
                    names=Signal::derive(move || draft.includes.with(|files| file_names(files)))
                    on_remove=Callback::new(move |name: String| draft.includes.update(|files| files.retain(|f| f.name != name)))
                />
            </div>
            <CodeEditor text=draft.text highlighted=highlighted error_line=error_line refs=refs on_submit=insert />
            <div class="panel-actions">
                <button
                    class="btn btn-primary"
                    data-testid="btn-insert-scene"
                    disabled=move || draft.busy.get()
                    on:click=move |_| insert.run(())
                    title="Interpret the scene on the server and insert it into the running lab (Ctrl+Enter)"
                >
                    {move || if draft.busy.get() { "Inserting…" } else { "Insert" }}
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

/// The editor's line a message points at, if it is about the editor's text (not an include).
fn line_in_editor(draft: SceneDraft, message: &SourceMessage) -> Option<u32> {
    let include_names = draft.includes.with_untracked(|files| files.iter().map(|f| f.name.clone()).collect::<Vec<_>>());
    draft.text.with_untracked(|text| editor_line(message, &include_names, text))
}

/// Sends the editor's scene to be inserted; a refusal's first error in the editor's
/// text is jumped to.
fn insert_scene(session: LabSession, draft: SceneDraft, jump: Callback<SourceMessage>) {
    if draft.busy.get_untracked() {
        return;
    }
    let text = draft.text.get_untracked();
    if text.trim().is_empty() {
        draft.outcome.set(Some(UploadOutcome::Failed("The editor is empty: write or load a scene first.".into())));
        return;
    }
    let (path, token) = session.params.with_value(|p| (p.scene_upload_path(), p.token.clone()));
    let (main_name, includes) = (draft.main_name.get_untracked(), draft.includes.get_untracked());
    draft.busy.set(true);
    leptos::task::spawn_local(async move {
        let outcome = upload(path, token, main_name, text, includes).await;
        let first_error = match &outcome {
            UploadOutcome::Rejected { errors, .. } => {
                errors.iter().find(|m| line_in_editor(draft, m).is_some()).cloned()
            }
            _ => None,
        };
        draft.busy.set(false);
        draft.outcome.set(Some(outcome));
        if let Some(message) = first_error {
            jump.run(message);
        }
    });
}

/// Files picked with "Load files…": the main scene into the editor (asking before it
/// replaces other text), the files it includes beside it.
fn load_picked_files(draft: SceneDraft, event: web_sys::Event) {
    let Some(input) = event.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) else {
        return;
    };
    let Some(files) = input.files() else { return };
    leptos::task::spawn_local(async move {
        let picked = match read_files(files).await {
            Ok(picked) => picked,
            Err(message) => {
                draft.outcome.set(Some(UploadOutcome::Failed(message)));
                return;
            }
        };
        // Clear the picker so choosing the same file again reloads it.
        input.set_value("");
        let roles = draft.text.with_untracked(|text| sort_picked_files(text, &picked));
        if let Some(main) = roles.main {
            let file = &picked[main];
            let text = file.as_text().unwrap_or_default().to_owned();
            let current = draft.text.get_untracked();
            let replace = current.trim().is_empty()
                || current == text
                || window()
                    .confirm_with_message(&format!("Replace the text in the editor with {}?", file.name))
                    .unwrap_or(false);
            if replace {
                draft.text.set(text);
                draft.main_name.set(file.name.clone());
                draft.outcome.set(None);
            }
        }
        draft.includes.update(|includes| {
            for index in roles.includes {
                let file = picked[index].clone();
                includes.retain(|existing| existing.name != file.name);
                includes.push(file);
            }
        });
    });
}
