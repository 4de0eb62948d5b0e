//! A class's lessons: the teacher's list (Open, as the lab's instructor) and new lesson
//! from a scene of the library; the student's list, where Enter takes her into the lab.

use leptos::prelude::*;
use vlab_protocol::{CreateLabRequest, LabSummary};

use super::client::{create_lesson, enter_lesson};
use super::state::ClassSession;
use crate::api::error_sentence;
use crate::classroom::client::library_scenes;
use crate::classroom::forms::{DEMO_SCENE_CHOICE, LibraryScene, mode_text};
use crate::page::lab_query;
use crate::ui::{ForEach, When};

/// The class's open lessons, as the class page last read them.
fn lessons(session: ClassSession) -> Vec<LabSummary> {
    session.view.with(|view| view.as_ref().map(|v| v.labs.clone()).unwrap_or_default())
}

/// The teacher's Lessons section.
#[component]
pub fn LessonsSection() -> impl IntoView {
    view! {
        <section class="card course-card" aria-label="Lessons" data-testid="lessons-section">
            <h2>"Lessons"</h2>
            <NewLessonForm />
            <LessonTable action="Open" />
        </section>
    }
}

/// The student's My lessons section.
#[component]
pub fn MyLessons() -> impl IntoView {
    view! {
        <section class="card course-card" aria-label="My lessons" data-testid="my-lessons-section">
            <h2>"My lessons"</h2>
            <p class="hint">"Enter a lesson to join the lab: your robots there stay yours, whichever computer you use."</p>
            <LessonTable action="Enter" />
        </section>
    }
}

/// The lessons, each with its button: `Open` (the teacher's link as the lab's
/// instructor) or `Enter` (a student's place in it, asked for first).
#[component]
fn LessonTable(action: &'static str) -> impl IntoView {
    let session = expect_context::<ClassSession>();
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let enter = move |lab: String| {
        if busy.get_untracked() {
            return;
        }
        busy.set(true);
        leptos::task::spawn_local(async move {
            match enter_lesson(&lab, &session.token()).await {
                Ok(joined) => {
                    let _ = window().location().set_href(&format!("/{}", lab_query(&joined.lab, Some(&joined.token))));
                }
                Err(problem) => {
                    busy.set(false);
                    error.set(Some(error_sentence(&problem)));
                }
            }
        });
    };
    view! {
        <When
            when=move || !lessons(session).is_empty()
            fallback=move || view! {
                <p class="hint" data-testid="lessons-empty">
                    {if action == "Open" { "No lesson yet: create one above." } else { "No lesson is open in this class yet." }}
                </p>
            }
        >
            <table class="lab-table" data-testid="lesson-list">
                <thead>
                    <tr>
                        <th>"lesson"</th>
                        <th>"mode"</th>
                        <th class="num">"robots"</th>
                        <th class="num">"people"</th>
                        <th></th>
                    </tr>
                </thead>
                <tbody>
                    <ForEach each=move || lessons(session) key=|lab: &LabSummary| (lab.id.clone(), lab.robots.len(), lab.participants) let:lab>
                        {
                            let id = lab.id.clone();
                            let button = if action == "Open" {
                                let href = format!("/{}", lab_query(&lab.id, Some(&session.token())));
                                view! { <a class="btn btn-small btn-primary" data-testid="btn-open-lesson" data-lab=lab.id.clone() href=href>"Open"</a> }.into_any()
                            } else {
                                view! {
                                    <button class="btn btn-small btn-primary" data-testid="btn-enter-lesson" data-lab=lab.id.clone() disabled=move || busy.get() on:click=move |_| enter(id.clone())>
                                        "Enter"
                                    </button>
                                }
                                .into_any()
                            };
                            view! {
                                <tr data-testid="lesson-row" data-lab=lab.id.clone()>
                                    <td class="lab-cell-name">{lab.name.clone()}</td>
                                    <td>{mode_text(lab.state.mode, lab.state.rate)}</td>
                                    <td class="num">{lab.robots.len()}</td>
                                    <td class="num">{lab.participants}</td>
                                    <td>{button}</td>
                                </tr>
                            }
                        }
                    </ForEach>
                </tbody>
            </table>
        </When>
        <When when=move || error.with(Option::is_some)>
            <p class="form-error" role="alert" data-testid="lesson-error">{move || error.get()}</p>
        </When>
    }
}

/// Name and scene → `POST /api/classes/{class}/labs` → the lesson in the list.
#[component]
fn NewLessonForm() -> impl IntoView {
    let session = expect_context::<ClassSession>();
    let name = RwSignal::new(String::new());
    let scene = RwSignal::new(DEMO_SCENE_CHOICE.to_owned());
    let scenes = RwSignal::new(Vec::<LibraryScene>::new());
    let busy = RwSignal::new(false);
    let problem = RwSignal::new(None::<String>);
    leptos::task::spawn_local(async move {
        match library_scenes().await {
            Ok(list) => scenes.set(list),
            Err(error) => problem.set(Some(format!("The scene library is out of reach: {}", error_sentence(&error)))),
        }
    });
    let submit = move |event: leptos::ev::SubmitEvent| {
        event.prevent_default();
        if busy.get_untracked() {
            return;
        }
        let typed = name.get_untracked();
        if vlab_protocol::clean_display_name(&typed).is_none() {
            problem.set(Some("Give the lesson a name (1 to 64 characters).".into()));
            return;
        }
        let chosen = scene.get_untracked();
        let request = CreateLabRequest {
            name: typed.trim().to_owned(),
            scene: (chosen != DEMO_SCENE_CHOICE).then_some(chosen),
            scene_source: None,
            seed: None,
        };
        problem.set(None);
        busy.set(true);
        leptos::task::spawn_local(async move {
            let answer = create_lesson(&session.class(), &session.token(), &request).await;
            busy.set(false);
            match answer {
                Ok(_) => {
                    name.set(String::new());
                    session.reload();
                }
                Err(error) => problem.set(Some(error_sentence(&error))),
            }
        });
    };
    view! {
        <form class="create-form" data-testid="new-lesson-form" on:submit=submit novalidate=true>
            <div class="form-grid">
                <label class="field">
                    <span>"New lesson"</span>
                    <input
                        class="input"
                        data-testid="lesson-name"
                        maxlength="64"
                        placeholder="Week 3: parking"
                        prop:value=move || name.get()
                        on:input=move |event| name.set(event_target_value(&event))
                    />
                </label>
                <label class="field is-wide">
                    <span>"Scene"</span>
                    <select class="input" data-testid="lesson-scene" on:change=move |event| scene.set(event_target_value(&event))>
                        <option value=DEMO_SCENE_CHOICE selected=true>"The demo yard (walls, props, three carts)"</option>
                        <ForEach each=move || scenes.get() key=|s: &LibraryScene| s.name.clone() let:library>
                            <option value=library.name.clone()>
                                {if library.about.is_empty() { library.name.clone() } else { format!("{} — {}", library.name, library.about) }}
                            </option>
                        </ForEach>
                    </select>
                </label>
            </div>
            <button class="btn btn-primary" type="submit" data-testid="btn-create-lesson" disabled=move || busy.get()>
                {move || if busy.get() { "Creating…" } else { "Create the lesson" }}
            </button>
            <When when=move || problem.with(Option::is_some)>
                <p class="form-error" role="alert" data-testid="lesson-form-error">{move || problem.get()}</p>
            </When>
        </form>
    }
}
