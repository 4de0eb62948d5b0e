//! The console of the inspected robot, for its owner and the instructor: the program's status (why it stopped, in full; a warning badge while it answers late), its live output, and Restart / Stop / Edit program.
//!
//! Program output is shown through text nodes only, never as HTML. The lines come from
//! [`super::ConsoleState`] (history, then live `Console` messages; see `programs::client::keep_console`).

use leptos::html::Div;
use leptos::prelude::*;
use vlab_protocol::permissions::Action;
use vlab_protocol::{ProgramState, ProgramStatus};

use super::ConsoleState;
use super::client::{load_program, program_action};
use super::console_log::{
    LATE_TITLE, late_badge, line_stamp, may_restart, may_stop, opens_a_run, remote_command, remote_note, source_tag,
    state_word, status_headline,
};
use super::upload::{ProgramFile, program_from_source};
use super::{RobotDraft, RobotUploadOpen};
use crate::classroom::ClassState;
use crate::connection::LabSession;
use crate::inspector::InspectorState;
use crate::ui::{ForEach, When, effect, memo};

/// How close to the bottom (pixels) still counts as "reading the newest lines".
const STICK_TO_BOTTOM_PX: i32 = 24;

/// The console section of the robot panel; render it for a robot whose console this page may read.
#[component]
pub fn RobotConsole() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let inspector = expect_context::<InspectorState>();
    let class = expect_context::<ClassState>();
    let console = expect_context::<ConsoleState>();
    let draft = expect_context::<RobotDraft>();
    let upload_open = expect_context::<RobotUploadOpen>().0;
    let busy = RwSignal::new(false);
    let scroller = NodeRef::<Div>::new();
    let stick = StoredValue::new(true);

    let status = move || inspector.robot_report.with(|r| r.as_ref().map(|r| r.program.clone()));
    let state = move || status().map_or(ProgramState::None, |s: ProgramStatus| s.state);
    let message = move || status().and_then(|s| s.message).filter(|m| !m.trim().is_empty());
    // Reports come ten times a second: the badge changes only when its text does.
    let late = memo(move |_| inspector.robot_report.with(|r| r.as_ref().and_then(|r| late_badge(&r.program))));
    let may = move |action: Action| inspector.inspected.get().is_some_and(|robot| class.may_on(action, &robot));

    // Newest lines in view, unless the reader scrolled up to older ones.
    effect(move |_| {
        console.buffer.track();
        if !stick.get_value() {
            return;
        }
        // By the next frame the console may be gone (another robot picked, one whose
        // console this page may not read): then there is nothing to scroll.
        request_animation_frame(move || {
            if let Some(element) = scroller.try_get_untracked().flatten() {
                element.set_scroll_top(element.scroll_height());
            }
        });
    });
    let on_scroll = move |_| {
        if let Some(element) = scroller.get_untracked() {
            let from_bottom = element.scroll_height() - element.scroll_top() - element.client_height();
            stick.set_value(from_bottom <= STICK_TO_BOTTOM_PX);
        }
    };

    let act = move |what: &'static str| {
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
    };

    let edit = move || {
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
    };

    // The whole command line, token included: only its owner and the instructor see it.
    let remote_line = move || {
        let robot = inspector.inspected.get()?;
        let origin = leptos::prelude::window().location().origin().unwrap_or_default();
        Some(remote_command(&origin, &session.lab_id(), &session.token()?, &robot))
    };

    let lines = move || {
        console.buffer.with(|console| {
            console
                .lines()
                .enumerate()
                .map(|(i, line)| (console.dropped() + i as u64, line.clone()))
                .collect::<Vec<_>>()
        })
    };

    view! {
        <section class="robot-console" data-testid="robot-console" aria-label="Program console">
            <div class="console-status" data-testid="program-status" data-state=move || state_word(state())>
                <span class=move || format!("program-dot is-{}", state_word(state()).replace(' ', "-"))></span>
                <span class="console-headline">{move || status().map(|s| status_headline(&s)).unwrap_or_default()}</span>
                <When when=move || late.with(Option::is_some)>
                    <span class="badge is-late" data-testid="program-late" title=LATE_TITLE>
                        {move || late.get().unwrap_or_default()}
                    </span>
                </When>
            </div>
            <When when=move || message().is_some()>
                <pre class="console-message" data-testid="program-message">{message}</pre>
            </When>
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
                        on:click=move |_| edit()
                    >
                        "✎ Edit program"
                    </button>
                </When>
            </div>
            <When when=move || may(Action::AttachController)>
                <details class="remote-hint" data-testid="remote-hint">
                    <summary>"Drive it from your laptop"</summary>
                    <p>{move || remote_note(status().as_ref())}</p>
                    <pre data-testid="remote-command">{remote_line}</pre>
                </details>
            </When>
            <div
                class="console-lines"
                data-testid="console-lines"
                data-count=move || console.buffer.with(|c| c.len())
                node_ref=scroller
                on:scroll=on_scroll
            >
                <When when=move || console.buffer.with(|c| c.dropped() > 0)>
                    <div class="console-dropped">
                        {move || format!("… {} older lines not shown", console.buffer.with(|c| c.dropped()))}
                    </div>
                </When>
                <When when=move || console.buffer.with(|c| c.is_empty())>
                    <div class="console-empty">"No output yet."</div>
                </When>
                <ForEach each=lines key=|(seq, _)| *seq let:entry>
                    <div
                        class=format!(
                            "console-line is-{}{}",
                            source_tag(entry.1.source),
                            if opens_a_run(&entry.1) { " opens-run" } else { "" }
                        )
                        data-testid="console-line"
                        data-step=entry.1.step.to_string()
                        data-source=source_tag(entry.1.source)
                    >
                        <span class="console-stamp">{line_stamp(&entry.1)}</span>
                        <span class="console-tag">{source_tag(entry.1.source)}</span>
                        <span class="console-text">{entry.1.text.clone()}</span>
                    </div>
                </ForEach>
            </div>
        </section>
    }
}
