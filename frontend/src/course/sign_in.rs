//! The start page's "Sign in to your class": class code, name and PIN → the class page,
//! the session kept; the server's refusal said under the form, the field it is about marked.

use leptos::prelude::*;

use super::client::{sign_in, store_class};
use super::forms::{Refusal, StoredClass, check_sign_in, interpret_sign_in};
use crate::ui::{FormError, SubmitButton};

/// The form.
#[component]
pub fn SignInForm() -> impl IntoView {
    let code = RwSignal::new(String::new());
    let name = RwSignal::new(String::new());
    let pin = RwSignal::new(String::new());
    let busy = RwSignal::new(false);
    let problem = RwSignal::new(None::<Refusal>);
    let submit = move |event: leptos::ev::SubmitEvent| {
        event.prevent_default();
        if busy.get_untracked() {
            return;
        }
        let (typed_code, typed_name, typed_pin) = (code.get_untracked(), name.get_untracked(), pin.get_untracked());
        if let Some(refusal) = check_sign_in(&typed_code, &typed_name, &typed_pin) {
            problem.set(Some(refusal));
            return;
        }
        problem.set(None);
        busy.set(true);
        leptos::task::spawn_local(async move {
            match interpret_sign_in(sign_in(&typed_code, &typed_name, &typed_pin).await) {
                Ok(signed) => {
                    store_class(&StoredClass::signed_in(&signed));
                    let _ = window().location().set_href(&signed.class_path);
                }
                Err(refusal) => {
                    busy.set(false);
                    // The PIN is typed again; the code and the name stay.
                    if refusal.0 == "pin" {
                        pin.set(String::new());
                    }
                    problem.set(Some(refusal));
                }
            }
        });
    };
    let marked = move |field: &'static str| move || problem.with(|p| p.as_ref().is_some_and(|(f, _)| *f == field));
    view! {
        <form class="join-form" data-testid="sign-in-form" on:submit=submit novalidate=true>
            <label class="field">
                <span>"Class code"</span>
                <input
                    class="input join-code-input"
                    class:is-invalid=marked("code")
                    data-testid="class-code-input"
                    autocomplete="off"
                    autocapitalize="characters"
                    spellcheck="false"
                    placeholder="K7MPQ2XY"
                    prop:value=move || code.get()
                    on:input=move |event| code.set(event_target_value(&event))
                />
            </label>
            <label class="field">
                <span>"Your name"</span>
                <input
                    class="input"
                    class:is-invalid=marked("name")
                    data-testid="sign-in-name"
                    autocomplete="name"
                    maxlength="64"
                    placeholder="as your teacher wrote it"
                    prop:value=move || name.get()
                    on:input=move |event| name.set(event_target_value(&event))
                />
            </label>
            <label class="field">
                <span>"PIN (the first time, choose 4 to 8 digits and keep them)"</span>
                <input
                    class="input"
                    class:is-invalid=marked("pin")
                    data-testid="sign-in-pin"
                    type="password"
                    inputmode="numeric"
                    autocomplete="current-password"
                    maxlength="8"
                    prop:value=move || pin.get()
                    on:input=move |event| pin.set(event_target_value(&event))
                />
            </label>
            <SubmitButton busy idle="Sign in" working="Signing in…" testid="btn-sign-in" />
            <FormError message=Signal::derive(move || problem.with(|p| p.as_ref().map(|(_, m)| m.clone()))) testid="sign-in-error" />
        </form>
    }
}
