//! Write VLab robot programs in Rust, compiled to WebAssembly: the [`RobotProgram`]
//! trait, the [`Robot`] handle and the [`vlab_robot!`] macro that exports them as the
//! lab's robot API (version [`ABI_VERSION`], `docs/programs.md`) expects.
//!
//! This crate knows nothing of the lab but that ABI: on `wasm32` it imports the lab's
//! functions (module `vlab`); on any other target it talks to a [`testing::FakeLab`]
//! instead, so a program's logic unit-tests on the host. A program gets no files, no
//! network, no clock but [`Robot::time`] and no randomness but [`Robot::seed`]: the
//! lab provides nothing else. [`Robot::wait`] keeps the robot's commands for a while
//! of simulation time, the program not called meanwhile. [`Robot::publish_estimate`],
//! [`Robot::draw_points`], [`Robot::draw_lines`], [`Robot::draw_text`] and
//! [`Robot::clear_drawings`] show what the program believes in the 3D view, as
//! Python's calls of the same names do.
//!
//! # Example
//! ```
//! use vlab_robot_sdk::{Robot, RobotProgram, vlab_robot};
//!
//! #[derive(Default)]
//! struct Bumper {
//!     turning: bool,
//! }
//!
//! impl RobotProgram for Bumper {
//!     fn pre_step(&mut self, robot: &mut Robot) {
//!         let front = robot.sensor("sonar").value().unwrap_or(f64::INFINITY);
//!         self.turning = front < 0.5;
//!         let (v, omega) = if self.turning { (0.0, 1.0) } else { (0.2, 0.0) };
//!         robot.actuator("base").set(v, omega);
//!     }
//! }
//!
//! vlab_robot!(Bumper);
//! ```
//! Built with `cargo build --target wasm32-unknown-unknown --release` as a `cdylib`, the
//! `.wasm` is what a student uploads.

mod draw;
mod ffi;
mod perception;
mod program;
mod robot;
#[cfg(not(target_arch = "wasm32"))]
pub mod testing;

pub use self::draw::{Color, MAX_DRAWN_TEXT_CHARS, MAX_DRAWN_TEXTS, MAX_DRAWN_VERTICES, ParseColorError, Style};
pub use self::perception::{Landmark, MAX_SENT_PER_STEP, Message};
pub use self::program::RobotProgram;
pub use self::robot::{Actuator, DepthImage, Image, Robot, Scan, Sensor};

/// The version of the robot API this SDK speaks (the module's `vlab_abi_version`).
pub use vlab_protocol::robot_abi::ABI_VERSION;

/// Writes a console line, formatted like `format!`: `log!("x = {x:.2}")`.
#[macro_export]
macro_rules! log {
    ($($arg:tt)*) => {
        $crate::Robot::log_line(&::std::format!($($arg)*))
    };
}

/// Registers a [`RobotProgram`] as the module's program: `vlab_robot!(MyBot)` builds it
/// with `Default`, `vlab_robot!(MyBot, MyBot::new)` with a function. Use it once, in the
/// crate built as a `cdylib`.
///
/// On `wasm32` it exports `vlab_abi_version`, `init` (which also installs the panic
/// hook sending a panic's message and location to the lab), `pre_step` and
/// `post_step`; elsewhere the same functions exist but export nothing.
#[macro_export]
macro_rules! vlab_robot {
    ($program:ty) => {
        $crate::vlab_robot!($program, <$program as ::core::default::Default>::default);
    };
    ($program:ty, $make:expr) => {
        // Exporting the functions the lab calls is an unsafe attribute (two crates may
        // not export one name); these four names are the robot API's.
        // Elsewhere than wasm32 nothing calls them: they exist to be compiled.
        #[allow(unsafe_code)]
        #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
        const _: () = {
            #[cfg_attr(target_arch = "wasm32", unsafe(export_name = "vlab_abi_version"))]
            extern "C" fn vlab_abi_version() -> i32 {
                $crate::ABI_VERSION
            }
            #[cfg_attr(target_arch = "wasm32", unsafe(export_name = "init"))]
            extern "C" fn init() {
                let make: fn() -> $program = $make;
                $crate::__private::init(::std::boxed::Box::new(make()));
            }
            #[cfg_attr(target_arch = "wasm32", unsafe(export_name = "pre_step"))]
            extern "C" fn pre_step() {
                $crate::__private::pre_step();
            }
            #[cfg_attr(target_arch = "wasm32", unsafe(export_name = "post_step"))]
            extern "C" fn post_step() {
                $crate::__private::post_step();
            }
        };
    };
}

/// What [`vlab_robot!`] expands to calls; not part of the API.
#[doc(hidden)]
pub mod __private {
    pub use crate::program::{init, post_step, pre_step};
}
