//! Mesh files (OBJ, glTF, GLB) read into plain triangle arrays for the page to draw
//! ([`vlab_protocol::TriangleMesh`]), so that the browser never parses them.
//!
//! *Why on the server:* the readers were 15 % of the page's wasm, and every page
//! parsed every file again; here each file is read once, natively, and what pages
//! fetch is the arrays (`GET /api/triangles`). Only geometry: the view colours and
//! textures parts from the scene's materials, so a file's own materials and images are
//! never decoded.

mod gltf_file;
mod obj_file;

use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use vlab_protocol::{TriangleMesh, TrianglesError, encode_triangles};

/// Why a mesh file gives no triangles.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MeshError {
    /// The name does not end in `.obj`, `.gltf` or `.glb`.
    #[error("not an .obj, .gltf or .glb file")]
    UnknownKind,
    /// Not a file of its kind, or one that fails its format's validation.
    #[error("not a readable {kind} file: {reason}")]
    Unreadable {
        /// `OBJ` or `glTF`.
        kind: &'static str,
        /// What the reader said.
        reason: String,
    },
    /// A glTF buffer lives in another file or a data URI; only `.glb` binary chunks are read.
    #[error("glTF buffers must be inside the file (use .glb)")]
    ExternalBuffer,
    /// A glTF buffer shorter than the file declares.
    #[error("a glTF buffer is shorter than declared")]
    ShortBuffer,
    /// No triangles with positions in the file (or in its scene).
    #[error("no triangles in the file")]
    NoTriangles,
    /// More than the view draws from one file ([`MAX_VERTICES`], [`MAX_MESHES`], a node
    /// tree deeper than [`gltf_file::MAX_NODE_DEPTH`]).
    #[error("the mesh is too large to draw: {0}")]
    TooLarge(String),
    /// The file's arrays do not agree (normals, uvs or colours not one per vertex).
    #[error("the file's arrays do not agree: {0}")]
    Inconsistent(#[from] TrianglesError),
}

/// A file's triangles as pages fetch them, read at most once: the first request reads
/// the file, requests meanwhile wait for it, later ones share the bytes.
pub type TrianglesOnce = Arc<OnceLock<Result<Bytes, MeshError>>>;

/// The triangles of file `name` holding `bytes`, as [`vlab_protocol::encode_triangles`]
/// writes them, read into `once` by the first caller.
///
/// # Errors
/// See [`triangles_of`]; a file that did not read stays unread (the error is kept).
pub fn read_once(once: &TrianglesOnce, name: &str, bytes: &[u8]) -> Result<Bytes, MeshError> {
    once.get_or_init(|| Ok(Bytes::from(encode_triangles(&triangles_of(name, bytes)?)?))).clone()
}

/// Most vertices read from one file, all its meshes together (a 24 MB array of
/// positions): far above any robot part, low enough that no file can make the server
/// build gigabytes.
pub const MAX_VERTICES: usize = 2_000_000;

/// Most meshes one file may place (a glTF mesh's primitives at every node that uses it,
/// an OBJ file's objects): each is a draw call on every page. A detailed robot part has
/// a few; tens of thousands of tiny ones would stall every viewer's page.
pub const MAX_MESHES: usize = 256;

/// Whether `name` (a file name or URL) is a mesh file the view draws.
pub fn is_mesh_file(name: &str) -> bool {
    kind_of(name).is_some()
}

enum Kind {
    Obj,
    Gltf,
}

fn kind_of(name: &str) -> Option<Kind> {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".obj") {
        Some(Kind::Obj)
    } else if lower.ends_with(".gltf") || lower.ends_with(".glb") {
        Some(Kind::Gltf)
    } else {
        None
    }
}

/// Every triangle mesh of the file `name` holding `bytes`, each with the transformation
/// that places it in the file's frame.
///
/// # Errors
/// See [`MeshError`]; a file without any triangle is [`MeshError::NoTriangles`].
pub fn triangles_of(name: &str, bytes: &[u8]) -> Result<Vec<TriangleMesh>, MeshError> {
    let meshes = match kind_of(name).ok_or(MeshError::UnknownKind)? {
        Kind::Obj => obj_file::triangle_meshes(bytes)?,
        Kind::Gltf => gltf_file::triangle_meshes(bytes)?,
    };
    if meshes.is_empty() {
        return Err(MeshError::NoTriangles);
    }
    if meshes.len() > MAX_MESHES {
        return Err(MeshError::TooLarge(format!("more than {MAX_MESHES} meshes")));
    }
    Ok(meshes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kind_comes_from_the_name_in_any_case() {
        assert!(is_mesh_file("/assets/wheel.obj"));
        assert!(is_mesh_file("/assets/Robot.GLB"));
        assert!(is_mesh_file("arm.gltf"));
        assert!(!is_mesh_file("/assets/wheel.mesh"));
        assert_eq!(triangles_of("wheel.stl", b"solid"), Err(MeshError::UnknownKind));
    }

    #[test]
    fn a_file_is_read_once_and_its_error_kept() {
        let once = TrianglesOnce::default();
        let square = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
        let bytes = read_once(&once, "a.obj", square).unwrap();
        assert_eq!(vlab_protocol::decode_triangles(&bytes).unwrap().len(), 1);
        // Whatever comes later, the first reading stands.
        assert_eq!(read_once(&once, "a.obj", b"not read again"), Ok(bytes));
        let broken = TrianglesOnce::default();
        assert_eq!(
            read_once(&broken, "a.glb", b"nope").unwrap_err().to_string().split(':').next(),
            Some("not a readable glTF file")
        );
        assert!(read_once(&broken, "a.obj", square).is_err());
    }

    #[test]
    fn the_repository_meshes_read() {
        let assets = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets");
        for name in ["wheel.obj", "pyramid.glb"] {
            let bytes = std::fs::read(assets.join(name)).unwrap();
            let meshes = triangles_of(name, &bytes).unwrap();
            assert!(meshes.iter().all(|m| !m.positions.is_empty()), "{name}");
        }
    }
}
