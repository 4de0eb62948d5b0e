//! Regression: on a busy machine a lockstep lab stopped a student's program with "did
//! not answer within 500 ms" although the program had spent most of that time waiting
//! for a CPU, not computing: the step's budget counted the machine's slowness against
//! the program. A step now gets back the time the program waited for a CPU while the
//! lab waited for its answer, up to ten budgets; a program's own time (computing,
//! looping, sleeping) still counts in full.
//!
//! The busy machine is made on purpose: the test's thread, the program it starts and a
//! spinning thread of the program's niceness share one CPU, so the program gets about
//! half of it. Alone in its file so that no other test shares that CPU.
#![cfg(target_os = "linux")]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use nix::sched::{CpuSet, sched_setaffinity};
use nix::unistd::Pid;
use vlab_programs::placement::allowed_cpus;
use vlab_programs::{ProgramError, PythonProgram};

use crate::budgeted::step;

/// The step budget of these programs.
const BUDGET: Duration = Duration::from_millis(400);

/// Each step computes for 300 ms of its own CPU: within the budget on a CPU of its own,
/// about 600 ms of wall time on half a CPU.
const HEAVY_STEP: &str = r#"
import time
from vlab import Robot
robot = Robot()
drive = robot.actuator("base")
while robot.step():
    end = time.process_time() + 0.3
    while time.process_time() < end:
        pass
    drive.set(0.1, 0.0)
"#;

fn pin_this_thread_to(cpu: usize) {
    let mut set = CpuSet::new();
    set.set(cpu).expect("a CPU number the kernel counts");
    sched_setaffinity(Pid::from_raw(0), &set).expect("a thread may narrow its own CPUs");
}

/// A thread spinning on `cpu` at the programs' niceness until `stop`.
fn busy_cpu(cpu: usize, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        pin_this_thread_to(cpu);
        rustix::process::setpriority_process(Some(rustix::thread::gettid()), 10).expect("a thread may lower itself");
        while !stop.load(Ordering::Relaxed) {
            std::hint::spin_loop();
        }
    })
}

fn start(source: &str) -> Option<PythonProgram> {
    crate::budgeted::start(source, BUDGET)
}

#[test]
fn a_step_slowed_by_a_busy_cpu_gets_its_wait_back_and_a_loop_is_still_stopped() {
    // The program inherits the CPUs of the thread that starts it (one CPU: all of it).
    let cpu = allowed_cpus()[0];
    pin_this_thread_to(cpu);
    let Some(mut heavy) = start(HEAVY_STEP) else { return };
    heavy.receive().expect("ready");
    heavy.exchange(&step(5)).expect("a step on a CPU of its own");

    let stop = Arc::new(AtomicBool::new(false));
    let spinner = busy_cpu(cpu, Arc::clone(&stop));
    let mut answered = Vec::new();
    let mut outcome = Ok(());
    for k in 2..=4 {
        let asked = Instant::now();
        match heavy.exchange(&step(5 * k)) {
            Ok(reply) => {
                answered.push(asked.elapsed());
                assert!(reply.commands.contains_key("base"), "{reply:?}");
            }
            Err(e) => {
                outcome = Err(format!("{e} after {:?} (answered before: {answered:?})", asked.elapsed()));
                break;
            }
        }
    }

    // A program that never answers, on the same busy CPU, is still stopped at its
    // budget: it computes for itself, so what it waits for the CPU is all it gets back.
    let looping = start("from vlab import Robot\nrobot = Robot()\nrobot.step()\nwhile True:\n    pass\n");
    let stopped = looping.map(|mut program| {
        program.receive().expect("ready");
        program.exchange(&step(5)).expect_err("an endless loop is stopped")
    });
    stop.store(true, Ordering::Relaxed);
    spinner.join().expect("the spinner ends");

    outcome.expect("a heavy step on half a CPU is answered, not stopped");
    eprintln!("steps on half a CPU answered after {answered:?}");
    if let Some(error) = stopped {
        assert_eq!(error, ProgramError::Timeout { ms: BUDGET.as_millis() }, "{error}");
    }
    heavy.stop().expect("a clean stop");
}
