//! Uploads over HTTP: reading a plain-text body or a multipart form into files (which
//! is which is the classroom's business), the scene and robot upload routes, and the
//! assets uploads brought.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::multipart::MultipartError;
use axum::extract::{FromRequest, Multipart, Path, Query, Request, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use vlab_lab::placement::{DEFAULT_CLEARANCE_M, MAX_CLEARANCE_M};
use vlab_protocol::{SceneUploadReply, TRIANGLES_FORMAT};

use super::extract::InLab;
use super::web_files::{LASTING, REVALIDATE};
use super::{AppError, AppState};
use crate::classroom::UploadFiles;
use crate::classroom::upload::{BINARY_EXTENSIONS, MAX_UPLOAD_FILES, content_type};

/// Name given to a scene uploaded as a plain-text body.
const PLAIN_UPLOAD_NAME: &str = "upload.vlab";
/// Name given to a robot's description uploaded as a plain-text body: the name the
/// page's editor tab shows, so errors point at the tab the student sees.
const PLAIN_ROBOT_NAME: &str = "robot.vlab";

/// `POST /api/labs/{lab}/scene` (instructor): 200 with the counts when inserted; 422
/// with positioned errors when the files are wrong; 409 when they clash with the lab.
pub async fn upload_scene(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    request: Request,
) -> Result<Json<SceneUploadReply>, AppError> {
    let files = read_upload(request, PLAIN_UPLOAD_NAME).await?;
    Ok(Json(app.classroom.uploads().upload_scene(&lab, caller, files).await?))
}

/// `POST /api/labs/{lab}/robots?clearance_m=` (a participant): robots owned by the
/// caller. A description that writes `{x}` and `{z}` has the lab choose its start, with
/// `clearance_m` metres of free floor around it if the lab has a spot with that much
/// (docs/api.md, Adding robots).
pub async fn upload_robots(
    State(app): State<Arc<AppState>>,
    InLab { lab, caller }: InLab,
    Query(query): Query<HashMap<String, String>>,
    request: Request,
) -> Result<Json<SceneUploadReply>, AppError> {
    let clearance = clearance_of(&query)?;
    let files = read_upload(request, PLAIN_ROBOT_NAME).await?;
    Ok(Json(app.classroom.uploads().upload_robots(&lab, caller, files, clearance).await?))
}

/// The `clearance_m` asked for: metres, 0 to [`MAX_CLEARANCE_M`]; the default when absent.
fn clearance_of(query: &HashMap<String, String>) -> Result<f32, AppError> {
    let Some(text) = query.get("clearance_m") else { return Ok(DEFAULT_CLEARANCE_M) };
    match text.trim().parse::<f32>() {
        Ok(metres) if (0.0..=MAX_CLEARANCE_M).contains(&metres) => Ok(metres),
        _ => Err(AppError::BadRequest(format!(
            "clearance_m is the free floor a robot needs around its start: a number of metres from 0 to \
             {MAX_CLEARANCE_M}, not '{text}'"
        ))),
    }
}

/// `GET /api/labs/{lab}/assets/{*path}`: an asset uploaded with one of the lab's scenes.
/// Its path names its content, so browsers may keep it.
pub async fn uploaded_asset(
    State(app): State<Arc<AppState>>,
    Path((lab, path)): Path<(String, String)>,
) -> Result<Response, AppError> {
    let bytes = app.classroom.uploads().uploaded_asset(&lab, &path)?;
    Ok(([(CONTENT_TYPE, HeaderValue::from_static(content_type(&path))), (CACHE_CONTROL, LASTING)], bytes)
        .into_response())
}

/// `GET /api/triangles?mesh=URL`: the triangles of a mesh the page draws (a library
/// mesh or one uploaded to a lab), read on the server so the page parses no mesh files.
pub async fn mesh_triangles(
    State(app): State<Arc<AppState>>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Response, AppError> {
    let url = query
        .get("mesh")
        .cloned()
        .ok_or_else(|| AppError::BadRequest("say which mesh: /api/triangles?mesh=/assets/wheel.obj".into()))?;
    // The page names the layout it reads: a browser keeps an uploaded mesh's triangles
    // (its URL names the file's content), and must never hand them to another layout's reader.
    let format = query.get("format");
    if let Some(format) = format.filter(|f| **f != TRIANGLES_FORMAT.to_string()) {
        return Err(AppError::BadRequest(format!(
            "this server writes triangle format {TRIANGLES_FORMAT}, not {format}: reload the page"
        )));
    }
    let cache = if format.is_some() && url.starts_with("/api/labs/") { LASTING } else { REVALIDATE };
    // A large file takes a while to read the first time: not on the async workers.
    let bytes = tokio::task::spawn_blocking(move || app.classroom.meshes().triangles(&url))
        .await
        .map_err(|e| AppError::Internal(format!("reading the mesh failed: {e}")))??;
    Ok(([(CONTENT_TYPE, HeaderValue::from_static("application/octet-stream")), (CACHE_CONTROL, cache)], bytes)
        .into_response())
}

/// Name given to a zip file uploaded as the whole body.
const ZIP_UPLOAD_NAME: &str = "upload.zip";

/// Reads an upload: a plain-text body (the main file, called `plain_name`), a zip body
/// (`application/zip`: its files, the main one named by `?main=` if need be) or a
/// multipart form. In a form, `scene` or `description` is the main `.vlab` file,
/// `program` a robot's program (`main.py` when it has no file name), `main` the name of
/// the main file among the others; a `.zip` part is unpacked into files; any other part
/// is a file under its own name: meshes, textures and `.wasm` modules as bytes, the rest
/// as text.
pub async fn read_upload(request: Request, plain_name: &str) -> Result<UploadFiles, AppError> {
    let kind = request.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_ascii_lowercase();
    let is_multipart = kind.starts_with("multipart/form-data");
    let is_zip = kind.starts_with("application/zip") || kind.starts_with("application/x-zip");
    if is_zip {
        let main_choice = Query::<HashMap<String, String>>::try_from_uri(request.uri())
            .ok()
            .and_then(|Query(query)| query.get("main").cloned())
            .filter(|main| !main.trim().is_empty());
        let body = read_body(request).await?;
        let mut files = UploadFiles { main_choice, ..UploadFiles::default() };
        files.add_archive(ZIP_UPLOAD_NAME, &body)?;
        return Ok(files);
    }
    if !is_multipart {
        let body = read_body(request).await?;
        let text = String::from_utf8(body.to_vec())
            .map_err(|_| AppError::BadRequest("the upload is not UTF-8 text".into()))?;
        return Ok(UploadFiles { main: Some((plain_name.into(), text)), plain: true, ..UploadFiles::default() });
    }
    let mut files = UploadFiles::default();
    let mut multipart = Multipart::from_request(request, &())
        .await
        .map_err(|e| AppError::BadRequest(format!("not a readable multipart form: {e}")))?;
    while let Some(field) =
        multipart.next_field().await.map_err(|e| unreadable(e, "a part of the form could not be read"))?
    {
        if files.count() >= MAX_UPLOAD_FILES {
            return Err(AppError::BadRequest(format!(
                "the form has more than {MAX_UPLOAD_FILES} files: send only the robot's own"
            )));
        }
        let field_name = field.name().unwrap_or_default().to_owned();
        let file_name = field.file_name().map(str::to_owned);
        if field_name == "main" && file_name.is_none() {
            let text = field.text().await.map_err(|e| unreadable(e, "the part 'main' is not UTF-8 text"))?;
            files.main_choice = Some(text.trim().to_owned()).filter(|main| !main.is_empty());
            continue;
        }
        let is_main = field_name == "scene" || field_name == "description";
        let name = match (&file_name, field_name.as_str()) {
            (Some(file), _) => file.clone(),
            (None, "program") => "main.py".to_owned(),
            (None, _) => field_name.clone(),
        };
        if !is_main && (name.starts_with('/') || name.split('/').any(|part| part == ".." || part.is_empty())) {
            return Err(AppError::BadRequest(format!("'{name}' is not a plain relative file name")));
        }
        if field_name == "program" {
            files.program = Some(name.clone());
        }
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".zip") {
            let bytes =
                field.bytes().await.map_err(|e| unreadable(e, &format!("the part '{name}' could not be read")))?;
            files.add_archive(&name, &bytes)?;
            continue;
        }
        if !is_main && BINARY_EXTENSIONS.iter().any(|ext| lower.ends_with(ext)) {
            let bytes =
                field.bytes().await.map_err(|e| unreadable(e, &format!("the part '{name}' could not be read")))?;
            if lower.ends_with(".wasm") {
                files.binaries.insert(name, bytes);
            } else {
                files.assets.insert(name, bytes);
            }
            continue;
        }
        let text =
            field.text().await.map_err(|e| unreadable(e, &format!("the part '{field_name}' is not UTF-8 text")))?;
        if is_main {
            files.main = Some((file_name.unwrap_or_else(|| plain_name.into()), text));
        } else {
            files.files.insert(name, text);
        }
    }
    Ok(files)
}

/// The whole body of a request that is not a form.
async fn read_body(request: Request) -> Result<Bytes, AppError> {
    Bytes::from_request(request, &()).await.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            too_large()
        } else {
            AppError::BadRequest(format!("could not read the upload: {e}"))
        }
    })
}

/// A form that could not be read: too large (413, with the limit), or unreadable (400).
fn unreadable(error: MultipartError, what: &str) -> AppError {
    if error.status() == StatusCode::PAYLOAD_TOO_LARGE {
        return too_large();
    }
    AppError::BadRequest(format!("{what}: {error}"))
}

fn too_large() -> AppError {
    AppError::TooLarge(format!(
        "the upload is larger than {} MiB, all files together: send fewer or smaller files",
        crate::classroom::upload::MAX_UPLOAD_BYTES / (1024 * 1024)
    ))
}
