//! Objects from everyone over HTTP: the palette, adding objects (a palette item as JSON,
//! or a `.vlab` fragment as scene uploads send it) and removing one.

use std::sync::Arc;

use axum::Json;
use axum::extract::{FromRequest, Path, Request, State};
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use vlab_protocol::{AddObjectRequest, PALETTE, PaletteEntry, SceneUploadReply};

use super::extract::{InLab, JsonBody};
use super::uploads::read_upload;
use super::{AppError, AppState};

/// Name given to a fragment of objects sent as a plain-text body.
const PLAIN_OBJECTS_NAME: &str = "objects.vlab";

/// `GET /api/palette`: the palette's items, in the order the page shows them.
pub async fn palette() -> Json<Vec<PaletteEntry>> {
    Json(PALETTE.iter().map(PaletteEntry::from).collect())
}

/// `POST /api/labs/{lab}/objects` (a student while the instructor lets students, or the
/// instructor): a palette item (`application/json`) or a fragment of objects (plain
/// text, zip or a form, as `POST .../scene`), owned by the caller. 200 with the objects'
/// names; 422 with positioned errors; 409 for a name in use; 403 over the quota.
pub async fn add_objects(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    request: Request,
) -> Result<Json<SceneUploadReply>, AppError> {
    let kind = request.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    if kind.to_ascii_lowercase().starts_with("application/json") {
        let JsonBody(item) = JsonBody::<AddObjectRequest>::from_request(request, &()).await?;
        return Ok(Json(app.classroom.objects().add_palette(&lab, caller, item).await?));
    }
    let files = read_upload(request, PLAIN_OBJECTS_NAME).await?;
    Ok(Json(app.classroom.objects().add_fragment(&lab, caller, files).await?))
}

/// `DELETE /api/labs/{lab}/objects/{name}` (its owner or the instructor).
pub async fn remove_object(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    Path((_, name)): Path<(String, String)>,
) -> Result<StatusCode, AppError> {
    app.classroom.objects().remove(&lab, caller, &name).await?;
    Ok(StatusCode::NO_CONTENT)
}
