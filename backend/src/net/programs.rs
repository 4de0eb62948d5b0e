//! Robot programs over HTTP: reading one back, replacing, restarting and stopping it
//! (its owner or the instructor).

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, Request, State};
use vlab_protocol::{ProgramSource, ProgramStatus, SceneUploadReply};

use super::extract::InLab;
use super::uploads::read_upload;
use super::{AppError, AppState};
use vlab_lab::ProgramAction;

/// `GET /api/program-types`: every kind of program this server runs (its `TYPE:`, file
/// endings, whether it is compiled), and whether it can now, or which Debian packages
/// it lacks.
pub async fn program_types() -> Json<Vec<vlab_programs::compile::ProgramTypeInfo>> {
    Json(vlab_programs::compile::program_types())
}

/// `GET /api/labs/{lab}/robots/{robot}/program`: the program's files, for the editor.
pub async fn get_program(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    Path((_, robot)): Path<(String, String)>,
) -> Result<Json<ProgramSource>, AppError> {
    Ok(Json(app.classroom.programs().source(&lab, caller, &robot).await?))
}

/// `PUT /api/labs/{lab}/robots/{robot}/program`: a new program (multipart `program` and
/// its helper files, or a Python file as the plain body).
pub async fn put_program(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    Path((_, robot)): Path<(String, String)>,
    request: Request,
) -> Result<Json<SceneUploadReply>, AppError> {
    let files = read_upload(request, "main.py").await?;
    Ok(Json(app.classroom.uploads().replace_program(&lab, caller, &robot, files).await?))
}

/// `POST /api/labs/{lab}/robots/{robot}/program/restart`.
pub async fn restart_program(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    Path((_, robot)): Path<(String, String)>,
) -> Result<Json<ProgramStatus>, AppError> {
    Ok(Json(app.classroom.programs().run(&lab, caller, &robot, ProgramAction::Restart).await?))
}

/// `POST /api/labs/{lab}/robots/{robot}/program/stop`.
pub async fn stop_program(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    Path((_, robot)): Path<(String, String)>,
) -> Result<Json<ProgramStatus>, AppError> {
    Ok(Json(app.classroom.programs().run(&lab, caller, &robot, ProgramAction::Stop).await?))
}
