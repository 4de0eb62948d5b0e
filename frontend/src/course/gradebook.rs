//! The gradebook: students × assignments (grade out of the points, state, late flag, when
//! handed in), a cell's evaluation opened below the table, evaluating one hand-in again,
//! the CSV download; the teacher's whole table, and a student's own row as My grades.
//! Asked again while a hand-in is being evaluated.

use std::time::Duration;

use leptos::prelude::*;
use vlab_protocol::{Assignment, GradeCell, GradeRow, GradeStatus, Gradebook, StudentId};

use super::client::{evaluate, gradebook, gradebook_csv};
use super::evaluation::EvaluationDetail;
use super::forms::{grade_status_word, grade_text};
use super::state::{ClassSession, date_text};
use crate::api::error_sentence;
use crate::ui::browser::save_blob;
use crate::ui::{ForEach, When};

/// How often a gradebook with hand-ins being evaluated is asked for again.
const POLL_EVERY: Duration = Duration::from_secs(2);

/// The gradebook as last read, kept current while something is evaluated.
#[derive(Clone, Copy)]
pub struct GradebookState {
    session: ClassSession,
    /// The table (`None` before the first answer).
    pub book: RwSignal<Option<Gradebook>>,
    /// Why it could not be read.
    pub error: RwSignal<Option<String>>,
    /// The evaluation opened below the table, and its assignment.
    pub opened: RwSignal<Option<(i64, Assignment)>>,
    polling: StoredValue<bool>,
}

impl GradebookState {
    /// Reads it now (and again while something is evaluated).
    pub fn new() -> GradebookState {
        let state = GradebookState {
            session: expect_context::<ClassSession>(),
            book: RwSignal::new(None),
            error: RwSignal::new(None),
            opened: RwSignal::new(None),
            polling: StoredValue::new(false),
        };
        state.reload();
        state
    }

    /// Asks for it again.
    pub fn reload(self) {
        leptos::task::spawn_local(async move { self.load().await });
    }

    async fn load(self) {
        let answer = gradebook(&self.session.class(), &self.session.token()).await;
        let evaluating = match answer {
            Ok(book) => {
                let evaluating =
                    book.rows.iter().flat_map(|row| &row.cells).any(|cell| cell.status == GradeStatus::Evaluating);
                // `try_`: the section may have been left meanwhile.
                if self.book.try_set(Some(book)).is_some() {
                    return;
                }
                let _ = self.error.try_set(None);
                evaluating
            }
            Err(problem) => {
                let _ = self.error.try_set(Some(error_sentence(&problem)));
                false
            }
        };
        if evaluating && !self.polling.try_get_value().unwrap_or(true) {
            self.polling.set_value(true);
            set_timeout(
                move || {
                    if self.polling.try_set_value(false).is_none() {
                        self.reload();
                    }
                },
                POLL_EVERY,
            );
        }
    }
}

/// The teacher's Gradebook section.
#[component]
pub fn GradebookSection() -> impl IntoView {
    let state = GradebookState::new();
    view! {
        <section class="card course-card wide-card" aria-label="Gradebook" data-testid="gradebook-section">
            <header class="card-header">
                <h2>"Gradebook"</h2>
                <div class="spacer"></div>
                <CsvDownload />
                <button class="btn btn-small" data-testid="btn-refresh-grades" on:click=move |_| state.reload()>"Refresh"</button>
            </header>
            <GradeTable state teacher=true />
        </section>
    }
}

/// Grades as a CSV file, fetched with the session's token.
#[component]
fn CsvDownload() -> impl IntoView {
    let session = expect_context::<ClassSession>();
    let error = RwSignal::new(None::<String>);
    let download = move |_| {
        leptos::task::spawn_local(async move {
            let saved = match gradebook_csv(&session.class(), &session.token()).await {
                Ok(blob) => save_blob(&blob, &format!("{}-grades.csv", session.class())),
                Err(problem) => Err(error_sentence(&problem)),
            };
            error.set(saved.err());
        });
    };
    view! {
        <button class="btn btn-small" data-testid="btn-grades-csv" on:click=download>"Download CSV"</button>
        <When when=move || error.with(Option::is_some)>
            <span class="form-error" role="alert">{move || error.get()}</span>
        </When>
    }
}

/// The table (one row per student the book holds), and the evaluation opened below it.
#[component]
pub fn GradeTable(state: GradebookState, teacher: bool) -> impl IntoView {
    let columns = move || state.book.with(|book| book.as_ref().map(|b| b.assignments.clone()).unwrap_or_default());
    let rows = move || state.book.with(|book| book.as_ref().map(|b| b.rows.clone()).unwrap_or_default());
    view! {
        <When when=move || state.error.with(Option::is_some)>
            <p class="form-error" role="alert" data-testid="grades-error">{move || state.error.get()}</p>
        </When>
        {move || match state.book.with(|book| book.as_ref().map(|b| (b.assignments.is_empty(), b.rows.is_empty()))) {
            None => view! { <p class="hint">"Loading the grades…"</p> }.into_any(),
            Some((true, _)) => view! { <p class="hint">"No assignment yet."</p> }.into_any(),
            Some((_, true)) => view! { <p class="hint">"No student yet."</p> }.into_any(),
            Some(_) => view! {
                <div class="table-scroll">
                    <table class="lab-table grade-table" data-testid="gradebook">
                        <thead>
                            <tr>
                                <th>"student"</th>
                                <ForEach each=columns key=|a: &Assignment| a.id let:assignment>
                                    <th title=assignment.challenge_title.clone()>
                                        {format!("{} ({} pts)", assignment.title, assignment.points)}
                                        {teacher.then(|| view! { <EvaluateColumn assignment=assignment.id state /> })}
                                    </th>
                                </ForEach>
                            </tr>
                        </thead>
                        <tbody>
                            <ForEach each=rows key=|row: &GradeRow| format!("{row:?}") let:row>
                                <tr data-testid="grade-row" data-student=row.name.clone()>
                                    <td class="lab-cell-name">{row.name.clone()}</td>
                                    {row.cells.iter().map(|cell| {
                                        let of = columns().into_iter().find(|a| a.id == cell.assignment);
                                        of.map(|of| view! { <GradeCellView cell=cell.clone() of student=row.student state teacher /> })
                                    }).collect_view()}
                                </tr>
                            </ForEach>
                        </tbody>
                    </table>
                </div>
            }
            .into_any(),
        }}
        {move || state.opened.get().map(|(id, of)| view! {
            <div class="evaluation-box">
                <header class="card-header">
                    <h3>"Evaluation"</h3>
                    <div class="spacer"></div>
                    <button class="btn btn-small" on:click=move |_| state.opened.set(None)>"Close"</button>
                </header>
                <EvaluationDetail id points=of.points score_rule=of.score_rule />
            </div>
        })}
    }
}

/// "Evaluate all" under an assignment's heading: every latest hand-in run again.
#[component]
fn EvaluateColumn(assignment: i64, state: GradebookState) -> impl IntoView {
    let session = expect_context::<ClassSession>();
    let evaluate_all = move |_| {
        leptos::task::spawn_local(async move {
            match evaluate(&session.class(), &session.token(), assignment, None).await {
                Ok(()) => state.reload(),
                Err(problem) => state.error.set(Some(error_sentence(&problem))),
            }
        });
    };
    view! {
        <div>
            <button class="btn btn-tiny" data-testid="btn-evaluate-column" data-assignment=assignment.to_string() title="Run every latest hand-in again" on:click=evaluate_all>
                "Evaluate all"
            </button>
        </div>
    }
}

/// One cell: the grade or the state, late, when; its evaluation and "Evaluate again".
#[component]
fn GradeCellView(
    cell: GradeCell,
    of: Assignment,
    student: StudentId,
    state: GradebookState,
    teacher: bool,
) -> impl IntoView {
    let session = expect_context::<ClassSession>();
    let assignment = cell.assignment;
    let points = of.points;
    let main = match (cell.status, cell.grade) {
        (GradeStatus::Graded | GradeStatus::Failed, Some(grade)) => grade_text(grade, points),
        (status, _) => grade_status_word(status).to_owned(),
    };
    let evaluate_again = move |_| {
        leptos::task::spawn_local(async move {
            match evaluate(&session.class(), &session.token(), assignment, Some(student)).await {
                Ok(()) => state.reload(),
                Err(problem) => state.error.set(Some(error_sentence(&problem))),
            }
        });
    };
    view! {
        <td
            class="grade-cell"
            data-testid="grade-cell"
            data-assignment=assignment.to_string()
            data-status=grade_status_word(cell.status)
            data-grade=cell.grade.map(|g| g.to_string()).unwrap_or_default()
            data-late=cell.late.to_string()
        >
            <span class=format!("grade-main grade-{}", grade_status_word(cell.status).replace(' ', "-"))>{main}</span>
            {(cell.status == GradeStatus::Failed).then(|| view! { <span class="hint">" (failed)"</span> })}
            {cell.late.then(|| view! { <span class="badge is-late" data-testid="late-flag">"late"</span> })}
            {cell.submitted_at.map(|at| view! { <div class="hint grade-when">{format!("handed in {}", date_text(at))}</div> })}
            <div class="grade-actions">
                {cell.evaluation.map(|id| view! {
                    <button class="btn btn-tiny" data-testid="btn-open-evaluation" data-evaluation=id.to_string() on:click=move |_| state.opened.set(Some((id, of.clone())))>
                        "Trials"
                    </button>
                })}
                {(teacher && cell.submission.is_some()).then(|| view! {
                    <button class="btn btn-tiny" data-testid="btn-evaluate-one" title="Run her latest hand-in again" on:click=evaluate_again>"Evaluate again"</button>
                })}
            </div>
        </td>
    }
}
