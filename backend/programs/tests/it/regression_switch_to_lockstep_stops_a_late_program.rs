//! Regression: an instructor who switched a real-time lab to lockstep saw a student's
//! late program stopped at once with "did not answer within 500 ms". The program was
//! allowed to be late in real time (it needs more CPU per step than its share), its
//! readings had gone out more than a budget before, and the lockstep wait counted its
//! budget from then: it had none left. A wait now has its whole budget from when the
//! lab begins to wait; a program that never answers is still stopped at that budget.
#![cfg(target_os = "linux")]

use std::time::{Duration, Instant};

use vlab_programs::{ProgramError, PythonProgram};

use crate::budgeted::step;

/// The step budget of these programs.
const BUDGET: Duration = Duration::from_millis(400);

/// Each step answers 600 ms of wall time after its readings: more than a budget after
/// them, less than one after the lab below begins to wait. It waits on a timer, not on
/// the CPU, so a busy machine does not change when it answers.
const LATE_STEP: &str = r#"
import threading
from vlab import Robot
robot = Robot()
drive = robot.actuator("base")
while robot.step():
    threading.Event().wait(0.6)
    drive.set(0.1, 0.0)
"#;

fn start(source: &str) -> Option<PythonProgram> {
    crate::budgeted::start(source, BUDGET)
}

/// Sends a step, lets a real-time lab go on without the answer for `late` (looking
/// for it without waiting, as such a lab does), then waits for it as a lockstep lab.
fn late_then_waited(program: &mut PythonProgram, k: u64, late: Duration) -> Result<(), ProgramError> {
    program.send_step(&step(k))?;
    let sent = Instant::now();
    while sent.elapsed() < late {
        assert_eq!(program.try_receive()?, None, "the step is answered after 600 ms");
        std::thread::sleep(Duration::from_millis(20));
    }
    program.receive().map(|_| ())
}

#[test]
fn a_late_program_waited_for_after_its_budget_since_the_readings_answers_within_the_wait() {
    let Some(mut late) = start(LATE_STEP) else { return };
    late.receive().expect("ready");
    late_then_waited(&mut late, 5, Duration::from_millis(450)).expect("answered within the wait's budget");
    late.stop().expect("a clean stop");

    // One that never answers is still stopped, with the budget's timeout.
    let Some(mut looping) = start("from vlab import Robot\nrobot = Robot()\nrobot.step()\nwhile True:\n    pass\n")
    else {
        return;
    };
    looping.receive().expect("ready");
    let error = late_then_waited(&mut looping, 5, Duration::from_millis(450)).expect_err("an endless loop is stopped");
    assert_eq!(error, ProgramError::Timeout { ms: BUDGET.as_millis() }, "{error}");
}
