//! Sensors and actuators as the scene declared them: a type from the catalogue, a name,
//! where it is mounted and its checked parameters.

/// A sensor or actuator of the model.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceModel {
    /// Its name: unique within its robot (or in the lab, outside robots).
    pub name: String,
    /// Its type, spelled as in the catalogue (`SimpleGPS`, `SimpleMotor`, ...).
    pub kind: String,
    /// The robot it belongs to, if any.
    pub robot: Option<String>,
    /// What it measures or drives.
    pub mount: Mount,
    /// Parameters the scene set, in the order written; names lower-case.
    pub params: Vec<(String, ParamValue)>,
}

impl DeviceModel {
    /// The parameter called `name`, if the scene set it.
    pub fn param(&self, name: &str) -> Option<&ParamValue> {
        self.params.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// The numeric parameter `name`: as set, else the catalogue's default.
    pub fn num(&self, name: &str) -> Option<f64> {
        match self.param(name) {
            Some(ParamValue::Num(n)) => Some(*n),
            _ => crate::catalogue::default_value(&self.kind, name),
        }
    }

    /// The rays per second of simulation time this device casts if it is a camera
    /// (width × height × rate); `None` for any other device.
    pub fn camera_rays_per_second(&self) -> Option<f64> {
        crate::catalogue::camera_rays_per_second(&self.kind, |name| self.num(name))
    }
}

/// Where a device sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mount {
    /// On a body (index in `SceneModel::bodies`): it measures that body.
    Body(usize),
    /// On a joint (index in `SceneModel::joints`): it measures or drives that joint.
    Joint(usize),
    /// Standalone (keyboard, radio, drive helpers): belongs to the robot as a whole.
    Robot,
}

/// A checked parameter value.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    /// A number.
    Num(f64),
    /// A string.
    Str(String),
    /// A boolean.
    Bool(bool),
    /// A list of numbers (`output_curve(x0,y0, x1,y1)`).
    Nums(Vec<f64>),
}
