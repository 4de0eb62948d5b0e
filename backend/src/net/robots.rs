//! A lab's robots and objects over HTTP: inspecting a robot (true pose, every sensor
//! true and measured with its sim time, actuators, program), commanding its actuators
//! by hand, removing it or putting it back at its start (owner or instructor), and the
//! instructor moving any object as supervisor.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use serde_json::Value;
use vlab_protocol::RobotReport;

use super::auth::{bearer_token, require_instructor, require_owner_or_instructor};
use super::http::find_lab;
use super::{AppError, AppState};
use crate::lab::Caller;

/// `GET /api/labs/{lab}/robots/{robot}`: anybody in the lab sees every robot; its
/// owner and the instructor also get its console's latest lines.
pub async fn get_robot(
    State(app): State<Arc<AppState>>,
    Path((lab, robot)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Json<RobotReport>, AppError> {
    let lab = find_lab(&app, &lab)?;
    // Reading is open to anybody: a token of another lab only reads as a viewer.
    let caller = lab.caller(bearer_token(&headers)?).unwrap_or(Caller::Viewer);
    let mut report = lab.robot_report(&robot).await?.ok_or_else(|| no_robot(lab.id(), &robot))?;
    if caller.may_read_console(lab.owner_of(&robot)) {
        report.console = Some(lab.program(&robot).await?.map(|(_, lines)| lines).unwrap_or_default());
    }
    Ok(Json(report))
}

/// `POST /api/labs/{lab}/robots/{robot}/actuators` with `{"motor": {"speed": 6.0}, ...}`:
/// all the commands or none; they act from the next step. Answers with the robot's
/// report.
pub async fn command_actuators(
    State(app): State<Arc<AppState>>,
    Path((lab, robot)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<RobotReport>, AppError> {
    let lab = find_lab(&app, &lab)?;
    if !lab.has_robot(&robot) {
        return Err(no_robot(lab.id(), &robot));
    }
    require_owner_or_instructor(&lab, &headers, &robot, "drive it by hand")?;
    let commands: BTreeMap<String, Value> = serde_json::from_slice(&body).map_err(|e| {
        AppError::BadRequest(format!(
            "not a set of actuator commands ({e}); expected e.g. {{\"left\": {{\"speed\": 5}}, \"arm\": {{\"position\": 0.5}}, \"drive\": {{\"v\": 0.2, \"omega\": 0}}}}"
        ))
    })?;
    if commands.is_empty() {
        return Err(AppError::BadRequest("no actuator commands: name at least one actuator".into()));
    }
    match lab.actuate(&robot, commands).await? {
        None => Err(no_robot(lab.id(), &robot)),
        Some(Err(refused)) => Err(AppError::InvalidArgument(refused.to_string())),
        Some(Ok(report)) => Ok(Json(report)),
    }
}

fn no_robot(lab: &str, robot: &str) -> AppError {
    AppError::NotFound(format!("no robot '{robot}' in lab '{lab}'"))
}

/// `DELETE /api/labs/{lab}/robots/{robot}` (its owner or the instructor).
pub async fn remove_robot(
    State(app): State<Arc<AppState>>,
    Path((lab, robot)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<StatusCode, AppError> {
    let lab = find_lab(&app, &lab)?;
    if !lab.has_robot(&robot) {
        return Err(no_robot(lab.id(), &robot));
    }
    require_owner_or_instructor(&lab, &headers, &robot, "remove it")?;
    if !lab.remove_robot(&robot).await? {
        return Err(no_robot(lab.id(), &robot));
    }
    if let Some(store) = &app.store {
        let removal = crate::store::Insertion::Removal { robot: robot.clone() };
        if let Err(e) = store.lock().expect("store lock").record_insertion(lab.id(), &removal) {
            tracing::error!(lab = %lab.id(), error = %e, "could not keep a removal for restarts");
        }
    }
    tracing::info!(lab = %lab.id(), %robot, "robot removed");
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/labs/{lab}/robots/{robot}/reset` (its owner or the instructor): back to
/// its start pose, at rest, its counts and commands as the scene declares them.
pub async fn reset_robot(
    State(app): State<Arc<AppState>>,
    Path((lab, robot)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Json<RobotReport>, AppError> {
    let lab = find_lab(&app, &lab)?;
    if !lab.has_robot(&robot) {
        return Err(no_robot(lab.id(), &robot));
    }
    require_owner_or_instructor(&lab, &headers, &robot, "reset it")?;
    if !lab.reset_robot(&robot).await? {
        return Err(no_robot(lab.id(), &robot));
    }
    lab.robot_report(&robot).await?.map(Json).ok_or_else(|| no_robot(lab.id(), &robot))
}

/// Where to move an object.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveRequest {
    position: [f32; 3],
    #[serde(default)]
    heading: Option<f32>,
}

/// `POST /api/labs/{lab}/objects/{name}/move` (the instructor, as supervisor): a body,
/// or a whole robot, to `{"position": [x, y, z], "heading": rad}`, at rest.
pub async fn move_object(
    State(app): State<Arc<AppState>>,
    Path((lab, name)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<StatusCode, AppError> {
    let lab = find_lab(&app, &lab)?;
    require_instructor(&lab, &headers, "move objects")?;
    let request: MoveRequest = serde_json::from_slice(&body).map_err(|e| {
        AppError::BadRequest(format!(
            "not a move ({e}); expected e.g. {{\"position\": [1, 0.2, 3], \"heading\": 1.57}}"
        ))
    })?;
    if !request.position.iter().chain(request.heading.iter()).all(|v| v.is_finite()) {
        return Err(AppError::InvalidArgument("position and heading must be finite numbers".into()));
    }
    if !lab.move_object(&name, request.position, request.heading).await? {
        return Err(AppError::NotFound(format!(
            "no movable object '{name}' in lab '{}' (a robot, or a body that is not static)",
            lab.id()
        )));
    }
    Ok(StatusCode::NO_CONTENT)
}
