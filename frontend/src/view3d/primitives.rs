//! Breaks snapshot parts into unit primitives (cube, sphere, cylinder) plus a pose and a scale, and builds the closed unit cylinder.
//!
//! The renderer keeps one unit mesh per kind and draws every part as
//! `world_from_body * body_from_part * part_from_primitive * scale(..)`. The unit meshes:
//! cube `[-1, 1]³` and sphere of radius 1 (as three-d's `CpuMesh::cube`/`sphere`), and
//! [`unit_cylinder`] of radius 1 from `z = -1` to `z = 1`. Our own cylinder because
//! three-d's runs along X from 0 to 1 and has no caps: a wheel would look hollow.

use vlab_protocol::{PartView, Pose, Shape};

/// Which unit mesh a primitive scales.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrimitiveKind {
    /// `[-1, 1]³`.
    Cube,
    /// Radius 1, centred.
    Sphere,
    /// Radius 1, axis Z, `z ∈ [-1, 1]`, capped.
    Cylinder,
}

/// A unit mesh placed in a part's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Primitive {
    /// Which unit mesh.
    pub kind: PrimitiveKind,
    /// Where it sits in the part's frame.
    pub part_from_primitive: Pose,
    /// Scale applied to the unit mesh before placing it, metres per unit.
    pub scale: [f32; 3],
}

/// The primitives that draw one part: one for most shapes, three for a capsule.
pub fn primitives(part: &PartView) -> Vec<Primitive> {
    let at = |kind, z: f32, scale| Primitive {
        kind,
        part_from_primitive: Pose { position: [0.0, 0.0, z], rotation: [0.0, 0.0, 0.0, 1.0] },
        scale,
    };
    match part.shape {
        Shape::Box { half_extents } => vec![at(PrimitiveKind::Cube, 0.0, half_extents)],
        Shape::Sphere { radius } => vec![at(PrimitiveKind::Sphere, 0.0, [radius; 3])],
        Shape::Cylinder { radius, half_length } => {
            vec![at(PrimitiveKind::Cylinder, 0.0, [radius, radius, half_length])]
        }
        Shape::Capsule { radius, half_length } => vec![
            at(PrimitiveKind::Cylinder, 0.0, [radius, radius, half_length]),
            at(PrimitiveKind::Sphere, half_length, [radius; 3]),
            at(PrimitiveKind::Sphere, -half_length, [radius; 3]),
        ],
    }
}

/// Triangle mesh data, independent of any graphics library.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshData {
    /// Vertex positions.
    pub positions: Vec<[f32; 3]>,
    /// Unit vertex normals, one per position.
    pub normals: Vec<[f32; 3]>,
    /// Counter-clockwise (seen from outside) triangles, three indices each.
    pub indices: Vec<u32>,
    /// Texture coordinates, one per position, or none.
    pub uvs: Vec<[f32; 2]>,
}

/// A box of these half-extents (metres), centred, whose texture coordinates are in
/// units of `metres_per_texture`: a texture keeps its size on every face, so a 12 m
/// wall 0.8 m high shows a row of copies, not one stretched image. Faces have their
/// own vertices (flat normals).
pub fn textured_box(half_extents: [f32; 3], metres_per_texture: f32) -> MeshData {
    let mut mesh = MeshData::default();
    let h = half_extents;
    for a in 0..3 {
        // (b, c) follow a cyclically, so e_b x e_c = e_a.
        let (b, c) = ((a + 1) % 3, (a + 2) % 3);
        for sign in [1.0f32, -1.0] {
            let first = mesh.positions.len() as u32;
            let mut corners = [(-1.0f32, -1.0f32), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)];
            if sign < 0.0 {
                corners.reverse();
            }
            for (sb, sc) in corners {
                let mut p = [0.0; 3];
                p[a] = sign * h[a];
                p[b] = sb * h[b];
                p[c] = sc * h[c];
                let mut n = [0.0; 3];
                n[a] = sign;
                mesh.positions.push(p);
                mesh.normals.push(n);
                mesh.uvs.push([(p[b] + h[b]) / metres_per_texture, (p[c] + h[c]) / metres_per_texture]);
            }
            mesh.indices.extend([first, first + 1, first + 2, first, first + 2, first + 3]);
        }
    }
    mesh
}

/// A closed cylinder of radius 1 along Z from -1 to 1, with `segments` sides.
/// Caps have their own vertices so their normals stay flat.
pub fn unit_cylinder(segments: u32) -> MeshData {
    let n = segments.max(3);
    let ring: Vec<(f32, f32)> =
        (0..n).map(|j| (std::f32::consts::TAU * j as f32 / n as f32).sin_cos()).map(|(sin, cos)| (cos, sin)).collect();
    let mut mesh = MeshData::default();

    // Side: bottom vertex 2j, top vertex 2j + 1.
    for &(c, s) in &ring {
        mesh.positions.extend([[c, s, -1.0], [c, s, 1.0]]);
        mesh.normals.extend([[c, s, 0.0], [c, s, 0.0]]);
    }
    for j in 0..n {
        let k = (j + 1) % n;
        let (b0, t0, b1, t1) = (2 * j, 2 * j + 1, 2 * k, 2 * k + 1);
        mesh.indices.extend([b0, b1, t1, b0, t1, t0]);
    }

    // Caps: a centre and a ring each.
    for z in [1.0f32, -1.0] {
        let centre = mesh.positions.len() as u32;
        mesh.positions.push([0.0, 0.0, z]);
        mesh.normals.push([0.0, 0.0, z]);
        for &(c, s) in &ring {
            mesh.positions.push([c, s, z]);
            mesh.normals.push([0.0, 0.0, z]);
        }
        for j in 0..n {
            let (a, b) = (centre + 1 + j, centre + 1 + (j + 1) % n);
            // The bottom cap is seen from below: reverse the winding.
            if z > 0.0 { mesh.indices.extend([centre, a, b]) } else { mesh.indices.extend([centre, b, a]) }
        }
    }
    mesh
}

/// A flat ring in the XZ plane (y = 0), from radius `inner` to 1, facing up: the mark
/// under a picked robot.
pub fn flat_ring(segments: u32, inner: f32) -> MeshData {
    let n = segments.max(3);
    let mut mesh = MeshData::default();
    for j in 0..n {
        let (sin, cos) = (std::f32::consts::TAU * j as f32 / n as f32).sin_cos();
        mesh.positions.extend([[cos * inner, 0.0, sin * inner], [cos, 0.0, sin]]);
        mesh.normals.extend([[0.0, 1.0, 0.0]; 2]);
    }
    for j in 0..n {
        let k = (j + 1) % n;
        let (i0, o0, i1, o1) = (2 * j, 2 * j + 1, 2 * k, 2 * k + 1);
        mesh.indices.extend([i0, i1, o1, i0, o1, o0]);
    }
    mesh
}

#[cfg(test)]
mod tests {
    use super::*;
    use vlab_protocol::Material;

    fn part(shape: Shape) -> PartView {
        PartView {
            shape,
            local: Pose::IDENTITY,
            material: Material {
                name: "m".into(),
                color: [1, 2, 3, 255],
                roughness: 0.5,
                metallic: 0.0,
                texture: None,
                transparent: false,
            },
            mesh: None,
        }
    }

    #[test]
    fn boxes_scale_the_unit_cube_by_their_half_extents() {
        let p = primitives(&part(Shape::Box { half_extents: [1.0, 2.0, 3.0] }));
        assert_eq!(p.len(), 1);
        assert_eq!((p[0].kind, p[0].scale), (PrimitiveKind::Cube, [1.0, 2.0, 3.0]));
    }

    #[test]
    fn capsules_are_a_cylinder_and_two_caps_along_z() {
        let p = primitives(&part(Shape::Capsule { radius: 0.1, half_length: 0.5 }));
        assert_eq!(p.len(), 3);
        assert_eq!((p[0].kind, p[0].scale), (PrimitiveKind::Cylinder, [0.1, 0.1, 0.5]));
        let cap_z: Vec<f32> = p[1..].iter().map(|c| c.part_from_primitive.position[2]).collect();
        assert_eq!(cap_z, vec![0.5, -0.5]);
        assert!(p[1..].iter().all(|c| c.kind == PrimitiveKind::Sphere && c.scale == [0.1; 3]));
    }

    #[test]
    fn textured_boxes_face_outwards_and_keep_the_texture_size() {
        let mesh = textured_box([6.0, 0.4, 0.05], 2.0);
        assert_eq!((mesh.positions.len(), mesh.uvs.len(), mesh.indices.len()), (24, 24, 36));
        for tri in mesh.indices.chunks(3) {
            let [a, b, c] = [0, 1, 2].map(|k| mesh.positions[tri[k] as usize]);
            let normal = vlab_protocol::pose::cross(
                [b[0] - a[0], b[1] - a[1], b[2] - a[2]],
                [c[0] - a[0], c[1] - a[1], c[2] - a[2]],
            );
            let declared = mesh.normals[tri[0] as usize];
            let along: f32 = (0..3).map(|k| normal[k] * declared[k]).sum();
            let outward: f32 = (0..3).map(|k| declared[k] * a[k]).sum();
            assert!(along > 0.0 && outward > 0.0, "triangle {tri:?}");
        }
        // The 12 m side spans six copies of a 2 m texture, the 0.8 m side 0.4 of one.
        let max_u = mesh.uvs.iter().map(|uv| uv[0]).fold(0.0, f32::max);
        let max_v = mesh.uvs.iter().map(|uv| uv[1]).fold(0.0, f32::max);
        assert!((max_u.max(max_v) - 6.0).abs() < 1e-5);
        assert!(mesh.uvs.iter().all(|uv| uv[0] >= 0.0 && uv[1] >= 0.0));
    }

    #[test]
    fn the_ring_lies_flat_between_its_radii_and_faces_up() {
        let mesh = flat_ring(32, 0.8);
        assert_eq!((mesh.positions.len(), mesh.indices.len()), (64, 192));
        for p in &mesh.positions {
            let r = (p[0] * p[0] + p[2] * p[2]).sqrt();
            assert!(p[1] == 0.0 && ((r - 0.8).abs() < 1e-5 || (r - 1.0).abs() < 1e-5));
        }
        for tri in mesh.indices.chunks(3) {
            let [a, b, c] = [0, 1, 2].map(|k| mesh.positions[tri[k] as usize]);
            let normal = vlab_protocol::pose::cross(
                [b[0] - a[0], b[1] - a[1], b[2] - a[2]],
                [c[0] - a[0], c[1] - a[1], c[2] - a[2]],
            );
            assert!(normal[1] > 0.0, "triangle {tri:?} faces down");
        }
    }

    #[test]
    fn the_unit_cylinder_is_closed_and_faces_outwards() {
        let mesh = unit_cylinder(24);
        assert_eq!(mesh.positions.len(), mesh.normals.len());
        assert_eq!(mesh.indices.len() % 3, 0);
        assert!(mesh.indices.iter().all(|&i| (i as usize) < mesh.positions.len()));
        for p in &mesh.positions {
            assert!(p[2].abs() <= 1.0 + 1e-6 && (p[0] * p[0] + p[1] * p[1]).sqrt() <= 1.0 + 1e-5);
        }
        for n in &mesh.normals {
            assert!(((n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt() - 1.0).abs() < 1e-5);
        }
        // Every triangle's winding normal points away from the centre (the mesh is convex).
        for tri in mesh.indices.chunks(3) {
            let [a, b, c] = [0, 1, 2].map(|k| mesh.positions[tri[k] as usize]);
            let e1 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
            let e2 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
            let normal = vlab_protocol::pose::cross(e1, e2);
            let centroid = [0, 1, 2].map(|k| (a[k] + b[k] + c[k]) / 3.0);
            let outward: f32 = (0..3).map(|k| normal[k] * centroid[k]).sum();
            assert!(outward > 0.0, "triangle {tri:?} faces inwards");
        }
        // 24 side quads + 24 triangles per cap.
        assert_eq!(mesh.indices.len(), 3 * (2 * 24 + 2 * 24));
    }
}
