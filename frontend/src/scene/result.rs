//! The scene editor's result area: what the last upload did, its log, warnings and errors (click one to jump to its line).

use leptos::prelude::*;
use vlab_protocol::SourceMessage;

use crate::scene::upload::{UploadOutcome, format_message, inserted_summary};

/// Shows `outcome`; `jump(message)` moves the editor to a message's place. `busy` while an upload runs.
#[component]
pub fn SceneResult(
    #[prop(into)] outcome: Signal<Option<UploadOutcome>>,
    #[prop(into)] busy: Signal<bool>,
    /// Whether a message is about the editor's text (and so can be jumped to).
    #[prop(into)]
    in_editor: Callback<SourceMessage, bool>,
    jump: Callback<SourceMessage>,
    /// What was uploaded, in "N errors in …".
    #[prop(default = "the scene")]
    subject: &'static str,
    /// Shown before the first upload.
    #[prop(into, default = Signal::stored("Ctrl+Enter or “Insert” adds the scene to the running lab."))]
    hint: Signal<&'static str>,
) -> impl IntoView {
    let messages = move |items: Vec<SourceMessage>, kind: &'static str| {
        items
            .into_iter()
            .map(|message| {
                let text = format_message(&message);
                let jumpable = in_editor.run(message.clone());
                let line = message.line.to_string();
                view! {
                    <li>
                        <button
                            class=format!("result-message is-{kind}")
                            data-testid=format!("scene-{kind}")
                            data-line=line
                            disabled=!jumpable
                            title=if jumpable { "Show this line in the editor" } else { "In an included file" }
                            on:click=move |_| jump.run(message.clone())
                        >
                            {text}
                        </button>
                    </li>
                }
            })
            .collect_view()
    };
    let body = move || match outcome.get() {
        None => view! { <p class="result-hint">{move || hint.get()}</p> }.into_any(),
        Some(UploadOutcome::Inserted { counts, log, warnings }) => view! {
            <p class="result-summary is-ok">{inserted_summary(&counts)}</p>
            <ul class="result-list">{messages(warnings, "warning")}</ul>
            {log_view(log)}
        }
        .into_any(),
        Some(UploadOutcome::Saved { warnings }) => view! {
            <p class="result-summary is-ok">"Saved: the new program runs now, from where the robot stands."</p>
            <ul class="result-list">{messages(warnings, "warning")}</ul>
        }
        .into_any(),
        Some(UploadOutcome::Rejected { errors, warnings, log }) => view! {
            <p class="result-summary is-bad">
                {format!(
                    "Not inserted: {} error{} in {subject}. Nothing was added.",
                    errors.len(),
                    if errors.len() == 1 { "" } else { "s" },
                )}
            </p>
            <ul class="result-list">{messages(errors, "error")} {messages(warnings, "warning")}</ul>
            {log_view(log)}
        }
        .into_any(),
        Some(UploadOutcome::Failed(message)) => {
            view! { <p class="result-summary is-bad" data-testid="scene-failure">{message}</p> }.into_any()
        }
    };
    view! {
        <div
            class="scene-result"
            data-testid="scene-result"
            data-outcome=move || if busy.get() { "busy" } else { outcome.with(|o| o.as_ref().map_or("none", UploadOutcome::as_attr)) }
            aria-live="polite"
        >
            {move || if busy.get() { view! { <p class="result-hint">"Inserting…"</p> }.into_any() } else { body().into_any() }}
        </div>
    }
}

/// The scene's printed log, when it printed anything.
fn log_view(log: Vec<String>) -> impl IntoView {
    (!log.is_empty()).then(|| view! { <pre class="result-log" data-testid="scene-log">{log.join("\n")}</pre> })
}
