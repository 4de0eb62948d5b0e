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
//! - a viewer that says which frames it drew ([`ClientSlot::drawn`]) is paced: at most
//!   [`MAX_FRAMES_IN_FLIGHT`] frames taken from its slot and not yet drawn; newer frames
//!   wait in the slot, merged as for a slow reader, so a page gets frames as fast as it
//!   draws them. A viewer that never says so is sent frames as fast as it reads them;
//! - JSON events (clock state, notices) go through a bounded broadcast channel; a
//!   viewer that lags behind it is resynchronised with the current state.
//!
//! The hub also keeps the keyframe: the latest pose of every moving body, which a new
//! viewer receives on joining, right after the snapshot.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, Weak};

use bytes::Bytes;
use tokio::sync::{Notify, broadcast};
use vlab_protocol::{Frame, ServerMsg};

/// How many JSON events a viewer may fall behind before it is resynchronised.
const EVENT_BACKLOG: usize = 64;

/// Most frames a paced viewer (one that acknowledges drawn frames) has been sent and not
/// yet drawn. Three keep a page that draws at 60 frames/s fed across a round trip of up
/// to about 30 ms (one frame drawn while two more are on the way), and its socket never
/// holds more than three frames of backlog.
pub const MAX_FRAMES_IN_FLIGHT: usize = 3;

/// Acknowledgements in a row, each of a single frame while the window was full, after
/// which a viewer's window grows by one frame (up to [`MAX_FRAMES_IN_FLIGHT`]). A page
/// that draws slower than frames come skips frames, and its window shrinks to one at
/// once; growing back slowly keeps it near one frame per picture drawn (about 1.1).
const GROW_AFTER: u32 = 8;

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
    mailbox: Mutex<Mailbox>,
    notify: Notify,
}

#[derive(Default)]
struct Mailbox {
    pending: Pending,
    pacing: Pacing,
}

impl Mailbox {
    /// Something is pending and the viewer's window lets it go.
    fn sendable(&self) -> bool {
        (self.pending.frame.is_some() || self.pending.snapshot.is_some()) && self.pacing.open()
    }
}

/// The frames a viewer was sent and has not drawn yet, by step, oldest first, and how
/// many it may have (its window).
///
/// Pacing starts with the viewer's first acknowledgement: before it, frames go out as
/// fast as the viewer reads them (a client that never acknowledges, such as a script or
/// an older page, is never held back). After it, at most `window` frames are in flight.
/// An acknowledgement of step `s` means the viewer drew every frame it received up to
/// one of step `s`: it releases every frame in flight up to the newest one of that step
/// (steps repeat across epochs and in a paused lab's resyncs, so the newest occurrence
/// is taken). A step that is not in flight (acknowledged already, never sent, or sent
/// before pacing started) releases nothing.
///
/// The window follows the page: an acknowledgement that releases several frames says the
/// page drew only the newest of them (it draws slower than frames come), and the window
/// drops to one frame, so the page is sent about one frame per picture; after
/// [`GROW_AFTER`] acknowledgements of one frame each while the window was full, it grows
/// by one, up to [`MAX_FRAMES_IN_FLIGHT`] (a fast page on a slow link).
#[derive(Debug)]
struct Pacing {
    acknowledging: bool,
    in_flight: VecDeque<u64>,
    window: usize,
    /// Acknowledgements of a single frame in a row while the window was full.
    single_full: u32,
}

impl Default for Pacing {
    fn default() -> Pacing {
        Pacing { acknowledging: false, in_flight: VecDeque::new(), window: MAX_FRAMES_IN_FLIGHT, single_full: 0 }
    }
}

impl Pacing {
    /// Whether another frame may be sent now.
    fn open(&self) -> bool {
        !self.acknowledging || self.in_flight.len() < self.window
    }

    /// A frame of `step` was taken to be sent.
    fn sent(&mut self, step: u64) {
        if self.acknowledging {
            self.in_flight.push_back(step);
        }
    }

    /// The viewer drew the frames up to one of `step`.
    fn drawn(&mut self, step: u64) {
        self.acknowledging = true;
        let Some(newest) = self.in_flight.iter().rposition(|&s| s == step) else { return };
        let was_full = self.in_flight.len() >= self.window;
        self.in_flight.drain(..=newest);
        if newest > 0 {
            self.window = 1;
            self.single_full = 0;
        } else if was_full {
            self.single_full += 1;
            if self.single_full >= GROW_AFTER {
                self.window = (self.window + 1).min(MAX_FRAMES_IN_FLIGHT);
                self.single_full = 0;
            }
        }
    }
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
    /// Waits until something is pending and the viewer's window lets it go (returns at
    /// once if it already does). A wake-up may find the slot empty: [`Self::take`] then
    /// returns nothing.
    pub async fn ready(&self) {
        self.notify.notified().await;
    }

    /// Takes what is pending, leaving the slot empty; nothing while a paced viewer has
    /// its window's worth of frames not yet drawn (it stays pending, merged with
    /// newer frames). A frame taken counts as in flight.
    pub fn take(&self) -> Pending {
        let mut mailbox = self.mailbox.lock().expect("slot lock");
        if !mailbox.pacing.open() {
            return Pending::default();
        }
        let pending = std::mem::take(&mut mailbox.pending);
        if let Some(frame) = &pending.frame {
            mailbox.pacing.sent(frame.frame.step);
        }
        pending
    }

    /// The viewer drew the frames it received up to one of `step` (see [`Pacing`]); what
    /// waited for its window is offered again.
    pub fn drawn(&self, step: u64) {
        let mut mailbox = self.mailbox.lock().expect("slot lock");
        mailbox.pacing.drawn(step);
        let wake = mailbox.sendable();
        drop(mailbox);
        if wake {
            self.notify.notify_one();
        }
    }

    fn offer_frame(&self, frame: &OutgoingFrame) {
        let mut mailbox = self.mailbox.lock().expect("slot lock");
        mailbox.pending.frame = Some(match mailbox.pending.frame.take() {
            None => frame.share(),
            Some(older) => older.absorb(frame),
        });
        // A viewer whose window is full is not woken for a frame it cannot be sent.
        let wake = mailbox.pacing.open();
        drop(mailbox);
        if wake {
            self.notify.notify_one();
        }
    }

    fn offer_scene(&self, snapshot: &Arc<str>, keyframe: &OutgoingFrame) {
        let mut mailbox = self.mailbox.lock().expect("slot lock");
        mailbox.pending.snapshot = Some(Arc::clone(snapshot));
        // Poses of an older scene mean nothing in the new one.
        mailbox.pending.frame = Some(keyframe.share());
        let wake = mailbox.pacing.open();
        drop(mailbox);
        if wake {
            self.notify.notify_one();
        }
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

    /// Takes the pending frame's step, or `None` when nothing may be taken; as the
    /// connection does, after the wake-up that said so (if any).
    fn take_step(sub: &Subscription) -> Option<u64> {
        use futures_util::FutureExt;
        let _ = sub.slot.ready().now_or_never();
        sub.slot.take().frame.map(|f| f.frame().step)
    }

    fn is_ready(sub: &Subscription) -> bool {
        use futures_util::FutureExt;
        sub.slot.ready().now_or_never().is_some()
    }

    #[test]
    fn a_viewer_that_never_acknowledges_gets_every_frame() {
        let hub = Hub::new("snap".into(), frame(0, 0, &[]));
        let sub = hub.join();
        sub.slot.take();
        for step in 1..=(MAX_FRAMES_IN_FLIGHT as u64 * 4) {
            hub.publish_frame(frame(0, step, &[1]));
            assert_eq!(take_step(&sub), Some(step));
        }
    }

    #[test]
    fn a_paced_viewer_has_at_most_the_window_in_flight() {
        let hub = Hub::new("snap".into(), frame(0, 0, &[]));
        let sub = hub.join();
        assert_eq!(take_step(&sub), Some(0));
        sub.slot.drawn(0);
        for step in 1..=MAX_FRAMES_IN_FLIGHT as u64 {
            hub.publish_frame(frame(0, step, &[1]));
            assert_eq!(take_step(&sub), Some(step));
        }
        hub.publish_frame(frame(0, 10, &[1]));
        assert!(!is_ready(&sub), "a full window is not woken for a new frame");
        assert_eq!(take_step(&sub), None, "the window is full");
        // Drawing the first frame in flight frees one place: the waiting frame goes.
        sub.slot.drawn(1);
        assert!(is_ready(&sub));
        assert_eq!(take_step(&sub), Some(10));
        hub.publish_frame(frame(0, 11, &[1]));
        assert_eq!(take_step(&sub), None, "2, 3 and 10 are in flight");
        // Drawing a later frame releases every earlier one too.
        sub.slot.drawn(10);
        assert_eq!(take_step(&sub), Some(11));
    }

    #[test]
    fn a_page_that_skips_frames_gets_one_per_picture_and_a_fast_one_gets_every_frame() {
        let hub = Hub::new("snap".into(), frame(0, 0, &[]));
        let slow = hub.join();
        let fast = hub.join();
        for sub in [&slow, &fast] {
            sub.slot.take();
            sub.slot.drawn(0);
        }
        let (mut slow_frames, mut fast_frames, mut pictures) = (0, 0, 0);
        let mut slow_newest = None;
        for step in 1..=600u64 {
            hub.publish_frame(frame(0, step, &[1]));
            // The fast page draws every frame as it comes.
            let drawn = take_step(&fast).expect("the fast page's window is never full");
            fast.slot.drawn(drawn);
            fast_frames += 1;
            // The slow page reads what comes, and draws (the newest) every third step.
            if let Some(step) = take_step(&slow) {
                slow_newest = Some(step);
                slow_frames += 1;
            }
            if step % 3 == 0
                && let Some(newest) = slow_newest.take()
            {
                slow.slot.drawn(newest);
                pictures += 1;
            }
        }
        assert_eq!(fast_frames, 600);
        assert_eq!(pictures, 200);
        // About one frame per picture: the window grows back to two only once in a while.
        assert!(slow_frames <= pictures + pictures / GROW_AFTER as usize + 2, "{slow_frames} frames");
        assert!(slow_frames >= pictures, "{slow_frames} frames");
    }

    #[test]
    fn the_window_grows_back_when_the_page_draws_every_frame() {
        let mut pacing = Pacing::default();
        pacing.drawn(0);
        for step in 1..=3 {
            pacing.sent(step);
        }
        pacing.drawn(3);
        assert_eq!(pacing.window, 1, "two frames were skipped");
        let mut step = 3;
        for round in 1..=(GROW_AFTER * 2) {
            while pacing.open() {
                step += 1;
                pacing.sent(step);
            }
            // Only the oldest in flight drawn: one frame, while the window was full.
            let oldest = pacing.in_flight[0];
            pacing.drawn(oldest);
            let expected = (1 + (round / GROW_AFTER) as usize).min(MAX_FRAMES_IN_FLIGHT);
            assert_eq!(pacing.window, expected, "round {round}");
        }
    }

    #[test]
    fn acknowledging_old_or_unknown_steps_releases_nothing() {
        let hub = Hub::new("snap".into(), frame(0, 0, &[]));
        let sub = hub.join();
        sub.slot.take();
        sub.slot.drawn(0);
        for step in 1..=MAX_FRAMES_IN_FLIGHT as u64 {
            hub.publish_frame(frame(0, step, &[1]));
            take_step(&sub);
        }
        hub.publish_frame(frame(0, 50, &[1]));
        for unknown in [0, 7, 50, 99, u64::MAX] {
            sub.slot.drawn(unknown);
            assert!(!is_ready(&sub), "step {unknown}");
            assert_eq!(take_step(&sub), None, "step {unknown} is no frame in flight");
        }
        sub.slot.drawn(1);
        assert_eq!(take_step(&sub), Some(50));
        hub.publish_frame(frame(0, 51, &[1]));
        assert_eq!(take_step(&sub), None, "2, 3 and 50 are in flight");
        // Step 1 again: drawn already.
        sub.slot.drawn(1);
        assert_eq!(take_step(&sub), None);
        sub.slot.drawn(2);
        assert_eq!(take_step(&sub), Some(51));
    }

    #[test]
    fn a_paused_viewer_gets_every_latest_pose_merged_when_it_draws() {
        let hub = Hub::new("snap".into(), frame(0, 0, &[0, 1, 2, 3, 4, 5, 6]));
        let sub = hub.join();
        let mut decoder = FrameDecoder::new();
        let mut held = std::collections::BTreeMap::new();
        let mut receive = |bytes: Bytes| {
            let frame = decoder.decode(&bytes).unwrap();
            for pose in &frame.poses {
                held.insert(pose.id.0, pose.position[0]);
            }
            frame.step
        };
        let first = receive(sub.slot.take().frame.unwrap().into_bytes());
        sub.slot.drawn(first);
        let mut last_drawn = first;
        let mut received = Vec::new();
        let mut frames = 0;
        for step in 1..=300u64 {
            let mut ids = vec![(step % 7) as u32, ((step * 5) % 7) as u32];
            ids.sort_unstable();
            ids.dedup();
            hub.publish_frame(frame(0, step, &ids));
            // The viewer reads whatever it may, and draws only every tenth step: most
            // frames wait in the slot, merged.
            if let Some(frame) = sub.slot.take().frame {
                received.push(receive(frame.into_bytes()));
                frames += 1;
                assert!(received.len() <= MAX_FRAMES_IN_FLIGHT, "{received:?}");
            }
            if step % 10 == 0
                && let Some(&newest) = received.last()
            {
                sub.slot.drawn(newest);
                last_drawn = newest;
                received.clear();
            }
        }
        // At most a window's worth between two draws.
        assert!(frames <= 30 * MAX_FRAMES_IN_FLIGHT + 1, "{frames} frames");
        sub.slot.drawn(*received.last().unwrap_or(&last_drawn));
        if let Some(last) = sub.slot.take().frame {
            assert_eq!(receive(last.into_bytes()), 300);
        }
        let keyframe = hub.inner.lock().unwrap().keyframe.clone();
        assert_eq!(held.len(), keyframe.poses.len());
        for pose in &keyframe.poses {
            assert_eq!(held[&pose.id.0], pose.position[0], "body {}", pose.id.0);
        }
    }

    #[test]
    fn a_new_scene_waits_for_the_window_too() {
        let hub = Hub::new("old".into(), frame(0, 0, &[1]));
        let sub = hub.join();
        sub.slot.take();
        sub.slot.drawn(0);
        for step in 1..=MAX_FRAMES_IN_FLIGHT as u64 {
            hub.publish_frame(frame(0, step, &[1]));
            sub.slot.take();
        }
        hub.publish_scene("new".into(), frame(1, 0, &[1, 2]));
        assert!(sub.slot.take().snapshot.is_none());
        sub.slot.drawn(MAX_FRAMES_IN_FLIGHT as u64);
        let pending = sub.slot.take();
        assert_eq!(pending.snapshot.as_deref(), Some("new"));
        assert_eq!(pending.frame.unwrap().frame().epoch, 1);
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
