//! Regression: a remote controller that never read its socket kept each connection
//! open for ever once the lab detached it (~170 KB each, the server's task blocked in a
//! send with no write timeout), holding one of its address's connection slots. Now a
//! message that cannot go out within `CONTROLLER_SEND_TIMEOUT` drops the connection: the server
//! forgets it while the client still has not read a byte.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use futures_util::SinkExt;
use reqwest::multipart::{Form, Part};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::{MaybeTlsStream, client_async};
use vlab_protocol::ControlAction;
use vlab_server::net::CONTROLLER_SEND_TIMEOUT;
use vlab_server::net::Limits;

use super::controllers::report_where;
use crate::common::{PATIENCE, TOKEN, TestServer};

/// A robot standing still above the demo yard's corner with the largest camera a scene
/// may have: one step with an image is about 310 KB of JSON.
const ROBOT: &str = r#"
robot eyebot {
  body {
    static chassis { shape box(0.4, 0.2, 0.3); pos(11, 1.5, 11);
      Camera eye { width 320; height 240; rate 2.5; } }
  }
}
"#;

/// The hostile client's own address: the test's HTTP requests come from 127.0.0.1.
const HOSTILE: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));

#[tokio::test]
async fn a_controller_that_never_reads_is_dropped_and_its_connection_slot_freed() {
    let limits = Limits { max_connections_per_address: 1, ..Limits::default() };
    let server = TestServer::start_with_limits(false, limits).await;
    let form = Form::new().part("description", Part::text(ROBOT).file_name("robot.vlab"));
    let url = server.url("/api/labs/demo/robots");
    let response = server.http.post(url).bearer_auth(TOKEN).multipart(form).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200, "{}", response.text().await.unwrap());

    // Attaches from its own address with a tiny receive buffer, says it is ready and
    // never reads anything.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(HOSTILE, 0)).unwrap();
    socket.set_recv_buffer_size(2048).unwrap();
    let stream = socket.connect(server.addr).await.unwrap();
    let mut request = format!("ws://{}/ws/labs/demo/robots/eyebot/control", server.addr).into_client_request().unwrap();
    request.headers_mut().insert("Authorization", format!("Bearer {TOKEN}").parse().unwrap());
    let (mut hostile, _) = client_async(request, MaybeTlsStream::Plain(stream)).await.unwrap();
    let ready = r#"{"type":"ready","version":1,"commands":{}}"#;
    hostile.send(Message::Text(ready.into())).await.unwrap();
    report_where(&server, "eyebot", |r| r["program"]["state"] == "running").await;

    // Its address's one slot is taken.
    assert!(server.try_connect_from(HOSTILE, "demo").await.is_err(), "the slot is the controller's");

    // The lab runs: a step with an image fills the socket, nothing answers, and the
    // lab lets the controller go after its 2 s of silence.
    server.control("demo", ControlAction::Resume).await;
    report_where(&server, "eyebot", |r| r["program"]["state"] == "none").await;

    // Within the send timeout the server drops the connection: the slot is free, while
    // the client has still not read a byte.
    let deadline = Instant::now() + CONTROLLER_SEND_TIMEOUT + PATIENCE;
    loop {
        if server.try_connect_from(HOSTILE, "demo").await.is_ok() {
            break;
        }
        assert!(Instant::now() < deadline, "the connection that never reads is still held");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    drop(hostile);
    server.control("demo", ControlAction::Pause).await;
}
