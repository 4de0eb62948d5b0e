//! glTF and GLB files: the triangle primitives of the file's scene, each with the
//! transformation of the node that places it. The buffers must be inside the file (a
//! `.glb`'s binary chunk): a mesh is one URL.

use gltf::buffer::Source;
use gltf::mesh::Mode;
use gltf::{Document, Gltf};
use vlab_protocol::{IDENTITY, Matrix, TriangleMesh};

use super::{MAX_MESHES, MAX_VERTICES, MeshError};

/// Deepest node tree read: deeper is a loop (a node among its own descendants, which
/// validation does not refuse) or no real model.
pub const MAX_NODE_DEPTH: usize = 64;

/// The file's validated document and its binary chunk.
fn read_document(bytes: &[u8]) -> Result<(Document, Option<Vec<u8>>), MeshError> {
    let gltf = Gltf::from_slice(bytes).map_err(|e| MeshError::Unreadable { kind: "glTF", reason: e.to_string() })?;
    Ok((gltf.document, gltf.blob))
}

/// Every triangle primitive of the file's scene (its default one, else its first;
/// without scenes, every root node).
pub fn triangle_meshes(bytes: &[u8]) -> Result<Vec<TriangleMesh>, MeshError> {
    let (document, mut blob) = read_document(bytes)?;
    let mut buffers = Vec::new();
    for buffer in document.buffers() {
        let data = match buffer.source() {
            Source::Bin => blob.take().ok_or(MeshError::ShortBuffer)?,
            Source::Uri(_) => return Err(MeshError::ExternalBuffer),
        };
        if data.len() < buffer.length() {
            return Err(MeshError::ShortBuffer);
        }
        buffers.push(data);
    }
    let roots: Vec<gltf::Node> = match document.default_scene().or_else(|| document.scenes().next()) {
        Some(scene) => scene.nodes().collect(),
        None => {
            let children: std::collections::HashSet<usize> =
                document.nodes().flat_map(|n| n.children().map(|c| c.index())).collect();
            document.nodes().filter(|n| !children.contains(&n.index())).collect()
        }
    };
    let mut meshes = Vec::new();
    let mut vertices = 0;
    for root in roots {
        visit(&root, IDENTITY, 0, &buffers, &mut meshes, &mut vertices)?;
    }
    if meshes.is_empty() {
        return Err(MeshError::NoTriangles);
    }
    Ok(meshes)
}

/// Adds the triangles of `node` (at `depth` in its tree) and its descendants, `parent`
/// placing the node; `vertices` counts what was added, against [`MAX_VERTICES`] (a
/// node may be reached through many parents, so a small file can place a mesh very
/// many times).
fn visit(
    node: &gltf::Node,
    parent: Matrix,
    depth: usize,
    buffers: &[Vec<u8>],
    meshes: &mut Vec<TriangleMesh>,
    vertices: &mut usize,
) -> Result<(), MeshError> {
    if depth >= MAX_NODE_DEPTH {
        return Err(MeshError::TooLarge(format!("its node tree is deeper than {MAX_NODE_DEPTH} (or loops)")));
    }
    let transform = multiply(&parent, &node.transform().matrix());
    if let Some(mesh) = node.mesh() {
        for primitive in mesh.primitives().filter(|p| p.mode() == Mode::Triangles) {
            let reader = primitive.reader(|buffer| buffers.get(buffer.index()).map(Vec::as_slice));
            let Some(positions) = reader.read_positions() else { continue };
            *vertices += positions.len();
            if *vertices > MAX_VERTICES {
                return Err(MeshError::TooLarge(format!("its scene places more than {MAX_VERTICES} vertices")));
            }
            if meshes.len() == MAX_MESHES {
                return Err(MeshError::TooLarge(format!("its scene places more than {MAX_MESHES} meshes")));
            }
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
        visit(&child, transform, depth + 1, buffers, meshes, vertices)?;
    }
    Ok(())
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

    const PYRAMID: &[u8] = include_bytes!("../../../../assets/pyramid.glb");

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
        assert!(matches!(triangle_meshes(b"solid cube"), Err(MeshError::Unreadable { .. })));
        let external = br#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":4,"uri":"mesh.bin"}]}"#;
        assert_eq!(triangle_meshes(external), Err(MeshError::ExternalBuffer));
        let empty = br#"{"asset":{"version":"2.0"},"scenes":[{"nodes":[]}]}"#;
        assert_eq!(triangle_meshes(empty), Err(MeshError::NoTriangles));
        // `extras` (kept as raw JSON) and unknown members read; a broken index is
        // refused by validation.
        let extras = br#"{"asset":{"version":"2.0","extras":{"by":"x"}},"scenes":[{"nodes":[]}],"extensionsX":1}"#;
        assert_eq!(triangle_meshes(extras), Err(MeshError::NoTriangles));
        let dangling = br#"{"asset":{"version":"2.0"},"scenes":[{"nodes":[3]}]}"#;
        assert!(matches!(triangle_meshes(dangling), Err(MeshError::Unreadable { .. })));
        assert!(matches!(triangle_meshes(b"glTF\x02\0\0\0"), Err(MeshError::Unreadable { .. })), "a cut GLB header");
    }

    /// A GLB of `json` and the binary chunk `bin`.
    fn glb(json: &serde_json::Value, bin: &[u8]) -> Vec<u8> {
        let mut text = serde_json::to_vec(json).unwrap();
        while !text.len().is_multiple_of(4) {
            text.push(b' ');
        }
        let mut glb = b"glTF".to_vec();
        glb.extend_from_slice(&2u32.to_le_bytes());
        glb.extend_from_slice(&((12 + 8 + text.len() + bin.len()) as u32).to_le_bytes());
        glb.extend_from_slice(&(text.len() as u32).to_le_bytes());
        glb.extend_from_slice(b"JSON");
        glb.extend_from_slice(&text);
        glb.extend_from_slice(bin);
        glb
    }

    /// `json`'s mesh 0 placed `2^levels` times, through nodes that each have the next
    /// one twice among their children: a small file, a large scene.
    fn placed(mut json: serde_json::Value, bin: &[u8], levels: usize) -> Vec<u8> {
        let mut nodes = vec![serde_json::json!({"mesh": 0})];
        for level in 1..=levels {
            nodes.push(serde_json::json!({"children": [level - 1, level - 1]}));
        }
        json["nodes"] = serde_json::Value::Array(nodes);
        json["scenes"] = serde_json::json!([{"nodes": [levels]}]);
        json["scene"] = serde_json::json!(0);
        glb(&json, bin)
    }

    /// The pyramid's JSON and binary chunk.
    fn pyramid_parts() -> (serde_json::Value, &'static [u8]) {
        let json_length = u32::from_le_bytes(PYRAMID[12..16].try_into().unwrap()) as usize;
        (serde_json::from_slice(&PYRAMID[20..20 + json_length]).unwrap(), &PYRAMID[20 + json_length..])
    }

    #[test]
    fn a_node_tree_that_loops_or_places_too_much_is_refused_not_followed() {
        let looping =
            br#"{"asset":{"version":"2.0"},"scenes":[{"nodes":[0]}],"nodes":[{"children":[1]},{"children":[0]}]}"#;
        assert!(matches!(triangle_meshes(looping), Err(MeshError::TooLarge(_))), "{:?}", triangle_meshes(looping));

        // The pyramid placed 256 times: every mesh a page may draw from one file; 512: refused.
        let (json, bin) = pyramid_parts();
        assert_eq!(1 << 8, MAX_MESHES);
        assert_eq!(triangle_meshes(&placed(json.clone(), bin, 8)).map(|m| m.len()), Ok(MAX_MESHES));
        match triangle_meshes(&placed(json, bin, 9)) {
            Err(MeshError::TooLarge(reason)) => assert!(reason.contains("256 meshes"), "{reason}"),
            other => panic!("{:?}", other.map(|m| m.len())),
        }

        // 7,815 vertices placed 256 times: more than MAX_VERTICES within MAX_MESHES.
        let count = 7_815;
        assert!(count * MAX_MESHES > MAX_VERTICES && count * (MAX_MESHES - 1) <= MAX_VERTICES);
        let positions = count * 12;
        let mut bin = (positions as u32).to_le_bytes().to_vec();
        bin.extend_from_slice(b"BIN\0");
        bin.resize(8 + positions, 0);
        let json = serde_json::json!({
            "asset": {"version": "2.0"},
            "buffers": [{"byteLength": positions}],
            "bufferViews": [{"buffer": 0, "byteLength": positions}],
            "accessors": [{"bufferView": 0, "componentType": 5126, "count": count, "type": "VEC3",
                           "min": [0.0, 0.0, 0.0], "max": [0.0, 0.0, 0.0]}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        });
        assert_eq!(triangle_meshes(&placed(json.clone(), &bin, 0)).map(|m| m[0].positions.len()), Ok(count));
        match triangle_meshes(&placed(json, &bin, 8)) {
            Err(MeshError::TooLarge(reason)) => assert!(reason.contains("vertices"), "{reason}"),
            other => panic!("{:?}", other.map(|m| m.len())),
        }
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
        assert_eq!(triangle_meshes(&cut), Err(MeshError::ShortBuffer));
    }
}
