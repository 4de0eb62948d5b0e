//! Adding to the lab's scene: the instructor's `.vlab` editor, its highlighting, the upload and what its answer means.
//!
//! Pure, host-tested: [`upload`] (the request a scene becomes, the server's reply read
//! into messages and editor lines, picked files sorted), [`syntax`] (the editor's
//! `.vlab` tokenizer, with the language's own word lists from `vlab-scene`). Web only:
//! `client` (the draft kept in `localStorage`, the upload's request), `editor` (the
//! "Add to scene" panel) and `result` (what an upload did, shared with the robot form).

pub mod syntax;
pub mod upload;

#[cfg(target_arch = "wasm32")]
mod client;
#[cfg(target_arch = "wasm32")]
mod editor;
#[cfg(target_arch = "wasm32")]
mod result;

#[cfg(target_arch = "wasm32")]
pub(crate) use self::client::SceneDraft;
#[cfg(target_arch = "wasm32")]
pub(crate) use self::editor::SceneEditor;
#[cfg(target_arch = "wasm32")]
pub(crate) use self::result::SceneResult;
