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
use std::time::{Duration, Instant};

use vlab_backend::controller::{StepInput, WasmProgram, WasmSpec};
use vlab_protocol::SensorValue;

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

    let mut per_step = Vec::with_capacity(steps as usize);
    for k in 0..WARM_UP + steps {
        let step = (k + 1) * 5;
        let inputs: Vec<StepInput> = (0..ROBOTS)
            .map(|i| StepInput {
                step,
                time_secs: step as f64 / 240.0,
                sensors: BTreeMap::from([(
                    "lidar".to_string(),
                    Some(SensorValue::Scan {
                        angle_min: -std::f64::consts::FRAC_PI_2,
                        angle_step: std::f64::consts::PI / 179.0,
                        max_range: 10.0,
                        ranges: (0..180).map(|b| 0.2 + ((b + k as usize + i) % 50) as f32 * 0.1).collect(),
                    }),
                )]),
            })
            .collect();
        let t0 = Instant::now();
        for (program, input) in programs.iter_mut().zip(&inputs) {
            program.send_step(input).expect("sent");
        }
        for program in &mut programs {
            let reply = program.receive().expect("answer");
            assert!(reply.commands.contains_key("drive"));
        }
        if k >= WARM_UP {
            per_step.push(t0.elapsed());
        }
    }
    for program in &mut programs {
        program.stop().expect("a clean stop");
    }

    let report = |label: &str, samples: &mut Vec<Duration>, per: u32| {
        let s = common::summarize(samples, per);
        println!(
            "wasm_controller_step: {label:<22} mean {:8.1} µs  p50 {:8.1} µs  p99 {:8.1} µs  max {:8.1} µs",
            s.mean, s.p50, s.p99, s.max
        );
    };
    println!("wasm_controller_step: {steps} control steps, {ROBOTS} programs, send to all then collect from all");
    report("whole exchange/step", &mut per_step.clone(), 1);
    report("per robot per step", &mut per_step, ROBOTS as u32);
}
