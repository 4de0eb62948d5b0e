//! One error type for every handler: a classroom error, or a request `net` could not
//! read, rendered as `{"error":{"code","message","details"}}` with its status (a refused
//! upload as its positioned reply instead).

use axum::Json;
use axum::http::StatusCode;
use axum::http::header::RETRY_AFTER;
use axum::response::{IntoResponse, Response};
use vlab_protocol::{ErrorBody, ErrorCode};

use crate::classroom::{ClassroomError, RefusalKind};
use crate::store::StoreError;
use vlab_lab::LabError;

/// An error a handler returns; the client gets a clear message, the log the details.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// 400: the request could not be read (malformed header, body or form).
    #[error("{0}")]
    BadRequest(String),
    /// 413: larger than its limit.
    #[error("{0}")]
    TooLarge(String),
    /// 404: no such API endpoint.
    #[error("{0}")]
    NoEndpoint(String),
    /// 500: a fault of the server's own.
    #[error("{0}")]
    Internal(String),
    /// 429: too many requests (or connections) from the caller's address; try again in
    /// `retry_after` seconds (sent as `Retry-After`).
    #[error("{message}")]
    TooManyRequests {
        /// What was refused and when to try again.
        message: String,
        /// Seconds to wait.
        retry_after: u64,
    },
    /// 503: the server has as many connections as it takes; try again in `retry_after`
    /// seconds (sent as `Retry-After`).
    #[error("{message}")]
    Busy {
        /// What was refused.
        message: String,
        /// Seconds to wait.
        retry_after: u64,
    },
    /// What the classroom answered.
    #[error(transparent)]
    Classroom(#[from] ClassroomError),
    /// 503 (413 when too large): the lab runs on another server of the cluster, which
    /// this one could not reach.
    #[error(transparent)]
    Peer(#[from] super::peers::PeerError),
}

impl From<LabError> for AppError {
    fn from(error: LabError) -> AppError {
        AppError::Classroom(error.into())
    }
}

impl AppError {
    /// The status and wire body of this error (websocket errors carry the same body).
    pub fn parts(&self) -> (StatusCode, ErrorBody) {
        use ClassroomError as C;
        let plain = |status: StatusCode, code: ErrorCode| (status, ErrorBody::new(code, self.to_string()));
        let classroom = match self {
            AppError::BadRequest(_) => return plain(StatusCode::BAD_REQUEST, ErrorCode::BadRequest),
            AppError::TooLarge(_) => return plain(StatusCode::PAYLOAD_TOO_LARGE, ErrorCode::BadRequest),
            AppError::Peer(super::peers::PeerError::TooLarge { .. }) => {
                return plain(StatusCode::PAYLOAD_TOO_LARGE, ErrorCode::BadRequest);
            }
            AppError::Peer(_) => return plain(StatusCode::SERVICE_UNAVAILABLE, ErrorCode::LabUnavailable),
            AppError::NoEndpoint(_) => return plain(StatusCode::NOT_FOUND, ErrorCode::NotFound),
            AppError::Internal(_) => return plain(StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::Internal),
            AppError::TooManyRequests { .. } => {
                return plain(StatusCode::TOO_MANY_REQUESTS, ErrorCode::TooManyRequests);
            }
            AppError::Busy { .. } => return plain(StatusCode::SERVICE_UNAVAILABLE, ErrorCode::ServerBusy),
            AppError::Classroom(error) => error,
        };
        match classroom {
            C::NoLab(_) | C::NoClass(_) | C::NotFound(_) => plain(StatusCode::NOT_FOUND, ErrorCode::NotFound),
            C::UnknownToken { .. } | C::UnknownClassToken { .. } | C::NeedsServerKey(_) | C::SignIn(_) => {
                plain(StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized)
            }
            C::Denied { denial, .. } if denial.is_unauthenticated() => {
                plain(StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized)
            }
            C::Denied { .. } | C::Forbidden(_) => plain(StatusCode::FORBIDDEN, ErrorCode::Forbidden),
            C::Unreadable(_) => plain(StatusCode::BAD_REQUEST, ErrorCode::BadRequest),
            C::Invalid(_) => plain(StatusCode::UNPROCESSABLE_ENTITY, ErrorCode::InvalidArgument),
            C::Conflict(_) => plain(StatusCode::CONFLICT, ErrorCode::InvalidArgument),
            C::TooLarge(_) => plain(StatusCode::PAYLOAD_TOO_LARGE, ErrorCode::BadRequest),
            C::Busy { .. } => plain(StatusCode::SERVICE_UNAVAILABLE, ErrorCode::ServerBusy),
            C::TooMany { .. } => plain(StatusCode::TOO_MANY_REQUESTS, ErrorCode::TooManyRequests),
            C::Scene { details, .. } => {
                let body =
                    ErrorBody { code: ErrorCode::InvalidArgument, message: self.to_string(), details: details.clone() };
                (StatusCode::UNPROCESSABLE_ENTITY, body)
            }
            C::Upload(refusal) => match refusal.kind {
                RefusalKind::Invalid | RefusalKind::Misplaced => {
                    plain(StatusCode::UNPROCESSABLE_ENTITY, ErrorCode::InvalidArgument)
                }
                RefusalKind::Conflict => plain(StatusCode::CONFLICT, ErrorCode::InvalidArgument),
                RefusalKind::OverQuota => plain(StatusCode::FORBIDDEN, ErrorCode::Forbidden),
                RefusalKind::OverBudget => plain(StatusCode::PAYLOAD_TOO_LARGE, ErrorCode::BadRequest),
            },
            C::Lab(error) => match error {
                LabError::Unavailable(_) => plain(StatusCode::SERVICE_UNAVAILABLE, ErrorCode::LabUnavailable),
                LabError::NoRobot { .. } | LabError::NoProgram { .. } | LabError::NoObject { .. } => {
                    plain(StatusCode::NOT_FOUND, ErrorCode::NotFound)
                }
                LabError::Refused(_) | LabError::Rewind(_) | LabError::NoChallenge => {
                    plain(StatusCode::CONFLICT, ErrorCode::InvalidArgument)
                }
                LabError::ProgramRunning { .. } | LabError::ControllerAttached { .. } => {
                    plain(StatusCode::CONFLICT, ErrorCode::Conflict)
                }
                LabError::OverQuota { .. } | LabError::OverObjectQuota { .. } => {
                    plain(StatusCode::FORBIDDEN, ErrorCode::Forbidden)
                }
                LabError::AttachTooSoon { .. } => plain(StatusCode::TOO_MANY_REQUESTS, ErrorCode::TooManyRequests),
                LabError::Command(_)
                | LabError::Keys(_)
                | LabError::OverCapacity(_)
                | LabError::Misplaced(_)
                | LabError::Room(_) => plain(StatusCode::UNPROCESSABLE_ENTITY, ErrorCode::InvalidArgument),
                LabError::Scene { .. } | LabError::Thread { .. } => {
                    plain(StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::Internal)
                }
            },
            // Nothing was changed and the next call connects again: the client may retry.
            C::Store(error @ StoreError::Unavailable { .. }) => {
                (StatusCode::SERVICE_UNAVAILABLE, ErrorBody::new(ErrorCode::ServerBusy, error.to_string()))
            }
            C::Store(_) | C::Internal(_) => plain(StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::Internal),
        }
    }
}

/// The `Retry-After` of an answer refused because the database is unavailable: about
/// the bound of one connection attempt.
const DATABASE_RETRY_SECS: u64 = 5;

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let (status, body) = self.parts();
        // A busy server or a caller over its share is a refusal the client is told to
        // retry, not a fault: a flood of them must not fill the log with errors.
        let retry_after = self.retry_after();
        if retry_after.is_some() {
            tracing::info!(error = %self, status = status.as_u16(), "request refused for now");
        } else if status.is_server_error() {
            tracing::error!(error = %self, "request failed");
        } else {
            tracing::debug!(error = %self, "request refused");
        }
        // A refused upload answers with its reply: the editor marks each error's line.
        if let AppError::Classroom(ClassroomError::Upload(refusal)) = self {
            return (status, Json(refusal.reply)).into_response();
        }
        let body = Json(serde_json::json!({ "error": body }));
        if let Some(retry_after) = retry_after {
            return (status, [(RETRY_AFTER, retry_after.to_string())], body).into_response();
        }
        (status, body).into_response()
    }
}

impl AppError {
    /// Seconds after which the same request may pass, for a refusal that says so.
    fn retry_after(&self) -> Option<u64> {
        match self {
            AppError::TooManyRequests { retry_after, .. }
            | AppError::Busy { retry_after, .. }
            | AppError::Classroom(
                ClassroomError::Busy { retry_after, .. } | ClassroomError::TooMany { retry_after, .. },
            ) => Some(*retry_after),
            // The lab's server is moving or restarting: a few seconds.
            AppError::Peer(error) if !matches!(error, super::peers::PeerError::TooLarge { .. }) => Some(2),
            // The database is down: logged once by the store, not once per request.
            AppError::Classroom(ClassroomError::Store(StoreError::Unavailable { .. })) => Some(DATABASE_RETRY_SECS),
            _ => None,
        }
    }
}
