//! Regression: a remote controller in a lockstep lab that answered every step after
//! 450 ms (within the 500 ms step budget) held the lab, and the whole class, at 0.049×
//! for as long as it liked: remote controllers had no CPU or wall-time rule. Now the
//! robot shows who holds the lab (its status is late with the wait, its console says
//! so), and once 10 of its last 20 answers kept the lab waiting over 100 ms it is
//! detached with the reason.

use std::time::Duration;

use serde_json::json;
use vlab_protocol::ControlAction;
use vlab_server::lab::waits::{SLOW_ANSWERS_LIMIT, SLOW_ANSWERS_WINDOW};

use super::controllers::{add_diffbot, attach_ready, console, next, report, report_where, say};
use crate::common::{TestServer, yard};

#[tokio::test]
async fn a_controller_slow_at_every_step_of_a_lockstep_lab_is_detached_and_shown_holding_it() {
    let server = TestServer::start_with(yard(), false).await;
    server.patch_demo_settings(json!({"sync": "lockstep"})).await;
    let ana = server.join_demo("Ana").await;
    add_diffbot(&server, &ana, "ana", 6).await;
    let mut socket = attach_ready(&server, "diffbot_ana", &ana).await;
    report_where(&server, "diffbot_ana", |r| r["program"]["state"] == "running").await;
    server.control("demo", ControlAction::Resume).await;

    // Answers every step 300 ms late, counting them, until the lab lets go.
    let slow = tokio::spawn(async move {
        let mut answered = 0;
        loop {
            match next(&mut socket).await {
                Ok(message) if message["type"] == "step" => {
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    let step = message["step"].as_u64().unwrap();
                    say(&mut socket, json!({"type": "commands", "step": step, "commands": {}})).await;
                    answered += 1;
                }
                Ok(_) => {}
                Err(closed) => return (answered, closed),
            }
        }
    });
    let holding = report_where(&server, "diffbot_ana", |r| r["program"]["late"]["waited_ms"].is_number()).await;
    assert_eq!(holding["program"]["state"], "running");
    let said = console(&holding);
    assert!(
        said.iter().any(|l| l.starts_with("holding the lab: this lockstep lab waited ")
            && l.contains(&format!("at {SLOW_ANSWERS_LIMIT} it is stopped"))),
        "{said:?}"
    );

    let (answered, (code, reason)) = tokio::time::timeout(crate::common::PATIENCE, slow).await.unwrap().unwrap();
    assert_eq!(code, 4000, "{reason}");
    assert!(reason.starts_with("remote controller detached: "), "{reason}");
    assert!(answered >= SLOW_ANSWERS_LIMIT - 1, "detached after {answered} answers");
    let detached = report(&server, "diffbot_ana").await;
    let message = detached["program"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!(
            "{SLOW_ANSWERS_LIMIT} of its last {SLOW_ANSWERS_WINDOW} answers kept this lockstep lab"
        )),
        "{message}"
    );
    assert!(console(&detached).iter().any(|l| l == message), "the console says why");
    server.control("demo", ControlAction::Pause).await;
}
