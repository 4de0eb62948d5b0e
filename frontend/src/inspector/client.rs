//! The robot inspector, the browser part: keeping the socket subscribed to the inspected robot, sending held keys, and the request of manual actuator commands.
//!
//! What answers mean is decided in [`crate::inspector`] (host-tested); this file only
//! moves messages and requests. A failed request becomes a [`CommandOutcome::Failed`]
//! sentence, never a panic.

use leptos::prelude::*;
use vlab_protocol::ClientMsg;

use super::InspectorState;
use super::{CommandOutcome, interpret_actuator_response};
use crate::api::{Body, fetch_json};
use crate::connection::LabSession;
use crate::timeline::TimelineState;
use crate::timeline::replay::Replay;
use crate::ui::effect;

/// Keeps the socket subscribed to the inspected robot while `active` (something shows its reports):
/// unsubscribes from the previous robot when another is picked, and subscribes again
/// after every reconnection (the server forgets subscriptions with their connection).
/// Back from a recorded moment (the timeline), it subscribes afresh: the server sends a
/// report at once, and a paused lab sends none otherwise.
pub fn keep_subscribed(active: Signal<bool>) {
    let session = expect_context::<LabSession>();
    let (inspector, timeline) = (expect_context::<InspectorState>(), expect_context::<TimelineState>());
    let subscribed = StoredValue::new(None::<String>);
    let was_seeking = StoredValue::new(false);
    effect(move |_| {
        let connected = session.is_connected();
        let wanted = if active.get() { inspector.inspected.get() } else { None };
        let seeking = timeline.replay.with(Replay::is_seeking);
        let back_to_live = was_seeking.get_value() && !seeking;
        was_seeking.set_value(seeking);
        if !connected {
            subscribed.set_value(None);
            return;
        }
        let current = subscribed.get_value();
        if current == wanted {
            if back_to_live && let Some(robot) = wanted {
                // Net nothing to the server's count of watchers; the report comes at once.
                session.send(&ClientMsg::Unsubscribe { robot: robot.clone() });
                session.send(&ClientMsg::Subscribe { robot });
            }
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

/// Posts `body` (commands by actuator name) to `path` with the session's `token`.
pub async fn post_actuator_commands(path: String, token: Option<String>, body: String) -> CommandOutcome {
    interpret_actuator_response(fetch_json("POST", &path, token.as_deref(), Body::Json(body)).await)
}
