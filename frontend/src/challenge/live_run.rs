//! The instructor's part of the Challenge panel: who sees which rows of the board, and
//! the challenge run live in the shared lab (start, stop, and each robot's run as it
//! goes: status, score, when it finished).

use leptos::prelude::*;
use vlab_protocol::{LabSettingsPatch, LiveRobot, RunRequest};

use super::ChallengeState;
use super::client::live_run;
use super::panel::score_unit;
use super::words::{VISIBILITY_CHOICES, parse_visibility, status_name, status_words};
use crate::api::error_sentence;
use crate::classroom::ClassState;
use crate::classroom::client::change_settings;
use crate::connection::LabSession;
use crate::ui::{ForEach, When};

/// The board's visibility, the run's buttons and its table.
#[component]
pub fn InstructorChallengeTools() -> impl IntoView {
    let challenge = expect_context::<ChallengeState>();
    let run = move || challenge.board.with(|b| b.as_ref().and_then(|b| b.run.clone()));
    view! {
        <div class="challenge-instructor">
            <BoardVisibilityChoice />
            <RunButtons />
            <When when=move || run().is_some()>
                <LiveRunTable />
            </When>
        </div>
    }
}

/// "Board shows students": only their own row, or every row with names.
#[component]
fn BoardVisibilityChoice() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let class = expect_context::<ClassState>();
    let challenge = expect_context::<ChallengeState>();
    let current = move || class.settings.with(|s| s.as_ref().map(|s| s.board));
    let change = move |value: String| {
        let Some(board) = parse_visibility(&value) else { return };
        let (lab, token) = (session.lab_id(), session.token());
        let patch = LabSettingsPatch { board: Some(board), ..Default::default() };
        leptos::task::spawn_local(async move {
            match change_settings(&lab, token.as_deref(), &patch).await {
                Ok(settings) => {
                    class.settings.set(Some(settings));
                    challenge.refresh();
                }
                Err(error) => challenge.error.set(Some(error_sentence(&error))),
            }
        });
    };
    view! {
        <div class="setting-choice">
            <label for="board-visibility">"Board shows students"</label>
            <select
                id="board-visibility"
                class="input"
                data-testid="board-visibility"
                on:change=move |event| change(event_target_value(&event))
            >
                {VISIBILITY_CHOICES
                    .map(|(choice, value, words)| {
                        view! {
                            <option value=value prop:selected=move || current() == Some(choice)>
                                {words}
                            </option>
                        }
                    })}
            </select>
        </div>
    }
}

/// "Start live run" (every robot to a start, judged as it runs) and "Stop run".
#[component]
fn RunButtons() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let challenge = expect_context::<ChallengeState>();
    let busy = RwSignal::new(false);
    let going = move || challenge.board.with(|b| b.as_ref().and_then(|b| b.run.as_ref()).is_some_and(|run| !run.over));
    let send = move |request: RunRequest| {
        let (lab, token) = (session.lab_id(), session.token());
        busy.set(true);
        challenge.error.set(None);
        leptos::task::spawn_local(async move {
            match live_run(&lab, request, token.as_deref()).await {
                Ok(board) => challenge.take_board(Some(board)),
                Err(error) => challenge.error.set(Some(error_sentence(&error))),
            }
            busy.set(false);
        });
    };
    view! {
        <div class="challenge-run-buttons">
            <button
                class="btn btn-small btn-primary"
                data-testid="btn-run-start"
                disabled=move || busy.get() || going()
                title="Every robot of the lab back to a start, the run's clock from zero, each robot judged as it runs"
                on:click=move |_| send(RunRequest::Start)
            >
                "Start live run"
            </button>
            <button
                class="btn btn-small btn-danger"
                data-testid="btn-run-stop"
                disabled=move || busy.get() || !going()
                title="End the live run now"
                on:click=move |_| send(RunRequest::Stop)
            >
                "Stop run"
            </button>
        </div>
    }
}

/// Each robot's run: robot, owner, status, score, finished at.
#[component]
fn LiveRunTable() -> impl IntoView {
    let challenge = expect_context::<ChallengeState>();
    let run = move || challenge.board.with(|b| b.as_ref().and_then(|b| b.run.clone()));
    let robots = move || run().map(|run| run.robots).unwrap_or_default();
    let headline = move || {
        run().map(|run| {
            let state = if run.over { "over" } else { "running" };
            format!("Live run {state} · {:.1} s", run.time_secs)
        })
    };
    view! {
        <div
            class="live-run"
            data-testid="live-run"
            data-over=move || run().is_some_and(|run| run.over).to_string()
        >
            <h4 class="challenge-heading">{headline}</h4>
            <table class="board-table">
                <thead>
                    <tr>
                        <th scope="col">"Robot"</th>
                        <th scope="col">"Name"</th>
                        <th scope="col">"Status"</th>
                        <th scope="col">"Score"</th>
                        <th scope="col">"At"</th>
                    </tr>
                </thead>
                <tbody>
                    <ForEach
                        each=robots
                        key=|robot: &LiveRobot| (robot.robot.clone(), robot.status, robot.finished_secs.map(f64::to_bits))
                        let:robot
                    >
                        <LiveRobotLine robot=robot />
                    </ForEach>
                </tbody>
            </table>
        </div>
    }
}

/// One robot of the live run.
#[component]
fn LiveRobotLine(robot: LiveRobot) -> impl IntoView {
    let challenge = expect_context::<ChallengeState>();
    let unit = score_unit(challenge);
    let score = robot.score.map(|score| unit.text(score)).unwrap_or_else(|| "—".into());
    let at = robot.finished_secs.map(|secs| format!("{secs:.1} s")).unwrap_or_else(|| "—".into());
    view! {
        <tr class="live-robot" data-testid="live-robot" data-robot=robot.robot.clone() data-status=status_name(robot.status)>
            <td class="board-name" title=robot.robot.clone()>{robot.robot.clone()}</td>
            <td class="board-name" title=robot.name.clone()>{robot.name.clone()}</td>
            <td class=format!("status-{}", status_name(robot.status)) title=robot.reason.clone().unwrap_or_default()>
                {status_words(robot.status)}
            </td>
            <td class="readout">{score}</td>
            <td class="readout">{at}</td>
        </tr>
    }
}
