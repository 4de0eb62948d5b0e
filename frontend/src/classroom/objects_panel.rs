//! The palette panel: a button for each palette item (the list is the protocol's, the one the server inserts from) for whoever may add objects (a student while the instructor lets students, the instructor always), a line saying what was added or why not, and "Your objects" with a Remove button each.

use leptos::prelude::*;
use vlab_protocol::PALETTE;

use super::ClassState;
use super::client::{add_palette_item, remove_object};
use super::forms::added_sentence;
use crate::api::error_sentence;
use crate::connection::LabSession;
use crate::ui::{ForEachName, When};

/// The panel; nothing for whoever may not add objects.
#[component]
pub fn ObjectsPanel() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let class = expect_context::<ClassState>();
    let busy = RwSignal::new(false);
    let said = RwSignal::new(None::<String>);
    let mine = move || {
        let me = class.you.with(|you| you.as_ref().map(|you| you.id));
        class.objects.with(|objects| {
            objects.iter().filter(|(_, owner)| Some(*owner) == me).map(|(name, _)| name.clone()).collect::<Vec<_>>()
        })
    };
    let add = move |id: &'static str| {
        busy.set(true);
        let (lab, token) = (session.lab_id(), session.token());
        leptos::task::spawn_local(async move {
            let line = match add_palette_item(&lab, id, token.as_deref()).await {
                Ok(reply) => added_sentence(&reply.objects),
                Err(error) => error_sentence(&error),
            };
            said.set(Some(line));
            busy.set(false);
        });
    };
    let take_out = move |name: String| {
        busy.set(true);
        let (lab, token) = (session.lab_id(), session.token());
        leptos::task::spawn_local(async move {
            let line = match remove_object(&lab, &name, token.as_deref()).await {
                Ok(()) => format!("Removed {name}."),
                Err(error) => error_sentence(&error),
            };
            said.set(Some(line));
            busy.set(false);
        });
    };
    view! {
        <When when=move || class.may_add_objects()>
            <section class="objects-panel" data-testid="objects-panel">
                <h3>"Add an object"</h3>
                <div class="palette">
                    {PALETTE
                        .iter()
                        .map(|item| {
                            let id = item.id;
                            view! {
                                <button
                                    class="btn btn-small"
                                    data-testid=format!("palette-{id}")
                                    title=item.about
                                    disabled=move || busy.get()
                                    on:click=move |_| add(id)
                                >
                                    {item.label}
                                </button>
                            }
                        })
                        .collect_view()}
                </div>
                <p class="palette-said" data-testid="palette-said">{move || said.get().unwrap_or_default()}</p>
                <h4>"Your objects"</h4>
                <ul class="your-objects" data-testid="your-objects">
                    <ForEachName
                        each=Signal::derive(mine)
                        children=move |name: String| {
                            let removed = name.clone();
                            view! {
                                <li data-testid=format!("your-object-{name}")>
                                    <span>{name.clone()}</span>
                                    <button
                                        class="btn btn-small"
                                        data-testid=format!("btn-remove-object-{name}")
                                        disabled=move || busy.get()
                                        on:click=move |_| take_out(removed.clone())
                                    >
                                        "Remove"
                                    </button>
                                </li>
                            }
                        }
                    />
                </ul>
            </section>
        </When>
    }
}
