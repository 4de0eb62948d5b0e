//! Classes over HTTP: creating one, signing in, the roster, lessons, entering a lesson
//! and the teacher's overview (docs/classroom.md, "Running a course").

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use vlab_protocol::{
    AddStudentRequest, ClassOverview, ClassView, CreateClassRequest, CreateLabRequest, CreatedClass, CreatedLab,
    Joined, RenameStudentRequest, SignInRequest, SignedIn, Student, StudentCredentials, StudentId,
};

use super::extract::{Bearer, InClass, JsonBody, bearer_token};
use super::{AppError, AppState};

/// `POST /api/classes` (the server key): 201 with the class's id, code and teacher token.
pub async fn create_class(
    State(app): State<Arc<AppState>>,
    Bearer(key): Bearer,
    JsonBody(request): JsonBody<CreateClassRequest>,
) -> Result<(StatusCode, Json<CreatedClass>), AppError> {
    Ok((StatusCode::CREATED, Json(app.classroom.course().create_class(key.as_deref(), &request)?)))
}

/// `POST /api/classes/sign-in`: a class session for a student.
pub async fn sign_in(
    State(app): State<Arc<AppState>>,
    JsonBody(request): JsonBody<SignInRequest>,
) -> Result<Json<SignedIn>, AppError> {
    Ok(Json(app.classroom.course().sign_in(&request).await?))
}

/// `GET /api/classes/{class}`.
pub async fn get_class(
    State(app): State<Arc<AppState>>,
    InClass { class, caller, .. }: InClass,
) -> Result<Json<ClassView>, AppError> {
    Ok(Json(app.classroom.course().view(&class, caller)?))
}

/// `GET /api/classes/{class}/students` (teacher).
pub async fn roster(
    State(app): State<Arc<AppState>>,
    InClass { class, caller, .. }: InClass,
) -> Result<Json<Vec<Student>>, AppError> {
    Ok(Json(app.classroom.course().roster(&class, caller)?))
}

/// `POST /api/classes/{class}/students` (teacher): 201 with her PIN and one-time link.
pub async fn add_student(
    State(app): State<Arc<AppState>>,
    InClass { class, caller, .. }: InClass,
    JsonBody(request): JsonBody<AddStudentRequest>,
) -> Result<(StatusCode, Json<StudentCredentials>), AppError> {
    Ok((StatusCode::CREATED, Json(app.classroom.course().add_student(&class, caller, &request.name).await?)))
}

fn student_id(id: &str) -> Result<StudentId, AppError> {
    id.parse().map_err(|_| AppError::BadRequest(format!("'{id}' is not a student id: GET students lists them")))
}

/// `PATCH /api/classes/{class}/students/{id}` (teacher).
pub async fn rename_student(
    State(app): State<Arc<AppState>>,
    InClass { class, caller, .. }: InClass,
    Path((_, id)): Path<(String, String)>,
    JsonBody(request): JsonBody<RenameStudentRequest>,
) -> Result<Json<Student>, AppError> {
    Ok(Json(app.classroom.course().rename_student(&class, caller, student_id(&id)?, &request.name)?))
}

/// `DELETE /api/classes/{class}/students/{id}` (teacher).
pub async fn remove_student(
    State(app): State<Arc<AppState>>,
    InClass { class, caller, .. }: InClass,
    Path((_, id)): Path<(String, String)>,
) -> Result<StatusCode, AppError> {
    app.classroom.course().remove_student(&class, caller, student_id(&id)?).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/classes/{class}/students/{id}/reset` (teacher): a new PIN and link.
pub async fn reset_student(
    State(app): State<Arc<AppState>>,
    InClass { class, caller, .. }: InClass,
    Path((_, id)): Path<(String, String)>,
) -> Result<Json<StudentCredentials>, AppError> {
    Ok(Json(app.classroom.course().reset_student(&class, caller, student_id(&id)?).await?))
}

/// `POST /api/classes/{class}/labs` (teacher): 201 with the lesson (its instructor
/// token is the teacher's).
pub async fn create_lesson(
    State(app): State<Arc<AppState>>,
    InClass { class, caller, token }: InClass,
    JsonBody(request): JsonBody<CreateLabRequest>,
) -> Result<(StatusCode, Json<CreatedLab>), AppError> {
    let token = token.unwrap_or_default();
    Ok((StatusCode::CREATED, Json(app.classroom.course().create_lesson(&class, caller, &token, request).await?)))
}

/// `POST /api/labs/{lab}/enter` (a class session): into a lesson without its code.
pub async fn enter_lesson(
    State(app): State<Arc<AppState>>,
    Path(lab): Path<String>,
    headers: axum::http::HeaderMap,
) -> Result<Json<Joined>, AppError> {
    let lab = app.classroom.lab(&lab)?;
    Ok(Json(app.classroom.course().enter(&lab, bearer_token(&headers)?).await?))
}

/// `GET /api/classes/{class}/overview` (teacher).
pub async fn overview(
    State(app): State<Arc<AppState>>,
    InClass { class, caller, .. }: InClass,
) -> Result<Json<ClassOverview>, AppError> {
    Ok(Json(app.classroom.course().overview(&class, caller).await?))
}
