//! The gradebook: each student's latest submission of each assignment and its latest
//! evaluation, as JSON and as a CSV file a spreadsheet opens as it is (docs/classroom.md,
//! "The gradebook").

use std::collections::HashMap;

use vlab_protocol::permissions::Action;
use vlab_protocol::{EvaluationStatus, GradeCell, GradeRow, GradeStatus, Gradebook, StudentId};

use super::assignments::{given_to, view};
use super::submissions::latest_per_student;
use super::{ClassCaller, ClassroomCourse};
use crate::classroom::ClassroomError;
use crate::store::{AssignmentRecord, EvaluationRecord, SubmissionRecord};

impl ClassroomCourse<'_> {
    /// `GET /api/classes/{class}/grades`: every student on the roster to the teacher,
    /// her own row to a student.
    pub fn gradebook(self, class: &str, caller: ClassCaller) -> Result<Gradebook, ClassroomError> {
        caller.may(Action::SeeGrades, caller.student())?;
        let state = self.course().class(class)?;
        let teacher = caller == ClassCaller::Teacher;
        let students: Vec<(StudentId, String)> = state
            .roster()
            .filter(|s| teacher || caller.student() == Some(s.id))
            .map(|s| (s.id, s.name.clone()))
            .collect();
        // A student's columns are the assignments given to her.
        let assignments: Vec<AssignmentRecord> = self
            .course()
            .keep(|store| store.assignments(class))?
            .into_iter()
            .filter(|a| teacher || caller.student().is_some_and(|me| given_to(a, me)))
            .collect();
        let mut columns = Vec::with_capacity(assignments.len());
        for assignment in &assignments {
            columns.push(self.column(assignment)?);
        }
        let rows = students
            .into_iter()
            .map(|(student, name)| GradeRow {
                student,
                name,
                cells: assignments.iter().zip(&columns).map(|(a, column)| cell(a, column, student)).collect(),
            })
            .collect();
        let shown = assignments.iter().map(|a| view(a, teacher)).collect();
        Ok(Gradebook { assignments: shown, rows })
    }

    /// Assignment `assignment`'s latest submission of each student, with its latest
    /// evaluation.
    fn column(
        self,
        assignment: &AssignmentRecord,
    ) -> Result<HashMap<StudentId, (SubmissionRecord, Option<EvaluationRecord>)>, ClassroomError> {
        let submissions = self.course().keep(|store| store.submissions(assignment.id, None))?;
        let mut column = HashMap::new();
        for submission in latest_per_student(&submissions) {
            let evaluation = self.course().keep(|store| store.latest_evaluation(submission.id))?;
            column.insert(submission.student, (submission.clone(), evaluation));
        }
        Ok(column)
    }
}

/// Student `student`'s cell of assignment `assignment`.
fn cell(
    assignment: &AssignmentRecord,
    column: &HashMap<StudentId, (SubmissionRecord, Option<EvaluationRecord>)>,
    student: StudentId,
) -> GradeCell {
    let mut cell = GradeCell {
        assignment: assignment.id,
        status: GradeStatus::NotAssigned,
        grade: None,
        submitted_at: None,
        late: false,
        submission: None,
        evaluation: None,
    };
    let Some((submission, evaluation)) = column.get(&student) else {
        cell.status = if given_to(assignment, student) { GradeStatus::Missing } else { GradeStatus::NotAssigned };
        return cell;
    };
    (cell.submitted_at, cell.late, cell.submission) =
        (Some(submission.submitted_at), submission.late, Some(submission.id));
    cell.evaluation = evaluation.as_ref().map(|e| e.id);
    (cell.status, cell.grade) = match evaluation.as_ref().map(|e| (e.status, e.grade)) {
        Some((EvaluationStatus::Graded, grade)) => (GradeStatus::Graded, grade),
        Some((EvaluationStatus::Failed, _)) => (GradeStatus::Failed, Some(0.0)),
        _ => (GradeStatus::Evaluating, None),
    };
    cell
}

/// The gradebook as CSV (RFC 4180, CRLF lines, UTF-8 with a byte order mark so
/// spreadsheets read it as UTF-8): a `student` column, then for each assignment its
/// grade (`<title> (of <points>)`), its status (`<title> status`: `graded`, `failed`,
/// `evaluating`, `missing`, `not assigned`) and whether it came late (`<title> late`:
/// `yes`, `no`, or empty when nothing came).
pub fn csv(book: &Gradebook) -> String {
    let mut out = String::from("\u{feff}");
    let mut header = vec![field("student")];
    for a in &book.assignments {
        header.push(field(&format!("{} (of {})", a.title, number(a.points))));
        header.push(field(&format!("{} status", a.title)));
        header.push(field(&format!("{} late", a.title)));
    }
    line(&mut out, &header);
    for row in &book.rows {
        let mut fields = vec![field(&row.name)];
        for a in &book.assignments {
            let cell = row.cells.iter().find(|c| c.assignment == a.id);
            fields.push(cell.and_then(|c| c.grade).map(number).unwrap_or_default());
            fields.push(cell.map_or("not assigned", |c| status_word(c.status)).to_owned());
            let late = match cell {
                Some(c) if c.submission.is_some() => {
                    if c.late {
                        "yes"
                    } else {
                        "no"
                    }
                }
                _ => "",
            };
            fields.push(late.to_owned());
        }
        line(&mut out, &fields);
    }
    out
}

fn line(out: &mut String, fields: &[String]) {
    out.push_str(&fields.join(","));
    out.push_str("\r\n");
}

fn status_word(status: GradeStatus) -> &'static str {
    match status {
        GradeStatus::NotAssigned => "not assigned",
        GradeStatus::Missing => "missing",
        GradeStatus::Evaluating => "evaluating",
        GradeStatus::Graded => "graded",
        GradeStatus::Failed => "failed",
    }
}

/// A number as a spreadsheet reads it: `10`, `6.67`.
fn number(value: f64) -> String {
    let text = format!("{value:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// A text field: a leading `=`, `+`, `-`, `@` (or tab, carriage return) neutralised
/// with a `'` so a spreadsheet never reads it as a formula; quoted, its quotes doubled,
/// when it holds a comma, a quote or a line break.
fn field(text: &str) -> String {
    let text = if text.starts_with(['=', '+', '-', '@', '\t', '\r']) { format!("'{text}") } else { text.to_owned() };
    if text.contains([',', '"', '\r', '\n']) { format!("\"{}\"", text.replace('"', "\"\"")) } else { text }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vlab_protocol::Assignment;

    /// The assignments of a gradebook, for tests of the columns.
    fn assignment(id: i64, title: &str, points: f64) -> Assignment {
        Assignment {
            id,
            title: title.into(),
            challenge: "challenges/park".into(),
            challenge_title: "Park in the green bay".into(),
            score_rule: "time in seconds (lower is better)".into(),
            robot: "diffbot".into(),
            points,
            opens_at: 0,
            due_at: None,
            trials: 3,
            students: None,
            version: 1,
        }
    }

    fn graded(assignment: i64, grade: f64, late: bool) -> GradeCell {
        GradeCell {
            assignment,
            status: GradeStatus::Graded,
            grade: Some(grade),
            submitted_at: Some(1),
            late,
            submission: Some(1),
            evaluation: Some(1),
        }
    }

    #[test]
    fn the_csv_has_a_bom_crlf_lines_and_three_columns_per_assignment() {
        let book = Gradebook {
            assignments: vec![assignment(1, "Park", 10.0), assignment(2, "Push, then park", 7.5)],
            rows: vec![GradeRow {
                student: 1,
                name: "Ana".into(),
                cells: vec![
                    graded(1, 6.67, true),
                    GradeCell {
                        status: GradeStatus::Missing,
                        grade: None,
                        submitted_at: None,
                        late: false,
                        submission: None,
                        evaluation: None,
                        assignment: 2,
                    },
                ],
            }],
        };
        let text = csv(&book);
        assert!(text.starts_with('\u{feff}'));
        let lines: Vec<&str> = text.trim_start_matches('\u{feff}').split("\r\n").collect();
        assert_eq!(
            lines[0],
            "student,Park (of 10),Park status,Park late,\"Push, then park (of 7.5)\",\"Push, then park status\",\"Push, then park late\""
        );
        assert_eq!(lines[1], "Ana,6.67,graded,yes,,missing,");
        assert_eq!(lines[2], "", "the last line ends too");
    }

    #[test]
    fn names_are_quoted_as_rfc_4180_says_and_never_read_as_formulas() {
        assert_eq!(field("Ana"), "Ana");
        assert_eq!(field("Ana \"the fast\" Li"), "\"Ana \"\"the fast\"\" Li\"");
        assert_eq!(field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(field("+1"), "'+1");
        assert_eq!(field("-2"), "'-2");
        assert_eq!(field("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(field("two\nlines"), "\"two\nlines\"");
        assert_eq!(number(10.0), "10");
        assert_eq!(number(6.666), "6.67");
        assert_eq!(number(0.0), "0");
    }
}
