//! A WebAssembly program reads a camera's pixels through `reading_bytes`: the bytes of
//! the latest image, kept between two images (the lab sends the pixels once, in the
//! first step after the image was taken, and the summary alone after that).

use std::collections::BTreeMap;

use vlab_programs::{StepInput, WasmProgram, WasmSpec};
use vlab_protocol::{ActuatorCommand, SensorValue};

/// Each `pre_step` copies the camera's bytes to address 1024 and drives with `v` = the
/// first byte (the top-left pixel's red) and `omega` = how many bytes there are, so the
/// commands say what the program read.
const MODULE: &str = r#"(module
    (import "vlab" "reading_bytes" (func $reading_bytes (param i32 i32 i32) (result i32)))
    (import "vlab" "reading_type" (func $reading_type (param i32) (result i32)))
    (import "vlab" "set_drive" (func $set_drive (param i32 f64 f64) (result i32)))
    (memory (export "memory") 1)
    (func (export "vlab_abi_version") (result i32) (i32.const 1))
    (func (export "pre_step") (local $n i32)
        (local.set $n (call $reading_bytes (i32.const 0) (i32.const 1024) (i32.const 4096)))
        (drop (call $set_drive (i32.const 0)
            (f64.convert_i32_u (i32.load8_u (i32.const 1024)))
            (f64.add (f64.convert_i32_s (local.get $n))
                     (f64.mul (f64.const 1000) (f64.convert_i32_s (call $reading_type (i32.const 0)))))))))"#;

fn image(pixels: &str) -> StepInput {
    let value = SensorValue::Image { width: 2, height: 1, mean: [100, 27, 23], pixels: pixels.into() };
    StepInput { step: 0, time_secs: 0.0, sensors: BTreeMap::from([("eye".to_string(), Some(value))]) }
}

fn drive(program: &mut WasmProgram, mut input: StepInput, step: u64) -> ActuatorCommand {
    input.step = step;
    program.send_step(&input).unwrap();
    program.receive().unwrap().commands["drive"]
}

#[test]
fn a_wasm_program_reads_a_cameras_pixels_and_keeps_them_between_images() {
    let module = wat::parse_str(MODULE).unwrap();
    let spec = WasmSpec::new("bot", std::sync::Arc::<[u8]>::from(module))
        .sensor("eye", "Camera")
        .actuator("drive", "DiffDrive");
    let mut program = WasmProgram::start(spec).unwrap();
    // Before any image: no bytes, reading type 0.
    assert_eq!(program.receive().unwrap().commands["drive"], ActuatorCommand::Drive { v: 0.0, omega: 0.0 });
    // "yDQsAQID" is 200 52 44 1 2 3: two pixels, six bytes, reading type 9 (image).
    assert_eq!(drive(&mut program, image("yDQsAQID"), 5), ActuatorCommand::Drive { v: 200.0, omega: 9006.0 });
    // The summary alone: the pixels stay.
    assert_eq!(drive(&mut program, image(""), 10), ActuatorCommand::Drive { v: 200.0, omega: 9006.0 });
    // A new image: "BwgJCgsM" is 7 8 9 10 11 12.
    assert_eq!(drive(&mut program, image("BwgJCgsM"), 15), ActuatorCommand::Drive { v: 7.0, omega: 9006.0 });
}
