//! The browser's small services the features share: `localStorage`, and reading the files a user picked.

use leptos::prelude::window;
use wasm_bindgen_futures::JsFuture;
use web_sys::FileList;

use crate::api::js_error_text;

/// The page's `localStorage`, when the browser allows it.
pub fn local_storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
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
