//! Live camera images for the pages that asked to watch a camera (the inspector's
//! robot's-eye view), as binary `CameraView` messages.
//!
//! As with robot reports (`telemetry`): pages say which camera they watch (one per
//! connection), the lab's thread renders nothing for them but, when it publishes its
//! reports (about ten times a second of wall clock), encodes the newest image of each
//! watched camera that changed since and publishes them on a `watch` channel. A page
//! takes the newest image of its camera when it can: a slow page skips images and
//! never holds the lab back, and no image is encoded for a camera nobody watches.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use tokio::sync::watch;
use vlab_protocol::CameraView;

use vlab_sim::robot::Robots;

/// A camera: its robot's name and its own.
pub type CameraKey = (String, String);

/// The latest encoded image of each watched camera, with the step it was taken after.
pub type Views = Arc<BTreeMap<CameraKey, (u64, bytes::Bytes)>>;

/// Which cameras pages watch, and their latest images.
pub struct CameraFeed {
    interest: Mutex<BTreeMap<CameraKey, usize>>,
    latest: watch::Sender<Views>,
}

impl Default for CameraFeed {
    fn default() -> Self {
        CameraFeed { interest: Mutex::new(BTreeMap::new()), latest: watch::Sender::new(Arc::default()) }
    }
}

impl CameraFeed {
    /// On the lab's thread: publishes the newest image of every watched camera, encoding
    /// only those taken since the last publication. Does nothing while nobody watches.
    pub fn publish(&self, robots: &Robots) {
        let wanted: Vec<CameraKey> = self.interest.lock().expect("camera interest lock").keys().cloned().collect();
        let before = self.latest.borrow().clone();
        if wanted.is_empty() {
            if !before.is_empty() {
                self.latest.send_replace(Arc::default());
            }
            return;
        }
        let mut changed = wanted.len() != before.len();
        let mut views = BTreeMap::new();
        let mut rgb = Vec::new();
        for key in wanted {
            let Some(sensor) = robots.get(&key.0).and_then(|r| r.sensors().iter().find(|s| s.name() == key.1)) else {
                continue;
            };
            let (Some(camera), Some(reading)) = (sensor.camera(), sensor.last()) else { continue };
            if let Some(kept) = before.get(&key).filter(|(step, _)| *step == reading.step) {
                views.insert(key, kept.clone());
                continue;
            }
            camera.view(&mut rgb);
            let (width, height) = camera.size();
            let view = CameraView {
                robot: key.0.clone(),
                sensor: key.1.clone(),
                step: reading.step,
                width: width as u16,
                height: height as u16,
                depth: sensor.kind() == "DepthCamera",
                rgb: std::mem::take(&mut rgb),
            };
            views.insert(key, (reading.step, bytes::Bytes::from(view.encode())));
            rgb = view.rgb;
            changed = true;
        }
        if changed {
            self.latest.send_replace(Arc::new(views));
        }
    }

    /// A connection's view: it watches no camera yet.
    pub fn watcher(self: &Arc<Self>) -> CameraWatcher {
        CameraWatcher { feed: Arc::clone(self), camera: None, sent: None, receiver: self.latest.subscribe() }
    }
}

/// The camera one connection watches. Dropping it withdraws its interest.
pub struct CameraWatcher {
    feed: Arc<CameraFeed>,
    camera: Option<CameraKey>,
    /// The step of the last image this connection was given.
    sent: Option<u64>,
    receiver: watch::Receiver<Views>,
}

impl CameraWatcher {
    /// Watches camera `sensor` of `robot` (the caller checked that the robot may be
    /// watched), instead of the one watched so far. Its image so far, if any, is then
    /// [`Self::newest`].
    pub fn watch(&mut self, robot: &str, sensor: &str) {
        self.unwatch();
        let key = (robot.to_owned(), sensor.to_owned());
        *self.feed.interest.lock().expect("camera interest lock").entry(key.clone()).or_default() += 1;
        self.camera = Some(key);
    }

    /// Watches no camera.
    pub fn unwatch(&mut self) {
        if let Some(key) = self.camera.take() {
            let mut interest = self.feed.interest.lock().expect("camera interest lock");
            if let Some(count) = interest.get_mut(&key) {
                *count -= 1;
                if *count == 0 {
                    interest.remove(&key);
                }
            }
        }
        self.sent = None;
    }

    /// A receiver of the images' channel, to wait for new images apart from this
    /// watcher (a connection waits on it while it changes what it watches).
    pub fn updates(&self) -> watch::Receiver<Views> {
        self.receiver.clone()
    }

    /// The watched camera's newest image if it is newer than the last one given (and
    /// marks it given); nothing otherwise.
    pub fn newest(&mut self) -> Option<bytes::Bytes> {
        let (step, bytes) = {
            let views = self.receiver.borrow_and_update();
            let (step, bytes) = self.camera.as_ref().and_then(|key| views.get(key))?;
            (*step, bytes.clone())
        };
        if self.sent == Some(step) {
            return None;
        }
        self.sent = Some(step);
        Some(bytes)
    }
}

impl Drop for CameraWatcher {
    fn drop(&mut self) {
        self.unwatch();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interest_follows_watchers_and_ends_with_them() {
        let feed = Arc::new(CameraFeed::default());
        let mut a = feed.watcher();
        let mut b = feed.watcher();
        a.watch("bot", "eye");
        b.watch("bot", "eye");
        b.watch("bot", "depth");
        let wanted = |feed: &CameraFeed| feed.interest.lock().unwrap().clone();
        assert_eq!(
            wanted(&feed),
            BTreeMap::from([(("bot".into(), "depth".into()), 1), (("bot".into(), "eye".into()), 1)])
        );
        drop(a);
        b.unwatch();
        assert!(wanted(&feed).is_empty());
    }
}
