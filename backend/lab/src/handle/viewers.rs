//! What a lab's viewers receive: joining its hub, the scene as they have it, robot
//! reports and cameras they watch, and notices.

use std::sync::Arc;

use vlab_protocol::ServerMsg;

use super::LabHandle;
use crate::camera_feed::CameraWatcher;
use crate::hub::{Subscription, ViewerMailbox};
use crate::telemetry::Watcher;

/// The viewers of one lab.
#[derive(Clone, Copy)]
pub struct LabViewers<'a> {
    pub(super) lab: &'a LabHandle,
}

impl LabViewers<'_> {
    /// Joins the lab's viewers.
    pub fn subscribe(self) -> Subscription {
        self.lab.hub.join()
    }

    /// The scene as viewers have it now (`SceneSnapshot` JSON).
    pub fn snapshot_json(self) -> Arc<str> {
        self.lab.hub.snapshot_json()
    }

    /// Sends one viewer the current scene and keyframe again (back to live after
    /// seeking).
    pub fn resync(self, slot: &ViewerMailbox) {
        self.lab.hub.resync(slot);
    }

    /// A view of the robot reports a connection asks for.
    pub fn telemetry(self) -> Watcher {
        self.lab.telemetry.watcher()
    }

    /// A connection's view of the lab's cameras (the robot's-eye view).
    pub fn camera_watcher(self) -> CameraWatcher {
        self.lab.telemetry.cameras.watcher()
    }

    /// Tells every page the challenge board changed (they fetch the rows they may see).
    pub fn board_changed(self) {
        self.lab.hub.broadcast(&ServerMsg::BoardChanged);
    }

    /// Sends a notice from `from` to everybody watching.
    pub fn notice(self, from: &str, message: &str) {
        self.lab.hub.broadcast(&ServerMsg::Notice { from: from.to_owned(), message: message.to_owned() });
    }
}
