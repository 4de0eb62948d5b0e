//! Bench: the lockstep round trip of 30 WebAssembly programs (the example robot, built
//! with the Rust SDK), one per robot of a classroom: the wasm counterpart of
//! `controller_step`. Each control step hands every program its readings (a 180-beam
//! lidar) and then collects every answer (a DiffDrive command, a status line every 25
//! steps), as the lab will. Prints the start-up time and the wall time of the whole
//! exchange per step and per robot per step (mean, p50, p99, max).
//!
//! `cargo bench -p vlab-backend --bench wasm_controller_step` (add `-- --steps N` to
//! change the 1000 measured steps).

mod common;
#[path = "../tests/example_wasm/mod.rs"]
mod example_wasm;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use vlab_backend::controller::{WasmProgram, WasmSpec};

fn main() {
    const ROBOTS: usize = 30;
    const WARM_UP: u64 = 50;
    let steps: u64 =
        std::env::args().skip_while(|a| a != "--steps").nth(1).and_then(|n| n.parse().ok()).unwrap_or(1000);
    let module: Arc<[u8]> = example_wasm::example_module();

    let started = Instant::now();
    let mut programs: Vec<WasmProgram> = (0..ROBOTS)
        .map(|i| {
            let spec = WasmSpec::new(&format!("bot{i}"), module.clone())
                .sensor("lidar", "Lidar")
                .actuator("drive", "DiffDrive");
            WasmProgram::start(spec).unwrap_or_else(|e| panic!("bot{i}: {e}"))
        })
        .collect();
    for program in &mut programs {
        program.receive().expect("first answer");
    }
    println!(
        "wasm_controller_step: {ROBOTS} programs started in {:.1} ms (one compile, {} instantiations)",
        started.elapsed().as_secs_f64() * 1e3,
        ROBOTS
    );

    let mut per_step = common::lockstep(&mut programs, WARM_UP, steps, "drive", |k, i| {
        BTreeMap::from([("lidar".to_string(), Some(common::moving_scan(k, i, 0.2)))])
    });
    common::report_exchange("wasm_controller_step", ROBOTS, &mut per_step);
}
