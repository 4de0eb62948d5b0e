//! The robot inspector's pure logic: the robots a snapshot holds, how report values read, the lidar plot's geometry, the held-key set, and manual actuator commands.
//!
//! Plain data in, plain data out, tested on the host; the panel that shows them lives in
//! `components/robot_*` and the `fetch` in `robot_client`.

mod held_keys;
mod manual_command;
mod robot_list;
mod scan_plot;
mod value_text;

pub use self::held_keys::{HeldKeys, KeyRoute, key_name, route_key};
pub use self::manual_command::{
    CommandField, CommandForm, CommandOutcome, actuators_body, initial_fields, interpret_actuator_response,
    network_failure, parse_command,
};
pub use self::robot_list::robot_names;
pub use self::scan_plot::{ScanPlot, outer_radius, plot_scan};
pub use self::value_text::{
    command_text, heading_text, joint_text, number_text, position_text, program_text, seconds_text, sensor_value_text,
    time_text,
};
