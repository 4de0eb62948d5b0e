//! An upload's files: as they arrived (a form or a plain body), and once it is known
//! which one is the main file.

use std::collections::HashMap;

use bytes::Bytes;

use crate::classroom::ClassroomError;

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
    /// The upload as a scene: its main file is the `.vlab` description, or a URDF file
    /// (which becomes the robot of a description written for it, see [`urdf_wrapper`]).
    pub(super) fn into_scene(mut self) -> Result<Bundle, ClassroomError> {
        let (main_name, main_text) = self.main.ok_or_else(|| {
            ClassroomError::Unreadable(
                "the form has no 'scene' (or 'description') field: put the main .vlab file in it".into(),
            )
        })?;
        let (main_name, main_text) = match urdf_wrapper(&main_name, &main_text) {
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
/// under a ROS robot's base) at (1, 0, 1). A description with `urdf "..." { pos(...); }`
/// places it anywhere else.
pub const URDF_UPLOAD_POSITION: [f64; 3] = [1.0, 0.0, 1.0];

/// A main file that is a URDF robot (named `.urdf`, or XML): the names it is kept under
/// and the description written for it, `robot <stem> { body { urdf "<file>" { pos(1, 0, 1); } } }`.
fn urdf_wrapper(name: &str, text: &str) -> Option<(String, String, String)> {
    let is_urdf = name.to_ascii_lowercase().ends_with(".urdf") || text.trim_start().starts_with('<');
    if !is_urdf {
        return None;
    }
    let file = if name.to_ascii_lowercase().ends_with(".urdf") { name.to_owned() } else { "robot.urdf".to_owned() };
    let stem = file.rsplit('/').next().unwrap_or(&file).trim_end_matches(".urdf").trim_end_matches(".URDF");
    let mut robot: String = stem.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if !robot.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        robot.insert(0, '_');
    }
    let [x, y, z] = URDF_UPLOAD_POSITION;
    let wrapper = format!("robot {robot} {{ body {{ urdf \"{file}\" {{ pos({x}, {y}, {z}); }} }} }}\n");
    Some((file, format!("{robot}.vlab"), wrapper))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_urdf_main_file_gets_a_description_naming_its_robot_after_the_file() {
        let (file, name, wrapper) = urdf_wrapper("turtlebot3-burger.urdf", "<robot/>").unwrap();
        assert_eq!((file.as_str(), name.as_str()), ("turtlebot3-burger.urdf", "turtlebot3_burger.vlab"));
        assert_eq!(wrapper, "robot turtlebot3_burger { body { urdf \"turtlebot3-burger.urdf\" { pos(1, 0, 1); } } }\n");
        let (file, _, wrapper) = urdf_wrapper("upload.vlab", "  <?xml version=\"1.0\"?><robot/>").unwrap();
        assert_eq!(file, "robot.urdf");
        assert!(wrapper.starts_with("robot robot {"), "{wrapper}");
        assert!(urdf_wrapper("bot.vlab", "robot b { }").is_none());
    }
}
