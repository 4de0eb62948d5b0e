//! `POST /api/labs/{lab}/scene` (the instructor: anything) and `POST /api/labs/{lab}/robots`
//! (a participant: robots only, within their quota, owned by them): interpret an uploaded
//! `.vlab` file (plain text, or a multipart bundle with its included files) and insert
//! it into the running lab, atomically. Errors come back positioned in the file; a
//! failing upload inserts nothing.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{FromRequest, Multipart, Path, Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, StatusCode};
use vlab_protocol::{InsertedCounts, SceneUploadReply, SourceMessage};

use super::auth::{caller_in, require_instructor};
use super::http::find_lab;
use super::{AppError, AppState};
use crate::lab::{Caller, LabHandle, Owner};
use crate::scene::{DirLoader, LoadError, Options, SceneError, SceneModel, SourceLoader, interpret};
use crate::store::Insertion;

/// Largest upload (scene text and every file of a bundle together).
pub const MAX_SCENE_UPLOAD_BYTES: usize = 4 * 1024 * 1024;
/// Name given to a scene uploaded as a plain-text body.
const PLAIN_UPLOAD_NAME: &str = "upload.vlab";

/// File endings of the binary assets (meshes, textures) a bundle may carry.
const ASSET_EXTENSIONS: [&str; 6] = [".obj", ".glb", ".gltf", ".png", ".jpg", ".jpeg"];

/// An uploaded scene: its main file, the files it may include, its meshes, and the
/// robots' programs.
pub struct Bundle {
    /// The main `.vlab` file's name.
    pub main_name: String,
    /// Its text.
    pub main_text: String,
    /// Other text files by name: included `.vlab` files, Python sources, project files.
    pub files: HashMap<String, String>,
    /// Meshes and textures by name.
    pub assets: HashMap<String, Bytes>,
    /// WebAssembly modules by name.
    pub binaries: HashMap<String, Bytes>,
    /// The name of the file sent as the form's `program` field, if any.
    pub program: Option<String>,
}

/// A form as read, before it is known what its main file is.
pub struct Form {
    main: Option<(String, String)>,
    plain: bool,
    files: HashMap<String, String>,
    assets: HashMap<String, Bytes>,
    binaries: HashMap<String, Bytes>,
    /// The name of the file sent as the `program` field, if any.
    pub program: Option<String>,
}

impl Form {
    /// The name a plain-text body was given (`None` for a multipart form).
    pub fn main_name_if_plain(&self) -> Option<String> {
        if self.plain { self.main.as_ref().map(|(name, _)| name.clone()) } else { None }
    }

    /// The form as a program upload whose program is the file `program`.
    pub fn into_bundle_with_program(mut self, program: String) -> Bundle {
        if let Some((name, text)) = self.main.take() {
            self.files.insert(name, text);
        }
        Bundle {
            main_name: program.clone(),
            main_text: String::new(),
            files: self.files,
            assets: self.assets,
            binaries: self.binaries,
            program: Some(program),
        }
    }

    fn into_bundle(self) -> Result<Bundle, AppError> {
        let (main_name, main_text) = self.main.ok_or_else(|| {
            AppError::BadRequest(
                "the form has no 'scene' (or 'description') field: put the main .vlab file in it".into(),
            )
        })?;
        Ok(Bundle {
            main_name,
            main_text,
            files: self.files,
            assets: self.assets,
            binaries: self.binaries,
            program: self.program,
        })
    }
}

/// Resolves includes and meshes in the upload first, then in the server's library.
struct BundleLoader<'a> {
    files: &'a HashMap<String, String>,
    assets: &'a HashMap<String, Bytes>,
    library: DirLoader,
}

impl SourceLoader for BundleLoader<'_> {
    fn load(&self, name: &str) -> Result<String, LoadError> {
        match self.files.get(name) {
            Some(text) => Ok(text.clone()),
            None => self.library.load(name),
        }
    }

    fn asset_exists(&self, name: &str) -> Option<bool> {
        if self.assets.contains_key(name) { Some(true) } else { self.library.asset_exists(name) }
    }
}

/// Where a lab serves an asset uploaded with a scene. The content's hash is part of the
/// path, so two uploads of different `wheel.obj` files never replace each other.
fn uploaded_asset_path(name: &str, bytes: &[u8]) -> String {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut hasher);
    format!("{:016x}/{name}", hasher.finish())
}

/// The handler. 200 with the counts when inserted; 422 when the file or its model is
/// wrong; 409 when it clashes with the lab (a name in use, a second environment).
pub async fn upload_scene(
    State(app): State<Arc<AppState>>,
    Path(lab): Path<String>,
    headers: HeaderMap,
    request: Request,
) -> Result<(StatusCode, Json<SceneUploadReply>), AppError> {
    let lab = find_lab(&app, &lab)?;
    require_instructor(&lab, &headers, "insert scenes")?;
    let bundle = read_form(&headers, request, PLAIN_UPLOAD_NAME).await?.into_bundle()?;
    interpret_and_insert(&app, &lab, bundle, None, Keep::Record).await
}

/// `POST /api/labs/{lab}/robots`: a participant adds robots (a `.vlab` description
/// holding robots and nothing else), owned by them. Refused while the instructor has
/// locked uploads, and beyond the lab's per-student quota (the instructor has none).
pub async fn upload_robots(
    State(app): State<Arc<AppState>>,
    Path(lab): Path<String>,
    headers: HeaderMap,
    request: Request,
) -> Result<(StatusCode, Json<SceneUploadReply>), AppError> {
    let lab = find_lab(&app, &lab)?;
    let caller = caller_in(&lab, &headers)?;
    let Some(user) = caller.user() else {
        return Err(AppError::Unauthorized("adding a robot needs a session: join the lab with its code first".into()));
    };
    if caller == Caller::Student(user) && lab.settings().uploads_locked {
        return Err(AppError::Forbidden("the instructor has locked uploads in this lab for now".into()));
    }
    let bundle = read_form(&headers, request, PLAIN_UPLOAD_NAME).await?.into_bundle()?;
    let owner = Owner { id: user, name: lab.name_of(user).unwrap_or_default() };
    interpret_and_insert(&app, &lab, bundle, Some((owner, caller)), Keep::Record).await
}

/// Whether an insertion goes into the store (not when it is being replayed from it).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Keep {
    Record,
    Replay,
}

/// Does again, at start-up, an upload the store kept: the same files interpreted with
/// the lab's seed, owned by the same participant. Returns why it failed, if it did.
pub async fn replay(app: &AppState, lab: &Arc<LabHandle>, insertion: Insertion) -> Result<(), String> {
    match insertion {
        Insertion::Removal { robot } => match lab.remove_robot(&robot).await {
            Ok(_) => Ok(()),
            Err(e) => Err(e.to_string()),
        },
        Insertion::Program { robot, program, files, binaries } => {
            let (_, binaries) = super::programs::split_stored(binaries);
            let bundle = Bundle {
                main_name: program.clone(),
                main_text: String::new(),
                files: files.into_iter().collect(),
                assets: HashMap::new(),
                binaries,
                program: Some(program.clone()),
            };
            let library = DirLoader { scenes: app.scenes_dir.clone(), assets: None };
            let code = super::programs::program_of_field_for_replay(&program, &bundle, &library)?;
            match lab.set_program(&robot, code).await {
                Ok(Some(_)) => Ok(()),
                Ok(None) => Err(format!("no robot '{robot}' to give its program back")),
                Err(e) => Err(e.to_string()),
            }
        }
        Insertion::Upload { owner, main_name, main_text, files, assets, program } => {
            let (assets, binaries) = super::programs::split_stored(assets);
            let bundle = Bundle { main_name, main_text, files: files.into_iter().collect(), assets, binaries, program };
            // Accepted once already: no quota or lock applies again.
            let owner = owner.map(|(id, name)| (Owner { id, name }, Caller::Instructor));
            match interpret_and_insert(app, lab, bundle, owner, Keep::Replay).await {
                Ok((StatusCode::OK, _)) => Ok(()),
                Ok((status, Json(reply))) => Err(format!("{status}: {:?}", reply.errors)),
                Err(e) => Err(e.to_string()),
            }
        }
    }
}

/// Interprets `bundle` with the lab's seed and inserts it; with an owner, only robots
/// are accepted, within the owner's quota.
async fn interpret_and_insert(
    app: &AppState,
    lab: &Arc<LabHandle>,
    bundle: Bundle,
    owner: Option<(Owner, Caller)>,
    keep: Keep,
) -> Result<(StatusCode, Json<SceneUploadReply>), AppError> {
    let library = DirLoader { scenes: app.scenes_dir.clone(), assets: Some(app.assets_dir.clone()) };
    let seed = lab.seed();
    let interpreted = {
        let bundle = Arc::new(bundle);
        let shared = Arc::clone(&bundle);
        let result = tokio::task::spawn_blocking(move || {
            let loader = BundleLoader { files: &shared.files, assets: &shared.assets, library };
            interpret(&shared.main_text, &shared.main_name, &loader, &Options { seed, ..Options::default() })
        })
        .await
        .map_err(|e| AppError::Internal(format!("the scene interpreter stopped: {e}")))?;
        (result, bundle)
    };
    let (result, bundle) = interpreted;
    let mut interpretation = match result {
        Ok(interpretation) => interpretation,
        Err(errors) => {
            let reply = SceneUploadReply {
                errors: errors
                    .iter()
                    .map(|e| SourceMessage {
                        file: e.pos.file.to_string(),
                        line: e.pos.line,
                        col: e.pos.col,
                        message: e.kind.to_string(),
                    })
                    .collect(),
                ..SceneUploadReply::default()
            };
            return Ok((StatusCode::UNPROCESSABLE_ENTITY, Json(reply)));
        }
    };
    let warnings = interpretation
        .warnings
        .iter()
        .map(|w| SourceMessage {
            file: w.pos.file.to_string(),
            line: w.pos.line,
            col: w.pos.col,
            message: w.message.clone(),
        })
        .collect();
    // Meshes found in the upload are served by the lab, at a path that names their content.
    let mut served = Vec::new();
    for part in interpretation.model.bodies.iter_mut().flat_map(|b| b.parts.iter_mut()) {
        let Some(mesh) = part.mesh.as_mut() else { continue };
        let Some(name) = mesh.resolved.clone() else { continue };
        if let Some(bytes) = bundle.assets.get(&name) {
            let path = uploaded_asset_path(&name, bytes);
            mesh.resolved = Some(format!("/api/labs/{}/assets/{path}", lab.id()));
            served.push((path, bytes.clone()));
        }
    }
    let mut reply = SceneUploadReply { log: interpretation.log, warnings, ..SceneUploadReply::default() };
    let robots: Vec<String> = interpretation.model.robots.iter().map(|r| r.name.clone()).collect();
    if let Some((owner, caller)) = &owner
        && let Err((status, message)) = robots_only(&interpretation.model, lab, owner, *caller)
    {
        reply.errors.push(SourceMessage { file: bundle.main_name.clone(), line: 1, col: 1, message });
        return Ok((status, Json(reply)));
    }
    let programs = {
        let library = DirLoader { scenes: app.scenes_dir.clone(), assets: None };
        match super::programs::resolve(&interpretation.model, &bundle, &library) {
            Ok(programs) => programs,
            Err(errors) => {
                reply.errors = errors;
                return Ok((StatusCode::UNPROCESSABLE_ENTITY, Json(reply)));
            }
        }
    };
    if let Err(errors) = super::programs::check_all(&programs).await {
        reply.errors = errors;
        return Ok((StatusCode::UNPROCESSABLE_ENTITY, Json(reply)));
    }
    let programs = programs.into_iter().map(|(robot, code)| (robot, Arc::new(code))).collect();
    let owner = owner.map(|(owner, _)| owner);
    let stored_owner = owner.as_ref().map(|o| (o.id, o.name.clone()));
    match lab.insert(interpretation.model, owner, programs).await? {
        Ok(inserted) => {
            if let (Some(store), Keep::Record) = (&app.store, keep) {
                let upload = Insertion::Upload {
                    owner: stored_owner,
                    main_name: bundle.main_name.clone(),
                    main_text: bundle.main_text.clone(),
                    files: bundle.files.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
                    assets: bundle
                        .assets
                        .iter()
                        .chain(&bundle.binaries)
                        .map(|(k, v)| (k.clone(), v.to_vec()))
                        .collect(),
                    program: bundle.program.clone(),
                };
                // Inserted is inserted: a store that fails now costs the restart, not the class.
                if let Err(e) = store.lock().expect("store lock").record_insertion(lab.id(), &upload) {
                    tracing::error!(lab = %lab.id(), error = %e, "could not keep an upload for restarts");
                }
            }
            app.uploaded_assets.add(lab.id(), served);
            reply.ok = true;
            reply.inserted =
                InsertedCounts { bodies: inserted.bodies, joints: inserted.joints, robots: inserted.robots };
            reply.robots = robots;
            lab.broadcast_presence();
            tracing::info!(lab = %lab.id(), file = %bundle.main_name, ?reply.inserted, "scene inserted");
            Ok((StatusCode::OK, Json(reply)))
        }
        Err(error) => {
            let status = match error {
                SceneError::NameTaken(_) | SceneError::EnvironmentAlreadySet => StatusCode::CONFLICT,
                _ => StatusCode::UNPROCESSABLE_ENTITY,
            };
            reply.errors.push(position_of(&error, &bundle));
            Ok((status, Json(reply)))
        }
    }
}

/// Checks a participant's upload: robots and nothing else, within their quota.
fn robots_only(model: &SceneModel, lab: &LabHandle, owner: &Owner, caller: Caller) -> Result<(), (StatusCode, String)> {
    let refuse = |message: String| Err((StatusCode::UNPROCESSABLE_ENTITY, message));
    if model.robots.is_empty() {
        return refuse("no robot in this file: a robot upload declares `robot name { body { ... } }`".into());
    }
    if model.environment.is_some() {
        return refuse("a robot upload may not declare an environment (the lab has its own)".into());
    }
    if let Some(body) = model.bodies.iter().find(|b| b.robot.is_none()) {
        return refuse(format!("a robot upload may only contain robots: '{}' is not part of one", body.name));
    }
    if let Some(device) = model.sensors.iter().chain(&model.actuators).find(|d| d.robot.is_none()) {
        return refuse(format!("a robot upload may only contain robots: device '{}' is outside them", device.name));
    }
    let quota = lab.settings().robot_quota as usize;
    let (have, adding) = (lab.robots_of(owner.id), model.robots.len());
    if matches!(caller, Caller::Student(_)) && have + adding > quota {
        return Err((
            StatusCode::FORBIDDEN,
            format!(
                "you may have {quota} robot(s) in this lab; you have {have} and this adds {adding}: remove one first"
            ),
        ));
    }
    Ok(())
}

/// Points a lab-level error at the place in the upload it concerns: the first mention
/// of the clashing name, or of `environment`; else the start of the main file.
fn position_of(error: &SceneError, bundle: &Bundle) -> SourceMessage {
    let needle = match error {
        SceneError::NameTaken(name) => Some(name.as_str()),
        SceneError::EnvironmentAlreadySet => Some("environment"),
        _ => None,
    };
    let mut files: Vec<(&String, &String)> = vec![(&bundle.main_name, &bundle.main_text)];
    files.extend(bundle.files.iter());
    let found = needle.and_then(|needle| {
        files.iter().find_map(|(name, text)| find_word(text, needle).map(|(line, col)| ((*name).clone(), line, col)))
    });
    let (file, line, col) = found.unwrap_or_else(|| (bundle.main_name.clone(), 1, 1));
    SourceMessage { file, line, col, message: error.to_string() }
}

/// 1-based line and column (in characters) of the first whole-word occurrence.
pub fn find_word(text: &str, word: &str) -> Option<(u32, u32)> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    for (line_index, line) in text.lines().enumerate() {
        let mut from = 0;
        while let Some(offset) = line[from..].find(word) {
            let start = from + offset;
            let end = start + word.len();
            let before_ok = line[..start].chars().next_back().is_none_or(|c| !is_word(c));
            let after_ok = line[end..].chars().next().is_none_or(|c| !is_word(c));
            if before_ok && after_ok {
                return Some((line_index as u32 + 1, line[..start].chars().count() as u32 + 1));
            }
            from = end;
        }
    }
    None
}

/// Reads an upload: a plain-text body (the main file, called `plain_name`) or a
/// multipart form. In a form, `scene` or `description` is the main `.vlab` file,
/// `program` a robot's program; any other part is a file under its own name: meshes,
/// textures and `.wasm` modules as bytes, the rest as text.
pub async fn read_form(headers: &HeaderMap, request: Request, plain_name: &str) -> Result<Form, AppError> {
    let is_multipart = headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("multipart/form-data"));
    let mut form = Form {
        main: None,
        plain: !is_multipart,
        files: HashMap::new(),
        assets: HashMap::new(),
        binaries: HashMap::new(),
        program: None,
    };
    if !is_multipart {
        let body = Bytes::from_request(request, &())
            .await
            .map_err(|e| AppError::BadRequest(format!("could not read the upload: {e}")))?;
        let text = String::from_utf8(body.to_vec())
            .map_err(|_| AppError::BadRequest("the upload is not UTF-8 text".into()))?;
        form.main = Some((plain_name.into(), text));
        return Ok(form);
    }
    let mut multipart = Multipart::from_request(request, &())
        .await
        .map_err(|e| AppError::BadRequest(format!("not a readable multipart form: {e}")))?;
    while let Some(field) = multipart
        .next_field()
        .await
        .map_err(|e| AppError::BadRequest(format!("a part of the form could not be read: {e}")))?
    {
        let field_name = field.name().unwrap_or_default().to_owned();
        let file_name = field.file_name().map(str::to_owned);
        let is_main = field_name == "scene" || field_name == "description";
        let name = match (&file_name, field_name.as_str()) {
            (Some(file), _) => file.clone(),
            (None, "program") => "main.py".to_owned(),
            (None, _) => field_name.clone(),
        };
        if !is_main && (name.starts_with('/') || name.split('/').any(|part| part == ".." || part.is_empty())) {
            return Err(AppError::BadRequest(format!("'{name}' is not a plain relative file name")));
        }
        let lower = name.to_ascii_lowercase();
        let binary = lower.ends_with(".wasm");
        if !is_main && (binary || ASSET_EXTENSIONS.iter().any(|ext| lower.ends_with(ext))) {
            let bytes = field
                .bytes()
                .await
                .map_err(|e| AppError::BadRequest(format!("the part '{name}' could not be read: {e}")))?;
            if field_name == "program" {
                form.program = Some(name.clone());
            }
            if binary {
                form.binaries.insert(name, bytes)
            } else {
                form.assets.insert(name, bytes)
            };
            continue;
        }
        let text = field
            .text()
            .await
            .map_err(|e| AppError::BadRequest(format!("the part '{field_name}' is not UTF-8 text: {e}")))?;
        if is_main {
            form.main = Some((file_name.unwrap_or_else(|| PLAIN_UPLOAD_NAME.into()), text));
        } else {
            if field_name == "program" {
                form.program = Some(name.clone());
            }
            form.files.insert(name, text);
        }
    }
    Ok(form)
}

/// Assets uploaded with scenes, per lab, kept in memory while the server runs.
#[derive(Default)]
pub struct UploadedAssets {
    by_lab: std::sync::RwLock<HashMap<String, HashMap<String, Bytes>>>,
}

impl UploadedAssets {
    fn add(&self, lab: &str, assets: Vec<(String, Bytes)>) {
        if assets.is_empty() {
            return;
        }
        self.by_lab.write().expect("assets lock").entry(lab.to_owned()).or_default().extend(assets);
    }

    fn get(&self, lab: &str, path: &str) -> Option<Bytes> {
        self.by_lab.read().expect("assets lock").get(lab)?.get(path).cloned()
    }
}

/// `GET /api/labs/{lab}/assets/{*path}`: an asset uploaded with one of the lab's scenes.
pub async fn uploaded_asset(
    State(app): State<Arc<AppState>>,
    Path((lab, path)): Path<(String, String)>,
) -> Result<axum::response::Response, AppError> {
    use axum::response::IntoResponse;
    let bytes = app
        .uploaded_assets
        .get(&lab, &path)
        .ok_or_else(|| AppError::NotFound(format!("no uploaded asset '{path}' in lab '{lab}'")))?;
    let content_type = match path.rsplit('.').next().map(str::to_ascii_lowercase).as_deref() {
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("glb") => "model/gltf-binary",
        Some("gltf") => "model/gltf+json",
        _ => "text/plain",
    };
    Ok(([(CONTENT_TYPE, content_type)], bytes).into_response())
}

/// Folder defaults, relative to the workspace this binary was built from.
pub fn default_dir(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_found_whole_with_one_based_positions() {
        let text = "box b1 {}\n  box b { pos(0,0,0); }\n";
        assert_eq!(find_word(text, "b"), Some((2, 7)));
        assert_eq!(find_word(text, "b1"), Some((1, 5)));
        assert_eq!(find_word(text, "zzz"), None);
    }
}
