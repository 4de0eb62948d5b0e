//! Telling the server which frames the page drew, so that it sends frames only as fast
//! as the page draws them.
//!
//! The websocket client notes every frame it receives ([`DrawnFrames::received`]); the
//! render loop, after each animation frame (whether it drew or had nothing new to draw:
//! either way the page shows everything it received), sends `{"type":"drawn","step":S}`
//! with the newest step received since it last said so ([`DrawnFrames::drawn`]). The
//! server then keeps at most a few frames sent and not yet drawn, and holds newer poses
//! merged (newest wins): a page that draws 20 pictures a second receives about 20
//! frames, a fast one every frame. A hidden tab gets no animation frames, so it says
//! nothing and the server sends it nothing more until it is shown again; then the next
//! animation frame acknowledges what it holds and the latest poses follow.

/// The frames received on the current socket and the last one said to be drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DrawnFrames {
    /// The newest frame's step, when one came since the last acknowledgement.
    unacknowledged: Option<u64>,
}

impl DrawnFrames {
    /// A frame of `step` arrived (decoded, whether or not the view shows its epoch).
    pub fn received(&mut self, step: u64) {
        self.unacknowledged = Some(step);
    }

    /// The page drew: the step to acknowledge, once for every batch of frames received.
    /// A frame that repeats the last step acknowledged (a paused lab's resync) is
    /// acknowledged again: it is another frame in flight.
    pub fn drawn(&mut self) -> Option<u64> {
        self.unacknowledged.take()
    }

    /// A new socket: nothing received on it yet.
    pub fn reset(&mut self) {
        self.unacknowledged = None;
    }
}

#[cfg(target_arch = "wasm32")]
mod page {
    use std::cell::RefCell;

    use vlab_protocol::ClientMsg;
    use web_sys::WebSocket;

    use super::DrawnFrames;

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
    pub fn use_socket(socket: Option<WebSocket>) {
        ACKNOWLEDGER.with_borrow_mut(|this| {
            this.socket = socket;
            this.frames.reset();
        });
    }

    /// A frame of `step` arrived.
    pub fn frame_received(step: u64) {
        ACKNOWLEDGER.with_borrow_mut(|this| this.frames.received(step));
    }

    /// The render loop finished an animation frame: acknowledges what arrived before it.
    pub fn frames_drawn() {
        ACKNOWLEDGER.with_borrow_mut(|this| {
            let Some(socket) = &this.socket else { return };
            let Some(step) = this.frames.drawn() else { return };
            if let Ok(json) = serde_json::to_string(&ClientMsg::Drawn { step }) {
                // A socket closing meanwhile is reopened with a fresh state.
                let _ = socket.send_with_str(&json);
            }
        });
    }
}

#[cfg(target_arch = "wasm32")]
pub(crate) use page::{frame_received, frames_drawn, use_socket};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_frame_received_is_acknowledged_once_after_a_picture() {
        let mut frames = DrawnFrames::default();
        assert_eq!(frames.drawn(), None, "nothing received yet");
        frames.received(4);
        frames.received(8);
        frames.received(12);
        assert_eq!(frames.drawn(), Some(12), "the newest of the frames drawn together");
        assert_eq!(frames.drawn(), None, "nothing new since");
        frames.received(12);
        assert_eq!(frames.drawn(), Some(12), "a repeated step is another frame");
    }

    #[test]
    fn a_new_socket_forgets_the_old_one_s_frames() {
        let mut frames = DrawnFrames::default();
        frames.received(100);
        frames.reset();
        assert_eq!(frames.drawn(), None);
        frames.received(0);
        assert_eq!(frames.drawn(), Some(0));
    }
}
