//! `cargo bench -p vlab-server --bench cpp_programs` (part of `cargo xtask bench`): what
//! a C++ program costs beside a Python one. First the compile of the VLAB tank's
//! program (scenes/vlab/tankbot.cpp) by the server's compiler: cold, again from the
//! compiler's memory, and from its cache folder after a restart. Then a lab of 8 such
//! tanks in a lockstep room, each running the tank's program, in C++ and in Python
//! (the same logic, line for line), at the control rate and at every physics step: per
//! physics step, what the physics takes, what the exchange with the programs takes of
//! the lab's thread (wall time, and its CPU clock: the part it worked rather than
//! waited), and the real-time factor; per answer, the exchange's wall time.
//!
//! Prints figures rather than asserting them: timings are for reading, not for tests.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use vlab_protocol::SyncMode;
use vlab_server::controller::ProgramCode;
use vlab_server::controller::compile::{CompileLimits, CompileRequest, Compiler, SourceLanguage, detected};
use vlab_server::lab::programs::{Programs, Tick};
use vlab_server::robot::Robots;
use vlab_server::scene::{DirLoader, Options, ProgramRate, SceneModel, interpret};
use vlab_server::sim::World;

/// Tanks in the lab: as many as may run at every physics step.
const TANKS: usize = 8;
/// Seconds of simulation before timing: the programs join and the tanks start rolling.
const WARM_UP_SECS: f64 = 0.5;
/// Seconds of simulation timed.
const TIMED_SECS: f64 = 4.0;
/// Cold compiles timed.
const COLD_COMPILES: usize = 3;

/// tankbot.cpp in Python, line for line: reads the keyboard and the GPS, prints the GPS
/// line, shuttles between x = 10 and x = 50 at motor speed 10.
const TANKBOT_PY: &str = r#"
from vlab import Robot

robot = Robot()
keys = robot.sensor("kbd")
gps = robot.sensor("GPS1")
left, right = robot.actuator("Motor1"), robot.actuator("Motor2")
heading = 1
while robot.step():
    if keys.value("R"):
        heading = -heading
    speed = 0
    at = gps.value()
    if at is not None:
        x, y, z = at
        print(f"GPS: {x:.6f} {y:.6f} {z:.6f}")
        if heading > 0 and x > 50:
            heading = -1
        if heading < 0 and x < 10:
            heading = 1
        speed = heading * 10
    else:
        print("the GPS has no reading yet")
    left.set_speed(speed)
    right.set_speed(speed)
"#;

fn scenes() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes")
}

fn tank_request() -> CompileRequest {
    let source = std::fs::read_to_string(scenes().join("vlab/tankbot.cpp")).expect("scenes/vlab/tankbot.cpp");
    CompileRequest {
        language: SourceLanguage::Cpp,
        sources: vec!["tankbot.cpp".into()],
        files: [("tankbot.cpp".to_owned(), source)].into(),
    }
}

/// A room 60 × 100 with the tanks of tank.vlab in a column at x = 30, 12 apart.
fn tank_lab() -> SceneModel {
    let tank = std::fs::read_to_string(scenes().join("vlab/tank.vlab")).expect("scenes/vlab/tank.vlab");
    let builder = &tank[..tank.find("robot tankbot").expect("tank.vlab ends with its robot")];
    let mut source = "environment room { width 60; length 100; }\n".to_owned();
    for i in 0..TANKS {
        // Its parts have fixed names, as in VLAB's files: one builder per tank.
        let renamed = builder.replace("build_tank", &format!("build_tank{i}")).replace("tank_", &format!("tank{i}_"));
        let z = 6 + 12 * i;
        source.push_str(&format!("{renamed}\nrobot tank{i} {{ body {{ call build_tank{i}(30, 0, {z}); }} }}\n"));
    }
    let loader = DirLoader { scenes: scenes().join("vlab"), assets: None };
    interpret(&source, "tanks.vlab", &loader, &Options::default()).unwrap_or_else(|e| panic!("{}", e[0])).model
}

fn main() {
    println!("VLab bench: C++ programs beside Python ones (the VLAB tank's program, scenes/vlab/tankbot.cpp)");
    let missing = detected().missing(SourceLanguage::Cpp);
    let module = if missing.is_empty() {
        Some(compile_times())
    } else {
        println!("compile: not measured, the compiler is not installed (Debian packages {})", missing.join(", "));
        None
    };
    let python = Arc::new(ProgramCode::python("tankbot.py", [("tankbot.py".to_owned(), TANKBOT_PY.to_owned())].into()));
    let cpp = module.map(|module| Arc::new(ProgramCode::wasm("tankbot.cpp", module)));
    println!(
        "a lockstep room with {TANKS} tanks, each running the tank's program ({TIMED_SECS} s of simulation timed):"
    );
    for rate in [ProgramRate::Control, ProgramRate::EveryStep] {
        run("Python", &python, rate);
        if let Some(cpp) = &cpp {
            run("C++   ", cpp, rate);
        }
    }
}

/// Compiles the tank's program cold, from memory and from the cache folder; its module.
fn compile_times() -> Arc<[u8]> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    let folder = std::env::temp_dir().join(format!("vlab-bench-compile-{}", std::process::id()));
    let timed = |compiler: &Compiler| {
        let started = Instant::now();
        let compiled = runtime.block_on(compiler.compile(tank_request(), None)).expect("tankbot.cpp compiles");
        (started.elapsed(), compiled.module)
    };
    let mut cold = Vec::new();
    let mut module = None;
    for _ in 0..COLD_COMPILES {
        let compiler = Compiler::new(None, CompileLimits::default());
        let (took, made) = timed(&compiler);
        cold.push(took);
        module = Some(made);
    }
    let compiler = Compiler::new(Some(folder.clone()), CompileLimits::default());
    let (_, _) = timed(&compiler);
    let (memory, _) = timed(&compiler);
    drop(compiler);
    let restarted = Compiler::new(Some(folder.clone()), CompileLimits::default());
    let (disk, _) = timed(&restarted);
    let _ = std::fs::remove_dir_all(&folder);
    let module = module.expect("compiled at least once");
    let ms = |d: &Duration| d.as_secs_f64() * 1e3;
    let colds: Vec<String> = cold.iter().map(|d| format!("{:.0}", ms(d))).collect();
    println!(
        "compile tankbot.cpp ({} KiB module): cold {} ms; again from memory {:.2} ms; after a restart, from the cache folder {:.2} ms",
        module.len().div_ceil(1024),
        colds.join(" / "),
        ms(&memory),
        ms(&disk)
    );
    module
}

/// The lab of tanks running `code` at `rate` in lockstep, timed.
fn run(language: &str, code: &Arc<ProgramCode>, rate: ProgramRate) {
    let model = tank_lab();
    let dt = model.dt_secs;
    let mut world = World::build(&model).expect("the tanks' room builds");
    let mut robots = Robots::configure(&model, 1).expect("the tanks configure");
    robots.install(&mut world, 0, 0.0);
    let names: Vec<String> = robots.all().iter().map(|r| r.name().to_owned()).collect();
    let (console, _) = tokio::sync::broadcast::channel(4096);
    let mut programs = Programs::new(1, dt, console);
    let code = Arc::new(ProgramCode::clone(code).at_rate(Some(rate)));
    for name in &names {
        programs.start(name, &mut robots, Arc::clone(&code), dt, 0);
    }
    while programs.poll_started(&mut robots, 0, dt) {
        std::thread::sleep(Duration::from_millis(2));
    }
    let first = robots.all()[0].program().clone();
    if first.state != vlab_protocol::ProgramState::Running {
        println!("  {language}: not run: {}", first.message.unwrap_or_default());
        return;
    }
    let mut step = 0u64;
    let mut one_step = |world: &mut World, robots: &mut Robots, programs: &mut Programs| -> [Duration; 3] {
        let (started, cpu_started) = (Instant::now(), thread_cpu());
        programs.pre_step(robots, step, dt);
        let (commanded, cpu_commanded) = (Instant::now(), thread_cpu());
        robots.apply_actuators(world);
        world.step();
        step += 1;
        robots.update_sensors(world, step, step as f64 * dt);
        let (simulated, cpu_simulated) = (Instant::now(), thread_cpu());
        programs.post_step(robots, world, Tick { step, dt_secs: dt, sync: SyncMode::Lockstep, wall_per_sim: 1.0 });
        let (answered, cpu_answered) = (Instant::now(), thread_cpu());
        let worked = (cpu_commanded - cpu_started) + (cpu_answered - cpu_simulated);
        [simulated - commanded, (commanded - started) + (answered - simulated), worked]
    };
    for _ in 0..(WARM_UP_SECS / dt) as usize {
        one_step(&mut world, &mut robots, &mut programs);
    }
    let steps = (TIMED_SECS / dt) as usize;
    let (mut physics, mut exchange, mut worked) = (Vec::new(), Vec::new(), Vec::new());
    let wall = Instant::now();
    for _ in 0..steps {
        let [sim, talk, work] = one_step(&mut world, &mut robots, &mut programs);
        physics.push(sim);
        exchange.push(talk);
        worked.push(work);
    }
    let wall = wall.elapsed();
    let running = robots.all().iter().filter(|r| r.program().state == vlab_protocol::ProgramState::Running).count();
    let answers_per_step = match rate {
        ProgramRate::Control => TANKS as f64 / programs.control_period() as f64,
        ProgramRate::EveryStep => TANKS as f64,
    };
    let mean = |samples: &[Duration]| samples.iter().sum::<Duration>().as_secs_f64() * 1e6 / samples.len() as f64;
    let per_answer = mean(&exchange) / answers_per_step;
    let every = common::summarize(&mut exchange.clone(), 1);
    println!(
        "  {language} {:<10}: physics {:6.1} µs/step; exchange {:7.1} µs/step (p99 {:7.1}), of it the lab's CPU {:6.1} µs; \
         {:6.1} µs per answer; {:5.1}× real time; {running} of {TANKS} running",
        rate.word(),
        mean(&physics),
        every.mean,
        every.p99,
        mean(&worked),
        per_answer,
        TIMED_SECS / wall.as_secs_f64(),
    );
}

fn thread_cpu() -> Duration {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID).map(Duration::from).unwrap_or_default()
}
