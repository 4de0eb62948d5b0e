//! Viewers coming and going: each keeps a websocket on the lab open for a few seconds,
//! reading everything it is sent, closes it, and another comes in its place.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use tokio_tungstenite::connect_async;
use tokio_tungstenite::tungstenite::Message;
use vlab_protocol::PROTOCOL_VERSION;

use crate::api::Counters;
use crate::class::{LAB, random_duration};

/// Longest wait for a websocket to open.
const CONNECT_PATIENCE: Duration = Duration::from_secs(10);

/// One viewer after another, forever (until aborted), on the server at `addr`.
pub async fn watch_in_turns(addr: std::net::SocketAddr, counters: Arc<Counters>) {
    let url = format!("ws://{addr}/ws/labs/{LAB}?protocol={PROTOCOL_VERSION}");
    loop {
        let stay = random_duration(2.0, 8.0);
        match tokio::time::timeout(CONNECT_PATIENCE, connect_async(&url)).await {
            Ok(Ok((mut socket, _))) => {
                let leave_at = tokio::time::Instant::now() + stay;
                loop {
                    match tokio::time::timeout_at(leave_at, socket.next()).await {
                        Err(_) => break,
                        Ok(None) => {
                            counters.warn("a viewer's websocket ended before the viewer left");
                            break;
                        }
                        Ok(Some(Err(e))) => {
                            counters.warn(format!("a viewer's websocket failed: {e}"));
                            break;
                        }
                        Ok(Some(Ok(Message::Binary(_)))) => Counters::bump(&counters.frames),
                        Ok(Some(Ok(Message::Text(text)))) => {
                            // A viewer that only watches has nothing to be refused.
                            if text.as_str().contains("\"type\":\"error\"") {
                                counters.warn(format!("a viewer was sent an error: {}", text.as_str()));
                            }
                        }
                        Ok(Some(Ok(Message::Close(frame)))) => {
                            counters.warn(format!("the server closed a viewer's websocket: {frame:?}"));
                            break;
                        }
                        Ok(Some(Ok(_))) => {}
                    }
                }
                let _ = socket.close(None).await;
                Counters::bump(&counters.viewer_sessions);
            }
            Ok(Err(e)) => {
                counters.warn(format!("a viewer could not connect: {e}"));
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            Err(_) => counters.warn(format!("a viewer's websocket did not open within {CONNECT_PATIENCE:?}")),
        }
        tokio::time::sleep(random_duration(0.0, 1.0)).await;
    }
}
