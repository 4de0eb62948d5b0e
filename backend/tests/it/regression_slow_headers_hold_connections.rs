//! Symptom: 300 connections sending their HTTP headers one byte every 5 s all stayed
//! open indefinitely: there was no header timeout. Now a connection that has not sent
//! a request's headers within the header timeout is closed, without an answer, and a
//! body that has not arrived within the body timeout fails the request (400,
//! saying so) and closes the connection. A websocket, once upgraded, is held to
//! neither: it stays open as long as its page does.
//!
//! The timeouts are short here (configured for the test); a test waits for the server
//! to act, never for a time bound on how fast it does.

use crate::common;

use std::time::Duration;

use common::{PATIENCE, Received, TOKEN, TestServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use vlab_protocol::ServerMsg;
use vlab_server::net::Limits;

/// Sends `bytes` one a second until the server closes the connection; returns how many
/// were sent and what the server wrote before closing.
async fn trickle(mut stream: TcpStream, bytes: &[u8]) -> (usize, String) {
    let mut answer = Vec::new();
    let mut sent = 0;
    let mut buffer = [0u8; 1024];
    let outcome = tokio::time::timeout(PATIENCE, async {
        loop {
            tokio::select! {
                read = stream.read(&mut buffer) => match read {
                    Ok(0) | Err(_) => return,
                    Ok(n) => answer.extend_from_slice(&buffer[..n]),
                },
                () = tokio::time::sleep(Duration::from_secs(1)), if sent < bytes.len() => {
                    if stream.write_all(&bytes[sent..=sent]).await.is_err() {
                        return;
                    }
                    sent += 1;
                }
            }
        }
    })
    .await;
    assert!(outcome.is_ok(), "the connection was still open after {PATIENCE:?}");
    (sent, String::from_utf8_lossy(&answer).into_owned())
}

#[tokio::test]
async fn a_client_sending_a_header_byte_per_second_is_disconnected() {
    let limits = Limits { header_timeout: Duration::from_secs(2), ..Limits::default() };
    let server = TestServer::start_with_limits(false, limits).await;
    let request = format!("GET /api/health HTTP/1.1\r\nHost: {}\r\nUser-Agent: slow\r\n\r\n", server.addr);
    // Twenty at once, each a byte a second: all are closed long before their headers
    // could be complete (about 60 s each).
    let mut slow = Vec::new();
    for _ in 0..20 {
        let stream = TcpStream::connect(server.addr).await.unwrap();
        let request = request.clone();
        slow.push(tokio::spawn(async move { trickle(stream, request.as_bytes()).await }));
    }
    for slow in slow {
        let (sent, answer) = slow.await.unwrap();
        assert!(sent < request.len(), "all {sent} bytes were sent before the connection closed");
        assert!(answer.is_empty(), "{answer}");
    }
    // Everybody else is served.
    let (status, body) = server.get_json("/api/health").await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn a_connection_that_sends_nothing_is_closed() {
    let limits = Limits { header_timeout: Duration::from_secs(1), ..Limits::default() };
    let server = TestServer::start_with_limits(false, limits).await;
    let (sent, answer) = trickle(TcpStream::connect(server.addr).await.unwrap(), b"").await;
    assert_eq!(sent, 0);
    assert!(answer.is_empty(), "{answer}");
}

#[tokio::test]
async fn a_body_sent_a_byte_per_second_fails_at_the_body_timeout() {
    let limits = Limits { body_timeout: Duration::from_secs(2), ..Limits::default() };
    let server = TestServer::start_with_limits(false, limits).await;
    let body = format!(r#"{{"action":"pause"}}{}"#, " ".repeat(60));
    let head = format!(
        "POST /api/labs/demo/control HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {TOKEN}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        server.addr,
        body.len()
    );
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    let (sent, answer) = trickle(stream, body.as_bytes()).await;
    assert!(sent < body.len(), "the whole body was read: {answer}");
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(answer.contains("did not arrive within 2 s"), "{answer}");
    // A body sent at once is read as always.
    let (status, state) = server.control_raw("demo", Some(TOKEN), r#"{"action":"pause"}"#).await;
    assert_eq!(status, 200, "{state}");
}

#[tokio::test]
async fn a_long_lived_websocket_is_not_cut() {
    let limits =
        Limits { header_timeout: Duration::from_secs(1), body_timeout: Duration::from_secs(1), ..Limits::default() };
    let server = TestServer::start_with_limits(false, limits).await;
    let mut client = server.connect("demo", None).await;
    client.join_sequence().await;
    // The lab is paused: nothing passes either way for three times both timeouts.
    tokio::time::sleep(Duration::from_secs(3)).await;
    client.send_text(r#"{"type":"ping","nonce":42}"#).await;
    client.until(|r| matches!(r, Received::Json(ServerMsg::Pong { nonce: 42 })).then_some(())).await;
    // And it still receives the lab's news.
    server.control("demo", vlab_protocol::ControlAction::Step { steps: 3 }).await;
    client.state_where(|state| state.step >= 3).await;
}

#[tokio::test]
async fn an_idle_kept_alive_connection_is_closed_after_the_header_timeout() {
    let limits = Limits { header_timeout: Duration::from_secs(1), ..Limits::default() };
    let server = TestServer::start_with_limits(false, limits).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let request = format!("GET /api/health HTTP/1.1\r\nHost: {}\r\n\r\n", server.addr);
    stream.write_all(request.as_bytes()).await.unwrap();
    // The answer comes, then, with no next request, the connection is closed.
    let (sent, answer) = trickle(stream, b"").await;
    assert_eq!(sent, 0);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}
