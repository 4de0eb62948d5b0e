//! `/api/labs/{lab}/robots/...`: inspecting a robot (true pose, every sensor true and
//! measured with its sim time, actuators, program) and commanding its actuators by
//! hand, for testing a robot without a program.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use serde_json::Value;
use vlab_protocol::RobotReport;

use super::auth::require_owner_or_instructor;
use super::http::find_lab;
use super::{AppError, AppState};

/// `GET /api/labs/{lab}/robots/{robot}`: anybody in the lab sees every robot.
pub async fn get_robot(
    State(app): State<Arc<AppState>>,
    Path((lab, robot)): Path<(String, String)>,
) -> Result<Json<RobotReport>, AppError> {
    let lab = find_lab(&app, &lab)?;
    lab.robot_report(&robot).await?.map(Json).ok_or_else(|| no_robot(lab.id(), &robot))
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
