//! Staying connected to one lab: the websocket client, the connection's state and reconnection, the session's reactive state, the lab's clock, and the hand-over of every message to the features.
//!
//! Pure, host-tested: [`state`] (what the page says about the connection), [`reconnect`]
//! (the backoff and what each close code means), [`clock`] (step and sim time, newest
//! wins). Web only: `session` (the connection's signals and the way to send), `ws_client`
//! (the socket, which writes them and hands every message on to the features through a
//! `receiver`), `drawn` (telling the server which frames the page drew,
//! by the protocol's `DrawnFrames`), and the pieces that show them: the error banner,
//! the connection indicator, the clock readout and the time controls.

pub mod clock;
#[cfg(target_arch = "wasm32")]
pub(crate) mod drawn;
pub mod reconnect;
pub mod rewind;
pub mod state;

#[cfg(target_arch = "wasm32")]
mod clock_readout;
#[cfg(target_arch = "wasm32")]
mod error_banner;
#[cfg(target_arch = "wasm32")]
mod indicator;
#[cfg(target_arch = "wasm32")]
mod receiver;
#[cfg(target_arch = "wasm32")]
pub(crate) mod session;
#[cfg(target_arch = "wasm32")]
mod time_controls;
#[cfg(target_arch = "wasm32")]
pub(crate) mod ws_client;

#[cfg(target_arch = "wasm32")]
pub(crate) use self::clock_readout::ClockReadout;
#[cfg(target_arch = "wasm32")]
pub(crate) use self::error_banner::ErrorBanner;
#[cfg(target_arch = "wasm32")]
pub(crate) use self::indicator::ConnectionStatus;
#[cfg(target_arch = "wasm32")]
pub(crate) use self::receiver::Receiver;
#[cfg(target_arch = "wasm32")]
pub(crate) use self::session::LabSession;
#[cfg(target_arch = "wasm32")]
pub(crate) use self::time_controls::TimeControls;
