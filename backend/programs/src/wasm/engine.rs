//! Compiling modules: the wasmtime engine (fuel on, NaN canonicalised, a stack cap),
//! the linker of the lab's imports (the robot API and the few WASI functions of
//! `wasi`), the checks of a module's imports and
//! exports ([`check_module`]), and a small cache of compiled modules so thirty robots
//! running the same program compile it once.

use std::sync::{Arc, Mutex};

use wasmtime::{Config, Engine, ExternType, FuncType, InstancePre, Linker, Module, ValType};

use super::WasmLimits;
use super::abi::{
    ABI_VERSION, EXPORT_ABI_VERSION, EXPORT_INIT, EXPORT_INITIALIZE, EXPORT_POST_STEP, EXPORT_PRE_STEP,
    EXPORT_PROGRAM_NAME, IMPORT_MODULE, WASI_MODULE, is_provided,
};
use super::host::{self, HostState};
use crate::ProgramError;

/// Compiled modules kept per engine.
const CACHED_MODULES: usize = 16;

/// A module's bytes and its compiled, linked form.
type CompiledModule = (Arc<[u8]>, InstancePre<HostState>);

/// One engine, the linker of its imports, and the modules it compiled lately.
pub(super) struct Runtime {
    pub engine: Engine,
    linker: Linker<HostState>,
    modules: Mutex<Vec<CompiledModule>>,
}

/// The runtime for a stack cap (the cap is an engine setting: one engine per value
/// in use, made once).
fn runtime(stack_bytes: usize) -> Result<Arc<Runtime>, ProgramError> {
    static RUNTIMES: Mutex<Vec<(usize, Arc<Runtime>)>> = Mutex::new(Vec::new());
    let mut runtimes = RUNTIMES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, runtime)) = runtimes.iter().find(|(stack, _)| *stack == stack_bytes) {
        return Ok(runtime.clone());
    }
    let unavailable = |e: wasmtime::Error| ProgramError::Start(format!("cannot set up the WebAssembly runtime: {e}"));
    let mut config = Config::new();
    config
        // Deterministic CPU budget: fuel counts instructions, wall time does not matter.
        .consume_fuel(true)
        .max_wasm_stack(stack_bytes)
        // Same inputs, same outputs on any CPU: NaN bit patterns and relaxed SIMD are
        // the two places where native results could differ.
        .cranelift_nan_canonicalization(true)
        .relaxed_simd_deterministic(true);
    let engine = Engine::new(&config).map_err(unavailable)?;
    let mut linker = Linker::new(&engine);
    host::define(&mut linker).map_err(unavailable)?;
    let runtime = Arc::new(Runtime { engine, linker, modules: Mutex::new(Vec::new()) });
    runtimes.push((stack_bytes, runtime.clone()));
    Ok(runtime)
}

/// Checks a module as an upload would: its size under the default cap, that it is
/// valid WebAssembly that compiles, imports only what the lab provides (module
/// `vlab`, the functions of the robot API, and the few WASI functions a C or C++
/// program needs) and exports `pre_step` and
/// `vlab_abi_version` with the right types. The error says what is wrong in a
/// sentence for the student.
pub fn check_module(bytes: &[u8]) -> Result<(), ProgramError> {
    prepare(bytes, &WasmLimits::default()).map(|_| ())
}

/// The runtime for `limits` and `bytes` compiled and linked, ready to instantiate.
pub(super) fn prepare(
    bytes: &[u8],
    limits: &WasmLimits,
) -> Result<(Arc<Runtime>, InstancePre<HostState>), ProgramError> {
    let invalid = |m: String| ProgramError::InvalidProgram(m);
    if bytes.len() > limits.module_bytes {
        return Err(invalid(format!("the module is larger than {} MiB", limits.module_bytes / (1024 * 1024))));
    }
    if !bytes.starts_with(b"\0asm") {
        return Err(invalid("not a WebAssembly module (a `.wasm` file starts with the bytes \\0asm)".into()));
    }
    let runtime = runtime(limits.stack_bytes)?;
    {
        let modules = runtime.modules.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((_, pre)) = modules.iter().find(|(cached, _)| **cached == *bytes) {
            return Ok((runtime.clone(), pre.clone()));
        }
    }
    let module = Module::new(&runtime.engine, bytes).map_err(|e| {
        let reasons: Vec<String> = e.chain().map(|c| c.to_string()).collect();
        invalid(format!("not a valid WebAssembly module: {}", reasons.join(": ")))
    })?;
    check_imports(&module)?;
    check_exports(&module)?;
    let pre = runtime
        .linker
        .instantiate_pre(&module)
        .map_err(|e| invalid(format!("its imports do not match the robot API (version {ABI_VERSION}): {e}")))?;
    let mut modules = runtime.modules.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if modules.len() == CACHED_MODULES {
        modules.remove(0);
    }
    modules.push((bytes.into(), pre.clone()));
    drop(modules);
    Ok((runtime, pre))
}

fn check_imports(module: &Module) -> Result<(), ProgramError> {
    for import in module.imports() {
        let (from, name) = (import.module(), import.name());
        if is_provided(from, name) && matches!(import.ty(), ExternType::Func(_)) {
            continue;
        }
        let why = if from == WASI_MODULE {
            // A C or C++ program calling what a robot has no use for: files, sockets,
            // the wall clock.
            format!(
                "the module imports the WASI function `{name}`, which the lab does not provide: a robot \
                 program has no files, network or wall clock (only printing, the lab's clock and seeded \
                 random numbers)"
            )
        } else {
            format!(
                "the module imports `{from}.{name}`, which the lab does not provide (only the `{IMPORT_MODULE}` \
                 functions of the robot API, and the WASI functions C and C++ programs print with)"
            )
        };
        return Err(ProgramError::InvalidProgram(why));
    }
    Ok(())
}

fn check_exports(module: &Module) -> Result<(), ProgramError> {
    let func = |name: &str| match module.get_export(name) {
        Some(ExternType::Func(ty)) => Ok(Some(ty)),
        Some(_) => Err(ProgramError::InvalidProgram(format!("the module's export `{name}` is not a function"))),
        None => Ok(None),
    };
    let no_arguments = |ty: &FuncType, results: usize| ty.params().len() == 0 && ty.results().len() == results;
    match func(EXPORT_ABI_VERSION)? {
        Some(ty) if no_arguments(&ty, 1) && ty.results().all(|r| matches!(r, ValType::I32)) => {}
        Some(_) => {
            return Err(ProgramError::InvalidProgram(format!(
                "`{EXPORT_ABI_VERSION}` must take nothing and return an i32"
            )));
        }
        None => {
            return Err(ProgramError::InvalidProgram(format!(
                "the module does not export `{EXPORT_ABI_VERSION}` (the robot API version it was built for: {ABI_VERSION})"
            )));
        }
    }
    match func(EXPORT_PRE_STEP)? {
        Some(ty) if no_arguments(&ty, 0) => {}
        Some(_) => {
            return Err(ProgramError::InvalidProgram(format!("`{EXPORT_PRE_STEP}` must take and return nothing")));
        }
        None => return Err(ProgramError::InvalidProgram(format!("the module does not export `{EXPORT_PRE_STEP}`"))),
    }
    if let Some(ty) = func(EXPORT_PROGRAM_NAME)?
        && !(no_arguments(&ty, 1) && ty.results().all(|r| matches!(r, ValType::I32)))
    {
        return Err(ProgramError::InvalidProgram(format!(
            "`{EXPORT_PROGRAM_NAME}` must take nothing and return an i32 (a pointer to the name)"
        )));
    }
    for optional in [EXPORT_INITIALIZE, EXPORT_INIT, EXPORT_POST_STEP] {
        if let Some(ty) = func(optional)?
            && !no_arguments(&ty, 0)
        {
            return Err(ProgramError::InvalidProgram(format!("`{optional}` must take and return nothing")));
        }
    }
    Ok(())
}
