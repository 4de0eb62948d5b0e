//! One evaluation of a hand-in: its state and grade, and each hidden trial (how it went,
//! its score and credit) with the way to watch its replay; asked again while it runs.

use std::time::Duration;

use leptos::prelude::*;
use vlab_protocol::{Evaluation, Trial};

use super::client::evaluation;
use super::forms::{evaluation_open, evaluation_status_word, grade_text};
use super::state::ClassSession;
use crate::api::error_sentence;
use crate::challenge::words::{ScoreUnit, status_name, status_words};
use crate::page::trial_replay_query;
use crate::ui::{ForEach, When};

/// How often a running evaluation is asked for again.
const POLL_EVERY: Duration = Duration::from_secs(2);

/// Evaluation `id` of an assignment worth `points`, whose challenge scores by
/// `score_rule` (the board's words; empty when unknown).
#[component]
pub fn EvaluationDetail(id: i64, points: f64, score_rule: String) -> impl IntoView {
    let unit = (!score_rule.is_empty()).then(|| ScoreUnit::of_rule(&score_rule));
    let session = expect_context::<ClassSession>();
    let shown = RwSignal::new(None::<Evaluation>);
    let error = RwSignal::new(None::<String>);
    fn load(session: ClassSession, id: i64, shown: RwSignal<Option<Evaluation>>, error: RwSignal<Option<String>>) {
        leptos::task::spawn_local(async move {
            let answer = evaluation(&session.class(), &session.token(), id).await;
            // `try_`: the detail may have been closed meanwhile.
            let open = match answer {
                Ok(found) => {
                    let open = evaluation_open(found.status);
                    if shown.try_set(Some(found)).is_some() {
                        return;
                    }
                    open
                }
                Err(problem) => {
                    let _ = error.try_set(Some(error_sentence(&problem)));
                    false
                }
            };
            if open {
                set_timeout(move || load(session, id, shown, error), POLL_EVERY);
            }
        });
    }
    load(session, id, shown, error);
    view! {
        <div class="evaluation" data-testid="evaluation" data-evaluation=id.to_string()
            data-status=move || shown.with(|e| e.as_ref().map(|e| evaluation_status_word(e.status)).unwrap_or("loading"))>
            <When when=move || error.with(Option::is_some)>
                <p class="form-error" role="alert">{move || error.get()}</p>
            </When>
            {move || shown.get().map(|found| {
                let class = session.class();
                let trials = found.trials.clone();
                view! {
                    <p class="evaluation-line">
                        <span>{format!("Evaluation #{} of version {}: {}", found.id, found.version, evaluation_status_word(found.status))}</span>
                        {found.grade.map(|grade| view! { <strong data-testid="evaluation-grade">{grade_text(grade, points)}</strong> })}
                    </p>
                    {found.reason.clone().map(|reason| view! { <p class="attempt-reason">{reason}</p> })}
                    <ol class="attempt-list trial-list">
                        <ForEach each=move || trials.clone() key=|t: &Trial| (t.number, status_name(t.status), t.replay_path.is_some()) let:trial>
                            <TrialLine trial evaluation=id class=class.clone() unit />
                        </ForEach>
                    </ol>
                }
            })}
        </div>
    }
}

/// One trial: its number, how it went, score and credit, "Watch replay" once over.
#[component]
fn TrialLine(trial: Trial, evaluation: i64, class: String, unit: Option<ScoreUnit>) -> impl IntoView {
    let mut words = vec![format!("Trial {}", trial.number), status_words(trial.status).to_owned()];
    if let Some(score) = trial.score {
        words.push(match unit {
            Some(unit) => format!("score {}", unit.text(score)),
            None => format!("score {score:.2}"),
        });
    }
    if let Some(credit) = trial.credit {
        words.push(format!("credit {:.0}%", credit * 100.0));
    }
    let watch = trial.replay_path.as_ref().map(|_| {
        let href = format!("/{}", trial_replay_query(&class, evaluation, trial.number));
        view! {
            <a class="btn btn-small" data-testid="btn-watch-trial" data-trial=trial.number.to_string() href=href>
                "Watch replay"
            </a>
        }
    });
    view! {
        <li class="attempt-item" data-testid="trial-item" data-trial=trial.number.to_string() data-status=status_name(trial.status)>
            <div class="attempt-line">
                <span class=format!("status-{}", status_name(trial.status))>{words.join(" · ")}</span>
                <div class="spacer"></div>
                {watch}
            </div>
            {trial.reason.clone().map(|reason| view! { <p class="attempt-reason">{reason}</p> })}
        </li>
    }
}
