//! Scene upload, the pure part: what the server's answer means, how it reads, and where its errors sit in the editor.
//!
//! The browser side (`fetch`, files, `localStorage`) lives in `scene::client`; everything
//! here is plain data in, plain data out, tested on the host.

use vlab_protocol::{InsertedCounts, SceneUploadReply, SourceMessage};

use crate::api::{ApiError, Body, Part, PartBody, error_sentence};

/// The name the editor's text is sent under when it was not loaded from a file: the
/// server's own name for a plain-text upload, so errors name the same file either way.
pub const DEFAULT_MAIN_NAME: &str = "upload.vlab";

/// How an upload ended, ready to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UploadOutcome {
    /// The scene is in the lab.
    Inserted {
        /// What was added.
        counts: InsertedCounts,
        /// The scene's `print_*` lines.
        log: Vec<String>,
        /// Problems that did not stop it.
        warnings: Vec<SourceMessage>,
    },
    /// The scene was read and refused: positioned errors, nothing inserted.
    Rejected {
        /// Why, in the file.
        errors: Vec<SourceMessage>,
        /// Problems that would not have stopped it.
        warnings: Vec<SourceMessage>,
        /// `print_*` lines run before it stopped.
        log: Vec<String>,
    },
    /// A robot's new program was accepted (nothing was inserted): it runs now.
    Saved {
        /// Problems that did not stop it.
        warnings: Vec<SourceMessage>,
    },
    /// No scene answer: the network, the token, the server. A sentence for the user.
    Failed(String),
}

impl UploadOutcome {
    /// `"inserted"`, `"saved"`, `"rejected"` or `"failed"` (the result area's `data-outcome`).
    pub fn as_attr(&self) -> &'static str {
        match self {
            UploadOutcome::Inserted { .. } => "inserted",
            UploadOutcome::Saved { .. } => "saved",
            UploadOutcome::Rejected { .. } => "rejected",
            UploadOutcome::Failed(_) => "failed",
        }
    }
}

/// The body of `POST /api/labs/{lab}/scene`: plain text when the editor's text goes
/// alone under the default name, else `multipart/form-data` (the text in field `scene`
/// under `main_name`, each include under its own name).
pub fn scene_upload_body(main_name: &str, text: &str, includes: &[PickedFile]) -> Body {
    if includes.is_empty() && main_name == DEFAULT_MAIN_NAME {
        return Body::Text(text.to_owned());
    }
    let mut parts = vec![Part::text("scene", main_name, text)];
    parts.extend(includes.iter().map(PickedFile::part));
    Body::Parts(parts)
}

/// Reads the server's answer to `POST /api/labs/{lab}/scene`: a reply (with its HTTP
/// status), or why there is none.
pub fn interpret_response(answer: Result<(u16, SceneUploadReply), ApiError>) -> UploadOutcome {
    let (status, reply) = match answer {
        Ok(answer) => answer,
        Err(error) => return upload_failed(&error),
    };
    if reply.ok {
        return UploadOutcome::Inserted { counts: reply.inserted, log: reply.log, warnings: reply.warnings };
    }
    if reply.errors.is_empty() {
        return UploadOutcome::Failed(format!(
            "The server refused the scene (HTTP {status}) without saying where: nothing was inserted."
        ));
    }
    UploadOutcome::Rejected { errors: reply.errors, warnings: reply.warnings, log: reply.log }
}

/// The outcome of an upload that got no reply: why, and that nothing is lost.
pub fn upload_failed(error: &ApiError) -> UploadOutcome {
    UploadOutcome::Failed(format!("{} Nothing was inserted; your text is kept.", error_sentence(error)))
}

/// `Inserted 3 bodies, 1 joint, 0 robots`.
pub fn inserted_summary(counts: &InsertedCounts) -> String {
    let count = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    format!(
        "Inserted {}, {}, {}",
        count(counts.bodies, "body", "bodies"),
        count(counts.joints, "joint", "joints"),
        count(counts.robots, "robot", "robots")
    )
}

/// `file:line:col: message`, as compilers write it.
pub fn format_message(message: &SourceMessage) -> String {
    format!("{}:{}:{}: {}", message.file, message.line, message.col, message.message)
}

/// The editor line (1-based) a message points at, or `None` when it is about another
/// file: one of the `includes` sent beside the editor's text. Lines past the end of the
/// text (an error "at the end of the file") land on its last line.
pub fn editor_line(message: &SourceMessage, includes: &[String], text: &str) -> Option<u32> {
    if includes.contains(&message.file) {
        return None;
    }
    let lines = crate::ui::text_lines::line_count(text) as u32;
    Some(message.line.clamp(1, lines))
}

/// The textarea offset (UTF-16 units, as `selectionStart` counts) of 1-based `line`
/// and `col` (characters, as the server counts them), clamped into the text.
pub fn caret_offset_utf16(text: &str, line: u32, col: u32) -> u32 {
    let mut offset = 0u32;
    for (index, content) in text.split('\n').enumerate() {
        if index + 1 == line.max(1) as usize {
            let before: u32 = content.chars().take(col.max(1) as usize - 1).map(|c| c.len_utf16() as u32).sum();
            return offset + before;
        }
        offset += content.encode_utf16().count() as u32 + 1;
    }
    text.encode_utf16().count() as u32
}

/// The `localStorage` key of a lab's draft.
pub fn draft_storage_key(lab: &str) -> String {
    format!("vlab.scene-draft.{lab}")
}

/// A file the user picked: its name and content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PickedFile {
    /// File name, as sent in the upload.
    pub name: String,
    /// Its content.
    pub content: FileContent,
}

/// The names of `files`, in order: the chips of the files sent along.
pub fn file_names(files: &[PickedFile]) -> Vec<String> {
    files.iter().map(|file| file.name.clone()).collect()
}

/// What a picked file holds: text (scenes, programs, URDF, OBJ) or bytes (binary STL,
/// glTF, images), which go to the server untouched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileContent {
    /// UTF-8 text.
    Text(String),
    /// Anything else.
    Binary(Vec<u8>),
}

/// File endings read as bytes whatever they hold: the server takes meshes, textures and
/// modules as bytes, and a binary STL may happen to be valid UTF-8.
const BINARY_ENDINGS: [&str; 7] = [".glb", ".stl", ".png", ".jpg", ".jpeg", ".wasm", ".zip"];

impl PickedFile {
    /// A text file.
    pub fn text(name: &str, text: &str) -> PickedFile {
        PickedFile { name: name.to_owned(), content: FileContent::Text(text.to_owned()) }
    }

    /// A file as read from the disk: text when it is UTF-8 and not of a binary kind.
    pub fn read(name: String, bytes: Vec<u8>) -> PickedFile {
        let lower = name.to_ascii_lowercase();
        let content = if BINARY_ENDINGS.iter().any(|ending| lower.ends_with(ending)) {
            FileContent::Binary(bytes)
        } else {
            match String::from_utf8(bytes) {
                Ok(text) => FileContent::Text(text),
                Err(error) => FileContent::Binary(error.into_bytes()),
            }
        };
        PickedFile { name, content }
    }

    /// Its text, unless it is binary.
    pub fn as_text(&self) -> Option<&str> {
        match &self.content {
            FileContent::Text(text) => Some(text),
            FileContent::Binary(_) => None,
        }
    }

    /// The multipart part that carries it, under its own name.
    pub fn part(&self) -> Part {
        let body = match &self.content {
            FileContent::Text(text) => PartBody::Text(text.clone()),
            FileContent::Binary(bytes) => PartBody::Binary(bytes.clone()),
        };
        Part { field: self.name.clone(), filename: self.name.clone(), body }
    }
}

/// How picked files are used: at most one becomes the editor's text, the rest go along as includes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PickedRoles {
    /// Index of the file to open in the editor, if any.
    pub main: Option<usize>,
    /// Indices of the files sent beside it.
    pub includes: Vec<usize>,
}

/// Sorts picked files: a `.vlab` file that nothing (neither the editor's text nor
/// another picked file) includes is the main scene; the first such one opens in the
/// editor. Everything else (included scenes, robot programs, project files) is sent
/// along under its own name.
pub fn sort_picked_files(editor_text: &str, files: &[PickedFile]) -> PickedRoles {
    let mut included = included_names(editor_text);
    for file in files {
        included.extend(included_names(file.as_text().unwrap_or_default()));
    }
    let main = files
        .iter()
        .position(|file| file.name.to_ascii_lowercase().ends_with(".vlab") && !included.contains(&file.name));
    let includes = (0..files.len()).filter(|&i| Some(i) != main).collect();
    PickedRoles { main, includes }
}

/// The file names in `include "…";` statements of a text (outside comments).
pub fn included_names(text: &str) -> Vec<String> {
    use crate::scene::syntax::{TokenKind, tokenize};
    let tokens: Vec<_> = tokenize(text)
        .into_iter()
        .filter(|t| t.kind != TokenKind::Comment && !text[t.range.clone()].trim().is_empty())
        .collect();
    tokens
        .windows(2)
        .filter(|pair| {
            pair[0].kind == TokenKind::Keyword
                && text[pair[0].range.clone()].eq_ignore_ascii_case("include")
                && pair[1].kind == TokenKind::String
        })
        .map(|pair| text[pair[1].range.clone()].trim_matches('"').to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{PartBody, read_reply};

    fn message(file: &str, line: u32, col: u32, text: &str) -> SourceMessage {
        SourceMessage { file: file.into(), line, col, message: text.into() }
    }

    #[test]
    fn the_chips_name_the_files_sent_along_in_order() {
        let files = [PickedFile::text("b.vlab", ""), PickedFile::text("a.rhai", "")];
        assert_eq!(file_names(&files), ["b.vlab", "a.rhai"]);
    }

    #[test]
    fn a_successful_reply_reads_as_inserted() {
        let body = r#"{"ok":true,"inserted":{"bodies":3,"joints":1,"robots":0},"log":["n = 3"],
            "warnings":[{"file":"scene.vlab","line":2,"col":5,"message":"unknown material"}],"errors":[]}"#;
        let outcome = interpret_response(read_reply(200, body));
        let UploadOutcome::Inserted { counts, log, warnings } = &outcome else { panic!("{outcome:?}") };
        assert_eq!(inserted_summary(counts), "Inserted 3 bodies, 1 joint, 0 robots");
        assert_eq!(log, &["n = 3"]);
        assert_eq!(format_message(&warnings[0]), "scene.vlab:2:5: unknown material");
        assert_eq!(outcome.as_attr(), "inserted");
    }

    #[test]
    fn a_refused_scene_reads_as_rejected_with_its_errors() {
        let body = r#"{"ok":false,"inserted":{"bodies":0,"joints":0,"robots":0},"log":[],"warnings":[],
            "errors":[{"file":"scene.vlab","line":3,"col":7,"message":"expected ';'"}]}"#;
        for status in [422, 409] {
            let outcome = interpret_response(read_reply(status, body));
            assert_eq!(
                outcome,
                UploadOutcome::Rejected {
                    errors: vec![message("scene.vlab", 3, 7, "expected ';'")],
                    warnings: vec![],
                    log: vec![]
                }
            );
        }
    }

    #[test]
    fn api_errors_network_errors_and_garbage_read_as_sentences() {
        let denied =
            interpret_response(read_reply(403, r#"{"error":{"code":"forbidden","message":"instructor only"}}"#));
        assert_eq!(denied, UploadOutcome::Failed("Instructor only. Nothing was inserted; your text is kept.".into()));
        let UploadOutcome::Failed(text) = interpret_response(read_reply(502, "<html>Bad gateway</html>")) else {
            panic!()
        };
        assert!(text.contains("HTTP 502") && text.contains("Bad gateway"), "{text}");
        let UploadOutcome::Failed(text) = interpret_response(read_reply(500, "")) else { panic!() };
        assert!(text.contains("empty body"), "{text}");
        let UploadOutcome::Failed(text) = upload_failed(&ApiError::Network("TypeError: Failed to fetch".into())) else {
            panic!()
        };
        assert!(text.contains("Could not reach the server") && text.contains("kept"), "{text}");
        let UploadOutcome::Failed(text) = interpret_response(read_reply(
            422,
            r#"{"ok":false,"inserted":{"bodies":0,"joints":0,"robots":0},"log":[],"warnings":[],"errors":[]}"#,
        )) else {
            panic!()
        };
        assert!(text.contains("HTTP 422"), "{text}");
    }

    #[test]
    fn counts_are_singular_or_plural() {
        let counts = InsertedCounts { bodies: 1, joints: 0, robots: 2 };
        assert_eq!(inserted_summary(&counts), "Inserted 1 body, 0 joints, 2 robots");
    }

    #[test]
    fn errors_map_to_editor_lines_unless_they_are_in_an_include() {
        let text = "a\nb\nc";
        let includes = vec!["walls.vlab".to_owned()];
        assert_eq!(editor_line(&message("scene.vlab", 2, 1, "x"), &includes, text), Some(2));
        assert_eq!(
            editor_line(&message("whatever.vlab", 2, 1, "x"), &includes, text),
            Some(2),
            "any other name is the editor's"
        );
        assert_eq!(editor_line(&message("walls.vlab", 2, 1, "x"), &includes, text), None);
        assert_eq!(editor_line(&message("scene.vlab", 9, 1, "end of file"), &includes, text), Some(3));
        assert_eq!(editor_line(&message("scene.vlab", 0, 0, "x"), &includes, text), Some(1));
    }

    #[test]
    fn caret_offsets_count_utf16_units_like_a_textarea() {
        let text = "ab\nçd𝄞e\nxyz";
        assert_eq!(caret_offset_utf16(text, 1, 1), 0);
        assert_eq!(caret_offset_utf16(text, 2, 1), 3);
        assert_eq!(caret_offset_utf16(text, 2, 4), 3 + 1 + 1 + 2, "𝄞 takes two UTF-16 units");
        assert_eq!(caret_offset_utf16(text, 2, 99), 3 + 5, "a column past the end stops at the line's end");
        assert_eq!(caret_offset_utf16(text, 3, 2), 9 + 1);
        assert_eq!(caret_offset_utf16(text, 7, 1), 12, "a line past the end is the end of the text");
    }

    #[test]
    fn picked_files_split_into_the_main_scene_and_its_includes() {
        let file = PickedFile::text;
        let files = [
            file("walls.vlab", "static w { shape box(1,1,1); }"),
            file("robot.rhai", "fn main() {}"),
            file("main.vlab", "include \"walls.vlab\";\nrobot r { code \"robot.rhai\"; body {} }"),
        ];
        assert_eq!(sort_picked_files("", &files), PickedRoles { main: Some(2), includes: vec![0, 1] });
        // Only an include picked, for a text that already includes it: nothing replaces the text.
        let only = [file("walls.vlab", "")];
        assert_eq!(
            sort_picked_files("/* x */ INCLUDE \"walls.vlab\";", &only),
            PickedRoles { main: None, includes: vec![0] }
        );
        assert_eq!(sort_picked_files("", &only), PickedRoles { main: Some(0), includes: vec![] });
        assert!(included_names("// include \"no.vlab\";").is_empty(), "commented out");
    }

    #[test]
    fn a_scene_goes_as_text_alone_and_as_parts_with_its_files() {
        assert_eq!(scene_upload_body(DEFAULT_MAIN_NAME, "a;", &[]), Body::Text("a;".into()));
        let walls = PickedFile::text("walls.vlab", "w;");
        let Body::Parts(parts) = scene_upload_body(DEFAULT_MAIN_NAME, "a;", std::slice::from_ref(&walls)) else {
            panic!()
        };
        assert_eq!(parts, [Part::text("scene", "upload.vlab", "a;"), Part::text("walls.vlab", "walls.vlab", "w;")]);
        let Body::Parts(parts) = scene_upload_body("maze.vlab", "m;", &[]) else {
            panic!("a named file goes as a file")
        };
        assert_eq!(parts[0].filename, "maze.vlab");
        assert_eq!(parts[0].body, PartBody::Text("m;".into()));
    }

    #[test]
    fn meshes_and_images_go_as_bytes_and_the_rest_as_text() {
        // A binary STL whose bytes happen to be UTF-8 is still a mesh.
        let stl = PickedFile::read("wheel.STL".into(), b"solid-looking header".to_vec());
        assert_eq!(stl.content, FileContent::Binary(b"solid-looking header".to_vec()));
        assert_eq!(stl.as_text(), None);
        assert_eq!(stl.part().body, PartBody::Binary(b"solid-looking header".to_vec()));
        assert_eq!(stl.part().filename, "wheel.STL");
        // Not UTF-8: bytes, whatever its name.
        let odd = PickedFile::read("base.dae".into(), vec![0xff, 0xfe, 0]);
        assert_eq!(odd.content, FileContent::Binary(vec![0xff, 0xfe, 0]));
        // Text files stay text, so the scene's includes can be read.
        let urdf = PickedFile::read("bot.urdf".into(), b"<robot name=\"b\"/>".to_vec());
        assert_eq!(urdf.as_text(), Some("<robot name=\"b\"/>"));
        assert_eq!(urdf.part(), Part::text("bot.urdf", "bot.urdf", "<robot name=\"b\"/>"));
        // A binary file among a scene's files: sent as it is, and sorting ignores it.
        let roles = sort_picked_files("", &[stl.clone(), PickedFile::text("main.vlab", "m;")]);
        assert_eq!(roles, PickedRoles { main: Some(1), includes: vec![0] });
        let Body::Parts(parts) = scene_upload_body("main.vlab", "m;", &[stl]) else { panic!("parts") };
        assert_eq!(parts[1].body, PartBody::Binary(b"solid-looking header".to_vec()));
    }

    #[test]
    fn drafts_are_kept_per_lab() {
        assert_ne!(draft_storage_key("a"), draft_storage_key("b"));
    }
}
