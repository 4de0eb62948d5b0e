//! The browser's small services the features share: `localStorage`, the tab's link
//! token, reading the files a user picked, saving a download, and copying a field.

use leptos::prelude::window;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, FileList, HtmlAnchorElement, Url};

use crate::api::js_error_text;

/// The page's `localStorage`, when the browser allows it.
pub fn local_storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

/// The key under which a tab keeps the token its link carried, per lab.
fn link_token_key(lab: &str) -> String {
    format!("vlab-link-token:{lab}")
}

/// Takes the token out of the address bar (where a projector shows it and a copied
/// link spreads it): the tab keeps it in its `sessionStorage`, so a reload stays the
/// same person, and the address becomes `?lab=<lab>`.
pub fn hide_link_token(lab: &str, token: &str, plain_query: &str) {
    if let Some(storage) = window().session_storage().ok().flatten() {
        let _ = storage.set_item(&link_token_key(lab), token);
    }
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(plain_query));
    }
}

/// The token this tab's link carried for `lab` before it was taken out of the address bar.
pub fn link_token(lab: &str) -> Option<String> {
    window().session_storage().ok().flatten()?.get_item(&link_token_key(lab)).ok().flatten()
}

/// Every picked file's name and bytes, in order. A file that cannot be read is an error naming it.
pub async fn read_files(files: FileList) -> Result<Vec<(String, Vec<u8>)>, String> {
    let mut read = Vec::new();
    for index in 0..files.length() {
        let Some(file) = files.item(index) else { continue };
        let name = file.name();
        let buffer = JsFuture::from(file.array_buffer())
            .await
            .map_err(|error| format!("cannot read {name}: {}", js_error_text(&error)))?;
        read.push((name, js_sys::Uint8Array::new(&buffer).to_vec()));
    }
    Ok(read)
}

/// Saves `blob` as `file_name` through the browser's download: an object URL on a
/// `<a download>` clicked once (a plain link cannot carry the bearer token).
pub fn save_blob(blob: &Blob, file_name: &str) -> Result<(), String> {
    let failed =
        |error: wasm_bindgen::JsValue| format!("the browser did not save {file_name}: {}", js_error_text(&error));
    let url = Url::create_object_url_with_blob(blob).map_err(failed)?;
    let document = leptos::prelude::document();
    let link: HtmlAnchorElement = document.create_element("a").map_err(failed)?.unchecked_into();
    link.set_href(&url);
    link.set_download(file_name);
    link.set_hidden(true);
    if let Some(body) = document.body() {
        let _ = body.append_child(&link);
    }
    link.click();
    link.remove();
    // The download has taken the bytes once the click is handled; the URL can go after.
    leptos::prelude::set_timeout(move || drop(Url::revoke_object_url(&url)), std::time::Duration::from_secs(30));
    Ok(())
}

/// Selects the whole of `input` and copies it to the clipboard; whether the browser
/// copied it (when not, the text stays selected for the user to copy). A page served
/// over plain HTTP on a classroom's network has no asynchronous clipboard, so this uses
/// the selection, which every browser copies.
pub fn copy_field(input: &web_sys::HtmlInputElement) -> bool {
    input.select();
    window()
        .document()
        .and_then(|document| document.dyn_into::<web_sys::HtmlDocument>().ok())
        .and_then(|document| document.exec_command("copy").ok())
        .unwrap_or(false)
}

/// Every name this tab keeps a link's token for, starting with `prefix`, with the token.
pub fn link_tokens_under(prefix: &str) -> Vec<(String, String)> {
    let Some(storage) = window().session_storage().ok().flatten() else { return Vec::new() };
    let full_prefix = link_token_key(prefix);
    (0..storage.length().unwrap_or(0))
        .filter_map(|index| storage.key(index).ok().flatten())
        .filter_map(|key| {
            let name = key.strip_prefix(&link_token_key(""))?.to_owned();
            let token = key.starts_with(&full_prefix).then(|| storage.get_item(&key).ok().flatten())??;
            Some((name, token))
        })
        .collect()
}
