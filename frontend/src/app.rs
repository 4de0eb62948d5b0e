//! The root component: reads the page URL, creates the lab session, starts the websocket client, lays out the page.

use leptos::prelude::*;

use crate::components::{ErrorBanner, LabCanvas, RobotPanel, SceneEditor, Toolbar};
use crate::page::PageParams;
use crate::scene_client::SceneDraft;
use crate::session::LabSession;

/// The whole page: toolbar on top, the 3D view filling the rest (the banner over its top
/// edge), the scene editor beside it when the instructor opens it, and the robot panel
/// at the right edge.
#[component]
pub fn App() -> impl IntoView {
    let location = window().location();
    let params = PageParams::from_query(&location.search().unwrap_or_default());
    let host = location.host().unwrap_or_default();
    let secure = location.protocol().is_ok_and(|p| p == "https:");
    let title = format!("{} · VLab", params.lab);

    let draft = SceneDraft::new(&params.lab);
    provide_context(draft);
    let session = LabSession::new(params, host);
    provide_context(session);
    crate::ws_client::start(session, secure);

    // The tab title follows the lab's display name once the server tells it.
    Effect::new(move |_| {
        let name = session.lab_name.get();
        document().set_title(&name.map_or_else(|| title.clone(), |name| format!("{name} · VLab")));
    });

    view! {
        <div class="app">
            <Toolbar />
            <div class="workspace">
                <main class="stage">
                    <LabCanvas />
                    <ErrorBanner />
                </main>
                // Instructor only: the server refuses uploads from anyone else anyway.
                <Show when=move || draft.open.get() && session.is_instructor()>
                    <SceneEditor />
                </Show>
                <RobotPanel />
            </div>
        </div>
    }
}
