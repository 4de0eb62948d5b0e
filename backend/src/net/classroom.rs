//! The classroom over HTTP: creating a lab (with the server key, or by anyone on a
//! server with open labs), listing the scene library, joining a lab with its code,
//! presence, the instructor's settings, notices to everybody, closing a lab.

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use serde::de::DeserializeOwned;
use vlab_protocol::{
    BroadcastRequest, CreateLabRequest, CreatedLab, JoinRequest, Joined, LabSettings, LabSettingsPatch, LabSummary,
    MAX_NOTICE_CHARS, Participant, clean_display_name,
};

use super::auth::{bearer_token, caller_in, require_instructor};
use super::http::find_lab;
use super::{AppError, AppState};
use crate::lab::participants::{new_join_code, new_token};
use crate::lab::{Caller, JoinError, LabConfig, LabHandle};
use crate::scene::{DirLoader, Options, SceneModel, demo_scene, interpret};
use crate::store::{LabRecord, LabScene, SessionRecord};

/// Largest scene text a lab may be created from.
const MAX_CREATE_SOURCE_BYTES: usize = 1024 * 1024;

/// `POST /api/labs`: a new lab, running, with its own clock. Answers 201 with its id,
/// join code and instructor token.
pub async fn create_lab(
    State(app): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<(StatusCode, Json<CreatedLab>), AppError> {
    if !app.open_labs {
        let key = bearer_token(&headers)?;
        let allowed = match (key, app.server_key.as_deref()) {
            (Some(key), Some(server_key)) => constant_time_eq(key.as_bytes(), server_key.as_bytes()),
            _ => false,
        };
        if !allowed {
            let message = match key {
                None => {
                    "creating a lab needs the server's key (Authorization: Bearer <key>): the token the server printed for the demo lab"
                }
                Some(_) => {
                    "that is not this server's key: creating labs needs the token the server printed for the demo lab"
                }
            };
            return Err(AppError::Unauthorized(message.into()));
        }
    }
    if body.len() > MAX_CREATE_SOURCE_BYTES {
        return Err(AppError::TooLarge(format!("a lab's scene may be at most {MAX_CREATE_SOURCE_BYTES} bytes")));
    }
    let request: CreateLabRequest = read_json(&body, r#"{"name": "Physics 1", "scene": "diffbot"}"#)?;
    let name = clean_display_name(&request.name).ok_or_else(|| {
        AppError::InvalidArgument(format!("a lab needs a name of 1 to {} characters", vlab_protocol::MAX_NAME_CHARS))
    })?;
    let seed = request.seed.unwrap_or(1);
    let scene = match (request.scene, request.scene_source) {
        (Some(_), Some(_)) => {
            return Err(AppError::InvalidArgument(
                "give either `scene` (a library name) or `scene_source`, not both".into(),
            ));
        }
        (None, None) => LabScene::Demo,
        (Some(file), None) => LabScene::Library(library_file(&app, &file)?),
        (None, Some(text)) => LabScene::Source(text),
    };
    let model = build_scene(&app, &scene, seed).await?;
    let id = unique_id(&app, &name);
    let record = LabRecord {
        id: id.clone(),
        name: name.clone(),
        instructor_token: new_token(),
        seed,
        join_code: new_join_code(),
        scene,
        settings_json: serde_json::to_string(&LabSettings::default()).expect("settings serialise"),
    };
    let lab = open_lab(&record, model, true, vec![]).map_err(|e| AppError::InvalidArgument(e.to_string()))?;
    app.labs.insert(lab);
    if let Some(store) = &app.store {
        store.lock().expect("store lock").save_lab(&record).map_err(|e| AppError::Internal(e.to_string()))?;
    }
    tracing::info!(lab = %id, %name, "lab created");
    let instructor_path = format!("/?lab={id}&token={}", record.instructor_token);
    Ok((
        StatusCode::CREATED,
        Json(CreatedLab {
            id,
            name,
            join_code: record.join_code,
            instructor_token: record.instructor_token,
            instructor_path,
        }),
    ))
}

/// Opens a stored lab with its scene model (at server start, and on creation).
pub fn open_lab(
    record: &LabRecord,
    scene: SceneModel,
    start_running: bool,
    students: Vec<(u32, String, String)>,
) -> Result<Arc<LabHandle>, crate::lab::LabError> {
    let settings = serde_json::from_str(&record.settings_json).unwrap_or_default();
    LabHandle::open(LabConfig {
        id: record.id.clone(),
        name: record.name.clone(),
        scene,
        instructor_token: record.instructor_token.clone(),
        start_running,
        seed: record.seed,
        join_code: record.join_code.clone(),
        settings,
        students,
        programs: Default::default(),
    })
}

/// The scene model of a stored lab's scene.
pub async fn build_scene(app: &AppState, scene: &LabScene, seed: u64) -> Result<SceneModel, AppError> {
    let (name, text) = match scene {
        LabScene::Demo => return Ok(demo_scene(seed)),
        LabScene::Library(file) => {
            let text = tokio::fs::read_to_string(app.scenes_dir.join(file))
                .await
                .map_err(|e| AppError::NotFound(format!("cannot read scene '{file}': {e}")))?;
            (file.clone(), text)
        }
        LabScene::Source(text) => ("lab.vlab".to_owned(), text.clone()),
    };
    let loader = DirLoader { scenes: app.scenes_dir.clone(), assets: Some(app.assets_dir.clone()) };
    let result =
        tokio::task::spawn_blocking(move || interpret(&text, &name, &loader, &Options { seed, ..Options::default() }))
            .await
            .map_err(|e| AppError::Internal(format!("the scene interpreter stopped: {e}")))?;
    result.map(|interpretation| interpretation.model).map_err(|errors| AppError::Scene {
        message: "the lab's scene has errors: nothing was created".into(),
        details: errors.iter().map(|e| e.to_string()).collect(),
    })
}

/// `GET /api/scenes`: the scene library a lab can be created from.
pub async fn list_scenes(State(app): State<Arc<AppState>>) -> Json<Vec<serde_json::Value>> {
    let mut scenes = Vec::new();
    if let Ok(entries) = std::fs::read_dir(&app.scenes_dir) {
        for entry in entries.flatten() {
            let file = entry.file_name().to_string_lossy().into_owned();
            let Some(name) = file.strip_suffix(".vlab") else { continue };
            let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
            // The first comment line says what the scene is.
            let about = text.lines().next().and_then(|l| l.strip_prefix("//")).unwrap_or("").trim().to_owned();
            scenes.push(serde_json::json!({ "name": name, "file": file, "about": about }));
        }
    }
    scenes.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    Json(scenes)
}

/// `POST /api/labs/{lab}/join`: a student joins with the code and a display name.
pub async fn join_lab(
    State(app): State<Arc<AppState>>,
    Path(lab): Path<String>,
    body: Bytes,
) -> Result<Json<Joined>, AppError> {
    let lab = find_lab(&app, &lab)?;
    join(&app, &lab, &body).await
}

/// `POST /api/join`: the same, finding the lab by its code.
pub async fn join_by_code(State(app): State<Arc<AppState>>, body: Bytes) -> Result<Json<Joined>, AppError> {
    let request: JoinRequest = read_json(&body, r#"{"join_code": "K7MP3Q", "name": "Ana"}"#)?;
    let lab = app
        .labs
        .by_join_code(&request.join_code)
        .ok_or_else(|| AppError::NotFound("no lab has that join code: check it with your instructor".into()))?;
    join(&app, &lab, &body).await
}

async fn join(app: &AppState, lab: &LabHandle, body: &[u8]) -> Result<Json<Joined>, AppError> {
    let request: JoinRequest = read_json(body, r#"{"join_code": "K7MP3Q", "name": "Ana"}"#)?;
    let (user, token) = lab.join(&request.join_code, &request.name).await.map_err(|e| match e {
        JoinError::WrongCode => AppError::Forbidden(e.to_string()),
        JoinError::BadName => AppError::InvalidArgument(e.to_string()),
        JoinError::Full => AppError::Conflict(e.to_string()),
    })?;
    if let Some(store) = &app.store {
        let session =
            SessionRecord { lab: lab.id().into(), user: user.id, name: user.name.clone(), token: token.clone() };
        store.lock().expect("store lock").save_session(&session).map_err(|e| AppError::Internal(e.to_string()))?;
    }
    tracing::info!(lab = %lab.id(), user = user.id, "student joined");
    Ok(Json(Joined { lab: lab.id().into(), token, user }))
}

/// `GET /api/labs/{lab}` with the instructor's token shows the join code too.
pub async fn get_lab(
    State(app): State<Arc<AppState>>,
    Path(lab): Path<String>,
    headers: HeaderMap,
) -> Result<Json<LabSummary>, AppError> {
    let lab = find_lab(&app, &lab)?;
    let mut summary = lab.summary();
    if caller_in(&lab, &headers)? == Caller::Instructor {
        summary.join_code = Some(lab.join_code());
    }
    Ok(Json(summary))
}

/// `GET /api/labs/{lab}/participants`.
pub async fn participants(
    State(app): State<Arc<AppState>>,
    Path(lab): Path<String>,
) -> Result<Json<Vec<Participant>>, AppError> {
    Ok(Json(find_lab(&app, &lab)?.participants()))
}

/// `PATCH /api/labs/{lab}/settings` (instructor).
pub async fn update_settings(
    State(app): State<Arc<AppState>>,
    Path(lab): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<LabSettings>, AppError> {
    let lab = find_lab(&app, &lab)?;
    require_instructor(&lab, &headers, "change the lab's settings")?;
    let patch: LabSettingsPatch =
        read_json(&body, r#"{"uploads_locked": true, "pause_on_join": false, "robot_quota": 2}"#)?;
    let settings = lab.update_settings(patch).map_err(AppError::InvalidArgument)?;
    if let Some(store) = &app.store {
        let json = serde_json::to_string(&settings).expect("settings serialise");
        store
            .lock()
            .expect("store lock")
            .save_settings(lab.id(), &json)
            .map_err(|e| AppError::Internal(e.to_string()))?;
    }
    Ok(Json(settings))
}

/// `POST /api/labs/{lab}/broadcast` (instructor): a notice to everybody in the lab.
pub async fn broadcast(
    State(app): State<Arc<AppState>>,
    Path(lab): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<StatusCode, AppError> {
    let lab = find_lab(&app, &lab)?;
    require_instructor(&lab, &headers, "send notices to the lab")?;
    let request: BroadcastRequest = read_json(&body, r#"{"message": "Five minutes left"}"#)?;
    let message = request.message.trim();
    let length = message.chars().count();
    if length == 0 || length > MAX_NOTICE_CHARS {
        return Err(AppError::InvalidArgument(format!("a notice needs 1 to {MAX_NOTICE_CHARS} characters")));
    }
    lab.notice("Instructor", message);
    Ok(StatusCode::NO_CONTENT)
}

/// `DELETE /api/labs/{lab}` (instructor): closes the lab for everybody.
pub async fn close_lab(
    State(app): State<Arc<AppState>>,
    Path(lab): Path<String>,
    headers: HeaderMap,
) -> Result<StatusCode, AppError> {
    let lab = find_lab(&app, &lab)?;
    require_instructor(&lab, &headers, "close the lab")?;
    app.labs.remove(lab.id());
    if let Some(store) = &app.store {
        store.lock().expect("store lock").close_lab(lab.id()).map_err(|e| AppError::Internal(e.to_string()))?;
    }
    let closing = Arc::clone(&lab);
    tokio::task::spawn_blocking(move || closing.close())
        .await
        .map_err(|e| AppError::Internal(format!("closing the lab failed: {e}")))?;
    tracing::info!(lab = %lab.id(), "lab closed");
    Ok(StatusCode::NO_CONTENT)
}

/// `name` as a library file name (`diffbot` → `diffbot.vlab`), if the library has it.
fn library_file(app: &AppState, name: &str) -> Result<String, AppError> {
    let file = if name.ends_with(".vlab") { name.to_owned() } else { format!("{name}.vlab") };
    let plain =
        file.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')) && !file.starts_with('.');
    if !plain || !app.scenes_dir.join(&file).is_file() {
        return Err(AppError::NotFound(format!("no scene '{name}' in the library; GET /api/scenes lists them")));
    }
    Ok(file)
}

/// A URL-safe id from the lab's name, unique on this server (`physics-1-k7mp`).
fn unique_id(app: &AppState, name: &str) -> String {
    let mut slug: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect::<String>()
        .split('-')
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    slug.truncate(24);
    if slug.is_empty() {
        slug = "lab".into();
    }
    loop {
        let suffix = new_join_code().to_ascii_lowercase();
        let id = format!("{}-{}", slug.trim_end_matches('-'), &suffix[..4]);
        if app.labs.get(&id).is_none() {
            return id;
        }
    }
}

fn read_json<T: DeserializeOwned>(body: &[u8], example: &str) -> Result<T, AppError> {
    serde_json::from_slice(body)
        .map_err(|e| AppError::BadRequest(format!("unreadable request ({e}); expected e.g. {example}")))
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
