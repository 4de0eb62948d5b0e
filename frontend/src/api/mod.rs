//! Talking to the server over HTTP: one typed request for every feature, and one way to say what went wrong.
//!
//! Pure, host-tested: [`body`] (what a request carries: nothing, JSON, text, or
//! multipart parts), [`error`] (an answer read into the type asked for or an
//! [`ApiError`], and [`error_sentence`], the sentence the page shows for it) and
//! [`json`] (the page's one way of reading JSON text). Web only:
//! `fetch`, the browser's `fetch` behind `fetch_json`, `fetch_reply` and `fetch_blob` (and `save_download`, a guarded file saved).

pub mod body;
pub mod error;
#[cfg(target_arch = "wasm32")]
mod fetch;
pub mod json;

pub use self::body::{Body, Part, PartBody};
pub use self::error::{ApiError, body_sentence, error_sentence, read_json, read_reply};
#[cfg(target_arch = "wasm32")]
pub(crate) use self::fetch::{fetch_blob, fetch_json, fetch_reply, js_error_text, save_download};
pub use self::json::from_json;
