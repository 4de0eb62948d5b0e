//! JSON handlers of `/api` (DESIGN.md's HTTP surface) and the page shown when the
//! browser app has not been built.

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use vlab_protocol::{ControlAction, LabState, LabSummary};

use super::auth::require_instructor;
use super::{AppError, AppState};
use crate::lab::LabHandle;

/// `GET /api/health`.
pub async fn health() -> Json<serde_json::Value> {
    Json(serde_json::json!({ "ok": true, "version": env!("CARGO_PKG_VERSION") }))
}

/// `GET /api/labs`.
pub async fn list_labs(State(app): State<Arc<AppState>>) -> Json<Vec<LabSummary>> {
    Json(app.labs.all().iter().map(|lab| lab.summary()).collect())
}

/// `POST /api/labs/{lab}/control` (instructor only): answers with the clock's state once
/// the command took effect (for `step`, once the steps are done).
pub async fn control(
    State(app): State<Arc<AppState>>,
    Path(lab): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<LabState>, AppError> {
    let lab = find_lab(&app, &lab)?;
    require_instructor(&lab, &headers, "control time")?;
    let action: ControlAction = serde_json::from_slice(&body).map_err(|e| {
        AppError::BadRequest(format!(
            "not a control command ({e}); expected e.g. {{\"action\":\"pause\"}}, {{\"action\":\"step\",\"steps\":10}} or {{\"action\":\"rate\",\"rate\":2}}"
        ))
    })?;
    action.validate().map_err(AppError::InvalidArgument)?;
    Ok(Json(lab.control(action).await?))
}

/// Any other `/api/...` path.
pub async fn api_not_found() -> AppError {
    AppError::NotFound("no such API endpoint; see DESIGN.md for the HTTP surface".into())
}

/// `GET /`: the browser app, or an explanation when it has not been built.
pub async fn index(State(app): State<Arc<AppState>>) -> Response {
    match tokio::fs::read_to_string(app.web_dir.join("index.html")).await {
        Ok(page) => Html(page).into_response(),
        Err(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Html(format!(
                "<!doctype html><title>VLab</title><h1>VLab is running, but its browser app is not built</h1>\
                 <p>No <code>index.html</code> in <code>{}</code>. Build it with <code>cargo xtask web</code> \
                 (or start everything with <code>cargo xtask run</code>). The API answers at \
                 <a href=\"/api/labs\">/api/labs</a>.</p>",
                app.web_dir.display()
            )),
        )
            .into_response(),
    }
}

/// The lab with this id, or a 404 that names it.
pub fn find_lab(app: &AppState, id: &str) -> Result<Arc<LabHandle>, AppError> {
    app.labs.get(id).ok_or_else(|| AppError::NotFound(format!("no lab '{id}' on this server")))
}
