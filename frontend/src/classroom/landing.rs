//! The landing page (no lab in the URL): what VLab is, the open labs, the join form, the labs this browser already joined, signing in to a class (and the classes this browser is signed in to), and the way to create a lab or a class.

use leptos::prelude::*;

use super::client::{join, list_labs, store_session, stored_sessions};
use super::forms::{JoinOutcome, LabLine, check_join_form, interpret_join, lab_lines};
use crate::course::SignInForm;
use crate::course::client::stored_classes;
use crate::page::{class_query, lab_query};
use crate::ui::{FormError, RejoinList, SubmitButton};

/// The whole landing page.
#[component]
pub fn LandingPage() -> impl IntoView {
    document().set_title("VLab · the virtual robotics lab");
    let labs = RwSignal::new(None::<Result<Vec<LabLine>, String>>);
    let load_labs = move || {
        leptos::task::spawn_local(async move {
            labs.set(Some(lab_lines(list_labs().await)));
        });
    };
    load_labs();
    let rejoin_labs = stored_sessions()
        .into_iter()
        .map(|session| {
            (format!("/{}", session.lab_query()), format!("Continue in {} as {}", session.lab, session.name))
        })
        .collect();
    let rejoin_classes = stored_classes()
        .into_iter()
        .map(|session| {
            let href = format!("/{}", class_query(&session.class, Some(&session.token)));
            (href, format!("Continue in {} as {}", session.class, session.name))
        })
        .collect();

    view! {
        <div class="page landing" data-testid="landing-page">
            <header class="page-header">
                <div class="brand">
                    <span class="brand-mark">"V"</span>
                    <span class="brand-name">"VLab"</span>
                </div>
                <p class="tagline">
                    "A virtual robotics lab in the browser: one shared simulation, live in 3D for the whole class."
                </p>
            </header>
            <main class="page-columns">
                <section class="card join-card" aria-label="Join a lab">
                    <h2>"Join a lab"</h2>
                    <JoinForm />
                    <RejoinList title="Labs you joined on this browser" links=rejoin_labs testid="rejoin-link" />
                </section>
                <section class="card sign-in-card" aria-label="Sign in to your class">
                    <h2>"Sign in to your class"</h2>
                    <SignInForm />
                    <RejoinList title="Classes signed in on this browser" links=rejoin_classes testid="class-rejoin-link" />
                </section>
                <section class="card labs-card" aria-label="Open labs">
                    <header class="card-header">
                        <h2>"Open labs"</h2>
                        <div class="spacer"></div>
                        <button class="btn btn-small" on:click=move |_| load_labs()>"Refresh"</button>
                    </header>
                    {move || match labs.get() {
                        None => view! { <p class="hint">"Loading the labs…"</p> }.into_any(),
                        Some(Err(message)) => view! { <p class="form-error">{message}</p> }.into_any(),
                        Some(Ok(lines)) if lines.is_empty() => {
                            view! { <p class="hint">"No lab is open on this server."</p> }.into_any()
                        }
                        Some(Ok(lines)) => {
                            view! {
                                <table class="lab-table" data-testid="lab-list">
                                    <thead>
                                        <tr>
                                            <th>"lab"</th>
                                            <th>"mode"</th>
                                            <th class="num">"robots"</th>
                                            <th class="num">"people"</th>
                                            <th></th>
                                        </tr>
                                    </thead>
                                    <tbody>
                                        {lines
                                            .into_iter()
                                            .map(|line| {
                                                let href = format!("/{}", lab_query(&line.id, None));
                                                view! {
                                                    <tr data-testid="lab-row" data-lab=line.id.clone()>
                                                        <td class="lab-cell-name" title=format!("id: {}", line.id)>
                                                            {line.name}
                                                        </td>
                                                        <td>{line.mode}</td>
                                                        <td class="num">{line.robots}</td>
                                                        <td class="num">{line.participants}</td>
                                                        <td>
                                                            <a class="btn btn-small" href=href title="Watch without joining">
                                                                "Watch"
                                                            </a>
                                                        </td>
                                                    </tr>
                                                }
                                            })
                                            .collect_view()}
                                    </tbody>
                                </table>
                            }
                                .into_any()
                        }
                    }}
                    <p class="create-link">
                        <a href="/?create" data-testid="create-lab-link">"Create a lab or a class (instructor)"</a>
                    </p>
                </section>
            </main>
        </div>
    }
}

/// Join code and display name → `POST /api/join` → the lab's page, the session kept.
#[component]
fn JoinForm() -> impl IntoView {
    let code = RwSignal::new(String::new());
    let name = RwSignal::new(String::new());
    let busy = RwSignal::new(false);
    let problem = RwSignal::new(None::<(&'static str, String)>);

    let submit = move |event: leptos::ev::SubmitEvent| {
        event.prevent_default();
        if busy.get_untracked() {
            return;
        }
        let (typed_code, typed_name) = (code.get_untracked(), name.get_untracked());
        if let Some(JoinOutcome::Refused { field, message }) = check_join_form(&typed_code, &typed_name) {
            problem.set(Some((field, message)));
            return;
        }
        problem.set(None);
        busy.set(true);
        leptos::task::spawn_local(async move {
            match interpret_join(join(&typed_code, &typed_name).await) {
                JoinOutcome::Joined(session) => {
                    store_session(&session);
                    let _ = window().location().set_href(&format!("/{}", session.lab_query()));
                }
                JoinOutcome::Refused { field, message } => {
                    busy.set(false);
                    problem.set(Some((field, message)));
                }
            }
        });
    };
    let marked = move |field: &'static str| move || problem.with(|p| p.as_ref().is_some_and(|(f, _)| *f == field));

    view! {
        <form class="join-form" data-testid="join-form" on:submit=submit novalidate=true>
            <label class="field">
                <span>"Join code"</span>
                <input
                    class="input join-code-input"
                    class:is-invalid=marked("code")
                    data-testid="join-code"
                    autocomplete="off"
                    autocapitalize="characters"
                    spellcheck="false"
                    placeholder="K7MP3Q"
                    prop:value=move || code.get()
                    on:input=move |event| code.set(event_target_value(&event))
                />
            </label>
            <label class="field">
                <span>"Your name"</span>
                <input
                    class="input"
                    class:is-invalid=marked("name")
                    data-testid="join-name"
                    autocomplete="nickname"
                    maxlength="64"
                    placeholder="as the others will see it"
                    prop:value=move || name.get()
                    on:input=move |event| name.set(event_target_value(&event))
                />
            </label>
            <SubmitButton busy idle="Join" working="Joining…" testid="btn-join" />
            <FormError message=Signal::derive(move || problem.with(|p| p.as_ref().map(|(_, m)| m.clone()))) testid="join-error" />
        </form>
    }
}
