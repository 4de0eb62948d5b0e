//! The top bar: brand, lab, connection, role, clock, and (instructor only) the time controls.

use leptos::prelude::*;
use vlab_protocol::Role;

use super::{ClockReadout, ConnectionStatus, TimeControls};
use crate::session::LabSession;

/// The dark bar across the top of the page.
#[component]
pub fn Toolbar() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let lab_id = session.params.with_value(|p| p.lab.clone());
    let lab_title = {
        let lab_id = lab_id.clone();
        move || session.lab_name.get().unwrap_or_else(|| lab_id.clone())
    };
    let role_text = move || {
        session.role.get().map_or("", |role| match role {
            Role::Instructor => "instructor",
            Role::Student => "student",
            Role::Viewer => "viewer",
        })
    };

    view! {
        <header class="toolbar">
            <div class="brand" title="VLab: the virtual robotics lab">
                <span class="brand-mark">"V"</span>
                <span class="brand-name">"VLab"</span>
            </div>
            <div class="lab-title" title=format!("lab id: {lab_id}")>
                <span class="lab-name" data-testid="lab-name">{lab_title}</span>
            </div>
            <ConnectionStatus />
            <div class="chip role-chip" class:is-instructor=move || session.is_instructor()>
                <span class="chip-label">"role"</span>
                <span class="role" data-testid="role">{role_text}</span>
            </div>
            <div class="spacer"></div>
            <ClockReadout />
            <Show when=move || session.is_instructor()>
                <TimeControls />
            </Show>
        </header>
    }
}
