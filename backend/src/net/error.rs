//! One error type for every handler, rendered as DESIGN.md's JSON error body.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use vlab_protocol::{ErrorBody, ErrorCode};

use crate::lab::LabError;

/// An error a handler returns; the client gets a clear message, the log the details.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// 404.
    #[error("{0}")]
    NotFound(String),
    /// 401: no or unknown credentials.
    #[error("{0}")]
    Unauthorized(String),
    /// 403: known caller, not allowed.
    #[error("{0}")]
    Forbidden(String),
    /// 400: unreadable request.
    #[error("{0}")]
    BadRequest(String),
    /// 422: readable, but an argument is out of range.
    #[error("{0}")]
    InvalidArgument(String),
    /// 409: clashes with the lab's state.
    #[error("{0}")]
    Conflict(String),
    /// 413: too large.
    #[error("{0}")]
    TooLarge(String),
    /// 422 with positioned details (a scene with errors).
    #[error("{message}")]
    Scene {
        /// A sentence.
        message: String,
        /// One `file:line:col: message` per error.
        details: Vec<String>,
    },
    /// 500: a fault of the server's own.
    #[error("{0}")]
    Internal(String),
    /// 503: the lab's simulation stopped.
    #[error(transparent)]
    Lab(#[from] LabError),
}

impl AppError {
    /// The status and wire body of this error.
    pub fn parts(&self) -> (StatusCode, ErrorBody) {
        let (status, code) = match self {
            AppError::NotFound(_) => (StatusCode::NOT_FOUND, ErrorCode::NotFound),
            AppError::Unauthorized(_) => (StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized),
            AppError::Forbidden(_) => (StatusCode::FORBIDDEN, ErrorCode::Forbidden),
            AppError::BadRequest(_) => (StatusCode::BAD_REQUEST, ErrorCode::BadRequest),
            AppError::InvalidArgument(_) => (StatusCode::UNPROCESSABLE_ENTITY, ErrorCode::InvalidArgument),
            AppError::Conflict(_) => (StatusCode::CONFLICT, ErrorCode::InvalidArgument),
            AppError::TooLarge(_) => (StatusCode::PAYLOAD_TOO_LARGE, ErrorCode::BadRequest),
            AppError::Scene { details, .. } => {
                let body =
                    ErrorBody { code: ErrorCode::InvalidArgument, message: self.to_string(), details: details.clone() };
                return (StatusCode::UNPROCESSABLE_ENTITY, body);
            }
            AppError::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::Internal),
            AppError::Lab(_) => (StatusCode::SERVICE_UNAVAILABLE, ErrorCode::LabUnavailable),
        };
        (status, ErrorBody::new(code, self.to_string()))
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let (status, body) = self.parts();
        if status.is_server_error() {
            tracing::error!(error = %self, "request failed");
        } else {
            tracing::debug!(error = %self, "request refused");
        }
        (status, Json(serde_json::json!({ "error": body }))).into_response()
    }
}
