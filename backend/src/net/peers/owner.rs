//! The lab's server's side: it answers requests forwarded by other servers with its own
//! router, runs the sessions their pages open through tunnels, and taps each of its labs
//! that other servers want, publishing the lab's scenes, frames and events once for all.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_nats::{Client, Message};
use axum::Router;
use bytes::Bytes;
use futures_util::StreamExt as _;
use tokio::sync::Notify;
use tokio::time::Instant;
use vlab_lab::LabHandle;
use vlab_lab::relay::RelayTap;

use super::mirrors::RESYNC;
use super::tunnel::Tunnel;
use super::turns::{TurnLimits, Turns};
use super::{Peers, Subjects, valid_token};
use crate::net::forward::{self, Answer, Forwarded};
use crate::net::ws;
use crate::net::{AppError, AppState};

/// A tap stops this long after the last server that wanted its frames said so.
pub const WANT_LAPSE: Duration = Duration::from_secs(10);

/// The tap sends the whole scene again at most this often, however many mirrors ask.
const RESYNC_EVERY: Duration = Duration::from_secs(1);

/// Forwarded requests answered at once (a server's own pages are not starved by
/// another's): 32, at most 16 for one page address, whose others wait in its own line;
/// an address holding 512 (as many as its connections to one server) is refused 429.
pub const FORWARDED_TURNS: TurnLimits = TurnLimits { at_once: 32, per_address: 16, held_per_address: 512 };

/// The headers of a tunnel's opening: which lab, which tunnel, and the page's token.
pub const LAB: &str = "Vlab-Lab";
pub const TUNNEL: &str = "Vlab-Tunnel";
pub const TOKEN: &str = "Vlab-Token";

/// Starts answering for this server's labs: forwarded requests (with `router`, the whole
/// HTTP surface), tunnels, and wants. Runs until the NATS connection is dropped.
pub async fn serve_owned(
    peers: Arc<Peers>,
    app: Arc<AppState>,
    router: Router,
) -> Result<(), async_nats::SubscribeError> {
    let (nats, subjects) = (&peers.nats, &peers.subjects);
    let requests = nats.subscribe(subjects.http(&peers.me)).await?;
    let tunnels = nats.subscribe(subjects.open(&peers.me)).await?;
    let wants = nats.subscribe(subjects.all_wants()).await?;
    tokio::spawn(answer_requests(nats.clone(), requests, router));
    tokio::spawn(open_tunnels(nats.clone(), subjects.clone(), tunnels, Arc::clone(&app)));
    tokio::spawn(tap_wanted(nats.clone(), subjects.clone(), wants, app));
    Ok(())
}

async fn answer_requests(nats: Client, mut requests: async_nats::Subscriber, router: Router) {
    let turns = Arc::new(Turns::new(FORWARDED_TURNS));
    while let Some(request) = requests.next().await {
        let Some(reply) = request.reply.clone() else { continue };
        let forwarded = match Forwarded::decode(&request.payload) {
            Ok(forwarded) => forwarded,
            Err(error) => {
                let answer = Answer {
                    status: axum::http::StatusCode::BAD_REQUEST,
                    headers: Default::default(),
                    body: Bytes::from(format!("unreadable forwarded request: {error}")),
                };
                tokio::spawn(send(nats.clone(), reply, answer));
                continue;
            }
        };
        let Some(place) = turns.place(forwarded.client.ip()) else {
            let nats = nats.clone();
            tokio::spawn(async move { send(nats, reply, forward::refusal(too_many_held()).await).await });
            continue;
        };
        let (nats, router, turns) = (nats.clone(), router.clone(), Arc::clone(&turns));
        tokio::spawn(async move {
            let turn = turns.turn(place).await;
            // Whatever the answer, it must fit in one message back.
            let room = nats.server_info().max_payload.saturating_sub(4096);
            let answer = forward::answer(router, forwarded, room).await;
            send(nats, reply, answer).await;
            drop(turn);
        });
    }
}

/// Sends `answer` back to the server that forwarded the request.
async fn send(nats: Client, reply: async_nats::Subject, answer: Answer) {
    let _ = nats.publish(reply, Bytes::from(answer.encode())).await;
}

/// The refusal of a request from an address that holds as many forwarded requests as
/// it may.
fn too_many_held() -> AppError {
    AppError::TooManyRequests {
        message: format!(
            "too many requests from your address at once ({} are waiting for the lab's server): wait for their answers",
            FORWARDED_TURNS.held_per_address
        ),
        retry_after: 1,
    }
}

async fn open_tunnels(nats: Client, subjects: Subjects, mut openings: async_nats::Subscriber, app: Arc<AppState>) {
    while let Some(opening) = openings.next().await {
        let (nats, subjects, app) = (nats.clone(), subjects.clone(), Arc::clone(&app));
        tokio::spawn(async move { run_tunnel(nats, &subjects, opening, app).await });
    }
}

/// One page's session through a tunnel, from its opening to its end.
async fn run_tunnel(nats: Client, subjects: &Subjects, opening: Message, app: Arc<AppState>) {
    let header = |name: &str| opening.headers.as_ref().and_then(|h| h.get(name)).map(|v| v.as_str().to_owned());
    let (Some(lab), Some(id), Some(reply)) = (header(LAB), header(TUNNEL), opening.reply.clone()) else { return };
    if !valid_token(&id) {
        return;
    }
    let (up, down) = subjects.tunnel(&id);
    let Ok(tunnel) = Tunnel::open(&nats, up, down).await else { return };
    // Subscribed: the page's server may now send.
    if nats.publish(reply, Bytes::from_static(b"ok")).await.is_err() {
        return;
    }
    ws::serve_remote(tunnel, &app.classroom, &lab, header(TOKEN).as_deref()).await;
}

/// A running tap: when a server last wanted it, and asks for the scene again.
struct TapWants {
    last: Mutex<Instant>,
    resync: Notify,
}

async fn tap_wanted(nats: Client, subjects: Subjects, mut wants: async_nats::Subscriber, app: Arc<AppState>) {
    let taps: Arc<Mutex<HashMap<String, Arc<TapWants>>>> = Arc::default();
    while let Some(want) = wants.next().await {
        let Some(lab_id) = subjects.wanted(&want.subject) else { continue };
        // Every server hears every want; only the lab's own answers.
        let Some(lab) = app.classroom.registry.get(lab_id) else { continue };
        let resync = want.headers.as_ref().is_some_and(|headers| headers.get(RESYNC).is_some());
        let mut running = taps.lock().expect("taps lock");
        let wants = running.entry(lab_id.to_owned()).or_insert_with(|| {
            let wants = Arc::new(TapWants { last: Mutex::new(Instant::now()), resync: Notify::new() });
            let (nats, taps, wants2) = (nats.clone(), Arc::clone(&taps), Arc::clone(&wants));
            let subject = subjects.frames(lab_id);
            tokio::spawn(async move {
                run_tap(nats, subject, lab, &wants2).await;
                taps.lock().expect("taps lock").retain(|_, running| !Arc::ptr_eq(running, &wants2));
            });
            wants
        });
        *wants.last.lock().expect("tap lock") = Instant::now();
        if resync {
            wants.resync.notify_one();
        }
    }
}

/// Publishes `lab`'s tap until no server has wanted it for [`WANT_LAPSE`], or the lab
/// closes.
async fn run_tap(nats: Client, subject: String, lab: Arc<LabHandle>, wants: &TapWants) {
    let mut tap = RelayTap::new(lab.viewers().subscribe());
    let mut last_resync = Instant::now();
    let mut check = tokio::time::interval(WANT_LAPSE / 4);
    let closed = lab.wait_closed();
    tokio::pin!(closed);
    tracing::info!(lab = %lab.id(), "relaying the lab to other servers");
    loop {
        tokio::select! {
            (seq, message) = tap.next() => {
                // A message lost here is a gap the mirrors see and mend.
                let _ = nats.publish(subject.clone(), Bytes::from(message.encode(seq))).await;
            }
            () = wants.resync.notified() => {
                if last_resync.elapsed() >= RESYNC_EVERY {
                    last_resync = Instant::now();
                    lab.viewers().resync(tap.mailbox());
                }
            }
            _ = check.tick() => {
                if wants.last.lock().expect("tap lock").elapsed() >= WANT_LAPSE {
                    break;
                }
            }
            () = &mut closed => break,
        }
    }
    tracing::info!(lab = %lab.id(), "no longer relaying the lab");
}
