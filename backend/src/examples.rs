//! The example robots a teacher hands out, read from the scene library's `examples/`
//! folder: one [`ExampleRobot`] per folder, for `GET /api/examples`.
//!
//! A folder `examples/<id>/` holds `robot.vlab` (the robot description, with the
//! placeholders `{suffix}`, `{x}` and `{z}`: see [`fill_placeholders`]), `main.py` (the
//! program; every other `.py` file of the folder goes with it as a helper) and
//! `about.json` (`{"title": ..., "summary": ...}`, and `"clearance_m"`: the free floor
//! the robot needs around its start, which the page asks the lab for). A folder that breaks these rules is
//! logged and left out; the others are still listed. This module neither interprets
//! the robot nor runs the program: an upload does both, as for any student's robot.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use vlab_protocol::{ExampleRobot, Language, ProgramSource};

/// The folder of the scene library that holds the examples.
pub const EXAMPLES_FOLDER: &str = "examples";
/// The program file every example runs.
pub const MAIN_FILE: &str = "main.py";
/// The robot description of every example.
pub const ROBOT_FILE: &str = "robot.vlab";
/// The title and summary of every example.
pub const ABOUT_FILE: &str = "about.json";
/// The placeholders a robot description must contain.
pub use vlab_protocol::PLACEHOLDERS;

/// Why an example folder was left out.
#[derive(Debug, thiserror::Error)]
pub enum ExampleError {
    /// A file could not be read (missing, unreadable, not UTF-8).
    #[error("{folder}: cannot read {file}: {source}")]
    Read {
        /// The example's folder.
        folder: PathBuf,
        /// The file's name.
        file: String,
        /// What went wrong.
        source: std::io::Error,
    },
    /// `about.json` is not `{"title": "...", "summary": "..."}`.
    #[error("{folder}: about.json is not {{\"title\": \"...\", \"summary\": \"...\"}}: {message}")]
    About {
        /// The example's folder.
        folder: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// The folder's name is not an id (lower-case letters, digits, `_`).
    #[error("{folder}: an example's folder is named with lower-case letters, digits and _ only")]
    BadId {
        /// The example's folder.
        folder: PathBuf,
    },
    /// `robot.vlab` lacks a placeholder the browser fills in.
    #[error("{folder}: robot.vlab has no {placeholder}: it must place the robot with {{suffix}}, {{x}} and {{z}}")]
    Placeholder {
        /// The example's folder.
        folder: PathBuf,
        /// The missing placeholder.
        placeholder: &'static str,
    },
}

#[derive(Deserialize)]
struct About {
    title: String,
    summary: String,
    /// The free floor the robot needs around its start, metres.
    #[serde(default)]
    clearance_m: Option<f64>,
}

/// Every example of `scenes_dir/examples/`, sorted by id. Folders that cannot be read
/// as an example are logged (with the reason) and skipped; no `examples/` folder means
/// no examples.
pub fn load_examples(scenes_dir: &Path) -> Vec<ExampleRobot> {
    let root = scenes_dir.join(EXAMPLES_FOLDER);
    let entries = match std::fs::read_dir(&root) {
        Ok(entries) => entries,
        Err(e) => {
            tracing::warn!(folder = %root.display(), error = %e, "no example robots: cannot read their folder");
            return Vec::new();
        }
    };
    let mut examples: Vec<ExampleRobot> = entries
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
        .filter_map(|entry| match load_example(&entry.path()) {
            Ok(example) => Some(example),
            Err(e) => {
                tracing::error!(error = %e, "an example robot was left out");
                None
            }
        })
        .collect();
    examples.sort_by(|a, b| a.id.cmp(&b.id));
    examples
}

/// The example in `folder` (named by its id).
pub fn load_example(folder: &Path) -> Result<ExampleRobot, ExampleError> {
    let id = folder.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') {
        return Err(ExampleError::BadId { folder: folder.to_owned() });
    }
    let read = |file: &str| {
        std::fs::read_to_string(folder.join(file)).map_err(|source| ExampleError::Read {
            folder: folder.to_owned(),
            file: file.to_owned(),
            source,
        })
    };
    let about_text = read(ABOUT_FILE)?;
    let about: About = serde_json::from_str(&about_text)
        .map_err(|e| ExampleError::About { folder: folder.to_owned(), message: e.to_string() })?;
    for (field, value) in [("title", &about.title), ("summary", &about.summary)] {
        if value.trim().is_empty() {
            return Err(ExampleError::About { folder: folder.to_owned(), message: format!("its {field} is empty") });
        }
    }
    if let Some(clearance) = about.clearance_m
        && !(0.0..=f64::from(vlab_lab::placement::MAX_CLEARANCE_M)).contains(&clearance)
    {
        let most = vlab_lab::placement::MAX_CLEARANCE_M;
        let message = format!("its clearance_m is {clearance}: give 0 to {most} metres");
        return Err(ExampleError::About { folder: folder.to_owned(), message });
    }
    let robot = read(ROBOT_FILE)?;
    if let Some(placeholder) = PLACEHOLDERS.into_iter().find(|p| !robot.contains(p)) {
        return Err(ExampleError::Placeholder { folder: folder.to_owned(), placeholder });
    }
    let mut files = BTreeMap::new();
    files.insert(MAIN_FILE.to_owned(), read(MAIN_FILE)?);
    let entries = std::fs::read_dir(folder).map_err(|source| ExampleError::Read {
        folder: folder.to_owned(),
        file: ".".into(),
        source,
    })?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".py") && name != MAIN_FILE {
            let text = read(&name)?;
            files.insert(name, text);
        }
    }
    Ok(ExampleRobot {
        id,
        title: about.title.trim().to_owned(),
        summary: about.summary.trim().to_owned(),
        robot,
        clearance_m: about.clearance_m,
        program: ProgramSource { language: Language::Python, main: MAIN_FILE.into(), files },
    })
}

/// An example's robot description with its placeholders filled in: `suffix` is the
/// robot name's suffix with its underscore (`"_ana"` names `diffbot_ana`), `x` and `z`
/// where it starts, metres.
///
/// # Example
/// ```
/// let robot = "call diffbot(\"{suffix}\", {x}, {z}, 0);";
/// let filled = vlab_server::examples::fill_placeholders(robot, "_ana", 2.0, 6.5);
/// assert_eq!(filled, "call diffbot(\"_ana\", 2, 6.5, 0);");
/// ```
pub fn fill_placeholders(robot: &str, suffix: &str, x: f64, z: f64) -> String {
    let suffix = suffix.strip_prefix('_').unwrap_or(suffix);
    vlab_protocol::fill_start(&vlab_protocol::fill_suffix(robot, suffix), x, z)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder under the system's temporary folder, removed when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(tag: &str) -> TempDir {
            let path = std::env::temp_dir().join(format!("vlab-examples-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&path);
            std::fs::create_dir_all(path.join(EXAMPLES_FOLDER)).unwrap();
            TempDir(path)
        }

        /// Writes `files` into `examples/<id>/`.
        fn example(&self, id: &str, files: &[(&str, &str)]) {
            let folder = self.0.join(EXAMPLES_FOLDER).join(id);
            std::fs::create_dir_all(&folder).unwrap();
            for (name, text) in files {
                std::fs::write(folder.join(name), text).unwrap();
            }
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    const ROBOT: &str = "include \"diffbot_robot.vlab\";\ncall diffbot(\"{suffix}\", {x}, {z}, 0);\n";
    const ABOUT: &str = r#"{"title": "Spinner", "summary": "Turns on the spot."}"#;
    const MAIN: &str = "from vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    pass\n";

    #[test]
    fn good_folders_are_listed_sorted_and_bad_ones_are_left_out() {
        let dir = TempDir::new("mixed");
        dir.example("zeta", &[("robot.vlab", ROBOT), ("about.json", ABOUT), ("main.py", MAIN)]);
        dir.example(
            "alpha",
            &[
                ("robot.vlab", ROBOT),
                ("about.json", ABOUT),
                ("main.py", "import helper\n"),
                ("helper.py", "X = 1\n"),
                ("notes.txt", "not a program file"),
            ],
        );
        dir.example("no_main", &[("robot.vlab", ROBOT), ("about.json", ABOUT)]);
        dir.example("no_about", &[("robot.vlab", ROBOT), ("main.py", MAIN)]);
        dir.example("bad_json", &[("robot.vlab", ROBOT), ("about.json", "{\"title\": 3}"), ("main.py", MAIN)]);
        dir.example(
            "empty_title",
            &[("robot.vlab", ROBOT), ("about.json", r#"{"title": " ", "summary": "x"}"#), ("main.py", MAIN)],
        );
        dir.example(
            "fixed_place",
            &[("robot.vlab", "call diffbot(\"{suffix}\", 1, 1, 0);"), ("about.json", ABOUT), ("main.py", MAIN)],
        );
        dir.example("Bad-Id", &[("robot.vlab", ROBOT), ("about.json", ABOUT), ("main.py", MAIN)]);
        std::fs::write(dir.0.join(EXAMPLES_FOLDER).join("stray.txt"), "a file, not a folder").unwrap();

        let examples = load_examples(&dir.0);
        let ids: Vec<&str> = examples.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["alpha", "zeta"]);
        let alpha = &examples[0];
        assert_eq!((alpha.title.as_str(), alpha.summary.as_str()), ("Spinner", "Turns on the spot."));
        assert_eq!(alpha.robot, ROBOT);
        assert_eq!(alpha.program.language, Language::Python);
        assert_eq!(alpha.program.main, "main.py");
        let files: Vec<&str> = alpha.program.files.keys().map(String::as_str).collect();
        assert_eq!(files, ["helper.py", "main.py"]);
        assert_eq!(alpha.program.files["helper.py"], "X = 1\n");
    }

    #[test]
    fn each_malformed_folder_says_what_is_wrong() {
        let dir = TempDir::new("errors");
        // (folder, its files, what the error says)
        type Case<'a> = (&'a str, Vec<(&'a str, &'a str)>, &'a str);
        let cases: [Case; 5] = [
            ("no_main", vec![("robot.vlab", ROBOT), ("about.json", ABOUT)], "cannot read main.py"),
            ("no_robot", vec![("about.json", ABOUT), ("main.py", MAIN)], "cannot read robot.vlab"),
            ("bad_json", vec![("robot.vlab", ROBOT), ("about.json", "{"), ("main.py", MAIN)], "about.json is not"),
            (
                "no_summary",
                vec![("robot.vlab", ROBOT), ("about.json", r#"{"title": "a"}"#), ("main.py", MAIN)],
                "missing field `summary`",
            ),
            (
                "no_z",
                vec![
                    ("robot.vlab", "call diffbot(\"{suffix}\", {x}, 3, 0);"),
                    ("about.json", ABOUT),
                    ("main.py", MAIN),
                ],
                "robot.vlab has no {z}",
            ),
        ];
        for (id, files, expected) in cases {
            dir.example(id, &files);
            let error = load_example(&dir.0.join(EXAMPLES_FOLDER).join(id)).unwrap_err().to_string();
            assert!(error.contains(expected), "{id}: expected '{expected}' in: {error}");
            assert!(error.contains(id), "{id}: the message names the folder: {error}");
        }
    }

    #[test]
    fn no_examples_folder_means_no_examples() {
        let path = std::env::temp_dir().join(format!("vlab-examples-none-{}", std::process::id()));
        assert!(load_examples(&path).is_empty());
    }

    #[test]
    fn placeholders_are_filled_with_the_suffix_and_the_spot() {
        let filled = fill_placeholders(ROBOT, "_ana", 2.0, 6.25);
        assert_eq!(filled, "include \"diffbot_robot.vlab\";\ncall diffbot(\"_ana\", 2, 6.25, 0);\n");
        assert!(PLACEHOLDERS.iter().all(|p| !filled.contains(p)));
    }

    /// The examples shipped in the workspace's `scenes/examples/` all load.
    #[test]
    fn the_shipped_examples_all_load() {
        let scenes = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes");
        let ids: Vec<String> = load_examples(&scenes).into_iter().map(|e| e.id).collect();
        assert_eq!(
            ids,
            [
                "beacon_localization",
                "bumper_and_turn",
                "go_to_goal",
                "localization",
                "rendezvous",
                "tank_back_and_forth",
                "teleop",
                "track_red_post",
                "wall_follower"
            ]
        );
        let folders = std::fs::read_dir(scenes.join(EXAMPLES_FOLDER)).unwrap().count();
        assert_eq!(folders, ids.len(), "every folder of scenes/examples/ is an example");
    }
}
