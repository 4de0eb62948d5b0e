//! One page's session carried between two servers: the page's own server holds one
//! end, the lab's server the other, and each sees a [`PageLink`]. Messages go on two
//! subjects, one per direction, in order (NATS keeps one publisher's order). Each end
//! says it is alive every [`PING_EVERY`]; an end that hears nothing for [`SILENCE`]
//! takes the other for gone, so a server that dies never leaves a page present in a lab
//! nor a page waiting on a lab that no longer runs there.

use std::time::Duration;

use async_nats::{Client, HeaderMap, Subscriber};
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes};
use bytes::Bytes;
use futures_util::StreamExt as _;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::net::ws::PageLink;

/// How often each end says it is alive.
pub const PING_EVERY: Duration = Duration::from_secs(5);

/// How long an end waits without hearing from the other before it takes it for gone.
pub const SILENCE: Duration = Duration::from_secs(15);

/// The header that says what a message is: `t` text, `b` binary, `c` a close frame
/// (code, big-endian, and reason), `x` the end, `p` alive.
const KIND: &str = "Vlab-Kind";

/// One end of a tunnel.
pub struct Tunnel {
    nats: Client,
    /// Where this end sends.
    to: String,
    incoming: Subscriber,
    heard: Instant,
    pings: JoinHandle<()>,
}

impl Tunnel {
    /// The end that reads `from` and sends to `to`, subscribed when this returns (so
    /// nothing the other end sends after being told is lost).
    pub async fn open(nats: &Client, from: String, to: String) -> Result<Tunnel, async_nats::SubscribeError> {
        let incoming = nats.subscribe(from).await?;
        let pings = tokio::spawn(ping(nats.clone(), to.clone()));
        Ok(Tunnel { nats: nats.clone(), to, incoming, heard: Instant::now(), pings })
    }

    async fn publish(&self, kind: &'static str, payload: Bytes) -> Result<(), String> {
        let mut headers = HeaderMap::new();
        headers.insert(KIND, kind);
        self.nats.publish_with_headers(self.to.clone(), headers, payload).await.map_err(|e| e.to_string())
    }
}

async fn ping(nats: Client, to: String) {
    let mut every = tokio::time::interval(PING_EVERY);
    loop {
        every.tick().await;
        let mut headers = HeaderMap::new();
        headers.insert(KIND, "p");
        if nats.publish_with_headers(to.clone(), headers, Bytes::new()).await.is_err() {
            return;
        }
    }
}

impl Drop for Tunnel {
    /// The other end is told at once when it can be; otherwise it finds out by silence.
    fn drop(&mut self) {
        self.pings.abort();
        let (nats, to) = (self.nats.clone(), std::mem::take(&mut self.to));
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let mut headers = HeaderMap::new();
                headers.insert(KIND, "x");
                let _ = nats.publish_with_headers(to, headers, Bytes::new()).await;
            });
        }
    }
}

impl PageLink for Tunnel {
    async fn send(&mut self, message: Message) -> Result<(), String> {
        match message {
            Message::Text(text) => self.publish("t", Bytes::from(text)).await,
            Message::Binary(bytes) => self.publish("b", bytes).await,
            Message::Close(Some(close)) => {
                let mut payload = close.code.to_be_bytes().to_vec();
                payload.extend_from_slice(close.reason.as_bytes());
                self.publish("c", Bytes::from(payload)).await
            }
            Message::Close(None) => self.publish("x", Bytes::new()).await,
            // Each hop keeps its own connection alive.
            Message::Ping(_) | Message::Pong(_) => Ok(()),
        }
    }

    async fn recv(&mut self) -> Option<Result<Message, String>> {
        loop {
            let quiet_until = self.heard + SILENCE;
            let message = tokio::select! {
                message = self.incoming.next() => message?,
                () = tokio::time::sleep_until(quiet_until) => return None,
            };
            self.heard = Instant::now();
            let kind = message.headers.as_ref().and_then(|headers| headers.get(KIND)).map(|kind| kind.as_str());
            match kind {
                Some("t") => {
                    let text =
                        Utf8Bytes::try_from(message.payload).map_err(|_| "a text message that is not UTF-8".to_owned());
                    return Some(text.map(Message::Text));
                }
                Some("b") => return Some(Ok(Message::Binary(message.payload))),
                Some("c") => return Some(Ok(Message::Close(close_frame(&message.payload)))),
                Some("x") => return None,
                // Alive; or a kind from a newer server, which this one does not read.
                _ => {}
            }
        }
    }
}

/// A close frame as [`Tunnel::send`] wrote it.
fn close_frame(payload: &[u8]) -> Option<CloseFrame> {
    let (code, reason) = payload.split_first_chunk::<2>()?;
    let reason = String::from_utf8_lossy(reason).into_owned();
    Some(CloseFrame { code: u16::from_be_bytes(*code), reason: Utf8Bytes::from(reason) })
}
