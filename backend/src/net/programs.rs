//! Robot programs over HTTP: which uploaded file is which robot's program, checked
//! before anything changes; replacing, restarting and stopping a robot's program (its
//! owner or the instructor); reading it back with its console.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, StatusCode};
use vlab_protocol::{Language, ProgramSource, ProgramStatus, SceneUploadReply, SourceMessage};

use super::auth::require_owner_or_instructor;
use super::http::find_lab;
use super::scene_upload::{Bundle, find_word, read_form};
use super::{AppError, AppState};
use crate::controller::{self, CodeProblem, ProgramCode};
use crate::lab::{LabHandle, ProgramAction};
use crate::scene::{SceneModel, SourceLoader, parse_project};
use crate::store::Insertion;

/// The programs an upload brings, by robot name: a robot whose scene names its program
/// (`code "bot.py"`, `code "bot.rprj"`) gets that one, from the upload or else the
/// scene library; the form's `program` file goes to the one robot that names none.
pub fn resolve(
    model: &SceneModel,
    bundle: &Bundle,
    library: &dyn SourceLoader,
) -> Result<BTreeMap<String, ProgramCode>, Vec<SourceMessage>> {
    let mut programs = BTreeMap::new();
    let mut errors = Vec::new();
    let mut unnamed = Vec::new();
    for robot in &model.robots {
        let Some(reference) = &robot.program else {
            unnamed.push(robot.name.as_str());
            continue;
        };
        let at = |message: String| {
            let (line, col) = find_word(&bundle.main_text, &reference.file).unwrap_or((1, 1));
            SourceMessage { file: bundle.main_name.clone(), line, col, message }
        };
        let lower = reference.file.to_ascii_lowercase();
        let code = if lower.ends_with(".rprj") {
            // The scene interpreter read the project file if it could; a project that is
            // not here at all leaves the robot without a program, as it warned.
            let Some(project) = &reference.project else { continue };
            match Language::from_project_type(&project.language) {
                None => Err(at(format!(
                    "'{}' asks for TYPE:{}, which this server does not run: use PYTHON or WASM",
                    reference.file, project.language
                ))),
                Some(language) => assemble(language, &project.sources, bundle, library).map_err(at),
            }
        } else {
            match Language::from_file_name(&reference.file) {
                None => Err(at(format!(
                    "robot '{}' names the program '{}': use a .py file, a .wasm module or a .rprj project",
                    robot.name, reference.file
                ))),
                Some(language) => {
                    assemble(language, std::slice::from_ref(&reference.file), bundle, library).map_err(at)
                }
            }
        };
        match code {
            Ok(code) => {
                programs.insert(robot.name.clone(), code);
            }
            Err(error) => errors.push(error),
        }
    }
    if let Some(field) = &bundle.program {
        let whole = |message: String| SourceMessage { file: field.clone(), line: 1, col: 1, message };
        match unnamed.as_slice() {
            [robot] => match program_of_field(field, bundle, library) {
                Ok(code) => {
                    programs.insert((*robot).to_owned(), code);
                }
                Err(error) => errors.push(error),
            },
            [] => errors.push(whole(format!(
                "the program '{field}' has no robot to run: every robot of the description names its own with `code`"
            ))),
            several => errors.push(whole(format!(
                "the program '{field}' could go to any of {}: name each robot's program with `code \"file\"`",
                several.join(", ")
            ))),
        }
    }
    if errors.is_empty() { Ok(programs) } else { Err(errors) }
}

/// The program the form's `program` file stands for (a main file or a project file).
fn program_of_field(field: &str, bundle: &Bundle, library: &dyn SourceLoader) -> Result<ProgramCode, SourceMessage> {
    let whole = |line: u32, message: String| SourceMessage { file: field.to_owned(), line, col: 1, message };
    if field.to_ascii_lowercase().ends_with(".rprj") {
        let text = bundle.files.get(field).ok_or_else(|| whole(1, "the project file is not text".into()))?;
        let project = parse_project(text).map_err(|(line, message)| whole(line, message))?;
        let language = Language::from_project_type(&project.language).ok_or_else(|| {
            whole(1, format!("TYPE:{} is not a language this server runs: use PYTHON or WASM", project.language))
        })?;
        return assemble(language, &project.sources, bundle, library).map_err(|m| whole(1, m));
    }
    let language = Language::from_file_name(field).ok_or_else(|| {
        whole(1, format!("'{field}' is not a program: upload a .py file, a .wasm module or a .rprj project file"))
    })?;
    assemble(language, &[field.to_owned()], bundle, library).map_err(|m| whole(1, m))
}

/// A program of `language` whose first source is its main file: Python takes every
/// `.py` file of the upload along, so a program can import its helpers.
fn assemble(
    language: Language,
    sources: &[String],
    bundle: &Bundle,
    library: &dyn SourceLoader,
) -> Result<ProgramCode, String> {
    let main = sources.first().ok_or("the project names no SRC file")?;
    match language {
        Language::Wasm => match bundle.binaries.get(main) {
            Some(bytes) => Ok(ProgramCode::wasm(main, Arc::from(bytes.as_ref()))),
            None => Err(format!("the module '{main}' was not uploaded with the robot")),
        },
        Language::Python => {
            let mut files: BTreeMap<String, String> = bundle
                .files
                .iter()
                .filter(|(name, _)| name.to_ascii_lowercase().ends_with(".py"))
                .map(|(name, text)| (name.clone(), text.clone()))
                .collect();
            for source in sources {
                if !files.contains_key(source) {
                    let text = library
                        .load(source)
                        .map_err(|_| format!("the program file '{source}' was not uploaded with the robot"))?;
                    files.insert(source.clone(), text);
                }
            }
            Ok(ProgramCode::python(main, files))
        }
    }
}

/// The program a stored replacement stands for (at start-up, replaying the store).
pub fn program_of_field_for_replay(
    field: &str,
    bundle: &Bundle,
    library: &dyn SourceLoader,
) -> Result<ProgramCode, String> {
    program_of_field(field, bundle, library).map_err(|e| format!("{}:{}: {}", e.file, e.line, e.message))
}

/// Checks every program (off the async threads: a syntax check runs the interpreter).
pub async fn check_all(programs: &BTreeMap<String, ProgramCode>) -> Result<(), Vec<SourceMessage>> {
    let programs: Vec<ProgramCode> = programs.values().cloned().collect();
    let problems = tokio::task::spawn_blocking(move || {
        programs.iter().filter_map(|code| controller::check(code).err()).flatten().collect::<Vec<CodeProblem>>()
    })
    .await
    .unwrap_or_else(|e| {
        vec![CodeProblem { file: String::new(), line: 1, col: 1, message: format!("the check stopped: {e}") }]
    });
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems
            .into_iter()
            .map(|p| SourceMessage { file: p.file, line: p.line, col: p.col, message: p.message })
            .collect())
    }
}

/// `GET /api/labs/{lab}/robots/{robot}/program` (its owner or the instructor): the
/// program's files, for the editor.
pub async fn get_program(
    State(app): State<Arc<AppState>>,
    Path((lab, robot)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Json<ProgramSource>, AppError> {
    let lab = find_lab(&app, &lab)?;
    owned_robot(&lab, &headers, &robot, "read its program")?;
    match lab.program(&robot).await? {
        Some((code, _)) => Ok(Json(code.source())),
        None => Err(AppError::NotFound(format!("robot '{robot}' has no program"))),
    }
}

/// `PUT /api/labs/{lab}/robots/{robot}/program` (its owner or the instructor): a new
/// program (multipart `program` and its helper files, or a Python file as the plain
/// body), checked first; the old one stops, the robot stays where it is.
pub async fn put_program(
    State(app): State<Arc<AppState>>,
    Path((lab, robot)): Path<(String, String)>,
    headers: HeaderMap,
    request: Request,
) -> Result<(StatusCode, Json<SceneUploadReply>), AppError> {
    let lab = find_lab(&app, &lab)?;
    owned_robot(&lab, &headers, &robot, "replace its program")?;
    let form = read_form(&headers, request, "main.py").await?;
    let field = form.program.clone().or_else(|| form.main_name_if_plain()).ok_or_else(|| {
        AppError::BadRequest("the form has no 'program' file: put the program in a field named 'program'".into())
    })?;
    let bundle = form.into_bundle_with_program(field.clone());
    let library = crate::scene::DirLoader { scenes: app.scenes_dir.clone(), assets: None };
    let refuse = |errors: Vec<SourceMessage>| {
        let reply = SceneUploadReply { errors, robots: vec![robot.clone()], ..SceneUploadReply::default() };
        Ok((StatusCode::UNPROCESSABLE_ENTITY, Json(reply)))
    };
    let code = match program_of_field(&field, &bundle, &library) {
        Ok(code) => code,
        Err(error) => return refuse(vec![error]),
    };
    let programs = BTreeMap::from([(robot.clone(), code)]);
    if let Err(errors) = check_all(&programs).await {
        return refuse(errors);
    }
    let code = programs.into_values().next().expect("one program");
    if lab.set_program(&robot, code).await?.is_none() {
        return Err(AppError::NotFound(format!("no robot '{robot}' in lab '{}'", lab.id())));
    }
    if let Some(store) = &app.store {
        let replaced = Insertion::Program {
            robot: robot.clone(),
            program: field,
            files: bundle.files.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            binaries: bundle.binaries.iter().map(|(k, v)| (k.clone(), v.to_vec())).collect(),
        };
        if let Err(e) = store.lock().expect("store lock").record_insertion(lab.id(), &replaced) {
            tracing::error!(lab = %lab.id(), error = %e, "could not keep a program for restarts");
        }
    }
    tracing::info!(lab = %lab.id(), %robot, "program replaced");
    Ok((StatusCode::OK, Json(SceneUploadReply { ok: true, robots: vec![robot], ..SceneUploadReply::default() })))
}

/// `POST /api/labs/{lab}/robots/{robot}/program/restart` (its owner or the instructor).
pub async fn restart_program(
    State(app): State<Arc<AppState>>,
    Path((lab, robot)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Json<ProgramStatus>, AppError> {
    act(&app, &lab, &robot, &headers, ProgramAction::Restart, "restart its program").await
}

/// `POST /api/labs/{lab}/robots/{robot}/program/stop` (its owner or the instructor).
pub async fn stop_program(
    State(app): State<Arc<AppState>>,
    Path((lab, robot)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Json<ProgramStatus>, AppError> {
    act(&app, &lab, &robot, &headers, ProgramAction::Stop, "stop its program").await
}

async fn act(
    app: &AppState,
    lab: &str,
    robot: &str,
    headers: &HeaderMap,
    action: ProgramAction,
    what: &str,
) -> Result<Json<ProgramStatus>, AppError> {
    let lab = find_lab(app, lab)?;
    owned_robot(&lab, headers, robot, what)?;
    lab.program_action(robot, action)
        .await?
        .map(Json)
        .ok_or_else(|| AppError::NotFound(format!("robot '{robot}' has no program: upload one first")))
}

/// The robot exists and the caller may touch it.
fn owned_robot(lab: &LabHandle, headers: &HeaderMap, robot: &str, what: &str) -> Result<(), AppError> {
    if !lab.has_robot(robot) {
        return Err(AppError::NotFound(format!("no robot '{robot}' in lab '{}'", lab.id())));
    }
    require_owner_or_instructor(lab, headers, robot, what).map(|_| ())
}

/// Files of a stored upload back in the shape the resolver reads.
pub fn split_stored(assets: BTreeMap<String, Vec<u8>>) -> (HashMap<String, Bytes>, HashMap<String, Bytes>) {
    let mut meshes = HashMap::new();
    let mut binaries = HashMap::new();
    for (name, bytes) in assets {
        if name.to_ascii_lowercase().ends_with(".wasm") {
            binaries.insert(name, Bytes::from(bytes));
        } else {
            meshes.insert(name, Bytes::from(bytes));
        }
    }
    (meshes, binaries)
}
