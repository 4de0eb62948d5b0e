//! One websocket per browser tab: `/ws/labs/{lab}?protocol=N&token=T`.
//!
//! On connect: `Hello`, `Snapshot`, `State`, the keyframe; then frames (binary) and
//! events (JSON) as the lab produces them, while the client's messages are read
//! concurrently. A slow client only delays itself: its frames are merged in its mailbox
//! (see [`vlab_lab::hub`]) and its events resynchronised if it lags. A page that says
//! which frames it drew (`drawn`) is sent frames only as fast as it draws them. A page's
//! seeks are answered one at a time while the connection goes on, its newest waiting;
//! so are its placements (`ws_place`).

use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::response::Response;
use serde::Deserialize;
use tokio::sync::{broadcast, mpsc};
use vlab_protocol::{
    CLOSE_LAB_NOT_FOUND, CLOSE_PROTOCOL_MISMATCH, ClientMsg, ErrorBody, ErrorCode, MAX_CLIENT_TEXT_BYTES,
    PROTOCOL_VERSION, ServerMsg,
};

use super::limits::MAX_WEBSOCKET_MESSAGE_BYTES;
use super::peers::{self, Route};
use super::ws_place::{PagePlacements, Place};
use super::ws_wakes::{Sources, Wake, Wakes};
use super::{AppError, AppState};
use crate::classroom::{Classroom, ClassroomError, Seek};
use vlab_lab::hub::ViewerMailbox;
use vlab_lab::telemetry::Watcher;
use vlab_lab::{Caller, LabHandle};

/// The handshake parameters of the websocket URL.
#[derive(Deserialize)]
pub struct Handshake {
    protocol: Option<String>,
    token: Option<String>,
}

/// `GET /ws/labs/{lab}`: upgrades, then checks the handshake over the socket so that
/// a browser (which cannot read a refused upgrade) gets a readable reason.
pub async fn upgrade(
    ws: WebSocketUpgrade,
    State(app): State<Arc<AppState>>,
    Path(lab): Path<String>,
    Query(handshake): Query<Handshake>,
) -> Response {
    // Both caps: a message is refused past its size, and a single frame is refused from
    // its header, before its payload is buffered (a 16 MB frame costs nothing).
    ws.max_message_size(MAX_WEBSOCKET_MESSAGE_BYTES)
        .max_frame_size(MAX_WEBSOCKET_MESSAGE_BYTES)
        .read_buffer_size(READ_CHUNK_BYTES)
        .on_upgrade(move |socket| session(socket, app, lab, handshake))
}

async fn session(mut socket: WebSocket, app: Arc<AppState>, lab_id: String, handshake: Handshake) {
    let spoken = handshake.protocol.as_deref().and_then(|p| p.trim().parse::<u32>().ok());
    if spoken != Some(PROTOCOL_VERSION) {
        let theirs = handshake.protocol.as_deref().unwrap_or("none");
        let message = format!(
            "this server speaks VLab protocol {PROTOCOL_VERSION}, the client speaks {theirs}: reload the page (or update the client)"
        );
        refuse(socket, ErrorCode::ProtocolMismatch, message, CLOSE_PROTOCOL_MISMATCH).await;
        return;
    }
    let Some(lab) = app.classroom.registry.get(&lab_id) else {
        if let Some(peers) = &app.peers {
            match peers.route(&lab_id).await {
                Ok(Route::Owner(owner)) => {
                    return peers::edge::watch(socket, peers, &owner, &lab_id, handshake.token.as_deref()).await;
                }
                Ok(Route::Here) if app.classroom.labs().is_kept(&lab_id) => {
                    let moving = AppError::from(peers::PeerError::Moving);
                    let close =
                        CloseFrame { code: CLOSE_MOVED, reason: Utf8Bytes::from("the lab is moving: connect again") };
                    let _ = send_json(&mut socket, &error_of(&moving)).await;
                    let _ = socket.send(Message::Close(Some(close))).await;
                    return;
                }
                Ok(Route::Here) => {}
                Err(error) => {
                    let close = CloseFrame { code: CLOSE_MOVED, reason: Utf8Bytes::from("try again") };
                    let _ = send_json(&mut socket, &error_of(&AppError::from(error))).await;
                    let _ = socket.send(Message::Close(Some(close))).await;
                    return;
                }
            }
        }
        refuse(socket, ErrorCode::NotFound, format!("no lab '{lab_id}' on this server"), CLOSE_LAB_NOT_FOUND).await;
        return;
    };
    let caller = match app.classroom.caller(&lab, handshake.token.as_deref()) {
        Ok(caller) => caller,
        Err(_) => {
            let notice =
                error(ErrorCode::Unauthorized, "this link's token is not valid in this lab: watching as a viewer");
            if send_json(&mut socket, &notice).await.is_err() {
                return;
            }
            Caller::Viewer
        }
    };
    run_session(socket, &app.classroom, &lab, caller, Frames::Here).await;
}

/// Where a connection's messages go and come from: a page's websocket, or a page on
/// another server of a cluster, through that server (`tunnel`).
pub trait PageLink: Send {
    /// Sends one message to the page.
    fn send(&mut self, message: Message) -> impl Future<Output = Result<(), String>> + Send;
    /// The page's next message; `None` once it has gone. Cancel-safe: a read cut short
    /// loses nothing (the loop below drops it whenever another branch fires).
    fn recv(&mut self) -> impl Future<Output = Option<Result<Message, String>>> + Send;
}

impl PageLink for WebSocket {
    async fn send(&mut self, message: Message) -> Result<(), String> {
        WebSocket::send(self, message).await.map_err(|e| e.to_string())
    }

    async fn recv(&mut self) -> Option<Result<Message, String>> {
        WebSocket::recv(self).await.map(|read| read.map_err(|e| e.to_string()))
    }
}

/// Where a connection's frames, snapshots and the lab's events come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Frames {
    /// From the lab's hub, through this connection.
    Here,
    /// From the page's own server, which mirrors the lab (cluster mode): this
    /// connection carries only what is the page's own (replies, console, reports,
    /// camera images, seeks, placements), and the page's pacing stays on its server.
    Elsewhere,
}

/// A page on another server opens a session here with its token (cluster mode): the
/// same checks and greeting as a websocket, then [`serve`] without frames.
pub async fn serve_remote(mut link: impl PageLink, classroom: &Classroom, lab_id: &str, token: Option<&str>) {
    let Some(lab) = classroom.registry.get(lab_id) else {
        let refused = error(ErrorCode::NotFound, format!("no lab '{lab_id}' on this server"));
        let _ = link.send(json_message(&refused)).await;
        return;
    };
    let caller = match classroom.caller(&lab, token) {
        Ok(caller) => caller,
        Err(_) => {
            let notice =
                error(ErrorCode::Unauthorized, "this link's token is not valid in this lab: watching as a viewer");
            if link.send(json_message(&notice)).await.is_err() {
                return;
            }
            Caller::Viewer
        }
    };
    run_session(link, classroom, &lab, caller, Frames::Elsewhere).await;
}

/// A connection from its greeting to its end: it counts as present meanwhile, and the
/// keys it held are let go when it ends.
async fn run_session(link: impl PageLink, classroom: &Classroom, lab: &Arc<LabHandle>, caller: Caller, frames: Frames) {
    tracing::info!(lab = %lab.id(), ?caller, ?frames, "viewer connected");
    lab.people().connected(caller);
    let mut driving = BTreeSet::new();
    if let Err(reason) = serve(link, classroom, lab, caller, &mut driving, frames).await {
        tracing::debug!(lab = %lab.id(), %reason, "viewer connection ended");
    }
    // A page that goes away lets go of the keys it held: a robot must not drive on
    // because its owner closed the tab with a key down.
    for robot in driving {
        let _ = lab.robots().set_keys(&robot, Vec::new()).await;
    }
    lab.people().disconnected(caller);
    tracing::info!(lab = %lab.id(), "viewer disconnected");
}

/// The connection's main loop; returns why it ended. A student the instructor removes
/// is told (an `Unauthorized` error) and goes on watching as a viewer.
async fn serve(
    mut socket: impl PageLink,
    classroom: &Classroom,
    lab: &Arc<LabHandle>,
    mut caller: Caller,
    driving: &mut BTreeSet<String>,
    frames: Frames,
) -> Result<(), String> {
    // A page served elsewhere is not a viewer of this hub: its frames are merged and
    // paced by its own server, once for all its viewers.
    let subscription = (frames == Frames::Here).then(|| lab.viewers().subscribe());
    let hello = ServerMsg::Hello {
        protocol: PROTOCOL_VERSION,
        server_version: env!("CARGO_PKG_VERSION").into(),
        lab: lab.id().into(),
        lab_name: lab.name().into(),
        role: caller.role(),
        you: caller.user().and_then(|id| lab.people().participant(id)),
    };
    send(&mut socket, json_message(&hello)).await?;
    // Snapshot first, then the clock, then the poses: the order a client draws in.
    let pending = subscription.as_ref().map(|subscription| subscription.mailbox.take()).unwrap_or_default();
    if let Some(snapshot) = pending.snapshot {
        send(&mut socket, Message::Text(Utf8Bytes::from(snapshot.to_string()))).await?;
    }
    send(&mut socket, json_message(&ServerMsg::State(lab.clock().state()))).await?;
    if let Some(frame) = pending.frame {
        send(&mut socket, Message::Binary(frame.into_bytes())).await?;
    }
    send(&mut socket, json_message(&ServerMsg::Settings(lab.settings()))).await?;
    send(&mut socket, json_message(&ServerMsg::Presence { participants: lab.people().list() })).await?;
    // Subscribed before the summary is read, so no change falls between the two.
    let recording_updates = classroom.recordings().map(|r| r.updates());
    if let Ok(summary) = classroom.timeline().summary(lab) {
        send(&mut socket, json_message(&ServerMsg::Recording(summary))).await?;
    }

    let mut seeks = PageSeeks::new(classroom, lab);
    let mut placements = PagePlacements::new(classroom, lab);
    let mut telemetry = lab.viewers().telemetry();
    let mut camera = lab.viewers().camera_watcher();
    // Replies to this client's own requests, produced by tasks that may wait on the lab.
    let (replies_tx, replies) = mpsc::unbounded_channel::<ServerMsg>();
    // Everything else the loop waits for, each waited for once and kept across turns
    // (see `ws_wakes`); frames and the socket wake the loop far more often.
    let (mailbox, events) = match subscription {
        Some(subscription) => (Some(subscription.mailbox), Some(subscription.events)),
        None => (None, None),
    };
    let mut wakes = Wakes::new(Sources {
        events,
        recording: recording_updates,
        console: lab.programs().console(),
        replies,
        telemetry: telemetry.updates(),
        camera: camera.updates(),
        closed: lab.wait_closed(),
        removed: removed(lab, caller),
    });
    // The mailbox's wake-up too: made again only once it fired.
    let ready = ready_of(mailbox.as_deref());
    tokio::pin!(ready);
    loop {
        tokio::select! {
            reply = seeks.answered() => {
                send(&mut socket, json_message(&reply)).await?;
                seeks.next(caller);
            }
            reply = placements.answered() => {
                send(&mut socket, json_message(&reply)).await?;
                placements.next(caller);
            }
            Some(mailbox) = &mut ready => {
                ready.set(ready_of(Some(mailbox)));
                let pending = mailbox.take();
                if let Some(snapshot) = pending.snapshot {
                    send(&mut socket, Message::Text(Utf8Bytes::from(snapshot.to_string()))).await?;
                }
                if let Some(frame) = pending.frame {
                    send(&mut socket, Message::Binary(frame.into_bytes())).await?;
                }
            }
            Some(wake) = wakes.next() => match wake {
                Wake::Event(Ok(json)) => send(&mut socket, Message::Text(Utf8Bytes::from(json.to_string()))).await?,
                Wake::Event(Err(broadcast::error::RecvError::Lagged(_))) => {
                    send(&mut socket, json_message(&ServerMsg::State(lab.clock().state()))).await?;
                }
                Wake::Event(Err(broadcast::error::RecvError::Closed)) => {
                    let gone = error(ErrorCode::LabUnavailable, "this lab has been closed");
                    send(&mut socket, json_message(&gone)).await?;
                    return Ok(());
                }
                Wake::Reply(reply) => send(&mut socket, json_message(&reply)).await?,
                Wake::Recording(Ok((id, json))) if id == lab.id() => {
                    send(&mut socket, Message::Text(Utf8Bytes::from(json.to_string()))).await?;
                }
                // Another lab's; or a summary skipped, superseded by the next one; or no
                // more summaries.
                Wake::Recording(_) => {}
                Wake::Console(Ok(event)) if caller.may_read_console(event.owner) => {
                    send(&mut socket, Message::Text(Utf8Bytes::from(event.json.to_string()))).await?;
                }
                // Not this caller's robot; or lines skipped by a slow page, which can
                // read the console's latest lines again over HTTP.
                Wake::Console(Ok(_) | Err(broadcast::error::RecvError::Lagged(_))) => {}
                Wake::Console(Err(broadcast::error::RecvError::Closed)) => return Ok(()),
                Wake::Removed => {
                    let notice = error(ErrorCode::Unauthorized, REMOVED);
                    send(&mut socket, json_message(&notice)).await?;
                    // Their robots are gone with them, and the keys they held.
                    driving.clear();
                    caller = Caller::Viewer;
                }
                Wake::Closed if lab.handed_over() => {
                    // The lab runs on another server now: the page connects again and
                    // is served from there, without a word.
                    let moved = CloseFrame { code: CLOSE_MOVED, reason: Utf8Bytes::from("the lab moved: connect again") };
                    send(&mut socket, Message::Close(Some(moved))).await?;
                    return Ok(());
                }
                Wake::Closed => {
                    let gone = error(ErrorCode::LabUnavailable, "the instructor closed this lab");
                    send(&mut socket, json_message(&gone)).await?;
                    let close = CloseFrame { code: CLOSE_LAB_NOT_FOUND, reason: Utf8Bytes::from("lab closed") };
                    send(&mut socket, Message::Close(Some(close))).await?;
                    return Ok(());
                }
                Wake::Camera => {
                    if let Some(image) = camera.newest() {
                        send(&mut socket, Message::Binary(image)).await?;
                    }
                }
                Wake::Telemetry => {
                    let shared = lab.settings().share_beliefs;
                    for report in telemetry.latest(|owner| caller.may_see_belief(owner, shared)) {
                        send(&mut socket, Message::Text(Utf8Bytes::from(report.to_string()))).await?;
                    }
                }
            },
            // The socket is read and written by this loop alone, not split in two halves
            // (which take a shared lock at every poll): `select!` drops this pending read
            // before any branch writes, and a read cut short loses nothing.
            incoming = socket.recv() => match incoming {
                None => return Ok(()),
                Some(Err(e)) => return Err(e.to_string()),
                Some(Ok(Message::Close(_))) => return Ok(()),
                Some(Ok(Message::Text(text))) => {
                    match handle_client_text(text.as_str(), classroom, lab, caller, &mut telemetry, driving, &replies_tx) {
                        Handled::Reply(reply) => send(&mut socket, json_message(&reply)).await?,
                        Handled::Done => {}
                        Handled::Seek(seek) => seeks.ask(seek, caller),
                        Handled::Place(place) => {
                            if let Some(displaced) = placements.ask(place, caller) {
                                send(&mut socket, json_message(&displaced)).await?;
                            }
                        }
                        // Pacing and resyncs are the page's own server's, which holds
                        // its mailbox.
                        Handled::Live => if let Some(mailbox) = &mailbox {
                            lab.viewers().resync(mailbox);
                        },
                        Handled::Drawn { step, pictures } => {
                            if let Some(drawn_every) = mailbox.as_ref().and_then(|mailbox| mailbox.drawn(step, pictures)) {
                                send(&mut socket, json_message(&ServerMsg::Pacing { drawn_every })).await?;
                            }
                        }
                        Handled::Camera(Some((robot, sensor))) => {
                            camera.watch(&robot, &sensor);
                            // Its image so far, at once; newer ones as they come.
                            if let Some(image) = camera.newest() {
                                send(&mut socket, Message::Binary(image)).await?;
                            }
                        }
                        Handled::Camera(None) => camera.unwatch(),
                    }
                }
                Some(Ok(Message::Binary(_))) => {
                    let reply = error(ErrorCode::BadRequest, "binary messages are not accepted from clients; send JSON text");
                    send(&mut socket, json_message(&reply)).await?;
                }
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
            },
        }
    }
}

/// Bytes the websocket reads from its socket at a time. Tungstenite zeroes this much of
/// its read buffer before every read, and reads twice per client message (the message,
/// then the read that finds nothing more): the default, 128 KiB, made each 50-byte
/// `drawn` cost two 128 KiB memsets (a third of the server's CPU with 1,000 pages), and
/// 4 KiB still 2.5 % of it with 300. Client messages are small (a `drawn`, a key, a
/// seek); a larger one (at most `MAX_WEBSOCKET_MESSAGE_BYTES`) takes a few more reads.
const READ_CHUNK_BYTES: usize = 512;

/// A page's seeks are answered at most this often.
const SEEK_INTERVAL: Duration = Duration::from_millis(50);

/// The answer to a seek, in the making.
type Answering<'a> = Pin<Box<dyn Future<Output = ServerMsg> + Send + 'a>>;

/// One page's seeks: at most one being answered, and the newest of those that came
/// meanwhile waiting its turn (an older one waiting is dropped: the page wants where
/// its thumb is now, not where it was). So a page dragging fast, or a client sending
/// seeks in a loop, costs the server one answer at a time, and the connection goes on
/// with its frames and messages while the answer is made.
struct PageSeeks<'a> {
    classroom: &'a Classroom,
    lab: &'a Arc<LabHandle>,
    answering: Option<Answering<'a>>,
    waiting: Option<Seek>,
    /// When the latest answer began to be made.
    last: Instant,
}

impl<'a> PageSeeks<'a> {
    fn new(classroom: &'a Classroom, lab: &'a Arc<LabHandle>) -> PageSeeks<'a> {
        PageSeeks { classroom, lab, answering: None, waiting: None, last: Instant::now() - SEEK_INTERVAL }
    }

    /// The page asks for `seek`: answered now if nothing is, else it waits (in place of
    /// any older one waiting).
    fn ask(&mut self, seek: Seek, caller: Caller) {
        if self.answering.is_some() {
            self.waiting = Some(seek);
        } else {
            self.start(seek, caller);
        }
    }

    /// After an answer: the seek waiting, if any, is answered next.
    fn next(&mut self, caller: Caller) {
        if let Some(seek) = self.waiting.take() {
            self.start(seek, caller);
        }
    }

    fn start(&mut self, seek: Seek, caller: Caller) {
        // One page seeks at most this often, however fast it drags.
        let at = Instant::now().max(self.last + SEEK_INTERVAL);
        self.last = at;
        let (classroom, lab) = (self.classroom, self.lab);
        self.answering = Some(Box::pin(async move {
            tokio::time::sleep_until(at.into()).await;
            match classroom.timeline().seek(lab, caller, seek).await {
                Ok(moment) => ServerMsg::Moment(Box::new(moment)),
                Err(refused) => refusal(refused),
            }
        }));
    }

    /// The answer being made, once made; never while none is.
    async fn answered(&mut self) -> ServerMsg {
        let Some(answering) = self.answering.as_mut() else {
            return std::future::pending().await;
        };
        let reply = answering.await;
        self.answering = None;
        reply
    }
}

/// What a client's message asks of the connection's loop.
enum Handled {
    /// Send this now.
    Reply(Box<ServerMsg>),
    /// Nothing to send now.
    Done,
    /// Show a recorded moment.
    Seek(Seek),
    /// Put a thing somewhere.
    Place(Place),
    /// Back to the live lab.
    Live,
    /// The page drew the frames up to one of this step, in this many pictures when it
    /// counts them: its next frames may go.
    Drawn { step: u64, pictures: Option<u32> },
    /// Watch this camera (robot, sensor) from now on, or none.
    Camera(Option<(String, String)>),
}

impl Handled {
    fn reply(message: ServerMsg) -> Handled {
        Handled::Reply(Box::new(message))
    }
}

/// What a removed student's pages are told.
const REMOVED: &str = "the instructor removed you from this lab: your session has ended and your robots were \
     taken out; you are watching as a viewer (join again with the lab's code if your instructor lets you)";

/// Resolves when `caller`, a student, is removed from the lab; never for anybody else.
async fn removed(lab: &LabHandle, caller: Caller) {
    match caller {
        Caller::Student(id) => lab.people().wait_removed(id).await,
        Caller::Instructor | Caller::Viewer => std::future::pending().await,
    }
}

/// Reads one client message. Answers at once with an error or a pong; what waits on
/// the lab runs in its own task (a `step N` may take a while) and replies through
/// `replies` only if it fails: its effect reaches everybody as an event.
fn handle_client_text(
    text: &str,
    classroom: &Classroom,
    lab: &Arc<LabHandle>,
    caller: Caller,
    telemetry: &mut Watcher,
    driving: &mut BTreeSet<String>,
    replies: &mpsc::UnboundedSender<ServerMsg>,
) -> Handled {
    if text.len() > MAX_CLIENT_TEXT_BYTES {
        return Handled::reply(error(
            ErrorCode::BadRequest,
            format!("message of {} bytes refused: the limit is {MAX_CLIENT_TEXT_BYTES}", text.len()),
        ));
    }
    let message: ClientMsg = match serde_json::from_str(text) {
        Ok(message) => message,
        Err(e) => return Handled::reply(error(ErrorCode::BadRequest, format!("unreadable message: {e}"))),
    };
    match message {
        ClientMsg::Ping { nonce } => Handled::reply(ServerMsg::Pong { nonce }),
        ClientMsg::Seek { run, step, epoch, robots } => Handled::Seek(Seek { run, step, epoch, robots }),
        ClientMsg::Live => Handled::Live,
        ClientMsg::Place { id, name, position, heading } => Handled::Place(Place { id, name, position, heading }),
        ClientMsg::Drawn { step, pictures } => Handled::Drawn { step, pictures },
        ClientMsg::Subscribe { robot } => {
            if let Err(refused) = classroom.robots().may_watch(lab, caller, &robot) {
                return Handled::reply(refusal(refused));
            }
            if let Err(e) = telemetry.watch(&robot) {
                return Handled::reply(error(ErrorCode::InvalidArgument, e.to_string()));
            }
            // The first report now, not at the next publication (a paused lab has none).
            let (lab, replies) = (Arc::clone(lab), replies.clone());
            tokio::spawn(async move {
                let reply = match lab.robots().report(&robot).await {
                    Ok(report) => ServerMsg::Robot(report),
                    Err(e) => refusal(e),
                };
                let _ = replies.send(reply);
            });
            Handled::Done
        }
        ClientMsg::Unsubscribe { robot } => {
            telemetry.unwatch(&robot);
            Handled::Done
        }
        ClientMsg::WatchCamera { robot, sensor } => match classroom.robots().may_watch(lab, caller, &robot) {
            Ok(()) => Handled::Camera(Some((robot, sensor))),
            Err(refused) => Handled::reply(refusal(refused)),
        },
        ClientMsg::UnwatchCamera => Handled::Camera(None),
        ClientMsg::Keys { robot, keys } => {
            let releasing = keys.is_empty();
            // Queued here, in the order the page sent them; only the outcome is awaited
            // elsewhere.
            let answer = match classroom.robots().queue_keys(lab, caller, &robot, keys) {
                Ok(answer) => answer,
                Err(refused) => return Handled::reply(refusal(refused)),
            };
            if releasing {
                driving.remove(&robot);
            } else {
                driving.insert(robot.clone());
            }
            let (lab, replies) = (Arc::clone(lab), replies.clone());
            tokio::spawn(async move {
                if let Err(e) = lab.robots().keys_outcome(&robot, answer).await {
                    let _ = replies.send(refusal(e));
                }
            });
            Handled::Done
        }
        ClientMsg::Control { command } => {
            // Queued at once, so one page's commands reach the lab in the order sent.
            let answer = match classroom.clock().queue_control(lab, caller, command) {
                Ok(answer) => answer,
                Err(refused) => return Handled::reply(refusal(refused)),
            };
            let replies = replies.clone();
            tokio::spawn(async move {
                if answer.await.is_err() {
                    let _ = replies.send(error(ErrorCode::LabUnavailable, "the lab stopped"));
                }
            });
            Handled::Done
        }
    }
}

/// Close code for "connect again": the lab moved to another server of the cluster, or is
/// moving (RFC 6455's "service restart"). Pages reconnect after it.
pub const CLOSE_MOVED: u16 = 1012;

/// A refusal as the websocket says it: the same code and message as over HTTP.
fn refusal(refused: impl Into<ClassroomError>) -> ServerMsg {
    error_of(&AppError::from(refused.into()))
}

fn error_of(error: &AppError) -> ServerMsg {
    ServerMsg::Error(error.parts().1)
}

async fn refuse(mut socket: WebSocket, code: ErrorCode, message: String, close_code: u16) {
    tracing::info!(%message, "websocket refused");
    let _ = send_json(&mut socket, &error(code, message.clone())).await;
    let reason: String = message.chars().take(100).collect(); // close reasons are limited to 123 bytes
    let _ = socket.send(Message::Close(Some(CloseFrame { code: close_code, reason: Utf8Bytes::from(reason) }))).await;
}

fn error(code: ErrorCode, message: impl Into<String>) -> ServerMsg {
    ServerMsg::Error(ErrorBody::new(code, message))
}

fn json_message(message: &ServerMsg) -> Message {
    Message::Text(Utf8Bytes::from(serde_json::to_string(message).expect("server messages serialise")))
}

async fn send_json(socket: &mut WebSocket, message: &ServerMsg) -> Result<(), axum::Error> {
    socket.send(json_message(message)).await
}

async fn send(socket: &mut impl PageLink, message: Message) -> Result<(), String> {
    socket.send(message).await
}

/// Resolves, with the mailbox, when it has something to send; never without one.
async fn ready_of(mailbox: Option<&ViewerMailbox>) -> Option<&ViewerMailbox> {
    match mailbox {
        Some(mailbox) => {
            mailbox.ready().await;
            Some(mailbox)
        }
        None => std::future::pending().await,
    }
}
