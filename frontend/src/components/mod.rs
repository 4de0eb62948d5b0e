//! The page's components, one per file: toolbar pieces, the error banner, the 3D canvas, the scene editor, the robot panel.

mod actuator_list;
mod clock_readout;
mod code_editor;
mod connection_status;
mod error_banner;
mod keyboard_drive;
mod lab_canvas;
mod robot_list;
mod robot_panel;
mod robot_report_view;
mod scan_plot_view;
mod scene_editor;
mod scene_result;
mod sensor_table;
mod time_controls;
mod toolbar;

pub use actuator_list::ActuatorList;
pub use clock_readout::ClockReadout;
pub use connection_status::ConnectionStatus;
pub use error_banner::ErrorBanner;
pub use keyboard_drive::KeyboardDrive;
pub use lab_canvas::LabCanvas;
pub use robot_list::RobotList;
pub use robot_panel::RobotPanel;
pub use robot_report_view::RobotReportView;
pub use scan_plot_view::ScanPlotView;
pub use scene_editor::SceneEditor;
pub use sensor_table::SensorTable;
pub use time_controls::TimeControls;
pub use toolbar::Toolbar;
