//! The teacher's Students section: the roster with who is signed in, adding a student
//! (her PIN and sign-in link shown once, to print), renaming, a new PIN, removing.

use leptos::prelude::*;
use vlab_protocol::{Student, StudentCredentials, StudentId};

use super::client::{add_student, remove_student, rename_student, reset_student, roster};
use super::forms::full_link;
use super::state::ClassSession;
use crate::api::error_sentence;
use crate::ui::{ForEach, When};

/// The section: the add form, the credentials just given, the roster.
#[component]
pub fn StudentsSection() -> impl IntoView {
    let session = expect_context::<ClassSession>();
    let students = RwSignal::new(None::<Vec<Student>>);
    let error = RwSignal::new(None::<String>);
    let credentials = RwSignal::new(None::<StudentCredentials>);
    let reload = move || {
        leptos::task::spawn_local(async move {
            match roster(&session.class(), &session.token()).await {
                Ok(list) => students.set(Some(list)),
                Err(problem) => error.set(Some(error_sentence(&problem))),
            }
        });
    };
    reload();
    let given = move |new: StudentCredentials| {
        credentials.set(Some(new));
        reload();
    };
    view! {
        <section class="card course-card" aria-label="Students" data-testid="students-section">
            <header class="card-header">
                <h2>"Students"</h2>
                <div class="spacer"></div>
                <button class="btn btn-small" on:click=move |_| reload()>"Refresh"</button>
            </header>
            <AddStudentForm given=Callback::new(given) />
            {move || credentials.get().map(|given| view! { <Credentials given on_done=Callback::new(move |()| credentials.set(None)) /> })}
            <When when=move || error.with(Option::is_some)>
                <p class="form-error" role="alert" data-testid="roster-error">{move || error.get()}</p>
            </When>
            {move || match students.get() {
                None => view! { <p class="hint">"Loading the roster…"</p> }.into_any(),
                Some(list) if list.is_empty() => {
                    view! { <p class="hint" data-testid="roster-empty">"No student yet: add them above, or let them sign in with the class code and a PIN of their choice."</p> }.into_any()
                }
                Some(_) => view! {
                    <table class="lab-table roster-table" data-testid="roster">
                        <thead>
                            <tr>
                                <th>"student"</th>
                                <th>"PIN"</th>
                                <th></th>
                            </tr>
                        </thead>
                        <tbody>
                            <ForEach each=move || students.get().unwrap_or_default() key=|s: &Student| (s.id, s.name.clone(), s.signed_in, s.has_pin) let:student>
                                <RosterRow student error given=Callback::new(given) removed=Callback::new(move |()| reload()) />
                            </ForEach>
                        </tbody>
                    </table>
                }
                .into_any(),
            }}
        </section>
    }
}

/// A name → `POST .../students` → her PIN and link.
#[component]
fn AddStudentForm(given: Callback<StudentCredentials>) -> impl IntoView {
    let session = expect_context::<ClassSession>();
    let name = RwSignal::new(String::new());
    let busy = RwSignal::new(false);
    let problem = RwSignal::new(None::<String>);
    let submit = move |event: leptos::ev::SubmitEvent| {
        event.prevent_default();
        if busy.get_untracked() {
            return;
        }
        let typed = name.get_untracked();
        if vlab_protocol::clean_display_name(&typed).is_none() {
            problem.set(Some(format!("Type her name (1 to {} characters).", vlab_protocol::MAX_NAME_CHARS)));
            return;
        }
        problem.set(None);
        busy.set(true);
        leptos::task::spawn_local(async move {
            let answer = add_student(&session.class(), &session.token(), &typed).await;
            busy.set(false);
            match answer {
                Ok(credentials) => {
                    name.set(String::new());
                    given.run(credentials);
                }
                Err(error) => problem.set(Some(error_sentence(&error))),
            }
        });
    };
    view! {
        <form class="inline-form" data-testid="add-student-form" on:submit=submit novalidate=true>
            <label class="field">
                <span>"Add a student"</span>
                <span class="field-row">
                    <input
                        class="input"
                        data-testid="new-student-name"
                        maxlength="64"
                        placeholder="her name, as the class knows it"
                        prop:value=move || name.get()
                        on:input=move |event| name.set(event_target_value(&event))
                    />
                    <button class="btn btn-primary" type="submit" data-testid="btn-add-student" disabled=move || busy.get()>
                        {move || if busy.get() { "Adding…" } else { "Add" }}
                    </button>
                </span>
            </label>
            <When when=move || problem.with(Option::is_some)>
                <p class="form-error" role="alert" data-testid="add-student-error">{move || problem.get()}</p>
            </When>
        </form>
    }
}

/// A student's PIN and one-time link, shown this once (the server keeps only digests).
#[component]
fn Credentials(given: StudentCredentials, on_done: Callback<()>) -> impl IntoView {
    let origin = window().location().origin().unwrap_or_default();
    let link = full_link(&origin, &given.sign_in_path);
    view! {
        <div class="credentials" data-testid="student-credentials" data-student=given.student.name.clone() data-pin=given.pin.clone()>
            <p>
                <strong>{given.student.name.clone()}</strong>
                "'s PIN is "
                <strong class="join-code" data-testid="student-pin">{given.pin.clone()}</strong>
                ". Print or copy it now: it is shown only this once."
            </p>
            <label class="field">
                <span>"Her one-time sign-in link (it signs her in once, without code or PIN)"</span>
                <input class="input" readonly=true data-testid="student-link" prop:value=link />
            </label>
            <button class="btn btn-small" data-testid="btn-credentials-done" on:click=move |_| on_done.run(())>
                "Done"
            </button>
        </div>
    }
}

/// One student: signed-in dot, name (renamed in place), new PIN, remove (asked first).
#[component]
fn RosterRow(
    student: Student,
    error: RwSignal<Option<String>>,
    given: Callback<StudentCredentials>,
    removed: Callback<()>,
) -> impl IntoView {
    let session = expect_context::<ClassSession>();
    let id: StudentId = student.id;
    let editing = RwSignal::new(false);
    let confirming = RwSignal::new(false);
    let new_name = RwSignal::new(student.name.clone());
    let shown_name = RwSignal::new(student.name.clone());
    let rename = move |event: leptos::ev::SubmitEvent| {
        event.prevent_default();
        let typed = new_name.get_untracked();
        leptos::task::spawn_local(async move {
            match rename_student(&session.class(), &session.token(), id, &typed).await {
                Ok(student) => {
                    error.set(None);
                    shown_name.set(student.name);
                    editing.set(false);
                }
                Err(problem) => error.set(Some(error_sentence(&problem))),
            }
        });
    };
    let reset = move |_| {
        leptos::task::spawn_local(async move {
            match reset_student(&session.class(), &session.token(), id).await {
                Ok(credentials) => given.run(credentials),
                Err(problem) => error.set(Some(error_sentence(&problem))),
            }
        });
    };
    let remove = move |_| {
        leptos::task::spawn_local(async move {
            match remove_student(&session.class(), &session.token(), id).await {
                Ok(()) => removed.run(()),
                Err(problem) => error.set(Some(error_sentence(&problem))),
            }
        });
    };
    let online = student.signed_in;
    view! {
        <tr data-testid="roster-row" data-student=student.name.clone() data-signed-in=online.to_string()>
            <td>
                <When
                    when=move || editing.get()
                    fallback=move || view! {
                        <span class="person-line">
                            <span class="dot" class:is-online=online title=if online { "signed in" } else { "not signed in" }></span>
                            <span class="lab-cell-name">{move || shown_name.get()}</span>
                        </span>
                    }
                >
                    <form class="field-row" on:submit=rename>
                        <input class="input" data-testid="rename-input" maxlength="64" prop:value=move || new_name.get() on:input=move |event| new_name.set(event_target_value(&event)) />
                        <button class="btn btn-small btn-primary" type="submit">"Save"</button>
                        <button class="btn btn-small" type="button" on:click=move |_| editing.set(false)>"Cancel"</button>
                    </form>
                </When>
            </td>
            <td class="hint">{if student.has_pin { "set" } else { "none yet" }}</td>
            <td>
                <div class="row-actions">
                <When
                    when=move || confirming.get()
                    fallback=move || view! {
                        <button class="btn btn-small" data-testid="btn-rename-student" on:click=move |_| editing.set(true)>"Rename"</button>
                        <button class="btn btn-small" data-testid="btn-reset-pin" title="A new PIN and link; her pages are signed out" on:click=reset>"New PIN"</button>
                        <button class="btn btn-small btn-danger" data-testid="btn-remove-student" on:click=move |_| confirming.set(true)>"Remove"</button>
                    }
                >
                    <span class="confirm-text">"Remove her from the class and its lessons?"</span>
                    <button class="btn btn-small btn-danger" data-testid="btn-confirm-remove" on:click=remove>"Remove"</button>
                    <button class="btn btn-small" on:click=move |_| confirming.set(false)>"Keep"</button>
                </When>
                </div>
            </td>
        </tr>
    }
}
