//! The classroom over HTTP: creating, reading, saving (as a scene) and closing labs,
//! the scene library, joining with a code, participants (and removing one), a new join
//! code, settings and notices, the room.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use vlab_protocol::{
    BroadcastRequest, CreateLabRequest, CreatedLab, JoinCode, JoinRequest, Joined, LabSettings, LabSettingsPatch,
    LabSummary, Participant, RoomChange, RoomView, UserId,
};

use super::extract::{Bearer, InLab, JsonBody, ReaderIn};
use super::{AppError, AppState};

/// `POST /api/labs` (the server key, unless labs are open): 201 with the new lab's id,
/// join code and instructor token.
pub async fn create_lab(
    State(app): State<Arc<AppState>>,
    Bearer(key): Bearer,
    JsonBody(request): JsonBody<CreateLabRequest>,
) -> Result<(StatusCode, Json<CreatedLab>), AppError> {
    Ok((StatusCode::CREATED, Json(app.classroom.labs().create(key.as_deref(), request).await?)))
}

/// `GET /api/labs/{lab}`: the join code too, for the instructor.
pub async fn get_lab(State(app): State<Arc<AppState>>, InLab { lab, caller }: InLab) -> Json<LabSummary> {
    Json(app.classroom.labs().summary(&lab, caller))
}

/// `DELETE /api/labs/{lab}` (instructor): closes the lab for everybody.
pub async fn close_lab(State(app): State<Arc<AppState>>, InLab { lab, caller }: InLab) -> Result<StatusCode, AppError> {
    app.classroom.labs().close(&lab, caller).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /api/labs/{lab}/scene.vlab` (instructor): the lab's world now as a scene, to
/// download.
pub async fn save_scene(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
) -> Result<([(axum::http::HeaderName, String); 2], String), AppError> {
    let saved = app.classroom.saving().vlab(&lab, caller).await?;
    let disposition = format!("attachment; filename=\"{}\"", saved.file_name);
    Ok(([(CONTENT_TYPE, "text/plain; charset=utf-8".to_owned()), (CONTENT_DISPOSITION, disposition)], saved.text))
}

/// `GET /api/labs/{lab}/scene.zip` (instructor): the same with the program files and
/// meshes it names.
pub async fn save_scene_zip(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
) -> Result<([(axum::http::HeaderName, String); 2], Vec<u8>), AppError> {
    let saved = app.classroom.saving().zip(&lab, caller).await?;
    let disposition = format!("attachment; filename=\"{}\"", saved.file_name);
    Ok(([(CONTENT_TYPE, "application/zip".to_owned()), (CONTENT_DISPOSITION, disposition)], saved.bytes))
}

/// `GET /api/scenes`: the scene library a lab can be created from.
pub async fn list_scenes(State(app): State<Arc<AppState>>) -> Json<Vec<serde_json::Value>> {
    Json(app.classroom.labs().scene_library())
}

/// `POST /api/labs/{lab}/join`: a student joins with the code and a display name.
pub async fn join_lab(
    State(app): State<Arc<AppState>>,
    Path(lab): Path<String>,
    JsonBody(request): JsonBody<JoinRequest>,
) -> Result<Json<Joined>, AppError> {
    let lab = app.classroom.lab(&lab)?;
    Ok(Json(app.classroom.people().join(&lab, &request).await?))
}

/// `POST /api/join`: the same, finding the lab by its code.
pub async fn join_by_code(
    State(app): State<Arc<AppState>>,
    JsonBody(request): JsonBody<JoinRequest>,
) -> Result<Json<Joined>, AppError> {
    Ok(Json(app.classroom.people().join_by_code(&request).await?))
}

/// `GET /api/labs/{lab}/participants`.
pub async fn participants(
    State(app): State<Arc<AppState>>,
    Path(lab): Path<String>,
) -> Result<Json<Vec<Participant>>, AppError> {
    Ok(Json(app.classroom.lab(&lab)?.people().list()))
}

/// `DELETE /api/labs/{lab}/participants/{id}` (instructor): the student leaves the lab,
/// their robots with them.
pub async fn remove_participant(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    Path((_, id)): Path<(String, String)>,
) -> Result<StatusCode, AppError> {
    let id: UserId = id
        .parse()
        .map_err(|_| AppError::BadRequest(format!("'{id}' is not a participant id: GET participants lists them")))?;
    app.classroom.people().remove(&lab, caller, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/labs/{lab}/join-code` (instructor): a new join code; the old one stops
/// admitting anybody.
pub async fn change_join_code(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
) -> Result<Json<JoinCode>, AppError> {
    Ok(Json(app.classroom.people().change_join_code(&lab, caller)?))
}

/// `PATCH /api/labs/{lab}/settings` (instructor).
pub async fn update_settings(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    JsonBody(patch): JsonBody<LabSettingsPatch>,
) -> Result<Json<LabSettings>, AppError> {
    Ok(Json(app.classroom.people().update_settings(&lab, caller, patch)?))
}

/// `GET /api/labs/{lab}/environment`: the lab's room as it stands.
pub async fn room(
    State(app): State<Arc<AppState>>,
    ReaderIn { lab, caller }: ReaderIn,
) -> Result<Json<RoomView>, AppError> {
    Ok(Json(app.classroom.room().now(&lab, caller).await?))
}

/// `PATCH /api/labs/{lab}/environment` (instructor): the room changed while the lab runs;
/// the room after the change.
pub async fn change_room(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    JsonBody(change): JsonBody<RoomChange>,
) -> Result<Json<RoomView>, AppError> {
    Ok(Json(app.classroom.room().change(&lab, caller, change).await?))
}

/// `POST /api/labs/{lab}/broadcast` (instructor): a notice to everybody in the lab.
pub async fn broadcast(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    JsonBody(request): JsonBody<BroadcastRequest>,
) -> Result<StatusCode, AppError> {
    app.classroom.people().notice(&lab, caller, &request.message)?;
    Ok(StatusCode::NO_CONTENT)
}
