//! When a viewer says which frames it drew ([`ClientMsg::Drawn`]), so that the server
//! sends frames only as fast as the viewer draws them: the rule the page and the load
//! tool both follow.
//!
//! A viewer notes every frame it receives ([`DrawnFrames::received`]) and, after each
//! picture it draws (whether it drew or had nothing new to draw: either way it shows
//! everything it received), asks [`DrawnFrames::drawn`] whether to say so now. It says
//! so once `drawn_every` frames arrived since it last did, counting the pictures that
//! showed them; the server sets `drawn_every` ([`ServerMsg::Pacing`]) from how many
//! frames it keeps in flight for the viewer, and it is 1 until the server says
//! otherwise. Saying it less often halves what a fast page costs the server (every
//! `drawn` is a message to read) without changing what it is sent: the server always
//! has room for the frames the viewer holds unacknowledged.
//!
//! [`ServerMsg::Pacing`]: crate::ServerMsg::Pacing

use crate::ClientMsg;

/// The frames a viewer received since it last said which it drew.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawnFrames {
    /// The newest frame's step, when one came since the last `drawn`.
    newest: Option<u64>,
    /// Frames received since the last `drawn`.
    frames: u32,
    /// Pictures since the last `drawn` that showed a new frame.
    pictures: u32,
    /// Whether a frame came since the last picture.
    new_since_picture: bool,
    /// Frames to receive between two `drawn`s, as the server said.
    drawn_every: u32,
}

impl Default for DrawnFrames {
    fn default() -> DrawnFrames {
        DrawnFrames { newest: None, frames: 0, pictures: 0, new_since_picture: false, drawn_every: 1 }
    }
}

impl DrawnFrames {
    /// A frame of `step` arrived (decoded, whether or not the view shows its epoch).
    pub fn received(&mut self, step: u64) {
        self.newest = Some(step);
        self.frames = self.frames.saturating_add(1);
        self.new_since_picture = true;
    }

    /// The server's [`crate::ServerMsg::Pacing`]: say `drawn` once `drawn_every` frames
    /// arrived (0 is taken as 1).
    pub fn pacing(&mut self, drawn_every: u32) {
        self.drawn_every = drawn_every.max(1);
    }

    /// A picture was drawn: the `drawn` message to send now, if one is due. A frame that
    /// repeats the last step acknowledged (a paused lab's resync) counts as another frame
    /// in flight.
    pub fn drawn(&mut self) -> Option<ClientMsg> {
        if std::mem::take(&mut self.new_since_picture) {
            self.pictures = self.pictures.saturating_add(1);
        }
        if self.frames < self.drawn_every {
            return None;
        }
        let step = self.newest.take()?;
        let pictures = self.pictures.max(1);
        self.frames = 0;
        self.pictures = 0;
        Some(ClientMsg::Drawn { step, pictures: Some(pictures) })
    }

    /// A new socket: nothing received on it yet, and its server has said nothing.
    pub fn reset(&mut self) {
        *self = DrawnFrames::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drawn(step: u64, pictures: u32) -> Option<ClientMsg> {
        Some(ClientMsg::Drawn { step, pictures: Some(pictures) })
    }

    #[test]
    fn until_told_the_newest_frame_is_acknowledged_after_every_picture_that_showed_one() {
        let mut frames = DrawnFrames::default();
        assert_eq!(frames.drawn(), None, "nothing received yet");
        frames.received(4);
        frames.received(8);
        frames.received(12);
        assert_eq!(frames.drawn(), drawn(12, 1), "the newest of the frames drawn together");
        assert_eq!(frames.drawn(), None, "nothing new since");
        frames.received(12);
        assert_eq!(frames.drawn(), drawn(12, 1), "a repeated step is another frame");
    }

    #[test]
    fn told_to_say_it_every_second_frame_it_counts_the_pictures_between() {
        let mut frames = DrawnFrames::default();
        frames.pacing(2);
        frames.received(4);
        assert_eq!(frames.drawn(), None, "one frame of two");
        assert_eq!(frames.drawn(), None, "a picture with nothing new");
        frames.received(8);
        assert_eq!(frames.drawn(), drawn(8, 2), "two pictures showed the two frames");
        frames.received(12);
        frames.received(16);
        assert_eq!(frames.drawn(), drawn(16, 1), "two frames in one picture: it skipped one");
        frames.received(20);
        frames.pacing(1);
        assert_eq!(frames.drawn(), drawn(20, 1), "told every frame, the frame held is said at once");
    }

    #[test]
    fn zero_is_every_frame() {
        let mut frames = DrawnFrames::default();
        frames.pacing(0);
        frames.received(1);
        assert_eq!(frames.drawn(), drawn(1, 1));
    }

    #[test]
    fn a_new_socket_forgets_the_old_one_s_frames_and_pacing() {
        let mut frames = DrawnFrames::default();
        frames.pacing(2);
        frames.received(100);
        frames.reset();
        assert_eq!(frames.drawn(), None);
        frames.received(0);
        assert_eq!(frames.drawn(), drawn(0, 1), "every frame until the new server says otherwise");
    }
}
