//! Why a module stopped: a wasmtime error (a trap, or a host function's [`HostStop`])
//! turned into the [`ProgramError`] a student reads.

use wasmtime::Trap;

use super::WasmLimits;
use super::host::HostStop;
use crate::ProgramError;

/// The student's reason for `error`, raised while the module had `fuel_budget`
/// instructions to spend.
pub(super) fn program_error(error: &wasmtime::Error, fuel_budget: u64, limits: &WasmLimits) -> ProgramError {
    if let Some(stop) = error.downcast_ref::<HostStop>() {
        return match stop {
            HostStop::OutputFlood { bytes } => ProgramError::OutputFlood { bytes: *bytes },
            HostStop::Panicked { message } => ProgramError::Panicked { message: message.clone() },
            HostStop::MemoryCap => ProgramError::OutOfMemory { mib: (limits.memory_bytes / (1024 * 1024)) as u64 },
            HostStop::BadPointer { .. } => ProgramError::Trapped { what: stop.to_string() },
            HostStop::Exited { code } => ProgramError::Exited { code: *code },
        };
    }
    if let Some(trap) = error.downcast_ref::<Trap>() {
        let what = match trap {
            Trap::OutOfFuel => return ProgramError::FuelExhausted { instructions: fuel_budget },
            Trap::StackOverflow => format!(
                "the call stack overflowed (limit {} KiB): often a recursion too deep",
                limits.stack_bytes / 1024
            ),
            Trap::UnreachableCodeReached => {
                "reached `unreachable`: an abort, or a panic not reported through `vlab.panic`".into()
            }
            Trap::MemoryOutOfBounds => "read or wrote outside its memory".into(),
            Trap::IntegerDivisionByZero => "divided an integer by zero".into(),
            other => other.to_string(),
        };
        return ProgramError::Trapped { what };
    }
    ProgramError::Trapped { what: error.to_string() }
}
