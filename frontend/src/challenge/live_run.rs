//! The challenge run live in the shared lab: the instructor's Start and Stop, and for
//! everybody the run's table while the board has one (each robot's owner, status,
//! score, when it finished; the run's clock, and why it ended).

use leptos::prelude::*;
use vlab_protocol::{LiveRobot, RunRequest};

use super::ChallengeState;
use super::client::live_run;
use super::panel::score_unit;
use super::words::{status_name, status_words};
use crate::api::error_sentence;
use crate::connection::LabSession;
use crate::ui::ForEach;

/// "Start live run" (every robot to a start, judged as it runs) and "Stop run".
#[component]
pub fn RunButtons() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let challenge = expect_context::<ChallengeState>();
    let busy = RwSignal::new(false);
    let going =
        move || challenge.board.with(|b| b.as_ref().and_then(|b| b.run.as_ref()).is_some_and(|run| run.over.is_none()));
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
                title="The lab reset (every robot at its start, the clock from zero), then running, each robot judged as it runs"
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
pub fn LiveRunTable() -> impl IntoView {
    let challenge = expect_context::<ChallengeState>();
    let run = move || challenge.board.with(|b| b.as_ref().and_then(|b| b.run.clone()));
    let robots = move || run().map(|run| run.robots).unwrap_or_default();
    let headline = move || {
        run().map(|run| match run.over {
            Some(why) => format!("Live run over ({why}) · {:.1} s", run.time_secs),
            None => format!("Live run · {:.1} s", run.time_secs),
        })
    };
    view! {
        <div
            class="live-run"
            data-testid="live-run"
            data-over=move || run().is_some_and(|run| run.over.is_some()).to_string()
        >
            <h4 class="challenge-heading">{headline}</h4>
            <table class="board-table live-run-table">
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
