//! The console's state: the lines of the inspected robot's program (its history beneath the live lines the server sends its owner and the instructor).

use leptos::prelude::*;
use vlab_protocol::ConsoleLine;

use super::console_log::ConsoleBuffer;

/// Handle to the console's lines; `Copy`, so every component and callback takes its own.
#[derive(Clone, Copy)]
pub struct ConsoleState {
    /// The inspected robot's console.
    pub buffer: RwSignal<ConsoleBuffer>,
}

impl ConsoleState {
    /// No robot's lines yet.
    pub fn new() -> ConsoleState {
        ConsoleState { buffer: RwSignal::new(ConsoleBuffer::default()) }
    }

    /// Live lines of `robot`'s program; those of a robot not on screen are not kept (its
    /// history comes with its report).
    pub fn take_lines(&self, robot: &str, lines: Vec<ConsoleLine>) {
        self.buffer.maybe_update(|console| console.push_live(robot, lines));
    }
}
