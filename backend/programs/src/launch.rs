//! One way into every runtime: a program's code, checked before anything is inserted,
//! and started for the robot it drives as a [`Controller`].

use std::collections::BTreeMap;
use std::sync::Arc;

use vlab_scene::{Footprint, ProgramRate};

use vlab_protocol::{Language, ProgramSource};

use super::{Controller, Limits, PartInfo, ProgramError};

/// A robot's program as uploaded: what the lab runs for it, and runs again on a
/// restart or a reset.
#[derive(Clone, Debug, PartialEq)]
pub struct ProgramCode {
    /// Its runtime.
    pub language: Language,
    /// The file that runs: a Python file of `files`, or the wasm module's name.
    pub main: String,
    /// Python sources by file name (empty for a wasm module).
    pub files: BTreeMap<String, String>,
    /// The WebAssembly module (`None` for Python).
    pub module: Option<Arc<[u8]>>,
    /// How often it runs, if its project file says (`RATE:EVERY_STEP`); the robot's
    /// scene (`program_rate`) wins over it, and without either it runs at the lab's
    /// control rate.
    pub rate: Option<ProgramRate>,
}

impl ProgramCode {
    /// A Python program whose main file is `main`, one of `files`.
    pub fn python(main: &str, files: BTreeMap<String, String>) -> ProgramCode {
        ProgramCode { language: Language::Python, main: main.into(), files, module: None, rate: None }
    }

    /// A WebAssembly module called `name`.
    pub fn wasm(name: &str, module: Arc<[u8]>) -> ProgramCode {
        ProgramCode {
            language: Language::Wasm,
            main: name.into(),
            files: BTreeMap::new(),
            module: Some(module),
            rate: None,
        }
    }

    /// The same, with the rate its project file states.
    pub fn at_rate(mut self, rate: Option<ProgramRate>) -> ProgramCode {
        self.rate = rate;
        self
    }

    /// Its files as the editor shows them again.
    pub fn source(&self) -> ProgramSource {
        ProgramSource { language: self.language, main: self.main.clone(), files: self.files.clone() }
    }
}

/// A fault found in a program before it runs: where, and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeProblem {
    /// The file.
    pub file: String,
    /// 1-based line (1 when the fault is the whole file's).
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// What is wrong, for the student.
    pub message: String,
}

/// What a program is told about the robot it drives and the lab's clock.
#[derive(Clone, Debug)]
pub struct RobotSide {
    /// The robot's name.
    pub robot: String,
    /// Its sensors (name and catalogue type), in declaration order.
    pub sensors: Vec<PartInfo>,
    /// Its actuators, in declaration order.
    pub actuators: Vec<PartInfo>,
    /// The physics step, seconds.
    pub dt_secs: f64,
    /// Physics steps per control step.
    pub control_period: u32,
    /// The lab's step when the program starts.
    pub step: u64,
    /// The lab's time then, seconds.
    pub time_secs: f64,
    /// Seed of the program's randomness.
    pub seed: u64,
    /// The lab's static geometry at its start, for `robot.map()`.
    pub obstacles: Arc<Vec<Footprint>>,
}

impl RobotSide {
    /// Robot `robot` with no parts yet, a physics step of 1/240 s and a control step of
    /// 50 Hz, starting at step 0 with seed 0.
    pub fn new(robot: &str) -> RobotSide {
        RobotSide {
            robot: robot.into(),
            sensors: Vec::new(),
            actuators: Vec::new(),
            dt_secs: 1.0 / 240.0,
            control_period: 5,
            step: 0,
            time_secs: 0.0,
            seed: 0,
            obstacles: Arc::default(),
        }
    }
}

/// Physics steps per control step for a controller at `hz` (of simulation time) in a
/// lab stepping every `dt_secs`: at least one.
pub fn control_period(dt_secs: f64, hz: f64) -> u32 {
    ((1.0 / hz) / dt_secs).round().max(1.0) as u32
}

/// Starts `code` for the robot `side` describes: a Python program in its sandboxed
/// process, a WebAssembly module on a thread of its own. The first
/// [`Controller::receive`] returns the commands it set before its first step.
pub fn launch(code: &ProgramCode, side: RobotSide) -> Result<Box<dyn Controller>, ProgramError> {
    match code.language {
        Language::Python => launch_python(code, side),
        Language::Wasm => launch_wasm(code, side),
    }
}

#[cfg(target_os = "linux")]
fn launch_wasm(code: &ProgramCode, side: RobotSide) -> Result<Box<dyn Controller>, ProgramError> {
    let module = code.module.clone().ok_or_else(|| ProgramError::InvalidProgram("the module is missing".into()))?;
    let spec = super::WasmSpec { side, module, limits: super::WasmLimits::default() };
    // Compiled and instantiated here; run on a thread of its own from its first answer.
    Ok(Box::new(super::wasm::WasmWorker::spawn(super::WasmProgram::start(spec)?)?))
}

#[cfg(not(target_os = "linux"))]
fn launch_wasm(_code: &ProgramCode, _side: RobotSide) -> Result<Box<dyn Controller>, ProgramError> {
    Err(ProgramError::InvalidProgram("WebAssembly programs run on Linux servers only".into()))
}

#[cfg(target_os = "linux")]
fn launch_python(code: &ProgramCode, side: RobotSide) -> Result<Box<dyn Controller>, ProgramError> {
    let spec = super::ProgramSpec {
        side,
        main: code.main.clone(),
        files: code.files.clone(),
        limits: Limits::default(),
        work_dir: None,
    };
    Ok(Box::new(super::PythonProgram::start(spec)?))
}

#[cfg(not(target_os = "linux"))]
fn launch_python(_code: &ProgramCode, _side: RobotSide) -> Result<Box<dyn Controller>, ProgramError> {
    Err(ProgramError::SandboxUnavailable("robot programs are confined with Linux's Landlock and seccomp".into()))
}

/// Checks a program before anything is inserted: Python files are compiled (not run) by
/// the same interpreter, in the same sandbox, as the program will be, so a syntax error
/// comes back with its line and column. `Err` holds every problem found.
pub fn check(code: &ProgramCode) -> Result<(), Vec<CodeProblem>> {
    match code.language {
        Language::Python => check_python(code),
        Language::Wasm => check_wasm(code),
    }
}

/// A module is compiled and its imports and exports checked; its faults have no line, so
/// they point at the module as a whole.
#[cfg(target_os = "linux")]
fn check_wasm(code: &ProgramCode) -> Result<(), Vec<CodeProblem>> {
    let whole = |message: String| vec![CodeProblem { file: code.main.clone(), line: 1, col: 1, message }];
    let Some(module) = &code.module else { return Err(whole("the module is missing".into())) };
    super::check_module(module).map_err(|e| whole(e.to_string()))
}

#[cfg(not(target_os = "linux"))]
fn check_wasm(code: &ProgramCode) -> Result<(), Vec<CodeProblem>> {
    Err(vec![CodeProblem {
        file: code.main.clone(),
        line: 1,
        col: 1,
        message: "WebAssembly programs run on Linux servers only".into(),
    }])
}

/// The main file of the syntax check; the name cannot clash with a student's file,
/// which must start with a letter or `_` but never `__vlab`.
const CHECK_MAIN: &str = "__vlab_check__.py";

/// Compiles every file and prints one JSON line per syntax error.
const CHECK_PY: &str = r#"
import json
for _name in sorted(__FILES__):
    try:
        with open(_name, encoding="utf-8") as _f:
            compile(_f.read(), _name, "exec", dont_inherit=True)
    except SyntaxError as _e:
        print(json.dumps({"file": _name, "line": _e.lineno or 1, "col": _e.offset or 1,
                          "message": (type(_e).__name__ + ": " + str(_e.msg))[:300]}))
    except (ValueError, RecursionError, MemoryError) as _e:
        print(json.dumps({"file": _name, "line": 1, "col": 1,
                          "message": (type(_e).__name__ + ": " + str(_e))[:300]}))
"#;

#[cfg(target_os = "linux")]
fn check_python(code: &ProgramCode) -> Result<(), Vec<CodeProblem>> {
    let whole = |message: String| vec![CodeProblem { file: code.main.clone(), line: 1, col: 1, message }];
    if !code.files.contains_key(&code.main) {
        return Err(whole(format!("the main file '{}' was not uploaded", code.main)));
    }
    if let Some(name) = code.files.keys().find(|n| n.starts_with("__vlab")) {
        return Err(vec![CodeProblem {
            file: name.clone(),
            line: 1,
            col: 1,
            message: "file names starting with __vlab are the lab's own".into(),
        }]);
    }
    let names: Vec<&String> = code.files.keys().collect();
    let script = CHECK_PY.replace("__FILES__", &serde_json::to_string(&names).expect("names serialise"));
    let mut files = code.files.clone();
    files.insert(CHECK_MAIN.into(), script);
    let mut spec = super::ProgramSpec::new("syntax-check", "");
    spec.main = CHECK_MAIN.into();
    spec.files = files;
    let mut checker = match super::PythonProgram::start(spec) {
        Ok(checker) => checker,
        // The student's file names and sizes are checked here too.
        Err(ProgramError::InvalidProgram(message)) => return Err(whole(message)),
        Err(e) => return Err(whole(e.to_string())),
    };
    match checker.receive() {
        Err(ProgramError::Ended) => {}
        Err(e) => return Err(whole(format!("the syntax check failed: {e}"))),
        Ok(_) => return Err(whole("the syntax check did not end".into())),
    }
    let problems: Vec<CodeProblem> = checker
        .console()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(&line.text).ok())
        .map(|v| CodeProblem {
            file: v["file"].as_str().unwrap_or(&code.main).to_owned(),
            line: v["line"].as_u64().unwrap_or(1).max(1) as u32,
            col: v["col"].as_u64().unwrap_or(1).max(1) as u32,
            message: v["message"].as_str().unwrap_or("syntax error").to_owned(),
        })
        .collect();
    if problems.is_empty() { Ok(()) } else { Err(problems) }
}

#[cfg(not(target_os = "linux"))]
fn check_python(code: &ProgramCode) -> Result<(), Vec<CodeProblem>> {
    Err(vec![CodeProblem {
        file: code.main.clone(),
        line: 1,
        col: 1,
        message: "robot programs run only on Linux servers".into(),
    }])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_periods_round_to_whole_steps() {
        assert_eq!(control_period(1.0 / 240.0, 50.0), 5);
        assert_eq!(control_period(1.0 / 60.0, 50.0), 1);
        assert_eq!(control_period(0.1, 50.0), 1, "a coarse lab still runs its programs every step");
        assert_eq!(control_period(0.001, 50.0), 20);
    }

    #[test]
    fn a_program_shows_its_files_again() {
        let code = ProgramCode::python("main.py", BTreeMap::from([("main.py".into(), "x = 1\n".into())]));
        let source = code.source();
        assert_eq!(source.language, Language::Python);
        assert_eq!(source.files["main.py"], "x = 1\n");
    }
}
