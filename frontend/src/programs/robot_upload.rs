//! The "Add robot" panel (students and the instructor): a name, an example robot to start
//! from (or a description of one's own, typed or loaded from a file), the robot's program
//! (Python typed in the editor, or a `.py`/`.wasm` file opened), uploaded with the
//! session's token; errors marked at their line in the editor of their file, refusals
//! (locked, quota) said plainly. The same panel edits the program of a robot already in
//! the lab ("Edit program" in its console): then it shows the program only and saves it.
//!
//! Everything typed lives in a [`RobotDraft`] kept by the app: closing the panel or a
//! refused upload loses nothing.

use leptos::prelude::*;
use vlab_protocol::permissions::Action;
use vlab_protocol::{ExampleRobot, SourceMessage, fill_suffix};
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;

use super::client::{add_robot, load_examples, save_program};
use super::template::{robot_suffix, robot_template, suffix_from_name, urdf_template};
use super::upload::{
    DEFAULT_PROGRAM_NAME, EditorSyntax, ErrorPlace, NO_EXAMPLE, ProgramBody, ProgramFile, error_place,
    program_from_source, sort_program_files, start_note,
};
use crate::classroom::ClassState;
use crate::connection::LabSession;
use crate::inspector::InspectorState;
use crate::scene::SceneResult;
use crate::scene::upload::{PickedFile, UploadOutcome, caret_offset_utf16, editor_line, file_names};
use crate::ui::browser::read_files;
use crate::ui::{AttachedFiles, CodeEditor, CodeEditorRefs, When};

/// Whether the "Add robot" panel is open: shared by the class panel's button and the panel.
#[derive(Clone, Copy)]
pub struct RobotUploadOpen(pub RwSignal<bool>);

/// The robot being written (or the program being edited).
#[derive(Clone, Copy)]
pub struct RobotDraft {
    /// The name typed (its suffix: `diffbot_<suffix>`).
    pub suffix: RwSignal<String>,
    /// The description's `.vlab` text.
    pub text: RwSignal<String>,
    /// The example picked (its id), or [`NO_EXAMPLE`].
    pub example: RwSignal<String>,
    /// The example robots the server offers, once asked (`Err`: why there are none).
    pub examples: RwSignal<Option<Result<Vec<ExampleRobot>, String>>>,
    /// The program's main file name (`main.py`, `bot.wasm`).
    pub program_name: RwSignal<String>,
    /// The program's text, as in its editor.
    pub program_text: RwSignal<String>,
    /// A WebAssembly module opened instead of text.
    pub program_wasm: RwSignal<Option<Vec<u8>>>,
    /// Helper modules sent beside the program.
    pub helpers: RwSignal<Vec<PickedFile>>,
    /// The robot whose program is being edited (`None`: adding a robot).
    pub editing: RwSignal<Option<String>>,
    /// A remark about the last files opened (some were not programs).
    pub note: RwSignal<Option<String>>,
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
            example: RwSignal::new(NO_EXAMPLE.to_owned()),
            examples: RwSignal::new(None),
            program_name: RwSignal::new(DEFAULT_PROGRAM_NAME.to_owned()),
            program_text: RwSignal::new(String::new()),
            program_wasm: RwSignal::new(None),
            helpers: RwSignal::new(Vec::new()),
            editing: RwSignal::new(None),
            note: RwSignal::new(None),
            busy: RwSignal::new(false),
            outcome: RwSignal::new(None),
        }
    }

    /// The program's main file as it stands (not tracked).
    pub fn program_file(&self) -> ProgramFile {
        let body = match self.program_wasm.get_untracked() {
            Some(bytes) => ProgramBody::Wasm(bytes),
            None => ProgramBody::Text(self.program_text.get_untracked()),
        };
        ProgramFile { name: self.program_name.get_untracked(), body }
    }

    /// Puts `program` and its `helpers` in the program editor.
    pub fn set_program(&self, program: ProgramFile, helpers: Vec<PickedFile>) {
        self.program_name.set(program.name);
        match program.body {
            ProgramBody::Text(text) => {
                self.program_wasm.set(None);
                self.program_text.set(text);
            }
            ProgramBody::Wasm(bytes) => self.program_wasm.set(Some(bytes)),
        }
        self.helpers.set(helpers);
    }
}

/// The side panel beside the 3D view.
#[component]
pub fn RobotUpload() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let class = expect_context::<ClassState>();
    let inspector = expect_context::<InspectorState>();
    let draft = expect_context::<RobotDraft>();
    let open = expect_context::<RobotUploadOpen>().0;
    let description_refs = CodeEditorRefs::new();
    let program_refs = CodeEditorRefs::new();
    let name_problem = RwSignal::new(None::<String>);
    let editing = move || draft.editing.get();
    // The lock and the quota bind whoever adds robots without setting them (students).
    let bound_by_settings = move || class.may(Action::AddRobot) && !class.may(Action::ChangeSettings);

    // Asked again at every opening until the server has answered with a list.
    if draft.examples.with_untracked(|examples| !matches!(examples, Some(Ok(_)))) {
        leptos::task::spawn_local(async move {
            draft.examples.set(Some(load_examples().await));
        });
    }
    let picked_example = move || {
        let id = draft.example.get_untracked();
        draft.examples.with_untracked(|examples| {
            examples.as_ref().and_then(|e| e.as_ref().ok()).and_then(|e| e.iter().find(|x| x.id == id).cloned())
        })
    };

    // The description: this name, starting where the lab puts it; the picked example's
    // robot, or the course's diffbot. `None` when the name is not one.
    let template = move || -> Option<String> {
        let suffix = match robot_suffix(&draft.suffix.get_untracked()) {
            Ok(suffix) => suffix,
            Err(message) => {
                name_problem.set(Some(message));
                return None;
            }
        };
        name_problem.set(None);
        Some(match picked_example() {
            Some(example) => fill_suffix(&example.robot, &suffix),
            None => robot_template(&suffix),
        })
    };
    let fill_template = move || {
        let Some(text) = template() else { return };
        draft.text.set(text);
        draft.outcome.set(None);
    };
    if draft.suffix.with_untracked(String::is_empty) {
        let name = class.you.with_untracked(|you| you.as_ref().map(|you| you.name.clone())).unwrap_or_default();
        draft.suffix.set(suffix_from_name(&name));
    }
    if draft.text.with_untracked(String::is_empty) {
        fill_template();
    }

    let pick_example = move |id: String| {
        draft.example.set(id);
        let Some(example) = picked_example() else {
            fill_template();
            return;
        };
        let (program, helpers) = program_from_source(&example.program);
        let current = draft.program_file();
        let typed = !current.is_blank() && current != program;
        if typed
            && !window()
                .confirm_with_message(&format!("Replace your program with the one of “{}”?", example.title))
                .unwrap_or(false)
        {
            fill_template();
            return;
        }
        draft.set_program(program, helpers);
        fill_template();
    };

    // Which editor, and which line, a message is about.
    let place_of = move |message: &SourceMessage| {
        let helpers = draft.helpers.get_untracked();
        error_place(message, &draft.program_file(), &helpers)
    };
    let line_in = move |message: &SourceMessage, place: ErrorPlace| match place {
        ErrorPlace::Description => draft.text.with_untracked(|text| editor_line(message, &[], text)),
        ErrorPlace::Program => draft.program_text.with_untracked(|text| editor_line(message, &[], text)),
        ErrorPlace::Elsewhere => None,
    };
    let jump = Callback::new(move |message: SourceMessage| {
        let place = place_of(&message);
        let Some(line) = line_in(&message, place) else { return };
        let (text, refs) = match place {
            ErrorPlace::Program => (draft.program_text, program_refs),
            _ => (draft.text, description_refs),
        };
        let offset = text.with_untracked(|text| caret_offset_utf16(text, line, message.col));
        refs.jump_to(offset, line);
    });
    let error_line = move |wanted: ErrorPlace| {
        Signal::derive(move || match draft.outcome.get() {
            Some(UploadOutcome::Rejected { errors, .. }) => {
                errors.iter().filter(|message| place_of(message) == wanted).find_map(|message| line_in(message, wanted))
            }
            _ => None,
        })
    };

    let upload = Callback::new(move |()| {
        if draft.busy.get_untracked() {
            return;
        }
        let program = draft.program_file();
        let helpers = draft.helpers.get_untracked();
        let text = draft.text.get_untracked();
        let token = session.token();
        let lab = session.lab_id();
        let robot_edited = draft.editing.get_untracked();
        if robot_edited.is_none() && text.trim().is_empty() {
            draft.outcome.set(Some(UploadOutcome::Failed("The description is empty: write your robot first.".into())));
            return;
        }
        if robot_edited.is_some() && program.is_blank() {
            draft.outcome.set(Some(UploadOutcome::Failed("The program is empty: write or open one first.".into())));
            return;
        }
        draft.busy.set(true);
        leptos::task::spawn_local(async move {
            let (outcome, robots) = match &robot_edited {
                Some(robot) => (save_program(&lab, robot, token.as_deref(), &program, &helpers).await, Vec::new()),
                None => {
                    let clearance = picked_example().and_then(|example| example.clearance_m);
                    let (outcome, robots, start) =
                        add_robot(&lab, token.as_deref(), &text, clearance, &program, &helpers).await;
                    draft.note.set(start.map(|start| start_note(robots.first().map_or("", String::as_str), &start)));
                    (outcome, robots)
                }
            };
            let first_error = match &outcome {
                UploadOutcome::Rejected { errors, .. } => {
                    errors.iter().find(|m| line_in(m, place_of(m)).is_some()).cloned()
                }
                _ => None,
            };
            draft.busy.set(false);
            let done = matches!(outcome, UploadOutcome::Inserted { .. } | UploadOutcome::Saved { .. });
            draft.outcome.set(Some(outcome));
            if let Some(message) = first_error {
                jump.run(message);
            }
            if done && let Some(robot) = robots.into_iter().next().or(robot_edited) {
                // The robot in the inspector: its sensors, its console, the keys to drive it.
                inspector.inspect(Some(robot));
            }
        });
    });

    let pick_description = move |event: web_sys::Event| {
        let Some(input) = event.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) else { return };
        let Some(files) = input.files() else { return };
        leptos::task::spawn_local(async move {
            match read_files(files).await {
                Ok(read) => {
                    if let Some((_, bytes)) = read.into_iter().next() {
                        draft.text.set(String::from_utf8_lossy(&bytes).into_owned());
                        draft.example.set(NO_EXAMPLE.to_owned());
                        draft.outcome.set(None);
                    }
                }
                Err(message) => draft.outcome.set(Some(UploadOutcome::Failed(message))),
            }
            // Cleared so that choosing the same file again reloads it.
            input.set_value("");
        });
    };
    let pick_program = move |event: web_sys::Event| {
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
    };

    // A URDF robot: its file and its meshes go along with the upload, and the
    // description becomes one that imports it, starting where the lab puts it.
    let pick_urdf = move |event: web_sys::Event| {
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
            let read: Vec<PickedFile> = read.into_iter().map(|(name, bytes)| PickedFile::read(name, bytes)).collect();
            draft.note.set(None);
            let urdf = read.iter().find(|f| f.name.to_ascii_lowercase().ends_with(".urdf")).map(|f| f.name.clone());
            draft.helpers.update(|helpers| {
                for file in read {
                    helpers.retain(|existing| existing.name != file.name);
                    helpers.push(file);
                }
            });
            if let Some(file) = urdf {
                let suffix = robot_suffix(&draft.suffix.get_untracked()).unwrap_or_else(|_| "mine".into());
                draft.text.set(urdf_template(&suffix, &file));
                draft.outcome.set(None);
            }
        });
    };

    let close = move || {
        open.set(false);
        draft.editing.set(None);
    };
    let program_html = Signal::derive(move || {
        let syntax = EditorSyntax::for_file_name(&draft.program_name.get());
        draft.program_text.with(|text| syntax.highlight_html(text))
    });
    let example_options = move || {
        draft.examples.with(|examples| match examples {
            Some(Ok(examples)) => examples
                .iter()
                .map(|example| {
                    let id = example.id.clone();
                    view! {
                        <option value=id.clone() selected=move || draft.example.with(|e| *e == id)>
                            {example.title.clone()}
                        </option>
                    }
                })
                .collect_view()
                .into_any(),
            _ => ().into_any(),
        })
    };
    let example_summary = move || {
        let id = draft.example.get();
        draft.examples.with(|examples| match examples {
            Some(Ok(examples)) => examples.iter().find(|e| e.id == id).map(|e| e.summary.clone()),
            Some(Err(message)) => Some(message.clone()),
            None => None,
        })
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
                <div class="field-row">
                    <label for="robot-suffix">
                        {move || if draft.example.with(String::is_empty) { "Name: diffbot_" } else { "Name suffix:" }}
                    </label>
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
                        title="Write the description again with this name"
                        on:click=move |_| fill_template()
                    >
                        "Use template"
                    </button>
                </div>
                <When when=move || name_problem.with(Option::is_some)>
                    <p class="form-error" data-testid="robot-name-error">{move || name_problem.get()}</p>
                </When>
                <div class="field-row">
                    <label for="robot-example">"Start from:"</label>
                    <select
                        id="robot-example"
                        class="input"
                        data-testid="robot-example"
                        on:change=move |event| pick_example(event_target_value(&event))
                    >
                        <option value=NO_EXAMPLE selected=move || draft.example.with(String::is_empty)>
                            "none / my own description"
                        </option>
                        {example_options}
                    </select>
                </div>
                <When when=move || example_summary().is_some()>
                    <p class="example-summary" data-testid="robot-example-summary">{example_summary}</p>
                </When>
                <div class="editor-heading">
                    <h3>"Description"</h3>
                    <span class="main-name">"robot.vlab"</span>
                    <div class="spacer"></div>
                    <label class="btn btn-small file-pick" title="Load a robot description (.vlab) from a file">
                        "Load .vlab…"
                        <input type="file" accept=".vlab,.txt" data-testid="description-file" on:change=pick_description />
                    </label>
                    <label
                        class="btn btn-small file-pick"
                        title="Import a robot described in URDF (.urdf, with its .stl, .obj, .gltf or .glb meshes): docs/urdf.md"
                    >
                        "Load URDF…"
                        <input
                            type="file"
                            multiple=true
                            accept=".urdf,.stl,.obj,.gltf,.glb,.png,.jpg,.jpeg"
                            data-testid="urdf-file"
                            on:change=pick_urdf
                        />
                    </label>
                </div>
                <CodeEditor
                    text=draft.text
                    highlighted=Signal::derive(move || draft.text.with(|text| EditorSyntax::Vlab.highlight_html(text)))
                    error_line=error_line(ErrorPlace::Description)
                    refs=description_refs
                    on_submit=upload
                />
            </When>
            <When when=move || class.settings.with(|s| s.is_some_and(|s| s.uploads_locked)) && bound_by_settings()>
                <p class="form-error">"The instructor has locked uploads for now."</p>
            </When>
            <div class="editor-heading">
                <h3>"Program"</h3>
                <span class="main-name" data-testid="program-name" title="the name errors refer to">
                    {move || draft.program_name.get()}
                </span>
                <div class="spacer"></div>
                <label class="btn btn-small file-pick" title="Open a Python file (.py, and its helper modules) or a WebAssembly module (.wasm)">
                    "Open file…"
                    <input
                        type="file"
                        multiple=true
                        accept=".py,.wasm,.rprj"
                        data-testid="program-file"
                        on:change=pick_program
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
                    error_line=error_line(ErrorPlace::Program)
                    refs=program_refs
                    on_submit=upload
                    highlighted=program_html
                    testid="program"
                    label="robot program (Python)"
                    placeholder="# Optional: a Python program for the robot, e.g.\nfrom vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    print(robot.time())"
                />
            </When>
            <div class="panel-actions">
                <span class="hint">
                    {move || {
                        class
                            .settings
                            .get()
                            .filter(|_| bound_by_settings() && editing().is_none())
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
            <SceneResult
                outcome=draft.outcome
                busy=draft.busy
                in_editor=move |message: SourceMessage| line_in(&message, place_of(&message)).is_some()
                jump=jump
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
