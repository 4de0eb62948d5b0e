//! Robot programs, the browser part: multipart uploads (text and wasm parts), reading
//! picked files as bytes, the example robots, and the console's history.
//!
//! What answers mean is decided in [`crate::programs::upload`] and [`crate::programs::console_log`]
//! (host-tested); this file only moves bytes. A request without an answer becomes an
//! `Err` sentence, never a panic.

use leptos::prelude::*;
use vlab_protocol::{ExampleRobot, RobotReport};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, BlobPropertyBag, FileList, FormData, Headers, RequestInit};

use crate::classroom::client::request;
use crate::connection::LabSession;
use crate::page::robot_api_path;
use crate::programs::console_log::ConsoleBuffer;
use crate::programs::upload::{Part, PartBody, interpret_examples};

/// Sends `parts` as `multipart/form-data` with `method` to `path` (same origin) and the
/// bearer `token`; the status and the body's text.
pub async fn send_parts(
    method: &str,
    path: &str,
    token: Option<&str>,
    parts: &[Part],
) -> Result<(u16, String), String> {
    send(method, path, token, parts).await.map_err(|error| {
        format!("Could not reach the server ({}). Your text is kept; try again.", js_error_text(&error))
    })
}

async fn send(method: &str, path: &str, token: Option<&str>, parts: &[Part]) -> Result<(u16, String), JsValue> {
    let headers = Headers::new()?;
    if let Some(token) = token {
        headers.set("Authorization", &format!("Bearer {token}"))?;
    }
    headers.set("Accept", "application/json")?;
    // The browser writes the multipart boundary into Content-Type itself.
    let form = FormData::new()?;
    for part in parts {
        let blob = match &part.body {
            PartBody::Text(text) => blob(&JsValue::from_str(text), "text/plain")?,
            PartBody::Wasm(bytes) => blob(&js_sys::Uint8Array::from(bytes.as_slice()).into(), "application/wasm")?,
        };
        form.append_with_blob_and_filename(&part.field, &blob, &part.filename)?;
    }
    let init = RequestInit::new();
    init.set_method(method);
    init.set_body(&form);
    init.set_headers(&headers);
    crate::classroom::client::fetch_text(path, &init).await
}

fn blob(content: &JsValue, mime: &str) -> Result<Blob, JsValue> {
    let options = BlobPropertyBag::new();
    options.set_type(mime);
    Blob::new_with_u8_array_sequence_and_options(&js_sys::Array::of1(content), &options)
}

/// Every picked file's name and bytes, in order.
pub async fn read_file_bytes(files: FileList) -> Result<Vec<(String, Vec<u8>)>, String> {
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

/// `GET /api/examples`.
pub async fn load_examples() -> Result<Vec<ExampleRobot>, String> {
    let (status, body) = request("GET", "/api/examples", None, None, false).await?;
    interpret_examples(status, &body)
}

/// Keeps `session.console` on the inspected robot while `active`: empties it when another
/// robot is picked, then loads its history (`console` of `GET .../robots/{robot}`, which
/// the server fills for the owner and the instructor) beneath the live lines; again after
/// a reconnection, when lines may have been missed.
pub fn keep_console(session: LabSession, active: Signal<bool>) {
    Effect::new(move |_| {
        let connected = session.is_connected();
        let robot = if active.get() { session.inspected.get() } else { None };
        if session.console.with_untracked(|c| c.robot() != robot.as_deref()) {
            session.console.set(ConsoleBuffer::for_robot(robot.clone()));
        }
        let Some(robot) = robot.filter(|_| connected) else { return };
        let path = robot_api_path(&session.lab_id(), &robot, "");
        let token = session.token();
        leptos::task::spawn_local(async move {
            let Ok((200, body)) = request("GET", &path, token.as_deref(), None, false).await else { return };
            let Ok(report) = serde_json::from_str::<RobotReport>(&body) else { return };
            let history = report.console.unwrap_or_default();
            session.console.maybe_update(|console| console.load_history(&robot, history));
        });
    });
}

/// A readable sentence from a JS exception or rejection.
fn js_error_text(error: &JsValue) -> String {
    if let Some(error) = error.dyn_ref::<js_sys::Error>() {
        return String::from(error.message());
    }
    error.as_string().unwrap_or_else(|| format!("{error:?}"))
}
