//! The teacher's Overview: every open lesson as it is now (who is online, each robot
//! with its owner, its program's state, a crash's error, its best attempt), asked again
//! every few seconds while shown; from it she drops into a lesson, reads a program, or
//! stops and restarts one.

use std::time::Duration;

use leptos::prelude::*;
use vlab_protocol::{LabOverview, ProgramSource, RobotOverview};

use super::client::overview;
use super::forms::program_badge_class;
use super::state::ClassSession;
use crate::api::error_sentence;
use crate::challenge::words::ScoreUnit;
use crate::classroom::forms::mode_text;
use crate::page::lab_query;
use crate::programs::{load_program, program_action};
use crate::ui::{ForEach, When};

/// How often the overview is asked for again while shown.
const REFRESH_EVERY: Duration = Duration::from_secs(3);

/// The section.
#[component]
pub fn OverviewSection() -> impl IntoView {
    let session = expect_context::<ClassSession>();
    let labs = RwSignal::new(None::<Vec<LabOverview>>);
    let error = RwSignal::new(None::<String>);
    let reading = RwSignal::new(None::<(String, String, Result<Option<ProgramSource>, String>)>);
    let load = move || {
        leptos::task::spawn_local(async move {
            let answer = overview(&session.class(), &session.token()).await;
            // `try_`: the section may have been left meanwhile.
            match answer {
                Ok(found) => {
                    let _ = labs.try_set(Some(found.labs));
                    let _ = error.try_set(None);
                }
                Err(problem) => drop(error.try_set(Some(error_sentence(&problem)))),
            }
        });
    };
    load();
    if let Ok(timer) = set_interval_with_handle(load, REFRESH_EVERY) {
        on_cleanup(move || timer.clear());
    }
    let read = Callback::new(move |(lab, robot): (String, String)| {
        leptos::task::spawn_local(async move {
            let source = load_program(&lab, &robot, Some(&session.token())).await;
            reading.set(Some((lab, robot, source)));
        });
    });
    view! {
        <section class="card course-card wide-card" aria-label="Overview" data-testid="overview-section">
            <header class="card-header">
                <h2>"Overview"</h2>
                <span class="hint">"Every open lesson as it is now, refreshed every few seconds."</span>
            </header>
            <When when=move || error.with(Option::is_some)>
                <p class="form-error" role="alert" data-testid="overview-error">{move || error.get()}</p>
            </When>
            {move || match labs.get() {
                None => view! { <p class="hint">"Loading the lessons…"</p> }.into_any(),
                Some(list) if list.is_empty() => view! { <p class="hint">"No lesson is open."</p> }.into_any(),
                Some(_) => view! {
                    <ForEach each=move || labs.get().unwrap_or_default() key=|l: &LabOverview| l.lab.id.clone() let:lesson>
                        <LessonOverview lab=lesson.lab.id.clone() labs read />
                    </ForEach>
                }
                .into_any(),
            }}
            {move || reading.get().map(|(lab, robot, source)| view! { <ProgramReading lab robot source on_close=Callback::new(move |()| reading.set(None)) /> })}
        </section>
    }
}

/// One lesson, read from the latest overview (`labs`) so its rows follow each refresh.
#[component]
fn LessonOverview(
    lab: String,
    labs: RwSignal<Option<Vec<LabOverview>>>,
    read: Callback<(String, String)>,
) -> impl IntoView {
    let session = expect_context::<ClassSession>();
    let this = {
        let lab = lab.clone();
        move || labs.with(|list| list.as_ref().and_then(|l| l.iter().find(|o| o.lab.id == lab).cloned()))
    };
    let open = format!("/{}", lab_query(&lab, Some(&session.token())));
    let name = {
        let this = this.clone();
        move || this().map(|o| o.lab.name).unwrap_or_default()
    };
    let people = {
        let this = this.clone();
        move || {
            this().map_or_else(String::new, |o| {
                let online: Vec<String> = o.people.iter().filter(|p| p.online).map(|p| p.name.clone()).collect();
                let mode = mode_text(o.lab.state.mode, o.lab.state.rate);
                if online.is_empty() {
                    format!("{mode} · nobody online")
                } else {
                    format!("{mode} · online: {}", online.join(", "))
                }
            })
        }
    };
    let challenge = {
        let this = this.clone();
        move || this().and_then(|o| o.challenge).map(|title| format!("challenge: {title}"))
    };
    let unit = {
        let this = this.clone();
        move || this().and_then(|o| o.score_rule).map(|rule| ScoreUnit::of_rule(&rule))
    };
    let robots = move || this().map(|o| o.robots).unwrap_or_default();
    let lab_attribute = lab.clone();
    view! {
        <div class="lesson-overview" data-testid="lesson-overview" data-lab=lab_attribute>
            <div class="assignment-line">
                <strong>{name}</strong>
                <span class="hint" data-testid="lesson-people">{people}</span>
                <span class="hint">{challenge}</span>
                <div class="spacer"></div>
                <a class="btn btn-small btn-primary" data-testid="btn-drop-in" href=open title="Open the lesson as its instructor">"Open lesson"</a>
            </div>
            <table class="lab-table overview-table">
                <thead>
                    <tr>
                        <th>"robot"</th>
                        <th>"owner"</th>
                        <th>"program"</th>
                        <th>"best attempt"</th>
                        <th></th>
                    </tr>
                </thead>
                <tbody>
                    <ForEach each=robots key=|r: &RobotOverview| format!("{r:?}") let:robot>
                        <RobotLine lab=lab.clone() robot read unit=unit() />
                    </ForEach>
                </tbody>
            </table>
        </div>
    }
}

/// One robot: owner, program state (the error of a crash), best attempt, and the
/// teacher's Read / Stop / Restart.
#[component]
fn RobotLine(
    lab: String,
    robot: RobotOverview,
    read: Callback<(String, String)>,
    unit: Option<ScoreUnit>,
) -> impl IntoView {
    let session = expect_context::<ClassSession>();
    let note = RwSignal::new(None::<String>);
    let act = {
        let (lab, name) = (lab.clone(), robot.robot.clone());
        move |what: &'static str| {
            let (lab, name) = (lab.clone(), name.clone());
            leptos::task::spawn_local(async move {
                note.set(Some(match program_action(&lab, &name, Some(&session.token()), what).await {
                    Ok(status) => {
                        format!("{}: {:?}", if what == "stop" { "Stopped" } else { "Restarted" }, status.state)
                            .to_lowercase()
                    }
                    Err(message) => message,
                }));
            });
        }
    };
    let (stop, restart) = (act.clone(), act);
    let best = robot.best.as_ref().map_or_else(
        || "–".to_owned(),
        |best| {
            let score = best
                .score
                .map(|s| format!(", best {}", unit.map_or_else(|| format!("{s:.2}"), |unit| unit.text(s))))
                .unwrap_or_default();
            format!(
                "{} attempt{}{}{score}",
                best.attempts,
                if best.attempts == 1 { "" } else { "s" },
                if best.solved { ", solved" } else { "" }
            )
        },
    );
    let has_program = robot.program != "none";
    let (read_lab, read_robot) = (lab.clone(), robot.robot.clone());
    view! {
        <tr data-testid="overview-robot" data-robot=robot.robot.clone() data-program=robot.program.clone()>
            <td class="lab-cell-name">{robot.robot.clone()}</td>
            <td>{robot.owner.clone().unwrap_or_else(|| "the lesson's own".to_owned())}</td>
            <td>
                <span class=program_badge_class(&robot.program) data-testid="program-state">{robot.program.clone()}</span>
                {robot.error.clone().map(|error| view! { <div class="attempt-reason" data-testid="program-error">{error}</div> })}
            </td>
            <td>{best}</td>
            <td>
                <div class="row-actions">
                {has_program.then(|| view! {
                    <button class="btn btn-tiny" data-testid="btn-read-program" on:click=move |_| read.run((read_lab.clone(), read_robot.clone()))>"Read program"</button>
                    <button class="btn btn-tiny" data-testid="btn-stop-program" on:click=move |_| stop("stop")>"Stop"</button>
                    <button class="btn btn-tiny" data-testid="btn-restart-program" on:click=move |_| restart("restart")>"Restart"</button>
                })}
                </div>
                <When when=move || note.with(Option::is_some)>
                    <div class="hint">{move || note.get()}</div>
                </When>
            </td>
        </tr>
    }
}

/// A robot's program, read-only, every file of it.
#[component]
fn ProgramReading(
    lab: String,
    robot: String,
    source: Result<Option<ProgramSource>, String>,
    on_close: Callback<()>,
) -> impl IntoView {
    let body = match source {
        Err(message) => view! { <p class="form-error">{message}</p> }.into_any(),
        Ok(None) => view! { <p class="hint">"This robot has no program."</p> }.into_any(),
        Ok(Some(source)) => {
            // The main file first, then the others.
            let mut files: Vec<(String, String)> = source.files.into_iter().collect();
            files.sort_by_key(|(name, _)| *name != source.main);
            files
                .into_iter()
                .map(|(name, text)| {
                    view! {
                        <h3>{name}</h3>
                        <pre class="program-text" data-testid="program-text">{text}</pre>
                    }
                })
                .collect_view()
                .into_any()
        }
    };
    view! {
        <div class="evaluation-box" data-testid="program-reading" data-robot=robot.clone()>
            <header class="card-header">
                <h3>{format!("{robot}'s program in {lab}")}</h3>
                <div class="spacer"></div>
                <button class="btn btn-small" on:click=move |_| on_close.run(())>"Close"</button>
            </header>
            {body}
        </div>
    }
}
