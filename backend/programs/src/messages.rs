//! What the lab hands a program for one control step and what it gets back, as this
//! crate's runtimes pass them around; the messages themselves are the program protocol
//! of `vlab_protocol::program_protocol`.

use std::collections::BTreeMap;

pub use vlab_protocol::ConsoleSource;
pub use vlab_protocol::program_protocol::{
    BeliefUpdate, ConsoleLine, LabMsg, PIPE_PROTOCOL_VERSION, PROGRAM_PROTOCOL_VERSION, PartInfo, ProgramMsg,
};
use vlab_protocol::{ActuatorCommand, ActuatorCommands, RobotReport, SensorValue};

/// The readings of one control step, as the lab sends them.
#[derive(Clone, Debug, PartialEq)]
pub struct StepInput {
    /// The lab's step after which the readings were taken.
    pub step: u64,
    /// Simulation time then, seconds.
    pub time_secs: f64,
    /// Every sensor's measured value by name (`None` before its first reading).
    pub sensors: BTreeMap<String, Option<SensorValue>>,
}

impl StepInput {
    /// The measured readings of a robot's report.
    pub fn from_report(report: &RobotReport) -> StepInput {
        StepInput {
            step: report.step,
            time_secs: report.time,
            sensors: report.sensors.iter().map(|s| (s.name.clone(), s.measured.clone())).collect(),
        }
    }

    pub(crate) fn to_message(&self) -> LabMsg {
        LabMsg::Step { step: self.step, time: self.time_secs, sensors: self.sensors.clone() }
    }
}

/// What a program answered for one control step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reply {
    /// The step it answers (`None`: the answer to `hello`, before the first step).
    pub step: Option<u64>,
    /// Commands by actuator name, set during this control step: the lab applies them
    /// in the next pre-step phase.
    pub commands: BTreeMap<String, ActuatorCommand>,
    /// Console lines printed or logged since the previous reply, in order.
    pub console: Vec<ConsoleLine>,
    /// What it published about its belief since the previous reply.
    pub belief: BeliefUpdate,
    /// Messages for its robot's radio, in the order sent (`lab::radio` routes them).
    pub radio: Vec<String>,
}

impl Reply {
    /// The commands in the shape `Robots::command` takes.
    pub fn actuator_commands(&self) -> ActuatorCommands {
        self.commands
            .iter()
            .map(|(name, command)| (name.clone(), serde_json::to_value(command).expect("commands serialise")))
            .collect()
    }
}
