//! The timeline under the 3D view: any viewer scrubs the lab's recording back to a kept step and sees that moment (poses, the picked robot's readings and trails) while the live lab goes on; back to live; the recording's downloads; the instructor's rewind.
//!
//! Pure, host-tested: [`time_text`] (sim time as `mm:ss.s`), [`throttle`] (at most one
//! seek per interval while the thumb is dragged, and the last one on release), [`span`]
//! (the slider's bounds from the recording summary and the live clock, step ↔ time, the
//! run picker, the note when the oldest part was dropped), [`replay`] (live → seeking →
//! moment shown → returning → live, and which messages move the view meanwhile),
//! [`exports`] (the download requests and file names), [`rewind`] (when the bar offers
//! to rewind the lab to the moment shown, the confirmation, the request). Web only: `bar`
//! (the bar: times, back to live, rewind), `slider` (dragging seeks), `run_picker`, `seek` (sending seeks and
//! `Live`), `moment` (a recorded moment into the view, the inspector and the trails),
//! `badge` (the "Replay — step N" badge), `downloads` (the download buttons: fetched with
//! the session's token, saved through a Blob), `rewind_controls` (the rewind button, its
//! confirm row and its refusal).

pub mod exports;
pub mod replay;
pub mod rewind;
pub mod span;
pub mod throttle;
pub mod time_text;

#[cfg(target_arch = "wasm32")]
mod badge;
#[cfg(target_arch = "wasm32")]
mod bar;
#[cfg(target_arch = "wasm32")]
mod downloads;
#[cfg(target_arch = "wasm32")]
pub(crate) mod moment;
#[cfg(target_arch = "wasm32")]
mod rewind_controls;
#[cfg(target_arch = "wasm32")]
mod run_picker;
#[cfg(target_arch = "wasm32")]
pub(crate) mod seek;
#[cfg(target_arch = "wasm32")]
mod slider;
#[cfg(target_arch = "wasm32")]
mod state;

#[cfg(target_arch = "wasm32")]
pub(crate) use self::badge::ReplayBadge;
#[cfg(target_arch = "wasm32")]
pub(crate) use self::bar::TimelineBar;
#[cfg(target_arch = "wasm32")]
pub(crate) use self::downloads::{LabDownloads, RobotDownloads};
#[cfg(target_arch = "wasm32")]
pub(crate) use self::state::TimelineState;
