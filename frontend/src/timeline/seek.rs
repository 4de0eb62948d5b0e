//! The timeline's two requests: seek a recorded step (the replay state changes first, so whatever arrives meanwhile is judged by it) and go back to live.

use leptos::prelude::*;
use vlab_protocol::{ClientMsg, MAX_SEEK_ROBOTS};

use super::TimelineState;
use super::replay::{Replay, Target};
use crate::connection::LabSession;
use crate::inspector::InspectorState;

/// What a seek touches: the connection it goes through, the replay it moves, and the
/// picked robot whose readings and trails it asks for; `Copy`.
#[derive(Clone, Copy)]
pub struct Seeker {
    /// The connection.
    pub session: LabSession,
    /// The replay state.
    pub timeline: TimelineState,
    /// The picked robot and its trails.
    pub inspector: InspectorState,
}

impl Seeker {
    /// The seeker of the lab page this component is on.
    pub fn from_context() -> Seeker {
        Seeker { session: expect_context(), timeline: expect_context(), inspector: expect_context() }
    }

    /// Asks the server for the moment at `target`, with the picked robot's readings and
    /// trails.
    pub fn seek(&self, target: Target) {
        let Seeker { session, timeline, inspector } = *self;
        let current_run = timeline.recording.with_untracked(|summary| summary.as_ref().map_or(0, |s| s.run));
        let epoch = timeline.replay.try_update(|replay| replay.seek(target, current_run)).flatten();
        let robots = inspector.inspected.get_untracked().into_iter().take(MAX_SEEK_ROBOTS).collect();
        if !session.send(&ClientMsg::Seek { run: target.run, step: target.step, epoch, robots }) {
            session.error.set(Some("Not connected to the server: the timeline cannot show that moment now".into()));
        }
    }

    /// Back to the live lab: the server sends its scene and poses again; the replayed
    /// trails go (the live ones start over) and the inspector's next report is live.
    pub fn go_live(&self) {
        if self.timeline.replay.try_update(Replay::go_live).unwrap_or(false) {
            self.session.send(&ClientMsg::Live);
            self.inspector.forget_trails();
            self.inspector.belief.set(None);
        }
    }
}
