//! One viewer: a websocket on a lab, as a browser tab that only watches would keep it.
//! It reads every message, decodes every binary frame with a `vlab_protocol::FrameDecoder`
//! (as the browser app does: a frame may be written as changes from the one before)
//! and every text one as a `ServerMsg`, and counts what arrives inside the measured
//! window (see [`super::stats`] for the delay of a frame). Like a page, it says which
//! frames it drew (`drawn`, by the protocol's `DrawnFrames`: as often as the server asks)
//! once it has read everything that had arrived, as if it drew one picture then, so the
//! server paces it as it paces a page that draws at once; unless told to say it after
//! every read (as a page did before the server said how often) or never (a script).

use std::time::{Duration, Instant};

use futures_util::{FutureExt, SinkExt, StreamExt};
use tokio::sync::{Semaphore, mpsc, watch};
use tokio_tungstenite::connect_async_with_config;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use vlab_protocol::{ClientMsg, DrawnFrames, FrameDecoder, ServerMsg};

use super::stats::{ViewerReport, offset};

/// Longest wait for one websocket to open.
const CONNECT_PATIENCE: Duration = Duration::from_secs(30);
/// Bytes a viewer reads from its socket at a time: tungstenite zeroes this much of its
/// read buffer before every read, and its default (128 KiB) for every 200-byte frame
/// made the tool the machine's busiest process.
const READ_CHUNK_BYTES: usize = 4096;
/// Tries to open a websocket before the viewer gives up (a loaded server may refuse a
/// connection with 503 while its accept queue is full).
const CONNECT_TRIES: u32 = 5;

/// Where the run is, as every viewer sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Phase {
    /// Viewers connect; nothing is counted yet.
    Connecting,
    /// Count what arrives from `start` (inclusive) to `end` (exclusive).
    Window {
        /// Its start.
        start: Instant,
        /// Its end.
        end: Instant,
    },
    /// Close the websocket and report.
    Stop,
}

/// What a viewer needs to know of the run.
pub struct Watch {
    /// The viewer websocket's URL.
    pub url: String,
    /// The lab's real-time factor; `None` when it runs as fast as it can.
    pub rate: Option<f64>,
    /// The tool's clock origin: offsets are seconds since it.
    pub origin: Instant,
    /// Whether and how to say which frames were drawn (`drawn`).
    pub acknowledge: Acknowledge,
}

/// Whether and how a viewer says which frames it drew.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acknowledge {
    /// As a page does: counting its pictures, as often as the server asks.
    AsTold,
    /// After every read that brought a frame, without counting pictures.
    EveryRead,
    /// Never (a script): the server does not pace it.
    Never,
}

impl Acknowledge {
    /// How the report names it.
    pub fn describe(self) -> &'static str {
        match self {
            Acknowledge::AsTold => "acknowledging as told",
            Acknowledge::EveryRead => "acknowledging every read",
            Acknowledge::Never => "not acknowledging",
        }
    }
}

/// Opens the websocket (holding a `connecting` permit meanwhile, so that only so many
/// handshakes run at once), says on `connected` whether it opened, then reads until
/// the phase is [`Phase::Stop`]. The report counts the window only; `None` when the
/// websocket never opened (said on `connected`).
pub async fn watch(
    run: std::sync::Arc<Watch>,
    connecting: std::sync::Arc<Semaphore>,
    connected: mpsc::UnboundedSender<Result<(), String>>,
    mut phase: watch::Receiver<Phase>,
) -> Option<ViewerReport> {
    let report = ViewerReport::default();
    let permit = connecting.acquire().await;
    let mut socket = match open(&run.url).await {
        Ok(socket) => socket,
        Err(why) => {
            let _ = connected.send(Err(why));
            return None;
        }
    };
    drop(permit);
    let _ = connected.send(Ok(()));
    // The phase may have moved on while this viewer connected.
    let mut window = match *phase.borrow_and_update() {
        Phase::Window { start, end } => Some((start, end)),
        Phase::Connecting | Phase::Stop => None,
    };
    let mut reader = Reader { run: &run, decoder: FrameDecoder::new(), report, drawn: DrawnFrames::default() };
    loop {
        let message = tokio::select! {
            changed = phase.changed() => {
                match changed.map(|()| *phase.borrow_and_update()) {
                    Ok(Phase::Window { start, end }) => window = Some((start, end)),
                    Ok(Phase::Connecting) => {}
                    Ok(Phase::Stop) | Err(_) => break,
                }
                continue;
            }
            message = socket.next() => message,
        };
        if reader.take(message, window).is_break() {
            break;
        }
        // What arrived meanwhile is read before saying what was drawn, as a page draws
        // once for every message its event loop had queued.
        let mut ended = false;
        while let Some(message) = socket.next().now_or_never() {
            if reader.take(message, window).is_break() {
                ended = true;
                break;
            }
        }
        if ended {
            break;
        }
        let drawn = reader.drawn.drawn().and_then(|message| match (run.acknowledge, message) {
            (Acknowledge::Never, _) => None,
            (Acknowledge::EveryRead, ClientMsg::Drawn { step, .. }) => Some(ClientMsg::Drawn { step, pictures: None }),
            (_, message) => Some(message),
        });
        if let Some(drawn) = drawn {
            let drawn = serde_json::to_string(&drawn).expect("client messages serialise");
            if let Err(e) = socket.send(Message::text(drawn)).await {
                reader.report.ended_early = Some(format!("the websocket failed: {e}"));
                break;
            }
            if window.is_some_and(|(start, end)| (start..end).contains(&Instant::now())) {
                reader.report.drawn_sent += 1;
            }
        }
    }
    let report = reader.report;
    // Politely, but a busy server does not hold the report back.
    let _ = tokio::time::timeout(Duration::from_secs(2), socket.close(None)).await;
    Some(report)
}

/// Opens a websocket on `url`, as a page that just connected, and waits up to
/// `patience` for the lab to move: two decoded frames of different steps (one alone
/// may be the last picture of a lab that stands still). The later frame's step.
pub async fn moving_frames(url: &str, patience: Duration) -> Result<u64, String> {
    let watch = async {
        let config = WebSocketConfig::default().read_buffer_size(READ_CHUNK_BYTES);
        let (mut socket, _) =
            connect_async_with_config(url, Some(config), true).await.map_err(|e| format!("could not connect: {e}"))?;
        let (mut decoder, mut first) = (FrameDecoder::new(), None);
        while let Some(message) = socket.next().await {
            match message.map_err(|e| format!("the websocket failed: {e}"))? {
                Message::Binary(bytes) => match (decoder.decode(&bytes), first) {
                    (Ok(frame), Some(step)) if frame.step != step => return Ok(frame.step),
                    (Ok(frame), _) => {
                        first = Some(frame.step);
                        // Drawn at once, as a page would: the server sends a page
                        // only so many frames it has not drawn.
                        let drawn = ClientMsg::Drawn { step: frame.step, pictures: None };
                        let drawn = serde_json::to_string(&drawn).expect("client messages serialise");
                        socket.send(Message::text(drawn)).await.map_err(|e| format!("the websocket failed: {e}"))?;
                    }
                    (Err(_), _) => {}
                },
                // Wheels come as their joint coordinate, placed by the snapshot's links.
                Message::Text(text) => {
                    if let Ok(ServerMsg::Snapshot(snapshot)) = serde_json::from_str(text.as_str()) {
                        decoder.set_links(&snapshot.links).map_err(|e| format!("the snapshot's links: {e:?}"))?;
                    }
                }
                Message::Close(close) => return Err(format!("closed ({close:?})")),
                _ => {}
            }
        }
        Err("the server ended the websocket".to_owned())
    };
    tokio::time::timeout(patience, watch).await.unwrap_or_else(|_| Err(format!("no moving frames within {patience:?}")))
}

/// What a viewer has read so far.
struct Reader<'a> {
    run: &'a Watch,
    decoder: FrameDecoder,
    report: ViewerReport,
    /// The frames decoded since the viewer last said what it drew, and how often the
    /// server asked it to.
    drawn: DrawnFrames,
}

impl Reader<'_> {
    /// Counts one message (`None`: the socket ended) if it arrived inside `window`;
    /// breaks when the websocket ended.
    fn take(
        &mut self,
        message: Option<Result<Message, tokio_tungstenite::tungstenite::Error>>,
        window: Option<(Instant, Instant)>,
    ) -> std::ops::ControlFlow<()> {
        let arrival = Instant::now();
        let counted = window.is_some_and(|(start, end)| arrival >= start && arrival < end);
        let report = &mut self.report;
        let message = match message {
            Some(Ok(message)) => message,
            Some(Err(e)) => {
                report.ended_early = Some(format!("the websocket failed: {e}"));
                return std::ops::ControlFlow::Break(());
            }
            None => {
                report.ended_early = Some("the server ended the websocket".into());
                return std::ops::ControlFlow::Break(());
            }
        };
        if counted {
            report.bytes += message.len() as u64;
        }
        match message {
            Message::Binary(bytes) => match self.decoder.decode(&bytes) {
                Ok(frame) => {
                    self.drawn.received(frame.step);
                    if counted {
                        report.frames += 1;
                        report.poses += frame.poses.len() as u64;
                        if let Some(rate) = self.run.rate {
                            let arrival_secs = arrival.duration_since(self.run.origin).as_secs_f64();
                            report.offsets.push((frame.epoch, offset(arrival_secs, frame.time, rate)));
                        }
                    }
                }
                Err(_) => report.decode_errors += u64::from(counted),
            },
            Message::Text(text) => {
                report.texts += u64::from(counted);
                match serde_json::from_str::<ServerMsg>(text.as_str()) {
                    Ok(ServerMsg::Snapshot(snapshot)) => {
                        report.snapshots += 1;
                        // Wheels come as their joint coordinate, placed by the snapshot's links.
                        if self.decoder.set_links(&snapshot.links).is_err() {
                            report.unreadable_texts += 1;
                        }
                    }
                    Ok(ServerMsg::Error(_)) => report.server_errors += 1,
                    Ok(ServerMsg::Pacing { drawn_every }) => self.drawn.pacing(drawn_every),
                    Ok(_) => {}
                    Err(_) => report.unreadable_texts += 1,
                }
            }
            Message::Close(frame) => {
                report.ended_early = Some(format!("the server closed the websocket: {frame:?}"));
                return std::ops::ControlFlow::Break(());
            }
            Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => {}
        }
        std::ops::ControlFlow::Continue(())
    }
}

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Opens the websocket, trying again (after a second) when refused or slow.
async fn open(url: &str) -> Result<Socket, String> {
    let mut last = String::new();
    for _ in 0..CONNECT_TRIES {
        let config = WebSocketConfig::default().read_buffer_size(READ_CHUNK_BYTES);
        match tokio::time::timeout(CONNECT_PATIENCE, connect_async_with_config(url, Some(config), true)).await {
            Ok(Ok((socket, _))) => return Ok(socket),
            Ok(Err(e)) => last = format!("could not connect: {e}"),
            Err(_) => last = format!("the websocket did not open within {CONNECT_PATIENCE:?}"),
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    Err(last)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use futures_util::SinkExt;
    use vlab_protocol::{BodyId, BodyPose, Frame, LabMode, LabState, Rate};

    use super::*;

    fn frame(step: u64, x: f32) -> Frame {
        let pose =
            |id: u32, x: f32| BodyPose { id: BodyId(id), position: [x, 0.5, 0.1], rotation: [0.0, 0.0, 0.0, 1.0] };
        Frame { epoch: 1, step, time: step as f64 / 240.0, poses: vec![pose(0, x), pose(3, -x)] }
    }

    /// A stand-in server on one websocket: a state message, `frames` frames (the first
    /// without base, the others as changes from the one before, as the server writes
    /// them to a viewer that keeps up), a binary message that is no frame, a text that
    /// is no server message, then it closes.
    async fn serve_once(listener: tokio::net::TcpListener, frames: u64) {
        let (stream, _) = listener.accept().await.unwrap();
        let mut socket = tokio_tungstenite::accept_async(stream).await.unwrap();
        let state = LabState {
            mode: LabMode::Running,
            rate: Rate::RealTime(1.0),
            step: 0,
            time: 0.0,
            dt_secs: 1.0 / 240.0,
            epoch: 1,
        };
        let state = serde_json::to_string(&ServerMsg::State(state)).unwrap();
        socket.send(Message::text(state)).await.unwrap();
        let mut before: Option<Frame> = None;
        for i in 0..frames {
            let now = frame(4 * (i + 1), i as f32 * 0.01);
            let bytes = match &before {
                None => now.encode(),
                Some(base) => now.encode_after(base),
            };
            socket.send(Message::binary(bytes)).await.unwrap();
            before = Some(now);
        }
        socket.send(Message::binary(vec![0xff, 1, 2])).await.unwrap();
        socket.send(Message::text("{\"type\":\"no such message\"}")).await.unwrap();
        socket.close(None).await.unwrap();
    }

    #[tokio::test]
    async fn a_viewer_decodes_a_stream_of_frames_and_counts_what_it_cannot_read() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("ws://{}/ws/labs/demo", listener.local_addr().unwrap());
        let server = tokio::spawn(serve_once(listener, 25));
        let origin = Instant::now();
        let run = Arc::new(Watch { url, rate: Some(1.0), origin, acknowledge: Acknowledge::Never });
        // The window is open from the start, and long: the stream's end ends the viewer.
        let window = Phase::Window { start: origin, end: origin + Duration::from_secs(3600) };
        let (_phase_tx, phase_rx) = watch::channel(window);
        let (connected_tx, mut connected_rx) = mpsc::unbounded_channel();
        let report = super::watch(run, Arc::new(Semaphore::new(1)), connected_tx, phase_rx).await.unwrap();
        server.await.unwrap();
        assert_eq!(connected_rx.recv().await, Some(Ok(())));
        assert_eq!((report.frames, report.poses, report.decode_errors), (25, 50, 1), "{report:?}");
        assert_eq!((report.texts, report.unreadable_texts, report.server_errors, report.snapshots), (2, 1, 0, 0));
        assert_eq!(report.offsets.len(), 25);
        assert!(report.offsets.iter().all(|&(epoch, _)| epoch == 1));
        assert!(report.bytes > 25 * 10, "{report:?}");
        assert!(report.ended_early.is_some(), "the stand-in server closed the websocket");
    }

    #[tokio::test]
    async fn a_viewer_says_it_drew_the_newest_frame_it_read() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("ws://{}/ws/labs/demo", listener.local_addr().unwrap());
        let server = tokio::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            let mut socket = tokio_tungstenite::accept_async(stream).await.unwrap();
            let mut acknowledged = Vec::new();
            for round in 0..3u64 {
                // A few frames at once, each without base; then wait for `drawn`.
                for i in 0..3 {
                    let step = 10 * round + i;
                    socket.send(Message::binary(frame(step, step as f32).encode())).await.unwrap();
                }
                loop {
                    let Some(Ok(Message::Text(text))) = socket.next().await else { panic!("no drawn") };
                    let ClientMsg::Drawn { step, .. } = serde_json::from_str(text.as_str()).unwrap() else {
                        panic!("{text}")
                    };
                    acknowledged.push(step);
                    if step == 10 * round + 2 {
                        break;
                    }
                }
            }
            socket.close(None).await.unwrap();
            acknowledged
        });
        let origin = Instant::now();
        let run = Arc::new(Watch { url, rate: None, origin, acknowledge: Acknowledge::AsTold });
        let window = Phase::Window { start: origin, end: origin + Duration::from_secs(3600) };
        let (_phase_tx, phase_rx) = watch::channel(window);
        let (connected_tx, _connected_rx) = mpsc::unbounded_channel();
        let report = super::watch(run, Arc::new(Semaphore::new(1)), connected_tx, phase_rx).await.unwrap();
        let acknowledged = server.await.unwrap();
        assert_eq!(report.frames, 9, "{report:?}");
        // Each round ends with its newest frame drawn; steps only go forward.
        for newest in [2, 12, 22] {
            assert!(acknowledged.contains(&newest), "{acknowledged:?}");
        }
        assert!(acknowledged.windows(2).all(|w| w[0] < w[1]), "{acknowledged:?}");
    }

    #[tokio::test]
    async fn a_page_sees_a_lab_move_only_when_two_frames_differ() {
        // A lab that stands still: one frame, sent again (a late joiner's keyframe).
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("ws://{}/ws/labs/demo", listener.local_addr().unwrap());
        let still = tokio::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            let mut socket = tokio_tungstenite::accept_async(stream).await.unwrap();
            for _ in 0..2 {
                socket.send(Message::binary(frame(8, 0.0).encode())).await.unwrap();
            }
            // Held open (reading what the page says) until the page gives up.
            while socket.next().await.is_some() {}
        });
        let why = moving_frames(&url, Duration::from_millis(300)).await.unwrap_err();
        assert!(why.contains("no moving frames"), "{why}");
        still.abort();

        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("ws://{}/ws/labs/demo", listener.local_addr().unwrap());
        let moving = tokio::spawn(serve_once(listener, 3));
        assert_eq!(moving_frames(&url, Duration::from_secs(30)).await, Ok(8), "the second frame's step");
        moving.await.unwrap();
    }

    #[tokio::test]
    async fn a_viewer_that_cannot_connect_says_so_and_reports_nothing() {
        // A port nobody listens on: bound, then let go.
        let addr = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
        let run = Arc::new(Watch {
            url: format!("ws://{addr}/ws/labs/demo"),
            rate: None,
            origin: Instant::now(),
            acknowledge: Acknowledge::AsTold,
        });
        let (_phase_tx, phase_rx) = watch::channel(Phase::Connecting);
        let (connected_tx, mut connected_rx) = mpsc::unbounded_channel();
        let report = super::watch(run, Arc::new(Semaphore::new(1)), connected_tx, phase_rx).await;
        assert_eq!(report, None);
        assert!(matches!(connected_rx.recv().await, Some(Err(why)) if why.contains("could not connect")));
    }
}
