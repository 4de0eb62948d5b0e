//! Attempts at a lab's challenge over HTTP: starting one for a robot, and reading how
//! it goes (its owner or the instructor; docs/challenges.md, "Attempts").

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use vlab_protocol::{AttemptReport, AttemptRequest, ChallengeBoard, RunRequest};

use super::extract::InLab;
use super::{AppError, AppState};
use crate::classroom::ClassroomError;

/// `POST /api/labs/{lab}/robots/{robot}/attempts`: `{"seed": N}` or nothing → 202 and
/// the attempt as queued.
pub async fn start_attempt(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    Path((_, robot)): Path<(String, String)>,
    body: Bytes,
) -> Result<(StatusCode, Json<AttemptReport>), AppError> {
    let request: AttemptRequest = if body.iter().all(u8::is_ascii_whitespace) {
        AttemptRequest::default()
    } else {
        serde_json::from_slice(&body).map_err(|e| {
            ClassroomError::Unreadable(format!("an attempt's request is {{\"seed\": N}} or nothing: {e}"))
        })?
    };
    let report = app.classroom.attempts().start(&lab, caller, &robot, request).await?;
    Ok((StatusCode::ACCEPTED, Json(report)))
}

/// `GET /api/labs/{lab}/attempts/{id}`.
pub async fn get_attempt(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    Path((_, id)): Path<(String, u64)>,
) -> Result<Json<AttemptReport>, AppError> {
    Ok(Json(app.classroom.attempts().report(&lab, caller, id)?))
}

/// `GET /api/labs/{lab}/attempts`: the caller's attempts (the instructor's: everybody's),
/// newest first.
pub async fn list_attempts(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
) -> Result<Json<Vec<AttemptReport>>, AppError> {
    Ok(Json(app.classroom.attempts().list(&lab, caller)?))
}

/// `GET /api/labs/{lab}/attempts/{id}/replay`: the attempt as recorded (JSON).
pub async fn get_replay(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    Path((_, id)): Path<(String, u64)>,
) -> Result<Response, AppError> {
    let json = app.classroom.attempts().replay_json(&lab, caller, id)?;
    Ok(([(header::CONTENT_TYPE, "application/json")], json).into_response())
}

/// `GET /api/labs/{lab}/attempts/{id}/recording.mcap`: the attempt as MCAP.
pub async fn get_replay_mcap(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    Path((_, id)): Path<(String, u64)>,
) -> Result<Response, AppError> {
    let bytes = app.classroom.attempts().replay_mcap(&lab, caller, id)?;
    let disposition = format!("attachment; filename=\"{}-attempt-{id}.mcap\"", lab.id());
    Ok((
        [(header::CONTENT_TYPE, "application/octet-stream".to_owned()), (header::CONTENT_DISPOSITION, disposition)],
        bytes,
    )
        .into_response())
}

/// `GET /api/labs/{lab}/challenge`: the challenge and the board's rows the caller may see.
pub async fn get_board(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
) -> Result<Json<ChallengeBoard>, AppError> {
    Ok(Json(app.classroom.attempts().board(&lab, caller).await?))
}

/// `POST /api/labs/{lab}/challenge/run`: `{"action": "start"}` or `{"action": "stop"}`
/// (instructor) → the board.
pub async fn run_challenge(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    body: Bytes,
) -> Result<Json<ChallengeBoard>, AppError> {
    let request: RunRequest = serde_json::from_slice(&body).map_err(|e| {
        ClassroomError::Unreadable(format!(
            "a run's request is {{\"action\": \"start\"}} or {{\"action\": \"stop\"}}: {e}"
        ))
    })?;
    Ok(Json(app.classroom.attempts().run(&lab, caller, request).await?))
}
