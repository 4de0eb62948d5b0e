//! `GET /api/examples`: the example robots of the scene library, for the browser's
//! Add-robot form.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use vlab_protocol::ExampleRobot;

use super::{AppError, AppState};

/// Every example of `scenes/examples/`, sorted by id, read afresh on each call (a
/// teacher may add one while the server runs). Malformed folders are logged and left
/// out.
pub async fn list_examples(State(app): State<Arc<AppState>>) -> Result<Json<Vec<ExampleRobot>>, AppError> {
    let scenes = app.classroom.library().scenes_dir.clone();
    tokio::task::spawn_blocking(move || crate::examples::load_examples(&scenes))
        .await
        .map(Json)
        .map_err(|e| AppError::Internal(format!("reading the examples stopped: {e}")))
}
