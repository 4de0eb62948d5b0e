//! The sensor and actuator catalogue: type names, where each may be declared, and the
//! parameters each takes with their types and defaults (docs/sensors.md describes each
//! device; docs/scene-language.md, "Sensors and actuators", how they are declared).

/// Sensor or actuator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceClass {
    /// Reads the world.
    Sensor,
    /// Writes it.
    Actuator,
}

/// Where a device may be declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Inside an object's block: it measures that object.
    Body,
    /// Inside a joint's block: it measures or drives that joint.
    Joint,
    /// Anywhere in a robot's body (keyboard, drive helpers).
    Robot,
    /// Inside an object (mounted on it) or standalone in a robot.
    BodyOrRobot,
}

/// The type of a parameter value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamType {
    /// A number.
    Num,
    /// A positive whole number (beam counts, ticks).
    Count,
    /// A string (names of other devices).
    Str,
    /// A boolean.
    Bool,
    /// An even-length list of numbers, written `name(x0,y0, x1,y1, ...)`.
    Curve,
}

impl ParamType {
    /// How messages name it.
    pub fn name(self) -> &'static str {
        match self {
            ParamType::Num => "num",
            ParamType::Count => "num (a whole number ≥ 1)",
            ParamType::Str => "string",
            ParamType::Bool => "boolean",
            ParamType::Curve => "list of numbers",
        }
    }
}

/// One catalogue entry.
#[derive(Debug, PartialEq)]
pub struct DeviceSpec {
    /// Canonical spelling (`SimpleGPS`).
    pub name: &'static str,
    /// Sensor or actuator.
    pub class: DeviceClass,
    /// Where it may be declared.
    pub placement: Placement,
    /// Its own parameters (sensors also take [`COMMON_SENSOR_PARAMS`]).
    pub params: &'static [(&'static str, ParamType)],
}

impl DeviceSpec {
    /// The type of parameter `name` (lower-case), if the device takes it.
    pub fn param(&self, name: &str) -> Option<ParamType> {
        let common: &[(&str, ParamType)] = if self.class == DeviceClass::Sensor { COMMON_SENSOR_PARAMS } else { &[] };
        self.params.iter().chain(common).find(|(n, _)| *n == name).map(|(_, t)| *t)
    }

    /// Every parameter it takes, for messages.
    pub fn param_names(&self) -> String {
        let common: &[(&str, ParamType)] = if self.class == DeviceClass::Sensor { COMMON_SENSOR_PARAMS } else { &[] };
        let names: Vec<&str> = self.params.iter().chain(common).map(|(n, _)| *n).collect();
        if names.is_empty() { "no parameters".into() } else { names.join(", ") }
    }
}

/// Parameters every sensor takes: update rate (Hz of sim time) and the noise model.
pub const COMMON_SENSOR_PARAMS: &[(&str, ParamType)] = &[
    ("rate", ParamType::Num),
    ("noise", ParamType::Num),
    ("scale_noise", ParamType::Num),
    ("bias", ParamType::Num),
    ("resolution", ParamType::Num),
    ("output_curve", ParamType::Curve),
];

use ParamType::{Count, Num, Str};

const RANGED: &[(&str, ParamType)] = &[("range", Num), ("min_range", Num)];

/// Every device type the language knows. Angles (`fov`, `cone`) are in radians.
pub const CATALOGUE: &[DeviceSpec] = &[
    DeviceSpec { name: "SimpleGPS", class: DeviceClass::Sensor, placement: Placement::Body, params: &[] },
    DeviceSpec { name: "Compass", class: DeviceClass::Sensor, placement: Placement::Body, params: &[] },
    DeviceSpec { name: "LaserDistance", class: DeviceClass::Sensor, placement: Placement::Body, params: RANGED },
    DeviceSpec { name: "SimpleAccelerometer", class: DeviceClass::Sensor, placement: Placement::Body, params: &[] },
    DeviceSpec { name: "Keyboard", class: DeviceClass::Sensor, placement: Placement::Robot, params: &[] },
    DeviceSpec { name: "Gyro", class: DeviceClass::Sensor, placement: Placement::Body, params: &[] },
    DeviceSpec {
        name: "Lidar",
        class: DeviceClass::Sensor,
        placement: Placement::Body,
        params: &[("range", Num), ("min_range", Num), ("fov", Num), ("beams", Count)],
    },
    DeviceSpec {
        name: "Sonar",
        class: DeviceClass::Sensor,
        placement: Placement::Body,
        params: &[("range", Num), ("min_range", Num), ("cone", Num)],
    },
    DeviceSpec { name: "Infrared", class: DeviceClass::Sensor, placement: Placement::Body, params: RANGED },
    DeviceSpec {
        name: "Encoder",
        class: DeviceClass::Sensor,
        placement: Placement::Joint,
        params: &[("ticks_per_rev", Count)],
    },
    DeviceSpec {
        name: "Odometry",
        class: DeviceClass::Sensor,
        placement: Placement::Robot,
        params: &[
            ("left", Str),
            ("right", Str),
            ("wheel_radius", Num),
            ("track", Num),
            ("alpha1", Num),
            ("alpha2", Num),
            ("alpha3", Num),
            ("alpha4", Num),
        ],
    },
    DeviceSpec { name: "Touch", class: DeviceClass::Sensor, placement: Placement::Body, params: &[] },
    DeviceSpec { name: "ForceResistance", class: DeviceClass::Sensor, placement: Placement::Body, params: &[] },
    DeviceSpec { name: "JointState", class: DeviceClass::Sensor, placement: Placement::Joint, params: &[] },
    DeviceSpec {
        name: "Camera",
        class: DeviceClass::Sensor,
        placement: Placement::Body,
        params: &[("width", Count), ("height", Count), ("fov", Num)],
    },
    DeviceSpec {
        name: "DepthCamera",
        class: DeviceClass::Sensor,
        placement: Placement::Body,
        params: &[("width", Count), ("height", Count), ("fov", Num), ("range", Num)],
    },
    DeviceSpec {
        name: "Radio",
        class: DeviceClass::Sensor,
        placement: Placement::BodyOrRobot,
        params: &[("range", Num), ("max_length", Count)],
    },
    DeviceSpec {
        name: "SimpleMotor",
        class: DeviceClass::Actuator,
        placement: Placement::Joint,
        params: &[("max_force", Num), ("speed", Num)],
    },
    DeviceSpec {
        name: "SimpleServo",
        class: DeviceClass::Actuator,
        placement: Placement::Joint,
        params: &[
            ("kp", Num),
            ("kd", Num),
            ("max_force", Num),
            ("position", Num),
            ("min_position", Num),
            ("max_position", Num),
        ],
    },
    DeviceSpec {
        name: "DiffDrive",
        class: DeviceClass::Actuator,
        placement: Placement::Robot,
        params: &[("left", Str), ("right", Str), ("wheel_radius", Num), ("track", Num)],
    },
];

/// The default of a numeric parameter a scene left out, if it has one
/// (angles in radians). What the runtimes use; the model keeps only what was written.
pub fn default_value(device: &str, param: &str) -> Option<f64> {
    Some(match (device, param) {
        ("LaserDistance" | "Infrared" | "Lidar" | "DepthCamera", "range") => 10.0,
        ("LaserDistance" | "Infrared" | "Lidar", "min_range") => 0.1,
        ("Lidar", "fov") => std::f64::consts::PI,
        ("Lidar", "beams") => 361.0,
        ("Lidar", "noise") => 0.01,
        ("Lidar", "rate") => 40.0,
        ("Sonar", "cone") => 30f64.to_radians(),
        ("Sonar", "range") => 5.0,
        ("Sonar", "min_range") => 0.2,
        ("Encoder", "ticks_per_rev") => 256.0,
        ("Encoder", "rate") => 20.0,
        ("Camera" | "DepthCamera", "width") => 320.0,
        ("Camera" | "DepthCamera", "height") => 240.0,
        ("Camera" | "DepthCamera", "fov") => 60f64.to_radians(),
        ("SimpleMotor" | "SimpleServo", "max_force") => 10.0,
        ("SimpleServo", "kp") => 10.0,
        ("SimpleServo", "kd") => 0.1,
        (_, "noise" | "scale_noise" | "bias" | "resolution") => 0.0,
        _ => return None,
    })
}

/// For helper devices: parameters that name another device of the same robot, and
/// the type that device must have (`DiffDrive { left "m1"; }` → a `SimpleMotor`).
pub fn reference(device: &str, param: &str) -> Option<&'static str> {
    match (device, param) {
        ("DiffDrive", "left" | "right") => Some("SimpleMotor"),
        ("Odometry", "left" | "right") => Some("Encoder"),
        _ => None,
    }
}

/// The device type spelled `word` (case-insensitive).
pub fn lookup(word: &str) -> Option<&'static DeviceSpec> {
    CATALOGUE.iter().find(|d| d.name.eq_ignore_ascii_case(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_original_devices_are_there_and_lookup_ignores_case() {
        for name in
            ["SimpleGPS", "Compass", "LaserDistance", "SimpleAccelerometer", "Keyboard", "SimpleMotor", "SimpleServo"]
        {
            assert_eq!(lookup(&name.to_ascii_lowercase()).map(|d| d.name), Some(name));
        }
        assert!(lookup("Teleporter").is_none());
    }

    #[test]
    fn sensors_take_the_common_noise_parameters_and_actuators_do_not() {
        assert_eq!(lookup("Gyro").unwrap().param("noise"), Some(ParamType::Num));
        assert_eq!(lookup("SimpleMotor").unwrap().param("noise"), None);
        assert_eq!(lookup("Lidar").unwrap().param("beams"), Some(ParamType::Count));
    }
}
