//! The teacher's Assignments section: a new assignment (title, one of the library's
//! challenges, points, due date, trials) and the list, each with its due date, version
//! and "Evaluate all".

use leptos::prelude::*;
use vlab_protocol::{Assignment, MAX_TRIALS};

use super::client::{create_assignment, evaluate};
use super::forms::{AssignmentForm, assignment_request, challenge_scenes};
use super::state::{ClassSession, date_text, local_input_secs};
use crate::api::error_sentence;
use crate::classroom::client::library_scenes;
use crate::classroom::forms::LibraryScene;
use crate::ui::{ForEach, When};

/// The class's assignments, as the class page last read them.
pub fn assignments(session: ClassSession) -> Vec<Assignment> {
    session.view.with(|view| view.as_ref().map(|v| v.assignments.clone()).unwrap_or_default())
}

/// `due 3 Dec 2026, 14:00`, or `no due date`.
pub fn due_text(due_at: Option<i64>) -> String {
    due_at.map_or_else(|| "no due date".to_owned(), |due| format!("due {}", date_text(due)))
}

/// The section.
#[component]
pub fn AssignmentsSection() -> impl IntoView {
    let session = expect_context::<ClassSession>();
    view! {
        <section class="card course-card" aria-label="Assignments" data-testid="assignments-section">
            <h2>"Assignments"</h2>
            <NewAssignmentForm />
            <When
                when=move || !assignments(session).is_empty()
                fallback=|| view! { <p class="hint">"No assignment yet."</p> }
            >
                <ul class="assignment-list" data-testid="assignment-list">
                    <ForEach each=move || assignments(session) key=|a: &Assignment| (a.id, a.version, a.due_at, a.title.clone()) let:assignment>
                        <AssignmentLine assignment />
                    </ForEach>
                </ul>
            </When>
        </section>
    }
}

/// One assignment: what it asks, its dates and version, "Evaluate all".
#[component]
fn AssignmentLine(assignment: Assignment) -> impl IntoView {
    let session = expect_context::<ClassSession>();
    let note = RwSignal::new(None::<String>);
    let id = assignment.id;
    let evaluate_all = move |_| {
        leptos::task::spawn_local(async move {
            note.set(Some(match evaluate(&session.class(), &session.token(), id, None).await {
                Ok(()) => "Every latest hand-in is being evaluated again: the gradebook follows.".to_owned(),
                Err(error) => error_sentence(&error),
            }));
        });
    };
    view! {
        <li class="assignment-item" data-testid="assignment-item" data-assignment=id.to_string()>
            <div class="assignment-line">
                <strong>{assignment.title.clone()}</strong>
                <span class="hint">{format!("{} · {} points · {} trials", assignment.challenge_title, assignment.points, assignment.trials)}</span>
                <span class="hint" data-testid="assignment-due">{due_text(assignment.due_at)}</span>
                <span class="badge" title="One more at each change of its challenge or trials">{format!("version {}", assignment.version)}</span>
                <div class="spacer"></div>
                <button class="btn btn-small" data-testid="btn-evaluate-all" on:click=evaluate_all>"Evaluate all"</button>
            </div>
            <When when=move || note.with(Option::is_some)>
                <p class="hint" data-testid="evaluate-note">{move || note.get()}</p>
            </When>
        </li>
    }
}

/// The new assignment's form.
#[component]
fn NewAssignmentForm() -> impl IntoView {
    let session = expect_context::<ClassSession>();
    let title = RwSignal::new(String::new());
    let challenge = RwSignal::new(String::new());
    let points = RwSignal::new("10".to_owned());
    let due = RwSignal::new(String::new());
    let trials = RwSignal::new("5".to_owned());
    let challenges = RwSignal::new(Vec::<LibraryScene>::new());
    let busy = RwSignal::new(false);
    let problem = RwSignal::new(None::<String>);
    leptos::task::spawn_local(async move {
        match library_scenes().await {
            Ok(list) => {
                let list = challenge_scenes(list);
                // The first challenge is chosen, as the select shows it.
                if let Some(first) = list.first() {
                    challenge.set(first.name.clone());
                }
                challenges.set(list);
            }
            Err(error) => problem.set(Some(format!("The scene library is out of reach: {}", error_sentence(&error)))),
        }
    });
    let submit = move |event: leptos::ev::SubmitEvent| {
        event.prevent_default();
        if busy.get_untracked() {
            return;
        }
        let due_text = due.get_untracked();
        let due_at = local_input_secs(&due_text);
        if !due_text.trim().is_empty() && due_at.is_none() {
            problem.set(Some("The due date is not a date: pick one, or leave it empty for none.".into()));
            return;
        }
        let form = AssignmentForm {
            title: title.get_untracked(),
            challenge: challenge.get_untracked(),
            points: points.get_untracked(),
            due_at,
            trials: trials.get_untracked(),
        };
        let request = match assignment_request(&form) {
            Ok(request) => request,
            Err(message) => {
                problem.set(Some(message));
                return;
            }
        };
        problem.set(None);
        busy.set(true);
        leptos::task::spawn_local(async move {
            let answer = create_assignment(&session.class(), &session.token(), &request).await;
            busy.set(false);
            match answer {
                Ok(_) => {
                    title.set(String::new());
                    session.reload();
                }
                Err(error) => problem.set(Some(error_sentence(&error))),
            }
        });
    };
    view! {
        <form class="create-form" data-testid="new-assignment-form" on:submit=submit novalidate=true>
            <div class="form-grid">
                <label class="field">
                    <span>"New assignment"</span>
                    <input class="input" data-testid="assignment-title" maxlength="120" placeholder="Park in the bay" prop:value=move || title.get() on:input=move |event| title.set(event_target_value(&event)) />
                </label>
                <label class="field is-wide">
                    <span>"Challenge"</span>
                    <select class="input" data-testid="assignment-challenge" prop:value=move || challenge.get() on:change=move |event| challenge.set(event_target_value(&event))>
                        <ForEach each=move || challenges.get() key=|s: &LibraryScene| s.name.clone() let:scene>
                            <option value=scene.name.clone()>
                                {if scene.about.is_empty() { scene.name.clone() } else { format!("{} — {}", scene.name, scene.about) }}
                            </option>
                        </ForEach>
                    </select>
                </label>
                <label class="field">
                    <span>"Points"</span>
                    <input class="input" data-testid="assignment-points" type="number" min="1" step="any" prop:value=move || points.get() on:input=move |event| points.set(event_target_value(&event)) />
                </label>
                <label class="field">
                    <span>"Due (empty: never late)"</span>
                    <input class="input" data-testid="assignment-due-input" type="datetime-local" prop:value=move || due.get() on:input=move |event| due.set(event_target_value(&event)) />
                </label>
                <label class="field">
                    <span>{format!("Hidden trials (1 to {MAX_TRIALS})")}</span>
                    <input class="input" data-testid="assignment-trials" type="number" min="1" max=MAX_TRIALS.to_string() prop:value=move || trials.get() on:input=move |event| trials.set(event_target_value(&event)) />
                </label>
            </div>
            <button class="btn btn-primary" type="submit" data-testid="btn-create-assignment" disabled=move || busy.get()>
                {move || if busy.get() { "Creating…" } else { "Give the assignment" }}
            </button>
            <When when=move || problem.with(Option::is_some)>
                <p class="form-error" role="alert" data-testid="assignment-form-error">{move || problem.get()}</p>
            </When>
        </form>
    }
}
