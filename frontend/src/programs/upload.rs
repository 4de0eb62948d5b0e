//! Robot programs in the browser, the pure part: the files a student sends (a `.vlab`
//! description, a Python program or a WebAssembly module, helper modules), the multipart
//! parts they become, the example robots and their placeholders, and what the server's
//! answers mean.
//!
//! The `fetch` and the file reading live in `programs::client`; everything here is plain
//! data, tested on the host.

use vlab_protocol::{
    ChosenStart, ExampleRobot, Language, ProgramSource, ProgramStatus, SceneUploadReply, SourceMessage,
};

use crate::api::{ApiError, Body, Part, PartBody, error_sentence};
use crate::scene::upload::{PickedFile, UploadOutcome, interpret_response};

/// The file name the description is sent under (errors in it name this file).
pub const DESCRIPTION_NAME: &str = "robot.vlab";
/// The program's name when the student typed it rather than opening a file.
pub const DEFAULT_PROGRAM_NAME: &str = "main.py";
/// The example picker's choice meaning "no example: my own description".
pub const NO_EXAMPLE: &str = "";

/// Which highlighter an editor uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EditorSyntax {
    /// `.vlab` scenes and robot descriptions.
    Vlab,
    /// Python programs.
    Python,
    /// Anything else (a `.rprj` project file): plain, escaped text.
    Plain,
}

impl EditorSyntax {
    /// The highlighter for a file of this name.
    pub fn for_file_name(name: &str) -> EditorSyntax {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".py") {
            EditorSyntax::Python
        } else if lower.ends_with(".vlab") {
            EditorSyntax::Vlab
        } else {
            EditorSyntax::Plain
        }
    }

    /// The overlay's HTML of `text`.
    pub fn highlight_html(self, text: &str) -> String {
        match self {
            EditorSyntax::Vlab => crate::scene::syntax::highlight_html(text),
            EditorSyntax::Python => crate::programs::python_syntax::highlight_html(text),
            EditorSyntax::Plain => {
                let whole = [crate::scene::syntax::Token {
                    kind: crate::scene::syntax::TokenKind::Plain,
                    range: 0..text.len(),
                }];
                crate::scene::syntax::tokens_html(text, if text.is_empty() { &[] } else { &whole })
            }
        }
    }
}

/// The program's main file as the editor holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProgramBody {
    /// Source text (Python, or a `.rprj` project file), edited in the editor.
    Text(String),
    /// A WebAssembly module: bytes, not editable.
    Wasm(Vec<u8>),
}

/// The program's main file: its name and content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProgramFile {
    /// File name, as sent (`main.py`, `bot.wasm`, `bot.rprj`).
    pub name: String,
    /// Its content.
    pub body: ProgramBody,
}

impl ProgramFile {
    /// An empty `main.py`.
    pub fn empty() -> ProgramFile {
        ProgramFile { name: DEFAULT_PROGRAM_NAME.to_owned(), body: ProgramBody::Text(String::new()) }
    }

    /// Whether there is nothing to send: no module and only blank text.
    pub fn is_blank(&self) -> bool {
        match &self.body {
            ProgramBody::Text(text) => text.trim().is_empty(),
            ProgramBody::Wasm(bytes) => bytes.is_empty(),
        }
    }

    /// `WebAssembly module, 1234 bytes`, `Python, 12 lines`, `project file`.
    pub fn summary(&self) -> String {
        match &self.body {
            // A module loaded back from the server: its bytes are not sent back.
            ProgramBody::Wasm(bytes) if bytes.is_empty() => {
                "WebAssembly module (kept on the server: open a .wasm file to replace it)".to_owned()
            }
            ProgramBody::Wasm(bytes) => format!("WebAssembly module, {} bytes", bytes.len()),
            ProgramBody::Text(text) => match Language::from_file_name(&self.name) {
                Some(Language::Python) => {
                    let lines = text.lines().count();
                    format!("Python, {lines} line{}", if lines == 1 { "" } else { "s" })
                }
                _ => "project file".to_owned(),
            },
        }
    }
}

/// The program's parts: `program` (the main file), then each helper under its own name.
pub fn program_parts(program: &ProgramFile, helpers: &[PickedFile]) -> Vec<Part> {
    let main = Part {
        field: "program".to_owned(),
        filename: program.name.clone(),
        body: match &program.body {
            ProgramBody::Text(text) => PartBody::Text(text.clone()),
            ProgramBody::Wasm(bytes) => PartBody::Wasm(bytes.clone()),
        },
    };
    let mut parts = vec![main];
    parts.extend(helpers.iter().filter(|helper| helper.name != program.name).map(PickedFile::part));
    parts
}

/// The parts of `POST /api/labs/{lab}/robots`: the description, and the program with its
/// helpers unless the program is blank (a robot driven by hand: then only the files that
/// are not program helpers, such as a URDF file the description imports).
pub fn robot_upload_parts(description: &str, program: &ProgramFile, helpers: &[PickedFile]) -> Vec<Part> {
    let mut parts = vec![Part::text("description", DESCRIPTION_NAME, description)];
    if !program.is_blank() {
        parts.extend(program_parts(program, helpers));
    } else {
        parts.extend(robot_files(helpers).map(PickedFile::part));
    }
    parts
}

/// The picked files that belong to the robot's description rather than its program.
fn robot_files(helpers: &[PickedFile]) -> impl Iterator<Item = &PickedFile> {
    helpers.iter().filter(|h| !h.name.to_ascii_lowercase().ends_with(".py"))
}

/// The path of `POST /api/labs/{lab}/robots`, asking for `clearance_m` of free floor
/// around the robot's start when its example says how much it needs.
pub fn robot_upload_path(lab_path: String, clearance_m: Option<f64>) -> String {
    match clearance_m {
        Some(metres) => format!("{lab_path}?clearance_m={metres}"),
        None => lab_path,
    }
}

/// What the form says after the lab chose where `robot` starts.
pub fn start_note(robot: &str, start: &ChosenStart) -> String {
    let robot = if robot.is_empty() { "Your robot".to_owned() } else { robot.to_owned() };
    let mut note = format!("{robot} starts at x {}, z {}, a free spot the lab chose", start.x, start.z);
    if start.clearance_m < start.asked_m {
        note.push_str(&format!(
            " (with {} m of free floor around it: no spot had the {} m its example asks for)",
            start.clearance_m, start.asked_m
        ));
    }
    note.push('.');
    note
}

/// The body of `POST /api/labs/{lab}/robots`: the description alone as plain text when
/// the program is blank and no other file goes along (the form every server takes), else
/// the parts of [`robot_upload_parts`].
pub fn robot_upload_body(description: &str, program: &ProgramFile, helpers: &[PickedFile]) -> Body {
    if program.is_blank() && robot_files(helpers).next().is_none() {
        Body::Text(description.to_owned())
    } else {
        Body::Parts(robot_upload_parts(description, program, helpers))
    }
}

/// How picked program files are used: the main file (a project file first, then a
/// module, then `main.py`, then the first Python file) and the helpers beside it.
/// Files that are neither are left out, by name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PickedProgram {
    /// The new main file, if one was picked.
    pub main: Option<ProgramFile>,
    /// Python helpers to send along.
    pub helpers: Vec<PickedFile>,
    /// Names of files that are not programs.
    pub ignored: Vec<String>,
}

/// Sorts files picked in the program's "Open" input (name and bytes each).
pub fn sort_program_files(files: Vec<(String, Vec<u8>)>) -> PickedProgram {
    let kind = |name: &str| {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".rprj") {
            0
        } else if lower.ends_with(".wasm") {
            1
        } else if lower == DEFAULT_PROGRAM_NAME {
            2
        } else if lower.ends_with(".py") || is_c_source(&lower) {
            3
        } else if is_c_header(&lower) {
            // A header goes along, never as the main file.
            5
        } else {
            4
        }
    };
    let main_index = files
        .iter()
        .enumerate()
        .filter(|(_, (name, _))| kind(name) < 4)
        .min_by_key(|(index, (name, _))| (kind(name), *index))
        .map(|(index, _)| index);
    let mut picked = PickedProgram { main: None, helpers: Vec::new(), ignored: Vec::new() };
    for (index, (name, bytes)) in files.into_iter().enumerate() {
        if Some(index) == main_index {
            let body = if kind(&name) == 1 {
                ProgramBody::Wasm(bytes)
            } else {
                ProgramBody::Text(String::from_utf8_lossy(&bytes).into_owned())
            };
            picked.main = Some(ProgramFile { name, body });
        } else if matches!(kind(&name), 2 | 3 | 5) {
            picked.helpers.push(PickedFile::read(name, bytes));
        } else {
            picked.ignored.push(name);
        }
    }
    picked
}

/// The example's program as the editor holds it: its main file and the other files as helpers.
pub fn program_from_source(source: &ProgramSource) -> (ProgramFile, Vec<PickedFile>) {
    let body = match (source.language, source.files.get(&source.main)) {
        // A module the server compiled from C or C++ comes back as its sources, which a
        // save compiles again.
        (_, Some(text)) => ProgramBody::Text(text.clone()),
        // A module sent as such is not sent back: the editor shows an empty module until
        // a new one is opened.
        (Language::Wasm, None) => ProgramBody::Wasm(Vec::new()),
        (Language::Python, None) => ProgramBody::Text(String::new()),
    };
    let helpers = source
        .files
        .iter()
        .filter(|(name, _)| **name != source.main)
        .map(|(name, text)| PickedFile::text(name, text))
        .collect();
    (ProgramFile { name: source.main.clone(), body }, helpers)
}

/// Whether a (lower-case) file name is a C or C++ source the server compiles.
fn is_c_source(lower: &str) -> bool {
    [".c", ".cc", ".cpp", ".cxx"].iter().any(|ext| lower.ends_with(ext))
}

/// Whether a (lower-case) file name is a C or C++ header a program includes.
fn is_c_header(lower: &str) -> bool {
    [".h", ".hh", ".hpp", ".hxx"].iter().any(|ext| lower.ends_with(ext))
}

/// Reads `GET /api/examples`.
pub fn interpret_examples(answer: Result<Vec<ExampleRobot>, ApiError>) -> Result<Vec<ExampleRobot>, String> {
    answer.map_err(|error| format!("No example robots: {}", error_sentence(&error)))
}

/// Reads `GET .../robots/{robot}/program`: the source, `None` when the robot has none yet.
pub fn interpret_program_source(answer: Result<ProgramSource, ApiError>) -> Result<Option<ProgramSource>, String> {
    match answer {
        Ok(source) => Ok(Some(source)),
        Err(error) if error.status() == Some(404) => Ok(None),
        Err(error) => Err(format!("Could not load the program: {}", error_sentence(&error))),
    }
}

/// Reads the answer to `POST /api/labs/{lab}/robots`: like a scene upload, with the
/// refusals a student meets (no session, uploads locked, over the quota) said plainly.
pub fn interpret_robot_upload(answer: Result<(u16, SceneUploadReply), ApiError>) -> UploadOutcome {
    match answer {
        Ok(reply) => interpret_response(Ok(reply)),
        Err(error) if error.status() == Some(401) => {
            UploadOutcome::Failed(format!("Not in this lab: {} Join it with its code first.", error_sentence(&error)))
        }
        Err(error) => UploadOutcome::Failed(format!("Not added: {}", error_sentence(&error))),
    }
}

/// Reads the answer to `PUT .../program` (a new program for a robot already in the lab).
pub fn interpret_program_save(answer: Result<(u16, SceneUploadReply), ApiError>) -> UploadOutcome {
    match answer {
        Ok(reply) => match interpret_response(Ok(reply)) {
            UploadOutcome::Inserted { warnings, .. } => UploadOutcome::Saved { warnings },
            other => other,
        },
        Err(error) => UploadOutcome::Failed(format!("Not saved: {}", error_sentence(&error))),
    }
}

/// Reads the answer to `POST .../program/restart` or `.../program/stop`.
pub fn interpret_program_action(answer: Result<ProgramStatus, ApiError>) -> Result<ProgramStatus, String> {
    answer.map_err(|error| error_sentence(&error))
}

/// Which editor a message of an upload is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorPlace {
    /// The description editor.
    Description,
    /// The program editor.
    Program,
    /// A helper file or a module: not in an editor.
    Elsewhere,
}

/// Where `message` belongs: the program's own name (and any Python or project file not
/// sent as a helper) is the program editor's; a helper's name is elsewhere; anything
/// else (`robot.vlab`, a scene the description includes) is the description's.
pub fn error_place(message: &SourceMessage, program: &ProgramFile, helpers: &[PickedFile]) -> ErrorPlace {
    let file = message.file.as_str();
    if helpers.iter().any(|helper| helper.name == file) {
        return ErrorPlace::Elsewhere;
    }
    let lower = file.to_ascii_lowercase();
    let program_like = file == program.name
        || Language::from_file_name(file).is_some()
        || lower.ends_with(".rprj")
        || is_c_source(&lower);
    if !program_like {
        return ErrorPlace::Description;
    }
    match program.body {
        ProgramBody::Text(_) => ErrorPlace::Program,
        ProgramBody::Wasm(_) => ErrorPlace::Elsewhere,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::api::{read_json, read_reply};

    fn python(text: &str) -> ProgramFile {
        ProgramFile { name: "main.py".into(), body: ProgramBody::Text(text.into()) }
    }

    fn helper(name: &str, text: &str) -> PickedFile {
        PickedFile::text(name, text)
    }

    #[test]
    fn the_lab_s_choice_of_start_is_said_and_what_it_could_not_give() {
        let start = ChosenStart { x: 3.0, z: 2.5, clearance_m: 0.75, asked_m: 0.75 };
        assert_eq!(start_note("diffbot_ana", &start), "diffbot_ana starts at x 3, z 2.5, a free spot the lab chose.");
        let short = ChosenStart { clearance_m: 1.25, asked_m: 2.5, ..start };
        assert!(start_note("", &short).starts_with("Your robot starts at x 3, z 2.5"), "{}", start_note("", &short));
        assert!(start_note("b", &short).contains("with 1.25 m of free floor around it: no spot had the 2.5 m"));
        assert_eq!(robot_upload_path("/api/labs/a/robots".into(), Some(2.5)), "/api/labs/a/robots?clearance_m=2.5");
        assert_eq!(robot_upload_path("/api/labs/a/robots".into(), None), "/api/labs/a/robots");
    }

    #[test]
    fn a_robot_upload_sends_the_description_then_the_program_and_its_helpers() {
        let parts = robot_upload_parts("call diffbot();", &python("print(1)"), &[helper("util.py", "X = 1")]);
        assert_eq!(
            parts,
            [
                Part::text("description", "robot.vlab", "call diffbot();"),
                Part::text("program", "main.py", "print(1)"),
                Part::text("util.py", "util.py", "X = 1"),
            ]
        );
        assert_eq!(
            robot_upload_parts("d", &python("  \n"), &[helper("util.py", "")]),
            [Part::text("description", "robot.vlab", "d")],
            "a blank program: a robot driven by hand"
        );
        assert_eq!(
            robot_upload_parts("d", &ProgramFile::empty(), &[helper("util.py", ""), helper("bot.urdf", "<robot/>")]),
            [Part::text("description", "robot.vlab", "d"), Part::text("bot.urdf", "bot.urdf", "<robot/>")],
            "without a program, a URDF file the description imports still goes along"
        );
        let wasm = ProgramFile { name: "bot.wasm".into(), body: ProgramBody::Wasm(vec![0, 97, 115, 109]) };
        assert_eq!(program_parts(&wasm, &[])[0].body, PartBody::Wasm(vec![0, 97, 115, 109]));
        assert_eq!(program_parts(&python("x"), &[helper("main.py", "old")]).len(), 1, "never the main file twice");
    }

    #[test]
    fn a_robot_without_a_program_goes_as_plain_text() {
        assert_eq!(robot_upload_body("d;", &ProgramFile::empty(), &[helper("util.py", "")]), Body::Text("d;".into()));
        assert_eq!(
            robot_upload_body("d;", &python("x"), &[]),
            Body::Parts(vec![Part::text("description", "robot.vlab", "d;"), Part::text("program", "main.py", "x")])
        );
    }

    #[test]
    fn a_urdf_robot_sends_its_binary_meshes_as_bytes() {
        let mesh = PickedFile::read("meshes/base.stl".into(), vec![0, 1, 2, 0xff]);
        let urdf = PickedFile::text("bot.urdf", "<robot/>");
        let Body::Parts(parts) = robot_upload_body("d;", &ProgramFile::empty(), &[urdf, mesh]) else {
            panic!("a URDF goes as parts")
        };
        assert_eq!(parts.len(), 3);
        assert_eq!(parts[1], Part::text("bot.urdf", "bot.urdf", "<robot/>"));
        assert_eq!(parts[2].filename, "meshes/base.stl");
        assert_eq!(parts[2].body, PartBody::Binary(vec![0, 1, 2, 0xff]));
    }

    #[test]
    fn summaries_say_what_the_program_is() {
        let wasm = ProgramFile { name: "bot.wasm".into(), body: ProgramBody::Wasm(vec![0; 1234]) };
        assert_eq!(wasm.summary(), "WebAssembly module, 1234 bytes");
        assert_eq!(python("a\nb\n").summary(), "Python, 2 lines");
        assert_eq!(python("a").summary(), "Python, 1 line");
        assert!(ProgramFile::empty().is_blank());
        let kept = ProgramFile { name: "bot.wasm".into(), body: ProgramBody::Wasm(Vec::new()) };
        assert!(kept.summary().contains("open a .wasm file"), "{}", kept.summary());
    }

    #[test]
    fn picked_files_choose_a_main_file_and_helpers() {
        let file = |name: &str, text: &str| (name.to_owned(), text.as_bytes().to_vec());
        let picked = sort_program_files(vec![file("util.py", "U"), file("main.py", "M"), file("notes.txt", "n")]);
        assert_eq!(picked.main, Some(python("M")));
        assert_eq!(picked.helpers, [helper("util.py", "U")]);
        assert_eq!(picked.ignored, ["notes.txt"]);
        let picked = sort_program_files(vec![file("a.py", "A"), file("bot.wasm", "\0asm")]);
        assert_eq!(picked.main.unwrap().body, ProgramBody::Wasm(b"\0asm".to_vec()));
        assert_eq!(picked.helpers, [helper("a.py", "A")]);
        let picked = sort_program_files(vec![file("util.h", "H"), file("bot.cpp", "C")]);
        assert_eq!(picked.main.unwrap().name, "bot.cpp", "a C++ source is the main file, never its header");
        assert_eq!(picked.helpers, [helper("util.h", "H")]);
        let picked = sort_program_files(vec![file("drive.py", "D")]);
        assert_eq!(picked.main.unwrap().name, "drive.py", "a lone Python file is the main file");
        assert_eq!(sort_program_files(vec![file("x.txt", "")]).main, None);
    }

    #[test]
    fn a_program_source_fills_the_editor() {
        let mut files = BTreeMap::new();
        files.insert("main.py".to_owned(), "import util".to_owned());
        files.insert("util.py".to_owned(), "X = 1".to_owned());
        let source = ProgramSource { language: Language::Python, main: "main.py".into(), files };
        let (main, helpers) = program_from_source(&source);
        assert_eq!(main, python("import util"));
        assert_eq!(helpers, [helper("util.py", "X = 1")]);

        // A module compiled from C++ on the server: its sources, which a save compiles again.
        let mut files = BTreeMap::new();
        files.insert("bot.cpp".to_owned(), "#include \"util.h\"".to_owned());
        files.insert("util.h".to_owned(), "int x;".to_owned());
        let source = ProgramSource { language: Language::Wasm, main: "bot.cpp".into(), files };
        let (main, helpers) = program_from_source(&source);
        assert_eq!(main, ProgramFile { name: "bot.cpp".into(), body: ProgramBody::Text("#include \"util.h\"".into()) });
        assert_eq!(helpers, [helper("util.h", "int x;")]);
        let module = ProgramSource { language: Language::Wasm, main: "bot.wasm".into(), files: BTreeMap::new() };
        assert_eq!(program_from_source(&module).0.body, ProgramBody::Wasm(Vec::new()));
    }

    #[test]
    fn answers_read_as_sources_statuses_and_sentences() {
        assert_eq!(
            interpret_program_source(read_json(404, r#"{"error":{"code":"not_found","message":"no program"}}"#)),
            Ok(None)
        );
        let source = interpret_program_source(read_json(
            200,
            r#"{"language":"PYTHON","main":"main.py","files":{"main.py":"x"}}"#,
        ));
        assert_eq!(source.unwrap().unwrap().main, "main.py");
        let denied =
            interpret_program_action(read_json(403, r#"{"error":{"code":"forbidden","message":"not your robot"}}"#));
        assert_eq!(denied, Err("Not your robot.".into()));
        let status = interpret_program_action(read_json(
            200,
            r#"{"file":"main.py","language":"PYTHON","state":"running","message":null}"#,
        ));
        assert_eq!(status.unwrap().state, vlab_protocol::ProgramState::Running);
        let saved =
            interpret_program_save(read_reply(403, r#"{"error":{"code":"forbidden","message":"not your robot"}}"#));
        assert_eq!(saved, UploadOutcome::Failed("Not saved: Not your robot.".into()));
        let ok = r#"{"ok":true,"inserted":{"bodies":0,"joints":0,"robots":0},"log":[],"warnings":[],"errors":[]}"#;
        assert_eq!(interpret_program_save(read_reply(200, ok)), UploadOutcome::Saved { warnings: vec![] });
        let examples = interpret_examples(read_json(200, "[]"));
        assert_eq!(examples, Ok(vec![]));
        assert!(interpret_examples(read_json(404, "")).is_err());
    }

    #[test]
    fn robot_upload_refusals_are_said_plainly() {
        let locked =
            r#"{"error":{"code":"forbidden","message":"the instructor has locked uploads in this lab for now"}}"#;
        assert_eq!(
            interpret_robot_upload(read_reply(403, locked)),
            UploadOutcome::Failed("Not added: The instructor has locked uploads in this lab for now.".into())
        );
        let quota = r#"{"ok":false,"inserted":{"bodies":0,"joints":0,"robots":0},"log":[],"warnings":[],
            "errors":[{"file":"upload.vlab","line":1,"col":1,"message":"you may have 1 robot(s) in this lab"}]}"#;
        assert!(
            matches!(interpret_robot_upload(read_reply(403, quota)), UploadOutcome::Rejected { errors, .. } if errors[0].message.contains("1 robot"))
        );
        let anonymous = r#"{"error":{"code":"unauthorized","message":"adding a robot needs a session"}}"#;
        assert!(
            matches!(interpret_robot_upload(read_reply(401, anonymous)), UploadOutcome::Failed(m) if m.contains("Join it"))
        );
    }

    #[test]
    fn messages_go_to_the_editor_of_their_file() {
        let message = |file: &str| SourceMessage { file: file.into(), line: 3, col: 1, message: "x".into() };
        let program = python("");
        let helpers = [helper("util.py", "")];
        assert_eq!(error_place(&message("main.py"), &program, &helpers), ErrorPlace::Program);
        assert_eq!(error_place(&message("util.py"), &program, &helpers), ErrorPlace::Elsewhere);
        assert_eq!(error_place(&message("robot.vlab"), &program, &helpers), ErrorPlace::Description);
        assert_eq!(error_place(&message("diffbot_robot.vlab"), &program, &helpers), ErrorPlace::Description);
        let wasm = ProgramFile { name: "bot.wasm".into(), body: ProgramBody::Wasm(vec![1]) };
        assert_eq!(error_place(&message("bot.wasm"), &wasm, &[]), ErrorPlace::Elsewhere);
        let cpp = ProgramFile { name: "bot.cpp".into(), body: ProgramBody::Text("int main;".into()) };
        assert_eq!(error_place(&message("bot.cpp"), &cpp, &[helper("util.h", "")]), ErrorPlace::Program);
        assert_eq!(error_place(&message("util.h"), &cpp, &[helper("util.h", "")]), ErrorPlace::Elsewhere);
    }

    #[test]
    fn editors_pick_their_highlighter_by_file_name() {
        assert_eq!(EditorSyntax::for_file_name("MAIN.PY"), EditorSyntax::Python);
        assert_eq!(EditorSyntax::for_file_name("robot.vlab"), EditorSyntax::Vlab);
        assert_eq!(EditorSyntax::Plain.highlight_html("TYPE:<x>"), "TYPE:&lt;x&gt;");
        assert_eq!(EditorSyntax::Plain.highlight_html(""), " ");
    }
}
