//! A course, the pure part: the class session a browser keeps, what the sign-in, new
//! class, roster and assignment forms send and what the server's answers mean, and the
//! words the class page shows for grades, statuses and programs.
//!
//! Plain data in, plain data out, tested on the host; the pages that use it live beside
//! it in `course/`, the requests in `course::client`.

use serde::{Deserialize, Serialize};
use vlab_protocol::{
    AssignmentRequest, CreatedClass, EvaluationStatus, GradeStatus, MAX_PIN_DIGITS, MAX_TRIALS, MIN_PIN_DIGITS,
    SignedIn, valid_pin,
};

use crate::api::{ApiError, error_sentence};
use crate::classroom::forms::LibraryScene;

/// Every stored class session's key starts with this.
pub const CLASS_KEY_PREFIX: &str = "vlab.class.";

/// `localStorage` key of the class session a browser holds in `class`.
pub fn class_storage_key(class: &str) -> String {
    format!("{CLASS_KEY_PREFIX}{class}")
}

/// A class session this browser signed in to: kept per class, so a reload, a new tab or
/// the landing page's link is the same student.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredClass {
    /// The class's id.
    pub class: String,
    /// The bearer token of the session.
    pub token: String,
    /// Who the class knows her as.
    pub name: String,
}

impl StoredClass {
    /// Reads a stored value; `None` when it is not one.
    pub fn from_json(text: &str) -> Option<StoredClass> {
        crate::api::from_json::<StoredClass>(text).ok().filter(|s| !s.token.is_empty() && !s.class.is_empty())
    }

    /// The value to store.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a stored class session serialises")
    }

    /// The session a sign-in gave.
    pub fn signed_in(answer: &SignedIn) -> StoredClass {
        StoredClass { class: answer.class.clone(), token: answer.token.clone(), name: answer.student.name.clone() }
    }
}

/// A form's refusal: the field to mark (`"code"`, `"name"`, `"pin"`, `"other"`) and the
/// sentence shown under the form.
pub type Refusal = (&'static str, String);

/// Checks the sign-in form before asking the server.
pub fn check_sign_in(code: &str, name: &str, pin: &str) -> Option<Refusal> {
    if code.trim().is_empty() {
        return Some(("code", "Type the class code your teacher gave.".into()));
    }
    if vlab_protocol::clean_display_name(name).is_none() {
        return Some((
            "name",
            format!("Type your name as your teacher wrote it (1 to {} characters).", vlab_protocol::MAX_NAME_CHARS),
        ));
    }
    if !valid_pin(pin.trim()) {
        return Some(("pin", pin_rule()));
    }
    None
}

fn pin_rule() -> String {
    format!("Your PIN is {MIN_PIN_DIGITS} to {MAX_PIN_DIGITS} digits (the first time, choose one and keep it).")
}

/// Reads the answer to `POST /api/classes/sign-in`.
pub fn interpret_sign_in(answer: Result<SignedIn, ApiError>) -> Result<SignedIn, Refusal> {
    answer.map_err(|error| match error.status() {
        Some(401) => ("pin", error_sentence(&error)),
        Some(404) => ("code", "No class has that code: check it with your teacher.".to_owned()),
        Some(422 | 400) => ("pin", format!("{} {}", error_sentence(&error), pin_rule())),
        Some(429) => ("other", format!("{} Wait a minute, then try again.", error_sentence(&error))),
        _ => ("other", error_sentence(&error)),
    })
}

/// Reads the answer to `POST /api/classes`: the class, or a sentence.
pub fn interpret_create_class(answer: Result<CreatedClass, ApiError>) -> Result<CreatedClass, String> {
    answer.map_err(|error| match error.status() {
        Some(401 | 403) => format!("The server key is needed to create a class: {}", error_sentence(&error)),
        _ => error_sentence(&error),
    })
}

/// The library's challenges, which assignments are made of (`challenges/park`).
pub fn challenge_scenes(scenes: Vec<LibraryScene>) -> Vec<LibraryScene> {
    scenes.into_iter().filter(|scene| scene.name.starts_with("challenges/")).collect()
}

/// What the new-assignment form holds, as typed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AssignmentForm {
    /// Its title.
    pub title: String,
    /// The challenge's scene name.
    pub challenge: String,
    /// The points field.
    pub points: String,
    /// The due date, Unix seconds, when one was set.
    pub due_at: Option<i64>,
    /// The trials field.
    pub trials: String,
}

/// The new assignment's request, or why not (a sentence).
pub fn assignment_request(form: &AssignmentForm) -> Result<AssignmentRequest, String> {
    let title = form.title.trim();
    if title.is_empty() || title.chars().count() > 120 {
        return Err("Give the assignment a title (1 to 120 characters).".into());
    }
    if form.challenge.is_empty() {
        return Err("Choose the challenge it asks for.".into());
    }
    let points = match form.points.trim().parse::<f64>() {
        Ok(points) if points.is_finite() && points > 0.0 => points,
        _ => return Err("Points are a number above 0 (10 by default).".into()),
    };
    let trials = match form.trials.trim().parse::<u32>() {
        Ok(trials) if (1..=MAX_TRIALS).contains(&trials) => trials,
        _ => return Err(format!("Trials are a whole number from 1 to {MAX_TRIALS}.")),
    };
    Ok(AssignmentRequest {
        title: Some(title.to_owned()),
        challenge: Some(form.challenge.clone()),
        points: Some(points),
        due_at: Some(form.due_at),
        trials: Some(trials),
        ..AssignmentRequest::default()
    })
}

/// `7.5 / 10`: a grade against the points it is out of.
pub fn grade_text(grade: f64, points: f64) -> String {
    format!("{} / {}", trim_number(grade), trim_number(points))
}

fn trim_number(value: f64) -> String {
    let text = format!("{value:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// A gradebook cell's state, in words.
pub fn grade_status_word(status: GradeStatus) -> &'static str {
    match status {
        GradeStatus::NotAssigned => "not given",
        GradeStatus::Missing => "missing",
        GradeStatus::Evaluating => "evaluating",
        GradeStatus::Graded => "graded",
        GradeStatus::Failed => "failed",
    }
}

/// An evaluation's state, in words.
pub fn evaluation_status_word(status: EvaluationStatus) -> &'static str {
    match status {
        EvaluationStatus::Queued => "queued",
        EvaluationStatus::Running => "running",
        EvaluationStatus::Graded => "graded",
        EvaluationStatus::Failed => "failed",
    }
}

/// Whether an evaluation will change still (asked again while it does).
pub fn evaluation_open(status: EvaluationStatus) -> bool {
    matches!(status, EvaluationStatus::Queued | EvaluationStatus::Running)
}

/// The overview's badge class for a program's state: green while it runs, amber when
/// late or starting, red when it crashed.
pub fn program_badge_class(program: &str) -> &'static str {
    match program {
        "running" => "badge program-badge is-running",
        "late" | "starting" => "badge program-badge is-late",
        "crashed" => "badge program-badge is-crashed",
        _ => "badge program-badge",
    }
}

/// The sentence under a student's assignment about its due date, `now` and `due_at` in
/// Unix seconds; `when` is the date as the browser words it.
pub fn due_note(due_at: Option<i64>, now: i64, when: &str) -> String {
    match due_at {
        None => "No due date.".to_owned(),
        Some(due) if due < now => format!("Was due {when}: a hand-in now counts as late."),
        Some(due) if due - now < 24 * 3600 => format!("Due {when}: less than a day left."),
        Some(_) => format!("Due {when}."),
    }
}

/// The one-time sign-in link a teacher prints for a student, whole.
pub fn full_link(origin: &str, path: &str) -> String {
    format!("{origin}{path}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::read_json;

    #[test]
    fn the_sign_in_form_says_what_to_fix_before_asking() {
        assert_eq!(check_sign_in(" ", "Ana", "1234").map(|r| r.0), Some("code"));
        assert_eq!(check_sign_in("K7MP", "  ", "1234").map(|r| r.0), Some("name"));
        assert_eq!(check_sign_in("K7MP", "Ana", "12a4").map(|r| r.0), Some("pin"));
        assert_eq!(check_sign_in("K7MP", "Ana", "123").map(|r| r.0), Some("pin"));
        assert_eq!(check_sign_in("K7MP", "Ana", " 1234 "), None);
    }

    #[test]
    fn sign_in_refusals_name_their_field_with_the_server_s_words() {
        let wrong = r#"{"error":{"code":"unauthorized","message":"wrong PIN for Ana"}}"#;
        assert_eq!(interpret_sign_in(read_json(401, wrong)), Err(("pin", "Wrong PIN for Ana.".to_owned())));
        let unknown = r#"{"error":{"code":"not_found","message":"no class has that code"}}"#;
        assert_eq!(interpret_sign_in(read_json(404, unknown)).unwrap_err().0, "code");
        let waiting = r#"{"error":{"code":"too_many_requests","message":"too many wrong PINs"}}"#;
        let (field, message) = interpret_sign_in(read_json(429, waiting)).unwrap_err();
        assert_eq!(field, "other");
        assert!(message.starts_with("Too many wrong PINs."), "{message}");
        let signed = r#"{"class":"c","token":"t","student":{"id":3,"name":"Ana"},"class_path":"/?class=c&token=t"}"#;
        let answer = interpret_sign_in(read_json(200, signed)).unwrap();
        assert_eq!(
            StoredClass::signed_in(&answer),
            StoredClass { class: "c".into(), token: "t".into(), name: "Ana".into() }
        );
    }

    #[test]
    fn stored_class_sessions_read_back_and_refuse_what_is_not_one() {
        let session = StoredClass { class: "c".into(), token: "t".into(), name: "Ana".into() };
        assert_eq!(StoredClass::from_json(&session.to_json()), Some(session));
        assert_eq!(StoredClass::from_json(r#"{"class":"c","token":"","name":"x"}"#), None);
        assert_eq!(class_storage_key("c"), "vlab.class.c");
    }

    #[test]
    fn an_assignment_form_becomes_its_request_or_says_why_not() {
        let form = AssignmentForm {
            title: " Park it ".into(),
            challenge: "challenges/park".into(),
            points: "10".into(),
            due_at: Some(1_800_000_000),
            trials: "3".into(),
        };
        let request = assignment_request(&form).unwrap();
        assert_eq!(request.title.as_deref(), Some("Park it"));
        assert_eq!((request.points, request.trials, request.due_at), (Some(10.0), Some(3), Some(Some(1_800_000_000))));
        assert!(assignment_request(&AssignmentForm { title: "".into(), ..form.clone() }).is_err());
        assert!(assignment_request(&AssignmentForm { challenge: "".into(), ..form.clone() }).is_err());
        assert!(assignment_request(&AssignmentForm { points: "0".into(), ..form.clone() }).is_err());
        assert!(assignment_request(&AssignmentForm { trials: "21".into(), ..form.clone() }).is_err());
        assert!(assignment_request(&AssignmentForm { trials: "x".into(), ..form }).is_err());
    }

    #[test]
    fn words_for_grades_dates_and_programs() {
        assert_eq!(grade_text(7.5, 10.0), "7.5 / 10");
        assert_eq!(grade_text(10.0 / 3.0, 10.0), "3.33 / 10");
        assert_eq!(due_note(None, 100, ""), "No due date.");
        assert!(due_note(Some(50), 100, "Mon").contains("late"));
        assert!(due_note(Some(200), 100, "Mon").contains("less than a day"));
        assert_eq!(due_note(Some(200_000), 100, "Mon 3 Dec"), "Due Mon 3 Dec.");
        assert!(program_badge_class("crashed").ends_with("is-crashed"));
        assert_eq!(program_badge_class("none"), "badge program-badge");
        assert!(evaluation_open(EvaluationStatus::Queued) && !evaluation_open(EvaluationStatus::Graded));
        let scenes = vec![
            LibraryScene { name: "diffbot".into(), file: String::new(), about: String::new() },
            LibraryScene { name: "challenges/park".into(), file: String::new(), about: String::new() },
        ];
        assert_eq!(challenge_scenes(scenes).iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["challenges/park"]);
    }
}
