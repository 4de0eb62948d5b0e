//! Bench: the lockstep round trip of 30 sandboxed Python programs, one per robot of a
//! classroom. Each control step sends every program its readings (GPS, a 180-beam
//! lidar, a keyboard) and then collects every answer (a DiffDrive command and a log
//! line), as the lab will. Prints the wall time of the whole exchange per step and per
//! robot per step (mean, p50, p99, max), and the CPU time it took per robot per step:
//! the programs' own (their processes' CPU clocks) and the lab thread's (its thread
//! clock around the exchange), which the machine's load changes far less than the wall
//! time.
//!
//! `cargo bench -p vlab-server --bench controller_step` (add `-- --steps N` to change
//! the 1000 measured steps, `-- --robots N` the 30 programs, `-- --program FILE` to run
//! another Python program on the same robots: one that must set `base` every step,
//! `-- --program-cpus auto` to place the programs as the server does, off the CPU it
//! keeps for the labs' threads; by default they get every CPU, since here the lab's
//! thread only waits while they compute).

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

#[cfg(target_os = "linux")]
fn main() {
    use vlab_protocol::SensorValue;
    use vlab_server::controller::placement::{self, ProgramCpus};
    use vlab_server::controller::{ProgramError, ProgramSpec, PythonProgram, StepInput};

    const WARM_UP: u64 = 50;
    let arg =
        |name: &str| -> Option<u64> { std::env::args().skip_while(|a| a != name).nth(1).and_then(|n| n.parse().ok()) };
    let steps: u64 = arg("--steps").unwrap_or(1000).max(1);
    let robots = arg("--robots").unwrap_or(30).max(1) as usize;
    let program_file = std::env::args().skip_while(|a| a != "--program").nth(1);
    let cpus: ProgramCpus = std::env::args()
        .skip_while(|a| a != "--program-cpus")
        .nth(1)
        .map(|value| value.parse().unwrap_or_else(|e| panic!("--program-cpus {e}")))
        .unwrap_or(ProgramCpus::All);
    let on = placement::set_program_cpus(cpus.clone()).unwrap_or_else(|e| panic!("{e}"));
    println!(
        "controller_step: programs on CPUs {} of {} (--program-cpus {cpus})",
        placement::cpu_list(&on),
        placement::cpu_list(&placement::allowed_cpus())
    );
    let default_source = r#"
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
    let source = match &program_file {
        Some(path) => std::fs::read_to_string(path).unwrap_or_else(|e| panic!("--program {path}: {e}")),
        None => default_source.to_string(),
    };
    let source = source.as_str();
    if let Some(path) = &program_file {
        println!("controller_step: program {path}");
    }
    let started = Instant::now();
    let mut programs = Vec::with_capacity(robots);
    for i in 0..robots {
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
    println!("controller_step: {robots} programs started in {:.0} ms", started.elapsed().as_secs_f64() * 1e3);

    let readings = |k: u64, i: usize| {
        BTreeMap::from([
            ("GPS1".to_string(), Some(SensorValue::Vector { values: [i as f64, 0.05, k as f64 * 0.001] })),
            ("lidar".to_string(), Some(common::moving_scan(k, i, 1.0))),
            ("kbd".to_string(), Some(SensorValue::Keys { keys: vec![] })),
        ])
    };
    let programs_cpu =
        |programs: &[PythonProgram]| programs.iter().filter_map(PythonProgram::cpu_time).sum::<Duration>();
    let mut per_step = Vec::with_capacity(steps as usize);
    let (mut lab_cpu, mut cpu_at_start) = (Duration::ZERO, Duration::ZERO);
    for k in 0..WARM_UP + steps {
        if k == WARM_UP {
            cpu_at_start = programs_cpu(&programs);
        }
        let step = (k + 1) * 5;
        let inputs: Vec<StepInput> =
            (0..robots).map(|i| StepInput { step, time_secs: step as f64 / 240.0, sensors: readings(k, i) }).collect();
        let lab_before = thread_cpu();
        let started = Instant::now();
        for (program, input) in programs.iter_mut().zip(&inputs) {
            program.send_step(input).expect("sent");
        }
        for program in programs.iter_mut() {
            let reply = program.receive().expect("answer");
            assert!(reply.commands.contains_key("base"), "every answer commands the drive");
        }
        if k >= WARM_UP {
            per_step.push(started.elapsed());
            lab_cpu += thread_cpu().saturating_sub(lab_before);
        }
    }
    let program_cpu = programs_cpu(&programs).saturating_sub(cpu_at_start);
    for program in &mut programs {
        program.stop().expect("a clean stop");
    }
    common::report_exchange("controller_step", robots, &mut per_step);
    let per_robot_step = |cpu: Duration| cpu.as_secs_f64() * 1e6 / (steps as f64 * robots as f64);
    println!(
        "controller_step: CPU per robot per step     {:8.1} µs  (programs {:.1} µs, lab thread {:.1} µs)",
        per_robot_step(program_cpu + lab_cpu),
        per_robot_step(program_cpu),
        per_robot_step(lab_cpu)
    );
}

/// The CPU time of the calling thread.
#[cfg(target_os = "linux")]
fn thread_cpu() -> Duration {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID).map(Duration::from).unwrap_or_default()
}

#[cfg(not(target_os = "linux"))]
fn main() {
    println!("controller_step: robot programs run on Linux only");
}
