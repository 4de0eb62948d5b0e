//! The robot form's description sections (when adding a robot): its name, the example it starts from, and the `.vlab` description with its files.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;

use super::RobotDraft;
use super::robot_form::RobotForm;
use super::template::{robot_suffix, urdf_template};
use super::upload::{EditorSyntax, ErrorPlace, NO_EXAMPLE};
use super::zip_listing::{package_paths, robot_files};
use crate::scene::upload::{FileContent, PickedFile, UploadOutcome};
use crate::ui::browser::read_files;
use crate::ui::{CodeEditor, When};

/// The name field, its "Use template" button and why the name is not one.
#[component]
pub fn RobotNameFields(form: RobotForm) -> impl IntoView {
    let RobotForm { draft, name_problem, .. } = form;
    let fill_template = move || form.fill_template();
    view! {
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
    }
}

/// The example picker and the picked example's summary.
#[component]
pub fn ExamplePicker(form: RobotForm) -> impl IntoView {
    let draft = form.draft;
    let pick_example = move |id: String| form.pick_example(id);
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
    }
}

/// The description's heading, its file buttons and its editor.
#[component]
pub fn DescriptionEditor(form: RobotForm) -> impl IntoView {
    let draft = form.draft;
    let upload = Callback::new(move |()| form.upload());
    view! {
        <div class="editor-heading">
            <h3>"Description"</h3>
            <span class="main-name">"robot.vlab"</span>
            <div class="spacer"></div>
            <label class="btn btn-small file-pick" title="Load a robot description (.vlab) from a file">
                "Load .vlab…"
                <input type="file" accept=".vlab,.txt" data-testid="description-file" on:change=move |event| load_description(draft, event) />
            </label>
            <label
                class="btn btn-small file-pick"
                title="Import a robot described in URDF or xacro (.urdf, .urdf.xacro, with the files it includes and its .stl, .obj, .gltf or .glb meshes), or its ROS package as a .zip: docs/urdf.md"
            >
                "Load URDF…"
                <input
                    type="file"
                    multiple=true
                    accept=".urdf,.xacro,.zip,.stl,.obj,.gltf,.glb,.png,.jpg,.jpeg"
                    data-testid="urdf-file"
                    on:change=move |event| load_urdf(draft, event)
                />
            </label>
        </div>
        <CodeEditor
            text=draft.text
            highlighted=Signal::derive(move || draft.text.with(|text| EditorSyntax::Vlab.highlight_html(text)))
            error_line=form.error_line(ErrorPlace::Description)
            refs=form.description_refs
            on_submit=upload
        />
    }
}

/// A `.vlab` file opened: the description becomes its text.
fn load_description(draft: RobotDraft, event: web_sys::Event) {
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
}

/// A URDF robot: its file and its meshes go along with the upload, and the
/// description becomes one that imports it, starting where the lab puts it.
fn load_urdf(draft: RobotDraft, event: web_sys::Event) {
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
        // The robot's file: a `.urdf`, else a `.urdf.xacro`, else any `.xacro` (the others
        // are the files it includes), picked or inside a picked package's zip.
        let ending =
            |end: &str| read.iter().find(|f| f.name.to_ascii_lowercase().ends_with(end)).map(|f| f.name.clone());
        let picked = ending(".urdf").or_else(|| ending(".urdf.xacro")).or_else(|| ending(".xacro"));
        let urdf = match picked {
            Some(file) => Some(file),
            None => match robot_in_zips(&read) {
                Ok(found) => found.map(|(file, note)| {
                    draft.note.set(note);
                    file
                }),
                Err(message) => {
                    draft.outcome.set(Some(UploadOutcome::Failed(message)));
                    return;
                }
            },
        };
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
}

/// The robot file of the first picked zip that has one (its path as the server unpacks
/// it), and a note naming the package's other robots, which the description can name
/// instead.
fn robot_in_zips(read: &[PickedFile]) -> Result<Option<(String, Option<String>)>, String> {
    for file in read.iter().filter(|f| f.name.to_ascii_lowercase().ends_with(".zip")) {
        let FileContent::Binary(bytes) = &file.content else { continue };
        let paths = package_paths(bytes).map_err(|why| format!("{}: {why}", file.name))?;
        let robots = robot_files(&paths);
        let Some((first, others)) = robots.split_first() else { continue };
        let note = (!others.is_empty()).then(|| {
            format!("{} also has {}: name one in the description's urdf line instead", file.name, others.join(", "))
        });
        return Ok(Some((first.clone(), note)));
    }
    Ok(None)
}
