//! What handlers take from a request: the lab and who is calling (from the path's
//! `{lab}` and the bearer token), and JSON bodies read with a message that shows an
//! example of what was expected.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, RawPathParams, Request};
use axum::http::HeaderMap;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use super::{AppError, AppState};
use vlab_lab::{Caller, LabHandle};

/// The bearer token of a request, if any (`Authorization: Bearer <token>`).
pub fn bearer_token(headers: &HeaderMap) -> Result<Option<&str>, AppError> {
    let Some(value) = headers.get(AUTHORIZATION) else { return Ok(None) };
    let value =
        value.to_str().map_err(|_| AppError::BadRequest("the Authorization header is not valid text".into()))?;
    match value.split_once(' ') {
        Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => Ok(Some(token.trim())),
        _ => Err(AppError::BadRequest("the Authorization header must read 'Bearer <token>'".into())),
    }
}

/// The lab of the path and the caller in it; an unknown token is refused (401).
pub struct InLab {
    /// The lab.
    pub lab: Arc<LabHandle>,
    /// Who is calling.
    pub caller: Caller,
}

/// The lab of the path and the caller, for reading only: a token that means nothing in
/// this lab reads as a viewer.
pub struct ReaderIn {
    /// The lab.
    pub lab: Arc<LabHandle>,
    /// Who is calling.
    pub caller: Caller,
}

/// The class of the path (`{class}`), who is calling in it, and the token they called
/// with; an unknown token is refused (401).
pub struct InClass {
    /// The class's id.
    pub class: String,
    /// Who is calling.
    pub caller: crate::classroom::course::ClassCaller,
    /// The bearer token, if any.
    pub token: Option<String>,
}

impl FromRequestParts<Arc<AppState>> for InClass {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<AppState>) -> Result<InClass, AppError> {
        let params = RawPathParams::from_request_parts(parts, app)
            .await
            .map_err(|e| AppError::BadRequest(format!("unreadable path: {e}")))?;
        let class = params
            .iter()
            .find(|(name, _)| *name == "class")
            .map(|(_, value)| value.to_owned())
            .ok_or_else(|| AppError::Internal("this route has no {class}".into()))?;
        let token = bearer_token(&parts.headers)?.map(str::to_owned);
        let caller = app.classroom.course().caller(&class, token.as_deref())?;
        Ok(InClass { class, caller, token })
    }
}

/// The bearer token, if any (for requests not about one lab: creating one).
pub struct Bearer(pub Option<String>);

async fn path_lab(parts: &mut Parts, app: &Arc<AppState>) -> Result<Arc<LabHandle>, AppError> {
    let params = RawPathParams::from_request_parts(parts, app)
        .await
        .map_err(|e| AppError::BadRequest(format!("unreadable path: {e}")))?;
    let id = params
        .iter()
        .find(|(name, _)| *name == "lab")
        .map(|(_, value)| value.to_owned())
        .ok_or_else(|| AppError::Internal("this route has no {lab}".into()))?;
    Ok(app.classroom.lab(&id)?)
}

impl FromRequestParts<Arc<AppState>> for InLab {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<AppState>) -> Result<InLab, AppError> {
        let lab = path_lab(parts, app).await?;
        let caller = app.classroom.caller(&lab, bearer_token(&parts.headers)?)?;
        Ok(InLab { lab, caller })
    }
}

impl FromRequestParts<Arc<AppState>> for ReaderIn {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<AppState>) -> Result<ReaderIn, AppError> {
        let lab = path_lab(parts, app).await?;
        let caller = app.classroom.reader(&lab, bearer_token(&parts.headers)?);
        Ok(ReaderIn { lab, caller })
    }
}

impl FromRequestParts<Arc<AppState>> for Bearer {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, _: &Arc<AppState>) -> Result<Bearer, AppError> {
        Ok(Bearer(bearer_token(&parts.headers)?.map(str::to_owned)))
    }
}

/// A request body type, with an example shown when a body cannot be read as one.
pub trait Example {
    /// A body that would have been read.
    const EXAMPLE: &'static str;
}

/// A JSON body of type `T`, at most `Example`-sized messages; unreadable → 400 with an
/// example of what was expected.
pub struct JsonBody<T>(pub T);

/// Largest JSON request body (defined with the other limits).
use super::limits::MAX_JSON_BODY_BYTES as MAX_JSON_BYTES;

impl<T: DeserializeOwned + Example, S: Send + Sync> FromRequest<S> for JsonBody<T> {
    type Rejection = AppError;

    async fn from_request(request: Request, state: &S) -> Result<JsonBody<T>, AppError> {
        let body = Bytes::from_request(request, state)
            .await
            .map_err(|e| AppError::BadRequest(format!("could not read the request: {e}")))?;
        if body.len() > MAX_JSON_BYTES {
            return Err(AppError::TooLarge(format!("a request may be at most {MAX_JSON_BYTES} bytes")));
        }
        serde_json::from_slice(&body)
            .map(JsonBody)
            .map_err(|e| AppError::BadRequest(format!("unreadable request ({e}); expected e.g. {}", T::EXAMPLE)))
    }
}

impl Example for vlab_protocol::ControlAction {
    const EXAMPLE: &'static str = r#"{"action":"pause"}, {"action":"step","steps":10} or {"action":"rate","rate":2}"#;
}
impl Example for vlab_protocol::CreateLabRequest {
    const EXAMPLE: &'static str = r#"{"name": "Physics 1", "scene": "diffbot"}"#;
}
impl Example for vlab_protocol::CreateClassRequest {
    const EXAMPLE: &'static str = r#"{"name": "Robotics 2B"}"#;
}
impl Example for vlab_protocol::SignInRequest {
    const EXAMPLE: &'static str = r#"{"class_code": "K7MPQ2XY", "name": "Ana", "pin": "4821"} or {"link": "<token>"}"#;
}
impl Example for vlab_protocol::AddStudentRequest {
    const EXAMPLE: &'static str = r#"{"name": "Ana"}"#;
}
impl Example for vlab_protocol::RenameStudentRequest {
    const EXAMPLE: &'static str = r#"{"name": "Ana Lima"}"#;
}
impl Example for vlab_protocol::JoinRequest {
    const EXAMPLE: &'static str = r#"{"join_code": "K7MP3Q", "name": "Ana"}"#;
}
impl Example for vlab_protocol::LabSettingsPatch {
    const EXAMPLE: &'static str =
        r#"{"uploads_locked": true, "pause_on_join": false, "robot_quota": 2, "max_participants": 30}"#;
}
impl Example for vlab_protocol::RoomChange {
    const EXAMPLE: &'static str = r#"{"width": 14, "length": 10, "height": 2.5, "ground": "Wood", "walls": "White"}"#;
}
impl Example for vlab_protocol::AddObjectRequest {
    const EXAMPLE: &'static str = r#"{"palette": "ramp", "position": [2, 0, 3], "heading": 1.57, "name": "my_ramp"}"#;
}
impl Example for vlab_protocol::BroadcastRequest {
    const EXAMPLE: &'static str = r#"{"message": "Five minutes left"}"#;
}
impl Example for vlab_protocol::AssignmentRequest {
    const EXAMPLE: &'static str =
        r#"{"title": "Parking", "challenge": "challenges/park", "trials": 5, "points": 10, "due_at": 1800000000}"#;
}
impl Example for vlab_protocol::SubmitRobotRequest {
    const EXAMPLE: &'static str = r#"{"lab": "lesson-3-k7mp", "robot": "diffbot_ana"}"#;
}
impl Example for vlab_protocol::EvaluateRequest {
    const EXAMPLE: &'static str = r#"{} (everybody) or {"student": 3}"#;
}
impl Example for std::collections::BTreeMap<String, serde_json::Value> {
    const EXAMPLE: &'static str =
        r#"{"left": {"speed": 5}, "arm": {"position": 0.5}, "drive": {"v": 0.2, "omega": 0}}"#;
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn bearer_tokens_are_read_and_malformed_headers_refused() {
        let mut headers = HeaderMap::new();
        assert_eq!(bearer_token(&headers).unwrap(), None);
        headers.insert(AUTHORIZATION, HeaderValue::from_static("Bearer abc"));
        assert_eq!(bearer_token(&headers).unwrap(), Some("abc"));
        headers.insert(AUTHORIZATION, HeaderValue::from_static("bearer  abc "));
        assert_eq!(bearer_token(&headers).unwrap(), Some("abc"));
        headers.insert(AUTHORIZATION, HeaderValue::from_static("Basic dXNlcg=="));
        assert!(bearer_token(&headers).is_err());
    }
}
