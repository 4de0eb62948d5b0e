//! What the websocket client hands on: every message, once the connection has taken its own part of it, goes to the features through a [`Receiver`] the lab page gives the client.
//!
//! The connection knows no feature: the clock, the role, the lab's name and errors are
//! its own; who is online, robots, plots, the timeline and the 3D view are theirs.

use vlab_protocol::{CameraView, Frame, ServerMsg};

/// The page's features, as the websocket client sees them.
pub trait Receiver {
    /// A server message; the connection already took what it keeps (the protocol
    /// check, the role, the lab's name and state, errors).
    fn message(&self, message: ServerMsg);
    /// Whether live frames move the 3D view now (not while a recorded moment is shown).
    fn view_follows_live(&self) -> bool;
    /// A live frame for the 3D view; whether it moved the bodies (it was of the scene
    /// shown and newer), so the clock follows it.
    fn frame(&self, frame: &Frame) -> bool;
    /// An image of the camera this page watches.
    fn camera_view(&self, view: CameraView);
    /// The socket opened again: the server knows nothing of what this page was replaying.
    fn reconnected(&self);
}
