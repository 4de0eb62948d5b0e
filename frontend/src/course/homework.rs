//! The student's My assignments section: each assignment given to her with its due date
//! (and a warning once it is late), handing in program files or one of her robots from a
//! lesson, and her hand-ins with their evaluation and grade, asked again while one runs.

use std::time::Duration;

use leptos::prelude::*;
use vlab_protocol::{Assignment, EvaluationStatus, Submission};
use web_sys::HtmlInputElement;

use super::assignments::assignments;
use super::client::{enter_lesson, robot_hand_in, submissions, submit};
use super::forms::{due_note, evaluation_open, evaluation_status_word, grade_text};
use super::state::{ClassSession, date_text, now_secs};
use crate::api::{Body, error_sentence};
use crate::programs::upload::{program_parts, sort_program_files};
use crate::ui::browser::read_files;
use crate::ui::{ForEach, When};

/// How often hand-ins being evaluated are asked for again.
const POLL_EVERY: Duration = Duration::from_secs(2);

/// The section.
#[component]
pub fn MyAssignments() -> impl IntoView {
    let session = expect_context::<ClassSession>();
    view! {
        <section class="card course-card" aria-label="My assignments" data-testid="my-assignments-section">
            <h2>"My assignments"</h2>
            <When
                when=move || !assignments(session).is_empty()
                fallback=|| view! { <p class="hint">"No assignment for you yet."</p> }
            >
                <ul class="assignment-list">
                    <ForEach each=move || assignments(session) key=|a: &Assignment| (a.id, a.version, a.due_at) let:assignment>
                        <Homework assignment />
                    </ForEach>
                </ul>
            </When>
        </section>
    }
}

/// One assignment: what it asks, when it is due, the hand-in forms and her hand-ins.
#[component]
fn Homework(assignment: Assignment) -> impl IntoView {
    let session = expect_context::<ClassSession>();
    let id = assignment.id;
    let points = assignment.points;
    let handed = RwSignal::new(Vec::<Submission>::new());
    let error = RwSignal::new(None::<String>);
    let polling = StoredValue::new(false);
    fn load(
        session: ClassSession,
        id: i64,
        handed: RwSignal<Vec<Submission>>,
        error: RwSignal<Option<String>>,
        polling: StoredValue<bool>,
    ) {
        leptos::task::spawn_local(async move {
            let open = match submissions(&session.class(), &session.token(), id).await {
                Ok(list) => {
                    let open = list.iter().any(|s| s.evaluation.as_ref().is_none_or(|e| evaluation_open(e.status)));
                    // `try_`: the section may have been left meanwhile.
                    if handed.try_set(list).is_some() {
                        return;
                    }
                    open
                }
                Err(problem) => {
                    let _ = error.try_set(Some(error_sentence(&problem)));
                    false
                }
            };
            if open && !polling.try_get_value().unwrap_or(true) {
                polling.set_value(true);
                set_timeout(
                    move || {
                        if polling.try_set_value(false).is_none() {
                            load(session, id, handed, error, polling);
                        }
                    },
                    POLL_EVERY,
                );
            }
        });
    }
    load(session, id, handed, error, polling);
    let handed_in = Callback::new(move |_: Submission| load(session, id, handed, error, polling));
    let note = due_note(assignment.due_at, now_secs(), &assignment.due_at.map(date_text).unwrap_or_default());
    let late = assignment.due_at.is_some_and(|due| due < now_secs());
    view! {
        <li class="assignment-item" data-testid="homework" data-assignment=id.to_string()>
            <div class="assignment-line">
                <strong>{assignment.title.clone()}</strong>
                <span class="hint">{format!(
                    "{} · {} points · graded over {} hidden trials{}",
                    assignment.challenge_title,
                    assignment.points,
                    assignment.trials,
                    if assignment.score_rule.is_empty() { String::new() } else { format!(", scored by {}", assignment.score_rule) }
                )}</span>
            </div>
            <p class=if late { "due-note is-late" } else { "due-note hint" } data-testid="due-note">{note}</p>
            <div class="hand-in-forms">
                <FilesHandIn assignment=id handed_in />
                <RobotHandIn assignment=id handed_in />
            </div>
            <When when=move || error.with(Option::is_some)>
                <p class="form-error" role="alert">{move || error.get()}</p>
            </When>
            <When when=move || !handed.with(Vec::is_empty)>
                <h3>"Your hand-ins"</h3>
                <ol class="attempt-list" data-testid="my-submissions">
                    <ForEach each=move || handed.get() key=|s: &Submission| format!("{s:?}") let:submission>
                        <SubmissionLine submission points />
                    </ForEach>
                </ol>
            </When>
        </li>
    }
}

/// One hand-in: when, late or not, its files, its evaluation's state and grade.
#[component]
fn SubmissionLine(submission: Submission, points: f64) -> impl IntoView {
    let status = submission.evaluation.as_ref().map_or("waiting", |e| evaluation_status_word(e.status));
    let grade = submission.evaluation.as_ref().and_then(|e| e.grade).map(|grade| grade_text(grade, points));
    let reason = submission.evaluation.as_ref().and_then(|e| e.reason.clone());
    let failed = submission.evaluation.as_ref().is_some_and(|e| e.status == EvaluationStatus::Failed);
    let grade_attribute = grade.clone().unwrap_or_default();
    view! {
        <li class="attempt-item" data-testid="submission-item" data-status=status data-grade=grade_attribute>
            <div class="attempt-line">
                <span>{format!("Handed in {}", date_text(submission.submitted_at))}</span>
                {submission.late.then(|| view! { <span class="badge is-late">"late"</span> })}
                <span class="hint">{submission.files.join(", ")}</span>
                <div class="spacer"></div>
                <span class=if failed { "status-failed" } else { "" }>{status}</span>
                {grade.map(|grade| view! { <strong data-testid="submission-grade">{grade}</strong> })}
            </div>
            {reason.map(|reason| view! { <p class="attempt-reason">{reason}</p> })}
        </li>
    }
}

/// Program files (a main file and its helpers, as for a robot's program) → a hand-in.
#[component]
fn FilesHandIn(assignment: i64, handed_in: Callback<Submission>) -> impl IntoView {
    let session = expect_context::<ClassSession>();
    let input = NodeRef::<leptos::html::Input>::new();
    let busy = RwSignal::new(false);
    let problem = RwSignal::new(None::<String>);
    let submit_files = move |event: leptos::ev::SubmitEvent| {
        event.prevent_default();
        if busy.get_untracked() {
            return;
        }
        let Some(files) = input.get_untracked().and_then(|element: HtmlInputElement| element.files()) else { return };
        if files.length() == 0 {
            problem.set(Some("Choose your program's files first (its main file and the files it imports).".into()));
            return;
        }
        problem.set(None);
        busy.set(true);
        leptos::task::spawn_local(async move {
            let outcome = match read_files(files).await {
                Err(message) => Err(message),
                Ok(read) => {
                    let picked = sort_program_files(read);
                    match picked.main {
                        None => Err(format!("None of these is a program: {}.", picked.ignored.join(", "))),
                        Some(main) => {
                            let body = Body::Parts(program_parts(&main, &picked.helpers));
                            submit(&session.class(), &session.token(), assignment, body)
                                .await
                                .map_err(|error| format!("Not handed in: {}", error_sentence(&error)))
                        }
                    }
                }
            };
            busy.set(false);
            match outcome {
                Ok(submission) => {
                    if let Some(element) = input.get_untracked() {
                        element.set_value("");
                    }
                    handed_in.run(submission);
                }
                Err(message) => problem.set(Some(message)),
            }
        });
    };
    view! {
        <form class="hand-in" data-testid="hand-in-files" on:submit=submit_files novalidate=true>
            <label class="field">
                <span>"Hand in program files"</span>
                <input class="input file-input" type="file" multiple=true accept=".py,.wasm,.rprj,.c,.cpp,.h,.hpp" data-testid="hand-in-file-input" node_ref=input />
            </label>
            <button class="btn btn-primary btn-small" type="submit" data-testid="btn-hand-in-files" disabled=move || busy.get()>
                {move || if busy.get() { "Handing in…" } else { "Hand in" }}
            </button>
            <When when=move || problem.with(Option::is_some)>
                <p class="form-error" role="alert" data-testid="hand-in-error">{move || problem.get()}</p>
            </When>
        </form>
    }
}

/// One of her robots in a lesson, its program as it runs now → a hand-in.
#[component]
fn RobotHandIn(assignment: i64, handed_in: Callback<Submission>) -> impl IntoView {
    let session = expect_context::<ClassSession>();
    let lessons = move || session.view.with(|view| view.as_ref().map(|v| v.labs.clone()).unwrap_or_default());
    let lab = RwSignal::new(String::new());
    let robots = RwSignal::new(Vec::<String>::new());
    let robot = RwSignal::new(String::new());
    let busy = RwSignal::new(false);
    let problem = RwSignal::new(None::<String>);
    // Her robots there: the lesson says them to her as she enters it.
    let choose_lab = move |chosen: String| {
        lab.set(chosen.clone());
        robots.set(Vec::new());
        robot.set(String::new());
        if chosen.is_empty() {
            return;
        }
        leptos::task::spawn_local(async move {
            match enter_lesson(&chosen, &session.token()).await {
                Ok(joined) => {
                    if joined.user.robots.is_empty() {
                        problem.set(Some("You have no robot in this lesson yet: enter it and add one.".into()));
                    } else {
                        problem.set(None);
                    }
                    robot.set(joined.user.robots.first().cloned().unwrap_or_default());
                    robots.set(joined.user.robots);
                }
                Err(error) => problem.set(Some(error_sentence(&error))),
            }
        });
    };
    let hand_in = move |event: leptos::ev::SubmitEvent| {
        event.prevent_default();
        let (chosen_lab, chosen_robot) = (lab.get_untracked(), robot.get_untracked());
        if busy.get_untracked() || chosen_lab.is_empty() || chosen_robot.is_empty() {
            problem.set(Some("Choose a lesson and your robot there first.".into()));
            return;
        }
        problem.set(None);
        busy.set(true);
        leptos::task::spawn_local(async move {
            let answer =
                submit(&session.class(), &session.token(), assignment, robot_hand_in(&chosen_lab, &chosen_robot)).await;
            busy.set(false);
            match answer {
                Ok(submission) => handed_in.run(submission),
                Err(error) => problem.set(Some(format!("Not handed in: {}", error_sentence(&error)))),
            }
        });
    };
    view! {
        <When when=move || !lessons().is_empty()>
            <form class="hand-in" data-testid="hand-in-robot" on:submit=hand_in novalidate=true>
                <label class="field">
                    <span>"…or hand in a robot's program from a lesson"</span>
                    <span class="field-row">
                        <select class="input" data-testid="hand-in-lesson" on:change=move |event| choose_lab(event_target_value(&event))>
                            <option value="" selected=true>"lesson…"</option>
                            <ForEach each=lessons key=|l: &vlab_protocol::LabSummary| l.id.clone() let:lesson>
                                <option value=lesson.id.clone()>{lesson.name.clone()}</option>
                            </ForEach>
                        </select>
                        <select class="input" data-testid="hand-in-robot-name" prop:value=move || robot.get() on:change=move |event| robot.set(event_target_value(&event)) disabled=move || robots.with(Vec::is_empty)>
                            <ForEach each=move || robots.get() key=|r: &String| r.clone() let:name>
                                <option value=name.clone()>{name.clone()}</option>
                            </ForEach>
                        </select>
                    </span>
                </label>
                <button class="btn btn-small" type="submit" data-testid="btn-hand-in-robot" disabled=move || busy.get() || robot.with(String::is_empty)>
                    {move || if busy.get() { "Handing in…" } else { "Hand in this robot" }}
                </button>
                <When when=move || problem.with(Option::is_some)>
                    <p class="form-error" role="alert" data-testid="hand-in-robot-error">{move || problem.get()}</p>
                </When>
            </form>
        </When>
    }
}
