//! Anonymous viewers (no token) seeking the timeline to random past moments: 40 of
//! them drove the server's memory from 728 to 1,410 MB (never given back), `/health`
//! up to 1.9 s, and 6–17 answers a second for everybody together, so honest scrubbing
//! starved. Every seek was answered at once, on the async threads, with trails read
//! from the run's start: 3.4 MB an answer at 5 minutes of run, 7 MB at 24.
//!
//! Now seeks take turns on the whole server (at most `MAX_SEEKS_IN_FLIGHT` answered at
//! once, on blocking threads), a page has at most one seek answered and one waiting
//! (its newest: older ones waiting are dropped), and an answer's trails cover the last
//! `SEEK_TRAIL_WINDOW_SECS` before the step, so an answer late in a long run is no
//! bigger than one early. The server goes on answering everybody else meanwhile.

use std::sync::Arc;

use futures_util::SinkExt;
use rand::Rng;
use tokio_tungstenite::tungstenite::Message;
use vlab_protocol::{ClientMsg, ControlAction, ErrorCode, RecordedMoment, ServerMsg};
use vlab_server::classroom::recording::MAX_SEEKS_IN_FLIGHT;
use vlab_server::classroom::{Classroom, ClassroomConfig, Recordings, SEEK_TRAIL_WINDOW_SECS};
use vlab_server::scene::demo_scene;
use vlab_server::secret::TokenDigest;

use crate::common::{Client, PATIENCE, Received, TOKEN, TestServer};

/// The demo lab's step, seconds.
const DT_SECS: f64 = 1.0 / 240.0;
/// Robots a viewer's seeks ask about (the demo's three carts).
const CARTS: [&str; 3] = ["rover_red", "rover_green", "rover_blue"];
/// Viewers seeking at once.
const VIEWERS: usize = 40;
/// Bursts of seeks each viewer sends.
const ROUNDS: usize = 6;

/// The paused demo lab served alone, and its classroom's recordings.
async fn demo_lab() -> (TestServer, Recordings) {
    let classroom =
        Classroom::new(ClassroomConfig { server_key: Some(TokenDigest::of(TOKEN)), ..ClassroomConfig::default() });
    classroom.registry.insert(crate::common::test_lab(&classroom, "demo", demo_scene(1), false));
    let recordings = classroom.recordings().expect("the lab records").clone();
    (TestServer::serve(classroom).await, recordings)
}

/// Steps the lab `steps` steps (in commands of at most 20,000) and waits until the
/// recording keeps them; the last step.
async fn history(server: &TestServer, steps: u64) -> u64 {
    let mut done = 0;
    let mut last = 0;
    while done < steps {
        let chunk = (steps - done).min(20_000);
        last = server.control("demo", ControlAction::Step { steps: chunk as u32 }).await.step;
        done += chunk;
    }
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let (_, summary) = server.get_json("/api/labs/demo/recording").await;
        if summary["last_step"].as_u64() >= Some(last) {
            return last;
        }
        assert!(tokio::time::Instant::now() < deadline, "the recording never reached step {last}: {summary}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

fn seek_of(step: u64) -> ClientMsg {
    ClientMsg::Seek { run: None, step, epoch: None, robots: CARTS.iter().map(|r| r.to_string()).collect() }
}

/// Sends every seek of `steps` at once (written together, as a client in a loop would).
async fn burst(client: &mut Client, steps: &[u64]) {
    for &step in steps {
        client.socket.feed(Message::text(serde_json::to_string(&seek_of(step)).unwrap())).await.unwrap();
    }
    client.socket.flush().await.unwrap();
}

/// The next answer to a seek: a moment, or the error refusing it.
async fn answer(client: &mut Client) -> Result<RecordedMoment, vlab_protocol::ErrorBody> {
    client
        .until(|received| match received {
            Received::Json(ServerMsg::Moment(moment)) => Some(Ok((**moment).clone())),
            Received::Json(ServerMsg::Error(error)) => Some(Err(error.clone())),
            _ => None,
        })
        .await
}

async fn viewer(server: &TestServer) -> Client {
    let mut client = server.connect("demo", None).await;
    client.join_sequence().await;
    client
}

#[tokio::test]
async fn a_crowd_seeking_takes_turns_and_answers_carry_a_window_of_trail() {
    let (server, recordings) = demo_lab().await;
    let window = (SEEK_TRAIL_WINDOW_SECS / DT_SECS).round() as u64;
    // Two windows and some: an answer early in the run (a window in) and one late.
    let last = history(&server, 2 * window + 2_400).await;
    let (early_step, late_step) = (window + 1_200, last);

    let mut scrubber = viewer(&server).await;
    scrubber.send(&seek_of(early_step)).await;
    let early = answer(&mut scrubber).await.expect("an early moment");
    scrubber.send(&seek_of(late_step)).await;
    let late = answer(&mut scrubber).await.expect("a late moment");
    for moment in [&early, &late] {
        assert_eq!(moment.trails.len(), CARTS.len(), "every cart's trail");
        for trail in &moment.trails {
            let first = trail.truth.first().unwrap().step;
            assert!(
                first + window >= moment.asked && trail.truth.iter().all(|p| p.step <= moment.asked),
                "{}'s trail at step {} starts at step {first}: more than the window of {window} steps",
                trail.robot,
                moment.asked
            );
        }
    }
    let points = |m: &RecordedMoment| m.trails.iter().map(|t| t.truth.len() + t.odometry.len()).sum::<usize>();
    // One sample more or less per trail where the window's edge falls.
    assert!(
        points(&late) <= points(&early) + 2 * CARTS.len(),
        "{} points late, {} early",
        points(&late),
        points(&early)
    );
    let bytes = |m: &RecordedMoment| serde_json::to_string(&ServerMsg::Moment(Box::new(m.clone()))).unwrap().len();
    assert!(
        bytes(&late) <= bytes(&early) + bytes(&early) / 20,
        "an answer at step {late_step} takes {} bytes, at step {early_step} {}",
        bytes(&late),
        bytes(&early)
    );

    // The crowd: anonymous viewers each sending bursts of seeks to random past steps.
    let server = Arc::new(server);
    let mut crowd = Vec::new();
    for _ in 0..VIEWERS {
        let server = Arc::clone(&server);
        crowd.push(tokio::spawn(async move {
            let mut client = viewer(&server).await;
            let (mut moments, mut busy) = (0, 0);
            for _ in 0..ROUNDS {
                let steps: Vec<u64> = (0..3).map(|_| rand::rng().random_range(0..=last)).collect();
                burst(&mut client, &steps).await;
                // Answers come in the order asked, the newest last.
                loop {
                    match answer(&mut client).await {
                        Ok(moment) => {
                            moments += 1;
                            assert!(moment.trails.iter().all(|t| t.truth.len() as u64 <= window / 24 + 2));
                            if moment.asked == steps[2] {
                                break;
                            }
                        }
                        Err(error) => {
                            assert_eq!(error.code, ErrorCode::ServerBusy, "{}", error.message);
                            busy += 1;
                            break;
                        }
                    }
                }
            }
            (moments, busy)
        }));
    }
    // Meanwhile the server answers everybody else.
    let mut health_answers = 0;
    while crowd.iter().any(|viewer| !viewer.is_finished()) {
        let response = tokio::time::timeout(PATIENCE, server.http.get(server.url("/api/health")).send())
            .await
            .expect("/api/health answers while the crowd seeks")
            .unwrap();
        assert_eq!(response.status().as_u16(), 200);
        health_answers += 1;
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let (mut moments, mut busy) = (0, 0);
    for viewer in crowd {
        let (m, b) = viewer.await.unwrap();
        moments += m;
        busy += b;
    }
    let stats = recordings.seeks().stats();
    eprintln!(
        "{moments} moments and {busy} busy answers to {VIEWERS} viewers; {health_answers} health checks; {stats:?}"
    );
    assert!(moments >= VIEWERS * ROUNDS - busy, "every burst was answered");
    assert_eq!(stats.most_in_flight, MAX_SEEKS_IN_FLIGHT, "seeks were answered up to the cap at once, never more");
    assert_eq!(stats.in_flight, 0, "every turn was given back");
}

#[tokio::test]
async fn a_page_sending_seeks_in_a_loop_gets_its_newest_answered_not_every_one() {
    let (server, _) = demo_lab().await;
    let last = history(&server, 2_400).await;
    let mut page = viewer(&server).await;
    // 30 seeks written at once: one is answered, the newest waits, the rest are dropped.
    let steps: Vec<u64> = (0..30).map(|i| i * last / 30).collect();
    burst(&mut page, &steps).await;
    let mut asked = Vec::new();
    while asked.last() != steps.last() {
        asked.push(answer(&mut page).await.expect("a moment").asked);
    }
    assert!(asked.len() < steps.len(), "answers to {asked:?}: one per seek sent");
    assert!(asked.windows(2).all(|w| w[0] < w[1]), "answers in the order asked: {asked:?}");
    // Nothing more comes: a ping is answered next.
    page.send(&ClientMsg::Ping { nonce: 7 }).await;
    let next = page
        .until(|received| match received {
            Received::Json(message @ (ServerMsg::Moment(_) | ServerMsg::Error(_) | ServerMsg::Pong { .. })) => {
                Some(message.clone())
            }
            _ => None,
        })
        .await;
    assert!(matches!(next, ServerMsg::Pong { nonce: 7 }), "{next:?}");
}
