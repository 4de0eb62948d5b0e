//! The triangles of the meshes pages draw (`GET /api/triangles?mesh=URL`): a mesh of
//! the library (`/assets/...`) or one uploaded to a lab (`/api/labs/{lab}/assets/...`),
//! read once per file by [`vlab_sim::mesh`].

use std::collections::HashMap;
use std::path::{Component, Path};
use std::sync::Mutex;

use bytes::Bytes;

use super::{Classroom, ClassroomError};
use vlab_sim::mesh::{self, TrianglesOnce};

/// The meshes pages draw, as triangles.
#[derive(Clone, Copy)]
pub struct ClassroomMeshes<'a> {
    pub(super) classroom: &'a Classroom,
}

/// Library meshes read so far, by path under the assets folder. Bounded by the
/// folder's files: a path that names no file is refused before it is kept.
#[derive(Default)]
pub struct LibraryTriangles {
    by_path: Mutex<HashMap<String, TrianglesOnce>>,
}

impl ClassroomMeshes<'_> {
    /// The triangles of the mesh at `url`, as the page fetches them. Reading a file
    /// takes as long as it is large: call it off the async workers.
    ///
    /// # Errors
    /// [`ClassroomError::Invalid`] for a URL that is not a mesh of this server or a file
    /// that does not read, [`ClassroomError::NotFound`] for a mesh that is not there.
    pub fn triangles(self, url: &str) -> Result<Bytes, ClassroomError> {
        if !mesh::is_mesh_file(url) {
            return Err(ClassroomError::Invalid(format!("'{url}' is not an .obj, .gltf or .glb file")));
        }
        let unreadable = |error: mesh::MeshError| ClassroomError::Invalid(format!("mesh '{url}': {error}"));
        if let Some(path) = url.strip_prefix("/assets/") {
            return self.library_triangles(path).map_err(|error| match error {
                Some(error) => unreadable(error),
                None => ClassroomError::NotFound(format!("no mesh '{url}' in the library")),
            });
        }
        let uploaded = url.strip_prefix("/api/labs/").and_then(|rest| rest.split_once("/assets/"));
        let Some((lab, path)) = uploaded else {
            return Err(ClassroomError::Invalid(format!(
                "'{url}' is not a mesh of this server (/assets/... or /api/labs/{{lab}}/assets/...)"
            )));
        };
        let (bytes, once) = self
            .classroom
            .assets
            .with_triangles(lab, path)
            .ok_or_else(|| ClassroomError::NotFound(format!("no uploaded asset '{path}' in lab '{lab}'")))?;
        mesh::read_once(&once, path, &bytes).map_err(unreadable)
    }

    /// A library mesh's triangles: `Err(None)` when no such file.
    fn library_triangles(self, path: &str) -> Result<Bytes, Option<mesh::MeshError>> {
        let relative = Path::new(path);
        if !relative.components().all(|c| matches!(c, Component::Normal(_))) {
            return Err(None);
        }
        let file = self.classroom.library.assets_dir.join(relative);
        let once = {
            let mut by_path = self.classroom.library_triangles.by_path.lock().expect("library triangles lock");
            match by_path.get(path) {
                Some(once) => once.clone(),
                None if file.is_file() => by_path.entry(path.to_owned()).or_default().clone(),
                None => return Err(None),
            }
        };
        if let Some(read) = once.get() {
            return read.clone().map_err(Some);
        }
        let bytes = std::fs::read(&file).map_err(|_| None)?;
        mesh::read_once(&once, path, &bytes).map_err(Some)
    }
}
