//! The robot API as a WebAssembly module sees it, version [`ABI_VERSION`]: the names of
//! the imports the lab provides and of the exports it calls, and the codes they use.
//! The lab (`vlab-programs`) and the SDK (`vlab-robot-sdk`) both take them from here;
//! `docs/programs.md` ("WebAssembly programs") is the table students read.

/// The version of the WebAssembly robot API. A module says which one it was built for
/// with its `vlab_abi_version` export; another number is refused at start.
pub const ABI_VERSION: i32 = 1;

/// The import module every host function lives in.
pub const IMPORT_MODULE: &str = "vlab";

/// The export naming the ABI version the module was built for: `() -> i32`, required.
pub const EXPORT_ABI_VERSION: &str = "vlab_abi_version";
/// Called once before the first `pre_step`: `() -> ()`, optional.
pub const EXPORT_INIT: &str = "init";
/// Called before every control step's physics; sets commands: `() -> ()`, required.
pub const EXPORT_PRE_STEP: &str = "pre_step";
/// Called with every control step's fresh readings: `() -> ()`, optional.
pub const EXPORT_POST_STEP: &str = "post_step";
/// The module's linear memory, through which strings and buffers pass; optional (a
/// module without one cannot use the pointer-taking imports).
pub const EXPORT_MEMORY: &str = "memory";

/// Called once before anything else when exported: `() -> ()`. A C or C++ module built
/// as a WASI reactor (clang's `-mexec-model=reactor`) runs its static constructors here.
pub const EXPORT_INITIALIZE: &str = "_initialize";
/// The program's display name when exported: `() -> i32`, a pointer to a NUL-terminated
/// UTF-8 string in the module's memory (the second argument of C++'s
/// `ROBOT_SOFTWARE_PLUGIN`), read once at start.
pub const EXPORT_PROGRAM_NAME: &str = "vlab_program_name";

/// Every import the lab provides (module [`IMPORT_MODULE`]), by name.
pub const IMPORTS: &[&str] = &[
    "log",
    "panic",
    "time",
    "step_count",
    "dt",
    "seed",
    "sensor_count",
    "sensor_find",
    "sensor_name",
    "sensor_kind",
    "actuator_count",
    "actuator_find",
    "actuator_name",
    "actuator_kind",
    "reading_type",
    "reading_len",
    "reading_value",
    "reading_read",
    "reading_bytes",
    "key_held",
    "key_name",
    "set_speed",
    "set_position",
    "set_drive",
    "publish_estimate",
    "draw_points",
    "draw_lines",
    "draw_text",
    "clear_drawings",
    "hold_drawings",
    "radio_send",
];

/// What `reading_type` answers: the shape of a sensor's latest reading, and so the
/// layout of its values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum ReadingType {
    /// No reading yet (before the sensor's first measurement).
    None = 0,
    /// `[value]`.
    Scalar = 1,
    /// `[x, y, z]`.
    Vector = 2,
    /// `[angle_min, angle_step, max_range, range_0, range_1, ...]`.
    Scan = 3,
    /// No values; the keys held through `key_held` / `key_name`.
    Keys = 4,
    /// `[ticks, angle]`.
    Ticks = 5,
    /// `[position, velocity]`.
    Joint = 6,
    /// `[x, y, theta]`.
    Pose2d = 7,
    /// `[touching (0 or 1), force_x, force_y, force_z, point_x, point_y, point_z]`, the
    /// point NaN when nothing touches.
    Contact = 8,
    /// A camera's image: `[width, height, mean_r, mean_g, mean_b]`; its pixels through
    /// `reading_bytes` (RGB, row-major, top row first).
    Image = 9,
    /// A depth camera's image: `[width, height, max_range, nearest]` (metres); its
    /// pixels through `reading_bytes` (little-endian `u16` millimetres along the
    /// optical axis, row-major, top row first).
    DepthImage = 10,
    /// An IMU: `[roll, pitch, yaw, w, x, y, z]` (radians, then the quaternion).
    Orientation = 11,
    /// A landmark sensor: `[distance, bearing, elevation]` per beacon seen; the k-th
    /// beacon's id through `key_name(sensor, k)`.
    Landmarks = 12,
    /// A radio: `[messages heard]`; the k-th message's sender through
    /// `key_name(sensor, 2k)` and its text through `key_name(sensor, 2k + 1)`.
    Radio = 13,
}

/// What the part-taking and drawing imports answer when they cannot do what was asked
/// (0 is success; counts and lengths are never negative).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum Status {
    /// Done.
    Ok = 0,
    /// No sensor or actuator has that index (or name).
    NoSuchPart = -1,
    /// The part is of another kind (`set_speed` on a `DiffDrive`, `key_held` on a GPS).
    WrongKind = -2,
    /// A command value, an estimate or a coordinate is NaN or infinite.
    NotFinite = -3,
    /// A drawing's colour is neither a name the lab knows nor `#rrggbb`.
    BadColor = -4,
    /// The drawing would take the step past its drawing cap
    /// (the lab's `WasmLimits::drawn_vertices_per_step` and `drawn_texts_per_step`).
    OverBudget = -5,
    /// A line of fewer than two points.
    TooFewPoints = -6,
}

/// The WASI import module C and C++ modules built with wasi-libc import from.
pub const WASI_MODULE: &str = "wasi_snapshot_preview1";

/// The WASI functions the lab provides (module [`WASI_MODULE`]), by name: only what the
/// C and C++ standard libraries need to print, read the clock and draw random numbers,
/// each made deterministic (standard output to the console, the clock the lab's
/// simulation time, random bytes from the program's seed, no files, no environment).
/// A module importing any other WASI function is refused at start.
pub const WASI_IMPORTS: &[&str] = &[
    "args_get",
    "args_sizes_get",
    "environ_get",
    "environ_sizes_get",
    "clock_time_get",
    "fd_close",
    "fd_fdstat_get",
    "fd_read",
    "fd_seek",
    "fd_write",
    "poll_oneoff",
    "proc_exit",
    "random_get",
    "sched_yield",
];

/// Whether the lab provides import `module`.`name`: one of [`IMPORTS`] or
/// [`WASI_IMPORTS`].
pub fn is_provided(module: &str, name: &str) -> bool {
    (module == IMPORT_MODULE && IMPORTS.contains(&name)) || (module == WASI_MODULE && WASI_IMPORTS.contains(&name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lab_provides_its_own_imports_and_the_listed_wasi_ones_only() {
        assert!(is_provided("vlab", "log"));
        assert!(is_provided("wasi_snapshot_preview1", "fd_write"));
        assert!(!is_provided("wasi_snapshot_preview1", "path_open"));
        assert!(!is_provided("vlab", "fd_write"));
        assert!(!is_provided("env", "log"));
    }

    #[test]
    fn no_name_is_listed_twice() {
        for list in [IMPORTS, WASI_IMPORTS] {
            let mut sorted = list.to_vec();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), list.len());
        }
    }
}
