//! A student opened two exports of her own robot and never read them: both of the
//! server's export slots were held for 600 s, so every instructor of every lab got 503
//! for 10 minutes (repeatable, and each 503 logged at ERROR).
//!
//! Now exports are counted per caller (one at a time), per lab's students (two
//! together, the instructor's own slot on top) and on the whole server (eight), and a
//! client that takes less than a block (64 KiB) within the read window loses its export
//! and its slot: the student holds her own slot only, her second export is refused with
//! 429 and `Retry-After`, the instructors of her lab and of another export at once, and
//! an export left unread is ended.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use vlab_protocol::ControlAction;
use vlab_server::classroom::export::ExportLimits;
use vlab_server::classroom::{Classroom, ClassroomConfig};
use vlab_server::lab::{LabConfig, LabHandle};
use vlab_server::scene::demo_scene;
use vlab_server::secret::TokenDigest;

use crate::common::{PATIENCE, TOKEN, TestServer};

/// A robot whose lidar (361 beams, 40 Hz) makes a CSV of about half a megabyte per
/// second of simulation: far more than the pipe, the socket buffers and the client's
/// window hold, so an export nobody reads waits on its client.
const ANAS_ROBOT: &str =
    "robot ana_bot { body { ana_body { shape box(0.3, 0.1, 0.2); pos(2, 0.15, 3); SimpleGPS gps; Lidar scan; } } }";
const ANAS_EXPORT: &str = "/api/labs/demo/robots/ana_bot/readings.csv";

/// Labs `demo` (code `DEMOCODE`) and `other`, paused, both of instructor `TOKEN`,
/// their exports within `exports`.
async fn two_labs(exports: ExportLimits) -> TestServer {
    let classroom = Classroom::new(ClassroomConfig {
        server_key: Some(TokenDigest::of(TOKEN)),
        exports,
        ..ClassroomConfig::default()
    });
    for id in ["demo", "other"] {
        classroom.registry.insert(
            LabHandle::open(LabConfig {
                id: id.into(),
                name: format!("Lab {id}"),
                scene: demo_scene(1),
                instructor: TokenDigest::of(TOKEN),
                start_running: false,
                seed: 1,
                join_code: format!("{}CODE", id.to_uppercase()),
                settings: Default::default(),
                students: vec![],
                programs: Default::default(),
                recording: classroom.recording_sink(),
                first_run: 1,
            })
            .unwrap(),
        );
    }
    TestServer::serve(classroom).await
}

/// Steps lab `lab` `steps` steps and waits until its recording keeps them.
async fn record(server: &TestServer, lab: &str, steps: u32) {
    let step = server.control(lab, ControlAction::Step { steps }).await.step;
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let (_, summary) = server.get_json(&format!("/api/labs/{lab}/recording")).await;
        if summary["last_step"].as_u64() >= Some(step) {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "lab {lab}'s recording never reached step {step}: {summary}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Ana joins lab `demo` with her lidar robot, and the lab records 10 s of it; her token.
async fn ana_with_a_recorded_robot(server: &TestServer) -> String {
    let ana = server.join_demo("Ana").await;
    let (status, body) = server.add_demo_robots(&ana, ANAS_ROBOT.into()).await;
    assert_eq!(status, 200, "{body}");
    record(server, "demo", 2_400).await;
    ana
}

/// An export opened by a client that reads its answer's head and then nothing more,
/// through a tiny receive buffer; its status.
async fn open_and_never_read(server: &TestServer, path: &str, token: &str) -> (u16, TcpStream) {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(2048).unwrap();
    let mut stream = socket.connect(server.addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: vlab\r\nAuthorization: Bearer {token}\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut byte = [0u8];
        let read = tokio::time::timeout(PATIENCE, stream.read(&mut byte)).await.expect("an answer").unwrap();
        assert_eq!(read, 1, "the answer's head ended early: {}", String::from_utf8_lossy(&head));
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head);
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).expect("a status line");
    (status, stream)
}

/// GETs `path` with `token` and reads the whole answer: status, `Retry-After`, body.
async fn get(server: &TestServer, path: &str, token: &str) -> (u16, Option<String>, Vec<u8>) {
    let response = server.http.get(server.url(path)).bearer_auth(token).send().await.unwrap();
    let status = response.status().as_u16();
    let retry = response.headers().get("retry-after").map(|v| v.to_str().unwrap().to_owned());
    (status, retry, response.bytes().await.unwrap().to_vec())
}

#[tokio::test]
async fn an_unread_export_holds_its_readers_slot_and_nobody_elses() {
    let server = two_labs(ExportLimits::default()).await;
    let ana = ana_with_a_recorded_robot(&server).await;
    record(&server, "other", 240).await;

    let (status, held) = open_and_never_read(&server, ANAS_EXPORT, &ana).await;
    assert_eq!(status, 200, "Ana's first export");
    // Her second, while the first waits on her: refused, with when to come back.
    for file in ["readings.csv", "recording.mcap"] {
        let (status, retry, body) = get(&server, &format!("/api/labs/demo/robots/ana_bot/{file}"), &ana).await;
        assert_eq!((status, retry.as_deref()), (429, Some("5")), "{}", String::from_utf8_lossy(&body));
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["error"]["code"], "too_many_requests");
        assert_eq!(
            body["error"]["message"],
            "you are already downloading an export of this lab's recording: let it finish (or cancel it), then try again"
        );
    }
    // The instructor of her lab and the instructor of another export at once, whole.
    for lab in ["demo", "other"] {
        for file in ["recording.csv", "recording.mcap"] {
            let (status, _, body) = get(&server, &format!("/api/labs/{lab}/{file}"), TOKEN).await;
            assert_eq!(status, 200, "the instructor's {file} of lab {lab}: {}", String::from_utf8_lossy(&body));
            assert!(!body.is_empty());
        }
    }
    let (status, _, _) = get(&server, ANAS_EXPORT, &ana).await;
    assert_eq!(status, 429, "Ana's third export, hers still held");

    // She goes away: her slot comes free, and her next export is whole.
    drop(held);
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let (status, _, body) = get(&server, ANAS_EXPORT, &ana).await;
        if status == 200 {
            assert!(body.len() > 1_000_000, "her robot's readings: {} bytes", body.len());
            break;
        }
        assert_eq!(status, 429);
        assert!(tokio::time::Instant::now() < deadline, "Ana's slot never came free after she left");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn an_export_read_below_the_minimum_rate_is_ended_and_frees_its_slot() {
    let window = Duration::from_millis(300);
    let server = two_labs(ExportLimits { read_window: window, ..ExportLimits::default() }).await;
    let ana = ana_with_a_recorded_robot(&server).await;

    let (status, mut stalled) = open_and_never_read(&server, ANAS_EXPORT, &ana).await;
    assert_eq!(status, 200);
    // Once her client has taken nothing for a window, her export is ended: the slot is
    // hers again for an export she reads.
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let (status, _, body) = get(&server, ANAS_EXPORT, &ana).await;
        if status == 200 {
            assert!(body.ends_with(b"\r\n") && body.len() > 1_000_000, "a whole export: {} bytes", body.len());
            break;
        }
        assert_eq!(status, 429, "{}", String::from_utf8_lossy(&body));
        assert!(tokio::time::Instant::now() < deadline, "the stalled export was never ended");
        tokio::time::sleep(window).await;
    }
    // What the stalled client gets when it reads at last: a body cut off (no last
    // chunk), never a short file that looks whole.
    let mut rest = Vec::new();
    tokio::time::timeout(PATIENCE, stalled.read_to_end(&mut rest))
        .await
        .expect("the stalled export's connection ends")
        .ok();
    assert!(!rest.ends_with(b"0\r\n\r\n"), "the cut export ends like a whole one ({} bytes)", rest.len());
}
