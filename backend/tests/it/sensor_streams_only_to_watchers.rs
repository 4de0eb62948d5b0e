//! Sensor data costs only the pages that look at it: a robot with a 720-beam lidar
//! sends its reports (thousands of bytes, ten times a second) to the page that watches
//! it, and nothing of them to a page in the same lab that does not; a page that stops
//! watching stops receiving. Counted in bytes on the wire.

use crate::common;

use std::time::Duration;

use common::{Client, Received, TestServer};
use tokio_tungstenite::tungstenite::Message;
use vlab_protocol::ClientMsg;
use vlab_server::scene::{MapLoader, Options, interpret};

const LAB: &str = r#"
    environment wallrect { width 12; length 12; height 0.5; gravity -9.81; }
    robot scanner {
      body { static chassis { shape box(0.4, 0.2, 0.3); pos(6, 0.3, 6);
        Lidar lidar { beams 720; fov 6.2832; rate 10; } } }
    }
"#;

/// Bytes of text messages (JSON) a page receives in `window`, and how many of them are
/// reports of robot `scanner`.
async fn text_bytes(client: &mut Client, window: Duration) -> (usize, usize) {
    let (mut bytes, mut reports) = (0, 0);
    let deadline = tokio::time::Instant::now() + window;
    loop {
        let now = tokio::time::Instant::now();
        if now >= deadline {
            return (bytes, reports);
        }
        let next = tokio::time::timeout(deadline - now, futures_util::StreamExt::next(&mut client.socket)).await;
        match next {
            Ok(Some(Ok(Message::Text(text)))) => {
                bytes += text.len();
                if text.starts_with(r#"{"type":"robot""#) && text.contains(r#""name":"scanner""#) {
                    reports += 1;
                }
            }
            Ok(Some(Ok(_))) => {}
            Ok(other) => panic!("the socket ended: {other:?}"),
            Err(_) => return (bytes, reports),
        }
    }
}

#[tokio::test]
async fn a_big_lidar_costs_nothing_to_a_page_that_does_not_watch_it() {
    let scene = interpret(LAB, "lab.vlab", &MapLoader::new(), &Options::default()).unwrap().model;
    let server = TestServer::start_with(scene, true).await;
    let mut watching = server.connect("demo", None).await;
    let mut other = server.connect("demo", None).await;
    watching.join_sequence().await;
    other.join_sequence().await;
    watching.send(&ClientMsg::Subscribe { robot: "scanner".into() }).await;
    // The first report: 720 ranges measured and 720 true.
    let first = watching
        .until(|received| match received {
            Received::Json(vlab_protocol::ServerMsg::Robot(report)) => Some(report.clone()),
            _ => None,
        })
        .await;
    let Some(vlab_protocol::SensorValue::Scan { ranges, .. }) = &first.sensors[0].measured else {
        panic!("a scan: {first:?}")
    };
    assert_eq!(ranges.len(), 720);

    let window = Duration::from_secs(2);
    let ((watched_bytes, watched_reports), (other_bytes, other_reports)) =
        tokio::join!(text_bytes(&mut watching, window), text_bytes(&mut other, window));
    eprintln!(
        "in {window:?}: the watching page got {watched_bytes} bytes of JSON ({watched_reports} reports), \
         the other {other_bytes} bytes ({other_reports} reports)"
    );
    assert!(watched_reports >= 5, "about ten reports a second: {watched_reports}");
    assert!(watched_bytes > watched_reports * 720 * 2 * 3, "each carries two scans: {watched_bytes}");
    assert_eq!(other_reports, 0, "the page that does not watch gets no report");
    assert!(other_bytes < 2_000, "and next to no text at all: {other_bytes} bytes");

    // Unsubscribing stops the stream.
    watching.send(&ClientMsg::Unsubscribe { robot: "scanner".into() }).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (_, after) = text_bytes(&mut watching, window).await;
    assert_eq!(after, 0, "no report after unsubscribing");
}
