//! Parts the start pages' forms share: the submit button that says it is working, the
//! refusal said under a form, the secret link shown once with its Copy button, and the
//! list of sessions this browser keeps.

use leptos::prelude::*;

use super::When;

/// A form's submit button: `idle` words, `working` words and disabled while `busy`.
#[component]
pub fn SubmitButton(
    busy: RwSignal<bool>,
    idle: &'static str,
    working: &'static str,
    testid: &'static str,
) -> impl IntoView {
    view! {
        <button class="btn btn-primary" type="submit" data-testid=testid disabled=move || busy.get()>
            {move || if busy.get() { working } else { idle }}
        </button>
    }
}

/// Why the server or the form refused, under the form, while there is a reason.
#[component]
pub fn FormError(#[prop(into)] message: Signal<Option<String>>, testid: &'static str) -> impl IntoView {
    view! {
        <When when=move || message.with(Option::is_some)>
            <p class="form-error" role="alert" data-testid=testid>
                {move || message.get().unwrap_or_default()}
            </p>
        </When>
    }
}

/// A secret link shown once (the server keeps only its digest): `label` says what it
/// gives, the field holds it, Copy copies it and the line below says whether it did.
#[component]
pub fn OnceShownLink(
    label: &'static str,
    link: String,
    testid: &'static str,
    copy_testid: &'static str,
) -> impl IntoView {
    let field = NodeRef::<leptos::html::Input>::new();
    let copied = RwSignal::new(None::<bool>);
    let copy = move |_| {
        if let Some(input) = field.get_untracked() {
            copied.set(Some(super::browser::copy_field(&input)));
        }
    };
    view! {
        <label class="field">
            <span>{label}</span>
            <span class="link-row">
                <input class="input" readonly=true data-testid=testid node_ref=field prop:value=link />
                <button class="btn" type="button" data-testid=copy_testid on:click=copy>
                    "Copy"
                </button>
            </span>
        </label>
        <When when=move || copied.get().is_some()>
            <p class="hint" data-testid=format!("{testid}-copied")>
                {move || match copied.get() {
                    Some(true) => "Copied: paste it where you keep your notes.",
                    _ => "This browser did not copy it: the link is selected, copy it with Ctrl+C.",
                }}
            </p>
        </When>
    }
}

/// The sessions this browser keeps (labs joined, classes signed in to): a heading and a
/// link per `(href, words)`; nothing when there are none.
#[component]
pub fn RejoinList(title: &'static str, links: Vec<(String, String)>, testid: &'static str) -> impl IntoView {
    (!links.is_empty()).then(|| {
        view! {
            <div class="rejoin">
                <h3>{title}</h3>
                <ul class="rejoin-list">
                    {links
                        .into_iter()
                        .map(|(href, words)| view! { <li><a class="btn" data-testid=testid href=href>{words}</a></li> })
                        .collect_view()}
                </ul>
            </div>
        }
    })
}
