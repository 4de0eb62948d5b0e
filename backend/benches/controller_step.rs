//! Bench: the lockstep round trip of 30 sandboxed Python programs, one per robot of a
//! classroom. Each control step sends every program its readings (GPS, a 180-beam
//! lidar, a keyboard) and then collects every answer (a DiffDrive command and a log
//! line), as the lab will. Prints the wall time of the whole exchange per step and per
//! robot per step (mean, p50, p99, max).
//!
//! `cargo bench -p vlab-backend --bench controller_step` (add `-- --steps N` to change
//! the 1000 measured steps).

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

#[cfg(target_os = "linux")]
fn main() {
    use vlab_backend::controller::{ProgramError, ProgramSpec, PythonProgram, StepInput};
    use vlab_protocol::SensorValue;

    const ROBOTS: usize = 30;
    const WARM_UP: u64 = 50;
    let steps: u64 =
        std::env::args().skip_while(|a| a != "--steps").nth(1).and_then(|n| n.parse().ok()).unwrap_or(1000);
    let source = r#"
from vlab import Robot
robot = Robot()
lidar, drive = robot.sensor("lidar"), robot.actuator("base")
while robot.step():
    ranges = lidar.ranges()
    front = min(ranges[80:100])
    x, y, z = robot.sensor("GPS1").value()
    turn = 1.0 if front < 0.5 or robot.sensor("kbd").value("J") else 0.0
    drive.set(0.15 if front > 0.3 else 0.0, turn)
    if robot.step_count() % 50 == 0:
        robot.log(f"x={x:.2f} front={front:.2f}")
"#;
    let started = Instant::now();
    let mut programs = Vec::with_capacity(ROBOTS);
    for i in 0..ROBOTS {
        let spec = ProgramSpec::new(&format!("bot{i}"), source)
            .sensor("GPS1", "SimpleGPS")
            .sensor("lidar", "Lidar")
            .sensor("kbd", "Keyboard")
            .actuator("base", "DiffDrive");
        match PythonProgram::start(spec) {
            Ok(program) => programs.push(program),
            Err(e @ ProgramError::SandboxUnavailable(_)) => {
                println!("controller_step: not run: {e}");
                return;
            }
            Err(e) => panic!("bot{i}: {e}"),
        }
    }
    for program in &mut programs {
        program.receive().expect("ready");
    }
    println!("controller_step: {ROBOTS} programs started in {:.0} ms", started.elapsed().as_secs_f64() * 1e3);

    let mut per_step = Vec::with_capacity(steps as usize);
    for k in 0..WARM_UP + steps {
        let step = (k + 1) * 5;
        let inputs: Vec<StepInput> = (0..ROBOTS)
            .map(|i| StepInput {
                step,
                time_secs: step as f64 / 240.0,
                sensors: BTreeMap::from([
                    ("GPS1".to_string(), Some(SensorValue::Vector { values: [i as f64, 0.05, k as f64 * 0.001] })),
                    (
                        "lidar".to_string(),
                        Some(SensorValue::Scan {
                            angle_min: -std::f64::consts::FRAC_PI_2,
                            angle_step: std::f64::consts::PI / 179.0,
                            max_range: 10.0,
                            ranges: (0..180).map(|b| 1.0 + ((b + k as usize + i) % 50) as f32 * 0.1).collect(),
                        }),
                    ),
                    ("kbd".to_string(), Some(SensorValue::Keys { keys: vec![] })),
                ]),
            })
            .collect();
        let t0 = Instant::now();
        for (program, input) in programs.iter_mut().zip(&inputs) {
            program.send_step(input).expect("sent");
        }
        for program in &mut programs {
            let reply = program.receive().expect("answer");
            assert!(reply.commands.contains_key("base"));
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
            "controller_step: {label:<22} mean {:8.1} µs  p50 {:8.1} µs  p99 {:8.1} µs  max {:8.1} µs",
            s.mean, s.p50, s.p99, s.max
        );
    };
    println!("controller_step: {steps} control steps, {ROBOTS} programs, send to all then collect from all");
    report("whole exchange/step", &mut per_step.clone(), 1);
    report("per robot per step", &mut per_step, ROBOTS as u32);
}

#[cfg(not(target_os = "linux"))]
fn main() {
    println!("controller_step: robot programs run on Linux only");
}
