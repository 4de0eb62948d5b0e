//! The create page's "Create a class": the server key and a name → a new class, its code
//! shown large for the board, the teacher's link shown once, and the way to its page.

use leptos::prelude::*;
use vlab_protocol::CreatedClass;

use super::client::{create_class, store_class};
use super::forms::{StoredClass, interpret_create_class};
use crate::ui::{FormError, OnceShownLink, SubmitButton, When};

/// The form, then the class it made.
#[component]
pub fn CreateClassCard() -> impl IntoView {
    let created = RwSignal::new(None::<CreatedClass>);
    view! {
        <When
            when=move || created.with(Option::is_none)
            fallback=move || view! { <CreatedClassCard class=created.get().expect("shown once created") /> }
        >
            <NewClassForm created />
        </When>
    }
}

/// Server key and name → `POST /api/classes`.
#[component]
fn NewClassForm(created: RwSignal<Option<CreatedClass>>) -> impl IntoView {
    let key = RwSignal::new(String::new());
    let name = RwSignal::new(String::new());
    let busy = RwSignal::new(false);
    let problem = RwSignal::new(None::<String>);
    let submit = move |event: leptos::ev::SubmitEvent| {
        event.prevent_default();
        if busy.get_untracked() {
            return;
        }
        let class_name = name.get_untracked();
        if vlab_protocol::clean_display_name(&class_name).is_none() {
            problem.set(Some("Give the class a name (1 to 64 characters).".into()));
            return;
        }
        let server_key = key.get_untracked().trim().to_owned();
        problem.set(None);
        busy.set(true);
        leptos::task::spawn_local(async move {
            let token = (!server_key.is_empty()).then_some(server_key);
            let outcome = interpret_create_class(create_class(token.as_deref(), &class_name).await);
            busy.set(false);
            match outcome {
                Ok(class) => {
                    // This browser comes back to it from the start page.
                    store_class(&StoredClass {
                        class: class.id.clone(),
                        token: class.teacher_token.clone(),
                        name: "teacher".into(),
                    });
                    created.set(Some(class));
                }
                Err(message) => problem.set(Some(message)),
            }
        });
    };
    view! {
        <section class="card" aria-label="Create a class">
            <h2>"New class"</h2>
            <p class="hint">"A course over weeks: a roster that signs in by class code, name and PIN, lessons, assignments and grades."</p>
            <form class="create-form" data-testid="new-class-form" on:submit=submit novalidate=true>
                <label class="field">
                    <span>"Server key"</span>
                    <input
                        class="input"
                        type="password"
                        data-testid="class-server-key"
                        autocomplete="off"
                        placeholder="the token the server printed for the demo lab"
                        prop:value=move || key.get()
                        on:input=move |event| key.set(event_target_value(&event))
                    />
                </label>
                <label class="field">
                    <span>"Class name"</span>
                    <input
                        class="input"
                        data-testid="class-name-input"
                        maxlength="64"
                        placeholder="Robotics 2B"
                        prop:value=move || name.get()
                        on:input=move |event| name.set(event_target_value(&event))
                    />
                </label>
                <SubmitButton busy idle="Create the class" working="Creating…" testid="btn-create-class" />
                <FormError message=problem testid="create-class-error" />
            </form>
        </section>
    }
}

/// The new class: its code large, the teacher's link, the way in.
#[component]
fn CreatedClassCard(class: CreatedClass) -> impl IntoView {
    let origin = window().location().origin().unwrap_or_default();
    let teacher_link = format!("{origin}{}", class.teacher_path);
    let open = class.teacher_path.clone();
    view! {
        <section class="card created-card" data-testid="created-class" data-class=class.id.clone()>
            <h2>{format!("“{}” is ready", class.name)}</h2>
            <p class="hint">{format!("Students open {origin}/ and sign in under “Sign in to your class” with this code, their name and a PIN:")}</p>
            <div class="join-code-big" data-testid="created-class-code">{class.class_code.clone()}</div>
            <OnceShownLink
                label="Your teacher link: save it now, it is shown only this once (the server keeps no copy). Keep it to yourself: it runs the class and every lesson of it."
                link=teacher_link
                testid="teacher-link"
                copy_testid="btn-copy-teacher-link"
            />
            <a class="btn btn-primary" data-testid="btn-open-class" href=open>
                "Open the class page"
            </a>
        </section>
    }
}
