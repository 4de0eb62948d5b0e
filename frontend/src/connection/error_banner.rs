//! The banner under the toolbar: connection trouble (until it resolves) or the last server error (until dismissed).

use leptos::prelude::*;

use super::LabSession;
use crate::ui::When;

/// Overlays the top of the canvas, so showing it never shifts the layout.
#[component]
pub fn ErrorBanner() -> impl IntoView {
    let session = expect_context::<LabSession>();
    // Connection trouble outranks a command error: nothing works until it is fixed.
    let notice = move || session.connection_notice.get();
    let text = move || notice().or_else(|| session.error.get());
    view! {
        <When when=move || text().is_some()>
            <div
                class="banner"
                class:is-connection=move || notice().is_some()
                role="alert"
                data-testid="error-banner"
            >
                // Icon and × are drawn by CSS so the banner's text is only the message.
                <span class="banner-icon" aria-hidden="true"></span>
                <span class="banner-text">{text}</span>
                <When when=move || notice().is_none()>
                    <button
                        class="banner-dismiss"
                        data-testid="btn-dismiss-error"
                        title="Dismiss"
                        aria-label="Dismiss"
                        on:click=move |_| session.error.set(None)
                    ></button>
                </When>
            </div>
        </When>
    }
}
