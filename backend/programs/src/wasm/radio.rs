//! The radio import of module `vlab`: `radio_send(ptr, len) -> i32` puts one UTF-8
//! message into the step's answer for the robot's `Radio` (Python's `robot.send`);
//! heard messages arrive as the radio's reading (`ReadingType::Radio`). The lab routes
//! them (`lab::radio`) and applies the radio's own `max_length` there.

use wasmtime::{Caller, Linker};

use super::abi::{IMPORT_MODULE, Status};
use super::host::{HostState, read_bytes};
use crate::MAX_RADIO_SENT_PER_STEP as MAX_SENT_PER_STEP;

/// The longest message a program may hand over, bytes: the largest `max_length` a
/// radio may have (`vlab_scene::catalogue::MAX_RADIO_LENGTH`).
const MAX_MESSAGE_BYTES: usize = 1024;

/// Defines `radio_send`: 0 when taken; `NoSuchPart` when the robot has no `Radio`;
/// `OverBudget` past 16 messages in a step or past 1024 bytes; `WrongKind` for bytes
/// that are not UTF-8.
pub(super) fn define(linker: &mut Linker<HostState>) -> wasmtime::Result<()> {
    linker.func_wrap(
        IMPORT_MODULE,
        "radio_send",
        |mut caller: Caller<'_, HostState>, ptr: i32, len: i32| -> wasmtime::Result<i32> {
            let state = caller.data();
            if !state.sensors.iter().any(|s| s.kind == "Radio") {
                return Ok(Status::NoSuchPart as i32);
            }
            let too_long = usize::try_from(len).map_or(true, |len| len > MAX_MESSAGE_BYTES);
            if too_long || state.radio.len() >= MAX_SENT_PER_STEP {
                return Ok(Status::OverBudget as i32);
            }
            let bytes = read_bytes(&caller, ptr, len, MAX_MESSAGE_BYTES, "radio_send").map_err(wasmtime::Error::new)?;
            let Ok(text) = String::from_utf8(bytes) else { return Ok(Status::WrongKind as i32) };
            caller.data_mut().radio.push(text);
            Ok(Status::Ok as i32)
        },
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::{Reply, StepInput, WasmProgram, WasmSpec};

    /// A module whose `pre_step` sends "hi" (at 0) `times` times, then reports the
    /// status of its last send as the speed of motor `m`.
    fn program(times: u32, radio: bool) -> WasmProgram {
        let text = format!(
            r#"(module
                (import "vlab" "radio_send" (func $send (param i32 i32) (result i32)))
                (import "vlab" "set_speed" (func $set_speed (param i32 f64) (result i32)))
                (memory (export "memory") 1)
                (data (i32.const 0) "hi")
                (func (export "vlab_abi_version") (result i32) (i32.const 1))
                (func (export "pre_step") (local $status i32) (local $n i32)
                    (block $done (loop $again
                        (br_if $done (i32.ge_u (local.get $n) (i32.const {times})))
                        (local.set $status (call $send (i32.const 0) (i32.const 2)))
                        (local.set $n (i32.add (local.get $n) (i32.const 1)))
                        (br $again)))
                    (drop (call $set_speed (i32.const 0) (f64.convert_i32_s (local.get $status))))))"#
        );
        let mut spec = WasmSpec::new("bot", wat::parse_str(text).expect("valid WAT")).actuator("m", "SimpleMotor");
        if radio {
            spec = spec.sensor("radio", "Radio");
        }
        WasmProgram::start(spec).expect("starts")
    }

    fn answer(program: &mut WasmProgram) -> Reply {
        program.receive().expect("the first answer")
    }

    fn status(reply: &Reply) -> i32 {
        match reply.commands["m"] {
            vlab_protocol::ActuatorCommand::Speed { speed } => speed as i32,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn messages_sent_ride_in_the_answer_up_to_the_step_limit() {
        let mut sixteen = program(16, true);
        let reply = answer(&mut sixteen);
        assert_eq!((reply.radio.len(), status(&reply)), (16, 0));
        assert!(reply.radio.iter().all(|m| m == "hi"));
        sixteen.send_step(&StepInput { step: 5, time_secs: 0.0, sensors: Default::default() }).unwrap();
        assert_eq!(sixteen.receive().unwrap().radio.len(), 16, "each step has its own 16");
        let reply = answer(&mut program(17, true));
        assert_eq!((reply.radio.len(), status(&reply)), (16, -5), "the seventeenth is over budget");
    }

    #[test]
    fn a_robot_without_a_radio_sends_nothing() {
        let reply = answer(&mut program(1, false));
        assert_eq!((reply.radio.len(), status(&reply)), (0, -1));
    }
}
