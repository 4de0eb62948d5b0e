//! Bench: the lockstep round trip of 30 WebAssembly programs (the example robot, built
//! with the Rust SDK), one per robot of a classroom: the wasm counterpart of
//! `controller_step`. Each control step hands every program its readings (a 180-beam
//! lidar) and then collects every answer (a DiffDrive command, a status line every 25
//! steps), as the lab will. Measured twice: as the lab runs them (`launch`: each on a
//! thread of its own, so they compute at once while the lab waits for the slowest), and
//! each run in turn on the calling thread (`WasmProgram` itself). Prints the start-up
//! time and the wall time of the whole exchange per step and per robot per step (mean,
//! p50, p99, max).
//!
//! `cargo bench -p vlab-server --bench wasm_controller_step` (add `-- --steps N` to
//! change the 1000 measured steps).

mod common;
#[path = "../programs/tests/it/example_wasm/mod.rs"]
mod example_wasm;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use vlab_server::controller::{
    Controller, PartInfo, ProgramCode, ProgramError, Reply, RobotSide, StepInput, WasmProgram, WasmSpec, launch,
};

const ROBOTS: usize = 30;
const WARM_UP: u64 = 50;

/// A program as the lab holds it (what `common::lockstep` drives).
struct Launched(Box<dyn Controller>);

impl Controller for Launched {
    fn robot(&self) -> &str {
        self.0.robot()
    }
    fn send_step(&mut self, input: &StepInput) -> Result<(), ProgramError> {
        self.0.send_step(input)
    }
    fn receive(&mut self) -> Result<Reply, ProgramError> {
        self.0.receive()
    }
    fn try_receive(&mut self) -> Result<Option<Reply>, ProgramError> {
        self.0.try_receive()
    }
    fn cpu_time(&self) -> Option<Duration> {
        self.0.cpu_time()
    }
    fn stop(&mut self) -> Result<(), ProgramError> {
        self.0.stop()
    }
    fn error(&self) -> Option<&ProgramError> {
        self.0.error()
    }
}

fn main() {
    let steps: u64 =
        std::env::args().skip_while(|a| a != "--steps").nth(1).and_then(|n| n.parse().ok()).unwrap_or(1000);
    let module: Arc<[u8]> = example_wasm::example_module();
    let readings = |k: u64, i: usize| BTreeMap::from([("lidar".to_string(), Some(common::moving_scan(k, i, 0.2)))]);

    // As the lab runs them: each on its own thread.
    let started = Instant::now();
    let code = ProgramCode::wasm("bot.wasm", module.clone());
    let mut launched: Vec<Launched> = (0..ROBOTS)
        .map(|i| {
            let mut side = RobotSide::new(&format!("bot{i}"));
            side.sensors.push(PartInfo { name: "lidar".into(), kind: "Lidar".into() });
            side.actuators.push(PartInfo { name: "drive".into(), kind: "DiffDrive".into() });
            Launched(launch(&code, side).unwrap_or_else(|e| panic!("bot{i}: {e}")))
        })
        .collect();
    for program in &mut launched {
        program.receive().expect("first answer");
    }
    println!(
        "wasm_controller_step (own threads): {ROBOTS} programs started in {:.1} ms (one compile, {ROBOTS} \
         instantiations and threads)",
        started.elapsed().as_secs_f64() * 1e3,
    );
    let mut per_step = common::lockstep(&mut launched, WARM_UP, steps, "drive", readings);
    let cpu: Duration = launched.iter().filter_map(Controller::cpu_time).sum();
    common::report_exchange("wasm_controller_step (own threads)", ROBOTS, &mut per_step);
    println!(
        "wasm_controller_step (own threads): programs' own CPU {:.1} µs per robot per step",
        cpu.as_secs_f64() * 1e6 / (ROBOTS as f64 * (WARM_UP + steps) as f64)
    );

    // Each in turn on the calling thread.
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
        "wasm_controller_step (calling thread): {ROBOTS} programs started in {:.1} ms ({ROBOTS} instantiations)",
        started.elapsed().as_secs_f64() * 1e3,
    );
    let mut per_step = common::lockstep(&mut programs, WARM_UP, steps, "drive", readings);
    common::report_exchange("wasm_controller_step (calling thread)", ROBOTS, &mut per_step);
}
