//! The robot form's program section: the main file's name, its files, and the Python editor (or what a WebAssembly module opened is).

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;

use super::RobotDraft;
use super::robot_form::RobotForm;
use super::upload::{DEFAULT_PROGRAM_NAME, EditorSyntax, ErrorPlace, sort_program_files};
use crate::scene::upload::{UploadOutcome, file_names};
use crate::ui::browser::read_files;
use crate::ui::{AttachedFiles, CodeEditor, When};

/// The program's heading, its helper files and its editor.
#[component]
pub fn ProgramEditor(form: RobotForm) -> impl IntoView {
    let draft = form.draft;
    let upload = Callback::new(move |()| form.upload());
    let program_html = Signal::derive(move || {
        let syntax = EditorSyntax::for_file_name(&draft.program_name.get());
        draft.program_text.with(|text| syntax.highlight_html(text))
    });
    view! {
        <div class="editor-heading">
            <h3>"Program"</h3>
            <span class="main-name" data-testid="program-name" title="the name errors refer to">
                {move || draft.program_name.get()}
            </span>
            <div class="spacer"></div>
            <label class="btn btn-small file-pick" title="Open a Python file (.py, and its helper modules), C or C++ sources (.c, .cpp, and their headers), a project file (.rprj) or a WebAssembly module (.wasm)">
                "Open file…"
                <input
                    type="file"
                    multiple=true
                    accept=".py,.wasm,.rprj,.c,.cc,.cpp,.cxx,.h,.hh,.hpp,.hxx"
                    data-testid="program-file"
                    on:change=move |event| open_program(draft, event)
                />
            </label>
        </div>
        <When when=move || draft.helpers.with(|h| !h.is_empty()) || draft.note.with(Option::is_some)>
            <div class="panel-files">
                <AttachedFiles
                    names=Signal::derive(move || draft.helpers.with(|files| file_names(files)))
                    on_remove=Callback::new(move |name: String| draft.helpers.update(|files| files.retain(|f| f.name != name)))
                    testid="program-helper"
                />
                <span class="hint" data-testid="robot-upload-note">{move || draft.note.get()}</span>
            </div>
        </When>
        <When
            when=move || draft.program_wasm.with(Option::is_none)
            fallback=move || {
                view! {
                    <div class="program-binary" data-testid="program-binary">
                        <span>{move || draft.program_file().summary()}</span>
                        <button
                            class="btn btn-small"
                            data-testid="btn-program-to-python"
                            title="Write a Python program in the editor instead"
                            on:click=move |_| {
                                draft.program_wasm.set(None);
                                draft.program_name.set(DEFAULT_PROGRAM_NAME.to_owned());
                            }
                        >
                            "Write Python instead"
                        </button>
                    </div>
                }
            }
        >
            <CodeEditor
                text=draft.program_text
                error_line=form.error_line(ErrorPlace::Program)
                refs=form.program_refs
                on_submit=upload
                highlighted=program_html
                testid="program"
                label="robot program (Python)"
                placeholder="# Optional: a Python program for the robot, e.g.\nfrom vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    print(robot.time())"
            />
        </When>
    }
}

/// Files opened for the program: the main one into the editor (asking before it
/// replaces what is there), the rest beside it as helpers.
fn open_program(draft: RobotDraft, event: web_sys::Event) {
    let Some(input) = event.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) else { return };
    let Some(files) = input.files() else { return };
    leptos::task::spawn_local(async move {
        let read = match read_files(files).await {
            Ok(read) => read,
            Err(message) => {
                draft.outcome.set(Some(UploadOutcome::Failed(message)));
                return;
            }
        };
        input.set_value("");
        let picked = sort_program_files(read);
        draft.note.set(
            (!picked.ignored.is_empty()).then(|| format!("Not a program, left out: {}", picked.ignored.join(", "))),
        );
        if let Some(main) = picked.main {
            let current = draft.program_file();
            let replace = current.is_blank()
                || current == main
                || window()
                    .confirm_with_message(&format!("Replace the program in the editor with {}?", main.name))
                    .unwrap_or(false);
            if replace {
                let mut helpers = draft.helpers.get_untracked();
                helpers.retain(|h| h.name != main.name);
                draft.set_program(main, helpers);
                draft.outcome.set(None);
            }
        }
        draft.helpers.update(|helpers| {
            for file in picked.helpers {
                helpers.retain(|existing| existing.name != file.name);
                helpers.push(file);
            }
        });
    });
}
