//! This server's mirrors of labs other servers run, one per lab while any page here
//! watches it: each reads the lab's tap from NATS into a [`Mirror`], whose hub this
//! server's pages join, and keeps telling the lab's server it wants the frames.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use async_nats::{Client, HeaderMap};
use bytes::Bytes;
use futures_util::StreamExt as _;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use vlab_lab::Subscription;
use vlab_lab::relay::{Applied, Latest, Mirror, Relayed};

use super::Subjects;

/// How often a mirror tells the lab's server it still wants the frames; the lab's
/// server stops its tap after [`super::owner::WANT_LAPSE`] without hearing it.
pub const WANT_EVERY: Duration = Duration::from_secs(2);

/// A mirror asks for the scene again at most this often (each ask makes the tap send
/// the whole scene to every server).
const RESYNC_EVERY: Duration = Duration::from_secs(1);

/// The header a want carries when the mirror needs the scene again.
pub const RESYNC: &str = "Vlab-Resync";

/// The mirrors, by lab.
pub struct Mirrors {
    nats: Client,
    subjects: Subjects,
    feeds: Mutex<HashMap<String, Weak<Feed>>>,
}

/// One lab's mirror, alive while a page here holds it.
pub struct Feed {
    mirror: Arc<Mutex<Mirror>>,
    /// True once the first scene came.
    ready: watch::Receiver<bool>,
    task: JoinHandle<()>,
}

impl Mirrors {
    pub fn new(nats: Client, subjects: Subjects) -> Mirrors {
        Mirrors { nats, subjects, feeds: Mutex::new(HashMap::new()) }
    }

    /// `lab`'s mirror: the one pages here already watch, or a new one.
    pub fn feed(&self, lab: &str) -> Arc<Feed> {
        let mut feeds = self.feeds.lock().expect("mirrors lock");
        feeds.retain(|_, feed| feed.strong_count() > 0);
        if let Some(feed) = feeds.get(lab).and_then(Weak::upgrade) {
            return feed;
        }
        let mirror = Arc::new(Mutex::new(Mirror::new()));
        let (ready_tx, ready) = watch::channel(false);
        let (frames, want) = (self.subjects.frames(lab), self.subjects.want(lab));
        let task = tokio::spawn(follow(self.nats.clone(), frames, want, lab.to_owned(), Arc::clone(&mirror), ready_tx));
        let feed = Arc::new(Feed { mirror, ready, task });
        feeds.insert(lab.to_owned(), Arc::downgrade(&feed));
        feed
    }

    /// Pages watching each mirrored lab.
    pub fn viewers(&self) -> Vec<(String, usize)> {
        let feeds = self.feeds.lock().expect("mirrors lock");
        feeds
            .iter()
            .filter_map(|(lab, feed)| {
                let feed = feed.upgrade()?;
                let mirror = feed.mirror.lock().expect("mirror lock");
                Some((lab.clone(), mirror.hub().map_or(0, |hub| hub.viewer_count())))
            })
            .collect()
    }
}

impl Feed {
    /// Waits for the first scene, at most `patience`: whether it came.
    pub async fn ready(&self, patience: Duration) -> bool {
        let mut ready = self.ready.clone();
        tokio::time::timeout(patience, ready.wait_for(|ready| *ready)).await.is_ok_and(|seen| seen.is_ok())
    }

    /// Joins the mirror's viewers (`None` before the first scene).
    pub fn join(&self) -> Option<Subscription> {
        Some(self.mirror.lock().expect("mirror lock").hub()?.join())
    }

    /// The mirror's latest clock state, for a page that fell behind the events.
    pub fn latest(&self) -> Latest {
        self.mirror.lock().expect("mirror lock").latest().clone()
    }

    /// Gives the viewer of `mailbox` the scene and keyframe again.
    pub fn resync(&self, mailbox: &vlab_lab::hub::ViewerMailbox) {
        if let Some(hub) = self.mirror.lock().expect("mirror lock").hub() {
            hub.resync(mailbox);
        }
    }
}

impl Drop for Feed {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Reads `lab`'s tap into `mirror` until the feed is dropped.
async fn follow(
    nats: Client,
    frames: String,
    want: String,
    lab: String,
    mirror: Arc<Mutex<Mirror>>,
    ready: watch::Sender<bool>,
) {
    let mut relayed = match nats.subscribe(frames).await {
        Ok(subscriber) => subscriber,
        Err(error) => {
            tracing::warn!(%lab, %error, "cannot follow a lab run by another server");
            return;
        }
    };
    let mut every = tokio::time::interval(WANT_EVERY);
    // The first want asks for the scene: the tap may have run long before this mirror.
    let mut needs_scene = true;
    let mut last_resync: Option<Instant> = None;
    loop {
        tokio::select! {
            _ = every.tick() => {}
            message = relayed.next() => {
                let Some(message) = message else { return };
                let applied = match Relayed::decode(&message.payload) {
                    Ok((seq, message)) => mirror.lock().expect("mirror lock").apply(seq, message),
                    Err(error) => {
                        tracing::warn!(%lab, %error, "unreadable relayed message");
                        Applied::NeedsScene
                    }
                };
                match applied {
                    Applied::Done => {
                        needs_scene = false;
                        ready.send_if_modified(|ready| !std::mem::replace(ready, true));
                        continue;
                    }
                    Applied::NeedsScene => needs_scene = true,
                }
                if last_resync.is_some_and(|at| at.elapsed() < RESYNC_EVERY) {
                    continue;
                }
            }
        }
        let mut headers = HeaderMap::new();
        if needs_scene {
            headers.insert(RESYNC, "1");
            last_resync = Some(Instant::now());
        }
        // A want lost is said again at the next tick.
        let _ = nats.publish_with_headers(want.clone(), headers, Bytes::new()).await;
    }
}
