//! Robot programs' integration tests: real sandboxed Python, real WebAssembly modules
//! (the SDK's example robot built to wasm32, C and C++ fixtures built with clang),
//! their clocks and CPU rules. One test binary, one module per file.

mod budgeted;
mod clang;
mod example_wasm;
mod native_programs;
mod program_time;
mod regression_busy_cpu_stops_lockstep_programs;
mod regression_switch_to_lockstep_stops_a_late_program;
mod wasm_cameras;
mod wasm_programs;
