//! Telling the server which frames the page drew, so that it sends frames only as fast
//! as the page draws them.
//!
//! The websocket client notes every frame it receives (`frame_received`) and what the
//! server says of how often to acknowledge (`pacing`); the render loop, after each
//! animation frame (whether it drew or had nothing new to draw: either way the page
//! shows everything it received), calls `frames_drawn`, which sends `drawn` when
//! `vlab_protocol::DrawnFrames` says one is due. The server then keeps at most a few
//! frames sent and not yet drawn, and holds newer poses merged (newest wins): a page
//! that draws 20 pictures a second receives about 20 frames, a fast one every frame (and
//! says so every second frame). A hidden tab gets no animation frames, so it says
//! nothing and the server sends it nothing more until it is shown again; then the next
//! animation frame acknowledges what it holds and the latest poses follow.

use std::cell::RefCell;

use vlab_protocol::DrawnFrames;
use web_sys::WebSocket;

/// The page's one lab connection: its open socket and what it received.
#[derive(Default)]
struct Acknowledger {
    socket: Option<WebSocket>,
    frames: DrawnFrames,
}

thread_local! {
    static ACKNOWLEDGER: RefCell<Acknowledger> = RefCell::default();
}

/// The socket frames now arrive on (`None`: closed); nothing received on it yet.
pub(crate) fn use_socket(socket: Option<WebSocket>) {
    ACKNOWLEDGER.with_borrow_mut(|this| {
        this.socket = socket;
        this.frames.reset();
    });
}

/// A frame of `step` arrived.
pub(crate) fn frame_received(step: u64) {
    ACKNOWLEDGER.with_borrow_mut(|this| this.frames.received(step));
}

/// The server's `pacing`: acknowledge once `drawn_every` frames arrived.
pub(crate) fn pacing(drawn_every: u32) {
    ACKNOWLEDGER.with_borrow_mut(|this| this.frames.pacing(drawn_every));
}

/// The render loop finished an animation frame: acknowledges what arrived before it,
/// when due.
pub(crate) fn frames_drawn() {
    ACKNOWLEDGER.with_borrow_mut(|this| {
        let Some(socket) = &this.socket else { return };
        let Some(message) = this.frames.drawn() else { return };
        if let Ok(json) = serde_json::to_string(&message) {
            // A socket closing meanwhile is reopened with a fresh state.
            let _ = socket.send_with_str(&json);
        }
    });
}
