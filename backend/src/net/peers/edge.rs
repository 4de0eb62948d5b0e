//! The page's server's side: a request for a lab another server runs is carried there
//! ([`elsewhere`]), and a page watching such a lab is served from this server's mirror
//! of it, with what is its own carried through a tunnel ([`watch`]).

use std::sync::Arc;
use std::time::Duration;

use async_nats::HeaderMap;
use axum::body::Body;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde_json::Value;
use tokio::sync::broadcast;
use vlab_protocol::{ClientMsg, ServerMsg};

use super::owner::{LAB, TOKEN, TUNNEL};
use super::tunnel::Tunnel;
use super::{FORWARD_TIMEOUT, PeerError, Peers, Route};
use crate::classroom::upload::MAX_UPLOAD_BYTES;
use crate::net::forward::{Answer, Forwarded, FromPeer};
use crate::net::ws::{CLOSE_MOVED, PageLink};
use crate::net::{AppError, AppState};

/// How long a page waits for the lab's server to greet it, and for the lab's first
/// scene, before it is told to try again.
const GREETING_PATIENCE: Duration = Duration::from_secs(10);

/// Middleware: a request for a lab another server runs is answered by that server; a
/// new lab is made on the least-loaded server; the list of labs is every server's.
/// Anything else, and what another server sent here, is answered here.
pub async fn elsewhere(State(app): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let Some(peers) = &app.peers else { return next.run(request).await };
    if request.extensions().get::<FromPeer>().is_some() {
        return next.run(request).await;
    }
    let path = request.uri().path();
    let post = request.method() == Method::POST;
    if post && (path == "/api/labs" || is_lesson_creation(path)) {
        return match peers.place().await {
            Ok(server) if server != peers.me => answered(forward(peers, &server, request).await),
            Ok(_) => next.run(request).await,
            Err(error) => AppError::from(error).into_response(),
        };
    }
    if request.method() == Method::GET && path == "/api/labs" {
        return every_lab(peers, request, next).await;
    }
    if request.method() == Method::GET && is_class_listing(path) {
        return every_lesson(peers, request, next).await;
    }
    if post && path == "/api/join" {
        return join_by_code(&app, peers, request, next).await;
    }
    if post && is_hand_in(path) && is_json(&request) {
        return hand_in_where_the_lab_runs(&app, peers, request, next).await;
    }
    let Some(lab) = lab_of(path) else { return next.run(request).await };
    if app.classroom.registry.get(lab).is_some() {
        return next.run(request).await;
    }
    match peers.route(lab).await {
        Ok(Route::Here) if app.classroom.labs().is_kept(lab) => AppError::from(PeerError::Moving).into_response(),
        Ok(Route::Here) => next.run(request).await,
        Ok(Route::Owner(owner)) => answered(forward(peers, &owner, request).await),
        Err(error) => AppError::from(error).into_response(),
    }
}

/// `POST /api/join`: joined where the lab with that code runs.
async fn join_by_code(app: &AppState, peers: &Peers, request: Request, next: Next) -> Response {
    #[derive(serde::Deserialize)]
    struct Code {
        join_code: String,
    }
    // A join is a code and a name: anything larger is refused here as it would be there.
    let (request, body) = match read_small(request, "a join request").await {
        Ok(read) => read,
        Err(refused) => return refused,
    };
    let code = serde_json::from_slice::<Code>(&body).map(|code| code.join_code).unwrap_or_default();
    let here = app.classroom.registry.by_join_code(&code).is_some();
    let Some(lab) = (!here).then(|| app.classroom.labs().kept_with_code(&code)).flatten() else {
        // Here, or nowhere: answered here, wrong codes counted here.
        return next.run(request).await;
    };
    match peers.route(&lab).await {
        Ok(Route::Owner(owner)) => answered(forward(peers, &owner, request).await),
        Ok(Route::Here) => AppError::from(PeerError::Moving).into_response(),
        Err(error) => AppError::from(error).into_response(),
    }
}

/// `POST /api/classes/{class}/assignments/{id}/submissions` with a robot of a lesson
/// (`{"lab","robot"}`): handed in where that lab runs, which reads the robot's program.
/// A hand-in of files is taken here.
async fn hand_in_where_the_lab_runs(app: &AppState, peers: &Peers, request: Request, next: Next) -> Response {
    #[derive(serde::Deserialize)]
    struct Lesson {
        lab: String,
    }
    let (request, body) = match read_small(request, "a hand-in of a robot").await {
        Ok(read) => read,
        Err(refused) => return refused,
    };
    let lab = serde_json::from_slice::<Lesson>(&body).map(|lesson| lesson.lab).unwrap_or_default();
    if lab.is_empty() || app.classroom.registry.get(&lab).is_some() {
        return next.run(request).await;
    }
    match peers.route(&lab).await {
        Ok(Route::Owner(owner)) => answered(forward(peers, &owner, request).await),
        Ok(Route::Here) if app.classroom.labs().is_kept(&lab) => AppError::from(PeerError::Moving).into_response(),
        Ok(Route::Here) => next.run(request).await,
        Err(error) => AppError::from(error).into_response(),
    }
}

/// The largest join request, or hand-in of a robot, read to find its lab.
const SMALL_BYTES: usize = 16 * 1024;

/// Reads `request`'s body, at most [`SMALL_BYTES`] (`what` it is names the refusal):
/// the request again, and its body.
async fn read_small(request: Request, what: &str) -> Result<(Request, Bytes), Response> {
    let (parts, body) = request.into_parts();
    let Ok(body) = axum::body::to_bytes(body, SMALL_BYTES).await else {
        return Err(AppError::TooLarge(format!("{what} may be at most {SMALL_BYTES} bytes")).into_response());
    };
    Ok((Request::from_parts(parts, Body::from(body.clone())), body))
}

/// A hand-in: `/api/classes/{class}/assignments/{id}/submissions`.
fn is_hand_in(path: &str) -> bool {
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    matches!(parts.as_slice(), ["api", "classes", class, "assignments", id, "submissions"] if !class.is_empty() && !id.is_empty())
}

/// Whether the request's body is JSON (a form is not read here).
fn is_json(request: &Request) -> bool {
    request
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.trim_start().starts_with("application/json"))
}

fn answered(answer: Result<Answer, PeerError>) -> Response {
    match answer {
        Ok(answer) => answer.into_response(),
        Err(error) => AppError::from(error).into_response(),
    }
}

/// `POST /api/classes/{class}/labs`: a lesson's lab.
fn is_lesson_creation(path: &str) -> bool {
    path.strip_prefix("/api/classes/").and_then(|rest| rest.split_once('/')).is_some_and(|(_, rest)| rest == "labs")
}

/// `GET /api/labs` across the cluster: this server's labs and every other's, by id. A
/// server that does not answer is left out (and logged): the list is for choosing a
/// lab, and each lab answers for itself.
async fn every_lab(peers: &Peers, request: Request, next: Next) -> Response {
    let (parts, _) = request.into_parts();
    let here = next.run(Request::from_parts(parts.clone(), Body::empty())).await;
    let (status, body) = (here.status(), axum::body::to_bytes(here.into_body(), usize::MAX).await.unwrap_or_default());
    let Ok(Value::Array(mut labs)) = serde_json::from_slice(&body) else {
        return (status, body).into_response();
    };
    for theirs in every_other_answer(peers, &parts).await {
        match theirs {
            Value::Array(theirs) => labs.extend(theirs),
            _ => tracing::warn!("a server's list of labs was unreadable"),
        }
    }
    labs.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
    axum::Json(labs).into_response()
}

/// `GET /api/classes/{class}` and `GET /api/classes/{class}/overview`: each server
/// lists the class's lessons it runs, so the answer here gets every other server's too
/// (by name, then id, as one server orders them). The answer here decides the rest:
/// one refused here is refused, as every server would refuse it.
async fn every_lesson(peers: &Peers, request: Request, next: Next) -> Response {
    let (parts, _) = request.into_parts();
    let here = next.run(Request::from_parts(parts.clone(), Body::empty())).await;
    let (status, body) = (here.status(), axum::body::to_bytes(here.into_body(), usize::MAX).await.unwrap_or_default());
    let Ok(mut answer) = serde_json::from_slice::<Value>(&body) else { return (status, body).into_response() };
    let Some(Value::Array(labs)) = answer.get_mut("labs") else { return (status, body).into_response() };
    if !status.is_success() {
        return (status, body).into_response();
    }
    for theirs in every_other_answer(peers, &parts).await {
        match theirs.get("labs") {
            Some(Value::Array(theirs)) => labs.extend(theirs.iter().cloned()),
            _ => tracing::warn!("a server's lessons of a class were unreadable"),
        }
    }
    // A class view lists summaries; an overview, each lab with its summary in `lab`.
    let key = |lab: &Value| {
        let summary = lab.get("lab").unwrap_or(lab);
        (summary["name"].as_str().map(str::to_owned), summary["id"].as_str().map(str::to_owned))
    };
    labs.sort_by_key(key);
    labs.dedup_by(|a, b| key(a).1 == key(b).1);
    (status, axum::Json(answer)).into_response()
}

/// `GET /api/classes/{class}` or `GET /api/classes/{class}/overview`.
fn is_class_listing(path: &str) -> bool {
    let Some(rest) = path.strip_prefix("/api/classes/") else { return false };
    match rest.split_once('/') {
        None => !rest.is_empty() && rest != "sign-in",
        Some((class, "overview")) => !class.is_empty(),
        Some(_) => false,
    }
}

/// The same bodiless request as asked of every other live server, answered there: the
/// readable JSON answers (a server that does not answer is left out, and logged: each
/// lab answers for itself).
async fn every_other_answer(peers: &Peers, parts: &axum::http::request::Parts) -> Vec<Value> {
    let mut answers = Vec::new();
    for server in peers.others().await.unwrap_or_default() {
        let asked = Request::from_parts(parts.clone(), Body::empty());
        match forward(peers, &server, asked).await {
            Ok(answer) if answer.status.is_success() => match serde_json::from_slice(&answer.body) {
                Ok(value) => answers.push(value),
                Err(error) => tracing::warn!(%server, %error, "a server's answer was unreadable"),
            },
            Ok(answer) => tracing::warn!(%server, status = %answer.status, "a server's part is left out of a list"),
            Err(error) => tracing::warn!(%server, %error, "a server's part is left out of a list"),
        }
    }
    answers
}

/// The lab a path names: `/api/labs/{lab}` and below.
fn lab_of(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("/api/labs/")?;
    let lab = rest.split('/').next()?;
    (!lab.is_empty()).then_some(lab)
}

async fn forward(peers: &Peers, owner: &str, request: Request) -> Result<Answer, PeerError> {
    let client = request.extensions().get::<ConnectInfo<std::net::SocketAddr>>().map(|ConnectInfo(peer)| *peer);
    let client = client.unwrap_or_else(|| ([127, 0, 0, 1], 0).into());
    let (parts, body) = request.into_parts();
    // The body is read here, within this server's limits; the owner holds it to its own.
    let body = axum::body::to_bytes(Body::new(body), MAX_UPLOAD_BYTES + 64 * 1024)
        .await
        .map_err(|_| PeerError::TooLarge { size: MAX_UPLOAD_BYTES + 64 * 1024, max: MAX_UPLOAD_BYTES })?;
    let forwarded = Forwarded::new(parts.method, parts.uri, client, &parts.headers, body).encode();
    let max = peers.nats.server_info().max_payload;
    if forwarded.len() > max {
        return Err(PeerError::TooLarge { size: forwarded.len(), max });
    }
    let request = async_nats::Request::new().payload(Bytes::from(forwarded)).timeout(Some(FORWARD_TIMEOUT));
    let unreachable = |why: String| PeerError::Unreachable { server: owner.to_owned(), why };
    let reply =
        peers.nats.send_request(peers.subjects.http(owner), request).await.map_err(|e| unreachable(e.to_string()))?;
    Answer::decode(&reply.payload).map_err(|e| PeerError::Garbled(e.to_string()))
}

/// Serves a page watching `lab`, which `owner` runs: the greeting and the page's own
/// messages through a tunnel, the scene, frames and events from this server's mirror.
pub async fn watch(mut socket: WebSocket, peers: &Peers, owner: &str, lab: &str, token: Option<&str>) {
    let feed = peers.mirrors.feed(lab);
    let mut tunnel = match open_tunnel(peers, owner, lab, token).await {
        Ok(tunnel) => tunnel,
        Err(error) => return moved(socket, &error.to_string()).await,
    };
    // The owner's greeting (after a notice, for a token it does not take).
    loop {
        match tokio::time::timeout(GREETING_PATIENCE, tunnel.recv()).await {
            Ok(Some(Ok(message))) => {
                let hello = is_kind(&message, "hello");
                if socket.send(message).await.is_err() {
                    return;
                }
                if hello {
                    break;
                }
            }
            _ => return moved(socket, "the server running this lab did not greet this page").await,
        }
    }
    if !feed.ready(GREETING_PATIENCE).await {
        return moved(socket, "the lab's frames did not come from the server running it").await;
    }
    let Some(subscription) = feed.join() else { return };
    let pending = subscription.mailbox.take();
    if let Some(snapshot) = pending.snapshot
        && socket.send(Message::Text(Utf8Bytes::from(snapshot.to_string()))).await.is_err()
    {
        return;
    }
    // The clock comes next from the owner; the keyframe after it, as on the lab's own
    // server.
    if let Ok(Some(Ok(state))) = tokio::time::timeout(GREETING_PATIENCE, tunnel.recv()).await
        && socket.send(state).await.is_err()
    {
        return;
    }
    if let Some(frame) = pending.frame
        && socket.send(Message::Binary(frame.into_bytes())).await.is_err()
    {
        return;
    }
    let owned_elsewhere = OwnedBy { peers, lab, owner };
    if let Err(reason) = relay(&mut socket, &mut tunnel, &feed, subscription, owned_elsewhere).await {
        tracing::debug!(%lab, %reason, "page of a lab run elsewhere went away");
    }
}

/// The page's loop: frames and events from the mirror, the owner's messages from the
/// tunnel, the page's own messages to the tunnel (its pacing and resyncs stay here,
/// with its mailbox).
async fn relay(
    socket: &mut WebSocket,
    tunnel: &mut Tunnel,
    feed: &super::mirrors::Feed,
    mut subscription: vlab_lab::Subscription,
    owned: OwnedBy<'_>,
) -> Result<(), String> {
    let mailbox = Arc::clone(&subscription.mailbox);
    let mut check_owner = tokio::time::interval(OWNER_CHECK);
    loop {
        tokio::select! {
            _ = check_owner.tick() => {
                if !owned.still().await {
                    let close = CloseFrame { code: CLOSE_MOVED, reason: Utf8Bytes::from("the lab moved: connect again") };
                    let _ = socket.send(Message::Close(Some(close))).await;
                    return Ok(());
                }
            }
            () = mailbox.ready() => {
                let pending = mailbox.take();
                if let Some(snapshot) = pending.snapshot {
                    send(socket, Message::Text(Utf8Bytes::from(snapshot.to_string()))).await?;
                }
                if let Some(frame) = pending.frame {
                    send(socket, Message::Binary(frame.into_bytes())).await?;
                }
            }
            event = subscription.events.recv() => match event {
                Ok(json) => send(socket, Message::Text(Utf8Bytes::from(json.to_string()))).await?,
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    if let Some(state) = feed.latest().state {
                        send(socket, Message::Text(Utf8Bytes::from(state.to_string()))).await?;
                    }
                }
                Err(broadcast::error::RecvError::Closed) => return Ok(()),
            },
            from_owner = tunnel.recv() => match from_owner {
                Some(Ok(message)) => {
                    let last = matches!(message, Message::Close(_));
                    send(socket, message).await?;
                    if last {
                        return Ok(());
                    }
                }
                Some(Err(reason)) => return Err(reason),
                // The owner went away (or the lab moved): the page connects again.
                None => {
                    let close = CloseFrame { code: CLOSE_MOVED, reason: Utf8Bytes::from("the lab moved: connect again") };
                    let _ = socket.send(Message::Close(Some(close))).await;
                    return Ok(());
                }
            },
            from_page = socket.recv() => match from_page {
                None | Some(Ok(Message::Close(_))) => return Ok(()),
                Some(Err(error)) => return Err(error.to_string()),
                Some(Ok(Message::Text(text))) => match serde_json::from_str::<ClientMsg>(text.as_str()) {
                    Ok(ClientMsg::Drawn { step, pictures }) => {
                        if let Some(drawn_every) = mailbox.drawn(step, pictures) {
                            let pacing = serde_json::to_string(&ServerMsg::Pacing { drawn_every }).expect("serialises");
                            send(socket, Message::Text(Utf8Bytes::from(pacing))).await?;
                        }
                    }
                    Ok(ClientMsg::Live) => feed.resync(&mailbox),
                    // Everything else is the owner's to answer, as it would over its own
                    // websocket (unreadable messages included).
                    _ => tunnel.send(Message::Text(text)).await?,
                },
                Some(Ok(message @ Message::Binary(_))) => tunnel.send(message).await?,
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
            },
        }
    }
}

/// How often a page's server checks that the lab it relays still runs where it did: a
/// lab taken over after its server died is followed within this of the takeover.
const OWNER_CHECK: Duration = Duration::from_secs(2);

/// The server a relayed lab runs on, as the relay began.
struct OwnedBy<'a> {
    peers: &'a Peers,
    lab: &'a str,
    owner: &'a str,
}

impl OwnedBy<'_> {
    /// Whether the lab still runs there (a directory that cannot be read now is taken
    /// to say yes: the tunnel's own silence ends a relay whose server died).
    async fn still(&self) -> bool {
        match self.peers.route(self.lab).await {
            Ok(Route::Owner(owner)) => owner == self.owner,
            Ok(Route::Here) => false,
            Err(_) => true,
        }
    }
}

async fn open_tunnel(peers: &Peers, owner: &str, lab: &str, token: Option<&str>) -> Result<Tunnel, PeerError> {
    let id = tunnel_id();
    let (up, down) = peers.subjects.tunnel(&id);
    let unreachable = |why: String| PeerError::Unreachable { server: owner.to_owned(), why };
    let tunnel = Tunnel::open(&peers.nats, down, up).await.map_err(|e| unreachable(e.to_string()))?;
    let mut headers = HeaderMap::new();
    headers.insert(LAB, lab);
    headers.insert(TUNNEL, id.as_str());
    if let Some(token) = token {
        headers.insert(TOKEN, token);
    }
    let opening = async_nats::Request::new().headers(headers).timeout(Some(GREETING_PATIENCE));
    peers.nats.send_request(peers.subjects.open(owner), opening).await.map_err(|e| unreachable(e.to_string()))?;
    Ok(tunnel)
}

/// A tunnel's id: unguessable, so no other server's page can read it.
fn tunnel_id() -> String {
    use rand::Rng as _;
    let bytes: [u8; 16] = rand::rng().random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether `message` is a server message of `kind` (`{"type":"hello",...}`).
fn is_kind(message: &Message, kind: &str) -> bool {
    match message {
        Message::Text(text) => text
            .as_str()
            .strip_prefix("{\"type\":\"")
            .is_some_and(|rest| rest.strip_prefix(kind).is_some_and(|rest| rest.starts_with('"'))),
        _ => false,
    }
}

/// The page is told why, and to connect again (the lab may be moving).
async fn moved(mut socket: WebSocket, why: &str) {
    tracing::info!(%why, "page of a lab run elsewhere told to connect again");
    let reason: String = why.chars().take(100).collect();
    let _ = socket.send(Message::Close(Some(CloseFrame { code: CLOSE_MOVED, reason: Utf8Bytes::from(reason) }))).await;
}

async fn send(socket: &mut WebSocket, message: Message) -> Result<(), String> {
    socket.send(message).await.map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lab_is_read_from_lab_paths_only() {
        assert_eq!(lab_of("/api/labs/physics-1-k7mp/robots"), Some("physics-1-k7mp"));
        assert_eq!(lab_of("/api/labs/demo"), Some("demo"));
        assert_eq!(lab_of("/api/labs/"), None);
        assert_eq!(lab_of("/api/labs"), None);
        assert_eq!(lab_of("/api/classes/x/labs"), None);
    }

    #[test]
    fn lessons_are_made_under_a_class() {
        assert!(is_lesson_creation("/api/classes/physics-7/labs"));
        assert!(!is_lesson_creation("/api/classes/physics-7/students"));
        assert!(!is_lesson_creation("/api/classes/labs"));
    }

    #[test]
    fn kinds_are_read_from_the_first_field() {
        assert!(is_kind(&Message::Text(r#"{"type":"hello","protocol":9}"#.into()), "hello"));
        assert!(!is_kind(&Message::Text(r#"{"type":"hellos"}"#.into()), "hello"));
        assert!(!is_kind(&Message::Binary(Bytes::from_static(b"{\"type\":\"hello\"}")), "hello"));
    }
}
