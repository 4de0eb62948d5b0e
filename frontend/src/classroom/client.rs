//! The classroom's HTTP calls and stored sessions, the browser part: a JSON `fetch` with an optional bearer token, and the sessions kept per lab in `localStorage`.
//!
//! What answers mean is decided in [`crate::classroom`] (host-tested); this file only
//! moves bytes. A request that gets no answer becomes an `Err` sentence, never a panic.

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Headers, Request, RequestInit, Response};

use crate::classroom::forms::{SESSION_KEY_PREFIX, StoredSession, session_storage_key};

/// Sends `method path` (same origin) with `body` (JSON, or plain text when `text`),
/// the bearer `token` if any; the status and the body's text.
pub async fn request(
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&str>,
    text: bool,
) -> Result<(u16, String), String> {
    send(method, path, token, body, text).await.map_err(|error| {
        let detail = js_error_text(&error);
        format!("Could not reach the server ({detail}). Check the connection and try again.")
    })
}

async fn send(
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&str>,
    text: bool,
) -> Result<(u16, String), JsValue> {
    let headers = Headers::new()?;
    if let Some(token) = token {
        headers.set("Authorization", &format!("Bearer {token}"))?;
    }
    headers.set("Accept", "application/json")?;
    let init = RequestInit::new();
    init.set_method(method);
    if let Some(body) = body {
        headers.set("Content-Type", if text { "text/plain; charset=utf-8" } else { "application/json" })?;
        init.set_body(&JsValue::from_str(body));
    }
    init.set_headers(&headers);
    fetch_text(path, &init).await
}

/// Sends `init` to `path` and reads the answer: its status and its text. Every request
/// of the app goes through here.
pub(crate) async fn fetch_text(path: &str, init: &RequestInit) -> Result<(u16, String), JsValue> {
    let request = Request::new_with_str_and_init(path, init)?;
    let response: Response = JsFuture::from(window().fetch_with_request(&request)).await?.dyn_into()?;
    let status = response.status();
    let body = JsFuture::from(response.text()?).await?.as_string().unwrap_or_default();
    Ok((status, body))
}

/// A readable sentence from a JS exception or rejection.
fn js_error_text(error: &JsValue) -> String {
    if let Some(error) = error.dyn_ref::<js_sys::Error>() {
        return String::from(error.message());
    }
    error.as_string().unwrap_or_else(|| format!("{error:?}"))
}

fn local_storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

/// The session this browser holds in `lab`, if any.
pub fn stored_session(lab: &str) -> Option<StoredSession> {
    let text = local_storage()?.get_item(&session_storage_key(lab)).ok().flatten()?;
    StoredSession::from_json(&text).filter(|session| session.lab == lab)
}

/// Keeps `session` for its lab (replacing an older one).
pub fn store_session(session: &StoredSession) {
    if let Some(storage) = local_storage() {
        // A full or disabled storage only costs the identity across reloads.
        let _ = storage.set_item(&session_storage_key(&session.lab), &session.to_json());
    }
}

/// Forgets the session held in `lab` if its token is `token` (the server refused it).
pub fn forget_session(lab: &str, token: &str) {
    if stored_session(lab).is_some_and(|session| session.token == token)
        && let Some(storage) = local_storage()
    {
        let _ = storage.remove_item(&session_storage_key(lab));
    }
}

/// Every session this browser holds, by lab id.
pub fn stored_sessions() -> Vec<StoredSession> {
    let Some(storage) = local_storage() else { return Vec::new() };
    let count = storage.length().unwrap_or(0);
    let mut sessions: Vec<StoredSession> = (0..count)
        .filter_map(|index| storage.key(index).ok().flatten())
        .filter(|key| key.starts_with(SESSION_KEY_PREFIX))
        .filter_map(|key| storage.get_item(&key).ok().flatten())
        .filter_map(|text| StoredSession::from_json(&text))
        .collect();
    sessions.sort_by(|a, b| a.lab.cmp(&b.lab));
    sessions
}
