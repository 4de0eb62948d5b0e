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
    /// Its bytes, as kept: every file's name and content.
    pub fn size(&self) -> u64 {
        let texts = self.files.iter().map(|(name, text)| name.len() + text.len());
        let blobs = self.assets.iter().chain(&self.binaries).map(|(name, bytes)| name.len() + bytes.len());
        (self.main_name.len() + self.main_text.len() + texts.sum::<usize>() + blobs.sum::<usize>()) as u64
    }
}

impl UploadFiles {
    /// The upload as a scene: its main file is the `.vlab` description.
    pub(super) fn into_scene(self) -> Result<Bundle, ClassroomError> {
        let (main_name, main_text) = self.main.ok_or_else(|| {
            ClassroomError::Unreadable(
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

    /// The upload as a program on its own: the `program` file, or a plain-text body.
    pub(super) fn into_program(mut self) -> Result<Bundle, ClassroomError> {
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
