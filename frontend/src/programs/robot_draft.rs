//! What the robot form holds between openings: whether it is open, and the robot (or program) being written.
//!
//! Kept by the app, so closing the panel or a refused upload loses nothing.

use leptos::prelude::*;
use vlab_protocol::ExampleRobot;

use super::upload::{DEFAULT_PROGRAM_NAME, NO_EXAMPLE, ProgramBody, ProgramFile};
use crate::scene::upload::{PickedFile, UploadOutcome};

/// Whether the "Add robot" panel is open: shared by the class panel's button and the panel.
#[derive(Clone, Copy)]
pub struct RobotUploadOpen(pub RwSignal<bool>);

/// The robot being written (or the program being edited).
#[derive(Clone, Copy)]
pub struct RobotDraft {
    /// The name typed (its suffix: `diffbot_<suffix>`).
    pub suffix: RwSignal<String>,
    /// The description's `.vlab` text.
    pub text: RwSignal<String>,
    /// The example picked (its id), or [`NO_EXAMPLE`].
    pub example: RwSignal<String>,
    /// The example robots the server offers, once asked (`Err`: why there are none).
    pub examples: RwSignal<Option<Result<Vec<ExampleRobot>, String>>>,
    /// The program's main file name (`main.py`, `bot.wasm`).
    pub program_name: RwSignal<String>,
    /// The program's text, as in its editor.
    pub program_text: RwSignal<String>,
    /// A WebAssembly module opened instead of text.
    pub program_wasm: RwSignal<Option<Vec<u8>>>,
    /// Helper modules sent beside the program.
    pub helpers: RwSignal<Vec<PickedFile>>,
    /// The robot whose program is being edited (`None`: adding a robot).
    pub editing: RwSignal<Option<String>>,
    /// A remark about the last files opened (some were not programs).
    pub note: RwSignal<Option<String>>,
    /// An upload is under way.
    pub busy: RwSignal<bool>,
    /// How the last upload ended.
    pub outcome: RwSignal<Option<UploadOutcome>>,
}

impl RobotDraft {
    /// An empty draft (filled from the template when the panel first opens).
    pub fn new() -> RobotDraft {
        RobotDraft {
            suffix: RwSignal::new(String::new()),
            text: RwSignal::new(String::new()),
            example: RwSignal::new(NO_EXAMPLE.to_owned()),
            examples: RwSignal::new(None),
            program_name: RwSignal::new(DEFAULT_PROGRAM_NAME.to_owned()),
            program_text: RwSignal::new(String::new()),
            program_wasm: RwSignal::new(None),
            helpers: RwSignal::new(Vec::new()),
            editing: RwSignal::new(None),
            note: RwSignal::new(None),
            busy: RwSignal::new(false),
            outcome: RwSignal::new(None),
        }
    }

    /// The program's main file as it stands (not tracked).
    pub fn program_file(&self) -> ProgramFile {
        let body = match self.program_wasm.get_untracked() {
            Some(bytes) => ProgramBody::Wasm(bytes),
            None => ProgramBody::Text(self.program_text.get_untracked()),
        };
        ProgramFile { name: self.program_name.get_untracked(), body }
    }

    /// Puts `program` and its `helpers` in the program editor.
    pub fn set_program(&self, program: ProgramFile, helpers: Vec<PickedFile>) {
        self.program_name.set(program.name);
        match program.body {
            ProgramBody::Text(text) => {
                self.program_wasm.set(None);
                self.program_text.set(text);
            }
            ProgramBody::Wasm(bytes) => self.program_wasm.set(Some(bytes)),
        }
        self.helpers.set(helpers);
    }
}
