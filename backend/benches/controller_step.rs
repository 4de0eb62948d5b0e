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
use std::time::Instant;

#[cfg(target_os = "linux")]
fn main() {
    use vlab_backend::controller::{ProgramError, ProgramSpec, PythonProgram};
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

    let mut per_step = common::lockstep(&mut programs, WARM_UP, steps, "base", |k, i| {
        BTreeMap::from([
            ("GPS1".to_string(), Some(SensorValue::Vector { values: [i as f64, 0.05, k as f64 * 0.001] })),
            ("lidar".to_string(), Some(common::moving_scan(k, i, 1.0))),
            ("kbd".to_string(), Some(SensorValue::Keys { keys: vec![] })),
        ])
    });
    common::report_exchange("controller_step", ROBOTS, &mut per_step);
}

#[cfg(not(target_os = "linux"))]
fn main() {
    println!("controller_step: robot programs run on Linux only");
}
