//! A course over weeks: classes with their roster, sign-in by class code, name and PIN
//! (or a one-time link), lessons (labs) of a class, assignments graded over hidden
//! trials, the gradebook and the teacher's overview (docs/classroom.md, "Running a
//! course"). Times are Unix seconds (UTC).

use serde::{Deserialize, Serialize};

use crate::{AttemptProgress, LabSummary, Participant};

/// A student's id in her class (the teacher is 0).
pub type StudentId = u32;

/// The teacher's id in her class.
pub const TEACHER_ID: StudentId = 0;

/// A PIN's digits: at least this many...
pub const MIN_PIN_DIGITS: usize = 4;
/// ...and at most this many.
pub const MAX_PIN_DIGITS: usize = 8;

/// Students one class takes.
pub const MAX_CLASS_STUDENTS: usize = 200;

/// Trials one assignment may ask for.
pub const MAX_TRIALS: u32 = 20;

/// `POST /api/classes` (the server key): a new class.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateClassRequest {
    /// Its display name ("Robotics 2B").
    pub name: String,
}

/// The answer to `POST /api/classes`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreatedClass {
    /// Its id, used in URLs.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// The code its students sign in with.
    pub class_code: String,
    /// The bearer token of its teacher (keep it secret): instructor of every lab of
    /// the class too.
    pub teacher_token: String,
    /// The teacher's page (path and query, relative to the server).
    pub teacher_path: String,
}

/// `POST /api/classes/sign-in`: a student signs in to her class, by code, name and PIN
/// (the first time, the PIN she chooses), or with a one-time link's token alone.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignInRequest {
    /// The class's code.
    #[serde(default)]
    pub class_code: String,
    /// Her name as on the roster.
    #[serde(default)]
    pub name: String,
    /// Her PIN: 4 to 8 digits.
    #[serde(default)]
    pub pin: String,
    /// A one-time sign-in link's token, instead of the three above.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
}

/// The answer to a sign-in: a class session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedIn {
    /// The class's id.
    pub class: String,
    /// The bearer token of this session (for the class's API and its labs' `enter`).
    pub token: String,
    /// Who the class knows her as.
    pub student: Student,
    /// The class's page for her (path and query, relative to the server).
    pub class_path: String,
}

/// A student on a class's roster.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Student {
    /// Her id in the class.
    pub id: StudentId,
    /// Her name, unique in the class.
    pub name: String,
    /// Whether she has a PIN (a student the teacher added has none until she signs in
    /// with a link, or the teacher resets it).
    #[serde(default)]
    pub has_pin: bool,
    /// Whether a page of hers is signed in now (a session not ended).
    #[serde(default)]
    pub signed_in: bool,
}

/// `POST /api/classes/{class}/students` (teacher): a student added to the roster.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddStudentRequest {
    /// Her name.
    pub name: String,
}

/// `PATCH /api/classes/{class}/students/{id}` (teacher): a new name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenameStudentRequest {
    /// Her new name.
    pub name: String,
}

/// The answer to adding a student or resetting her PIN: what the teacher hands her.
/// Shown once; the server keeps only digests.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StudentCredentials {
    /// The student.
    pub student: Student,
    /// Her new PIN.
    pub pin: String,
    /// A one-time sign-in link (path and query, relative to the server): it signs her
    /// in once, without code, name or PIN.
    pub sign_in_path: String,
}

/// `GET /api/classes/{class}`: the class as the caller sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassView {
    /// Its id.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// The code students sign in with: the teacher's eyes only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class_code: Option<String>,
    /// Who the caller is: the teacher (`TEACHER_ID`) or a student.
    pub you: Student,
    /// Whether the caller is the teacher.
    pub teacher: bool,
    /// Its lessons, open ones first.
    pub labs: Vec<LabSummary>,
    /// Its assignments the caller may see.
    pub assignments: Vec<Assignment>,
}

/// `POST /api/classes/{class}/assignments` (teacher), and `PATCH` with the fields to
/// change.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AssignmentRequest {
    /// Its title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The challenge: a scene of the library with a `challenge` (`challenges/park`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub challenge: Option<String>,
    /// The robot of that scene a submission's program drives (default: its one robot).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub robot: Option<String>,
    /// The points a full grade is worth (default 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<f64>,
    /// When submissions open (default: now).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opens_at: Option<i64>,
    /// When it is due: later submissions are kept and flagged late (default: none). In a
    /// `PATCH`, `null` takes the due date away.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub due_at: Option<Option<i64>>,
    /// Hidden trials each submission runs (default 5, at most `MAX_TRIALS`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trials: Option<u32>,
    /// The students it is given to (default: the whole class). In a `PATCH`, `null`
    /// gives it to the whole class again.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    pub students: Option<Option<Vec<StudentId>>>,
}

/// A field of a `PATCH` that is absent (`None`: unchanged), `null` (`Some(None)`: taken
/// away) or given: serde alone reads both of the first two as `None`.
fn present<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// An assignment: a challenge given to a class, with points and dates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Assignment {
    /// Its id.
    pub id: i64,
    /// Its title.
    pub title: String,
    /// The challenge's scene in the library.
    pub challenge: String,
    /// The challenge's own title, as its scene says.
    pub challenge_title: String,
    /// How the challenge scores a trial, in words, as its board says them (`time in
    /// seconds (lower is better)`); empty for an assignment kept before it was recorded.
    #[serde(default)]
    pub score_rule: String,
    /// The robot a submission's program drives.
    pub robot: String,
    /// The points a full grade is worth.
    pub points: f64,
    /// When submissions open.
    pub opens_at: i64,
    /// When it is due (none: never late).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due_at: Option<i64>,
    /// How many hidden trials each submission runs (their seeds are never shown to
    /// students).
    pub trials: u32,
    /// The students it is given to (none: the whole class).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub students: Option<Vec<StudentId>>,
    /// Its version: one more at each change of its challenge or trials (an evaluation
    /// says which version it graded).
    pub version: u32,
}

/// `POST /api/classes/{class}/assignments/{id}/submissions` with a JSON body: hand in
/// a robot's current program from a lab of the class (a form with program files hands
/// in those instead).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubmitRobotRequest {
    /// The lab.
    pub lab: String,
    /// Her robot there.
    pub robot: String,
}

/// A hand-in: a program for an assignment, kept with its sources.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Submission {
    /// Its id.
    pub id: i64,
    /// The assignment.
    pub assignment: i64,
    /// Whose.
    pub student: StudentId,
    /// Her name.
    pub name: String,
    /// When it arrived.
    pub submitted_at: i64,
    /// Whether it arrived after the due date.
    pub late: bool,
    /// Its files' names (`GET .../submissions/{id}/files/{name}` reads one).
    pub files: Vec<String>,
    /// Its latest evaluation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evaluation: Option<Evaluation>,
}

/// Where an evaluation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvaluationStatus {
    /// Waiting for the attempt queue.
    Queued,
    /// Some of its trials ran.
    Running,
    /// Every trial ran: it has its grade.
    Graded,
    /// It could not run (its program does not compile, the challenge cannot be read):
    /// graded 0, with the reason.
    Failed,
}

/// One submission run over the assignment's trials.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// Its id.
    pub id: i64,
    /// The submission it ran.
    pub submission: i64,
    /// The assignment's version it ran.
    pub version: u32,
    /// Where it is.
    pub status: EvaluationStatus,
    /// Its trials, in order.
    pub trials: Vec<Trial>,
    /// Its grade, in the assignment's points, once graded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grade: Option<f64>,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// When it started.
    pub started_at: i64,
}

/// One trial of an evaluation: an attempt with a hidden seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trial {
    /// Its number in the evaluation, from 1.
    pub number: u32,
    /// How it went.
    pub status: AttemptProgress,
    /// Its score by the challenge's rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What it counts for in the grade, 0 to 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credit: Option<f64>,
    /// Its seed: the teacher's eyes only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Its replay (`GET` it: an `AttemptReplay`), once over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay_path: Option<String>,
}

/// `POST /api/classes/{class}/assignments/{id}/evaluate` (teacher): runs the latest
/// submission of one student, or of everybody, again.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvaluateRequest {
    /// The student (none: everybody who submitted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub student: Option<StudentId>,
}

/// `GET /api/classes/{class}/grades`: students × assignments (a student gets her own
/// row).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Gradebook {
    /// The class's assignments, its columns.
    pub assignments: Vec<Assignment>,
    /// One row per student.
    pub rows: Vec<GradeRow>,
}

/// A student's row of the gradebook.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GradeRow {
    /// The student.
    pub student: StudentId,
    /// Her name.
    pub name: String,
    /// One cell per assignment, in the columns' order.
    pub cells: Vec<GradeCell>,
}

/// What a student has of one assignment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GradeCell {
    /// The assignment.
    pub assignment: i64,
    /// Where it is.
    pub status: GradeStatus,
    /// Her grade, once her latest submission is graded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grade: Option<f64>,
    /// When her latest submission arrived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submitted_at: Option<i64>,
    /// Whether it arrived late.
    #[serde(default)]
    pub late: bool,
    /// Her latest submission.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submission: Option<i64>,
    /// Its latest evaluation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evaluation: Option<i64>,
}

/// A gradebook cell's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GradeStatus {
    /// Not given to her.
    NotAssigned,
    /// Given, nothing handed in.
    Missing,
    /// Handed in, being evaluated.
    Evaluating,
    /// Graded.
    Graded,
    /// Handed in, its evaluation failed (graded 0).
    Failed,
}

/// `GET /api/classes/{class}/overview` (teacher): every lab of the class as it is now.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassOverview {
    /// One entry per lab, open ones.
    pub labs: Vec<LabOverview>,
}

/// One lab in the teacher's overview.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabOverview {
    /// The lab.
    pub lab: LabSummary,
    /// Who joined it, connected or not.
    pub people: Vec<Participant>,
    /// Every robot and its program.
    pub robots: Vec<RobotOverview>,
    /// The lab's challenge's title, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub challenge: Option<String>,
    /// How that challenge scores, in words, as its board says them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_rule: Option<String>,
}

/// One robot in the teacher's overview.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RobotOverview {
    /// Its name.
    pub robot: String,
    /// Its owner's name (none: the lab's own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// Its program's state: `none`, `starting`, `running`, `late`, `stopped`,
    /// `crashed` (as the robot list says it).
    pub program: String,
    /// The program's error, when it crashed or was stopped for one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Its best attempt at the lab's challenge: solved, and its score.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best: Option<ChallengeProgress>,
}

/// A robot's best attempt at its lab's challenge.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChallengeProgress {
    /// Attempts made.
    pub attempts: u32,
    /// Whether one solved it.
    pub solved: bool,
    /// The best score.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
}

/// A PIN as the server takes it: `MIN_PIN_DIGITS` to `MAX_PIN_DIGITS` ASCII digits.
pub fn valid_pin(pin: &str) -> bool {
    (MIN_PIN_DIGITS..=MAX_PIN_DIGITS).contains(&pin.len()) && pin.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_are_four_to_eight_digits() {
        assert!(valid_pin("0042"));
        assert!(valid_pin("12345678"));
        assert!(!valid_pin("123"), "too short");
        assert!(!valid_pin("123456789"), "too long");
        assert!(!valid_pin("12a4"), "letters");
        assert!(!valid_pin("١٢٣٤"), "digits of another script");
    }

    #[test]
    fn an_assignment_request_reads_with_only_what_it_changes() {
        let patch: AssignmentRequest = serde_json::from_str(r#"{"due_at": 1800000000}"#).unwrap();
        assert_eq!(patch, AssignmentRequest { due_at: Some(Some(1_800_000_000)), ..AssignmentRequest::default() });
    }

    #[test]
    fn a_null_in_a_patch_takes_the_field_away_and_an_absent_one_keeps_it() {
        let patch: AssignmentRequest = serde_json::from_str(r#"{"due_at": null, "students": null}"#).unwrap();
        assert_eq!(patch.due_at, Some(None));
        assert_eq!(patch.students, Some(None));
        let patch: AssignmentRequest = serde_json::from_str(r#"{"title": "Parking"}"#).unwrap();
        assert_eq!((patch.due_at, patch.students), (None, None));
        let written = serde_json::to_string(&AssignmentRequest { due_at: Some(None), ..AssignmentRequest::default() });
        assert_eq!(written.unwrap(), r#"{"due_at":null}"#);
    }
}
