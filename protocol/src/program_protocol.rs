//! The program protocol: what the lab and a robot program say to each other, one JSON
//! object per line, version [`PROGRAM_PROTOCOL_VERSION`] (remote controllers, and the
//! Python client's tests, speak it as is); a sandboxed program's pipe speaks
//! [`PIPE_PROTOCOL_VERSION`], the same messages with every step in Python's `marshal`
//! format. `docs/programs.md` tells the conversation.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{ActuatorCommand, ConsoleSource, Drawing, Estimate, SensorValue};

/// The version of the lab ↔ program protocol in JSON, as remote controllers speak it
/// (a sandboxed program's pipe speaks [`PIPE_PROTOCOL_VERSION`]). A program that
/// answers another version than its hello's is refused.
pub const PROGRAM_PROTOCOL_VERSION: u32 = 1;

/// The version a sandboxed program's pipe speaks: [`PROGRAM_PROTOCOL_VERSION`]'s
/// messages, with each `step` in Python's `marshal` format after a line `m<N>` saying
/// its length, and a scan's ranges as little-endian `f64` bytes, left out while they are
/// those of the step before.
pub const PIPE_PROTOCOL_VERSION: u32 = 4;

/// One fixed part of the lab, seen from above: what a program's map is made of.
/// Ground coordinates are those of an `Odometry` reading: `x` along world X, `y` along
/// world −Z.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Footprint {
    /// Its outline on the ground, counter-clockwise, `[x, y]` metres.
    pub polygon: Vec<[f64; 2]>,
    /// Its lowest point, metres above world 0 (world Y).
    pub bottom: f64,
    /// Its highest point.
    pub top: f64,
}

impl Footprint {
    /// Whether ground point `p` (`[x, y]`, as the polygon's) lies on or inside the outline.
    pub fn contains(&self, p: [f64; 2]) -> bool {
        let polygon = &self.polygon;
        polygon
            .iter()
            .zip(polygon.iter().cycle().skip(1))
            .all(|(a, b)| (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) >= -1e-9)
    }
}

/// A sensor or an actuator as the program is told about it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartInfo {
    /// Its name within the robot (`GPS1`, `Motor1`).
    pub name: String,
    /// Its catalogue type (`SimpleGPS`, `SimpleMotor`, `DiffDrive`, ...).
    pub kind: String,
}

/// Lab → program.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LabMsg {
    /// The first message: who the program drives and how often it is asked.
    Hello {
        /// [`PROGRAM_PROTOCOL_VERSION`], or [`PIPE_PROTOCOL_VERSION`] on a pipe.
        version: u32,
        /// The robot's name in the lab.
        robot: String,
        /// Its sensors, in declaration order.
        sensors: Vec<PartInfo>,
        /// Its actuators, in declaration order.
        actuators: Vec<PartInfo>,
        /// The physics step, seconds of simulation time.
        dt: f64,
        /// Physics steps per control step (the program is asked every this many steps).
        control_period: u32,
        /// The lab's step when the program starts.
        step: u64,
        /// The lab's simulation time then, seconds.
        time: f64,
        /// Seed of the program's `random` module (a run is repeatable).
        seed: u64,
        /// The lab's static geometry, seen from above (`robot.map()` rasterizes it).
        #[serde(default)]
        obstacles: Vec<Footprint>,
    },
    /// One control step: the post-step readings the program reacts to.
    Step {
        /// The lab's step after which the readings were taken.
        step: u64,
        /// Simulation time then, seconds.
        time: f64,
        /// Every sensor's measured value by name (`null` before its first reading).
        sensors: BTreeMap<String, Option<SensorValue>>,
    },
    /// The end: `robot.step()` returns `False`; the program answers with `done`.
    Stop,
}

/// One line of a program's console, as the program sent it (the lab stamps it with
/// its clock to make a [`crate::ConsoleLine`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsoleLine {
    /// Where it came from.
    pub source: ConsoleSource,
    /// The line, without its newline (cut at 1000 characters by the program's side).
    pub text: String,
}

/// Program → lab.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ProgramMsg {
    /// The answer to `hello`: commands set before the first `robot.step()`.
    Ready {
        /// The protocol version as the program speaks it (its hello's).
        version: u32,
        /// Commands by actuator name.
        #[serde(default)]
        commands: BTreeMap<String, ActuatorCommand>,
        /// Console lines not sent yet.
        #[serde(default)]
        output: Vec<ConsoleLine>,
        /// What it believes and draws, if it published anything.
        #[serde(default, flatten)]
        belief: BeliefUpdate,
        /// Messages for its robot's radio, in order (`robot.send`).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        radio: Vec<String>,
    },
    /// The answer to `step`: commands set before calling `robot.step()` again.
    Commands {
        /// The step it answers.
        step: u64,
        /// Commands by actuator name (only those set during this control step).
        #[serde(default)]
        commands: BTreeMap<String, ActuatorCommand>,
        /// Console lines not sent yet.
        #[serde(default)]
        output: Vec<ConsoleLine>,
        /// What it believes and draws, if it published anything since its last answer.
        #[serde(default, flatten)]
        belief: BeliefUpdate,
        /// Messages for its robot's radio, in order (`robot.send`).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        radio: Vec<String>,
    },
    /// Console lines sent early (a program that prints a lot flushes every 4 KiB).
    Output {
        /// The lines.
        output: Vec<ConsoleLine>,
    },
    /// The program raised an exception it did not catch, and ends.
    Error {
        /// `exception`, or `memory` for a `MemoryError`.
        kind: String,
        /// The traceback, limited to the program's own files.
        traceback: String,
        /// Console lines not sent yet.
        #[serde(default)]
        output: Vec<ConsoleLine>,
    },
    /// The program ended: its main file returned, or it answered `stop`.
    Done {
        /// Console lines not sent yet.
        #[serde(default)]
        output: Vec<ConsoleLine>,
    },
}

/// What a program published about its belief since its last answer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BeliefUpdate {
    /// Its latest estimate of its pose (`None`: unchanged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<Estimate>,
    /// Forget the drawings kept so far (before adding `keep`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub clear: bool,
    /// Drawings to keep until cleared.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keep: Vec<Drawing>,
    /// The drawings of its latest step, in place of the step's before (`None`:
    /// unchanged, as while the program waits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drawings: Option<Vec<Drawing>>,
}

impl BeliefUpdate {
    /// Whether it changes nothing.
    pub fn is_empty(&self) -> bool {
        self.estimate.is_none() && !self.clear && self.keep.is_empty() && self.drawings.is_none()
    }
}
