//! The browser's `fetch`, once: every request of the app (JSON, text, multipart) goes through [`send`], and every download through [`fetch_blob`], with the session's bearer token when there is one.
//!
//! What an answer means is decided in [`super::error`] (host-tested); this file only
//! moves bytes. A request that gets no answer is an [`ApiError::Network`], never a panic.

use leptos::prelude::window;
use serde::de::DeserializeOwned;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, BlobPropertyBag, FormData, Headers, Request, RequestInit, Response};

use super::body::{Body, Part, PartBody};
use super::error::{ApiError, read_json, read_reply};

/// `method url` (same origin) with `body` and the bearer `token`: the answer as a `T`.
pub async fn fetch_json<T: DeserializeOwned>(
    method: &str,
    url: &str,
    token: Option<&str>,
    body: Body,
) -> Result<T, ApiError> {
    let (status, text) = send(method, url, token, body).await?;
    read_json(status, &text)
}

/// Like [`fetch_json`] for a request whose answer is a `T` whatever its status (an
/// upload's reply): the status and the reply.
pub async fn fetch_reply<T: DeserializeOwned>(
    method: &str,
    url: &str,
    token: Option<&str>,
    body: Body,
) -> Result<(u16, T), ApiError> {
    let (status, text) = send(method, url, token, body).await?;
    read_reply(status, &text)
}

/// `GET url` (same origin) with the bearer `token`: the answer's bytes as a [`Blob`]
/// (a download), or the refusal the server wrote.
pub async fn fetch_blob(url: &str, token: Option<&str>) -> Result<Blob, ApiError> {
    download(url, token).await.map_err(|error| ApiError::Network(js_error_text(&error)))?
}

/// Fetches `url` with `token` and saves it as the file `name`; why not, in a sentence.
/// A link cannot carry a bearer token, so a download the server guards goes this way.
pub async fn save_download(url: &str, token: Option<&str>, name: &str) -> Result<(), String> {
    let blob = fetch_blob(url, token).await.map_err(|refused| super::error_sentence(&refused))?;
    crate::ui::browser::save_blob(&blob, name)
}

async fn download(url: &str, token: Option<&str>) -> Result<Result<Blob, ApiError>, JsValue> {
    let headers = Headers::new()?;
    if let Some(token) = token {
        headers.set("Authorization", &format!("Bearer {token}"))?;
    }
    let init = RequestInit::new();
    init.set_method("GET");
    init.set_headers(&headers);
    let request = Request::new_with_str_and_init(url, &init)?;
    let response: Response = JsFuture::from(window().fetch_with_request(&request)).await?.dyn_into()?;
    let status = response.status();
    if (200..300).contains(&status) {
        return Ok(Ok(JsFuture::from(response.blob()?).await?.dyn_into()?));
    }
    let text = JsFuture::from(response.text()?).await?.as_string().unwrap_or_default();
    Ok(Err(ApiError::refused(status, &text)))
}

/// Sends the request and reads the answer's status and text.
async fn send(method: &str, url: &str, token: Option<&str>, body: Body) -> Result<(u16, String), ApiError> {
    exchange(method, url, token, body).await.map_err(|error| ApiError::Network(js_error_text(&error)))
}

async fn exchange(method: &str, url: &str, token: Option<&str>, body: Body) -> Result<(u16, String), JsValue> {
    let headers = Headers::new()?;
    if let Some(token) = token {
        headers.set("Authorization", &format!("Bearer {token}"))?;
    }
    headers.set("Accept", "application/json")?;
    let init = RequestInit::new();
    init.set_method(method);
    match body {
        Body::Empty => {}
        Body::Json(json) => {
            headers.set("Content-Type", "application/json")?;
            init.set_body(&JsValue::from_str(&json));
        }
        Body::Text(text) => {
            headers.set("Content-Type", "text/plain; charset=utf-8")?;
            init.set_body(&JsValue::from_str(&text));
        }
        // The browser writes the multipart boundary into Content-Type itself.
        Body::Parts(parts) => init.set_body(&form_data(&parts)?.into()),
    }
    init.set_headers(&headers);
    let request = Request::new_with_str_and_init(url, &init)?;
    let response: Response = JsFuture::from(window().fetch_with_request(&request)).await?.dyn_into()?;
    let status = response.status();
    let text = JsFuture::from(response.text()?).await?.as_string().unwrap_or_default();
    Ok((status, text))
}

fn form_data(parts: &[Part]) -> Result<FormData, JsValue> {
    let form = FormData::new()?;
    for part in parts {
        let blob = match &part.body {
            PartBody::Text(text) => blob(&JsValue::from_str(text), "text/plain")?,
            PartBody::Wasm(bytes) => blob(&js_sys::Uint8Array::from(bytes.as_slice()).into(), "application/wasm")?,
            PartBody::Binary(bytes) => {
                blob(&js_sys::Uint8Array::from(bytes.as_slice()).into(), "application/octet-stream")?
            }
        };
        form.append_with_blob_and_filename(&part.field, &blob, &part.filename)?;
    }
    Ok(form)
}

fn blob(content: &JsValue, mime: &str) -> Result<Blob, JsValue> {
    let options = BlobPropertyBag::new();
    options.set_type(mime);
    Blob::new_with_u8_array_sequence_and_options(&js_sys::Array::of1(content), &options)
}

/// A readable sentence from a JS exception or rejection.
pub fn js_error_text(error: &JsValue) -> String {
    if let Some(error) = error.dyn_ref::<js_sys::Error>() {
        return String::from(error.message());
    }
    error.as_string().unwrap_or_else(|| format!("{error:?}"))
}
