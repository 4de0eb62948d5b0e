//! The robot inspector: the lab's robots to pick from, the picked one's live report (sensors, lidar plots, actuators), driving it by hand or with the keyboard.
//!
//! Pure, host-tested: the robots a snapshot holds (and the late badge beside one whose
//! program needs more CPU per control step than its share), how report values read, the lidar
//! plot's geometry, the held-key set, and manual actuator commands. Web only: `client`
//! (subscribing the socket to the picked robot, sending keys, posting commands) and the
//! Robots panel's components (`robot_panel` and what it holds).

pub mod eye_view;
mod held_keys;
mod manual_command;
mod perception_text;
pub mod plot_board;
pub mod plot_layout;
pub mod plot_series;
mod robot_list;
mod scan_plot;
mod value_text;

#[cfg(target_arch = "wasm32")]
mod actuator_list;
#[cfg(target_arch = "wasm32")]
mod client;
#[cfg(target_arch = "wasm32")]
mod eye_view_panel;
#[cfg(target_arch = "wasm32")]
mod keyboard_drive;
#[cfg(target_arch = "wasm32")]
mod plot_view;
#[cfg(target_arch = "wasm32")]
mod robot_list_view;
#[cfg(target_arch = "wasm32")]
mod robot_panel;
#[cfg(target_arch = "wasm32")]
mod robot_report_view;
#[cfg(target_arch = "wasm32")]
mod scan_plot_view;
#[cfg(target_arch = "wasm32")]
mod sensor_table;
#[cfg(target_arch = "wasm32")]
mod state;

pub use self::held_keys::{HeldKeys, KeyRoute, key_name, route_key};
pub use self::manual_command::{
    CommandField, CommandForm, CommandOutcome, actuators_body, initial_fields, interpret_actuator_response,
    parse_command,
};
pub use self::robot_list::{list_late_badge, robot_names};
#[cfg(target_arch = "wasm32")]
pub(crate) use self::robot_panel::RobotPanel;
pub use self::scan_plot::{ScanPlot, outer_radius, plot_scan};
#[cfg(target_arch = "wasm32")]
pub(crate) use self::state::InspectorState;
pub use self::value_text::{
    command_text, heading_text, joint_text, number_text, position_text, program_text, seconds_text, sensor_value_text,
    time_text,
};
