//! Regression: a controller detached for a flood, then attaching again, left the
//! robot's console showing the new attach but never why the old one went (in a paused
//! lab the lab had not looked at it before the new one replaced it). Now the console
//! says why, before the new attach's line.

use futures_util::SinkExt;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

use super::controllers::{add_diffbot, attach_ready, console, next, report_where};
use crate::common::{TestServer, yard};

#[tokio::test]
async fn attaching_again_after_a_flood_shows_why_the_flooder_was_detached_first() {
    let server = TestServer::start_with(yard(), false).await;
    let ana = server.join_demo("Ana").await;
    add_diffbot(&server, &ana, "ana", 6).await;
    let mut flooder = attach_ready(&server, "diffbot_ana", &ana).await;
    report_where(&server, "diffbot_ana", |r| r["program"]["state"] == "running").await;

    // The lab is paused: nothing reads the messages, and the 65th is one too many.
    let line = json!({"type": "output", "output": [{"source": "print", "text": "spam"}]});
    for _ in 0..65 {
        if flooder.send(Message::Text(line.to_string().into())).await.is_err() {
            break;
        }
    }
    let (code, reason) = next(&mut flooder).await.unwrap_err();
    assert_eq!((code, reason.as_str()), (4000, "sent more than 64 messages before the lab read them (a flood)"));

    let _again = attach_ready(&server, "diffbot_ana", &ana).await;
    let lines = console(&report_where(&server, "diffbot_ana", |r| r["program"]["state"] == "running").await);
    let why = "remote controller detached: sent more than 64 messages before the lab read them (a flood)";
    let said = lines.iter().position(|l| l == why).unwrap_or_else(|| panic!("never said why: {lines:?}"));
    let attached = lines.iter().rposition(|l| l.starts_with("a remote controller attached")).unwrap();
    assert!(said < attached, "why it went comes before the new attach: {lines:?}");
}
