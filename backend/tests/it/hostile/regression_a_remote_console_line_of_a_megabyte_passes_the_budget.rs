//! Regression: a remote controller's console line of 1 MB every step was accepted: the
//! per-step output budget (16 KiB) counted the line after it was cut to 4,096 bytes,
//! while the docs promise lines of at most 1,000 characters. Now a line counts every
//! byte it was sent with: 16,383 bytes (and its end) fill the budget and pass, shown cut
//! to 1,000 characters; one byte more detaches the controller, as a flood.

use serde_json::json;
use vlab_protocol::ControlAction;
use vlab_server::controller::MAX_CONSOLE_LINE_CHARS;

use super::controllers::{add_diffbot, attach_ready, console, next, report_where, say};
use crate::common::{TestServer, yard};

const BUDGET: usize = 16 * 1024;

/// Answers the next step with one console line of `bytes` bytes; the step's number.
async fn answer_with_line(socket: &mut super::controllers::Socket, bytes: usize) -> u64 {
    let step = next(socket).await.unwrap();
    assert_eq!(step["type"], "step", "{step}");
    let step = step["step"].as_u64().unwrap();
    let output = [json!({"source": "log", "text": "x".repeat(bytes)})];
    say(socket, json!({"type": "commands", "step": step, "commands": {}, "output": output})).await;
    step
}

#[tokio::test]
async fn a_console_line_counts_all_its_bytes_against_the_step_budget() {
    let server = TestServer::start_with(yard(), false).await;
    server.patch_demo_settings(json!({"sync": "lockstep"})).await;
    let ana = server.join_demo("Ana").await;
    add_diffbot(&server, &ana, "ana", 6).await;
    let mut socket = attach_ready(&server, "diffbot_ana", &ana).await;
    report_where(&server, "diffbot_ana", |r| r["program"]["state"] == "running").await;

    // Just under: the line and its end fill the budget; it is shown cut.
    let stepping = tokio::spawn(async move {
        let server_steps = answer_with_line(&mut socket, BUDGET - 1).await;
        (socket, server_steps)
    });
    server.control("demo", ControlAction::Step { steps: 10 }).await;
    let (mut socket, _) = stepping.await.unwrap();
    let shown = report_where(&server, "diffbot_ana", |r| console(r).iter().any(|l| l.starts_with("xxx"))).await;
    assert_eq!(shown["program"]["state"], "running", "{shown}");
    let line = console(&shown).into_iter().find(|l| l.starts_with("xxx")).unwrap();
    assert_eq!(line.chars().count(), MAX_CONSOLE_LINE_CHARS);
    assert!(line.ends_with('\u{2026}'), "cut as the vlab module cuts");

    // A megabyte: detached for a flood, though it would be shown cut all the same.
    let stepping = tokio::spawn(async move {
        answer_with_line(&mut socket, 1_000_000).await;
        next(&mut socket).await
    });
    server.control("demo", ControlAction::Step { steps: 10 }).await;
    let (code, reason) = stepping.await.unwrap().unwrap_err();
    assert_eq!(code, 4000);
    assert_eq!(reason, format!("stopped: printed more than {BUDGET} bytes"));
    let detached = report_where(&server, "diffbot_ana", |r| r["program"]["state"] != "running").await;
    assert!(detached["program"]["message"].as_str().unwrap().contains("printed more than 16384 bytes"), "{detached}");

    // One byte over the budget is a flood too.
    let mut socket = attach_ready(&server, "diffbot_ana", &ana).await;
    report_where(&server, "diffbot_ana", |r| r["program"]["state"] == "running").await;
    let stepping = tokio::spawn(async move {
        answer_with_line(&mut socket, BUDGET).await;
        next(&mut socket).await
    });
    server.control("demo", ControlAction::Step { steps: 10 }).await;
    let (code, _) = stepping.await.unwrap().unwrap_err();
    assert_eq!(code, 4000);
}
