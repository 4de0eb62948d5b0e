//! A course, the browser part: its requests (creating a class, signing in, the class,
//! its roster, lessons, assignments, hand-ins, evaluations, the gradebook and its CSV,
//! the overview, a graded trial's replay) and the class sessions kept in `localStorage`.
//!
//! What answers mean is decided in [`super::forms`] (host-tested) and worded by
//! [`crate::api::error_sentence`]; this file only names the requests.

use serde::de::IgnoredAny;
use vlab_protocol::{
    AddStudentRequest, Assignment, AssignmentRequest, AttemptReplay, ClassOverview, ClassView, CreateClassRequest,
    CreateLabRequest, CreatedClass, CreatedLab, EvaluateRequest, Evaluation, Gradebook, Joined, RenameStudentRequest,
    SignInRequest, SignedIn, Student, StudentCredentials, StudentId, Submission, SubmitRobotRequest,
};
use web_sys::Blob;

use super::forms::{CLASS_KEY_PREFIX, StoredClass, class_storage_key};
use crate::api::{ApiError, Body, fetch_blob, fetch_json};
use crate::page::{class_api_path, lab_api_path};
use crate::ui::browser::local_storage;

/// `POST /api/classes` with the server's key: a new class and its teacher's token.
pub async fn create_class(server_key: Option<&str>, name: &str) -> Result<CreatedClass, ApiError> {
    let request = CreateClassRequest { name: name.trim().to_owned() };
    fetch_json("POST", "/api/classes", server_key, Body::json(&request)).await
}

/// `POST /api/classes/sign-in` with class code, name and PIN.
pub async fn sign_in(class_code: &str, name: &str, pin: &str) -> Result<SignedIn, ApiError> {
    let request = SignInRequest {
        class_code: class_code.trim().to_uppercase(),
        name: name.trim().to_owned(),
        pin: pin.trim().to_owned(),
        link: None,
    };
    fetch_json("POST", "/api/classes/sign-in", None, Body::json(&request)).await
}

/// `POST /api/classes/sign-in` with a one-time link's token (used up by it).
pub async fn sign_in_with_link(link: &str) -> Result<SignedIn, ApiError> {
    let request = SignInRequest { link: Some(link.to_owned()), ..SignInRequest::default() };
    fetch_json("POST", "/api/classes/sign-in", None, Body::json(&request)).await
}

/// `GET /api/classes/{class}`: the class as the caller sees it.
pub async fn class_view(class: &str, token: &str) -> Result<ClassView, ApiError> {
    fetch_json("GET", &class_api_path(class, ""), Some(token), Body::Empty).await
}

/// `GET /api/classes/{class}/students` (teacher).
pub async fn roster(class: &str, token: &str) -> Result<Vec<Student>, ApiError> {
    fetch_json("GET", &class_api_path(class, "/students"), Some(token), Body::Empty).await
}

/// `POST /api/classes/{class}/students` (teacher): her PIN and one-time link.
pub async fn add_student(class: &str, token: &str, name: &str) -> Result<StudentCredentials, ApiError> {
    let body = Body::json(&AddStudentRequest { name: name.trim().to_owned() });
    fetch_json("POST", &class_api_path(class, "/students"), Some(token), body).await
}

/// `PATCH /api/classes/{class}/students/{id}` (teacher).
pub async fn rename_student(class: &str, token: &str, id: StudentId, name: &str) -> Result<Student, ApiError> {
    let body = Body::json(&RenameStudentRequest { name: name.trim().to_owned() });
    fetch_json("PATCH", &class_api_path(class, &format!("/students/{id}")), Some(token), body).await
}

/// `DELETE /api/classes/{class}/students/{id}` (teacher).
pub async fn remove_student(class: &str, token: &str, id: StudentId) -> Result<(), ApiError> {
    let path = class_api_path(class, &format!("/students/{id}"));
    fetch_json::<IgnoredAny>("DELETE", &path, Some(token), Body::Empty).await.map(drop)
}

/// `POST /api/classes/{class}/students/{id}/reset` (teacher): a new PIN and link.
pub async fn reset_student(class: &str, token: &str, id: StudentId) -> Result<StudentCredentials, ApiError> {
    fetch_json("POST", &class_api_path(class, &format!("/students/{id}/reset")), Some(token), Body::Empty).await
}

/// `POST /api/classes/{class}/labs` (teacher): a lesson from a scene of the library.
pub async fn create_lesson(class: &str, token: &str, request: &CreateLabRequest) -> Result<CreatedLab, ApiError> {
    fetch_json("POST", &class_api_path(class, "/labs"), Some(token), Body::json(request)).await
}

/// `POST /api/labs/{lab}/enter` with the class session: her place in the lesson.
pub async fn enter_lesson(lab: &str, token: &str) -> Result<Joined, ApiError> {
    fetch_json("POST", &lab_api_path(lab, "/enter"), Some(token), Body::Empty).await
}

/// `GET /api/classes/{class}/overview` (teacher).
pub async fn overview(class: &str, token: &str) -> Result<ClassOverview, ApiError> {
    fetch_json("GET", &class_api_path(class, "/overview"), Some(token), Body::Empty).await
}

/// `POST /api/classes/{class}/assignments` (teacher).
pub async fn create_assignment(class: &str, token: &str, request: &AssignmentRequest) -> Result<Assignment, ApiError> {
    fetch_json("POST", &class_api_path(class, "/assignments"), Some(token), Body::json(request)).await
}

/// `POST .../assignments/{id}/submissions`: a hand-in, program files (`Body::Parts`) or
/// a robot of hers (`SubmitRobotRequest`).
pub async fn submit(class: &str, token: &str, assignment: i64, body: Body) -> Result<Submission, ApiError> {
    let path = class_api_path(class, &format!("/assignments/{assignment}/submissions"));
    fetch_json("POST", &path, Some(token), body).await
}

/// The body handing in `robot` of `lab` as it runs now.
pub fn robot_hand_in(lab: &str, robot: &str) -> Body {
    Body::json(&SubmitRobotRequest { lab: lab.to_owned(), robot: robot.to_owned() })
}

/// `GET .../assignments/{id}/submissions`: the teacher's all, a student's her own.
pub async fn submissions(class: &str, token: &str, assignment: i64) -> Result<Vec<Submission>, ApiError> {
    let path = class_api_path(class, &format!("/assignments/{assignment}/submissions"));
    fetch_json("GET", &path, Some(token), Body::Empty).await
}

/// `POST .../assignments/{id}/evaluate` (teacher): one student's latest hand-in, or
/// everybody's, run again.
pub async fn evaluate(class: &str, token: &str, assignment: i64, student: Option<StudentId>) -> Result<(), ApiError> {
    let path = class_api_path(class, &format!("/assignments/{assignment}/evaluate"));
    let body = Body::json(&EvaluateRequest { student });
    fetch_json::<IgnoredAny>("POST", &path, Some(token), body).await.map(drop)
}

/// `GET /api/classes/{class}/evaluations/{id}`: its trials and grade.
pub async fn evaluation(class: &str, token: &str, id: i64) -> Result<Evaluation, ApiError> {
    fetch_json("GET", &class_api_path(class, &format!("/evaluations/{id}")), Some(token), Body::Empty).await
}

/// `GET .../evaluations/{id}/trials/{n}/replay`: the trial as recorded.
pub async fn trial_replay(class: &str, token: &str, evaluation: i64, trial: u32) -> Result<AttemptReplay, ApiError> {
    let path = class_api_path(class, &format!("/evaluations/{evaluation}/trials/{trial}/replay"));
    fetch_json("GET", &path, Some(token), Body::Empty).await
}

/// `GET /api/classes/{class}/grades`: students × assignments (a student: her row).
pub async fn gradebook(class: &str, token: &str) -> Result<Gradebook, ApiError> {
    fetch_json("GET", &class_api_path(class, "/grades"), Some(token), Body::Empty).await
}

/// `GET /api/classes/{class}/grades.csv`, fetched with the token a plain link cannot carry.
pub async fn gradebook_csv(class: &str, token: &str) -> Result<Blob, ApiError> {
    fetch_blob(&class_api_path(class, "/grades.csv"), Some(token)).await
}

/// The class session this browser holds in `class`, if any.
pub fn stored_class(class: &str) -> Option<StoredClass> {
    let text = local_storage()?.get_item(&class_storage_key(class)).ok().flatten()?;
    StoredClass::from_json(&text).filter(|session| session.class == class)
}

/// Keeps `session` for its class (replacing an older one).
pub fn store_class(session: &StoredClass) {
    if let Some(storage) = local_storage() {
        // A full or disabled storage only costs the session across tabs.
        let _ = storage.set_item(&class_storage_key(&session.class), &session.to_json());
    }
}

/// Forgets the session held in `class` if its token is `token` (the server refused it).
pub fn forget_class(class: &str, token: &str) {
    if stored_class(class).is_some_and(|session| session.token == token)
        && let Some(storage) = local_storage()
    {
        let _ = storage.remove_item(&class_storage_key(class));
    }
}

/// Every class session this browser holds, by class id.
pub fn stored_classes() -> Vec<StoredClass> {
    let Some(storage) = local_storage() else { return Vec::new() };
    let count = storage.length().unwrap_or(0);
    let mut sessions: Vec<StoredClass> = (0..count)
        .filter_map(|index| storage.key(index).ok().flatten())
        .filter(|key| key.starts_with(CLASS_KEY_PREFIX))
        .filter_map(|key| storage.get_item(&key).ok().flatten())
        .filter_map(|text| StoredClass::from_json(&text))
        .collect();
    sessions.sort_by(|a, b| a.class.cmp(&b.class));
    sessions
}

/// The class whose session `token` is, if this browser or tab signed in with it: a
/// lesson's lab page, entered with the class's token, links back to its class.
pub fn class_of_token(token: &str) -> Option<String> {
    let in_tab = crate::ui::browser::link_tokens_under("class:")
        .into_iter()
        .find(|(_, kept)| kept == token)
        .and_then(|(name, _)| name.strip_prefix("class:").map(str::to_owned));
    in_tab.or_else(|| stored_classes().into_iter().find(|session| session.token == token).map(|session| session.class))
}
