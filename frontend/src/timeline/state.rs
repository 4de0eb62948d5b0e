//! The timeline's state: what the lab has recorded, and whether the page shows the live lab or a recorded moment (which decides what the live messages still move).

use leptos::prelude::*;
use vlab_protocol::RecordingSummary;

use super::replay::{Phase, Replay};

/// Handles to the timeline's state; `Copy`, so every component and callback takes its own.
#[derive(Clone, Copy)]
pub struct TimelineState {
    /// What the lab has recorded (from Recording): the timeline's bounds.
    pub recording: RwSignal<Option<RecordingSummary>>,
    /// Whether the page shows the live lab or a recorded moment.
    pub replay: RwSignal<Replay>,
}

impl TimelineState {
    /// Nothing recorded yet; live.
    pub fn new() -> TimelineState {
        TimelineState { recording: RwSignal::new(None), replay: RwSignal::new(Replay::default()) }
    }

    /// What the lab has recorded, from Recording.
    pub fn take_recording(&self, summary: RecordingSummary) {
        self.recording.set(Some(summary));
    }

    /// Whether live frames move the 3D view now.
    pub fn view_follows_live(&self) -> bool {
        self.replay.with_untracked(Replay::view_follows_live)
    }

    /// Whether live reports and beliefs move the inspector now (its plots freeze while a
    /// recorded moment is shown).
    pub fn inspector_follows_live(&self) -> bool {
        self.replay.with_untracked(Replay::inspector_follows_live)
    }

    /// Whether the live scene of `epoch` is shown now: while a recorded moment is shown
    /// it waits, and going live brings it again.
    pub fn shows_live_snapshot(&self, epoch: u32) -> bool {
        self.replay.try_update(|replay| replay.live_snapshot(epoch)).unwrap_or(true)
    }

    /// A new connection: the server knows nothing of what this page was replaying, so
    /// it starts live; whether it was replaying.
    pub fn reconnected(&self) -> bool {
        let was_replaying = self.replay.with_untracked(|replay| replay.phase() != Phase::Live);
        self.replay.update(Replay::reconnected);
        was_replaying
    }
}
