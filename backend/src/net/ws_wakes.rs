//! What one websocket connection waits for besides its frames and its own socket (the
//! lab's events, the recording's summaries, the console, replies to its own requests,
//! new robot reports and camera images, the lab closing, its student being removed),
//! merged into one stream of [`Wake`]s.
//!
//! *Why one stream:* the connection's loop turns at every frame it sends and every
//! `drawn` it reads, some 90 times a second per page. Awaiting each of these afresh at
//! every turn put a waiter on each of the lab's shared channels and took it off again,
//! under that channel's lock, for every page at every turn: with 1,000 pages, a fifth of
//! the server's own work beside the sockets (docs/performance.md, Each source waited for once).
//! Here each source keeps its waiter until it fires, and a turn that a frame woke polls
//! none of them: [`SelectAll`] polls only the sources that were woken.

use std::future::Future;
use std::sync::Arc;

use futures_util::stream::{self, BoxStream, SelectAll, StreamExt};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{broadcast, mpsc, watch};
use vlab_protocol::ServerMsg;

use vlab_lab::ConsoleEvent;

/// Why the connection's loop was woken, other than for a frame or its socket.
pub enum Wake {
    /// A lab event, already JSON; `Lagged` when this page fell behind (it is sent the
    /// lab's state instead); `Closed` once, when the lab has gone.
    Event(Result<Arc<str>, RecvError>),
    /// A recording summary (lab id, JSON); `Closed` once if the recorder stops.
    Recording(Result<(String, Arc<str>), RecvError>),
    /// A program's console line; `Closed` once, when the lab has gone.
    Console(Result<Arc<ConsoleEvent>, RecvError>),
    /// The answer to one of this connection's requests (boxed: most wakes are small).
    Reply(Box<ServerMsg>),
    /// New robot reports were published.
    Telemetry,
    /// New camera images were published.
    Camera,
    /// The instructor removed this connection's student (once).
    Removed,
    /// The instructor closed the lab (once).
    Closed,
}

/// The connection's sources, each waited for once until it fires.
pub struct Wakes<'a>(SelectAll<BoxStream<'a, Wake>>);

/// What a connection listens to, as [`Wakes::new`] takes it.
pub struct Sources<C, R> {
    /// `None` when the lab's events reach the page another way (a page on another
    /// server of a cluster gets them from that server's mirror of the lab).
    pub events: Option<broadcast::Receiver<Arc<str>>>,
    /// `None` when the server records nothing.
    pub recording: Option<broadcast::Receiver<(String, Arc<str>)>>,
    pub console: broadcast::Receiver<Arc<ConsoleEvent>>,
    pub replies: mpsc::UnboundedReceiver<ServerMsg>,
    /// A receiver of the robot reports' channel, for its changes only.
    pub telemetry: watch::Receiver<vlab_lab::telemetry::Reports>,
    /// A receiver of the camera images' channel, for its changes only.
    pub camera: watch::Receiver<vlab_lab::camera_feed::Views>,
    /// Resolves when the lab closes.
    pub closed: C,
    /// Resolves when the student is removed (never for anybody else).
    pub removed: R,
}

impl<'a> Wakes<'a> {
    pub fn new<C, R>(sources: Sources<C, R>) -> Wakes<'a>
    where
        C: Future<Output = ()> + Send + 'a,
        R: Future<Output = ()> + Send + 'a,
    {
        let mut all = SelectAll::new();
        if let Some(events) = sources.events {
            all.push(broadcasts(events, Wake::Event));
        }
        if let Some(recording) = sources.recording {
            all.push(broadcasts(recording, Wake::Recording));
        }
        all.push(broadcasts(sources.console, Wake::Console));
        all.push(
            stream::unfold(sources.replies, |mut replies| async move {
                let reply = replies.recv().await?;
                Some((Wake::Reply(Box::new(reply)), replies))
            })
            .boxed(),
        );
        all.push(changes(sources.telemetry, || Wake::Telemetry));
        all.push(changes(sources.camera, || Wake::Camera));
        all.push(stream::once(sources.closed).map(|()| Wake::Closed).boxed());
        all.push(stream::once(sources.removed).map(|()| Wake::Removed).boxed());
        Wakes(all)
    }

    /// The next wake; `None` only once every source has ended, which a connection's
    /// loop never waits for (the lab's events end only with a `Closed`).
    pub async fn next(&mut self) -> Option<Wake> {
        self.0.next().await
    }
}

/// Each message of `receiver` as a wake; a `Closed` ends the stream after it is told.
fn broadcasts<'a, T: Clone + Send + 'a>(
    receiver: broadcast::Receiver<T>,
    wake: fn(Result<T, RecvError>) -> Wake,
) -> BoxStream<'a, Wake> {
    stream::unfold(Some(receiver), move |receiver| async move {
        let mut receiver = receiver?;
        let received = receiver.recv().await;
        let open = !matches!(received, Err(RecvError::Closed));
        Some((wake(received), open.then_some(receiver)))
    })
    .boxed()
}

/// A wake at each change of a `watch` channel (changes that come together wake once);
/// ends when its sender is gone.
fn changes<'a, T: Send + Sync + 'a>(receiver: watch::Receiver<T>, wake: fn() -> Wake) -> BoxStream<'a, Wake> {
    stream::unfold(receiver, move |mut receiver| async move {
        receiver.changed().await.ok()?;
        Some((wake(), receiver))
    })
    .boxed()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::sync::oneshot;

    use super::*;

    /// The next wake, failing the test if none comes soon.
    async fn next(wakes: &mut Wakes<'_>) -> Wake {
        tokio::time::timeout(Duration::from_secs(5), wakes.next()).await.expect("a wake").expect("sources left")
    }

    /// Whether a wake is ready now.
    async fn quiet(wakes: &mut Wakes<'_>) -> bool {
        tokio::time::timeout(Duration::from_millis(50), wakes.next()).await.is_err()
    }

    #[tokio::test]
    async fn each_source_wakes_with_what_it_brought_and_once_for_the_one_shots() {
        let (events, events_rx) = broadcast::channel::<Arc<str>>(4);
        let (summaries, summaries_rx) = broadcast::channel(4);
        let (console, console_rx) = broadcast::channel::<Arc<ConsoleEvent>>(4);
        let (replies, replies_rx) = mpsc::unbounded_channel();
        let (reports, reports_rx) = watch::channel(vlab_lab::telemetry::Reports::default());
        let (views, views_rx) = watch::channel(vlab_lab::camera_feed::Views::default());
        let (close, closed) = oneshot::channel::<()>();
        let (remove, removed) = oneshot::channel::<()>();
        let mut wakes = Wakes::new(Sources {
            events: Some(events_rx),
            recording: Some(summaries_rx),
            console: console_rx,
            replies: replies_rx,
            telemetry: reports_rx,
            camera: views_rx,
            closed: async move {
                let _ = closed.await;
            },
            removed: async move {
                let _ = removed.await;
            },
        });
        assert!(quiet(&mut wakes).await, "nothing happened yet");

        events.send(Arc::from("{\"type\":\"state\"}")).unwrap();
        assert!(matches!(next(&mut wakes).await, Wake::Event(Ok(json)) if &*json == "{\"type\":\"state\"}"));
        summaries.send(("lab".to_owned(), Arc::from("{}"))).unwrap();
        assert!(matches!(next(&mut wakes).await, Wake::Recording(Ok((lab, _))) if lab == "lab"));
        replies.send(ServerMsg::Pong { nonce: 7 }).unwrap();
        assert!(matches!(next(&mut wakes).await, Wake::Reply(reply) if matches!(*reply, ServerMsg::Pong { nonce: 7 })));

        // Two changes before the loop looks wake it once.
        reports.send_replace(Default::default());
        reports.send_replace(Default::default());
        assert!(matches!(next(&mut wakes).await, Wake::Telemetry));
        assert!(quiet(&mut wakes).await);
        views.send_replace(Default::default());
        assert!(matches!(next(&mut wakes).await, Wake::Camera));

        remove.send(()).unwrap();
        assert!(matches!(next(&mut wakes).await, Wake::Removed));
        close.send(()).unwrap();
        assert!(matches!(next(&mut wakes).await, Wake::Closed));
        assert!(quiet(&mut wakes).await, "removal and closing are told once");

        // A lab that has gone: its events say so once, then end.
        drop(events);
        assert!(matches!(next(&mut wakes).await, Wake::Event(Err(RecvError::Closed))));
        drop(console);
        assert!(matches!(next(&mut wakes).await, Wake::Console(Err(RecvError::Closed))));
        assert!(quiet(&mut wakes).await);
    }

    #[tokio::test]
    async fn a_page_that_fell_behind_the_events_is_told_it_lagged() {
        let (events, events_rx) = broadcast::channel::<Arc<str>>(2);
        let (_summaries, console_rx) = broadcast::channel::<Arc<ConsoleEvent>>(1);
        let (_replies, replies_rx) = mpsc::unbounded_channel();
        let (_reports, reports_rx) = watch::channel(vlab_lab::telemetry::Reports::default());
        let (_views, views_rx) = watch::channel(vlab_lab::camera_feed::Views::default());
        let mut wakes = Wakes::new(Sources {
            events: Some(events_rx),
            recording: None,
            console: console_rx,
            replies: replies_rx,
            telemetry: reports_rx,
            camera: views_rx,
            closed: std::future::pending(),
            removed: std::future::pending(),
        });
        for n in 0..5 {
            events.send(Arc::from(n.to_string())).unwrap();
        }
        assert!(matches!(next(&mut wakes).await, Wake::Event(Err(RecvError::Lagged(3)))));
        assert!(matches!(next(&mut wakes).await, Wake::Event(Ok(json)) if &*json == "3"));
    }
}
