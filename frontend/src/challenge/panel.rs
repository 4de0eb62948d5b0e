//! The Challenge panel in the class panel: what the challenge asks (title, time limit,
//! score rule), "Try it" for each robot this page may try, this page's attempts, the
//! board, the live run's table while there is one, and for the instructor the board's
//! visibility and the live run's Start and Stop.
//!
//! A refusal (no program, too many attempts open) shows in the panel, where the button
//! was pressed.

use leptos::prelude::*;
use vlab_protocol::permissions::Action;

use super::ChallengeState;
use super::attempt_list::AttemptList;
use super::board_table::BoardTable;
use super::board_visibility::BoardVisibilityChoice;
use super::client::start_attempt;
use super::live_run::{LiveRunTable, RunButtons};
use super::words::{ScoreUnit, seconds_text, triable_robots};
use crate::api::error_sentence;
use crate::classroom::ClassState;
use crate::connection::LabSession;
use crate::inspector::InspectorState;
use crate::ui::{ForEachName, When};

/// The panel; shown by the class panel while the lab has a challenge.
#[component]
pub fn ChallengePanel() -> impl IntoView {
    let challenge = expect_context::<ChallengeState>();
    let class = expect_context::<ClassState>();
    let board = challenge.board;
    let title = move || board.with(|b| b.as_ref().map(|b| b.title.clone()).unwrap_or_else(|| "Challenge".to_owned()));
    let rule = move || {
        board.with(|b| b.as_ref().map(|b| format!("{} at most · score: {}", seconds_text(b.time_limit_secs), b.score)))
    };
    let goals = move || board.with(|b| b.as_ref().map(|b| b.goals.join(" · ")).filter(|g| !g.is_empty()));
    view! {
        <section class="challenge-panel" data-testid="challenge-panel" aria-label="Challenge">
            <h3 class="challenge-title" data-testid="challenge-title">{title}</h3>
            <p class="hint challenge-rule" data-testid="challenge-rule">{rule}</p>
            <When when=move || goals().is_some()>
                <p class="hint challenge-goals">"Goals: " {goals}</p>
            </When>
            <TryButtons />
            <When when=move || challenge.error.with(Option::is_some)>
                <p class="form-error challenge-error" role="alert" data-testid="challenge-error">
                    {move || challenge.error.get()}
                </p>
            </When>
            <AttemptList />
            <BoardTable />
            <When when=move || challenge.board.with(|b| b.as_ref().is_some_and(|b| b.run.is_some()))>
                <LiveRunTable />
            </When>
            <When when=move || class.may(Action::ChangeSettings) || class.may(Action::RunChallenge)>
                <div class="challenge-instructor">
                    <When when=move || class.may(Action::ChangeSettings)>
                        <BoardVisibilityChoice />
                    </When>
                    <When when=move || class.may(Action::RunChallenge)>
                        <RunButtons />
                    </When>
                </div>
            </When>
        </section>
    }
}

/// "Try it" for each robot this page may try, which starts an attempt on a fresh seed.
#[component]
fn TryButtons() -> impl IntoView {
    let session = expect_context::<LabSession>();
    let class = expect_context::<ClassState>();
    let inspector = expect_context::<InspectorState>();
    let challenge = expect_context::<ChallengeState>();
    let starting = RwSignal::new(None::<String>);
    let robots = move || {
        let role = session.role.get();
        class.you.with(|you| {
            class
                .participants
                .with(|people| inspector.robots.with(|lab| triable_robots(role, you.as_ref(), people, lab)))
        })
    };
    let try_robot = move |robot: String| {
        let (lab, token) = (session.lab_id(), session.token());
        starting.set(Some(robot.clone()));
        challenge.error.set(None);
        leptos::task::spawn_local(async move {
            match start_attempt(&lab, &robot, token.as_deref()).await {
                Ok(report) => challenge.take_attempt(report),
                Err(error) => challenge.error.set(Some(format!("{robot} was not tried: {}", error_sentence(&error)))),
            }
            starting.set(None);
        });
    };
    view! {
        <When when=move || class.may_on_own(Action::Attempt)>
            <div class="challenge-try">
                <ForEachName each=Signal::derive(robots) let:robot>
                    <button
                        class="btn btn-small btn-primary"
                        data-testid="btn-attempt"
                        data-robot=robot.clone()
                        disabled={
                            let robot = robot.clone();
                            move || starting.with(|s| s.as_deref() == Some(robot.as_str()))
                        }
                        title=format!("Try {robot} at the challenge with its current program, in a private copy of the lab")
                        on:click={
                            let robot = robot.clone();
                            move |_| try_robot(robot.clone())
                        }
                    >
                        {format!("Try it: {robot}")}
                    </button>
                </ForEachName>
                <When when=move || robots().is_empty()>
                    <p class="hint">"Add a robot with a program to try it at the challenge."</p>
                </When>
            </div>
        </When>
    }
}

/// The unit of the challenge's scores (reactive).
pub(super) fn score_unit(challenge: ChallengeState) -> ScoreUnit {
    challenge.board.with(|b| b.as_ref().map_or(ScoreUnit::Seconds, |b| ScoreUnit::of_rule(&b.score)))
}
