//! WebAssembly robot programs: modules importing the robot API (module `vlab`) and
//! exporting `pre_step`/`post_step`, run in the lab's process under wasmtime with a
//! fuel budget per step, a memory cap and a stack cap, each on a thread of its own
//! (`wasm-<robot>`, at a lower priority than the lab's) so that a module computing for
//! its whole budget never slows the lab.
//!
//! This module knows nothing of the lab's thread, the network or the physics world,
//! and gives a module nothing but the robot API and, for C and C++ programs, the few
//! WASI functions of `wasi` made deterministic: no files, no network, no wall clock,
//! no randomness but the seed it is handed. `docs/programs.md` ("WebAssembly
//! programs", "C and C++") has the ABI table; `vlab-robot-sdk` wraps it for Rust, the
//! headers of `crate::native_api` for C and C++.
//!
//! [`check_module`] at upload → [`WasmProgram::start`] (compiling and instantiating, on
//! the caller's thread) → `WasmWorker::spawn` moves the program to its thread, which
//! runs [`WasmProgram::receive`] (`init`, `pre_step`) at once → per control step the
//! lab's `send_step` hands the readings over and returns, the thread runs
//! [`WasmProgram::send_step`] (`post_step`) and [`WasmProgram::receive`] (`pre_step`),
//! and the lab collects the answer with `receive` (waiting) or `try_receive` (not) →
//! `stop`. [`crate::launch`] does all of this; [`WasmProgram`] alone runs
//! synchronously on whatever thread calls it.

mod belief;
mod drawing;
mod engine;
mod host;
mod limits;
mod program;
mod radio;
mod readings;
mod spec;
mod trap;
mod wasi;
#[cfg(target_os = "linux")]
mod worker;

/// The robot API's names and codes, the contract shared with the SDK.
use vlab_protocol::robot_abi as abi;

pub use self::abi::ABI_VERSION;
pub use self::engine::check_module;
pub use self::limits::WasmLimits;
pub use self::program::WasmProgram;
pub use self::spec::WasmSpec;
#[cfg(target_os = "linux")]
pub(super) use self::worker::WasmWorker;
