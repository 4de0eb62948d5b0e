//! The instructor's notices: a banner over the top of the 3D view for everybody, each dismissed on its own.

use leptos::prelude::*;

use super::{ClassState, Notice};
use crate::connection::LabSession;
use crate::ui::ForEach;

/// The latest notices, newest last; under the error banner when both show.
#[component]
pub fn NoticeBanner() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let class = expect_context::<ClassState>();
    let dismiss = move |id: u64| class.notices.update(|notices| notices.retain(|n| n.id != id));
    view! {
        <div class="notices" class:is-below-banner=move || session.error.with(Option::is_some) || session.connection_notice.with(Option::is_some)>
            <ForEach each=move || class.notices.get() key=|n: &Notice| n.id let:notice>
                <div class="notice" role="status" data-testid="notice">
                    <span class="notice-icon" aria-hidden="true"></span>
                    <span class="notice-from">{notice.from.clone()}</span>
                    // Plain text, as the server sends it.
                    <span class="notice-text" data-testid="notice-text">{notice.message.clone()}</span>
                    <button
                        class="banner-dismiss"
                        data-testid="btn-dismiss-notice"
                        title="Dismiss"
                        aria-label="Dismiss"
                        on:click=move |_| dismiss(notice.id)
                    ></button>
                </div>
            </ForEach>
        </div>
    }
}
