//! Time inside a Python program, driven directly (no lab, no server) with made-up steps:
//! `time.sleep` waits in simulation time by answering the lab's steps with the
//! commands kept, `time.time()` & co. read the simulation clock, `robot.wait` does the
//! same as a sleep and says whether the lab still runs.
//!
//! Where this machine cannot enforce the sandbox, every test asserts the clear refusal
//! instead (a program never runs unconfined).
#![cfg(target_os = "linux")]

use std::collections::BTreeMap;

use vlab_programs::{ProgramError, ProgramSpec, PythonProgram, Reply, StepInput};
use vlab_protocol::ActuatorCommand;

fn spec(source: &str) -> ProgramSpec {
    ProgramSpec::new("bot", source).actuator("base", "DiffDrive")
}

/// Starts `spec`, or checks that the refusal is the clear one and returns `None`.
fn start(spec: ProgramSpec) -> Option<PythonProgram> {
    match PythonProgram::start(spec) {
        Ok(program) => Some(program),
        Err(e @ ProgramError::SandboxUnavailable(_)) => {
            let message = e.to_string();
            assert!(message.starts_with("refused to start the program: the sandbox cannot be enforced"), "{message}");
            eprintln!("sandbox unavailable here, refusal checked: {message}");
            None
        }
        Err(e) => panic!("the program did not start: {e}"),
    }
}

/// The control step at lab step `step` (1/240 s physics steps, every 5th a control step).
fn at(step: u64) -> StepInput {
    StepInput { step, time_secs: step as f64 / 240.0, sensors: BTreeMap::new() }
}

fn drive(v: f64, omega: f64) -> BTreeMap<String, ActuatorCommand> {
    BTreeMap::from([("base".to_string(), ActuatorCommand::Drive { v, omega })])
}

fn texts(reply: &Reply) -> Vec<String> {
    reply.console.iter().map(|l| l.text.clone()).collect()
}

#[test]
fn a_sleep_answers_every_step_with_the_commands_kept_until_its_time_then_the_program_goes_on() {
    let source = r#"
import time
from vlab import Robot
robot = Robot()
base = robot.actuator("base")
base.set(0.2, 0.0)
time.sleep(0.1)
print("woke at step", robot.step_count(), "t =", time.time(), time.time() == robot.time())
base.set(0.0, 1.0)
while robot.step():
    print("step", robot.step_count())
"#;
    let Some(mut program) = start(spec(source)) else { return };
    let ready = program.receive().expect("ready");
    assert_eq!(ready.commands, drive(0.2, 0.0), "the commands set before the sleep go at once");
    // 0.1 s is 24 physics steps: the program sleeps through the control steps 5..20
    // (empty answers: the robot keeps its commands) and wakes at step 25.
    for step in [5, 10, 15, 20] {
        let reply = program.exchange(&at(step)).expect("a step while asleep");
        assert_eq!(reply.step, Some(step));
        assert!(reply.commands.is_empty() && reply.console.is_empty(), "step {step}: {reply:?}");
    }
    let woke = program.exchange(&at(25)).expect("the step it wakes at");
    assert_eq!(texts(&woke), [format!("woke at step 25 t = {} True", 25.0 / 240.0)]);
    assert_eq!(woke.commands, drive(0.0, 1.0));
    let next = program.exchange(&at(30)).expect("a step");
    assert_eq!(texts(&next), ["step 30"]);
    program.stop().expect("a clean stop");
}

#[test]
fn every_clock_of_the_time_module_reads_simulation_time() {
    let source = r#"
import time
from time import sleep, monotonic
from vlab import Robot
robot = Robot()
print("start", time.time(), time.monotonic(), time.perf_counter(), time.time_ns())
robot.step()
t = robot.time()
print(time.time() == t, monotonic() == t, time.perf_counter() == t, time.time_ns() == round(t * 1e9),
      time.monotonic_ns() == time.perf_counter_ns() == time.time_ns())
print(type(time.time_ns()).__name__, time.process_time() >= 0, time.localtime().tm_year > 2000)
sleep(0.0)
print("sleep(0) returned at once", robot.step_count())
for bad in (-1, float("nan"), float("inf"), "1", None):
    try:
        time.sleep(bad)
    except (ValueError, TypeError) as error:
        print(type(error).__name__, error)
while robot.step():
    pass
"#;
    let Some(mut program) = start(spec(source)) else { return };
    let ready = program.receive().expect("ready");
    assert_eq!(texts(&ready), ["start 0.0 0.0 0.0 0"], "the program starts at the lab's time");
    let reply = program.exchange(&at(1205)).expect("a step");
    assert_eq!(
        texts(&reply),
        [
            "True True True True True",
            "int True True",
            "sleep(0) returned at once 1205",
            "ValueError sleep length must be non-negative",
            "ValueError Invalid value NaN (not a number)",
            "ValueError sleep length must be finite",
            "TypeError 'str' object cannot be interpreted as an integer",
            "TypeError 'NoneType' object cannot be interpreted as an integer",
        ]
    );
    program.stop().expect("a clean stop");
}

#[test]
fn a_sleep_before_the_robot_exists_waits_in_simulation_time_too() {
    // The program answers the lab's steps while it sleeps, Robot() or not: the lab's
    // clock never waits for it.
    let source = r#"
import time
time.sleep(0.05)
from vlab import Robot
robot = Robot()
print("robot at", robot.step_count())
robot.actuator("base").set(0.1, 0.0)
while robot.step():
    pass
"#;
    let Some(mut program) = start(spec(source)) else { return };
    let ready = program.receive().expect("ready");
    assert!(ready.commands.is_empty() && ready.console.is_empty(), "{ready:?}");
    for step in [5, 10] {
        assert!(program.exchange(&at(step)).expect("asleep").console.is_empty());
    }
    // 0.05 s is 12 physics steps: it wakes at the control step 15.
    let woke = program.exchange(&at(15)).expect("awake");
    assert_eq!(texts(&woke), ["robot at 15"]);
    assert_eq!(woke.commands, drive(0.1, 0.0));
    program.stop().expect("a clean stop");
}

#[test]
fn robot_wait_says_whether_the_lab_runs_and_a_stop_ends_a_sleep_at_once() {
    let source = r#"
import time
from vlab import Robot
robot = Robot()
print("waited", robot.wait(0.02), robot.step_count())
print("waited", robot.wait(0), robot.step_count())
time.sleep(1000)
print("after the long sleep:", robot.step(), robot.wait(1))
"#;
    let Some(mut program) = start(spec(source)) else { return };
    program.receive().expect("ready");
    // 0.02 s is 4.8 physics steps: the first control step (5) ends the wait.
    let reply = program.exchange(&at(5)).expect("a step");
    assert_eq!(texts(&reply), ["waited True 5", "waited True 5"]);
    for step in [10, 15, 20] {
        assert!(program.exchange(&at(step)).expect("asleep").console.is_empty());
    }
    program.stop().expect("the stop ends the sleep and the program ends cleanly");
    let console: Vec<&str> = program.console().map(|l| l.text.as_str()).collect();
    assert_eq!(console.last(), Some(&"after the long sleep: False False"));
}

#[test]
fn a_bad_wait_raises_at_the_students_line() {
    let source = "from vlab import Robot\nrobot = Robot()\n\nrobot.wait(-0.5)\n";
    let Some(mut program) = start(spec(source)) else { return };
    let Err(ProgramError::Raised { traceback }) = program.receive() else { panic!("it should have raised") };
    assert!(traceback.contains("main.py\", line 4"), "{traceback}");
    assert!(traceback.ends_with("ValueError: wait length must be non-negative"), "{traceback}");
    assert!(!traceback.contains("vlab.py"), "the robot API's own frames are not shown: {traceback}");
}

#[test]
fn a_sleep_in_a_thread_of_the_programs_own_waits_for_the_main_threads_steps() {
    // Only the main thread talks to the lab: a thread's sleep ends when the main
    // thread's steps bring the clock to its time, never before. (When the thread runs
    // after that is the operating system's business: threads are not lockstep.)
    let source = r#"
import threading, time
from vlab import Robot
robot = Robot()
woke = []
def nap():
    start = time.time()
    time.sleep(0.1)
    woke.append((start, time.time()))
threading.Thread(target=nap).start()
while robot.step():
    if woke:
        start, end = woke.pop()
        print(f"the thread slept from {start:.4f} to {end:.4f} s")
"#;
    let Some(mut program) = start(spec(source)) else { return };
    program.receive().expect("ready");
    let mut said = Vec::new();
    let mut step = 0;
    while said.is_empty() && step < 24_000 {
        step += 5;
        said.extend(texts(&program.exchange(&at(step)).expect("a step")));
    }
    program.stop().expect("a clean stop");
    assert_eq!(said.len(), 1, "{said:?}");
    let times: Vec<f64> = said[0].split(' ').filter_map(|w| w.parse().ok()).collect();
    assert!(times[1] - times[0] >= 0.1 - 1e-4, "it woke early: {said:?}");
    eprintln!("{} (the main thread at {:.4} s)", said[0], step as f64 / 240.0);
}
