//! Who is calling: bearer tokens to roles, checked on the server for every request.

use axum::http::HeaderMap;
use axum::http::header::AUTHORIZATION;
use vlab_protocol::Role;

use super::AppError;
use crate::lab::{Caller, LabHandle};

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

/// The caller's role in `lab`; an unknown token is refused rather than quietly
/// downgraded, so a mistyped instructor token is noticed.
pub fn role_in(lab: &LabHandle, headers: &HeaderMap) -> Result<Role, AppError> {
    let token = bearer_token(headers)?;
    lab.role_of(token).ok_or_else(|| AppError::Unauthorized(format!("this token is not valid in lab '{}'", lab.id())))
}

/// Who the caller is in `lab`; an unknown token is refused (401).
pub fn caller_in(lab: &LabHandle, headers: &HeaderMap) -> Result<Caller, AppError> {
    let token = bearer_token(headers)?;
    lab.caller(token).ok_or_else(|| AppError::Unauthorized(format!("this token is not valid in lab '{}'", lab.id())))
}

/// Requires the instructor of `lab`, or the owner of `robot`. Returns the caller.
pub fn require_owner_or_instructor(
    lab: &LabHandle,
    headers: &HeaderMap,
    robot: &str,
    what: &str,
) -> Result<Caller, AppError> {
    let caller = caller_in(lab, headers)?;
    match caller {
        Caller::Instructor => Ok(caller),
        Caller::Student(id) if lab.owner_of(robot) == Some(id) => Ok(caller),
        Caller::Student(_) => Err(AppError::Forbidden(format!(
            "only the owner of '{robot}' or the instructor may {what}; it is not yours"
        ))),
        Caller::Viewer => Err(AppError::Unauthorized(format!(
            "to {what} you need a session (join the lab with its code) and to own '{robot}'"
        ))),
    }
}

/// Requires the instructor of `lab`.
pub fn require_instructor(lab: &LabHandle, headers: &HeaderMap, what: &str) -> Result<(), AppError> {
    match role_in(lab, headers)? {
        Role::Instructor => Ok(()),
        Role::Viewer if bearer_token(headers)?.is_none() => {
            Err(AppError::Unauthorized(format!("{what} needs the instructor's token (Authorization: Bearer <token>)")))
        }
        role => Err(AppError::Forbidden(format!(
            "only the instructor of lab '{}' may {what}; you are a {}",
            lab.id(),
            role_name(role)
        ))),
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Instructor => "instructor",
        Role::Student => "student",
        Role::Viewer => "viewer",
    }
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
