//! The instructor's "Save scene" buttons: the lab's world as it stands now, as a `.vlab`
//! file a new lab is made of, or as a zip with the programs and meshes it names
//! (docs/classroom.md, "Saving a lab as a scene").
//!
//! Shown to whoever the permission table lets save the lab (`SaveScene`); the server
//! refuses anybody else anyway. The file needs the session's bearer token, which a plain
//! link cannot carry: it is fetched, then saved from a Blob. A refusal (a world the
//! language cannot write) shows under the button.

use leptos::prelude::*;
use vlab_protocol::permissions::Action;

use super::ClassState;
use crate::api::save_download;
use crate::connection::LabSession;
use crate::page::lab_api_path;
use crate::ui::When;

/// The button and the error of the last attempt.
#[component]
pub fn SaveScene() -> impl IntoView {
    let class = expect_context::<ClassState>();
    let session = expect_context::<LabSession>();
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let save = move |extension: &'static str| {
        let lab = session.lab_id();
        let url = lab_api_path(&lab, &format!("/scene.{extension}"));
        let name = format!("{lab}.{extension}");
        let token = session.token();
        busy.set(true);
        error.set(None);
        leptos::task::spawn_local(async move {
            let saved = save_download(&url, token.as_deref(), &name).await;
            error.set(saved.err().map(|why| format!("Not saved: {why}")));
            busy.set(false);
        });
    };
    view! {
        <When when=move || class.may(Action::SaveScene)>
            <section class="robot-section downloads" data-testid="save-scene">
                <h4>"Scene"</h4>
                <p class="robot-hint">"The lab as it stands now, as a .vlab file a new lab is made of"</p>
                <div class="downloads-buttons">
                    <button
                        class="btn btn-small"
                        data-testid="btn-save-scene"
                        title="Every object where it stands, the robots with their devices and programs' names"
                        disabled=move || busy.get()
                        on:click=move |_| save("vlab")
                    >
                        "Save scene (.vlab)"
                    </button>
                    <button
                        class="btn btn-small"
                        data-testid="btn-save-scene-zip"
                        title="The scene with every robot's program files and the meshes it draws, for another server"
                        disabled=move || busy.get()
                        on:click=move |_| save("zip")
                    >
                        "With programs (.zip)"
                    </button>
                </div>
                <When when=move || error.with(Option::is_some)>
                    <p class="downloads-error" role="alert" data-testid="save-scene-error">{move || error.get()}</p>
                </When>
            </section>
        </When>
    }
}
