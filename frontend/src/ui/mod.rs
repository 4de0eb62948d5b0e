//! Pieces of the page that several features share: the code editor, the side panels, the toolbar, the error banner, and the browser's storage and file picking.
//!
//! All web only: the components know nothing of what they frame.

pub(crate) mod browser;
mod code_editor;
mod error_banner;
mod side_panel;
mod toolbar;

pub(crate) use self::code_editor::{CodeEditor, CodeEditorRefs};
pub(crate) use self::error_banner::ErrorBanner;
pub(crate) use self::side_panel::{PanelLabels, SidePanel};
pub(crate) use self::toolbar::Toolbar;
