//! Remote controllers' websockets: `/ws/labs/{lab}/robots/{robot}/control`, with the
//! robot's owner's or the instructor's token (`Authorization: Bearer`, or `?token=` for
//! clients that cannot set headers). Refusals are plain HTTP answers before the
//! upgrade (401, 403, 404, 409, 429 with the usual error body); after it, this task only
//! carries protocol messages between the socket and the lab's end
//! ([`vlab_programs::RemoteController`]), one JSON text message each
//! (docs/remote.md).

use std::sync::Arc;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::Response;
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;

use super::extract::bearer_token;
use super::{AppError, AppState};
use crate::classroom::ClassroomError;
use vlab_lab::{LabError, LabHandle};
use vlab_programs::{CLOSE_DETACHED, CLOSE_STOPPED, RemotePeer, ToPeer};

/// Largest message a remote controller may send, bytes: an answer with a step's whole
/// drawing budget (4000 vertices) and console budget (16 KiB) fits several times over.
pub const MAX_CONTROLLER_MESSAGE_BYTES: usize = 1024 * 1024;

/// How long a detached controller's connection stays open for its client to read why
/// (the closing handshake) before it is dropped.
pub const CLOSE_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// How long one message to a controller may take to go out before the connection is
/// dropped: a client that does not read its socket would otherwise hold it open, blocked
/// in a send, for ever (and with it the lab's queue to it). Ten seconds carry a step with
/// a 320 × 240 camera image (about 310 KB) over a link shared down to 300 kbit/s.
pub const CONTROLLER_SEND_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// The token, for clients that cannot set an `Authorization` header.
#[derive(Deserialize)]
pub struct ControlQuery {
    token: Option<String>,
}

/// `GET /ws/labs/{lab}/robots/{robot}/control`: attaches, then upgrades.
pub async fn attach(
    ws: WebSocketUpgrade,
    State(app): State<Arc<AppState>>,
    Path((lab_id, robot)): Path<(String, String)>,
    Query(query): Query<ControlQuery>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let lab = app.classroom.lab(&lab_id)?;
    let token = bearer_token(&headers)?.or(query.token.as_deref());
    let caller = app.classroom.caller(&lab, token)?;
    let peer = app.classroom.programs().attach_controller(&lab, caller, &robot).await.map_err(with_retry_after)?;
    tracing::info!(lab = %lab_id, robot = %robot, ?caller, "remote controller attached");
    Ok(ws
        .max_message_size(MAX_CONTROLLER_MESSAGE_BYTES)
        .max_frame_size(MAX_CONTROLLER_MESSAGE_BYTES)
        .on_upgrade(move |socket| carry(socket, peer, lab, robot)))
}

/// A refusal to attach again too soon says when to try (`Retry-After`).
fn with_retry_after(error: ClassroomError) -> AppError {
    match error {
        ClassroomError::Lab(LabError::AttachTooSoon { retry_after_secs, .. }) => {
            AppError::TooManyRequests { message: error.to_string(), retry_after: retry_after_secs }
        }
        other => other.into(),
    }
}

/// Carries messages both ways until either end lets go.
async fn carry(socket: WebSocket, mut peer: RemotePeer, lab: Arc<LabHandle>, robot: String) {
    let (mut sink, mut stream) = socket.split();
    let close = loop {
        tokio::select! {
            from_lab = peer.to_peer.recv() => match from_lab {
                Some(ToPeer::Message(json)) => {
                    let bytes = json.len();
                    match tokio::time::timeout(CONTROLLER_SEND_TIMEOUT, sink.send(Message::Text(Utf8Bytes::from(json)))).await {
                        Ok(Ok(())) => peer.written(bytes),
                        Ok(Err(_)) => {
                            peer.farewell("the remote controller disconnected".into());
                            break None;
                        }
                        Err(_) => {
                            let secs = CONTROLLER_SEND_TIMEOUT.as_secs();
                            peer.farewell(format!("did not read what the lab sent for {secs} s; the connection was dropped"));
                            tracing::info!(lab = %lab.id(), robot = %robot, "a remote controller that does not read was dropped");
                            break None;
                        }
                    }
                }
                Some(ToPeer::Close { code, reason }) => break Some((code, reason)),
                None => break Some((CLOSE_STOPPED, "the lab let go of this controller".into())),
            },
            from_controller = stream.next() => match from_controller {
                Some(Ok(Message::Text(text))) => {
                    if let Err(closed) = peer.deliver(text.as_bytes().to_vec()) {
                        break Some((CLOSE_DETACHED, closed.to_string()));
                    }
                }
                Some(Ok(Message::Binary(_))) => {
                    let why = "sent a binary message: the protocol is JSON text messages";
                    peer.farewell(why.into());
                    break Some((CLOSE_DETACHED, why.into()));
                }
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                // A close, a reset without one, or a broken frame: gone all the same.
                Some(Ok(Message::Close(_)) | Err(_)) | None => {
                    peer.farewell("the remote controller disconnected".into());
                    break None;
                }
            },
            () = lab.wait_closed() => break Some((CLOSE_STOPPED, "the instructor closed this lab".into())),
        }
    };
    // The lab sees the connection is over before the client can see it close, so the
    // client attaching again is never refused as still attached.
    drop(peer);
    if let Some((code, reason)) = close {
        // A close reason is at most 123 bytes.
        let mut cut = reason.len().min(120);
        while !reason.is_char_boundary(cut) {
            cut -= 1;
        }
        let frame = CloseFrame { code, reason: Utf8Bytes::from(&reason[..cut]) };
        if matches!(
            tokio::time::timeout(CONTROLLER_SEND_TIMEOUT, sink.send(Message::Close(Some(frame)))).await,
            Ok(Ok(()))
        ) {
            // The closing handshake: a client back from a breakpoint still reads why it
            // was detached, instead of a connection reset.
            let _ = tokio::time::timeout(CLOSE_GRACE, async {
                while let Some(Ok(message)) = stream.next().await {
                    if matches!(message, Message::Close(_)) {
                        break;
                    }
                }
            })
            .await;
        }
    }
    tracing::info!(lab = %lab.id(), robot = %robot, "remote controller connection ended");
}
