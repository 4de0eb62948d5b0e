//! A remote controller as a hostile client plays one, over the real control websocket
//! (`/ws/labs/demo/robots/{robot}/control`): attaching, answering, reading the close.

use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async};

use crate::common::{PATIENCE, TOKEN, TestServer};

pub type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A refused attach: its status, `Retry-After` (seconds) and JSON body.
#[derive(Debug)]
pub struct Refused {
    pub status: u16,
    pub retry_after: Option<u64>,
    pub body: Value,
}

/// Adds a diffbot (`diffbot_<suffix>` at x = 3, z) for `token`, without a program.
pub async fn add_diffbot(server: &TestServer, token: &str, suffix: &str, z: u32) {
    let description = format!("include \"diffbot_robot.vlab\";\ncall diffbot(\"_{suffix}\", 3, {z}, 0);\n");
    let form = Form::new().part("description", Part::text(description).file_name("robot.vlab"));
    let url = server.url("/api/labs/demo/robots");
    let response = server.http.post(url).bearer_auth(token).multipart(form).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200, "{}", response.text().await.unwrap());
}

/// Opens robot `robot`'s control websocket with `token`, or says why not.
pub async fn attach(server: &TestServer, robot: &str, token: &str) -> Result<Socket, Refused> {
    let url = format!("ws://{}/ws/labs/demo/robots/{robot}/control", server.addr);
    let mut request = url.into_client_request().unwrap();
    request.headers_mut().insert("Authorization", format!("Bearer {token}").parse().unwrap());
    match connect_async(request).await {
        Ok((socket, _)) => Ok(socket),
        Err(WsError::Http(response)) => Err(Refused {
            status: response.status().as_u16(),
            retry_after: response.headers().get("retry-after").and_then(|v| v.to_str().ok()?.parse().ok()),
            body: response.body().as_deref().map(|b| serde_json::from_slice(b).unwrap()).unwrap_or(Value::Null),
        }),
        Err(e) => panic!("the control websocket failed: {e}"),
    }
}

/// The next protocol message, or the close frame's code and reason.
pub async fn next(socket: &mut Socket) -> Result<Value, (u16, String)> {
    loop {
        let message = tokio::time::timeout(PATIENCE, socket.next()).await.expect("the lab went silent");
        match message {
            Some(Ok(Message::Text(text))) => return Ok(serde_json::from_str(&text).unwrap()),
            Some(Ok(Message::Close(Some(frame)))) => return Err((frame.code.into(), frame.reason.to_string())),
            Some(Ok(Message::Close(None))) | None => return Err((1005, String::new())),
            Some(Ok(_)) => {}
            Some(Err(e)) => return Err((1006, e.to_string())),
        }
    }
}

pub async fn say(socket: &mut Socket, message: Value) {
    socket.send(Message::Text(message.to_string().into())).await.unwrap();
}

/// Attaches and answers the hello with no commands.
pub async fn attach_ready(server: &TestServer, robot: &str, token: &str) -> Socket {
    let mut socket = attach(server, robot, token).await.unwrap_or_else(|e| panic!("refused: {e:?}"));
    let hello = next(&mut socket).await.unwrap();
    assert_eq!(hello["type"], "hello", "{hello}");
    say(&mut socket, json!({"type": "ready", "version": 1, "commands": {}})).await;
    socket
}

pub async fn report(server: &TestServer, robot: &str) -> Value {
    let url = server.url(&format!("/api/labs/demo/robots/{robot}"));
    server.http.get(url).bearer_auth(TOKEN).send().await.unwrap().json().await.unwrap()
}

/// The robot's console lines, oldest first.
pub fn console(report: &Value) -> Vec<String> {
    report["console"].as_array().unwrap().iter().map(|l| l["text"].as_str().unwrap().to_owned()).collect()
}

/// Waits until robot `robot`'s report satisfies `accept`, which it returns.
pub async fn report_where(server: &TestServer, robot: &str, accept: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let now = report(server, robot).await;
        if accept(&now) {
            return now;
        }
        assert!(Instant::now() < deadline, "robot {robot}'s report never changed as expected: {now}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
