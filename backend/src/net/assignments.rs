//! Assignments over HTTP: creating and changing them, students' submissions (program
//! files or a robot's current program), evaluations and their trials' replays, and the
//! gradebook as JSON and CSV (docs/classroom.md, "Assignments").

use std::sync::Arc;

use axum::Json;
use axum::extract::{FromRequest, Path, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use vlab_protocol::{
    Assignment, AssignmentRequest, EvaluateRequest, Evaluation, Gradebook, Submission, SubmitRobotRequest,
};

use super::extract::{InClass, JsonBody};
use super::uploads::read_upload;
use super::{AppError, AppState};
use crate::classroom::course::{HandIn, gradebook_csv};

fn id_of(what: &str, id: &str) -> Result<i64, AppError> {
    id.parse().map_err(|_| AppError::BadRequest(format!("'{id}' is not {what} id")))
}

/// `POST /api/classes/{class}/assignments` (teacher): 201 with the assignment.
pub async fn create_assignment(
    State(app): State<Arc<AppState>>,
    InClass { class, caller, .. }: InClass,
    JsonBody(request): JsonBody<AssignmentRequest>,
) -> Result<(StatusCode, Json<Assignment>), AppError> {
    Ok((StatusCode::CREATED, Json(app.classroom.course().create_assignment(&class, caller, request).await?)))
}

/// `GET /api/classes/{class}/assignments`.
pub async fn list_assignments(
    State(app): State<Arc<AppState>>,
    InClass { class, caller, .. }: InClass,
) -> Result<Json<Vec<Assignment>>, AppError> {
    Ok(Json(app.classroom.course().assignments(&class, caller)?))
}

/// `PATCH /api/classes/{class}/assignments/{id}` (teacher).
pub async fn change_assignment(
    State(app): State<Arc<AppState>>,
    InClass { class, caller, .. }: InClass,
    Path((_, id)): Path<(String, String)>,
    JsonBody(request): JsonBody<AssignmentRequest>,
) -> Result<Json<Assignment>, AppError> {
    let id = id_of("an assignment", &id)?;
    Ok(Json(app.classroom.course().change_assignment(&class, caller, id, request).await?))
}

/// `POST /api/classes/{class}/assignments/{id}/submissions` (the student herself): a
/// multipart form of program files (or a Python file as the plain body), or a JSON
/// `SubmitRobotRequest`; 202 with the submission, its evaluation queued.
pub async fn submit(
    State(app): State<Arc<AppState>>,
    InClass { class, caller, .. }: InClass,
    Path((_, id)): Path<(String, String)>,
    request: Request,
) -> Result<(StatusCode, Json<Submission>), AppError> {
    let id = id_of("an assignment", &id)?;
    let is_json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("application/json"));
    let hand_in = if is_json {
        let JsonBody(robot) = JsonBody::<SubmitRobotRequest>::from_request(request, &()).await?;
        HandIn::Robot(robot)
    } else {
        HandIn::Files(read_upload(request, "main.py").await?)
    };
    Ok((StatusCode::ACCEPTED, Json(app.classroom.course().submit(&class, caller, id, hand_in).await?)))
}

/// `GET /api/classes/{class}/assignments/{id}/submissions`.
pub async fn list_submissions(
    State(app): State<Arc<AppState>>,
    InClass { class, caller, .. }: InClass,
    Path((_, id)): Path<(String, String)>,
) -> Result<Json<Vec<Submission>>, AppError> {
    let id = id_of("an assignment", &id)?;
    Ok(Json(app.classroom.course().submissions(&class, caller, id)?))
}

/// `GET /api/classes/{class}/submissions/{id}/files/{name}`: the file as it was handed in.
pub async fn submission_file(
    State(app): State<Arc<AppState>>,
    InClass { class, caller, .. }: InClass,
    Path((_, id, name)): Path<(String, String, String)>,
) -> Result<Response, AppError> {
    let id = id_of("a submission", &id)?;
    let bytes = app.classroom.course().submission_file(&class, caller, id, &name)?;
    let kind =
        if name.to_ascii_lowercase().ends_with(".wasm") { "application/wasm" } else { "text/plain; charset=utf-8" };
    Ok(([(header::CONTENT_TYPE, kind)], bytes).into_response())
}

/// `POST /api/classes/{class}/assignments/{id}/evaluate` (teacher): 202 with the new
/// evaluations.
pub async fn evaluate(
    State(app): State<Arc<AppState>>,
    InClass { class, caller, .. }: InClass,
    Path((_, id)): Path<(String, String)>,
    JsonBody(request): JsonBody<EvaluateRequest>,
) -> Result<(StatusCode, Json<Vec<Evaluation>>), AppError> {
    let id = id_of("an assignment", &id)?;
    Ok((StatusCode::ACCEPTED, Json(app.classroom.course().evaluate(&class, caller, id, request)?)))
}

/// `GET /api/classes/{class}/evaluations/{id}`.
pub async fn get_evaluation(
    State(app): State<Arc<AppState>>,
    InClass { class, caller, .. }: InClass,
    Path((_, id)): Path<(String, String)>,
) -> Result<Json<Evaluation>, AppError> {
    let id = id_of("an evaluation", &id)?;
    Ok(Json(app.classroom.course().evaluation(&class, caller, id)?))
}

/// `GET /api/classes/{class}/evaluations/{id}/trials/{n}/replay`: an `AttemptReplay`.
pub async fn trial_replay(
    State(app): State<Arc<AppState>>,
    InClass { class, caller, .. }: InClass,
    Path((_, id, number)): Path<(String, String, String)>,
) -> Result<Response, AppError> {
    let id = id_of("an evaluation", &id)?;
    let number: u32 =
        number.parse().map_err(|_| AppError::BadRequest(format!("'{number}' is not a trial's number (1, 2, ...)")))?;
    let json = app.classroom.course().trial_replay(&class, caller, id, number)?;
    Ok(([(header::CONTENT_TYPE, "application/json")], json).into_response())
}

/// `GET /api/classes/{class}/grades`.
pub async fn grades(
    State(app): State<Arc<AppState>>,
    InClass { class, caller, .. }: InClass,
) -> Result<Json<Gradebook>, AppError> {
    Ok(Json(app.classroom.course().gradebook(&class, caller)?))
}

/// `GET /api/classes/{class}/grades.csv`: the gradebook as a file to download.
pub async fn grades_csv(
    State(app): State<Arc<AppState>>,
    InClass { class, caller, .. }: InClass,
) -> Result<Response, AppError> {
    let book = app.classroom.course().gradebook(&class, caller)?;
    let disposition = format!("attachment; filename=\"{class}-grades.csv\"");
    let headers =
        [(header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()), (header::CONTENT_DISPOSITION, disposition)];
    Ok((headers, gradebook_csv(&book)).into_response())
}
