//! An upload's files: as they arrived (a form, a plain body or a zip file), and once it
//! is known which one is the main file.

use std::collections::HashMap;

use bytes::Bytes;

use super::MAX_UPLOAD_FILES;
use super::archive::{self, ArchiveError};
use crate::classroom::ClassroomError;

/// File endings of the binary files (meshes, textures, WebAssembly modules) an upload may
/// carry; every other file is text.
pub const BINARY_EXTENSIONS: [&str; 8] = [".obj", ".glb", ".gltf", ".stl", ".png", ".jpg", ".jpeg", ".wasm"];

/// File endings of robot descriptions a bundle's main file may be, besides `.vlab`.
const ROBOT_EXTENSIONS: [&str; 2] = [".urdf", ".xacro"];

/// The files of an upload as they arrived, before it is known what they are for.
#[derive(Default)]
pub struct UploadFiles {
    /// The main `.vlab` file (name, text): a form's `scene` or `description` field, or
    /// a plain-text body.
    pub main: Option<(String, String)>,
    /// Whether the upload was a plain-text body rather than a form.
    pub plain: bool,
    /// Other text files by name: included `.vlab` files, Python sources, project files.
    pub files: HashMap<String, String>,
    /// Meshes and textures by name.
    pub assets: HashMap<String, Bytes>,
    /// WebAssembly modules by name.
    pub binaries: HashMap<String, Bytes>,
    /// The name of the file sent as the form's `program` field, if any.
    pub program: Option<String>,
    /// Which of the files is the main one, when none came as the main field: the form's
    /// `main` field, or `?main=` for a zip body.
    pub main_choice: Option<String>,
}

/// An upload whose main file is known.
#[derive(Default)]
pub struct Bundle {
    /// The main file's name.
    pub main_name: String,
    /// Its text (empty for a program on its own).
    pub main_text: String,
    /// Other text files by name.
    pub files: HashMap<String, String>,
    /// Meshes and textures by name.
    pub assets: HashMap<String, Bytes>,
    /// WebAssembly modules by name.
    pub binaries: HashMap<String, Bytes>,
    /// The file sent as the form's `program` field, if any.
    pub program: Option<String>,
}

impl Bundle {
    /// The same files with `main_text` as the main file's text.
    pub fn with_main_text(&self, main_text: String) -> Bundle {
        Bundle {
            main_name: self.main_name.clone(),
            main_text,
            files: self.files.clone(),
            assets: self.assets.clone(),
            binaries: self.binaries.clone(),
            program: self.program.clone(),
        }
    }

    /// Its bytes, as kept: every file's name and content.
    pub fn size(&self) -> u64 {
        let texts = self.files.iter().map(|(name, text)| name.len() + text.len());
        let blobs = self.assets.iter().chain(&self.binaries).map(|(name, bytes)| name.len() + bytes.len());
        (self.main_name.len() + self.main_text.len() + texts.sum::<usize>() + blobs.sum::<usize>()) as u64
    }
}

impl UploadFiles {
    /// Adds the file `name`: a mesh, texture or `.wasm` module as bytes, anything else as
    /// UTF-8 text. The name is a plain relative path already.
    pub fn add(&mut self, name: String, bytes: Bytes) -> Result<(), ClassroomError> {
        if self.count() >= MAX_UPLOAD_FILES {
            return Err(ClassroomError::Unreadable(format!(
                "the upload has more than {MAX_UPLOAD_FILES} files: send only the robot's own"
            )));
        }
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".wasm") {
            self.binaries.insert(name, bytes);
        } else if BINARY_EXTENSIONS.iter().any(|ext| lower.ends_with(ext)) {
            self.assets.insert(name, bytes);
        } else {
            let text = String::from_utf8(bytes.to_vec())
                .map_err(|_| ClassroomError::Unreadable(format!("the file '{name}' is not UTF-8 text")))?;
            self.files.insert(name, text);
        }
        Ok(())
    }

    /// Adds the files of the zip file `name`, unpacked (see [`archive::unpack`]). Files
    /// neither text nor of [`BINARY_EXTENSIONS`] (a package's pictures, a nested zip)
    /// are left out: nothing a robot reads.
    pub fn add_archive(&mut self, name: &str, bytes: &[u8]) -> Result<(), ClassroomError> {
        let files = archive::unpack(name, bytes).map_err(|e| match e {
            ArchiveError::TooLarge { .. } => ClassroomError::TooLarge(e.to_string()),
            e => ClassroomError::Unreadable(e.to_string()),
        })?;
        for (path, content) in files {
            let lower = path.to_ascii_lowercase();
            let binary = BINARY_EXTENSIONS.iter().any(|ext| lower.ends_with(ext));
            if !binary && std::str::from_utf8(&content).is_err() {
                continue;
            }
            self.add(path, Bytes::from(content))?;
        }
        Ok(())
    }

    /// How many files it has.
    pub fn count(&self) -> usize {
        usize::from(self.main.is_some()) + self.files.len() + self.assets.len() + self.binaries.len()
    }

    /// The main file when none came as the form's main field: the one `main` names, else
    /// the only `.vlab` file, else the only URDF or xacro file.
    fn chosen_main(&mut self) -> Result<(String, String), ClassroomError> {
        if let Some(name) = self.main_choice.clone() {
            let text = self.files.remove(&name).ok_or_else(|| {
                let mut names: Vec<&String> = self.files.keys().collect();
                names.sort();
                let names: Vec<&str> = names.iter().take(20).map(|n| n.as_str()).collect();
                ClassroomError::Unreadable(format!(
                    "'main' names '{name}', which is not a text file of the upload (it has: {})",
                    names.join(", ")
                ))
            })?;
            return Ok((name, text));
        }
        let named = |ends: &[&str]| -> Vec<String> {
            let mut names: Vec<String> = self
                .files
                .keys()
                .filter(|n| ends.iter().any(|e| n.to_ascii_lowercase().ends_with(e)))
                .cloned()
                .collect();
            names.sort();
            names
        };
        let scenes = named(&[".vlab"]);
        let candidates = if scenes.is_empty() { self.not_included(named(&ROBOT_EXTENSIONS)) } else { scenes };
        match candidates.as_slice() {
            [one] => {
                let text = self.files.remove(one).expect("listed");
                Ok((one.clone(), text))
            }
            [] => Err(ClassroomError::Unreadable(
                "the form has no 'scene' (or 'description') field: put the main .vlab file in it".into(),
            )),
            several => Err(ClassroomError::Unreadable(format!(
                "the upload has several files that could be the main one ({}): name it in the form's 'main' field (or with ?main= for a zip body)",
                several.join(", ")
            ))),
        }
    }

    /// `names` without the files another file of the upload includes with
    /// `xacro:include`: a package's shared properties and macros are never its robot.
    fn not_included(&self, names: Vec<String>) -> Vec<String> {
        let included: Vec<&str> = self.files.values().flat_map(|text| xacro_includes(text)).collect();
        let base = |name: &str| name.rsplit('/').next().unwrap_or(name).to_owned();
        let kept: Vec<String> = names.iter().filter(|n| !included.contains(&base(n).as_str())).cloned().collect();
        // Files that include each other: none is plainly the robot, so all stay candidates.
        if kept.is_empty() { names } else { kept }
    }

    /// The upload as a scene: its main file is the `.vlab` description, or a URDF file
    /// (which becomes the robot of a description written for it, see [`urdf_wrapper`]),
    /// standing at (1, 0, 1).
    pub(in crate::classroom) fn into_scene(self) -> Result<Bundle, ClassroomError> {
        self.into_description(UrdfStart::Fixed)
    }

    /// The upload as robots to add: as [`Self::into_scene`], a bare URDF file's robot
    /// standing on a free spot the lab chooses.
    pub(super) fn into_robots(self) -> Result<Bundle, ClassroomError> {
        self.into_description(UrdfStart::FreeSpot)
    }

    fn into_description(mut self, start: UrdfStart) -> Result<Bundle, ClassroomError> {
        let (main_name, main_text) = match self.main.take() {
            Some(main) => main,
            None if self.count() > 0 || self.main_choice.is_some() => self.chosen_main()?,
            None => {
                return Err(ClassroomError::Unreadable(
                    "the form has no 'scene' (or 'description') field: put the main .vlab file in it".into(),
                ));
            }
        };
        let (main_name, main_text) = match urdf_wrapper(&main_name, &main_text, start) {
            Some((urdf_name, wrapper_name, wrapper)) => {
                self.files.insert(urdf_name, main_text);
                (wrapper_name, wrapper)
            }
            None => (main_name, main_text),
        };
        Ok(Bundle {
            main_name,
            main_text,
            files: self.files,
            assets: self.assets,
            binaries: self.binaries,
            program: self.program,
        })
    }

    /// The upload as a program on its own: the `program` file, or a plain-text body.
    pub(crate) fn into_program(mut self) -> Result<Bundle, ClassroomError> {
        let plain_name = if self.plain { self.main.as_ref().map(|(name, _)| name.clone()) } else { None };
        let program = self.program.clone().or(plain_name).ok_or_else(|| {
            ClassroomError::Unreadable(
                "the form has no 'program' file: put the program in a field named 'program'".into(),
            )
        })?;
        if let Some((name, text)) = self.main.take() {
            self.files.insert(name, text);
        }
        Ok(Bundle {
            main_name: program.clone(),
            main_text: String::new(),
            files: self.files,
            assets: self.assets,
            binaries: self.binaries,
            program: Some(program),
        })
    }
}

/// Where a robot uploaded as a bare URDF file stands: its root link's frame (the ground
/// under a ROS robot's base) on a free spot the lab chooses (`{x}`, `{z}`) when it is
/// added as a robot, at (1, 0, 1) in a scene the instructor inserts (which has no
/// placeholders). A description with `urdf "..." { pos(...); }` places it anywhere else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum UrdfStart {
    /// `pos({x}, 0, {z})`.
    FreeSpot,
    /// `pos(1, 0, 1)`.
    Fixed,
}

impl UrdfStart {
    fn position(self) -> &'static str {
        match self {
            UrdfStart::FreeSpot => "{x}, 0, {z}",
            UrdfStart::Fixed => "1, 0, 1",
        }
    }
}

/// The file names (last path part) that `text` includes with `<xacro:include
/// filename="…"/>`, however the path before them is written (`$(find pkg)/urdf/…`).
fn xacro_includes(text: &str) -> impl Iterator<Item = &str> {
    text.split("xacro:include").skip(1).filter_map(|tag| {
        let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
        let value = tag.split_once("filename")?.1.trim_start().strip_prefix('=')?.trim_start();
        let quote = value.chars().next().filter(|c| *c == '"' || *c == '\'')?;
        let path = &value[1..][..value[1..].find(quote)?];
        Some(path.rsplit('/').next().unwrap_or(path))
    })
}

/// A main file that is a URDF robot (named `.urdf`, `.xacro`, or XML): the names it is
/// kept under and the description written for it,
/// `robot <stem> { body { urdf "<file>" { pos(<start>); } } }`.
fn urdf_wrapper(name: &str, text: &str, start: UrdfStart) -> Option<(String, String, String)> {
    let lower = name.to_ascii_lowercase();
    let named = ROBOT_EXTENSIONS.iter().any(|ext| lower.ends_with(ext));
    if !named && !text.trim_start().starts_with('<') {
        return None;
    }
    let file = if named { name.to_owned() } else { "robot.urdf".to_owned() };
    let base = file.rsplit('/').next().unwrap_or(&file);
    let mut stem = base;
    for ending in [".xacro", ".urdf"] {
        if stem.to_ascii_lowercase().ends_with(ending) {
            stem = &stem[..stem.len() - ending.len()];
        }
    }
    let mut robot: String = stem.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if !robot.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        robot.insert(0, '_');
    }
    let at = start.position();
    let wrapper = format!("robot {robot} {{ body {{ urdf \"{file}\" {{ pos({at}); }} }} }}\n");
    Some((file, format!("{robot}.vlab"), wrapper))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_urdf_main_file_gets_a_description_naming_its_robot_after_the_file() {
        let (file, name, wrapper) = urdf_wrapper("turtlebot3-burger.urdf", "<robot/>", UrdfStart::Fixed).unwrap();
        assert_eq!((file.as_str(), name.as_str()), ("turtlebot3-burger.urdf", "turtlebot3_burger.vlab"));
        assert_eq!(wrapper, "robot turtlebot3_burger { body { urdf \"turtlebot3-burger.urdf\" { pos(1, 0, 1); } } }\n");
        let (file, _, wrapper) =
            urdf_wrapper("upload.vlab", "  <?xml version=\"1.0\"?><robot/>", UrdfStart::FreeSpot).unwrap();
        assert_eq!(file, "robot.urdf");
        assert!(wrapper.starts_with("robot robot {") && wrapper.contains("pos({x}, 0, {z});"), "{wrapper}");
        assert!(urdf_wrapper("bot.vlab", "robot b { }", UrdfStart::Fixed).is_none());
    }

    #[test]
    fn a_xacro_main_file_is_a_urdf_robot_named_without_its_endings() {
        let (file, name, wrapper) = urdf_wrapper("urdf/tb3-burger.urdf.xacro", "<robot/>", UrdfStart::Fixed).unwrap();
        assert_eq!((file.as_str(), name.as_str()), ("urdf/tb3-burger.urdf.xacro", "tb3_burger.vlab"));
        assert!(wrapper.contains("urdf \"urdf/tb3-burger.urdf.xacro\""), "{wrapper}");
        assert_eq!(urdf_wrapper("arm.xacro", "<robot/>", UrdfStart::Fixed).unwrap().1, "arm.vlab");
    }

    #[test]
    fn a_bundle_without_a_main_field_takes_its_only_robot_or_the_one_named() {
        let mut files = UploadFiles::default();
        files.add("urdf/bot.urdf".into(), Bytes::from_static(b"<robot name=\"bot\"/>")).unwrap();
        files.add("meshes/base.stl".into(), Bytes::from_static(b"solid")).unwrap();
        let bundle = files.into_scene().unwrap();
        assert_eq!(bundle.main_name, "bot.vlab");
        assert!(bundle.files.contains_key("urdf/bot.urdf") && bundle.assets.contains_key("meshes/base.stl"));

        let two = || {
            let mut files = UploadFiles::default();
            files.add("a.urdf".into(), Bytes::from_static(b"<robot/>")).unwrap();
            files.add("b.urdf.xacro".into(), Bytes::from_static(b"<robot/>")).unwrap();
            files
        };
        let e = two().into_scene().err().unwrap().to_string();
        assert!(e.contains("a.urdf, b.urdf.xacro") && e.contains("'main' field"), "{e}");
        let mut chosen = two();
        chosen.main_choice = Some("b.urdf.xacro".into());
        assert_eq!(chosen.into_scene().unwrap().main_name, "b.vlab");
        let mut wrong = two();
        wrong.main_choice = Some("c.urdf".into());
        assert!(wrong.into_scene().err().unwrap().to_string().contains("'main' names 'c.urdf'"));
    }

    #[test]
    fn a_file_another_includes_is_not_a_candidate_for_the_main_one() {
        let mut files = UploadFiles::default();
        let burger = br#"<robot xmlns:xacro="http://ros.org/wiki/xacro" name="burger">
  <xacro:include filename="$(find burger_description)/urdf/common_properties.xacro"/>
</robot>"#;
        files.add("urdf/burger.urdf".into(), Bytes::from_static(burger)).unwrap();
        files.add("urdf/common_properties.xacro".into(), Bytes::from_static(b"<robot/>")).unwrap();
        assert_eq!(files.into_scene().unwrap().main_name, "burger.vlab");

        let texts = [
            "<xacro:include filename='a.xacro' />",
            "<xacro:include\n   filename = \"pkg/b.xacro\"/>",
            "<xacro:include ns=\"x\"/>",
        ];
        let found: Vec<&str> = texts.iter().flat_map(|t| xacro_includes(t)).collect();
        assert_eq!(found, ["a.xacro", "b.xacro"]);
    }
}
