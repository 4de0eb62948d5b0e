//! Attempts at a lab's challenge over HTTP: starting one for a robot, and reading how
//! it goes (its owner or the instructor; docs/challenges.md, "Attempts").

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use vlab_protocol::{AttemptReport, AttemptRequest};

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
