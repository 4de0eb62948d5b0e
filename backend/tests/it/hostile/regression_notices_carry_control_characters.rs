//! A notice with U+202E (right-to-left override), NUL and ESC was delivered verbatim to
//! every page of the lab (issue 36, row 11), while names strip the same characters: an
//! instructor's token pasted from anywhere could reorder or hide the text around the
//! notice. Now a notice is cleaned as names are (`vlab_protocol::visible_text`), keeping
//! its line breaks and inner spaces, and one with nothing visible left is refused with
//! `422` and a sentence saying why; nothing is sent then.

use vlab_protocol::ServerMsg;

use crate::common::{Received, TOKEN, TestServer};

async fn broadcast(server: &TestServer, message: &str) -> (u16, serde_json::Value) {
    let response = server
        .http
        .post(server.url("/api/labs/demo/broadcast"))
        .bearer_auth(TOKEN)
        .json(&serde_json::json!({ "message": message }))
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(serde_json::Value::Null))
}

#[tokio::test]
async fn a_notice_reaches_pages_without_its_control_and_invisible_characters() {
    let server = TestServer::start(false).await;
    let mut page = server.connect("demo", None).await;
    page.join_sequence().await;

    let (status, body) = broadcast(&server, "\u{202E}Test \u{0}ends\u{1b}[2J at\n  10:40 \u{200B}\r\n").await;
    assert_eq!(status, 204, "{body}");
    let notice = page
        .until(|r| match r {
            Received::Json(ServerMsg::Notice { message, .. }) => Some(message.clone()),
            _ => None,
        })
        .await;
    assert_eq!(notice, "Test ends[2J at\n  10:40", "its line break and inner spaces kept, nothing unseen");

    // Nothing visible: refused, and no notice reaches the page.
    let (status, body) = broadcast(&server, "\u{202E}\u{0}\u{1b}\u{200B}\r\n").await;
    assert_eq!(status, 422, "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("visible text"), "{message}");
    let (status, body) = broadcast(&server, "after").await;
    assert_eq!(status, 204, "{body}");
    let next = page
        .until(|r| match r {
            Received::Json(ServerMsg::Notice { message, .. }) => Some(message.clone()),
            _ => None,
        })
        .await;
    assert_eq!(next, "after", "the refused notice was never sent");
}
