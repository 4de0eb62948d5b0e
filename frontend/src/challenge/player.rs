//! What plays a recorded attempt in the 3D view: the replay shown, its time, whether it
//! plays; shared by the lab's Challenge panel and a graded trial watched from a class.

use leptos::prelude::*;

use super::replay::ReplayTrack;
use crate::view3d::ViewState;

/// Handles to a replay's state; `Copy`, so every component and callback takes its own.
#[derive(Clone, Copy)]
pub struct ReplayPlayer {
    /// The attempt shown.
    pub replay: RwSignal<Option<ReplayTrack>>,
    /// The replay's time shown, seconds.
    pub time: RwSignal<f64>,
    /// Whether the replay plays.
    pub playing: RwSignal<bool>,
}

impl ReplayPlayer {
    /// Nothing shown.
    pub fn new() -> ReplayPlayer {
        ReplayPlayer { replay: RwSignal::new(None), time: RwSignal::new(0.0), playing: RwSignal::new(false) }
    }

    /// Shows `track` in `view` (its world and zones), from its start, playing.
    pub fn show(&self, view: ViewState, track: ReplayTrack) {
        view.live_world.set(false);
        view.show_scene(track.scene());
        self.replay.set(Some(track));
        self.time.set(0.0);
        self.seek(view, 0.0);
        self.playing.set(true);
    }

    /// The replay at `time`: its bodies there, the readout too.
    pub fn seek(&self, view: ViewState, time: f64) {
        let Some(frame) = self.replay.with_untracked(|track| track.as_ref().and_then(|t| t.frame_at(time))) else {
            return;
        };
        self.time.set(time.clamp(0.0, self.duration_untracked()));
        view.place(&frame);
    }

    /// The replay's length, seconds (0 with none shown; reactive).
    pub fn duration(&self) -> f64 {
        self.replay.with(|track| track.as_ref().map_or(0.0, ReplayTrack::duration))
    }

    /// [`ReplayPlayer::duration`], untracked.
    pub fn duration_untracked(&self) -> f64 {
        self.replay.with_untracked(|track| track.as_ref().map_or(0.0, ReplayTrack::duration))
    }

    /// Stops and shows nothing.
    pub fn close(&self) {
        self.playing.set(false);
        self.replay.set(None);
    }
}
