//! Robots of one's own and their programs: the add-robot form, the program editor, uploads, and the robot's console.
//!
//! Pure, host-tested: [`upload`] (a robot's files as a request, example placeholders,
//! which editor an error belongs to, what the answers mean), [`template`] (the robot's
//! name and the course robot at a free spot), [`python_syntax`] (the program editor's
//! highlighting), [`zip_listing`] (a robot package's files and robot file, read from its
//! zip), [`console_log`] (the console's lines: history merged with live ones,
//! capped; how the program's status reads). Web only: `client` (the program requests,
//! the examples, the console's history), `robot_upload` (the add-robot form, which also
//! edits a robot's program; its sections `robot_description` and `program_editor`, the
//! handles they share in `robot_form`, what it holds between openings in `robot_draft`),
//! `state` (the console's lines) and `robot_console` (status, live lines, Restart / Stop /
//! Edit program).

pub mod console_log;
pub mod python_syntax;
pub mod template;
pub mod upload;
pub mod zip_listing;

#[cfg(target_arch = "wasm32")]
mod client;
#[cfg(target_arch = "wasm32")]
mod console_lines;
#[cfg(target_arch = "wasm32")]
mod program_buttons;
#[cfg(target_arch = "wasm32")]
mod program_editor;
#[cfg(target_arch = "wasm32")]
mod robot_console;
#[cfg(target_arch = "wasm32")]
mod robot_description;
#[cfg(target_arch = "wasm32")]
mod robot_draft;
#[cfg(target_arch = "wasm32")]
mod robot_form;
#[cfg(target_arch = "wasm32")]
mod robot_upload;
#[cfg(target_arch = "wasm32")]
mod state;

#[cfg(target_arch = "wasm32")]
pub(crate) use self::client::{keep_console, load_program, program_action};
#[cfg(target_arch = "wasm32")]
pub(crate) use self::robot_console::RobotConsole;
#[cfg(target_arch = "wasm32")]
pub(crate) use self::robot_draft::{RobotDraft, RobotUploadOpen};
#[cfg(target_arch = "wasm32")]
pub(crate) use self::robot_upload::RobotUpload;
#[cfg(target_arch = "wasm32")]
pub(crate) use self::state::ConsoleState;
