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
    /// Is seen: a beacon that `LandmarkSensor`s locate.
    Landmark,
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

use ParamType::{Bool, Count, Num, Str};

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
        params: &[
            ("range", Num),
            ("max_length", Count),
            ("channel", Count),
            ("max_heard", Count),
            ("line_of_sight", Bool),
        ],
    },
    DeviceSpec { name: "IMU", class: DeviceClass::Sensor, placement: Placement::Body, params: &[] },
    DeviceSpec {
        name: "LandmarkSensor",
        class: DeviceClass::Sensor,
        placement: Placement::Body,
        params: &[("range", Num), ("fov", Num), ("vertical_fov", Num), ("angle_noise", Num), ("line_of_sight", Bool)],
    },
    DeviceSpec { name: "Beacon", class: DeviceClass::Landmark, placement: Placement::Body, params: &[] },
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
        ("Radio", "range") => 10.0,
        ("Radio", "max_length") => 64.0,
        ("Radio", "channel") => 1.0,
        ("Radio", "max_heard") => 8.0,
        ("LandmarkSensor", "range") => 10.0,
        ("LandmarkSensor", "fov") => 120f64.to_radians(),
        ("LandmarkSensor", "vertical_fov") => 120f64.to_radians(),
        ("LandmarkSensor", "rate") => 10.0,
        ("LandmarkSensor", "angle_noise") => 0.0,
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
        ("Camera" | "DepthCamera", "width") => 160.0,
        ("Camera" | "DepthCamera", "height") => 120.0,
        ("Camera" | "DepthCamera", "fov") => 60f64.to_radians(),
        ("Camera" | "DepthCamera", "rate") => 5.0,
        ("SimpleMotor" | "SimpleServo", "max_force") => 10.0,
        ("SimpleServo", "kp") => 10.0,
        ("SimpleServo", "kd") => 0.1,
        (_, "noise" | "scale_noise" | "bias" | "resolution") => 0.0,
        _ => return None,
    })
}

/// The most pixels one camera may have (320 × 240): each is a ray cast per image.
pub const MAX_CAMERA_PIXELS: f64 = 76_800.0;
/// The widest field of view a (pinhole) camera may have, radians (170°).
pub const MAX_CAMERA_FOV: f64 = 170.0 * std::f64::consts::PI / 180.0;
/// The longest range of a depth camera, metres: its pixels travel as whole millimetres
/// in 16 bits.
pub const MAX_DEPTH_RANGE: f64 = 65.0;

/// Camera rays one robot's cameras may cast per second of simulation time, all together:
/// two default cameras (160 × 120 at 5 Hz). A ray costs a few hundred nanoseconds on the
/// lab's thread, so this keeps one robot's cameras under about a tenth of a core at 1×,
/// whatever its owner declares (docs/sensors.md, "Cameras").
pub const MAX_CAMERA_RAYS_PER_ROBOT: u64 = 2 * 160 * 120 * 5;

/// Camera rays all the cameras of one lab may cast per second of simulation time,
/// whoever declared them: five robots' full budgets (ten default cameras, or forty of
/// 80 × 60). At 145 ns a ray (an idle 2-core machine) to 300–500 ns (a busy one) that
/// is 14–48 % of a core at 1×, which leaves the physics, the other sensors and the
/// programs' exchange the rest: a
/// class cannot fill the lab's thread with cameras one robot at a time
/// (docs/sensors.md, "Cameras").
pub const MAX_CAMERA_RAYS_PER_LAB: u64 = 5 * MAX_CAMERA_RAYS_PER_ROBOT;

/// The rays per second of simulation time a camera of these parameters casts (one per
/// pixel per image); `None` for any other device.
pub fn camera_rays_per_second(device: &str, num: impl Fn(&str) -> Option<f64>) -> Option<f64> {
    matches!(device, "Camera" | "DepthCamera")
        .then(|| num("width").unwrap_or(0.0) * num("height").unwrap_or(0.0) * num("rate").unwrap_or(0.0))
}

/// Whether `total` camera rays per second for `robot` (`None`: cameras of no robot) stay
/// within `budget` (by default [`MAX_CAMERA_RAYS_PER_ROBOT`]): the message when not.
pub fn check_camera_budget(robot: Option<&str>, total: f64, budget: u64) -> Result<(), String> {
    if total <= budget as f64 {
        return Ok(());
    }
    let whose = robot.map_or("cameras outside a robot".to_owned(), |r| format!("robot '{r}''s cameras"));
    Err(format!(
        "with this camera, {whose} would cast {total:.0} rays per second of simulation time (width × height × \
         rate, all cameras together); at most {budget}: use smaller images or a lower rate"
    ))
}

/// Whether a device's parameters together stay within the catalogue's limits
/// (`num` gives a parameter as set, else its default): the message when not.
pub fn check_limits(device: &str, num: impl Fn(&str) -> Option<f64>) -> Result<(), String> {
    if !matches!(device, "Camera" | "DepthCamera") {
        return perception_limits(device, num);
    }
    let (width, height) = (num("width").unwrap_or(0.0), num("height").unwrap_or(0.0));
    if width * height > MAX_CAMERA_PIXELS {
        return Err(format!(
            "a {device} of {width} × {height} has {} pixels; at most {MAX_CAMERA_PIXELS} (320 × 240) are allowed",
            width * height
        ));
    }
    // A sensor's rate of 0 means every physics step: for a camera, hundreds of images a
    // second. Its budget counts images, so a camera says how many it takes.
    if num("rate").is_none_or(|rate| !(rate > 0.0 && rate.is_finite())) {
        return Err(format!("a {device}'s 'rate' is its images per second of simulation time: above 0"));
    }
    if num("fov").is_some_and(|fov| fov > MAX_CAMERA_FOV) {
        return Err(format!("a {device}'s 'fov' is at most {MAX_CAMERA_FOV:.4} rad (170°)"));
    }
    if device == "DepthCamera" && num("range").is_some_and(|range| range > MAX_DEPTH_RANGE) {
        return Err(format!("a DepthCamera's 'range' is at most {MAX_DEPTH_RANGE} m"));
    }
    Ok(())
}

/// The longest radio message, bytes (a radio's `max_length` is at most this).
pub const MAX_RADIO_LENGTH: f64 = 1024.0;
/// The most messages a radio may hear per control step (`max_heard`).
pub const MAX_RADIO_HEARD: f64 = 64.0;
/// The highest radio channel.
pub const MAX_RADIO_CHANNEL: f64 = 1000.0;

/// The limits of radios and landmark sensors (see [`check_limits`]).
fn perception_limits(device: &str, num: impl Fn(&str) -> Option<f64>) -> Result<(), String> {
    let over = |name: &str, limit: f64| num(name).is_some_and(|v| v > limit);
    match device {
        "Radio" if over("max_length", MAX_RADIO_LENGTH) => {
            Err(format!("a Radio's 'max_length' is at most {MAX_RADIO_LENGTH} bytes"))
        }
        "Radio" if over("max_heard", MAX_RADIO_HEARD) => {
            Err(format!("a Radio's 'max_heard' is at most {MAX_RADIO_HEARD} messages per control step"))
        }
        "Radio" if over("channel", MAX_RADIO_CHANNEL) => {
            Err(format!("a Radio's 'channel' is at most {MAX_RADIO_CHANNEL}"))
        }
        "LandmarkSensor" if over("fov", std::f64::consts::TAU) => {
            Err("a LandmarkSensor's 'fov' is at most 2π rad (all around)".into())
        }
        "LandmarkSensor" if over("vertical_fov", std::f64::consts::PI) => {
            Err("a LandmarkSensor's 'vertical_fov' is at most π rad".into())
        }
        _ => Ok(()),
    }
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

    #[test]
    fn cameras_are_small_by_default_and_limited_in_pixels_fov_and_range() {
        let defaults = |device: &'static str| move |name: &str| default_value(device, name);
        assert_eq!((default_value("Camera", "width"), default_value("Camera", "height")), (Some(160.0), Some(120.0)));
        assert_eq!(default_value("DepthCamera", "rate"), Some(5.0));
        assert_eq!(check_limits("Camera", defaults("Camera")), Ok(()));
        let sized = |w: f64, h: f64| {
            move |name: &str| match name {
                "width" => Some(w),
                "height" => Some(h),
                other => default_value("Camera", other),
            }
        };
        assert_eq!(check_limits("Camera", sized(320.0, 240.0)), Ok(()));
        let every_step = |name: &str| if name == "rate" { Some(0.0) } else { default_value("Camera", name) };
        assert!(check_limits("Camera", every_step).unwrap_err().contains("above 0"));
        let rays = |device| camera_rays_per_second(device, |name: &str| default_value(device, name));
        assert_eq!(rays("Camera"), Some(96_000.0));
        assert_eq!(rays("Lidar"), None);
        assert_eq!(MAX_CAMERA_RAYS_PER_ROBOT, 2 * 96_000, "two default cameras");
        assert_eq!(check_camera_budget(Some("bot"), 2.0 * 96_000.0, MAX_CAMERA_RAYS_PER_ROBOT), Ok(()));
        let over = check_camera_budget(Some("bot"), 2.0 * 96_000.0 + 1.0, MAX_CAMERA_RAYS_PER_ROBOT).unwrap_err();
        assert!(over.contains("robot 'bot''s cameras would cast 192001 rays per second"), "{over}");
        assert!(check_limits("Camera", sized(321.0, 240.0)).unwrap_err().contains("77040 pixels"));
        let wide = |name: &str| if name == "fov" { Some(3.0) } else { default_value("Camera", name) };
        assert!(check_limits("Camera", wide).is_err());
        let far = |name: &str| if name == "range" { Some(70.0) } else { default_value("DepthCamera", name) };
        assert!(check_limits("DepthCamera", far).is_err());
        assert_eq!(check_limits("Lidar", far), Ok(()));
    }

    #[test]
    fn radios_and_landmark_sensors_are_limited_at_their_documented_edges() {
        let with = |device: &'static str, key: &'static str, value: f64| {
            move |name: &str| if name == key { Some(value) } else { default_value(device, name) }
        };
        assert_eq!(check_limits("Radio", with("Radio", "max_length", 1024.0)), Ok(()));
        assert!(check_limits("Radio", with("Radio", "max_length", 1025.0)).unwrap_err().contains("1024 bytes"));
        assert_eq!(check_limits("Radio", with("Radio", "max_heard", 64.0)), Ok(()));
        assert!(check_limits("Radio", with("Radio", "max_heard", 65.0)).is_err());
        assert!(check_limits("Radio", with("Radio", "channel", 1001.0)).is_err());
        assert_eq!(check_limits("LandmarkSensor", with("LandmarkSensor", "fov", std::f64::consts::TAU)), Ok(()));
        assert!(check_limits("LandmarkSensor", with("LandmarkSensor", "fov", 6.3)).is_err());
        assert!(check_limits("LandmarkSensor", with("LandmarkSensor", "vertical_fov", 3.2)).is_err());
        assert_eq!(lookup("beacon").map(|d| d.class), Some(DeviceClass::Landmark));
        assert_eq!(lookup("Beacon").unwrap().param("noise"), None, "a beacon is no sensor");
    }
}
