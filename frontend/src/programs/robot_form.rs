//! The robot form's working parts, shared by its sections: the draft, the editors' handles, the name's problem, the template, which editor and line an error points at, and the upload.

use leptos::prelude::*;
use vlab_protocol::permissions::Action;
use vlab_protocol::{ExampleRobot, SourceMessage, fill_suffix};

use super::RobotDraft;
use super::client::{add_robot, save_program};
use super::template::{robot_suffix, robot_template};
use super::upload::{ErrorPlace, error_place, program_from_source, start_note};
use crate::classroom::ClassState;
use crate::connection::LabSession;
use crate::inspector::InspectorState;
use crate::scene::upload::{UploadOutcome, caret_offset_utf16, editor_line};
use crate::ui::CodeEditorRefs;

/// Handles of one robot form; `Copy`, for each of its sections.
#[derive(Clone, Copy)]
pub struct RobotForm {
    /// The connection the upload goes through.
    pub session: LabSession,
    /// Who may do what (the lock and the quota bind students only).
    pub class: ClassState,
    /// Where the robot added or edited is shown.
    pub inspector: InspectorState,
    /// What is typed.
    pub draft: RobotDraft,
    /// The description's editor.
    pub description_refs: CodeEditorRefs,
    /// The program's editor.
    pub program_refs: CodeEditorRefs,
    /// Why the name typed is not one, if it is not.
    pub name_problem: RwSignal<Option<String>>,
}

impl RobotForm {
    /// The form of this lab page's draft.
    pub fn from_context() -> RobotForm {
        RobotForm {
            session: expect_context(),
            class: expect_context(),
            inspector: expect_context(),
            draft: expect_context(),
            description_refs: CodeEditorRefs::new(),
            program_refs: CodeEditorRefs::new(),
            name_problem: RwSignal::new(None),
        }
    }

    /// Whether the lock and the quota bind this page: it adds robots without setting them (reactive).
    pub fn bound_by_settings(&self) -> bool {
        self.class.may(Action::AddRobot) && !self.class.may(Action::ChangeSettings)
    }

    /// The example robot picked, if any (not tracked).
    pub fn picked_example(&self) -> Option<ExampleRobot> {
        let id = self.draft.example.get_untracked();
        self.draft.examples.with_untracked(|examples| {
            examples.as_ref().and_then(|e| e.as_ref().ok()).and_then(|e| e.iter().find(|x| x.id == id).cloned())
        })
    }

    /// The description: this name, starting where the lab puts it; the picked example's
    /// robot, or the course's diffbot. `None` when the name is not one.
    fn template(&self) -> Option<String> {
        let suffix = match robot_suffix(&self.draft.suffix.get_untracked()) {
            Ok(suffix) => suffix,
            Err(message) => {
                self.name_problem.set(Some(message));
                return None;
            }
        };
        self.name_problem.set(None);
        Some(match self.picked_example() {
            Some(example) => fill_suffix(&example.robot, &suffix),
            None => robot_template(&suffix),
        })
    }

    /// Writes the description again from the template.
    pub fn fill_template(&self) {
        let Some(text) = self.template() else { return };
        self.draft.text.set(text);
        self.draft.outcome.set(None);
    }

    /// Starts from the example `id` (or none): its description, and its program unless
    /// the user would rather keep the one typed.
    pub fn pick_example(&self, id: String) {
        let draft = self.draft;
        draft.example.set(id);
        let Some(example) = self.picked_example() else {
            self.fill_template();
            return;
        };
        let (program, helpers) = program_from_source(&example.program);
        let current = draft.program_file();
        let typed = !current.is_blank() && current != program;
        if typed
            && !window()
                .confirm_with_message(&format!("Replace your program with the one of “{}”?", example.title))
                .unwrap_or(false)
        {
            self.fill_template();
            return;
        }
        draft.set_program(program, helpers);
        self.fill_template();
    }

    /// Which editor a message is about.
    fn place_of(&self, message: &SourceMessage) -> ErrorPlace {
        let helpers = self.draft.helpers.get_untracked();
        error_place(message, &self.draft.program_file(), &helpers)
    }

    /// The line of `place`'s editor a message points at, if it is in that editor.
    fn line_in(&self, message: &SourceMessage, place: ErrorPlace) -> Option<u32> {
        match place {
            ErrorPlace::Description => self.draft.text.with_untracked(|text| editor_line(message, &[], text)),
            ErrorPlace::Program => self.draft.program_text.with_untracked(|text| editor_line(message, &[], text)),
            ErrorPlace::Elsewhere => None,
        }
    }

    /// Whether a message points at a line of one of the form's editors.
    pub fn in_editor(&self, message: &SourceMessage) -> bool {
        self.line_in(message, self.place_of(message)).is_some()
    }

    /// Puts the caret where `message` points, in its editor.
    pub fn jump(&self, message: &SourceMessage) {
        let place = self.place_of(message);
        let Some(line) = self.line_in(message, place) else { return };
        let (text, refs) = match place {
            ErrorPlace::Program => (self.draft.program_text, self.program_refs),
            _ => (self.draft.text, self.description_refs),
        };
        let offset = text.with_untracked(|text| caret_offset_utf16(text, line, message.col));
        refs.jump_to(offset, line);
    }

    /// The line of `wanted`'s editor the last refusal marks, if any.
    pub fn error_line(&self, wanted: ErrorPlace) -> Signal<Option<u32>> {
        let form = *self;
        Signal::derive(move || match form.draft.outcome.get() {
            Some(UploadOutcome::Rejected { errors, .. }) => errors
                .iter()
                .filter(|message| form.place_of(message) == wanted)
                .find_map(|message| form.line_in(message, wanted)),
            _ => None,
        })
    }

    /// Adds the robot, or saves the program of the robot edited; then shows the robot in
    /// the inspector, or the first error in its editor.
    pub fn upload(&self) {
        let (form, draft, session) = (*self, self.draft, self.session);
        if draft.busy.get_untracked() {
            return;
        }
        let program = draft.program_file();
        let helpers = draft.helpers.get_untracked();
        let text = draft.text.get_untracked();
        let token = session.token();
        let lab = session.lab_id();
        let robot_edited = draft.editing.get_untracked();
        if robot_edited.is_none() && text.trim().is_empty() {
            draft.outcome.set(Some(UploadOutcome::Failed("The description is empty: write your robot first.".into())));
            return;
        }
        if robot_edited.is_some() && program.is_blank() {
            draft.outcome.set(Some(UploadOutcome::Failed("The program is empty: write or open one first.".into())));
            return;
        }
        draft.busy.set(true);
        leptos::task::spawn_local(async move {
            let (outcome, robots) = match &robot_edited {
                Some(robot) => (save_program(&lab, robot, token.as_deref(), &program, &helpers).await, Vec::new()),
                None => {
                    let clearance = form.picked_example().and_then(|example| example.clearance_m);
                    let (outcome, robots, start) =
                        add_robot(&lab, token.as_deref(), &text, clearance, &program, &helpers).await;
                    draft.note.set(start.map(|start| start_note(robots.first().map_or("", String::as_str), &start)));
                    (outcome, robots)
                }
            };
            let first_error = match &outcome {
                UploadOutcome::Rejected { errors, .. } => errors.iter().find(|m| form.in_editor(m)).cloned(),
                _ => None,
            };
            draft.busy.set(false);
            let done = matches!(outcome, UploadOutcome::Inserted { .. } | UploadOutcome::Saved { .. });
            draft.outcome.set(Some(outcome));
            if let Some(message) = first_error {
                form.jump(&message);
            }
            if done && let Some(robot) = robots.into_iter().next().or(robot_edited) {
                // The robot in the inspector: its sensors, its console, the keys to drive it.
                form.inspector.inspect(Some(robot));
            }
        });
    }
}
