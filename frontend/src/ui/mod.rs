//! Pieces of the page that several features share: the code editor, the side panels, the toolbar and the error banner.
//!
//! All web only: each is a leptos component and knows nothing of what it frames.

mod code_editor;
mod error_banner;
mod side_panel;
mod toolbar;

pub(crate) use self::code_editor::{CodeEditor, CodeEditorRefs};
pub(crate) use self::error_banner::ErrorBanner;
pub(crate) use self::side_panel::{PanelLabels, SidePanel};
pub(crate) use self::toolbar::Toolbar;
