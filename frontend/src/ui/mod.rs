//! Pieces of the page that several features share: the code editor, the side panels, the toolbar, the error banner, the page's own faults said and recovered from, a shared `<Show>` and `<For>` over names, parts fetched when first shown, and the browser's storage and file picking.
//!
//! All web only: the components know nothing of what they frame.

mod boxed;
pub(crate) mod browser;
mod code_editor;
mod error_banner;
pub(crate) mod fault;
mod for_each;
mod name_rows;
mod part;
mod side_panel;
mod toolbar;
mod when;

pub(crate) use self::boxed::{effect, memo};
pub(crate) use self::code_editor::{CodeEditor, CodeEditorRefs};
pub(crate) use self::error_banner::ErrorBanner;
pub(crate) use self::for_each::ForEach;
pub(crate) use self::name_rows::ForEachName;
pub(crate) use self::part::{Part, PartNotLoaded};
pub(crate) use self::side_panel::{PanelLabels, SidePanel};
pub(crate) use self::toolbar::Toolbar;
pub(crate) use self::when::When;
