//! Accepting and serving connections: each is tuned, admitted within the connection
//! caps (or answered with a short refusal and closed), and served over HTTP/1.1 by
//! hyper with a header read timeout, websockets upgraded in place.
//!
//! hyper is driven directly (not through `axum::serve`) because `axum::serve` neither
//! sets a header read timeout nor lets a connection be refused before it is served.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::response::IntoResponse;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};
use tower::ServiceExt;

use super::guard::{Connections, Counted, Refusal};
use super::limits::{ClientKey, Limits, MAX_REFUSALS_AT_ONCE, REFUSAL_HEADER_TIMEOUT};

/// Kernel send buffer per connection. Small on purpose: a viewer that reads slowly
/// backs up into its merged frame mailbox within ~100 ms of frames instead of into
/// megabytes of socket buffer, so it sees the present, not the past.
const SEND_BUFFER_BYTES: usize = 64 * 1024;

/// Serves `router` on `listener` within `limits` until `shutdown` completes; then
/// stops accepting, lets every connection finish its request in progress, and returns
/// once they have closed (upgraded websockets are not waited for: the labs close them).
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let connections = Arc::new(Connections::new(&limits));
    let refusals = Arc::new(Semaphore::new(MAX_REFUSALS_AT_ONCE));
    // `stop` tells connections to finish; every connection holds a `served` receiver,
    // so `served_tx.closed()` is when the last one is gone.
    let (stop_tx, stop) = watch::channel(false);
    let (served_tx, served) = watch::channel(());
    let mut shutdown = pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    accept_failed(error).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        tune_connection(&stream);
        let key = ClientKey::of(peer.ip());
        match connections.admit(key) {
            Ok(slot) => {
                let connection = Counted::new(stream, slot);
                let task = connection_task(connection, peer, router.clone(), &limits, stop.clone(), served.clone());
                tokio::spawn(task);
            }
            Err(refusal) => {
                tracing::debug!(client = %key, ?refusal, open = connections.open(), "connection refused");
                refuse(stream, refusal, &limits, &refusals);
            }
        }
    }
    drop(listener);
    let _ = stop_tx.send(true);
    drop(served);
    served_tx.closed().await;
    Ok(())
}

/// Serves one admitted connection until it closes (or, told to stop, once its request
/// in progress is answered).
fn connection_task(
    connection: Counted,
    peer: SocketAddr,
    router: Router,
    limits: &Limits,
    mut stop: watch::Receiver<bool>,
    served: watch::Receiver<()>,
) -> impl std::future::Future<Output = ()> + Send + 'static {
    let header_timeout = limits.header_timeout;
    async move {
        let service = service_fn(move |mut request: hyper::Request<Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            router.clone().oneshot(request.map(Body::new))
        });
        let mut builder = http1::Builder::new();
        builder.timer(TokioTimer::new()).header_read_timeout(header_timeout);
        let mut connection = pin!(builder.serve_connection(TokioIo::new(connection), service).with_upgrades());
        let mut stopping = false;
        loop {
            tokio::select! {
                result = connection.as_mut() => {
                    if let Err(error) = result {
                        tracing::debug!(%peer, %error, "connection ended");
                    }
                    break;
                }
                _ = stop.changed(), if !stopping => {
                    stopping = true;
                    connection.as_mut().graceful_shutdown();
                }
            }
        }
        drop(served);
    }
}

/// Answers a refused connection's first request with the refusal (503 or 429, with
/// `Retry-After` and the error body), then closes it. At most
/// [`MAX_REFUSALS_AT_ONCE`] are answered at a time, each within a few seconds; past
/// that the connection is closed at once.
fn refuse(stream: TcpStream, refusal: Refusal, limits: &Limits, refusals: &Arc<Semaphore>) {
    let Ok(permit) = Arc::clone(refusals).try_acquire_owned() else { return };
    let limits = limits.clone();
    let header_timeout = limits.header_timeout.min(REFUSAL_HEADER_TIMEOUT);
    tokio::spawn(async move {
        let service = service_fn(move |_request: hyper::Request<Incoming>| {
            std::future::ready(Ok::<_, Infallible>(refusal.error(&limits).into_response()))
        });
        let mut builder = http1::Builder::new();
        builder.keep_alive(false).timer(TokioTimer::new()).header_read_timeout(header_timeout);
        let connection = builder.serve_connection(TokioIo::new(stream), service);
        let _ = tokio::time::timeout(header_timeout + Duration::from_secs(5), connection).await;
        drop(permit);
    });
}

/// An accept that failed: a connection reset before it was accepted is nothing; out of
/// file descriptors (or the like), wait a second for some to close, as hyper did.
async fn accept_failed(error: std::io::Error) {
    use std::io::ErrorKind;
    if matches!(error.kind(), ErrorKind::ConnectionRefused | ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset)
    {
        return;
    }
    tracing::error!(%error, "could not accept a connection (out of file descriptors? see docs/operations.md)");
    tokio::time::sleep(Duration::from_secs(1)).await;
}

fn tune_connection(tcp: &TcpStream) {
    // Frames are small and latency matters more than packet count.
    if let Err(e) = tcp.set_nodelay(true) {
        tracing::debug!(error = %e, "could not set TCP_NODELAY");
    }
    if let Err(e) = socket2::SockRef::from(tcp).set_send_buffer_size(SEND_BUFFER_BYTES) {
        tracing::debug!(error = %e, "could not set the send buffer size");
    }
}
