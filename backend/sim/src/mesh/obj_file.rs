//! Wavefront OBJ files: one triangle mesh per object, read by `three-d-asset` (the
//! reader the page used when it read meshes itself, so a file looks as it did). A
//! material library the file names is not read: the scene gives parts their colours.

use three_d_asset::io::RawAssets;
use three_d_asset::{Geometry, Model};
use vlab_protocol::TriangleMesh;

use super::{MAX_VERTICES, MeshError};

/// The name the reader is given: it picks its decoder by the extension.
const NAME: &str = "mesh.obj";

/// Every triangle mesh of the OBJ file `bytes`.
pub fn triangle_meshes(bytes: &[u8]) -> Result<Vec<TriangleMesh>, MeshError> {
    let unreadable = |reason: String| MeshError::Unreadable { kind: "OBJ", reason };
    let mut raw = RawAssets::new();
    raw.insert(NAME, bytes.to_vec());
    let model: Model = raw.deserialize(NAME).map_err(|e| unreadable(e.to_string()))?;
    let meshes = model
        .geometries
        .into_iter()
        .filter_map(|primitive| match primitive.geometry {
            Geometry::Triangles(mesh) => Some(TriangleMesh {
                positions: mesh.positions.into_f32().into_iter().map(Into::into).collect(),
                normals: mesh.normals.map(|normals| normals.into_iter().map(Into::into).collect()),
                indices: mesh.indices.into_u32(),
                uvs: mesh.uvs.map(|uvs| uvs.into_iter().map(Into::into).collect()),
                colors: mesh.colors.map(|colors| colors.into_iter().map(|c| [c.r, c.g, c.b, c.a]).collect()),
                transform: primitive.transformation.into(),
            }),
            _ => None,
        })
        .filter(|mesh| !mesh.positions.is_empty())
        .collect::<Vec<_>>();
    if meshes.iter().map(|m| m.positions.len()).sum::<usize>() > MAX_VERTICES {
        return Err(MeshError::TooLarge(format!("more than {MAX_VERTICES} vertices")));
    }
    Ok(meshes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_face_of_four_corners_gives_two_triangles() {
        let square = b"o square\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//1 4//1\n";
        let meshes = triangle_meshes(square).unwrap();
        assert_eq!(meshes.len(), 1);
        let mesh = &meshes[0];
        let triangles = mesh.indices.as_ref().map_or(mesh.positions.len(), Vec::len) / 3;
        assert_eq!(triangles, 2);
        assert!(mesh.normals.as_ref().is_some_and(|n| n.iter().all(|n| *n == [0.0, 0.0, 1.0])));
        assert_eq!(mesh.transform, vlab_protocol::IDENTITY);
    }

    #[test]
    fn text_that_is_not_obj_says_why() {
        assert!(matches!(triangle_meshes(b"v 0 0 zero\nf 1 2 3\n"), Err(MeshError::Unreadable { kind: "OBJ", .. })));
        assert_eq!(triangle_meshes(b"# nothing here\n"), Ok(vec![]));
    }
}
