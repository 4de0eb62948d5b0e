//! Which uploaded file is which robot's program, and checking them before anything
//! changes. A project file (`.rprj`) is parsed once: by the scene interpreter when a
//! robot names it with `code`, here only when it arrives on its own (the form's
//! `program` field for a robot that names none, or a replacement). A program's type,
//! from its project's `TYPE:` or its main file's ending, comes from the one registry
//! (`controller::compile`); C and C++ are compiled here, before the robot is inserted.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use bytes::Bytes;
use vlab_protocol::{Language, SourceMessage};

use super::bundle::Bundle;
use super::interpret::find_word;
use crate::classroom::ClassroomError;
use vlab_programs::compile::{self, CompileError, CompileRequest, Compiler, ProgramType};
use vlab_programs::{self as controller, CodeProblem, ProgramCode};
use vlab_scene::read_project;
use vlab_sim::scene::{ProgramRate, SceneModel, SourceLoader, parse_project};

/// A robot's program as resolved: ready to check, or sources to compile first.
#[derive(Clone, Debug)]
pub enum Pending {
    /// Python or a WebAssembly module: as it is.
    Ready(ProgramCode),
    /// C or C++: the compiler makes its module, run at the rate its project states.
    Source(CompileRequest, Option<ProgramRate>),
}

impl Pending {
    /// The same, at the rate its project file states (`RATE:`).
    fn at_rate(self, rate: Option<ProgramRate>) -> Pending {
        match self {
            Pending::Ready(code) => Pending::Ready(code.at_rate(rate)),
            Pending::Source(request, _) => Pending::Source(request, rate),
        }
    }
}

/// The programs an upload brings, by robot name. A robot whose description names its
/// program (`code "bot.py"`, `code "bot.rprj"`) gets that one, from the upload or else
/// the scene library. The form's `program` file goes to the robot that names it, or,
/// when no robot names it, to the one robot that names no program.
pub fn resolve(
    model: &SceneModel,
    bundle: &Bundle,
    library: &dyn SourceLoader,
) -> Result<BTreeMap<String, Pending>, Vec<SourceMessage>> {
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
        let code = if is_project(&reference.file) {
            // The scene interpreter read the project file if it could; a project that is
            // not here at all leaves the robot without a program, as it warned.
            let Some(project) = &reference.project else { continue };
            match compile::by_project_type(&project.language) {
                None => Err(at(format!(
                    "'{}' asks for TYPE:{}, which this server does not run: use {}",
                    reference.file,
                    project.language,
                    compile::known_types()
                ))),
                Some(kind) => assemble(kind, &project.sources, bundle, library)
                    .map(|pending| pending.at_rate(project.rate))
                    .map_err(at),
            }
        } else {
            match compile::by_file_name(&reference.file) {
                None => Err(at(format!(
                    "robot '{}' names the program '{}': use a {} file or a .rprj project",
                    robot.name,
                    reference.file,
                    compile::known_extensions()
                ))),
                Some(kind) => assemble(kind, std::slice::from_ref(&reference.file), bundle, library).map_err(at),
            }
        };
        match code {
            Ok(code) => {
                programs.insert(robot.name.clone(), code);
            }
            Err(error) => errors.push(error),
        }
    }
    let named_by_a_robot = |field: &str| {
        model.robots.iter().filter_map(|robot| robot.program.as_ref()).any(|reference| reference.file == field)
    };
    if let Some(field) = bundle.program.as_deref().filter(|field| !named_by_a_robot(field)) {
        let whole = |message: String| SourceMessage { file: field.to_owned(), line: 1, col: 1, message };
        match unnamed.as_slice() {
            [robot] => match program_of_file(field, bundle, library) {
                Ok(code) => {
                    programs.insert((*robot).to_owned(), code);
                }
                Err(error) => errors.push(error),
            },
            [] => errors.push(whole(format!(
                "the program '{field}' has no robot to run: every robot of the description names its own with `code`, and none names '{field}'"
            ))),
            several => errors.push(whole(format!(
                "the program '{field}' could go to any of {}: name each robot's program with `code \"file\"`",
                several.join(", ")
            ))),
        }
    }
    if errors.is_empty() { Ok(programs) } else { Err(errors) }
}

/// Warnings for the program files of an upload that no robot runs, when none of its
/// robots got a program: most likely a program sent under another part name than the
/// form's `program` (`-F file=@main.py`). The robots are inserted all the same (a robot
/// may be driven by hand, or given a program later); the warning says why they stand
/// still and how to send the program.
pub fn unrun(model: &SceneModel, bundle: &Bundle, programs: &BTreeMap<String, Pending>) -> Vec<SourceMessage> {
    if model.robots.is_empty() || !programs.is_empty() || bundle.program.is_some() {
        return Vec::new();
    }
    let is_program = |name: &&String| compile::by_file_name(name).is_some() || is_project(name);
    let mut files: Vec<&String> = bundle.files.keys().chain(bundle.binaries.keys()).filter(is_program).collect();
    files.sort();
    let robots = model.robots.iter().map(|robot| robot.name.as_str()).collect::<Vec<_>>().join(", ");
    files
        .into_iter()
        .map(|file| SourceMessage {
            file: file.clone(),
            line: 1,
            col: 1,
            message: format!(
                "no robot runs '{file}', so {robots} will stand still: send it as the form's `program` part \
                 (`-F program=@{file}`), or name it in the robot's description with `code \"{file}\";`"
            ),
        })
        .collect()
}

/// The program that file `field` of the upload stands for: a main file, or a project
/// file naming the sources.
pub fn program_of_file(field: &str, bundle: &Bundle, library: &dyn SourceLoader) -> Result<Pending, SourceMessage> {
    let whole = |line: u32, message: String| SourceMessage { file: field.to_owned(), line, col: 1, message };
    if is_project(field) {
        let text = bundle.files.get(field).ok_or_else(|| whole(1, "the project file is not text".into()))?;
        let project = parse_project(text).map_err(|(line, message)| whole(line, message))?;
        let kind = compile::by_project_type(&project.language).ok_or_else(|| {
            whole(
                1,
                format!("TYPE:{} is not a language this server runs: use {}", project.language, compile::known_types()),
            )
        })?;
        return assemble(kind, &project.sources, bundle, library)
            .map(|pending| pending.at_rate(project.rate))
            .map_err(|m| whole(1, m));
    }
    let kind = compile::by_file_name(field).ok_or_else(|| {
        whole(
            1,
            format!(
                "'{field}' is not a program: upload a {} file or a .rprj project file",
                compile::known_extensions()
            ),
        )
    })?;
    assemble(kind, &[field.to_owned()], bundle, library).map_err(|m| whole(1, m))
}

fn is_project(file: &str) -> bool {
    file.to_ascii_lowercase().ends_with(".rprj")
}

/// A program of type `kind` whose first source is its main file: Python takes every
/// `.py` file of the upload along, so a program can import its helpers; C and C++ take
/// every source and header of the upload along, so a source can include them.
fn assemble(
    kind: &ProgramType,
    sources: &[String],
    bundle: &Bundle,
    library: &dyn SourceLoader,
) -> Result<Pending, String> {
    let main = sources.first().ok_or("the project names no SRC file")?;
    if let Some(language) = kind.compiles {
        let is_source =
            |name: &str| compile::is_header(name) || compile::by_file_name(name).is_some_and(|t| t.compiles.is_some());
        let mut files: BTreeMap<String, String> = bundle
            .files
            .iter()
            .filter(|(name, _)| is_source(name))
            .map(|(name, text)| (name.clone(), text.clone()))
            .collect();
        add_from_library(&mut files, sources, library)?;
        return Ok(Pending::Source(CompileRequest { language, sources: sources.to_vec(), files }, None));
    }
    match kind.runs_as {
        Language::Wasm => match bundle.binaries.get(main) {
            Some(bytes) => Ok(Pending::Ready(ProgramCode::wasm(main, Arc::from(bytes.as_ref())))),
            None => Err(format!("the module '{main}' was not uploaded with the robot")),
        },
        Language::Python => {
            let mut files: BTreeMap<String, String> = bundle
                .files
                .iter()
                .filter(|(name, _)| name.to_ascii_lowercase().ends_with(".py"))
                .map(|(name, text)| (name.clone(), text.clone()))
                .collect();
            add_from_library(&mut files, sources, library)?;
            Ok(Pending::Ready(ProgramCode::python(main, files)))
        }
    }
}

/// The sources not in the upload, from the scene library.
fn add_from_library(
    files: &mut BTreeMap<String, String>,
    sources: &[String],
    library: &dyn SourceLoader,
) -> Result<(), String> {
    for source in sources {
        if !files.contains_key(source) {
            let text = library
                .load(source)
                .map_err(|_| format!("the program file '{source}' was not uploaded with the robot"))?;
            files.insert(source.clone(), text);
        }
    }
    Ok(())
}

/// Makes every program ready to run: C and C++ compiled for `who` (`None`: the server
/// restoring), one after another, on the compiler's threads; its sources are kept with
/// the module, for the editor. Returns the programs and the compiler's warnings; a
/// program that does not compile refuses the upload with its errors at their places
/// (through `invalid`), a busy compiler with 503, a second compile of the same student
/// with 429.
pub async fn build_all(
    compiler: &Compiler,
    pending: BTreeMap<String, Pending>,
    who: Option<String>,
    invalid: impl Fn(Vec<SourceMessage>) -> ClassroomError,
) -> Result<(BTreeMap<String, ProgramCode>, Vec<SourceMessage>), ClassroomError> {
    let mut programs = BTreeMap::new();
    let mut warnings = Vec::new();
    for (robot, program) in pending {
        let (request, rate) = match program {
            Pending::Ready(code) => {
                programs.insert(robot, code);
                continue;
            }
            Pending::Source(request, rate) => (request, rate),
        };
        let main = request.main().to_owned();
        match compiler.compile(request.clone(), who.clone()).await {
            Ok(compiled) => {
                warnings.extend(compiled.warnings.into_iter().map(message_of));
                let mut code = ProgramCode::wasm(&main, compiled.module).at_rate(rate);
                code.files = request.files;
                programs.insert(robot, code);
            }
            Err(error @ CompileError::AlreadyCompiling) => {
                return Err(ClassroomError::TooMany { message: error.to_string(), retry_after: 5 });
            }
            Err(error @ CompileError::Busy { .. }) => {
                return Err(ClassroomError::Busy { message: error.to_string(), retry_after: 30 });
            }
            Err(error) => {
                tracing::info!(%robot, %error, "a program did not compile");
                return Err(invalid(error.problems(&main).into_iter().map(message_of).collect()));
            }
        }
    }
    Ok((programs, warnings))
}

fn message_of(problem: CodeProblem) -> SourceMessage {
    SourceMessage { file: problem.file, line: problem.line, col: problem.col, message: problem.message }
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

/// Files of a stored upload back in the shape the resolver reads: meshes and textures,
/// then WebAssembly modules.
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

/// Warnings for the lines the form's project file skipped (`INCLUDE_DIR:...`), when no
/// robot names it: a robot's `code` has the scene interpreter read it, which warns
/// itself.
pub fn form_project_warnings(model: &SceneModel, bundle: &Bundle) -> Vec<SourceMessage> {
    let Some(field) = bundle.program.as_deref().filter(|field| is_project(field)) else { return Vec::new() };
    let named = model.robots.iter().filter_map(|robot| robot.program.as_ref()).any(|reference| reference.file == field);
    if named {
        return Vec::new();
    }
    project_warnings(field, bundle)
}

/// The warnings of the project file `field` of the upload, if it is one and reads.
pub fn project_warnings(field: &str, bundle: &Bundle) -> Vec<SourceMessage> {
    let Some(parsed) = bundle.files.get(field).filter(|_| is_project(field)).and_then(|t| read_project(t).ok()) else {
        return Vec::new();
    };
    parsed
        .warnings
        .into_iter()
        .map(|w| SourceMessage { file: field.to_owned(), line: w.line, col: 1, message: w.message })
        .collect()
}
