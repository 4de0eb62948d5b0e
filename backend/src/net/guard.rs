//! What holds clients to the [`Limits`]: connection slots (overall and per address),
//! request rates per address, and the deadline of a request's body.
//!
//! Rates are counted by the `governor` crate (GCRA, keyed by [`ClientKey`]): a
//! well-kept limiter that needs one timestamp per address, no timer task, and answers
//! how long to wait, which becomes `Retry-After`. Connection slots are plain counts
//! held by the connection (see [`Counted`]), so an upgraded websocket keeps its slot
//! until it closes.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{ConnectInfo, MatchedPath, Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use http_body::{Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::{Instant, Sleep};

use super::AppError;
use super::limits::{CONNECTION_RETRY_AFTER_SECS, ClientKey, Limits, Rate};

/// The open connections, overall and per client address.
pub struct Connections {
    max: usize,
    max_per_address: usize,
    open: Mutex<Open>,
}

#[derive(Default)]
struct Open {
    total: usize,
    by_address: HashMap<ClientKey, usize>,
}

/// Why a connection was not admitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The server has `max_connections` open.
    ServerFull,
    /// The address has `max_connections_per_address` open.
    AddressFull,
}

impl Refusal {
    /// The answer a refused connection gets: 503 or 429, with `Retry-After`.
    pub fn error(self, limits: &Limits) -> AppError {
        let retry_after = CONNECTION_RETRY_AFTER_SECS;
        match self {
            Refusal::ServerFull => AppError::Busy {
                message: format!(
                    "the server has as many connections as it takes ({}): try again in {retry_after} s",
                    limits.max_connections
                ),
                retry_after,
            },
            Refusal::AddressFull => AppError::TooManyRequests {
                message: format!(
                    "too many connections from your network address (at most {} at once): close some tabs, or try \
                     again in {retry_after} s",
                    limits.max_connections_per_address
                ),
                retry_after,
            },
        }
    }
}

impl Connections {
    /// No connection open yet, within `limits`.
    pub fn new(limits: &Limits) -> Connections {
        Connections {
            max: limits.max_connections.max(1),
            max_per_address: limits.max_connections_per_address.max(1),
            open: Mutex::new(Open::default()),
        }
    }

    /// A slot for a new connection from `key`, held until dropped; or why not.
    pub fn admit(self: &Arc<Self>, key: ClientKey) -> Result<ConnectionSlot, Refusal> {
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if open.total >= self.max {
            return Err(Refusal::ServerFull);
        }
        let from_address = open.by_address.get(&key).copied().unwrap_or(0);
        if from_address >= self.max_per_address {
            return Err(Refusal::AddressFull);
        }
        open.total += 1;
        open.by_address.insert(key, from_address + 1);
        Ok(ConnectionSlot { connections: Arc::clone(self), key })
    }

    /// Connections open now.
    pub fn open(&self) -> usize {
        self.open.lock().unwrap_or_else(PoisonError::into_inner).total
    }
}

/// One admitted connection; its slot is free again when this is dropped.
pub struct ConnectionSlot {
    connections: Arc<Connections>,
    key: ClientKey,
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        let mut open = self.connections.open.lock().unwrap_or_else(PoisonError::into_inner);
        open.total = open.total.saturating_sub(1);
        if let Some(count) = open.by_address.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                open.by_address.remove(&self.key);
            }
        }
    }
}

/// A TCP connection that holds its slot for as long as it lives, through an upgrade to
/// a websocket too (the upgraded socket keeps this stream).
pub struct Counted {
    stream: TcpStream,
    _slot: ConnectionSlot,
}

impl Counted {
    /// `stream`, holding `slot`.
    pub fn new(stream: TcpStream, slot: ConnectionSlot) -> Counted {
        Counted { stream, _slot: slot }
    }
}

impl AsyncRead for Counted {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Counted {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

/// The kinds of request whose rate is limited per address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Join,
    Upload,
    Control,
}

/// Checks between two clean-ups of addresses not seen for a full period.
const CHECKS_PER_CLEANUP: u64 = 4096;

/// The request rates of every client address.
pub struct RateLimits {
    joins: DefaultKeyedRateLimiter<ClientKey>,
    uploads: DefaultKeyedRateLimiter<ClientKey>,
    controls: DefaultKeyedRateLimiter<ClientKey>,
    checks: AtomicU64,
}

fn limiter(rate: Rate) -> DefaultKeyedRateLimiter<ClientKey> {
    let count = std::num::NonZeroU32::new(rate.count.max(1)).unwrap_or(std::num::NonZeroU32::MIN);
    let interval = rate.interval().max(Duration::from_nanos(1));
    let quota = Quota::with_period(interval).unwrap_or_else(|| Quota::per_second(count)).allow_burst(count);
    RateLimiter::keyed(quota)
}

impl RateLimits {
    /// Nobody has asked anything yet.
    pub fn new(limits: &Limits) -> RateLimits {
        RateLimits {
            joins: limiter(limits.joins),
            uploads: limiter(limits.uploads),
            controls: limiter(limits.controls),
            checks: AtomicU64::new(0),
        }
    }

    /// Counts one request of `kind` from `key`: `Err(wait)` when it comes too soon.
    fn check(&self, kind: Kind, key: ClientKey) -> Result<(), Duration> {
        let limiter = match kind {
            Kind::Join => &self.joins,
            Kind::Upload => &self.uploads,
            Kind::Control => &self.controls,
        };
        if self.checks.fetch_add(1, Ordering::Relaxed) % CHECKS_PER_CLEANUP == CHECKS_PER_CLEANUP - 1 {
            for limiter in [&self.joins, &self.uploads, &self.controls] {
                limiter.retain_recent();
                limiter.shrink_to_fit();
            }
        }
        limiter
            .check_key(&key)
            .map_err(|not_until| not_until.wait_time_from(governor::clock::Clock::now(limiter.clock())))
    }
}

/// Which limited kind a request is, from its route (`/api` in front or not).
fn kind_of(method: &Method, route: &str) -> Option<Kind> {
    let route = route.strip_prefix("/api").unwrap_or(route);
    match (method.as_str(), route) {
        ("POST", "/join" | "/labs/{lab}/join" | "/classes/sign-in" | "/labs/{lab}/enter") => Some(Kind::Join),
        ("POST", "/labs/{lab}/robots" | "/labs/{lab}/scene" | "/classes/{class}/assignments/{id}/submissions")
        | ("PUT", "/labs/{lab}/robots/{robot}/program") => Some(Kind::Upload),
        ("POST", "/labs/{lab}/control" | "/labs/{lab}/rewind") | ("GET", "/ws/labs/{lab}/robots/{robot}/control") => {
            Some(Kind::Control)
        }
        _ => None,
    }
}

/// Middleware (a route layer of `/api`): a join, upload or control request from an
/// address that sent too many of its kind lately gets 429 with `Retry-After`, before it
/// is read. A request without a peer address (served other than by `net::serve`) is
/// not counted.
pub async fn limit_rates(State(rates): State<Arc<RateLimits>>, request: Request, next: Next) -> Response {
    let kind = request.extensions().get::<MatchedPath>().and_then(|route| kind_of(request.method(), route.as_str()));
    let peer = request.extensions().get::<ConnectInfo<SocketAddr>>().map(|ConnectInfo(peer)| *peer);
    if let (Some(kind), Some(peer)) = (kind, peer) {
        let key = ClientKey::of(peer.ip());
        if let Err(wait) = rates.check(kind, key) {
            let retry_after = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            let what = match kind {
                Kind::Join => "attempts to join",
                Kind::Upload => "uploads",
                Kind::Control => "time-control commands",
            };
            tracing::debug!(client = %key, ?kind, retry_after, "request rate limited");
            return AppError::TooManyRequests {
                message: format!("too many {what} from your network address: try again in {retry_after} s"),
                retry_after: retry_after.max(1),
            }
            .into_response();
        }
    }
    next.run(request).await
}

/// Middleware: a request's body must have arrived within `timeout` of the request's
/// headers; past it, reading it fails, so the request is answered 400 saying why, and
/// the connection (whose body is unread) is closed.
pub async fn body_deadline(State(timeout): State<Duration>, request: Request, next: Next) -> Response {
    let deadline = Instant::now() + timeout;
    let request = request.map(|body| Body::new(DeadlineBody { body, deadline, timeout, sleep: None }));
    next.run(request).await
}

/// A body that fails once its deadline has passed (its timer started at its first read).
struct DeadlineBody {
    body: Body,
    deadline: Instant,
    timeout: Duration,
    sleep: Option<Pin<Box<Sleep>>>,
}

/// The error of a body that did not arrive in time.
#[derive(Debug)]
struct BodyTooSlow(Duration);

impl std::fmt::Display for BodyTooSlow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the request's body did not arrive within {} s", self.0.as_secs_f64())
    }
}

impl std::error::Error for BodyTooSlow {}

impl http_body::Body for DeadlineBody {
    type Data = axum::body::Bytes;
    type Error = axum::BoxError;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = self.get_mut();
        let deadline = this.deadline;
        let sleep = this.sleep.get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        if sleep.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Some(Err(Box::new(BodyTooSlow(this.timeout)))));
        }
        Pin::new(&mut this.body).poll_frame(cx).map_err(Into::into)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limited_routes_are_the_join_upload_and_control_ones() {
        let post = Method::POST;
        assert_eq!(kind_of(&post, "/api/join"), Some(Kind::Join));
        assert_eq!(kind_of(&post, "/labs/{lab}/join"), Some(Kind::Join));
        assert_eq!(kind_of(&post, "/api/labs/{lab}/robots"), Some(Kind::Upload));
        assert_eq!(kind_of(&post, "/api/labs/{lab}/scene"), Some(Kind::Upload));
        assert_eq!(kind_of(&Method::PUT, "/api/labs/{lab}/robots/{robot}/program"), Some(Kind::Upload));
        let submissions = "/api/classes/{class}/assignments/{id}/submissions";
        assert_eq!(kind_of(&post, submissions), Some(Kind::Upload), "a hand-in is an upload");
        assert_eq!(kind_of(&Method::GET, submissions), None);
        assert_eq!(kind_of(&post, "/api/labs/{lab}/control"), Some(Kind::Control));
        assert_eq!(kind_of(&Method::GET, "/api/labs/{lab}/robots/{robot}/program"), None);
        assert_eq!(kind_of(&Method::GET, "/api/labs/{lab}/join"), None);
        assert_eq!(kind_of(&post, "/api/labs/{lab}/broadcast"), None);
    }

    #[test]
    fn connection_slots_are_counted_and_given_back() {
        let limits = Limits { max_connections: 3, max_connections_per_address: 2, ..Limits::default() };
        let connections = Arc::new(Connections::new(&limits));
        let a = ClientKey::of("192.0.2.1".parse().unwrap());
        let b = ClientKey::of("192.0.2.2".parse().unwrap());
        let a1 = connections.admit(a).unwrap();
        let _a2 = connections.admit(a).unwrap();
        assert_eq!(connections.admit(a).err(), Some(Refusal::AddressFull));
        let _b1 = connections.admit(b).unwrap();
        assert_eq!(connections.admit(b).err(), Some(Refusal::ServerFull));
        drop(a1);
        assert_eq!(connections.open(), 2);
        let _a3 = connections.admit(a).unwrap();
    }

    #[test]
    fn a_burst_then_one_per_interval() {
        let rate = Rate { count: 3, per: Duration::from_secs(3600) };
        let limits = Limits { joins: rate, ..Limits::default() };
        let rates = RateLimits::new(&limits);
        let a = ClientKey::of("192.0.2.1".parse().unwrap());
        for _ in 0..3 {
            rates.check(Kind::Join, a).unwrap();
        }
        let wait = rates.check(Kind::Join, a).unwrap_err();
        assert!(wait > Duration::from_secs(1000) && wait <= Duration::from_secs(1200), "{wait:?}");
        // Another address, and another kind, count apart.
        rates.check(Kind::Join, ClientKey::of("192.0.2.2".parse().unwrap())).unwrap();
        rates.check(Kind::Upload, a).unwrap();
    }
}
