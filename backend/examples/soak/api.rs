//! Talking to the server under load: HTTP requests that wait out `429` as its
//! `Retry-After` says, and report every other surprise as a counted warning.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use reqwest::{Client, RequestBuilder, StatusCode};
use serde_json::Value;

/// Warnings printed in full; past these they are only counted (a server that fails
/// every request would otherwise bury the samples).
const WARNINGS_PRINTED: u64 = 60;

/// Times one request is sent again after `429` before it counts as an error.
const RETRIES_AFTER_429: u32 = 30;

/// What the load did so far, shared by every task.
#[derive(Default)]
pub struct Counters {
    /// Robots uploaded with a fresh mesh.
    pub uploads: AtomicU64,
    /// Robots removed.
    pub removals: AtomicU64,
    /// Programs replaced on a robot already in the lab.
    pub programs_replaced: AtomicU64,
    /// Viewer websockets opened, watched and closed.
    pub viewer_sessions: AtomicU64,
    /// Binary frames (poses) the viewers received.
    pub frames: AtomicU64,
    /// Requests answered `429` and sent again later.
    pub throttled: AtomicU64,
    /// Anything unexpected: a status, a failed connection, an error message.
    pub errors: AtomicU64,
}

impl Counters {
    /// Adds one to `counter`.
    pub fn bump(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts an error and prints `message` (until [`WARNINGS_PRINTED`] were).
    pub fn warn(&self, message: impl AsRef<str>) {
        let before = self.errors.fetch_add(1, Ordering::Relaxed);
        if before < WARNINGS_PRINTED {
            eprintln!("warning: {}", message.as_ref());
        } else if before == WARNINGS_PRINTED {
            eprintln!("warning: more than {WARNINGS_PRINTED} warnings: further ones are only counted");
        }
    }
}

/// The server's HTTP API at one address.
pub struct Api {
    base: String,
    http: Client,
    /// Shared with every task of the load.
    pub counters: Arc<Counters>,
}

impl Api {
    /// A client for the server at `base` (`http://127.0.0.1:PORT`).
    pub fn new(base: String, counters: Arc<Counters>) -> anyhow::Result<Api> {
        let http = Client::builder()
            .connect_timeout(Duration::from_secs(10))
            // Generous: an upload is checked and its programs started before the answer.
            .timeout(Duration::from_secs(120))
            .build()?;
        Ok(Api { base, http, counters })
    }

    /// `base` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Whether the server answers `GET /api/health` now (quietly: while it starts, a
    /// refused connection is expected).
    pub async fn is_serving(&self) -> bool {
        let health = self.http.get(self.url("/api/health")).timeout(Duration::from_secs(2)).send().await;
        health.is_ok_and(|response| response.status().is_success())
    }

    /// Sends the request `build` makes (again after each `429`, once its `Retry-After`
    /// passed) and returns its status and body; `None`, warned, when the server could
    /// not be reached or kept throttling.
    pub async fn send(&self, what: &str, build: impl Fn(&Client) -> RequestBuilder) -> Option<(StatusCode, String)> {
        for _ in 0..RETRIES_AFTER_429 {
            let response = match build(&self.http).send().await {
                Ok(response) => response,
                Err(e) => {
                    self.counters.warn(format!("{what}: {e}"));
                    return None;
                }
            };
            let status = response.status();
            if status == StatusCode::TOO_MANY_REQUESTS {
                Counters::bump(&self.counters.throttled);
                let wait = response
                    .headers()
                    .get(reqwest::header::RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse::<u64>().ok())
                    .unwrap_or(1);
                tokio::time::sleep(Duration::from_secs(wait.max(1))).await;
                continue;
            }
            let body = response.text().await.unwrap_or_default();
            return Some((status, body));
        }
        self.counters.warn(format!("{what}: still 429 after {RETRIES_AFTER_429} tries"));
        None
    }

    /// [`Api::send`], expecting `expected`: the body as JSON (`Null` when empty or not
    /// JSON); any other status is warned with its body and gives `None`.
    pub async fn expect(
        &self,
        what: &str,
        expected: StatusCode,
        build: impl Fn(&Client) -> RequestBuilder,
    ) -> Option<Value> {
        let (status, body) = self.send(what, build).await?;
        if status != expected {
            self.counters.warn(format!("{what}: HTTP {status}: {}", shortened(&body)));
            return None;
        }
        Some(serde_json::from_str(&body).unwrap_or(Value::Null))
    }
}

/// `text` cut to a line's worth, for warnings.
pub fn shortened(text: &str) -> String {
    const MOST: usize = 400;
    if text.chars().count() <= MOST {
        return text.to_owned();
    }
    let cut: String = text.chars().take(MOST).collect();
    format!("{cut}…")
}
