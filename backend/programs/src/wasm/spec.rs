//! [`WasmSpec`]: what WebAssembly module to run, for which robot, under which limits.

use std::sync::Arc;

use super::WasmLimits;
use crate::{PartInfo, RobotSide};

/// What to run, for which robot, under which limits.
#[derive(Clone, Debug)]
pub struct WasmSpec {
    /// The robot it drives and the lab's clock (its `seed` is what the module may ask
    /// for with `vlab.seed`, so its randomness is repeatable).
    pub side: RobotSide,
    /// The module, in the binary format (shared: many robots may run the same one).
    pub module: Arc<[u8]>,
    /// Budgets and caps.
    pub limits: WasmLimits,
}

impl WasmSpec {
    /// Module `module` for robot `robot`, with default limits, a physics step of 1/240 s
    /// and a control step of 50 Hz.
    pub fn new(robot: &str, module: impl Into<Arc<[u8]>>) -> WasmSpec {
        WasmSpec { side: RobotSide::new(robot), module: module.into(), limits: WasmLimits::default() }
    }

    /// Adds a sensor.
    pub fn sensor(mut self, name: &str, kind: &str) -> WasmSpec {
        self.side.sensors.push(PartInfo { name: name.into(), kind: kind.into() });
        self
    }

    /// Adds an actuator.
    pub fn actuator(mut self, name: &str, kind: &str) -> WasmSpec {
        self.side.actuators.push(PartInfo { name: name.into(), kind: kind.into() });
        self
    }

    /// Replaces the limits.
    pub fn limits(mut self, limits: WasmLimits) -> WasmSpec {
        self.limits = limits;
        self
    }
}
