//! Pieces of the page that several features share: the code editor, the attached files' chips, the side panels, the page's own faults said and recovered from, a shared `<Show>` and `<For>` over names, the start pages' form parts, parts fetched when first shown, and the browser's storage and file picking.
//!
//! They know nothing of what they frame: no feature is imported here. Pure, host-tested:
//! [`text_lines`] (how the code editor counts and measures a text). The rest is web only.

pub mod text_lines;

#[cfg(target_arch = "wasm32")]
mod attached_files;
#[cfg(target_arch = "wasm32")]
mod boxed;
#[cfg(target_arch = "wasm32")]
pub(crate) mod browser;
#[cfg(target_arch = "wasm32")]
mod code_editor;
#[cfg(target_arch = "wasm32")]
pub(crate) mod fault;
#[cfg(target_arch = "wasm32")]
mod for_each;
#[cfg(target_arch = "wasm32")]
mod form_parts;
#[cfg(target_arch = "wasm32")]
mod name_rows;
#[cfg(target_arch = "wasm32")]
mod part;
#[cfg(target_arch = "wasm32")]
mod side_panel;
#[cfg(target_arch = "wasm32")]
mod when;

#[cfg(target_arch = "wasm32")]
pub(crate) use self::attached_files::AttachedFiles;
#[cfg(target_arch = "wasm32")]
pub(crate) use self::boxed::{effect, memo};
#[cfg(target_arch = "wasm32")]
pub(crate) use self::code_editor::{CodeEditor, CodeEditorRefs};
#[cfg(target_arch = "wasm32")]
pub(crate) use self::for_each::ForEach;
#[cfg(target_arch = "wasm32")]
pub(crate) use self::form_parts::{FormError, OnceShownLink, RejoinList, SubmitButton};
#[cfg(target_arch = "wasm32")]
pub(crate) use self::name_rows::ForEachName;
#[cfg(target_arch = "wasm32")]
pub(crate) use self::part::{Part, PartNotLoaded};
#[cfg(target_arch = "wasm32")]
pub(crate) use self::side_panel::{PanelLabels, SidePanel};
#[cfg(target_arch = "wasm32")]
pub(crate) use self::when::When;
