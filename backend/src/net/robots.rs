//! A lab's robots and objects over HTTP: inspecting a robot, commanding its actuators by
//! hand, resetting it, moving its start or removing it, and the instructor moving any
//! object.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde_json::Value;
use vlab_protocol::{NewStart, RobotReport};

use super::extract::{Example, InLab, JsonBody, ReaderIn};
use super::{AppError, AppState};

/// `GET /api/labs/{lab}/robots/{robot}`: anybody sees every robot; its owner and the
/// instructor also get its console's latest lines.
pub async fn get_robot(
    State(app): State<Arc<AppState>>,
    ReaderIn { lab, caller }: ReaderIn,
    Path((_, robot)): Path<(String, String)>,
) -> Result<Json<RobotReport>, AppError> {
    Ok(Json(app.classroom.robots().report(&lab, caller, &robot).await?))
}

/// `POST /api/labs/{lab}/robots/{robot}/actuators` with `{"motor": {"speed": 6.0}, ...}`:
/// all the commands or none, acting from the next step; the robot's report.
pub async fn command_actuators(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    Path((_, robot)): Path<(String, String)>,
    JsonBody(commands): JsonBody<BTreeMap<String, Value>>,
) -> Result<Json<RobotReport>, AppError> {
    Ok(Json(app.classroom.robots().actuate(&lab, caller, &robot, commands).await?))
}

/// `DELETE /api/labs/{lab}/robots/{robot}` (its owner or the instructor).
pub async fn remove_robot(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    Path((_, robot)): Path<(String, String)>,
) -> Result<StatusCode, AppError> {
    app.classroom.robots().remove(&lab, caller, &robot).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/labs/{lab}/robots/{robot}/reset` (its owner or the instructor): back to
/// its start pose, at rest, its counts and commands as the scene declares them.
pub async fn reset_robot(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    Path((_, robot)): Path<(String, String)>,
) -> Result<Json<RobotReport>, AppError> {
    Ok(Json(app.classroom.robots().reset(&lab, caller, &robot).await?))
}

impl Example for NewStart {
    const EXAMPLE: &'static str = r#"{"position": [1, 0.1, 3], "heading": 1.57}"#;
}

/// `POST /api/labs/{lab}/robots/{robot}/start` (its owner or the instructor): the start
/// a reset puts it back at, `{"position": [x, y, z], "heading": rad}`; the robot stays
/// where it is.
pub async fn set_start(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    Path((_, robot)): Path<(String, String)>,
    JsonBody(start): JsonBody<NewStart>,
) -> Result<StatusCode, AppError> {
    app.classroom.robots().set_start(&lab, caller, &robot, start).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Where to move an object.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveRequest {
    position: [f32; 3],
    #[serde(default)]
    heading: Option<f32>,
}

impl Example for MoveRequest {
    const EXAMPLE: &'static str = r#"{"position": [1, 0.2, 3], "heading": 1.57}"#;
}

/// `POST /api/labs/{lab}/objects/{name}/move` (the instructor, as supervisor): a body,
/// or a whole robot, to `{"position": [x, y, z], "heading": rad}`, at rest.
pub async fn move_object(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    Path((_, name)): Path<(String, String)>,
    JsonBody(request): JsonBody<MoveRequest>,
) -> Result<StatusCode, AppError> {
    app.classroom.robots().move_object(&lab, caller, &name, request.position, request.heading).await?;
    Ok(StatusCode::NO_CONTENT)
}
