//! One viewer: a websocket on a lab, as a browser tab that only watches would keep it.
//! It reads every message, decodes every binary frame with a `vlab_protocol::FrameDecoder`
//! (as the browser app does: a frame may be written as changes from the one before)
//! and every text one as a `ServerMsg`, and counts what arrives inside the measured
//! window (see [`super::stats`] for the delay of a frame).

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use tokio::sync::{Semaphore, mpsc, watch};
use tokio_tungstenite::connect_async;
use tokio_tungstenite::tungstenite::Message;
use vlab_protocol::{FrameDecoder, ServerMsg};

use super::stats::{ViewerReport, offset};

/// Longest wait for one websocket to open.
const CONNECT_PATIENCE: Duration = Duration::from_secs(30);
/// Tries to open a websocket before the viewer gives up (a loaded server may refuse a
/// connection with 503 while its accept queue is full).
const CONNECT_TRIES: u32 = 5;

/// Where the run is, as every viewer sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Phase {
    /// Viewers connect; nothing is counted yet.
    Connecting,
    /// Count what arrives from `start` (inclusive) to `end` (exclusive).
    Window {
        /// Its start.
        start: Instant,
        /// Its end.
        end: Instant,
    },
    /// Close the websocket and report.
    Stop,
}

/// What a viewer needs to know of the run.
pub struct Watch {
    /// The viewer websocket's URL.
    pub url: String,
    /// The lab's real-time factor; `None` when it runs as fast as it can.
    pub rate: Option<f64>,
    /// The tool's clock origin: offsets are seconds since it.
    pub origin: Instant,
}

/// Opens the websocket (holding a `connecting` permit meanwhile, so that only so many
/// handshakes run at once), says on `connected` whether it opened, then reads until
/// the phase is [`Phase::Stop`]. The report counts the window only; `None` when the
/// websocket never opened (said on `connected`).
pub async fn watch(
    run: std::sync::Arc<Watch>,
    connecting: std::sync::Arc<Semaphore>,
    connected: mpsc::UnboundedSender<Result<(), String>>,
    mut phase: watch::Receiver<Phase>,
) -> Option<ViewerReport> {
    let mut report = ViewerReport::default();
    let permit = connecting.acquire().await;
    let mut socket = match open(&run.url).await {
        Ok(socket) => socket,
        Err(why) => {
            let _ = connected.send(Err(why));
            return None;
        }
    };
    drop(permit);
    let _ = connected.send(Ok(()));
    let mut window = None;
    let mut decoder = FrameDecoder::new();
    loop {
        let message = tokio::select! {
            changed = phase.changed() => {
                match changed.map(|()| *phase.borrow_and_update()) {
                    Ok(Phase::Window { start, end }) => window = Some((start, end)),
                    Ok(Phase::Connecting) => {}
                    Ok(Phase::Stop) | Err(_) => break,
                }
                continue;
            }
            message = socket.next() => message,
        };
        let arrival = Instant::now();
        let counted = window.is_some_and(|(start, end)| arrival >= start && arrival < end);
        let message = match message {
            Some(Ok(message)) => message,
            Some(Err(e)) => {
                report.ended_early = Some(format!("the websocket failed: {e}"));
                break;
            }
            None => {
                report.ended_early = Some("the server ended the websocket".into());
                break;
            }
        };
        if counted {
            report.bytes += message.len() as u64;
        }
        match message {
            Message::Binary(bytes) => match decoder.decode(&bytes) {
                Ok(frame) if counted => {
                    report.frames += 1;
                    report.poses += frame.poses.len() as u64;
                    if let Some(rate) = run.rate {
                        let arrival_secs = arrival.duration_since(run.origin).as_secs_f64();
                        report.offsets.push((frame.epoch, offset(arrival_secs, frame.time, rate)));
                    }
                }
                Ok(_) => {}
                Err(_) => report.decode_errors += u64::from(counted),
            },
            Message::Text(text) => {
                report.texts += u64::from(counted);
                match serde_json::from_str::<ServerMsg>(text.as_str()) {
                    Ok(ServerMsg::Snapshot(_)) => report.snapshots += 1,
                    Ok(ServerMsg::Error(_)) => report.server_errors += 1,
                    Ok(_) => {}
                    Err(_) => report.unreadable_texts += 1,
                }
            }
            Message::Close(frame) => {
                report.ended_early = Some(format!("the server closed the websocket: {frame:?}"));
                break;
            }
            Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => {}
        }
    }
    // Politely, but a busy server does not hold the report back.
    let _ = tokio::time::timeout(Duration::from_secs(2), socket.close(None)).await;
    Some(report)
}

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Opens the websocket, trying again (after a second) when refused or slow.
async fn open(url: &str) -> Result<Socket, String> {
    let mut last = String::new();
    for _ in 0..CONNECT_TRIES {
        match tokio::time::timeout(CONNECT_PATIENCE, connect_async(url)).await {
            Ok(Ok((socket, _))) => return Ok(socket),
            Ok(Err(e)) => last = format!("could not connect: {e}"),
            Err(_) => last = format!("the websocket did not open within {CONNECT_PATIENCE:?}"),
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    Err(last)
}
