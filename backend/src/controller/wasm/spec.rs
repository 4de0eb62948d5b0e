//! [`WasmSpec`]: what WebAssembly module to run, for which robot, under which limits.

use std::sync::Arc;

use super::WasmLimits;
use crate::controller::PartInfo;

/// What to run, for which robot, under which limits.
#[derive(Clone, Debug)]
pub struct WasmSpec {
    /// The robot's name in the lab.
    pub robot: String,
    /// Its sensors (name and catalogue type), in declaration order.
    pub sensors: Vec<PartInfo>,
    /// Its actuators, in declaration order.
    pub actuators: Vec<PartInfo>,
    /// The physics step, seconds.
    pub dt_secs: f64,
    /// Physics steps per control step.
    pub control_period: u32,
    /// The lab's step when the program starts.
    pub step: u64,
    /// The lab's time then, seconds.
    pub time_secs: f64,
    /// The seed the module may ask for (`vlab.seed`), so its randomness is repeatable.
    pub seed: u64,
    /// The module, in the binary format (shared: many robots may run the same one).
    pub module: Arc<[u8]>,
    /// Budgets and caps.
    pub limits: WasmLimits,
}

impl WasmSpec {
    /// Module `module` for robot `robot`, with default limits, a physics step of 1/240 s
    /// and a control step of 50 Hz.
    pub fn new(robot: &str, module: impl Into<Arc<[u8]>>) -> WasmSpec {
        WasmSpec {
            robot: robot.into(),
            sensors: Vec::new(),
            actuators: Vec::new(),
            dt_secs: 1.0 / 240.0,
            control_period: 5,
            step: 0,
            time_secs: 0.0,
            seed: 0,
            module: module.into(),
            limits: WasmLimits::default(),
        }
    }

    /// Adds a sensor.
    pub fn sensor(mut self, name: &str, kind: &str) -> WasmSpec {
        self.sensors.push(PartInfo { name: name.into(), kind: kind.into() });
        self
    }

    /// Adds an actuator.
    pub fn actuator(mut self, name: &str, kind: &str) -> WasmSpec {
        self.actuators.push(PartInfo { name: name.into(), kind: kind.into() });
        self
    }

    /// Replaces the limits.
    pub fn limits(mut self, limits: WasmLimits) -> WasmSpec {
        self.limits = limits;
        self
    }
}
