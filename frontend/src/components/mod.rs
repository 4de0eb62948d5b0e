//! The page's components, one per file: toolbar pieces, the error banner, the 3D canvas, the scene editor.

mod clock_readout;
mod code_editor;
mod connection_status;
mod error_banner;
mod lab_canvas;
mod scene_editor;
mod scene_result;
mod time_controls;
mod toolbar;

pub use clock_readout::ClockReadout;
pub use connection_status::ConnectionStatus;
pub use error_banner::ErrorBanner;
pub use lab_canvas::LabCanvas;
pub use scene_editor::SceneEditor;
pub use time_controls::TimeControls;
pub use toolbar::Toolbar;
