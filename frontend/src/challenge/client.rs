//! The challenge's requests: the board, attempts (start one, read one, the caller's
//! list, its replay and its MCAP's address), and the instructor's live run.

use vlab_protocol::{AttemptReplay, AttemptReport, AttemptRequest, ChallengeBoard, RunRequest};

use crate::api::{ApiError, Body, fetch_json};
use crate::page::{lab_api_path, robot_api_path};

/// `GET /api/labs/{lab}/challenge`: the challenge and the rows the caller may see;
/// `None` when the lab has no challenge (404).
pub async fn challenge_board(lab: &str, token: Option<&str>) -> Result<Option<ChallengeBoard>, ApiError> {
    match fetch_json("GET", &lab_api_path(lab, "/challenge"), token, Body::Empty).await {
        Ok(board) => Ok(Some(board)),
        Err(error) if error.status() == Some(404) => Ok(None),
        Err(error) => Err(error),
    }
}

/// `POST .../robots/{robot}/attempts`: an attempt of the robot with its current
/// program, on a fresh seed (`202`, queued).
pub async fn start_attempt(lab: &str, robot: &str, token: Option<&str>) -> Result<AttemptReport, ApiError> {
    let body = Body::json(&AttemptRequest::default());
    fetch_json("POST", &robot_api_path(lab, robot, "/attempts"), token, body).await
}

/// `GET /api/labs/{lab}/attempts/{id}`: where the attempt is, or how it ended.
pub async fn attempt(lab: &str, id: u64, token: Option<&str>) -> Result<AttemptReport, ApiError> {
    fetch_json("GET", &lab_api_path(lab, &format!("/attempts/{id}")), token, Body::Empty).await
}

/// `GET /api/labs/{lab}/attempts`: the caller's attempts (the instructor's: everybody's),
/// newest first.
pub async fn attempts(lab: &str, token: Option<&str>) -> Result<Vec<AttemptReport>, ApiError> {
    fetch_json("GET", &lab_api_path(lab, "/attempts"), token, Body::Empty).await
}

/// `GET /api/labs/{lab}/attempts/{id}/replay`: the attempt as recorded.
pub async fn replay(lab: &str, id: u64, token: Option<&str>) -> Result<AttemptReplay, ApiError> {
    fetch_json("GET", &lab_api_path(lab, &format!("/attempts/{id}/replay")), token, Body::Empty).await
}

/// `.../attempts/{id}/recording.mcap`: the attempt's recording as MCAP.
pub fn mcap_path(lab: &str, id: u64) -> String {
    lab_api_path(lab, &format!("/attempts/{id}/recording.mcap"))
}

/// `POST /api/labs/{lab}/challenge/run` (instructor): starts or stops the live run; the
/// board after it.
pub async fn live_run(lab: &str, request: RunRequest, token: Option<&str>) -> Result<ChallengeBoard, ApiError> {
    fetch_json("POST", &lab_api_path(lab, "/challenge/run"), token, Body::json(&request)).await
}
