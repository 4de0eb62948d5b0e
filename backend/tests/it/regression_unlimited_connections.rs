//! Symptom: 30 anonymous websockets opened by one client were all kept: nothing capped
//! connections, overall or per address. Now the server keeps at most
//! `max_connections` open, and at most `max_connections_per_address` from one client
//! address, websockets included; past either, a new connection is answered (429 for
//! its address, 503 for the server) with `Retry-After` and closed, and a slot freed by
//! a closing connection is taken again.
//!
//! Several clients are played from 127.0.0.1, 127.0.0.2, ... (all loopback).

use crate::common;

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use common::{Client, PATIENCE, TestServer};
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::{Error, Message};
use vlab_server::net::Limits;

fn loopback(last: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 0, 0, last))
}

/// A websocket from `from` that the server accepted (it has received the lab).
async fn accepted(server: &TestServer, from: IpAddr) -> Client {
    let mut client = server.try_connect_from(from, "demo").await.expect("refused under the cap");
    client.join_sequence().await;
    client
}

/// The refusal of a websocket from `from`: its status, `Retry-After` and error body.
async fn refused(server: &TestServer, from: IpAddr) -> (u16, u64, serde_json::Value) {
    match server.try_connect_from(from, "demo").await {
        Ok(_) => panic!("a connection past the cap was accepted"),
        Err(Error::Http(response)) => {
            let retry_after = response.headers()["retry-after"].to_str().unwrap().parse().unwrap();
            let body = serde_json::from_slice(response.body().as_deref().unwrap_or_default()).unwrap();
            (response.status().as_u16(), retry_after, body)
        }
        Err(other) => panic!("refused without an answer: {other}"),
    }
}

/// Closes a websocket and waits until the server has closed it too.
async fn close(mut client: Client) {
    client.socket.send(Message::Close(None)).await.unwrap();
    tokio::time::timeout(PATIENCE, async { while client.socket.next().await.is_some_and(|m| m.is_ok()) {} })
        .await
        .expect("the server never closed");
}

/// Connects from `from` until accepted: the server frees a closed connection's slot
/// as soon as it has seen it close, which takes a moment after the client's close.
async fn accepted_again(server: &TestServer, from: IpAddr) -> Client {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        match server.try_connect_from(from, "demo").await {
            Ok(mut client) => {
                client.join_sequence().await;
                return client;
            }
            Err(Error::Http(response)) if response.status() == 429 || response.status() == 503 => {
                assert!(tokio::time::Instant::now() < deadline, "the freed slot never came back");
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(other) => panic!("{other}"),
        }
    }
}

#[tokio::test]
async fn one_address_gets_its_cap_of_connections_and_no_more() {
    let limits = Limits { max_connections: 100, max_connections_per_address: 3, ..Limits::default() };
    let server = TestServer::start_with_limits(false, limits).await;
    let mut open = Vec::new();
    for _ in 0..3 {
        open.push(accepted(&server, loopback(1)).await);
    }
    let (status, retry_after, body) = refused(&server, loopback(1)).await;
    assert_eq!(status, 429, "{body}");
    assert!(retry_after >= 1, "Retry-After: {retry_after}");
    assert_eq!(body["error"]["code"], "too_many_requests", "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("at most 3"), "{body}");
    // Another address is not held back by this one.
    let other = accepted(&server, loopback(2)).await;
    // A plain HTTP request from the full address is refused the same way.
    let from_full = reqwest::Client::builder().local_address(loopback(1)).build().unwrap();
    let response = from_full.get(server.url("/api/health")).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 429);
    // A slot freed is taken again, and the cap still holds after.
    close(open.pop().unwrap()).await;
    open.push(accepted_again(&server, loopback(1)).await);
    assert_eq!(refused(&server, loopback(1)).await.0, 429);
    // The connections kept work: the lab still talks to them.
    for client in open.iter_mut().chain([other].iter_mut()) {
        client.send_text(r#"{"type":"ping","nonce":3}"#).await;
        client
            .until(|r| matches!(r, common::Received::Json(vlab_protocol::ServerMsg::Pong { nonce: 3 })).then_some(()))
            .await;
    }
}

#[tokio::test]
async fn the_server_gets_its_cap_of_connections_and_no_more() {
    let limits = Limits { max_connections: 3, max_connections_per_address: 100, ..Limits::default() };
    let server = TestServer::start_with_limits(false, limits).await;
    let mut open = vec![accepted(&server, loopback(1)).await, accepted(&server, loopback(1)).await];
    open.push(accepted(&server, loopback(2)).await);
    let (status, retry_after, body) = refused(&server, loopback(3)).await;
    assert_eq!(status, 503, "{body}");
    assert!(retry_after >= 1, "Retry-After: {retry_after}");
    assert_eq!(body["error"]["code"], "server_busy", "{body}");
    close(open.remove(0)).await;
    open.push(accepted_again(&server, loopback(3)).await);
    assert_eq!(refused(&server, loopback(4)).await.0, 503);
}

#[tokio::test]
async fn connections_that_send_nothing_count_too() {
    // Anonymous connections that never send a request: only the cap's worth are kept,
    // and other addresses are served meanwhile. (The header timeout is long here, so
    // nothing is closed for idling during the test.)
    let limits =
        Limits { max_connections_per_address: 5, header_timeout: Duration::from_secs(3600), ..Limits::default() };
    let server = TestServer::start_with_limits(false, limits).await;
    let mut silent = Vec::new();
    for _ in 0..5 {
        silent.push(tokio::net::TcpStream::connect(server.addr).await.unwrap());
    }
    // The server admits connections in the order they came; a request on a sixth
    // connection from the same address is refused once the five are admitted.
    let client = reqwest::Client::builder().local_address(loopback(1)).build().unwrap();
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let status = client.get(server.url("/api/health")).send().await.unwrap().status().as_u16();
        if status == 429 {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "a sixth connection was served");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Another address is served meanwhile.
    let other = reqwest::Client::builder().local_address(loopback(2)).build().unwrap();
    assert_eq!(other.get(server.url("/api/health")).send().await.unwrap().status().as_u16(), 200);
    // The silent ones go away: their slots come back.
    drop(silent);
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let fresh = reqwest::Client::builder().local_address(loopback(1)).build().unwrap();
    while fresh.get(server.url("/api/health")).send().await.unwrap().status().as_u16() != 200 {
        assert!(tokio::time::Instant::now() < deadline, "the slots never came back");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
