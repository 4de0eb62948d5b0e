//! A mesh file's triangles as the server hands them to the page
//! (`GET /api/triangles?mesh=...`): the server reads the OBJ or glTF file once and
//! sends plain arrays, so the page carries no file readers and does no parsing.
//!
//! *Why:* the glTF and OBJ readers were 15 % of the page's wasm (glTF's JSON schema
//! alone is dozens of structs). The server reads them natively, once per file, for
//! every page that draws it.
//!
//! Layout (little-endian):
//! ```text
//! "VT" (2 bytes) | format u8 | mesh count u32
//! per mesh: parts u8 (1 normals, 2 indices, 4 uvs, 8 colours) | vertices u32 | indices u32
//!           | transform 16 × f32 (column-major) | positions 3 × f32 per vertex
//!           | normals 3 × f32 per vertex | uvs 2 × f32 per vertex | colours 4 × u8 per vertex
//!           | indices u32 each           (each array only when its part bit is set)
//! ```

const MAGIC: [u8; 2] = *b"VT";
const FORMAT: u8 = 1;

/// The layout version [`encode_triangles`] writes and [`decode_triangles`] reads. The
/// page names it when it asks for triangles, so that a response kept by a browser is
/// never read by a build that reads another.
pub const TRIANGLES_FORMAT: u8 = FORMAT;
const NORMALS: u8 = 1;
const INDICES: u8 = 2;
const UVS: u8 = 4;
const COLORS: u8 = 8;

/// A column-major 4×4 matrix, as glTF writes them.
pub type Matrix = [[f32; 4]; 4];

/// The identity transformation.
pub const IDENTITY: Matrix = [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]];

/// One triangle mesh of a file (a glTF primitive, an OBJ object), in its own frame.
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

/// Why bytes could not be read as a file's triangles.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TrianglesError {
    /// Not triangles (an error page, the mesh file itself...).
    #[error("not a triangle list (bad magic)")]
    BadMagic,
    /// A format this build does not read.
    #[error("triangle list format {0} is not supported (this build reads format {FORMAT})")]
    UnsupportedFormat(u8),
    /// The bytes end before what they announce, or go on after it.
    #[error("triangle list of {len} bytes is truncated or longer than its counts say")]
    Truncated {
        /// Total length received.
        len: usize,
    },
    /// A part's normals, uvs or colours do not match its vertices.
    #[error("mesh {mesh}: its {part} do not have one entry per vertex")]
    Mismatched {
        /// The mesh's index in the file.
        mesh: usize,
        /// Which array: `normals`, `uvs` or `colours`.
        part: &'static str,
    },
}

/// The meshes as bytes in the layout above.
///
/// # Errors
/// [`TrianglesError::Mismatched`] when a mesh's normals, uvs or colours are not one
/// per vertex (the reader would refuse them), or when a count exceeds `u32`.
pub fn encode_triangles(meshes: &[TriangleMesh]) -> Result<Vec<u8>, TrianglesError> {
    let floats: usize = meshes.iter().map(|m| m.positions.len() * 12 + m.indices.as_ref().map_or(0, Vec::len)).sum();
    let mut out = Vec::with_capacity(7 + meshes.len() * 73 + floats * 4);
    out.extend_from_slice(&MAGIC);
    out.push(FORMAT);
    out.extend_from_slice(&count(meshes.len(), 0, "meshes")?.to_le_bytes());
    for (index, mesh) in meshes.iter().enumerate() {
        let vertices = mesh.positions.len();
        let same = |len: Option<usize>, part: &'static str| match len {
            Some(len) if len != vertices => Err(TrianglesError::Mismatched { mesh: index, part }),
            _ => Ok(()),
        };
        same(mesh.normals.as_ref().map(Vec::len), "normals")?;
        same(mesh.uvs.as_ref().map(Vec::len), "uvs")?;
        same(mesh.colors.as_ref().map(Vec::len), "colours")?;
        let parts = [(mesh.normals.is_some(), NORMALS), (mesh.indices.is_some(), INDICES)]
            .into_iter()
            .chain([(mesh.uvs.is_some(), UVS), (mesh.colors.is_some(), COLORS)])
            .fold(0, |bits, (present, bit)| if present { bits | bit } else { bits });
        out.push(parts);
        out.extend_from_slice(&count(vertices, index, "vertices")?.to_le_bytes());
        out.extend_from_slice(&count(mesh.indices.as_ref().map_or(0, Vec::len), index, "indices")?.to_le_bytes());
        out.extend(mesh.transform.iter().flatten().flat_map(|x| x.to_le_bytes()));
        out.extend(mesh.positions.iter().flatten().flat_map(|x| x.to_le_bytes()));
        if let Some(normals) = &mesh.normals {
            out.extend(normals.iter().flatten().flat_map(|x| x.to_le_bytes()));
        }
        if let Some(uvs) = &mesh.uvs {
            out.extend(uvs.iter().flatten().flat_map(|x| x.to_le_bytes()));
        }
        if let Some(colors) = &mesh.colors {
            out.extend(colors.iter().flatten());
        }
        if let Some(indices) = &mesh.indices {
            out.extend(indices.iter().flat_map(|i| i.to_le_bytes()));
        }
    }
    Ok(out)
}

/// `len` as the layout's `u32`.
fn count(len: usize, mesh: usize, part: &'static str) -> Result<u32, TrianglesError> {
    u32::try_from(len).map_err(|_| TrianglesError::Mismatched { mesh, part })
}

/// How many meshes `bytes` (as [`encode_triangles`] wrote them) holds, from its header
/// alone: each is one draw call for a page.
///
/// # Errors
/// [`TrianglesError`] when the header is not one this build reads.
pub fn count_meshes(bytes: &[u8]) -> Result<usize, TrianglesError> {
    read_header(&mut Reader { bytes, at: 0 }).map(|count| count as usize)
}

/// The magic bytes and format checked, the mesh count.
fn read_header(reader: &mut Reader) -> Result<u32, TrianglesError> {
    if !reader.bytes.starts_with(&MAGIC) {
        return Err(TrianglesError::BadMagic);
    }
    reader.at = 2;
    let format = reader.take(1)?[0];
    if format != FORMAT {
        return Err(TrianglesError::UnsupportedFormat(format));
    }
    reader.u32()
}

/// The meshes written by [`encode_triangles`].
///
/// # Errors
/// See [`TrianglesError`]; counts are checked against the bytes before anything is
/// allocated, so a lying header costs nothing.
pub fn decode_triangles(bytes: &[u8]) -> Result<Vec<TriangleMesh>, TrianglesError> {
    let mut reader = Reader { bytes, at: 0 };
    let mesh_count = read_header(&mut reader)?;
    let mut meshes = Vec::new();
    for _ in 0..mesh_count {
        let parts = reader.take(1)?[0];
        let vertices = reader.u32()? as usize;
        let index_count = reader.u32()? as usize;
        let transform_floats = reader.f32s(16)?;
        let mut transform = IDENTITY;
        for (cell, value) in transform.iter_mut().flatten().zip(transform_floats) {
            *cell = value;
        }
        let positions = triples(reader.f32s(vertices.checked_mul(3).ok_or(reader.truncated())?)?);
        let normals = if parts & NORMALS != 0 { Some(triples(reader.f32s(vertices * 3)?)) } else { None };
        let uvs = if parts & UVS != 0 {
            Some(reader.f32s(vertices * 2)?.chunks_exact(2).map(|uv| [uv[0], uv[1]]).collect())
        } else {
            None
        };
        let colors = if parts & COLORS != 0 {
            let bytes = reader.take(vertices.checked_mul(4).ok_or(reader.truncated())?)?;
            Some(bytes.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]).collect())
        } else {
            None
        };
        let indices = if parts & INDICES != 0 {
            let bytes = reader.take(index_count.checked_mul(4).ok_or(reader.truncated())?)?;
            Some(bytes.chunks_exact(4).map(|i| u32::from_le_bytes([i[0], i[1], i[2], i[3]])).collect())
        } else {
            None
        };
        meshes.push(TriangleMesh { positions, normals, indices, uvs, colors, transform });
    }
    if reader.at != bytes.len() {
        return Err(reader.truncated());
    }
    Ok(meshes)
}

/// Consecutive floats taken three at a time.
fn triples(floats: Vec<f32>) -> Vec<[f32; 3]> {
    floats.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect()
}

/// A cursor over the bytes being decoded.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn truncated(&self) -> TrianglesError {
        TrianglesError::Truncated { len: self.bytes.len() }
    }

    /// The next `len` bytes, if there are that many.
    fn take(&mut self, len: usize) -> Result<&'a [u8], TrianglesError> {
        let end = self.at.checked_add(len).filter(|end| *end <= self.bytes.len()).ok_or(self.truncated())?;
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    fn u32(&mut self) -> Result<u32, TrianglesError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn f32s(&mut self, len: usize) -> Result<Vec<f32>, TrianglesError> {
        let bytes = self.take(len.checked_mul(4).ok_or(self.truncated())?)?;
        Ok(bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quad() -> TriangleMesh {
        TriangleMesh {
            positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
            normals: Some(vec![[0.0, 0.0, 1.0]; 4]),
            indices: Some(vec![0, 1, 2, 0, 2, 3]),
            uvs: Some(vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]),
            colors: Some(vec![[255, 0, 0, 255]; 4]),
            transform: [[2.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0], [1.0, 0.5, 0.0, 1.0]],
        }
    }

    #[test]
    fn meshes_with_and_without_their_optional_parts_round_trip() {
        let bare = TriangleMesh {
            positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            normals: None,
            indices: None,
            uvs: None,
            colors: None,
            transform: IDENTITY,
        };
        let meshes = vec![quad(), bare];
        let bytes = encode_triangles(&meshes).unwrap();
        // Header 7; quad 9 + 64 + 4 × (12 + 12 + 8 + 4) + 6 × 4; bare 9 + 64 + 3 × 12.
        assert_eq!(bytes.len(), 7 + (73 + 144 + 24) + (73 + 36));
        assert_eq!(decode_triangles(&bytes), Ok(meshes));
        assert_eq!(count_meshes(&bytes), Ok(2), "from the header alone");
        assert_eq!(count_meshes(&bytes[..7]), Ok(2));
        assert_eq!(count_meshes(&bytes[..6]), Err(TrianglesError::Truncated { len: 6 }));
        assert_eq!(count_meshes(b"XY\x01\0\0\0\0"), Err(TrianglesError::BadMagic));
        assert_eq!(decode_triangles(&encode_triangles(&[]).unwrap()), Ok(vec![]));
    }

    #[test]
    fn bytes_that_are_not_a_whole_triangle_list_are_refused() {
        let bytes = encode_triangles(&[quad()]).unwrap();
        assert_eq!(decode_triangles(b"# OBJ\nv 0 0 0"), Err(TrianglesError::BadMagic));
        assert_eq!(decode_triangles(b"VT\x07"), Err(TrianglesError::UnsupportedFormat(7)));
        let len = bytes.len();
        assert_eq!(decode_triangles(&bytes[..len - 1]), Err(TrianglesError::Truncated { len: len - 1 }));
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode_triangles(&longer), Err(TrianglesError::Truncated { len: len + 1 }));
        // A header announcing four billion vertices is refused without allocating them.
        let mut lying = bytes[..7].to_vec();
        lying.extend_from_slice(&[0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
        assert_eq!(decode_triangles(&lying), Err(TrianglesError::Truncated { len: 16 }));
    }

    #[test]
    fn normals_uvs_or_colours_that_do_not_match_the_vertices_are_not_written() {
        let mut mesh = quad();
        mesh.uvs = Some(vec![[0.0, 0.0]]);
        assert_eq!(encode_triangles(&[mesh]), Err(TrianglesError::Mismatched { mesh: 0, part: "uvs" }));
    }
}
