//! Reading mesh files as bytes: the vertices of an STL (binary or ASCII), OBJ or glTF
//! (`.gltf` / `.glb`) file, for bounding boxes and convex hulls, and an STL written out
//! as OBJ for the browser (which draws OBJ and glTF).

use std::fmt::Write as _;

/// Largest number of triangles read from one STL file (about 25 MB of binary STL).
pub const MAX_STL_TRIANGLES: u32 = 500_000;

/// Most distinct vertices [`hull_points`] looks at; a mesh with more is looked at
/// through an evenly spaced selection of them.
pub const MAX_HULL_SCAN: usize = 65_536;

/// Why a mesh file could not be read.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MeshError {
    /// The file's ending names no format this reader knows.
    #[error("'{0}' is not a mesh format VLab reads (STL, OBJ, glTF or GLB)")]
    UnknownFormat(String),
    /// The bytes do not hold what the format says.
    #[error("{format} file is damaged: {detail}")]
    Damaged {
        /// `an STL`, `an OBJ`, `a glTF`.
        format: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// An empty file, or one with no vertex at all.
    #[error("the file holds no vertices")]
    Empty,
}

/// The vertices (file units) of the mesh in `bytes`, read by the format its `name` ends with.
pub fn vertices(name: &str, bytes: &[u8]) -> Result<Vec<[f32; 3]>, MeshError> {
    let lower = name.to_ascii_lowercase();
    if bytes.is_empty() {
        return Err(MeshError::Empty);
    }
    let points = if lower.ends_with(".stl") {
        stl_triangles(bytes)?.into_iter().flatten().collect()
    } else if lower.ends_with(".obj") {
        obj_vertices(bytes)?
    } else if lower.ends_with(".glb") || lower.ends_with(".gltf") {
        gltf_corners(bytes)?
    } else {
        return Err(MeshError::UnknownFormat(name.to_owned()));
    };
    if points.is_empty() { Err(MeshError::Empty) } else { Ok(points) }
}

/// The smallest box holding `points`: its `(min, max)` corners.
pub fn bounds(points: &[[f32; 3]]) -> ([f32; 3], [f32; 3]) {
    let mut min = [f32::INFINITY; 3];
    let mut max = [f32::NEG_INFINITY; 3];
    for p in points {
        for i in 0..3 {
            min[i] = min[i].min(p[i]);
            max[i] = max[i].max(p[i]);
        }
    }
    (min, max)
}

/// At most `limit` of `points` that span the same convex hull, or nearly: every distinct
/// point when there are few enough, else the farthest point in each of `limit` directions
/// spread evenly over the sphere (each a vertex of the true hull), in a fixed order.
pub fn hull_points(points: &[[f32; 3]], limit: usize) -> Vec<[f32; 3]> {
    let mut distinct: Vec<[f32; 3]> = points.to_vec();
    distinct.sort_by(|a, b| {
        a.iter().zip(b).map(|(x, y)| x.total_cmp(y)).find(|o| o.is_ne()).unwrap_or(std::cmp::Ordering::Equal)
    });
    distinct.dedup();
    if distinct.len() <= limit {
        return distinct;
    }
    // Bounds the work to `limit` × MAX_HULL_SCAN comparisons: a huge mesh is looked at
    // through every n-th of its vertices.
    if distinct.len() > MAX_HULL_SCAN {
        let stride = distinct.len().div_ceil(MAX_HULL_SCAN);
        distinct = distinct.into_iter().step_by(stride).collect();
    }
    // A Fibonacci lattice of directions.
    let golden = std::f32::consts::PI * (3.0 - 5f32.sqrt());
    let mut chosen: Vec<[f32; 3]> = (0..limit)
        .map(|i| {
            let y = 1.0 - 2.0 * (i as f32 + 0.5) / limit as f32;
            let r = (1.0 - y * y).sqrt();
            let d = [r * (golden * i as f32).cos(), y, r * (golden * i as f32).sin()];
            let dot = |p: &[f32; 3]| p[0] * d[0] + p[1] * d[1] + p[2] * d[2];
            *distinct.iter().max_by(|a, b| dot(a).total_cmp(&dot(b))).expect("more than limit points")
        })
        .collect();
    chosen.sort_by(|a, b| {
        a.iter().zip(b).map(|(x, y)| x.total_cmp(y)).find(|o| o.is_ne()).unwrap_or(std::cmp::Ordering::Equal)
    });
    chosen.dedup();
    chosen
}

/// An STL file (binary or ASCII) written as OBJ text, one face per triangle.
pub fn stl_to_obj(bytes: &[u8]) -> Result<String, MeshError> {
    let triangles = stl_triangles(bytes)?;
    let mut obj = String::with_capacity(triangles.len() * 100);
    obj.push_str("# converted from STL\n");
    for triangle in &triangles {
        for [x, y, z] in triangle {
            let _ = writeln!(obj, "v {x} {y} {z}");
        }
    }
    for i in 0..triangles.len() {
        let _ = writeln!(obj, "f {} {} {}", 3 * i + 1, 3 * i + 2, 3 * i + 3);
    }
    Ok(obj)
}

fn damaged(format: &'static str, detail: impl Into<String>) -> MeshError {
    MeshError::Damaged { format, detail: detail.into() }
}

/// The triangles of an STL file. A binary file is recognised by its size (84 bytes plus
/// 50 per triangle), since many binary files also begin with the word `solid`.
fn stl_triangles(bytes: &[u8]) -> Result<Vec<[[f32; 3]; 3]>, MeshError> {
    if bytes.len() >= 84 {
        let count = u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]);
        if bytes.len() as u64 == 84 + 50 * count as u64 {
            if count > MAX_STL_TRIANGLES {
                return Err(damaged("an STL", format!("{count} triangles, more than {MAX_STL_TRIANGLES}")));
            }
            let float = |at: usize| f32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
            let triangles = (0..count as usize)
                .map(|t| {
                    let base = 84 + 50 * t + 12; // after the normal
                    let vertex = |v: usize| [float(base + 12 * v), float(base + 12 * v + 4), float(base + 12 * v + 8)];
                    [vertex(0), vertex(1), vertex(2)]
                })
                .collect();
            return Ok(triangles);
        }
    }
    let text = std::str::from_utf8(bytes)
        .map_err(|_| damaged("an STL", "neither binary STL (its size does not match its triangle count) nor text"))?;
    if !text.trim_start().starts_with("solid") {
        return Err(damaged("an STL", "a text STL starts with 'solid'"));
    }
    let mut points = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let mut words = line.split_whitespace();
        if words.next() != Some("vertex") {
            continue;
        }
        points.push(three_numbers(words, "an STL", number)?);
    }
    if points.len() % 3 != 0 {
        return Err(damaged("an STL", "its vertices do not make whole triangles"));
    }
    if points.len() / 3 > MAX_STL_TRIANGLES as usize {
        return Err(damaged("an STL", format!("more than {MAX_STL_TRIANGLES} triangles")));
    }
    Ok(points.chunks(3).map(|c| [c[0], c[1], c[2]]).collect())
}

fn three_numbers<'a>(
    mut words: impl Iterator<Item = &'a str>,
    format: &'static str,
    line: usize,
) -> Result<[f32; 3], MeshError> {
    let mut v = [0.0; 3];
    for slot in &mut v {
        let word = words.next().ok_or_else(|| damaged(format, format!("line {}: a vertex needs x y z", line + 1)))?;
        *slot = word
            .parse::<f32>()
            .ok()
            .filter(|n| n.is_finite())
            .ok_or_else(|| damaged(format, format!("line {}: '{word}' is not a number", line + 1)))?;
    }
    Ok(v)
}

/// The `v x y z` lines of an OBJ file.
fn obj_vertices(bytes: &[u8]) -> Result<Vec<[f32; 3]>, MeshError> {
    let text = std::str::from_utf8(bytes).map_err(|_| damaged("an OBJ", "it is not text"))?;
    let mut points = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let mut words = line.split_whitespace();
        if words.next() == Some("v") {
            points.push(three_numbers(words, "an OBJ", number)?);
        }
    }
    Ok(points)
}

/// The corners of the boxes glTF declares for its `POSITION` accessors (`min`, `max`):
/// what a bounding box needs without decoding buffers. Node transforms are not applied.
fn gltf_corners(bytes: &[u8]) -> Result<Vec<[f32; 3]>, MeshError> {
    let json: &[u8] = if bytes.starts_with(b"glTF") {
        if bytes.len() < 20 {
            return Err(damaged("a GLB", "too short"));
        }
        let length = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]) as usize;
        bytes.get(20..20 + length).ok_or_else(|| damaged("a GLB", "its JSON chunk is cut short"))?
    } else {
        bytes
    };
    let doc: serde_json::Value =
        serde_json::from_slice(json).map_err(|e| damaged("a glTF", format!("its JSON does not read: {e}")))?;
    let accessors = doc["accessors"].as_array().cloned().unwrap_or_default();
    let mut points = Vec::new();
    for mesh in doc["meshes"].as_array().into_iter().flatten() {
        for primitive in mesh["primitives"].as_array().into_iter().flatten() {
            let Some(index) = primitive["attributes"]["POSITION"].as_u64() else { continue };
            let accessor = accessors.get(index as usize).ok_or_else(|| damaged("a glTF", "a missing accessor"))?;
            for corner in ["min", "max"] {
                let v: Vec<f32> = accessor[corner]
                    .as_array()
                    .ok_or_else(|| damaged("a glTF", "a POSITION accessor without min and max"))?
                    .iter()
                    .filter_map(|n| n.as_f64().map(|n| n as f32))
                    .collect();
                if v.len() != 3 {
                    return Err(damaged("a glTF", "a POSITION bound without three numbers"));
                }
                points.push([v[0], v[1], v[2]]);
            }
        }
    }
    Ok(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binary_stl(triangles: &[[[f32; 3]; 3]]) -> Vec<u8> {
        let mut bytes = vec![b' '; 80];
        bytes.extend((triangles.len() as u32).to_le_bytes());
        for t in triangles {
            bytes.extend([0u8; 12]);
            for v in t {
                for c in v {
                    bytes.extend(c.to_le_bytes());
                }
            }
            bytes.extend([0u8; 2]);
        }
        bytes
    }

    #[test]
    fn a_binary_stl_gives_its_vertices_and_bounds() {
        let bytes = binary_stl(&[[[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 3.0, -1.0]]]);
        let points = vertices("part.STL", &bytes).unwrap();
        assert_eq!(points.len(), 3);
        assert_eq!(bounds(&points), ([0.0, 0.0, -1.0], [2.0, 3.0, 0.0]));
        let obj = stl_to_obj(&bytes).unwrap();
        assert!(obj.contains("v 2 0 0\n") && obj.ends_with("f 1 2 3\n"), "{obj}");
    }

    #[test]
    fn hull_points_keep_the_extremes_within_the_limit() {
        let mut cube: Vec<[f32; 3]> = Vec::new();
        for i in 0..1000 {
            let t = i as f32 / 999.0;
            cube.push([t, t * t, 1.0 - t]); // inside the unit cube
        }
        cube.extend([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 1.0]]);
        assert_eq!(hull_points(&[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], 8), [[1.0, 2.0, 3.0]], "duplicates go");
        let kept = hull_points(&cube, 64);
        assert!(kept.len() <= 64, "{}", kept.len());
        assert_eq!(bounds(&kept), ([0.0; 3], [1.0; 3]), "the extremes stay");
    }

    #[test]
    fn a_text_stl_and_an_obj_read_alike() {
        let stl = "solid x\nfacet normal 0 0 1\nouter loop\nvertex 1 2 3\nvertex 4 5 6\nvertex 0 0 0\nendloop\nendfacet\nendsolid\n";
        assert_eq!(bounds(&vertices("a.stl", stl.as_bytes()).unwrap()), ([0.0; 3], [4.0, 5.0, 6.0]));
        let obj = "# c\nv 1 2 3\nvn 0 0 1\nv -1 0 0.5\nf 1 2 1\n";
        assert_eq!(bounds(&vertices("a.obj", obj.as_bytes()).unwrap()), ([-1.0, 0.0, 0.5], [1.0, 2.0, 3.0]));
    }

    #[test]
    fn a_gltf_gives_its_declared_bounds_and_damaged_files_are_named() {
        let gltf = r#"{"accessors":[{"min":[-1,0,0],"max":[1,2,0.5]}],"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}]}"#;
        assert_eq!(bounds(&vertices("w.gltf", gltf.as_bytes()).unwrap()), ([-1.0, 0.0, 0.0], [1.0, 2.0, 0.5]));
        assert!(matches!(vertices("w.stl", b"garbage"), Err(MeshError::Damaged { .. })));
        assert!(matches!(vertices("w.dae", b"<COLLADA/>"), Err(MeshError::UnknownFormat(_))));
        assert_eq!(vertices("e.obj", b"# nothing\n"), Err(MeshError::Empty));
    }
}
