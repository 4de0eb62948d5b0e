//! The lab-wide JSON handlers of `/api` (health, the lab list, time control) and the
//! page shown when the browser app has not been built.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use vlab_protocol::{ControlAction, LabState, LabSummary};

use super::extract::{Example, InLab, JsonBody};
use super::{AppError, AppState};
use crate::store::StoreError;

/// `GET /api/health`: the server answers, and whether its database does.
pub async fn health(State(app): State<Arc<AppState>>) -> Json<serde_json::Value> {
    let database = match app.classroom.database_health() {
        Ok(()) => "ok".to_owned(),
        Err(StoreError::Unavailable { reason, .. }) => format!("unavailable: {reason}"),
        Err(error) => format!("failing: {error}"),
    };
    let mut health = serde_json::json!({ "ok": true, "version": env!("CARGO_PKG_VERSION"), "database": database });
    if let Some(peers) = &app.peers {
        health["cluster"] = peers.health().into();
        health["server"] = peers.me().into();
    }
    Json(health)
}

/// `GET /api/labs`.
pub async fn list_labs(State(app): State<Arc<AppState>>) -> Json<Vec<LabSummary>> {
    Json(app.classroom.labs().summaries())
}

/// `POST /api/labs/{lab}/control` (instructor): the clock's state once the command took
/// effect (for `step`, once the steps are done).
pub async fn control(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    JsonBody(action): JsonBody<ControlAction>,
) -> Result<Json<LabState>, AppError> {
    Ok(Json(app.classroom.clock().control(&lab, caller, action).await?))
}

/// The body of `POST /api/labs/{lab}/rewind`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RewindRequest {
    /// The step of the current run to go back to.
    step: u64,
}

impl Example for RewindRequest {
    const EXAMPLE: &'static str = r#"{"step": 4800}"#;
}

/// The answer to `POST /api/labs/{lab}/rewind`: the clock's state, and how much was
/// re-simulated to get there (what a rewind costs the class: see docs/recording.md).
#[derive(serde::Serialize)]
pub struct RewindAnswer {
    /// The clock, paused at the step rewound to.
    #[serde(flatten)]
    state: LabState,
    /// The step re-simulation started from: the nearest checkpoint at or before the
    /// step rewound to (0: the run's start).
    resimulated_from: u64,
    /// How many steps were re-simulated.
    resimulated_steps: u64,
}

/// `POST /api/labs/{lab}/rewind` (instructor): the lab re-simulated to a recorded step of
/// its current run, paused there; answers with the clock's state.
pub async fn rewind(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    JsonBody(request): JsonBody<RewindRequest>,
) -> Result<Json<RewindAnswer>, AppError> {
    let rewound = app.classroom.timeline().rewind(&lab, caller, request.step).await?;
    let resimulated_steps = rewound.state.step - rewound.from;
    Ok(Json(RewindAnswer { state: rewound.state, resimulated_from: rewound.from, resimulated_steps }))
}

/// Any other `/api/...` path.
pub async fn api_not_found() -> AppError {
    AppError::NoEndpoint("no such API endpoint; docs/api.md lists the HTTP surface".into())
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
