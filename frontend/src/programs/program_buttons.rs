//! Restart, Stop and Edit program for the inspected robot, each shown to who may use it.

use leptos::prelude::*;
use vlab_protocol::permissions::Action;
use vlab_protocol::{ProgramState, ProgramStatus};

use super::client::{load_program, program_action};
use super::console_log::{may_restart, may_stop};
use super::upload::{ProgramFile, program_from_source};
use super::{RobotDraft, RobotUploadOpen};
use crate::classroom::ClassState;
use crate::connection::LabSession;
use crate::inspector::InspectorState;
use crate::ui::When;

/// The buttons; disabled while one of them is at work.
#[component]
pub(super) fn ProgramButtons(status: Signal<Option<ProgramStatus>>) -> impl IntoView {
    let inspector = expect_context::<InspectorState>();
    let class = expect_context::<ClassState>();
    let busy = RwSignal::new(false);
    let state = move || status.get().map_or(ProgramState::None, |s| s.state);
    let may = move |action: Action| inspector.inspected.get().is_some_and(|robot| class.may_on(action, &robot));
    let on = ProgramActions {
        session: expect_context::<LabSession>(),
        inspector,
        draft: expect_context::<RobotDraft>(),
        upload_open: expect_context::<RobotUploadOpen>().0,
        busy,
    };
    let act = move |what: &'static str| on.act(what);
    view! {
        <div class="robot-action-buttons">
            <When when=move || may(Action::RunProgram)>
                <button
                    class="btn btn-small"
                    data-testid="btn-program-restart"
                    disabled=move || busy.get() || !may_restart(state())
                    title="Start the program again from the top, where the robot is now"
                    on:click=move |_| act("restart")
                >
                    "⟳ Restart"
                </button>
                <button
                    class="btn btn-small"
                    data-testid="btn-program-stop"
                    disabled=move || busy.get() || !may_stop(state())
                    title="Stop the program (the robot's motors keep their last command until it is driven)"
                    on:click=move |_| act("stop")
                >
                    "■ Stop"
                </button>
            </When>
            // Editing reads the program back, then replaces it.
            <When when=move || may(Action::ReadProgram) && may(Action::ReplaceProgram)>
                <button
                    class="btn btn-small"
                    data-testid="btn-edit-program"
                    disabled=move || busy.get()
                    title="Open the robot's program in the editor, change it, and save it"
                    on:click=move |_| on.edit()
                >
                    "✎ Edit program"
                </button>
            </When>
        </div>
    }
}

/// What the buttons act with (taken from the context when the buttons are made: a
/// click runs outside the component).
#[derive(Clone, Copy)]
struct ProgramActions {
    session: LabSession,
    inspector: InspectorState,
    draft: RobotDraft,
    upload_open: RwSignal<bool>,
    busy: RwSignal<bool>,
}

impl ProgramActions {
    /// Restarts or stops the inspected robot's program; its new status shows at once.
    fn act(self, what: &'static str) {
        let ProgramActions { session, inspector, busy, .. } = self;
        let Some(robot) = inspector.inspected.get_untracked() else { return };
        let (lab, token) = (session.lab_id(), session.token());
        busy.set(true);
        leptos::task::spawn_local(async move {
            match program_action(&lab, &robot, token.as_deref(), what).await {
                Ok(status) => inspector.robot_report.update(|report| {
                    if let Some(report) = report.as_mut().filter(|r| r.name == robot) {
                        report.program = status;
                    }
                }),
                Err(reason) => session.error.set(Some(format!("Could not {what} the program of {robot}: {reason}"))),
            }
            busy.set(false);
        });
    }

    /// Reads the inspected robot's program back into the robot form, opened to edit it.
    fn edit(self) {
        let ProgramActions { session, inspector, draft, upload_open, busy } = self;
        let Some(robot) = inspector.inspected.get_untracked() else { return };
        let (lab, token) = (session.lab_id(), session.token());
        busy.set(true);
        leptos::task::spawn_local(async move {
            let answer = load_program(&lab, &robot, token.as_deref()).await;
            busy.set(false);
            let (program, helpers) = match answer {
                Ok(Some(source)) => program_from_source(&source),
                Ok(None) => (ProgramFile::empty(), Vec::new()),
                Err(reason) => {
                    session.error.set(Some(reason));
                    return;
                }
            };
            draft.set_program(program, helpers);
            draft.note.set(None);
            draft.outcome.set(None);
            draft.editing.set(Some(robot));
            upload_open.set(true);
        });
    }
}
