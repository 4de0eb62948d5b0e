//! Regression: a remote controller in a lockstep lab that attached again after every
//! disconnect held the lab at 0.084×, and was never refused: no back-off on attaching
//! again. Now every controller let go of for a fault counts; from the second in a row
//! the next attach waits 1 s, doubling up to 60 s, refused meanwhile with 429 and
//! `Retry-After`; the console says why each one went.

use std::time::Duration;

use serde_json::json;
use vlab_protocol::ControlAction;

use super::controllers::{add_diffbot, attach, attach_ready, console, next, report_where};
use crate::common::{TestServer, yard};

#[tokio::test]
async fn a_controller_that_drops_at_every_step_waits_longer_and_longer_to_attach_again() {
    let server = TestServer::start_with(yard(), false).await;
    server.patch_demo_settings(json!({"sync": "lockstep"})).await;
    let ana = server.join_demo("Ana").await;
    add_diffbot(&server, &ana, "ana", 6).await;
    server.control("demo", ControlAction::Resume).await;

    // Attach, take a step, drop the connection; again.
    let mut dropped = 0;
    let refused = loop {
        let mut socket = match attach(&server, "diffbot_ana", &ana).await {
            Ok(socket) => socket,
            Err(refused) => break refused,
        };
        assert!(dropped < 5, "attached again {dropped} times without a wait");
        let hello = next(&mut socket).await.unwrap();
        assert_eq!(hello["type"], "hello");
        super::controllers::say(&mut socket, json!({"type": "ready", "version": 1, "commands": {}})).await;
        let step = next(&mut socket).await.unwrap();
        assert_eq!(step["type"], "step");
        drop(socket);
        dropped += 1;
        // The lab notices (or the next attach does): its console says why.
        report_where(&server, "diffbot_ana", |r| {
            console(r).iter().filter(|l| *l == "remote controller detached: the remote controller disconnected").count()
                >= dropped
                || console(r).iter().any(|l| l.contains("the next may attach in"))
        })
        .await;
    };
    assert_eq!(dropped, 2, "the first fault is free, the second costs a wait");
    assert_eq!(refused.status, 429, "{refused:?}");
    assert_eq!(refused.retry_after, Some(1), "{refused:?}");
    let message = refused.body["error"]["message"].as_str().unwrap();
    assert!(message.contains("lost its last 2 remote controllers to faults in a row"), "{message}");
    assert!(message.contains("attach again in 1 s"), "{message}");

    // Past the wait it may attach again.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let mut socket = attach_ready(&server, "diffbot_ana", &ana).await;
    let step = next(&mut socket).await.unwrap();
    assert_eq!(step["type"], "step");
    server.control("demo", ControlAction::Pause).await;
}
