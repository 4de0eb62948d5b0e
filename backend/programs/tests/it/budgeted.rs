//! A Python program with a short step budget and the steps it is sent, for the tests of
//! how long a lockstep lab waits for an answer.

use std::collections::BTreeMap;
use std::time::Duration;

use vlab_programs::{ProgramError, ProgramSpec, PythonProgram, StepInput};

/// `source` started for a robot with a DiffDrive `base`, answering each step within
/// `budget`; `None` where the machine cannot confine programs (said on stderr).
pub fn start(source: &str, budget: Duration) -> Option<PythonProgram> {
    let mut spec = ProgramSpec::new("bot", source).actuator("base", "DiffDrive");
    spec.limits.step_budget = budget;
    match PythonProgram::start(spec) {
        Ok(program) => Some(program),
        Err(e @ ProgramError::SandboxUnavailable(_)) => {
            eprintln!("sandbox unavailable here: {e}");
            None
        }
        Err(e) => panic!("the program did not start: {e}"),
    }
}

/// The readings of step `step` (none: the program only needs the step).
pub fn step(step: u64) -> StepInput {
    StepInput { step, time_secs: step as f64 / 240.0, sensors: BTreeMap::new() }
}
