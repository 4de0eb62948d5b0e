//! [`RobotProgram`] and the one program a module runs: installed by `init`, called by
//! `pre_step` and `post_step`.

use std::cell::RefCell;

use crate::Robot;

/// A robot's program: the lab calls [`RobotProgram::pre_step`] before every control
/// step (set commands there) and [`RobotProgram::post_step`] with every step's fresh
/// readings. Keep state in `self`; build it with `Default` or a function given to
/// [`crate::vlab_robot!`].
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

/// The module's `pre_step`.
pub fn pre_step() {
    with_program(|program, robot| program.pre_step(robot));
}

/// The module's `post_step`.
pub fn post_step() {
    with_program(|program, robot| program.post_step(robot));
}

fn with_program(call: impl FnOnce(&mut dyn RobotProgram, &mut Robot)) {
    PROGRAM.with(|cell| {
        let mut program = cell.borrow_mut();
        let program = program.as_mut().expect("`init` installs the program before any step");
        call(program.as_mut(), &mut Robot::new());
    });
}
