//! Scene upload, the browser part: the draft the instructor is writing, its copy in `localStorage`, reading picked files, and the `fetch` that posts it.
//!
//! What the answer means is decided in [`crate::scene::upload`] (host-tested); this file
//! only moves bytes. Every failure becomes an [`UploadOutcome::Failed`] sentence: an
//! upload never panics and never loses the text.

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, BlobPropertyBag, FileList, FormData, Headers, RequestInit};

use crate::scene::upload::{
    DEFAULT_MAIN_NAME, PickedFile, UploadOutcome, draft_storage_key, interpret_response, network_failure,
};

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
        Effect::new(move |_| {
            let text = draft.text.get();
            if let Some(storage) = local_storage() {
                // A full storage only costs the copy that survives a reload.
                let _ = if text.is_empty() { storage.remove_item(&key) } else { storage.set_item(&key, &text) };
            }
        });
        draft
    }
}

fn local_storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

/// A readable sentence from a JS exception or rejection.
fn js_error_text(error: &JsValue) -> String {
    if let Some(error) = error.dyn_ref::<js_sys::Error>() {
        return String::from(error.message());
    }
    error.as_string().unwrap_or_else(|| format!("{error:?}"))
}

/// Reads every picked file as text, in order. A file that cannot be read is an error naming it.
pub async fn read_files(files: FileList) -> Result<Vec<PickedFile>, String> {
    let mut picked = Vec::new();
    for index in 0..files.length() {
        let Some(file) = files.item(index) else {
            continue;
        };
        let name = file.name();
        let text = JsFuture::from(file.text())
            .await
            .map_err(|error| format!("cannot read {name}: {}", js_error_text(&error)))?;
        picked.push(PickedFile { name, text: text.as_string().unwrap_or_default() });
    }
    Ok(picked)
}

/// Posts the scene to `path` with the instructor's `token`: plain text when it goes alone
/// under the default name, `multipart/form-data` (main file in field `scene`, the others
/// under their own names) otherwise.
pub async fn upload(
    path: String,
    token: Option<String>,
    main_name: String,
    text: String,
    includes: Vec<PickedFile>,
) -> UploadOutcome {
    match post(&path, token.as_deref(), &main_name, &text, &includes).await {
        Ok((status, body)) => interpret_response(status, &body),
        Err(error) => network_failure(&js_error_text(&error)),
    }
}

async fn post(
    path: &str,
    token: Option<&str>,
    main_name: &str,
    text: &str,
    includes: &[PickedFile],
) -> Result<(u16, String), JsValue> {
    let headers = Headers::new()?;
    if let Some(token) = token {
        headers.set("Authorization", &format!("Bearer {token}"))?;
    }
    headers.set("Accept", "application/json")?;
    let init = RequestInit::new();
    init.set_method("POST");
    if includes.is_empty() && main_name == DEFAULT_MAIN_NAME {
        headers.set("Content-Type", "text/plain; charset=utf-8")?;
        init.set_body(&JsValue::from_str(text));
    } else {
        // The browser writes the multipart boundary into Content-Type itself.
        let form = FormData::new()?;
        form.append_with_blob_and_filename("scene", &text_blob(text)?, main_name)?;
        for file in includes {
            form.append_with_blob_and_filename(&file.name, &text_blob(&file.text)?, &file.name)?;
        }
        init.set_body(&form);
    }
    init.set_headers(&headers);
    crate::classroom::client::fetch_text(path, &init).await
}

fn text_blob(text: &str) -> Result<Blob, JsValue> {
    let options = BlobPropertyBag::new();
    options.set_type("text/plain");
    Blob::new_with_str_sequence_and_options(&js_sys::Array::of1(&JsValue::from_str(text)), &options)
}
