//! Robot programs' integration tests: real sandboxed Python, real WebAssembly modules
//! (the SDK's example robot built to wasm32), their clocks and CPU rules. One test
//! binary, one module per file.

mod example_wasm;
mod program_time;
mod regression_busy_cpu_stops_lockstep_programs;
mod wasm_cameras;
mod wasm_programs;
