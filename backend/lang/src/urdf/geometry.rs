//! One URDF link's `<collision>` and `<visual>` elements as parts of a body: primitives
//! as they are, collision meshes as their bounding box, visual meshes drawn (placed on
//! the collision shape of the same index, or drawn on their own), colours from
//! `<material>`, density from the link's mass.

use std::collections::HashMap;
use std::f32::consts::PI;

use super::frames::part_pose;
use crate::error::{Position, Warning};
use crate::loader::{SourceLoader, resolve_path};
use crate::meshfile;
use crate::model::{MAX_HULL_POINTS, Material, MeshRef, PartModel, Pose, Shape};

/// Density of a link whose `<inertial>` gives no mass, kg/m³.
pub(super) const DEFAULT_DENSITY: f32 = 1000.0;
/// Friction of every imported part (URDF has none; Gazebo's `<mu1>` is not read).
const FRICTION: f32 = 0.9;
/// Restitution of every imported part.
const RESTITUTION: f32 = 0.1;
/// Half the side of the box a mesh that cannot be read collides as, metres.
const UNREAD_MESH_HALF: f32 = 0.05;

/// What the link's parts are made from, and where problems are told.
pub(super) struct LinkGeometry<'a> {
    /// Where meshes come from.
    pub loader: &'a dyn SourceLoader,
    /// The URDF file (mesh paths are relative to it).
    pub file: &'a str,
    /// The `<link>` element's place.
    pub pos: Position,
    /// Top-level `<material>`s by name.
    pub materials: &'a HashMap<String, Material>,
    /// Problems that do not stop the import.
    pub warnings: &'a mut Vec<Warning>,
}

/// A geometry as a shape centred in a frame placed `centre` in the geometry's frame.
struct Solid {
    shape: Shape,
    centre: Pose,
    mesh: Option<MeshRef>,
}

impl LinkGeometry<'_> {
    /// The parts of `link`, placed in its body by `body_link_from_link` (the link's pose
    /// in the link that gives the body its frame).
    pub fn parts(&mut self, link: &urdf_rs::Link, body_link_from_link: &Pose) -> Vec<PartModel> {
        let looks: Vec<Material> = link.visual.iter().map(|v| self.material(v.material.as_ref())).collect();
        let first_look = looks.first().cloned().unwrap_or_else(grey);
        let mut parts = Vec::new();
        for (i, collision) in link.collision.iter().enumerate() {
            let solid = self.solid(&collision.geometry, true);
            let local =
                part_pose(body_link_from_link, &super::frames::origin(&collision.origin)).compose(&solid.centre);
            let material = looks.get(i).cloned().unwrap_or_else(|| first_look.clone());
            parts.push(part(solid.shape, local, material, false));
        }
        let collision_volume: f32 = parts.iter().map(|p| volume(&p.shape)).sum();
        for (i, visual) in link.visual.iter().enumerate() {
            let at = part_pose(body_link_from_link, &super::frames::origin(&visual.origin));
            let solid = self.solid(&visual.geometry, false);
            match (parts.get_mut(i), solid.mesh) {
                (Some(paired), Some(mut mesh)) => {
                    mesh.offset = paired.local.inverse().compose(&at);
                    paired.mesh = Some(mesh);
                }
                // A primitive visual: its collision shape of the same index is drawn.
                (Some(_), None) => {}
                (None, mesh) => {
                    let mut drawn = part(solid.shape, at.compose(&solid.centre), looks[i].clone(), true);
                    drawn.mesh = mesh;
                    parts.push(drawn);
                }
            }
        }
        let mass = link.inertial.mass.value as f32;
        let colliding = link.collision.len();
        let weighed = if colliding > 0 { collision_volume } else { parts.iter().map(|p| volume(&p.shape)).sum() };
        let density = if mass > 0.0 && weighed > 0.0 { mass / weighed } else { DEFAULT_DENSITY };
        for (i, p) in parts.iter_mut().enumerate() {
            // Drawn-only parts weigh something only when nothing else of the link does.
            p.density = if i < colliding || colliding == 0 { density } else { 0.0 };
        }
        parts
    }

    fn material(&mut self, material: Option<&urdf_rs::Material>) -> Material {
        let Some(material) = material else { return grey() };
        if let Some(texture) = &material.texture
            && !texture.filename.is_empty()
        {
            self.warn(format!("the texture '{}' is not drawn: its colour is used", texture.filename));
        }
        match &material.color {
            Some(color) => rgba(&material.name, color.rgba.0),
            None => self
                .materials
                .get(&material.name)
                .cloned()
                .unwrap_or_else(|| crate::model::Palette::default().lookup(&material.name).unwrap_or_else(grey)),
        }
    }

    fn warn(&mut self, message: String) {
        self.warnings.push(Warning { pos: self.pos.clone(), message });
    }

    fn solid(&mut self, geometry: &urdf_rs::Geometry, collides: bool) -> Solid {
        let plain = |shape| Solid { shape, centre: Pose::IDENTITY, mesh: None };
        match geometry {
            urdf_rs::Geometry::Box { size } => {
                plain(Shape::Box { half_extents: size.0.map(|s| (s / 2.0).abs().max(1e-4) as f32) })
            }
            urdf_rs::Geometry::Cylinder { radius, length } => {
                plain(Shape::Cylinder { radius: positive(*radius), half_length: positive(*length / 2.0) })
            }
            urdf_rs::Geometry::Capsule { radius, length } => {
                plain(Shape::Capsule { radius: positive(*radius), half_length: positive(*length / 2.0) })
            }
            urdf_rs::Geometry::Sphere { radius } => plain(Shape::Sphere { radius: positive(*radius) }),
            urdf_rs::Geometry::Mesh { filename, scale } => self.mesh(filename, scale.map(|s| s.0), collides),
        }
    }

    fn mesh(&mut self, filename: &str, scale: Option<[f64; 3]>, collides: bool) -> Solid {
        let scale = scale.unwrap_or([1.0; 3]).map(|s| s as f32);
        let uniform = (scale[0] + scale[1] + scale[2]) / 3.0;
        if !collides && scale.iter().any(|s| (s - uniform).abs() > 1e-6 * uniform.abs().max(1.0)) {
            self.warn(format!("the mesh '{filename}' is scaled unevenly: it is drawn at its mean scale {uniform}"));
        }
        let found = mesh_path(filename, self.file, self.loader);
        let points = match &found {
            Some(path) => match self.loader.asset_bytes(path).map(|bytes| meshfile::vertices(path, &bytes)) {
                Some(Ok(points)) => Some(points),
                Some(Err(e)) => {
                    self.warn(format!("the mesh '{filename}' cannot be read ({e}): it is taken as a box"));
                    None
                }
                None => None,
            },
            None => {
                self.warn(format!("the mesh '{filename}' is not in the upload: it is taken as a box"));
                None
            }
        };
        let scaled: Option<Vec<[f32; 3]>> =
            points.map(|points| points.iter().map(|p| [p[0] * scale[0], p[1] * scale[1], p[2] * scale[2]]).collect());
        let (min, max) = match &scaled {
            Some(scaled) => meshfile::bounds(scaled),
            None => ([-UNREAD_MESH_HALF; 3], [UNREAD_MESH_HALF; 3]),
        };
        let mesh = (!collides).then(|| MeshRef {
            file: filename.to_owned(),
            resolved: found.filter(|p| self.loader.asset_exists(p) != Some(false)),
            scale: uniform,
            offset: Pose::IDENTITY,
        });
        if collides
            && let Some(hull) = scaled.map(|s| meshfile::hull_points(&s, MAX_HULL_POINTS)).filter(|h| h.len() >= 4)
        {
            // Its convex hull (the simulation builds it from these points).
            Solid { shape: Shape::ConvexHull { points: hull }, centre: Pose::IDENTITY, mesh }
        } else if collides {
            // The bounding box, centred where the mesh is.
            let centre = [0, 1, 2].map(|i| (min[i] + max[i]) / 2.0);
            let half = [0, 1, 2].map(|i| ((max[i] - min[i]) / 2.0).max(1e-4));
            Solid { shape: Shape::Box { half_extents: half }, centre: Pose::at(centre), mesh }
        } else {
            // Drawn on the visual's own frame: a box about that frame holding the mesh.
            let half = [0, 1, 2].map(|i| min[i].abs().max(max[i].abs()).max(1e-4));
            Solid { shape: Shape::Box { half_extents: half }, centre: Pose::IDENTITY, mesh }
        }
    }
}

/// Where a URDF mesh file name points in the upload: `package://pkg/path` is looked for
/// as `pkg/path`, then `path`, then the bare file name; a relative name beside the URDF
/// file, then as written, then bare. The first the loader has wins.
pub(super) fn mesh_path(filename: &str, urdf_file: &str, loader: &dyn SourceLoader) -> Option<String> {
    let mut candidates = Vec::new();
    let bare = filename.rsplit('/').next().unwrap_or(filename).to_owned();
    if let Some(rest) = filename.strip_prefix("package://") {
        candidates.push(rest.to_owned());
        if let Some((_, inside)) = rest.split_once('/') {
            candidates.push(inside.to_owned());
        }
    } else if filename.starts_with("file://") || filename.contains("://") {
        // An absolute path on someone's machine: only its name can be found here.
    } else if let Ok(beside) = resolve_path(urdf_file, filename) {
        candidates.push(beside);
        candidates.push(filename.to_owned());
    }
    candidates.push(bare);
    candidates
        .into_iter()
        .filter(|c| resolve_path("", c).is_ok_and(|r| &r == c))
        .find(|c| loader.asset_bytes(c).is_some() || loader.asset_exists(c) == Some(true))
}

fn positive(v: f64) -> f32 {
    (v.abs() as f32).max(1e-4)
}

fn grey() -> Material {
    crate::model::Palette::default().get("Grey")
}

/// A URDF colour (linear 0..1 RGBA) as a material.
pub(super) fn rgba(name: &str, c: [f64; 4]) -> Material {
    let byte = |v: f64| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    Material {
        name: if name.is_empty() { "urdf".into() } else { name.to_owned() },
        color: [byte(c[0]), byte(c[1]), byte(c[2]), byte(c[3])],
        roughness: 0.6,
        metallic: 0.0,
        texture: None,
        transparent: c[3] < 0.999,
    }
}

fn part(shape: Shape, local: Pose, material: Material, drawn_only: bool) -> PartModel {
    PartModel {
        shape,
        local,
        material,
        density: DEFAULT_DENSITY,
        friction: FRICTION,
        restitution: RESTITUTION,
        name: None,
        mesh: None,
        drawn_only,
    }
}

/// Cubic metres.
pub(super) fn volume(shape: &Shape) -> f32 {
    match *shape {
        Shape::Box { half_extents: [x, y, z] } => 8.0 * x * y * z,
        Shape::Sphere { radius } => 4.0 / 3.0 * PI * radius.powi(3),
        Shape::Cylinder { radius, half_length } => PI * radius * radius * 2.0 * half_length,
        Shape::Capsule { radius, half_length } => {
            PI * radius * radius * 2.0 * half_length + 4.0 / 3.0 * PI * radius.powi(3)
        }
        // Its bounding box: a hull fills most of it, and the mass is the link's anyway.
        Shape::ConvexHull { ref points } => {
            let (min, max) = meshfile::bounds(points);
            (0..3).map(|i| (max[i] - min[i]).max(1e-4)).product()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loader::MapLoader;

    #[test]
    fn package_paths_are_found_in_the_bundle_by_their_package_path_or_name() {
        let loader = MapLoader::new().with_asset_bytes("meshes/base.stl", b"x").with_asset_bytes("wheel.stl", b"x");
        assert_eq!(
            mesh_path("package://bot_description/meshes/base.stl", "bot.urdf", &loader).unwrap(),
            "meshes/base.stl"
        );
        assert_eq!(mesh_path("package://bot/meshes/wheel.stl", "urdf/bot.urdf", &loader).unwrap(), "wheel.stl");
        assert_eq!(mesh_path("../meshes/base.stl", "urdf/bot.urdf", &loader).unwrap(), "meshes/base.stl");
        assert_eq!(mesh_path("file:///home/me/wheel.stl", "bot.urdf", &loader).unwrap(), "wheel.stl");
        assert_eq!(mesh_path("package://bot/meshes/gone.stl", "bot.urdf", &loader), None);
    }

    #[test]
    fn colours_are_bytes_and_see_through_below_full_alpha() {
        let m = rgba("blue", [0.0, 0.0, 0.8, 1.0]);
        assert_eq!(m.color, [0, 0, 204, 255]);
        assert!(!m.transparent);
        assert!(rgba("", [1.0, 1.0, 1.0, 0.5]).transparent);
    }
}
