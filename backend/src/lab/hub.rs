//! Fan-out from one lab to its viewers, where a slow reader never slows the lab or
//! anybody else.
//!
//! Two paths:
//! - scene snapshots and frames go through one [`ClientSlot`] per viewer that holds at
//!   most one pending snapshot and one pending frame. A new frame is folded into a
//!   pending one ([`Frame::absorb`]), so a viewer that skipped frames still ends with
//!   every body's latest pose, and the lab never waits;
//! - a frame is encoded once for every viewer whose slot was empty: those got every
//!   frame before, so it is written as the change from the keyframe ([`Frame::encode_after`]).
//!   A merged frame, the keyframe on joining and after a new scene are written without
//!   base ([`Frame::encode`]), readable whatever the viewer missed;
//! - JSON events (clock state, notices) go through a bounded broadcast channel; a
//!   viewer that lags behind it is resynchronised with the current state.
//!
//! The hub also keeps the keyframe: the latest pose of every moving body, which a new
//! viewer receives on joining, right after the snapshot.

use std::sync::{Arc, Mutex, Weak};

use bytes::Bytes;
use tokio::sync::{Notify, broadcast};
use vlab_protocol::{Frame, ServerMsg};

/// How many JSON events a viewer may fall behind before it is resynchronised.
const EVENT_BACKLOG: usize = 64;

/// The viewers of one lab.
pub struct Hub {
    inner: Mutex<HubInner>,
    events: broadcast::Sender<Arc<str>>,
}

struct HubInner {
    slots: Vec<Weak<ClientSlot>>,
    keyframe: Frame,
    snapshot_json: Arc<str>,
}

/// One viewer's mailbox for snapshots and frames.
#[derive(Default)]
pub struct ClientSlot {
    pending: Mutex<Pending>,
    notify: Notify,
}

/// What a viewer has not sent yet. The snapshot, when present, goes out first.
#[derive(Default)]
pub struct Pending {
    /// A scene snapshot, as JSON text.
    pub snapshot: Option<Arc<str>>,
    /// The frame to send, possibly several merged into one.
    pub frame: Option<OutgoingFrame>,
}

/// A frame waiting to be sent; shared and encoded once unless it had to be merged.
pub struct OutgoingFrame {
    frame: Arc<Frame>,
    encoded: Option<Bytes>,
}

impl OutgoingFrame {
    /// The frame as a binary websocket payload.
    pub fn into_bytes(self) -> Bytes {
        self.encoded.unwrap_or_else(|| Bytes::from(self.frame.encode()))
    }

    /// The frame itself.
    pub fn frame(&self) -> &Frame {
        &self.frame
    }

    fn absorb(self, newer: &OutgoingFrame) -> OutgoingFrame {
        let mut merged = Arc::unwrap_or_clone(self.frame);
        merged.absorb((*newer.frame).clone());
        OutgoingFrame { frame: Arc::new(merged), encoded: None }
    }

    fn share(&self) -> OutgoingFrame {
        OutgoingFrame { frame: Arc::clone(&self.frame), encoded: self.encoded.clone() }
    }
}

impl ClientSlot {
    /// Waits until something is pending (returns at once if it already is).
    pub async fn ready(&self) {
        self.notify.notified().await;
    }

    /// Takes what is pending, leaving the slot empty.
    pub fn take(&self) -> Pending {
        std::mem::take(&mut *self.pending.lock().expect("slot lock"))
    }

    fn offer_frame(&self, frame: &OutgoingFrame) {
        let mut pending = self.pending.lock().expect("slot lock");
        pending.frame = Some(match pending.frame.take() {
            None => frame.share(),
            Some(older) => older.absorb(frame),
        });
        drop(pending);
        self.notify.notify_one();
    }

    fn offer_scene(&self, snapshot: &Arc<str>, keyframe: &OutgoingFrame) {
        let mut pending = self.pending.lock().expect("slot lock");
        pending.snapshot = Some(Arc::clone(snapshot));
        // Poses of an older scene mean nothing in the new one.
        pending.frame = Some(keyframe.share());
        drop(pending);
        self.notify.notify_one();
    }
}

/// A new viewer's connection to the hub. Dropping it leaves the hub.
pub struct Subscription {
    /// Snapshots and frames.
    pub slot: Arc<ClientSlot>,
    /// JSON events, already serialised.
    pub events: broadcast::Receiver<Arc<str>>,
}

impl Hub {
    /// A hub for a scene whose snapshot is `snapshot_json`, bodies posed as in `keyframe`.
    pub fn new(snapshot_json: Arc<str>, keyframe: Frame) -> Hub {
        Hub {
            inner: Mutex::new(HubInner { slots: Vec::new(), keyframe, snapshot_json }),
            events: broadcast::channel(EVENT_BACKLOG).0,
        }
    }

    /// Joins a viewer: its slot starts with the current snapshot and keyframe, and it
    /// receives every event from now on (subscribed before anything is announced, so
    /// nothing falls between the two).
    pub fn join(&self) -> Subscription {
        let events = self.events.subscribe();
        let slot = Arc::new(ClientSlot::default());
        let mut inner = self.inner.lock().expect("hub lock");
        let keyframe = OutgoingFrame { frame: Arc::new(inner.keyframe.clone()), encoded: None };
        slot.offer_scene(&inner.snapshot_json, &keyframe);
        inner.slots.push(Arc::downgrade(&slot));
        Subscription { slot, events }
    }

    /// Sends a frame to every viewer and folds it into the keyframe. Encoded once, as
    /// the change from the keyframe: what every viewer whose slot is empty holds.
    pub fn publish_frame(&self, frame: Frame) {
        let mut inner = self.inner.lock().expect("hub lock");
        let encoded = Bytes::from(frame.encode_after(&inner.keyframe));
        let outgoing = OutgoingFrame { encoded: Some(encoded), frame: Arc::new(frame) };
        inner.keyframe.absorb((*outgoing.frame).clone());
        inner.slots.retain(|slot| match slot.upgrade() {
            Some(slot) => {
                slot.offer_frame(&outgoing);
                true
            }
            None => false,
        });
    }

    /// Replaces the scene: every viewer gets the new snapshot, then the new keyframe.
    pub fn publish_scene(&self, snapshot_json: Arc<str>, keyframe: Frame) {
        let outgoing = OutgoingFrame { frame: Arc::new(keyframe.clone()), encoded: None };
        let mut inner = self.inner.lock().expect("hub lock");
        inner.snapshot_json = Arc::clone(&snapshot_json);
        inner.keyframe = keyframe;
        inner.slots.retain(|slot| match slot.upgrade() {
            Some(slot) => {
                slot.offer_scene(&snapshot_json, &outgoing);
                true
            }
            None => false,
        });
    }

    /// The current scene's snapshot JSON.
    pub fn snapshot_json(&self) -> Arc<str> {
        Arc::clone(&self.inner.lock().expect("hub lock").snapshot_json)
    }

    /// Offers one viewer the current snapshot and keyframe again.
    pub fn resync(&self, slot: &ClientSlot) {
        let inner = self.inner.lock().expect("hub lock");
        let keyframe = OutgoingFrame { frame: Arc::new(inner.keyframe.clone()), encoded: None };
        slot.offer_scene(&inner.snapshot_json, &keyframe);
    }

    /// Sends a JSON event to every viewer.
    pub fn broadcast(&self, message: &ServerMsg) {
        let json: Arc<str> = serde_json::to_string(message).expect("server messages serialise").into();
        // No receivers is fine: nobody is watching.
        let _ = self.events.send(json);
    }

    /// How many viewers are connected.
    pub fn viewer_count(&self) -> usize {
        let mut inner = self.inner.lock().expect("hub lock");
        inner.slots.retain(|slot| slot.strong_count() > 0);
        inner.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vlab_protocol::{BodyId, BodyPose, FrameDecoder};

    fn frame(epoch: u32, step: u64, ids: &[u32]) -> Frame {
        Frame {
            epoch,
            step,
            time: step as f64 / 240.0,
            poses: ids
                .iter()
                .map(|&id| BodyPose { id: BodyId(id), position: [step as f32; 3], rotation: [0.0, 0.0, 0.0, 1.0] })
                .collect(),
        }
    }

    #[test]
    fn a_new_viewer_gets_the_snapshot_and_every_latest_pose() {
        let hub = Hub::new("snap".into(), frame(0, 0, &[1, 2, 3]));
        hub.publish_frame(frame(0, 5, &[2]));
        let sub = hub.join();
        let pending = sub.slot.take();
        assert_eq!(pending.snapshot.as_deref(), Some("snap"));
        let keyframe = pending.frame.unwrap();
        let positions: Vec<f32> = keyframe.frame().poses.iter().map(|p| p.position[0]).collect();
        assert_eq!(positions, [0.0, 5.0, 0.0]);
        assert_eq!(keyframe.frame().step, 5);
    }

    #[test]
    fn a_slow_viewer_gets_one_merged_frame_with_everything() {
        let hub = Hub::new("snap".into(), frame(0, 0, &[]));
        let sub = hub.join();
        sub.slot.take();
        for step in 1..=100 {
            hub.publish_frame(frame(0, step, &[(step % 7) as u32]));
        }
        let pending = sub.slot.take();
        let merged = Frame::decode(&pending.frame.unwrap().into_bytes()).unwrap();
        assert_eq!(merged.step, 100);
        assert_eq!(merged.poses.len(), 7);
        for pose in &merged.poses {
            let last_moved = (1..=100u64).filter(|s| s % 7 == u64::from(pose.id.0)).max().unwrap();
            assert_eq!(pose.position[0], last_moved as f32, "body {}", pose.id.0);
        }
        assert!(sub.slot.take().frame.is_none());
    }

    #[test]
    fn a_fast_viewer_gets_the_shared_encoding() {
        let hub = Hub::new("snap".into(), frame(0, 0, &[]));
        let sub = hub.join();
        sub.slot.take();
        let published = frame(0, 1, &[4]);
        hub.publish_frame(published.clone());
        let bytes = sub.slot.take().frame.unwrap().into_bytes();
        assert_eq!(bytes, published.encode_after(&frame(0, 0, &[])));
    }

    #[test]
    fn a_viewer_that_is_sometimes_slow_always_decodes_every_latest_pose() {
        let hub = Hub::new("snap".into(), frame(0, 0, &[0, 1, 2, 3, 4, 5, 6]));
        let sub = hub.join();
        let mut decoder = FrameDecoder::new();
        let mut held = std::collections::BTreeMap::new();
        let mut receive = |bytes: Bytes| {
            for pose in decoder.decode(&bytes).unwrap().poses {
                held.insert(pose.id.0, pose.position[0]);
            }
        };
        receive(sub.slot.take().frame.unwrap().into_bytes());
        for step in 1..=200u64 {
            let mut ids = vec![(step % 7) as u32, ((step * 3) % 7) as u32];
            ids.sort_unstable();
            ids.dedup();
            hub.publish_frame(frame(0, step, &ids));
            // Taken at irregular intervals: one frame, or several merged.
            if step % 5 != 1 && step % 3 != 0 {
                receive(sub.slot.take().frame.unwrap().into_bytes());
            }
        }
        if let Some(last) = sub.slot.take().frame {
            receive(last.into_bytes());
        }
        let keyframe = hub.inner.lock().unwrap().keyframe.clone();
        assert_eq!(held.len(), keyframe.poses.len());
        for pose in &keyframe.poses {
            assert_eq!(held[&pose.id.0], pose.position[0], "body {}", pose.id.0);
        }
    }

    #[test]
    fn a_new_scene_replaces_pending_frames() {
        let hub = Hub::new("old".into(), frame(0, 0, &[1]));
        let sub = hub.join();
        hub.publish_frame(frame(0, 9, &[1]));
        hub.publish_scene("new".into(), frame(1, 0, &[1, 2]));
        let pending = sub.slot.take();
        assert_eq!(pending.snapshot.as_deref(), Some("new"));
        assert_eq!(pending.frame.unwrap().frame().epoch, 1);
    }

    #[test]
    fn departed_viewers_are_forgotten() {
        let hub = Hub::new("snap".into(), frame(0, 0, &[]));
        let a = hub.join();
        let b = hub.join();
        assert_eq!(hub.viewer_count(), 2);
        drop(a);
        hub.publish_frame(frame(0, 1, &[0]));
        assert_eq!(hub.viewer_count(), 1);
        drop(b);
        assert_eq!(hub.viewer_count(), 0);
    }

    #[tokio::test]
    async fn a_lagging_event_reader_is_told_it_lagged() {
        let hub = Hub::new("snap".into(), frame(0, 0, &[]));
        let mut sub = hub.join();
        for nonce in 0..(EVENT_BACKLOG as u64 + 10) {
            hub.broadcast(&ServerMsg::Pong { nonce });
        }
        assert!(matches!(sub.events.recv().await, Err(broadcast::error::RecvError::Lagged(_))));
    }
}
