//! The robot inspector, the browser part: keeping the socket subscribed to the inspected robot, sending held keys, and the `fetch` of manual actuator commands.
//!
//! What answers mean is decided in [`crate::inspector`] (host-tested); this file only
//! moves messages and bytes. A failed request becomes a [`CommandOutcome::Failed`]
//! sentence, never a panic.

use leptos::prelude::*;
use vlab_protocol::ClientMsg;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Headers, Request, RequestInit, Response};

use crate::connection::LabSession;
use crate::inspector::{CommandOutcome, interpret_actuator_response, network_failure};

/// Keeps the socket subscribed to the inspected robot while `active` (the panel is open):
/// unsubscribes from the previous robot when another is picked, and subscribes again
/// after every reconnection (the server forgets subscriptions with their connection).
pub fn keep_subscribed(session: LabSession, active: Signal<bool>) {
    let subscribed = StoredValue::new(None::<String>);
    Effect::new(move |_| {
        let connected = session.is_connected();
        let wanted = if active.get() { session.inspected.get() } else { None };
        if !connected {
            subscribed.set_value(None);
            return;
        }
        let current = subscribed.get_value();
        if current == wanted {
            return;
        }
        if let Some(robot) = current {
            session.send(&ClientMsg::Unsubscribe { robot });
        }
        if let Some(robot) = &wanted {
            session.send(&ClientMsg::Subscribe { robot: robot.clone() });
        }
        subscribed.set_value(wanted);
    });
}

/// Tells the server which keys are held for `robot` (an empty list releases them all).
pub fn send_keys(session: LabSession, robot: String, keys: Vec<String>) {
    // Not sent when the socket is gone: a closed connection's keys are the server's to release.
    session.send(&ClientMsg::Keys { robot, keys });
}

/// Posts `body` (commands by actuator name) to `path` with the instructor's `token`.
pub async fn post_actuator_commands(path: String, token: Option<String>, body: String) -> CommandOutcome {
    match post_json(&path, token.as_deref(), &body).await {
        Ok((status, text)) => interpret_actuator_response(status, &text),
        Err(error) => network_failure(&js_error_text(&error)),
    }
}

async fn post_json(path: &str, token: Option<&str>, body: &str) -> Result<(u16, String), JsValue> {
    let headers = Headers::new()?;
    if let Some(token) = token {
        headers.set("Authorization", &format!("Bearer {token}"))?;
    }
    headers.set("Accept", "application/json")?;
    headers.set("Content-Type", "application/json")?;
    let init = RequestInit::new();
    init.set_method("POST");
    init.set_body(&JsValue::from_str(body));
    init.set_headers(&headers);
    let request = Request::new_with_str_and_init(path, &init)?;
    let response: Response = JsFuture::from(window().fetch_with_request(&request)).await?.dyn_into()?;
    let status = response.status();
    let text = JsFuture::from(response.text()?).await?.as_string().unwrap_or_default();
    Ok((status, text))
}

/// A readable sentence from a JS exception or rejection.
fn js_error_text(error: &JsValue) -> String {
    if let Some(error) = error.dyn_ref::<js_sys::Error>() {
        return String::from(error.message());
    }
    error.as_string().unwrap_or_else(|| format!("{error:?}"))
}
