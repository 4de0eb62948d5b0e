//! Symptom: 30 anonymous websockets each sending one 16 MB frame took the server from
//! 41 to 512 MB: the message cap was 64 KiB, but a whole frame was read into memory
//! before it was checked. A frame over the cap is now refused from its header: the
//! connection ends, nothing of it is buffered, and the lab serves everyone else.

use crate::common;

use common::TestServer;
use futures_util::{SinkExt, StreamExt};
use tokio::io::AsyncWriteExt;
use tokio_tungstenite::tungstenite::Message;
use vlab_protocol::{MAX_CLIENT_TEXT_BYTES, PROTOCOL_VERSION};

#[tokio::test]
async fn a_frame_over_the_cap_ends_its_connection_before_its_payload_is_read() {
    let server = TestServer::start(false).await;
    // A raw socket announces a 16 MB frame and sends only its header: a server that
    // waits for the payload before checking would hang here; one that checks the header
    // closes the connection at once.
    let mut client = server.connect("demo", None).await;
    client.join_sequence().await;
    let (mut stream, _) =
        tokio_tungstenite::connect_async(format!("ws://{}/ws/labs/demo?protocol={PROTOCOL_VERSION}", server.addr))
            .await
            .unwrap();
    let header = frame_header(16 * 1024 * 1024);
    let raw = stream.get_mut();
    let tokio_tungstenite::MaybeTlsStream::Plain(tcp) = raw else { panic!("plain TCP") };
    tcp.write_all(&header).await.unwrap();
    let ended = tokio::time::timeout(common::PATIENCE, async {
        while let Some(message) = stream.next().await {
            match message {
                Ok(Message::Close(_)) | Err(_) => return,
                Ok(_) => continue,
            }
        }
    })
    .await;
    assert!(ended.is_ok(), "the server waited for 16 MB it should never read");

    // A message at the cap is still read (and answered: it is not JSON).
    client.send_text(&"x".repeat(MAX_CLIENT_TEXT_BYTES)).await;
    let answered =
        client.until(|r| matches!(r, common::Received::Json(vlab_protocol::ServerMsg::Error(_))).then_some(())).await;
    let () = answered;
    // Everybody else goes on.
    client.socket.send(Message::text(r#"{"type":"ping","nonce":7}"#)).await.unwrap();
    client
        .until(|r| matches!(r, common::Received::Json(vlab_protocol::ServerMsg::Pong { nonce: 7 })).then_some(()))
        .await;
}

/// The header of a masked client text frame announcing `len` payload bytes.
fn frame_header(len: u64) -> Vec<u8> {
    let mut header = vec![0x81, 0x80 | 127];
    header.extend_from_slice(&len.to_be_bytes());
    header.extend_from_slice(&[1, 2, 3, 4]); // the mask key
    header
}
