//! The console of the inspected robot, for its owner and the instructor: the program's status (why it stopped, in full; a warning badge while it answers late), Restart / Stop / Edit program, the command line that drives it from a laptop, and its live output.
//!
//! Program output is shown through text nodes only, never as HTML. The lines come from
//! [`super::ConsoleState`] (history, then live `Console` messages; see `programs::client::keep_console`).

use leptos::prelude::*;
use vlab_protocol::permissions::Action;
use vlab_protocol::{ProgramState, ProgramStatus};

use super::console_lines::ConsoleLines;
use super::console_log::{LATE_TITLE, late_badge, remote_command, remote_note, state_word, status_headline};
use super::program_buttons::ProgramButtons;
use crate::classroom::ClassState;
use crate::connection::LabSession;
use crate::inspector::InspectorState;
use crate::ui::{When, memo};

/// The console section of the robot panel; render it for a robot whose console this page may read.
#[component]
pub fn RobotConsole() -> impl IntoView {
    let inspector = expect_context::<InspectorState>();
    let class = expect_context::<ClassState>();
    let status = Signal::derive(move || inspector.robot_report.with(|r| r.as_ref().map(|r| r.program.clone())));
    let may = move |action: Action| inspector.inspected.get().is_some_and(|robot| class.may_on(action, &robot));
    view! {
        <section class="robot-console" data-testid="robot-console" aria-label="Program console">
            <ProgramStatusLine status=status />
            <ProgramButtons status=status />
            <When when=move || may(Action::AttachController)>
                <RemoteHint status=status />
            </When>
            <ConsoleLines />
        </section>
    }
}

/// The program's state, its headline, the late badge, and why it stopped.
#[component]
fn ProgramStatusLine(status: Signal<Option<ProgramStatus>>) -> impl IntoView {
    let inspector = expect_context::<InspectorState>();
    let state = move || status.get().map_or(ProgramState::None, |s| s.state);
    let message = move || status.get().and_then(|s| s.message).filter(|m| !m.trim().is_empty());
    // Reports come ten times a second: the badge changes only when its text does.
    let late = memo(move |_| inspector.robot_report.with(|r| r.as_ref().and_then(|r| late_badge(&r.program))));
    view! {
        <div class="console-status" data-testid="program-status" data-state=move || state_word(state())>
            <span class=move || format!("program-dot is-{}", state_word(state()).replace(' ', "-"))></span>
            <span class="console-headline">{move || status.get().map(|s| status_headline(&s)).unwrap_or_default()}</span>
            <When when=move || late.with(Option::is_some)>
                <span class="badge is-late" data-testid="program-late" title=LATE_TITLE>
                    {move || late.get().unwrap_or_default()}
                </span>
            </When>
        </div>
        <When when=move || message().is_some()>
            <pre class="console-message" data-testid="program-message">{message}</pre>
        </When>
    }
}

/// "Drive it from your laptop": the whole command line, token included (only its owner
/// and the instructor see it).
#[component]
fn RemoteHint(status: Signal<Option<ProgramStatus>>) -> impl IntoView {
    let session = expect_context::<LabSession>();
    let inspector = expect_context::<InspectorState>();
    let remote_line = move || {
        let robot = inspector.inspected.get()?;
        let origin = leptos::prelude::window().location().origin().unwrap_or_default();
        Some(remote_command(&origin, &session.lab_id(), &session.token()?, &robot))
    };
    view! {
        <details class="remote-hint" data-testid="remote-hint">
            <summary>"Drive it from your laptop"</summary>
            <p>{move || remote_note(status.get().as_ref())}</p>
            <pre data-testid="remote-command">{remote_line}</pre>
        </details>
    }
}
