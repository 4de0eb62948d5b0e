//! The top bar: brand, lab, connection, role, clock; the time controls and the scene editor button for whoever the permission table lets control time and insert scenes (the instructor).

use leptos::prelude::*;
use vlab_protocol::Role;
use vlab_protocol::permissions::Action;
use wasm_split_helpers::wasm_split;

use crate::classroom::ClassState;
use crate::classroom::forms::role_badge;
use crate::connection::{ClockReadout, ConnectionStatus, LabSession, TimeControls};
use crate::page::class_query;
use crate::scene::SceneDraft;
use crate::ui::{Part, PartNotLoaded, When};

/// The dark bar across the top of the page.
#[component]
pub fn Toolbar() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let class = expect_context::<ClassState>();
    let draft = expect_context::<SceneDraft>();
    let lab_id = session.params.with_value(|p| p.lab.clone());
    let lab_title = {
        let lab_id = lab_id.clone();
        move || session.lab_name.get().unwrap_or_else(|| lab_id.clone())
    };
    let role_text = move || session.role.get().map_or("", role_badge);
    // A lesson of a class is entered with the class's token: the way back to the class.
    let class_page = session.token().and_then(|token| {
        crate::course::client::class_of_token(&token).map(|class| format!("/{}", class_query(&class, None)))
    });

    view! {
        <header class="toolbar">
            <div class="brand" title="VLab: the virtual robotics lab">
                <span class="brand-mark">"V"</span>
                <span class="brand-name">"VLab"</span>
            </div>
            {class_page.map(|href| {
                view! {
                    <a class="btn btn-small back-to-class" data-testid="back-to-class" href=href title="The class page: lessons, assignments, grades">
                        "← Class"
                    </a>
                }
            })}
            <div class="lab-title" title=format!("lab id: {lab_id}")>
                <span class="lab-name" data-testid="lab-name">{lab_title}</span>
            </div>
            <ConnectionStatus />
            <div class="chip role-chip" class:is-instructor=move || session.role.get() == Some(Role::Instructor)>
                <span class="chip-label">"role"</span>
                <span class="role" data-testid="role">{role_text}</span>
            </div>
            <div class="spacer"></div>
            <ClockReadout />
            <When when=move || class.may(Action::ControlTime)>
                <Part what="the time controls" load=|| Box::pin(time_controls()) />
            </When>
            <When when=move || class.may(Action::InsertScene)>
                <button
                    class="btn open-scene-editor"
                    class:is-active=move || draft.open.get()
                    data-testid="btn-open-scene-editor"
                    aria-pressed=move || draft.open.get().to_string()
                    title="Add to scene: write or load a .vlab scene and insert it into the running lab"
                    on:click=move |_| draft.open.update(|open| *open = !*open)
                >
                    "+ Scene"
                </button>
            </When>
        </header>
    }
}

/// Pause, step, speed and reset: the instructor's, so they come with the instructor's
/// tools (`ui::part`) and the students' pages never fetch them.
#[wasm_split(instructor_tools, fallible)]
fn time_controls() -> Result<AnyView, PartNotLoaded> {
    Ok(view! { <TimeControls /> }.into_any())
}
