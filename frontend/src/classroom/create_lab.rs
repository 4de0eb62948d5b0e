//! The create page (`?create`): the server key, a name and a scene of the library → a new lab, its join code shown large for a projector, the instructor's link; beside it, a new class (`course::CreateClassCard`).

use leptos::prelude::*;
use vlab_protocol::CreatedLab;

use super::client::{create_lab, library_scenes};
use super::forms::{DEMO_SCENE_CHOICE, LibraryScene, SAVED_SCENE_CHOICE, create_lab_body, interpret_create};
use crate::api::error_sentence;
use crate::course::CreateClassCard;
use crate::ui::browser::read_files;
use crate::ui::{ForEach, FormError, OnceShownLink, SubmitButton, When};

/// The whole create page.
#[component]
pub fn CreateLabPage() -> impl IntoView {
    document().set_title("Create a lab · VLab");
    let created = RwSignal::new(None::<CreatedLab>);
    view! {
        <div class="page create" data-testid="create-page">
            <header class="page-header">
                <a class="brand" href="/">
                    <span class="brand-mark">"V"</span>
                    <span class="brand-name">"VLab"</span>
                </a>
                <p class="tagline">
                    "Create a lab (a room of its own, with its own clock and join code), or a class (a course of lessons, assignments and grades)."
                </p>
            </header>
            <main class="page-columns">
                <When
                    when=move || created.with(Option::is_none)
                    fallback=move || view! { <CreatedCard lab=created.get().expect("shown once created") /> }
                >
                    <NewLabForm created=created />
                </When>
                <CreateClassCard />
            </main>
        </div>
    }
}

/// The form: server key, lab name, scene; `created` is set once the server made the lab.
#[component]
fn NewLabForm(created: RwSignal<Option<CreatedLab>>) -> impl IntoView {
    let key = RwSignal::new(String::new());
    let name = RwSignal::new(String::new());
    let scene = RwSignal::new(DEMO_SCENE_CHOICE.to_owned());
    let saved = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let problem = RwSignal::new(None::<String>);
    let submit = move |event: leptos::ev::SubmitEvent| {
        event.prevent_default();
        if busy.get_untracked() {
            return;
        }
        let lab_name = name.get_untracked();
        if vlab_protocol::clean_display_name(&lab_name).is_none() {
            problem.set(Some("Give the lab a name (1 to 64 characters).".into()));
            return;
        }
        let server_key = key.get_untracked().trim().to_owned();
        let Some(body) =
            saved.with_untracked(|saved| create_lab_body(&lab_name, &scene.get_untracked(), saved.as_deref()))
        else {
            problem.set(Some("Open the saved scene's .vlab file first.".into()));
            return;
        };
        problem.set(None);
        busy.set(true);
        leptos::task::spawn_local(async move {
            let token = (!server_key.is_empty()).then_some(server_key);
            let outcome = interpret_create(create_lab(token.as_deref(), body).await);
            busy.set(false);
            match outcome {
                Ok(lab) => created.set(Some(lab)),
                Err(message) => problem.set(Some(message)),
            }
        });
    };
    view! {
        <section class="card">
            <h2>"New lab"</h2>
            <form class="create-form" on:submit=submit novalidate=true>
                <label class="field">
                    <span>"Server key"</span>
                    <input
                        class="input"
                        type="password"
                        data-testid="server-key"
                        autocomplete="off"
                        placeholder="the token the server printed for the demo lab"
                        prop:value=move || key.get()
                        on:input=move |event| key.set(event_target_value(&event))
                    />
                </label>
                <label class="field">
                    <span>"Lab name"</span>
                    <input
                        class="input"
                        data-testid="lab-name-input"
                        maxlength="64"
                        placeholder="Physics 1, Tuesday"
                        prop:value=move || name.get()
                        on:input=move |event| name.set(event_target_value(&event))
                    />
                </label>
                <SceneSelect scene=scene />
                <When when=move || scene.with(|s| s == SAVED_SCENE_CHOICE)>
                    <SavedScenePick saved=saved problem=problem />
                </When>
                <SubmitButton busy idle="Create" working="Creating…" testid="btn-create-lab" />
                <FormError message=problem testid="create-error" />
            </form>
            <p class="create-link">
                <a href="/">"← Back to the labs"</a>
            </p>
        </section>
    }
}

/// The scene to start from: the demo yard or one of the server's library, fetched once.
#[component]
fn SceneSelect(scene: RwSignal<String>) -> impl IntoView {
    let scenes = RwSignal::new(Vec::<LibraryScene>::new());
    let scenes_problem = RwSignal::new(None::<String>);
    leptos::task::spawn_local(async move {
        match library_scenes().await {
            Ok(list) => scenes.set(list),
            Err(error) => scenes_problem.set(Some(error_sentence(&error))),
        }
    });
    view! {
        <label class="field">
            <span>"Scene"</span>
            <select class="input" data-testid="scene-select" on:change=move |event| scene.set(event_target_value(&event))>
                <option value=DEMO_SCENE_CHOICE selected=true>
                    "The demo yard (walls, props, three carts)"
                </option>
                <option value=SAVED_SCENE_CHOICE>"A scene saved from a lab (.vlab file)…"</option>
                <ForEach each=move || scenes.get() key=|s| s.name.clone() let:library>
                    <option value=library.name.clone()>
                        {if library.about.is_empty() {
                            library.name.clone()
                        } else {
                            format!("{} — {}", library.name, library.about)
                        }}
                    </option>
                </ForEach>
            </select>
        </label>
        <When when=move || scenes_problem.with(Option::is_some)>
            <p class="hint">{move || scenes_problem.get()}</p>
        </When>
    }
}

/// The file of a scene saved from a lab ("Save scene" in a lab's instructor tools):
/// its text becomes the new lab's scene.
#[component]
fn SavedScenePick(saved: RwSignal<Option<String>>, problem: RwSignal<Option<String>>) -> impl IntoView {
    let file_name = RwSignal::new(None::<String>);
    let open = move |event: web_sys::Event| {
        use wasm_bindgen::JsCast;
        let Some(input) = event.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
        let Some(files) = input.files() else { return };
        leptos::task::spawn_local(async move {
            match read_files(files).await {
                Ok(read) => {
                    if let Some((name, bytes)) = read.into_iter().next() {
                        match String::from_utf8(bytes) {
                            Ok(text) => {
                                saved.set(Some(text));
                                file_name.set(Some(name));
                                problem.set(None);
                            }
                            Err(_) => {
                                problem.set(Some(format!("{name} is not a text file: open the .vlab the lab saved.")))
                            }
                        }
                    }
                }
                Err(message) => problem.set(Some(message)),
            }
        });
    };
    view! {
        <label class="field">
            <span>"Saved scene"</span>
            <input type="file" accept=".vlab,.txt" class="input" data-testid="saved-scene-file" on:change=open />
        </label>
        <p class="hint" data-testid="saved-scene-name">
            {move || match file_name.get() {
                Some(name) => format!("{name}: the new lab starts as this scene."),
                None => "A lab's instructor saves it with “Save scene (.vlab)”.".to_owned(),
            }}
        </p>
    }
}

/// The new lab: its join code large, the instructor's link, the way in.
#[component]
fn CreatedCard(lab: CreatedLab) -> impl IntoView {
    let origin = window().location().origin().unwrap_or_default();
    let instructor_link = format!("{origin}{}", lab.instructor_path);
    let open = lab.instructor_path.clone();
    view! {
        <section class="card created-card" data-testid="created-lab" data-lab=lab.id.clone()>
            <h2>{format!("“{}” is open", lab.name)}</h2>
            <p class="hint">{format!("Students open {origin}/ and type this code under “Join a lab”, with their name:")}</p>
            <div class="join-code-big" data-testid="created-join-code">{lab.join_code.clone()}</div>
            <OnceShownLink
                label="Your instructor link: save it now, it is shown only this once (the server keeps no copy). Keep it to yourself: it gives the time controls."
                link=instructor_link
                testid="instructor-link"
                copy_testid="btn-copy-instructor-link"
            />
            <a class="btn btn-primary" data-testid="btn-open-lab" href=open>
                "Open the lab"
            </a>
        </section>
    }
}
