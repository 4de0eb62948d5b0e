//! WebAssembly robot programs: modules importing the robot API (module `vlab`) and
//! exporting `pre_step`/`post_step`, run in the lab's process under wasmtime with a
//! fuel budget per step, a memory cap and a stack cap.
//!
//! This module knows nothing of the lab's thread, the network or the physics world,
//! and gives a module nothing but the robot API: no WASI, so no files, no network, no
//! clock, no randomness but the seed it is handed. `docs/programs.md` ("WebAssembly
//! programs") has the ABI table; `vlab-robot-sdk` wraps it for Rust.
//!
//! [`check_module`] at upload → [`WasmProgram::start`] → [`WasmProgram::receive`]
//! (`init`, `pre_step`) → per control step [`WasmProgram::send_step`] (`post_step`)
//! and [`WasmProgram::receive`] (`pre_step`) → [`WasmProgram::stop`].

mod abi;
mod engine;
mod host;
mod limits;
mod program;
mod readings;
mod spec;
mod trap;

pub use self::abi::ABI_VERSION;
pub use self::engine::check_module;
pub use self::limits::WasmLimits;
pub use self::program::WasmProgram;
pub use self::spec::WasmSpec;
