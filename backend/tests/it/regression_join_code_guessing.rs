//! Symptom: guessing join codes, one client had 10,500 guesses a second answered, with
//! no 429 and no lockout. Now joins are counted per client address: past the join rate
//! (by default a burst of 250, then one every 1.2 s) the answer is 429 with
//! `Retry-After` and a `{"error": ...}` body, whether the code is right or wrong, until
//! the window passes. The default lets a whole class behind one school address join at
//! once.

use crate::common;

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use common::TestServer;
use serde_json::{Value, json};
use vlab_server::net::Limits;
use vlab_server::net::limits::{DEFAULT_JOIN_RATE, Rate};

/// A join from `client`: status, `Retry-After` (when sent) and body.
async fn join(server: &TestServer, client: &reqwest::Client, code: &str, name: &str) -> (u16, Option<u64>, Value) {
    let body = json!({ "join_code": code, "name": name });
    let response = client.post(server.url("/api/join")).json(&body).send().await.unwrap();
    let status = response.status().as_u16();
    let retry_after = response.headers().get("retry-after").map(|v| v.to_str().unwrap().parse().unwrap());
    (status, retry_after, response.json().await.unwrap())
}

fn from(last: u8) -> reqwest::Client {
    reqwest::Client::builder().local_address(IpAddr::V4(Ipv4Addr::new(127, 0, 0, last))).build().unwrap()
}

#[tokio::test]
async fn a_burst_of_wrong_guesses_is_refused_until_the_window_passes() {
    // A burst of 5, then one join every 2 s.
    let rate = Rate { count: 5, per: Duration::from_secs(10) };
    let server = TestServer::start_with_limits(false, Limits { joins: rate, ..Limits::default() }).await;
    let guesser = from(1);
    let mut wrong = 0;
    let (retry_after, body) = loop {
        let (status, retry_after, body) = join(&server, &guesser, &format!("ZZZ{wrong:03}"), "guess").await;
        if status == 429 {
            break (retry_after.expect("a 429 without Retry-After"), body);
        }
        assert_eq!(status, 404, "{body}");
        wrong += 1;
        assert!(wrong < 1000, "a thousand guesses and never a 429");
    };
    assert!(wrong >= 5, "refused after {wrong} guesses, inside the burst of 5");
    assert!((1..=2).contains(&retry_after), "Retry-After: {retry_after} (one join every 2 s)");
    assert_eq!(body["error"]["code"], "too_many_requests", "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("join") && message.contains("try again"), "{message}");
    // Within the window even the right code waits: the guesser learns nothing.
    let (status, _, body) = join(&server, &guesser, "DEMOCODE", "Ana").await;
    assert_eq!(status, 429, "{body}");
    // Another address joins meanwhile.
    let (status, _, body) = join(&server, &from(2), "DEMOCODE", "Bea").await;
    assert_eq!(status, 200, "{body}");
    // After the window the right code works.
    tokio::time::sleep(Duration::from_secs(retry_after)).await;
    let (status, _, body) = join(&server, &guesser, "DEMOCODE", "Ana").await;
    assert_eq!(status, 200, "{body}");
    assert!(body["token"].is_string(), "{body}");
}

#[tokio::test]
async fn the_lab_path_join_is_counted_the_same() {
    let rate = Rate { count: 2, per: Duration::from_secs(3600) };
    let server = TestServer::start_with_limits(false, Limits { joins: rate, ..Limits::default() }).await;
    let client = from(1);
    let body = json!({ "join_code": "WRONG1", "name": "guess" });
    let mut statuses = Vec::new();
    for _ in 0..3 {
        let response = client.post(server.url("/api/labs/demo/join")).json(&body).send().await.unwrap();
        statuses.push(response.status().as_u16());
        if response.status() == 429 {
            assert!(response.headers().contains_key("retry-after"));
            let body: Value = response.json().await.unwrap();
            assert_eq!(body["error"]["code"], "too_many_requests", "{body}");
        }
    }
    assert_eq!(statuses[2], 429, "{statuses:?}");
    // Both join routes share the count.
    let (status, _, _) = join(&server, &client, "DEMOCODE", "Ana").await;
    assert_eq!(status, 429);
}

#[tokio::test]
async fn a_class_of_sixty_behind_one_address_joins_within_the_default_limits() {
    let server = TestServer::start(false).await;
    let school = from(1);
    for i in 0..60 {
        let (status, _, body) = join(&server, &school, "DEMOCODE", &format!("Student {i}")).await;
        assert_eq!(status, 200, "student {i}: {body}");
    }
    // A few typos on top still get through.
    for i in 0..10 {
        let (status, _, body) = join(&server, &school, "DEMOCOD", &format!("Typo {i}")).await;
        assert_eq!(status, 404, "typo {i}: {body}");
    }
}

#[tokio::test]
async fn the_default_join_rate_stops_a_flood_of_guesses() {
    // However fast this machine is, no more joins are answered than the burst and the
    // refills of the time taken allow; the rest are 429.
    let server = TestServer::start(false).await;
    let guesser = from(1);
    let started = std::time::Instant::now();
    let (mut answered, mut refused) = (0u32, 0u32);
    for i in 0..400 {
        match join(&server, &guesser, &format!("QQ{i:04}"), "guess").await.0 {
            429 => refused += 1,
            _ => answered += 1,
        }
    }
    let elapsed = started.elapsed();
    let refills = (elapsed.as_secs_f64() / DEFAULT_JOIN_RATE.interval().as_secs_f64()).ceil() as u32;
    assert!(
        answered <= DEFAULT_JOIN_RATE.count + refills + 1,
        "{answered} guesses answered in {elapsed:?} (burst {}, one more every {:?})",
        DEFAULT_JOIN_RATE.count,
        DEFAULT_JOIN_RATE.interval()
    );
    assert_eq!(answered + refused, 400);
}
