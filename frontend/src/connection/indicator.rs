//! The connection indicator: a coloured dot and a word, with `data-state` for tests.

use leptos::prelude::*;

use crate::connection::LabSession;

/// Live / Connecting / Reconnecting / Offline / Out of date / No such lab.
#[component]
pub fn ConnectionStatus() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let state = move || session.connection.get();
    let host = session.host.get_value();
    view! {
        <div
            class="chip connection"
            data-testid="connection-status"
            data-state=move || state().as_attr()
            title=move || format!("server {host}: {}", state().as_attr().replace('_', " "))
        >
            <span class="dot"></span>
            <span class="connection-label">{move || state().label()}</span>
        </div>
    }
}
