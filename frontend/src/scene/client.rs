//! Scene upload, the browser part: the draft the instructor is writing, its copy in `localStorage`, reading picked files, and the request that posts it.
//!
//! What the request is and what its answer means are decided in [`super::upload`]
//! (host-tested). Every failure becomes an [`UploadOutcome::Failed`] sentence: an
//! upload never panics and never loses the text.

use leptos::prelude::*;
use vlab_protocol::SceneUploadReply;
use web_sys::FileList;

use super::upload::{
    DEFAULT_MAIN_NAME, PickedFile, UploadOutcome, draft_storage_key, interpret_response, scene_upload_body,
};
use crate::api::fetch_reply;
use crate::ui::browser::local_storage;
use crate::ui::effect;

/// The scene editor's state, kept by the app (not the panel) so closing the panel or a
/// failed upload loses nothing; the text is also saved per lab in `localStorage`.
#[derive(Clone, Copy)]
pub struct SceneDraft {
    /// The panel is open.
    pub open: RwSignal<bool>,
    /// The main scene's text, as in the editor.
    pub text: RwSignal<String>,
    /// The name the text is uploaded under (the picked file's, or `upload.vlab`).
    pub main_name: RwSignal<String>,
    /// Files sent beside it (includes, robot programs), by name.
    pub includes: RwSignal<Vec<PickedFile>>,
    /// An upload is under way.
    pub busy: RwSignal<bool>,
    /// How the last upload ended.
    pub outcome: RwSignal<Option<UploadOutcome>>,
}

impl SceneDraft {
    /// The draft of `lab`, restored from `localStorage`, and saved back on every change.
    pub fn new(lab: &str) -> SceneDraft {
        let key = draft_storage_key(lab);
        let saved = local_storage().and_then(|storage| storage.get_item(&key).ok().flatten()).unwrap_or_default();
        let draft = SceneDraft {
            open: RwSignal::new(false),
            text: RwSignal::new(saved),
            main_name: RwSignal::new(DEFAULT_MAIN_NAME.to_owned()),
            includes: RwSignal::new(Vec::new()),
            busy: RwSignal::new(false),
            outcome: RwSignal::new(None),
        };
        effect(move |_| {
            let text = draft.text.get();
            if let Some(storage) = local_storage() {
                // A full storage only costs the copy that survives a reload.
                let _ = if text.is_empty() { storage.remove_item(&key) } else { storage.set_item(&key, &text) };
            }
        });
        draft
    }
}

/// Reads every picked file, in order: text, or bytes for meshes and images. A file that
/// cannot be read is an error naming it.
pub async fn read_files(files: FileList) -> Result<Vec<PickedFile>, String> {
    let read = crate::ui::browser::read_files(files).await?;
    Ok(read.into_iter().map(|(name, bytes)| PickedFile::read(name, bytes)).collect())
}

/// Posts the scene to `path` with the instructor's `token` (see [`scene_upload_body`]).
pub async fn upload(
    path: String,
    token: Option<String>,
    main_name: String,
    text: String,
    includes: Vec<PickedFile>,
) -> UploadOutcome {
    let body = scene_upload_body(&main_name, &text, &includes);
    interpret_response(fetch_reply::<SceneUploadReply>("POST", &path, token.as_deref(), body).await)
}
