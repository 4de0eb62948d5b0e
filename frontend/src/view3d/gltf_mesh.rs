//! Reads the triangle meshes of a glTF file into plain arrays, each with the
//! transformation of the node that places it.
//!
//! Only geometry: the view colours and textures parts from the scene's materials, so a
//! file's own materials and images are never decoded (no image decoder in the page).
//! The buffers must be inside the file (a `.glb`'s binary chunk): the page fetches one
//! URL per mesh. Host-tested with the repository's `assets/pyramid.glb`.

use std::fmt;

use gltf::buffer::Source;
use gltf::mesh::Mode;
use gltf::{Document, Glb};

/// A column-major 4×4 matrix, as glTF writes them.
pub type Matrix = [[f32; 4]; 4];

/// The identity transformation.
const IDENTITY: Matrix = [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]];

/// One triangle primitive of a glTF mesh, in the mesh's own frame.
#[derive(Clone, Debug, PartialEq)]
pub struct TriangleMesh {
    /// Vertex positions, in the file's units.
    pub positions: Vec<[f32; 3]>,
    /// Vertex normals; `None` when the file has none (the view computes them).
    pub normals: Option<Vec<[f32; 3]>>,
    /// Three per triangle; `None` when the vertices are the triangles in order.
    pub indices: Option<Vec<u32>>,
    /// The first set of texture coordinates.
    pub uvs: Option<Vec<[f32; 2]>>,
    /// The first set of vertex colours, as 8-bit RGBA.
    pub colors: Option<Vec<[u8; 4]>>,
    /// File frame from mesh frame: the product of the node and its ancestors.
    pub transform: Matrix,
}

/// Why a glTF file gives no meshes.
#[derive(Debug, PartialEq)]
pub enum GltfError {
    /// Not glTF, or glTF that fails validation.
    Unreadable(String),
    /// A buffer lives in another file or a data URI; only `.glb` binary chunks are read.
    ExternalBuffer,
    /// A buffer shorter than the file declares.
    ShortBuffer,
    /// No triangle primitive with positions in the scene.
    NoTriangles,
}

impl fmt::Display for GltfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GltfError::Unreadable(reason) => write!(f, "not a readable glTF file: {reason}"),
            GltfError::ExternalBuffer => f.write_str("glTF buffers must be inside the file (use .glb)"),
            GltfError::ShortBuffer => f.write_str("a glTF buffer is shorter than declared"),
            GltfError::NoTriangles => f.write_str("no triangles in the file"),
        }
    }
}

/// The file's validated document and its binary chunk, as `gltf::Gltf::from_slice`
/// reads them, but with the JSON read through a `serde_json::Value` like all the page's
/// JSON (`crate::api::json`): the glTF types' readers are then compiled for `Value`
/// only, not once more for JSON bytes.
fn read_document(bytes: &[u8]) -> Result<(Document, Option<Vec<u8>>), GltfError> {
    let unreadable = |reason: String| GltfError::Unreadable(reason);
    let (json, blob) = if bytes.starts_with(b"glTF") {
        let glb = Glb::from_slice(bytes).map_err(|e| unreadable(e.to_string()))?;
        (glb.json.into_owned(), glb.bin.map(|bin| bin.into_owned()))
    } else {
        (bytes.to_vec(), None)
    };
    let text = std::str::from_utf8(&json).map_err(|e| unreadable(format!("the JSON is not UTF-8: {e}")))?;
    let root: gltf::json::Root = crate::api::from_json(text).map_err(|e| unreadable(e.to_string()))?;
    let document = Document::from_json(root).map_err(|e| unreadable(e.to_string()))?;
    Ok((document, blob))
}

/// Every triangle primitive of the file's scene (its default one, else its first;
/// without scenes, every root node).
pub fn triangle_meshes(bytes: &[u8]) -> Result<Vec<TriangleMesh>, GltfError> {
    let (document, mut blob) = read_document(bytes)?;
    let mut buffers = Vec::new();
    for buffer in document.buffers() {
        let data = match buffer.source() {
            Source::Bin => blob.take().ok_or(GltfError::ShortBuffer)?,
            Source::Uri(_) => return Err(GltfError::ExternalBuffer),
        };
        if data.len() < buffer.length() {
            return Err(GltfError::ShortBuffer);
        }
        buffers.push(data);
    }
    let roots: Vec<gltf::Node> = match document.default_scene().or_else(|| document.scenes().next()) {
        Some(scene) => scene.nodes().collect(),
        None => {
            let children: Vec<usize> = document.nodes().flat_map(|n| n.children().map(|c| c.index())).collect();
            document.nodes().filter(|n| !children.contains(&n.index())).collect()
        }
    };
    let mut meshes = Vec::new();
    for root in roots {
        visit(&root, IDENTITY, &buffers, &mut meshes);
    }
    if meshes.is_empty() {
        return Err(GltfError::NoTriangles);
    }
    Ok(meshes)
}

/// Adds the triangles of `node` and its descendants, `parent` placing the node.
fn visit(node: &gltf::Node, parent: Matrix, buffers: &[Vec<u8>], meshes: &mut Vec<TriangleMesh>) {
    let transform = multiply(&parent, &node.transform().matrix());
    if let Some(mesh) = node.mesh() {
        for primitive in mesh.primitives().filter(|p| p.mode() == Mode::Triangles) {
            let reader = primitive.reader(|buffer| buffers.get(buffer.index()).map(Vec::as_slice));
            let Some(positions) = reader.read_positions() else { continue };
            meshes.push(TriangleMesh {
                positions: positions.collect(),
                normals: reader.read_normals().map(Iterator::collect),
                indices: reader.read_indices().map(|i| i.into_u32().collect()),
                uvs: reader.read_tex_coords(0).map(|uv| uv.into_f32().collect()),
                colors: reader.read_colors(0).map(|c| c.into_rgba_u8().collect()),
                transform,
            });
        }
    }
    for child in node.children() {
        visit(&child, transform, buffers, meshes);
    }
}

/// `a · b` for column-major matrices.
fn multiply(a: &Matrix, b: &Matrix) -> Matrix {
    let mut product = [[0.0; 4]; 4];
    for (column, b_column) in product.iter_mut().zip(b) {
        for (row, cell) in column.iter_mut().enumerate() {
            *cell = (0..4).map(|k| a[k][row] * b_column[k]).sum();
        }
    }
    product
}

#[cfg(test)]
mod tests {
    use super::*;

    const PYRAMID: &[u8] = include_bytes!("../../../assets/pyramid.glb");

    #[test]
    fn the_pyramid_gives_its_six_triangles_with_normals_in_place() {
        let meshes = triangle_meshes(PYRAMID).unwrap();
        assert_eq!(meshes.len(), 1);
        let mesh = &meshes[0];
        assert_eq!(mesh.positions.len(), 18);
        assert_eq!(mesh.normals.as_ref().map(Vec::len), Some(18));
        assert_eq!(mesh.indices, None);
        assert_eq!(mesh.transform, IDENTITY);
        let top = mesh.positions.iter().map(|p| p[1]).fold(f32::MIN, f32::max);
        assert_eq!(top, 1.0);
    }

    #[test]
    fn nodes_compose_their_parents_transformations() {
        let translate = |x: f32| [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [x, 0.0, 0.0, 1.0]];
        let scale = [[2.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 1.0]];
        // Parent moves by 1 along x, child scales by 2: the child's origin ends at x = 1,
        // its point (1, 0, 0) at x = 3.
        let product = multiply(&translate(1.0), &scale);
        assert_eq!(product[3], [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(product[0][0] + product[3][0], 3.0);
        assert_eq!(multiply(&IDENTITY, &scale), scale);
    }

    #[test]
    fn files_that_are_not_glb_meshes_say_why() {
        assert!(matches!(triangle_meshes(b"solid cube"), Err(GltfError::Unreadable(_))));
        let external = br#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":4,"uri":"mesh.bin"}]}"#;
        assert_eq!(triangle_meshes(external), Err(GltfError::ExternalBuffer));
        let empty = br#"{"asset":{"version":"2.0"},"scenes":[{"nodes":[]}]}"#;
        assert_eq!(triangle_meshes(empty), Err(GltfError::NoTriangles));
        // Read through a `serde_json::Value`: `extras` (kept as raw JSON) and unknown
        // members still read, a broken index is still refused by validation.
        let extras = br#"{"asset":{"version":"2.0","extras":{"by":"x"}},"scenes":[{"nodes":[]}],"extensionsX":1}"#;
        assert_eq!(triangle_meshes(extras), Err(GltfError::NoTriangles));
        let dangling = br#"{"asset":{"version":"2.0"},"scenes":[{"nodes":[3]}]}"#;
        assert!(matches!(triangle_meshes(dangling), Err(GltfError::Unreadable(_))));
        assert!(matches!(triangle_meshes(b"glTF\x02\0\0\0"), Err(GltfError::Unreadable(_))), "a cut GLB header");
    }

    #[test]
    fn a_binary_chunk_shorter_than_its_buffer_is_refused() {
        // The pyramid's JSON declares 432 bytes; cut the binary chunk to 16.
        let json_length = u32::from_le_bytes(PYRAMID[12..16].try_into().unwrap()) as usize;
        let bin_start = 20 + json_length;
        let mut cut = PYRAMID[..bin_start + 8 + 16].to_vec();
        cut[bin_start..bin_start + 4].copy_from_slice(&16u32.to_le_bytes());
        let total = cut.len() as u32;
        cut[8..12].copy_from_slice(&total.to_le_bytes());
        assert_eq!(triangle_meshes(&cut), Err(GltfError::ShortBuffer));
    }
}
