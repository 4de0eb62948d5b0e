//! Symptom: an upload over the 4 MiB limit was answered "the part 'description' is not
//! UTF-8 text" (400) instead of saying it was too large. Now 413 with the limit, and
//! the limit itself still passes.

use crate::common;

use common::{TOKEN, TestServer};
use reqwest::multipart::{Form, Part};
use serde_json::Value;
use vlab_server::classroom::upload::MAX_UPLOAD_BYTES;

async fn upload(server: &TestServer, form: Form) -> (u16, Value) {
    let response =
        server.http.post(server.url("/api/labs/demo/scene")).bearer_auth(TOKEN).multipart(form).send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// A scene of one body followed by a comment that pads it to `bytes`.
fn padded_scene(bytes: usize) -> String {
    let scene = "padding_box { shape box(0.1, 0.1, 0.1); pos(1, 0.5, 1); }\n//";
    format!("{scene}{}", "x".repeat(bytes - scene.len()))
}

#[tokio::test]
async fn an_oversized_upload_is_refused_as_too_large() {
    let server = TestServer::start(false).await;
    let form = Form::new().part("scene", Part::text(padded_scene(MAX_UPLOAD_BYTES + 1024)).file_name("big.vlab"));
    let (status, reply) = upload(&server, form).await;
    assert_eq!(status, 413, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("larger than 4 MiB"), "{message}");

    let response = server
        .http
        .post(server.url("/api/labs/demo/scene"))
        .bearer_auth(TOKEN)
        .body(padded_scene(MAX_UPLOAD_BYTES + 1))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 413, "a plain body over the limit too");
}

#[tokio::test]
async fn an_upload_just_under_the_limit_is_read() {
    let server = TestServer::start(false).await;
    // The form's own headers and boundaries take some of the 4 MiB.
    let form = Form::new().part("scene", Part::text(padded_scene(MAX_UPLOAD_BYTES - 4096)).file_name("big.vlab"));
    let (status, reply) = upload(&server, form).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["inserted"]["bodies"], 1);
}
