//! The classroom, the browser part: its requests (the labs, joining, creating, the lab's settings, its room, notices, a new join code, removing a participant, closing the lab, resetting robots, moving their starts and removing them) and the sessions kept per lab in `localStorage`.
//!
//! What answers mean is decided in [`super::forms`] (host-tested) and worded by
//! [`crate::api::error_sentence`]; this file only names the requests.

use serde::de::IgnoredAny;
use vlab_protocol::{
    AddObjectRequest, CreatedLab, JoinCode, JoinRequest, Joined, LabSettings, LabSettingsPatch, LabSummary, NewStart,
    RoomChange, RoomView, SceneUploadReply, UserId,
};

use super::forms::{LibraryScene, SESSION_KEY_PREFIX, StoredSession, session_storage_key};
use crate::api::{ApiError, Body, fetch_json};
use crate::page::{lab_api_path, object_api_path, robot_api_path};
use crate::ui::browser::local_storage;

/// `GET /api/labs`: the open labs.
pub async fn list_labs() -> Result<Vec<LabSummary>, ApiError> {
    fetch_json("GET", "/api/labs", None, Body::Empty).await
}

/// `GET /api/scenes`: the scene library.
pub async fn library_scenes() -> Result<Vec<LibraryScene>, ApiError> {
    fetch_json("GET", "/api/scenes", None, Body::Empty).await
}

/// `POST /api/join`: a session in the lab of `join_code`, known as `name`.
pub async fn join(join_code: &str, name: &str) -> Result<Joined, ApiError> {
    let request = JoinRequest { join_code: join_code.trim().to_owned(), name: name.trim().to_owned() };
    fetch_json("POST", "/api/join", None, Body::json(&request)).await
}

/// `POST /api/labs` with the server's key: a new lab (`body` from [`super::forms::create_lab_body`]).
pub async fn create_lab(server_key: Option<&str>, body: String) -> Result<CreatedLab, ApiError> {
    fetch_json("POST", "/api/labs", server_key, Body::Json(body)).await
}

/// `GET /api/labs/{lab}`: the lab as its instructor sees it (with its join code).
pub async fn lab_summary(lab: &str, token: Option<&str>) -> Result<LabSummary, ApiError> {
    fetch_json("GET", &lab_api_path(lab, ""), token, Body::Empty).await
}

/// `PATCH /api/labs/{lab}/settings`: the settings after the change.
pub async fn change_settings(
    lab: &str,
    token: Option<&str>,
    change: &LabSettingsPatch,
) -> Result<LabSettings, ApiError> {
    fetch_json("PATCH", &lab_api_path(lab, "/settings"), token, Body::json(change)).await
}

/// `GET /api/labs/{lab}/environment`: the lab's room as it stands.
pub async fn room(lab: &str, token: Option<&str>) -> Result<RoomView, ApiError> {
    fetch_json("GET", &lab_api_path(lab, "/environment"), token, Body::Empty).await
}

/// `PATCH /api/labs/{lab}/environment`: the room after the change.
pub async fn change_room(lab: &str, token: Option<&str>, change: &RoomChange) -> Result<RoomView, ApiError> {
    fetch_json("PATCH", &lab_api_path(lab, "/environment"), token, Body::json(change)).await
}

/// `POST /api/labs/{lab}/broadcast`: a notice to everybody (`body` from [`super::forms::broadcast_body`]).
pub async fn broadcast(lab: &str, token: Option<&str>, body: String) -> Result<(), ApiError> {
    fetch_json::<IgnoredAny>("POST", &lab_api_path(lab, "/broadcast"), token, Body::Json(body)).await.map(drop)
}

/// `POST /api/labs/{lab}/join-code`: a new join code (the old one stops admitting anybody).
pub async fn new_join_code(lab: &str, token: Option<&str>) -> Result<JoinCode, ApiError> {
    fetch_json("POST", &lab_api_path(lab, "/join-code"), token, Body::Empty).await
}

/// `DELETE /api/labs/{lab}/participants/{id}`: the student leaves the lab, their robots with them.
pub async fn remove_participant(lab: &str, id: UserId, token: Option<&str>) -> Result<(), ApiError> {
    let path = lab_api_path(lab, &format!("/participants/{id}"));
    fetch_json::<IgnoredAny>("DELETE", &path, token, Body::Empty).await.map(drop)
}

/// `DELETE /api/labs/{lab}`: closes the lab for everybody.
pub async fn close_lab(lab: &str, token: Option<&str>) -> Result<(), ApiError> {
    fetch_json::<IgnoredAny>("DELETE", &lab_api_path(lab, ""), token, Body::Empty).await.map(drop)
}

/// `POST .../robots/{robot}/reset`: the robot back at its start.
pub async fn reset_robot(lab: &str, robot: &str, token: Option<&str>) -> Result<(), ApiError> {
    fetch_json::<IgnoredAny>("POST", &robot_api_path(lab, robot, "/reset"), token, Body::Empty).await.map(drop)
}

/// `POST .../robots/{robot}/start`: the start a reset puts the robot back at.
pub async fn set_start(lab: &str, robot: &str, start: &NewStart, token: Option<&str>) -> Result<(), ApiError> {
    fetch_json::<IgnoredAny>("POST", &robot_api_path(lab, robot, "/start"), token, Body::json(start)).await.map(drop)
}

/// `DELETE .../robots/{robot}`: the robot out of the lab.
pub async fn remove_robot(lab: &str, robot: &str, token: Option<&str>) -> Result<(), ApiError> {
    fetch_json::<IgnoredAny>("DELETE", &robot_api_path(lab, robot, ""), token, Body::Empty).await.map(drop)
}

/// The session this browser holds in `lab`, if any.
pub fn stored_session(lab: &str) -> Option<StoredSession> {
    let text = local_storage()?.get_item(&session_storage_key(lab)).ok().flatten()?;
    StoredSession::from_json(&text).filter(|session| session.lab == lab)
}

/// Keeps `session` for its lab (replacing an older one).
pub fn store_session(session: &StoredSession) {
    if let Some(storage) = local_storage() {
        // A full or disabled storage only costs the identity across reloads.
        let _ = storage.set_item(&session_storage_key(&session.lab), &session.to_json());
    }
}

/// Forgets the session held in `lab` if its token is `token` (the server refused it).
pub fn forget_session(lab: &str, token: &str) {
    if stored_session(lab).is_some_and(|session| session.token == token)
        && let Some(storage) = local_storage()
    {
        let _ = storage.remove_item(&session_storage_key(lab));
    }
}

/// Every session this browser holds, by lab id.
pub fn stored_sessions() -> Vec<StoredSession> {
    let Some(storage) = local_storage() else { return Vec::new() };
    let count = storage.length().unwrap_or(0);
    let mut sessions: Vec<StoredSession> = (0..count)
        .filter_map(|index| storage.key(index).ok().flatten())
        .filter(|key| key.starts_with(SESSION_KEY_PREFIX))
        .filter_map(|key| storage.get_item(&key).ok().flatten())
        .filter_map(|text| StoredSession::from_json(&text))
        .collect();
    sessions.sort_by(|a, b| a.lab.cmp(&b.lab));
    sessions
}

/// `POST /api/labs/{lab}/objects`: palette item `id` on a clear spot of the floor; the
/// reply names what went in.
pub async fn add_palette_item(lab: &str, id: &str, token: Option<&str>) -> Result<SceneUploadReply, ApiError> {
    let request = AddObjectRequest { palette: id.to_owned(), ..AddObjectRequest::default() };
    fetch_json("POST", &lab_api_path(lab, "/objects"), token, Body::json(&request)).await
}

/// `DELETE /api/labs/{lab}/objects/{name}`: one's own object (the instructor: any).
pub async fn remove_object(lab: &str, name: &str, token: Option<&str>) -> Result<(), ApiError> {
    fetch_json::<IgnoredAny>("DELETE", &object_api_path(lab, name), token, Body::Empty).await.map(drop)
}
