//! The timeline's two requests: seek a recorded step (the replay state changes first, so whatever arrives meanwhile is judged by it) and go back to live.

use leptos::prelude::*;
use vlab_protocol::{ClientMsg, MAX_SEEK_ROBOTS};

use crate::connection::LabSession;
use crate::timeline::replay::{Replay, Target};
use crate::view3d::overlay::Overlay;

/// Asks the server for the moment at `target`, with the picked robot's readings and
/// trails.
pub fn send_seek(session: LabSession, target: Target) {
    let current_run = session.recording.with_untracked(|summary| summary.as_ref().map_or(0, |s| s.run));
    let epoch = session.replay.try_update(|replay| replay.seek(target, current_run)).flatten();
    let robots = session.inspected.get_untracked().into_iter().take(MAX_SEEK_ROBOTS).collect();
    if !session.send(&ClientMsg::Seek { run: target.run, step: target.step, epoch, robots }) {
        session.error.set(Some("Not connected to the server: the timeline cannot show that moment now".into()));
    }
}

/// Back to the live lab: the server sends its scene and poses again; the replayed
/// trails go (the live ones start over) and the inspector's next report is live.
pub fn go_live(session: LabSession) {
    if session.replay.try_update(Replay::go_live).unwrap_or(false) {
        session.send(&ClientMsg::Live);
        session.overlay.update_value(Overlay::forget);
        session.belief.set(None);
    }
}
