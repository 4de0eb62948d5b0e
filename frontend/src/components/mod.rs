//! The page's components, one per file: toolbar pieces, the error banner and the 3D canvas.

mod clock_readout;
mod connection_status;
mod error_banner;
mod lab_canvas;
mod time_controls;
mod toolbar;

pub use clock_readout::ClockReadout;
pub use connection_status::ConnectionStatus;
pub use error_banner::ErrorBanner;
pub use lab_canvas::LabCanvas;
pub use time_controls::TimeControls;
pub use toolbar::Toolbar;
