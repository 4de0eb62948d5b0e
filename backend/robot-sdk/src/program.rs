//! [`RobotProgram`] and the one program a module runs: installed by `init`, called by
//! `pre_step` and `post_step`, except while it waits ([`Robot::wait`]), when the lab
//! is asked to leave its drawings up.

use std::cell::{Cell, RefCell};

use crate::{Robot, ffi};

/// A wait ends at the first control step at or after the time asked; a time a
/// millionth of a control step short of it counts (step · dt is not exact in floats).
const TIME_TOLERANCE: f64 = 1e-6;

/// A robot's program: the lab calls [`RobotProgram::pre_step`] before every control
/// step (set commands there) and [`RobotProgram::post_step`] with every step's fresh
/// readings. Keep state in `self`; build it with `Default` or a function given to
/// [`crate::vlab_robot!`]. After [`Robot::wait`] neither is called until the wait is
/// over; the robot keeps its commands meanwhile.
pub trait RobotProgram {
    /// Before a control step's physics: read the latest readings, set commands.
    fn pre_step(&mut self, robot: &mut Robot);

    /// After a control step's physics, with its readings (default: nothing). Commands
    /// set here are sent with the next `pre_step`'s.
    fn post_step(&mut self, robot: &mut Robot) {
        let _ = robot;
    }
}

thread_local! {
    /// The program; a WebAssembly module has one thread.
    static PROGRAM: RefCell<Option<Box<dyn RobotProgram>>> = const { RefCell::new(None) };
    /// Simulation time until which the program is not called ([`Robot::wait`]).
    static WAKE_AT: Cell<Option<f64>> = const { Cell::new(None) };
    /// Whether the program's `post_step` ran in this control step.
    static RAN_THIS_STEP: Cell<bool> = const { Cell::new(false) };
}

/// The module's `init`: installs the panic hook (on wasm32) and the program.
pub fn init(program: Box<dyn RobotProgram>) {
    #[cfg(target_arch = "wasm32")]
    std::panic::set_hook(Box::new(|info| {
        let message = info.payload_as_str().unwrap_or("(a panic without a message)");
        let text = match info.location() {
            Some(at) => format!("{message} at {}:{}:{}", at.file(), at.line(), at.column()),
            None => message.to_string(),
        };
        crate::ffi::panic(&text);
    }));
    PROGRAM.with(|cell| *cell.borrow_mut() = Some(program));
}

/// The module's `pre_step`: the program's, unless it waits.
pub fn pre_step() {
    with_program(run_pre_step);
}

/// The module's `post_step`: the program's, unless it waits.
pub fn post_step() {
    with_program(run_post_step);
}

/// Runs `program`'s `pre_step` unless it waits; returns whether it ran. A step in
/// which the program was not called at all asks the lab to leave its drawings up,
/// as Python's wait does (the step's answer would otherwise replace them with none).
pub(crate) fn run_pre_step(program: &mut dyn RobotProgram) -> bool {
    let awake = awake();
    if awake {
        program.pre_step(&mut Robot::new());
    } else if !RAN_THIS_STEP.with(Cell::get) {
        ffi::hold_drawings();
    }
    RAN_THIS_STEP.with(|ran| ran.set(false));
    awake
}

/// Runs `program`'s `post_step` unless it waits; returns whether it ran.
pub(crate) fn run_post_step(program: &mut dyn RobotProgram) -> bool {
    let awake = awake();
    if awake {
        program.post_step(&mut Robot::new());
    }
    RAN_THIS_STEP.with(|ran| ran.set(awake));
    awake
}

/// Whether the program is to be called now: it does not wait, or the lab's clock has
/// reached the end of its wait (which is then over).
pub(crate) fn awake() -> bool {
    WAKE_AT.with(|wake| match wake.get() {
        Some(at) if ffi::time() < at - ffi::dt() * TIME_TOLERANCE => false,
        Some(_) => {
            wake.set(None);
            true
        }
        None => true,
    })
}

/// Starts a wait of `seconds` from now, or from the end of a wait already asked for
/// (two waits in one call add up).
pub(crate) fn wait(seconds: f64) {
    let now = ffi::time();
    WAKE_AT.with(|wake| {
        let from = wake.get().filter(|&at| at > now).unwrap_or(now);
        wake.set(Some(from + seconds));
    });
}

/// Forgets any wait (a new [`crate::testing::FakeLab`] starts a new program).
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn forget_wait() {
    WAKE_AT.with(|wake| wake.set(None));
    RAN_THIS_STEP.with(|ran| ran.set(false));
}

fn with_program(call: impl FnOnce(&mut dyn RobotProgram) -> bool) {
    PROGRAM.with(|cell| {
        let mut program = cell.borrow_mut();
        let program = program.as_mut().expect("`init` installs the program before any step");
        call(program.as_mut());
    });
}
