//! The lab's functions as safe Rust: on `wasm32` the imports of module `vlab` (the one
//! place in the SDK with `unsafe`), elsewhere the thread's [`crate::testing::FakeLab`].
//! Names, types and codes are the ABI's (`docs/programs.md`).

/// `reading_type` codes, as the lab's robot API defines them.
pub mod reading {
    use vlab_protocol::robot_abi::ReadingType;

    pub const NONE: i32 = ReadingType::None as i32;
    pub const SCALAR: i32 = ReadingType::Scalar as i32;
    pub const VECTOR: i32 = ReadingType::Vector as i32;
    pub const SCAN: i32 = ReadingType::Scan as i32;
    pub const KEYS: i32 = ReadingType::Keys as i32;
    pub const TICKS: i32 = ReadingType::Ticks as i32;
    pub const JOINT: i32 = ReadingType::Joint as i32;
    pub const POSE2D: i32 = ReadingType::Pose2d as i32;
    pub const CONTACT: i32 = ReadingType::Contact as i32;
    pub const IMAGE: i32 = ReadingType::Image as i32;
    pub const DEPTH_IMAGE: i32 = ReadingType::DepthImage as i32;
    pub const ORIENTATION: i32 = ReadingType::Orientation as i32;
    pub const LANDMARKS: i32 = ReadingType::Landmarks as i32;
    pub const RADIO: i32 = ReadingType::Radio as i32;
}

/// Status codes of the part-taking and drawing functions, as the lab's robot API
/// defines them.
pub mod status {
    use vlab_protocol::robot_abi::Status;

    pub const OK: i32 = Status::Ok as i32;
    pub const NO_SUCH_PART: i32 = Status::NoSuchPart as i32;
    pub const WRONG_KIND: i32 = Status::WrongKind as i32;
    pub const NOT_FINITE: i32 = Status::NotFinite as i32;
    pub const BAD_COLOR: i32 = Status::BadColor as i32;
    pub const OVER_BUDGET: i32 = Status::OverBudget as i32;
    pub const TOO_FEW_POINTS: i32 = Status::TooFewPoints as i32;
}

#[cfg(target_arch = "wasm32")]
pub use self::imports::*;

#[cfg(not(target_arch = "wasm32"))]
pub use crate::testing::host::*;

/// Calls a `(index, buf, cap) -> len` function until the buffer holds the whole string.
pub fn read_string(mut call: impl FnMut(&mut [u8]) -> i32) -> Option<String> {
    let mut buf = vec![0u8; 64];
    loop {
        let len = usize::try_from(call(&mut buf)).ok()?;
        if len <= buf.len() {
            buf.truncate(len);
            return Some(String::from_utf8_lossy(&buf).into_owned());
        }
        buf.resize(len, 0);
    }
}

#[cfg(target_arch = "wasm32")]
#[allow(unsafe_code)] // the imports; every pointer passed is a live Rust slice
mod imports {
    mod raw {
        #[link(wasm_import_module = "vlab")]
        unsafe extern "C" {
            pub unsafe fn log(ptr: *const u8, len: usize);
            pub unsafe fn panic(ptr: *const u8, len: usize);
            pub safe fn time() -> f64;
            pub safe fn step_count() -> i64;
            pub safe fn dt() -> f64;
            pub safe fn seed() -> i64;
            pub safe fn sensor_count() -> i32;
            pub unsafe fn sensor_find(ptr: *const u8, len: usize) -> i32;
            pub unsafe fn sensor_name(index: i32, ptr: *mut u8, cap: usize) -> i32;
            pub unsafe fn sensor_kind(index: i32, ptr: *mut u8, cap: usize) -> i32;
            pub safe fn actuator_count() -> i32;
            pub unsafe fn actuator_find(ptr: *const u8, len: usize) -> i32;
            pub unsafe fn actuator_name(index: i32, ptr: *mut u8, cap: usize) -> i32;
            pub unsafe fn actuator_kind(index: i32, ptr: *mut u8, cap: usize) -> i32;
            pub safe fn reading_type(index: i32) -> i32;
            pub safe fn reading_len(index: i32) -> i32;
            pub safe fn reading_value(index: i32, k: i32) -> f64;
            pub unsafe fn reading_read(index: i32, ptr: *mut f64, cap: usize) -> i32;
            pub unsafe fn reading_bytes(index: i32, ptr: *mut u8, cap: usize) -> i32;
            pub unsafe fn key_held(index: i32, ptr: *const u8, len: usize) -> i32;
            pub unsafe fn key_name(index: i32, k: i32, ptr: *mut u8, cap: usize) -> i32;
            pub safe fn set_speed(index: i32, speed: f64) -> i32;
            pub safe fn set_position(index: i32, position: f64) -> i32;
            pub safe fn set_drive(index: i32, v: f64, omega: f64) -> i32;
            pub safe fn publish_estimate(x: f64, y: f64, theta: f64) -> i32;
            pub unsafe fn draw_points(
                ptr: *const f64,
                count: usize,
                color: *const u8,
                color_len: usize,
                keep: i32,
            ) -> i32;
            pub unsafe fn draw_lines(
                ptr: *const f64,
                count: usize,
                color: *const u8,
                color_len: usize,
                keep: i32,
            ) -> i32;
            pub unsafe fn draw_text(
                x: f64,
                y: f64,
                z: f64,
                ptr: *const u8,
                len: usize,
                color: *const u8,
                color_len: usize,
                keep: i32,
            ) -> i32;
            pub safe fn clear_drawings();
            pub safe fn hold_drawings();
            pub unsafe fn radio_send(ptr: *const u8, len: usize) -> i32;
        }
    }

    pub use self::raw::{
        actuator_count, clear_drawings, dt, hold_drawings, publish_estimate, reading_len, reading_type, reading_value,
        seed, sensor_count, set_drive, set_position, set_speed, step_count, time,
    };

    pub fn draw_points(points: &[[f64; 3]], color: &str, keep: bool) -> i32 {
        // SAFETY: the lab reads `count` points of three `f64`s at `ptr`, inside the
        // slice (`[[f64; 3]]` is that layout), and `color_len` bytes of the string.
        unsafe { raw::draw_points(points.as_ptr().cast(), points.len(), color.as_ptr(), color.len(), i32::from(keep)) }
    }

    pub fn draw_lines(points: &[[f64; 3]], color: &str, keep: bool) -> i32 {
        // SAFETY: as `draw_points`.
        unsafe { raw::draw_lines(points.as_ptr().cast(), points.len(), color.as_ptr(), color.len(), i32::from(keep)) }
    }

    pub fn draw_text(at: [f64; 3], text: &str, color: &str, keep: bool) -> i32 {
        let [x, y, z] = at;
        let keep = i32::from(keep);
        // SAFETY: as `log`, for both strings.
        unsafe { raw::draw_text(x, y, z, text.as_ptr(), text.len(), color.as_ptr(), color.len(), keep) }
    }

    pub fn log(text: &str) {
        // SAFETY: the lab reads `len` bytes at `ptr`, inside the string.
        unsafe { raw::log(text.as_ptr(), text.len()) }
    }

    pub fn panic(text: &str) {
        // SAFETY: as `log`; the lab stops the module in this call.
        unsafe { raw::panic(text.as_ptr(), text.len()) }
    }

    pub fn sensor_find(name: &str) -> i32 {
        // SAFETY: as `log`.
        unsafe { raw::sensor_find(name.as_ptr(), name.len()) }
    }

    pub fn actuator_find(name: &str) -> i32 {
        // SAFETY: as `log`.
        unsafe { raw::actuator_find(name.as_ptr(), name.len()) }
    }

    pub fn sensor_name(index: i32, buf: &mut [u8]) -> i32 {
        // SAFETY: the lab writes at most `cap` bytes at `ptr`, inside the buffer.
        unsafe { raw::sensor_name(index, buf.as_mut_ptr(), buf.len()) }
    }

    pub fn sensor_kind(index: i32, buf: &mut [u8]) -> i32 {
        // SAFETY: as `sensor_name`.
        unsafe { raw::sensor_kind(index, buf.as_mut_ptr(), buf.len()) }
    }

    pub fn actuator_name(index: i32, buf: &mut [u8]) -> i32 {
        // SAFETY: as `sensor_name`.
        unsafe { raw::actuator_name(index, buf.as_mut_ptr(), buf.len()) }
    }

    pub fn actuator_kind(index: i32, buf: &mut [u8]) -> i32 {
        // SAFETY: as `sensor_name`.
        unsafe { raw::actuator_kind(index, buf.as_mut_ptr(), buf.len()) }
    }

    pub fn reading_read(index: i32, buf: &mut [f64]) -> i32 {
        // SAFETY: the lab writes at most `cap` numbers at `ptr`, inside the buffer.
        unsafe { raw::reading_read(index, buf.as_mut_ptr(), buf.len()) }
    }

    pub fn reading_bytes(index: i32, buf: &mut [u8]) -> i32 {
        // SAFETY: the lab writes at most `cap` bytes at `ptr`, inside the buffer.
        unsafe { raw::reading_bytes(index, buf.as_mut_ptr(), buf.len()) }
    }

    pub fn key_held(index: i32, key: &str) -> i32 {
        // SAFETY: as `log`.
        unsafe { raw::key_held(index, key.as_ptr(), key.len()) }
    }

    pub fn key_name(index: i32, k: i32, buf: &mut [u8]) -> i32 {
        // SAFETY: as `sensor_name`.
        unsafe { raw::key_name(index, k, buf.as_mut_ptr(), buf.len()) }
    }

    pub fn radio_send(text: &str) -> i32 {
        // SAFETY: as `log`.
        unsafe { raw::radio_send(text.as_ptr(), text.len()) }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use vlab_protocol::robot_abi::{
        EXPORT_ABI_VERSION, EXPORT_INIT, EXPORT_POST_STEP, EXPORT_PRE_STEP, IMPORT_MODULE, IMPORTS,
    };

    /// Names in attributes must be literals, so the SDK spells the robot API's import
    /// module and exports out; these tests hold them to the lab's definition.
    #[test]
    fn the_imports_declared_are_the_robot_apis() {
        let source = include_str!("ffi.rs");
        let raw = source.split("mod raw {").nth(1).expect("the raw imports").split("\n    }").next().unwrap();
        let declared: BTreeSet<&str> = raw
            .lines()
            .filter_map(|line| line.trim().split_once(" fn ").map(|(_, rest)| rest))
            .filter_map(|rest| rest.split('(').next())
            .collect();
        assert_eq!(declared, IMPORTS.iter().copied().collect::<BTreeSet<_>>());
        assert!(raw.contains(&format!("wasm_import_module = \"{IMPORT_MODULE}\"")), "the import module");
    }

    #[test]
    fn the_exports_are_named_as_the_robot_api_names_them() {
        let source = include_str!("lib.rs");
        for export in [EXPORT_ABI_VERSION, EXPORT_INIT, EXPORT_PRE_STEP, EXPORT_POST_STEP] {
            assert!(source.contains(&format!("export_name = \"{export}\"")), "{export}");
        }
    }
}
