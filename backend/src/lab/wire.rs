//! Conversions from the lab's application types to the wire types of `vlab-protocol`.

use vlab_protocol as wire;

use crate::scene::{self, SceneModel};
use crate::sim::World;

/// The snapshot of `model` as built into `world`, for scene epoch `epoch`.
pub fn snapshot(model: &SceneModel, world: &World, epoch: u32) -> wire::SceneSnapshot {
    let bodies = model
        .bodies
        .iter()
        .enumerate()
        .map(|(i, body)| wire::BodyView {
            id: wire::BodyId(i as u32),
            name: body.name.clone(),
            parts: body
                .parts
                .iter()
                .map(|part| wire::PartView {
                    shape: shape(&part.shape),
                    local: pose(&part.local),
                    material: material(&part.material),
                    mesh: part.mesh.as_ref().and_then(mesh),
                })
                .collect(),
            pose: pose(&world.pose(i)),
            fixed: world.is_fixed(i),
            robot: body.robot.clone(),
        })
        .collect();
    wire::SceneSnapshot { epoch, sky: model.sky, bodies }
}

/// Where the browser fetches the asset `path` (library-relative, as the scene
/// language resolved it): the server serves `assets/` at this prefix.
pub const ASSETS_URL_PREFIX: &str = "/assets/";

/// The URL of an asset: library files live under [`ASSETS_URL_PREFIX`]; a path that is
/// already absolute (an asset uploaded with a scene, served by its lab) is kept.
fn asset_url(path: &str) -> String {
    if path.starts_with('/') { path.to_owned() } else { format!("{ASSETS_URL_PREFIX}{path}") }
}

fn material(material: &scene::Material) -> wire::Material {
    wire::Material {
        name: material.name.clone(),
        color: material.color,
        roughness: material.roughness,
        metallic: material.metallic,
        texture: material.texture.as_deref().map(asset_url),
        transparent: material.transparent,
    }
}

/// A mesh the loader found; an unresolved one is drawn as its collision shape.
fn mesh(mesh: &scene::MeshRef) -> Option<wire::MeshView> {
    let file = mesh.resolved.as_deref()?;
    let offset = (mesh.offset != scene::Pose::IDENTITY).then(|| pose(&mesh.offset));
    Some(wire::MeshView { url: asset_url(file), scale: mesh.scale, offset })
}

fn shape(shape: &scene::Shape) -> wire::Shape {
    match *shape {
        scene::Shape::Box { half_extents } => wire::Shape::Box { half_extents },
        scene::Shape::Sphere { radius } => wire::Shape::Sphere { radius },
        scene::Shape::Cylinder { radius, half_length } => wire::Shape::Cylinder { radius, half_length },
        scene::Shape::Capsule { radius, half_length } => wire::Shape::Capsule { radius, half_length },
        // Drawn (when its mesh is not) and picked as the box about its frame holding it.
        scene::Shape::ConvexHull { ref points } => {
            let mut half_extents = [1e-4f32; 3];
            for p in points {
                for (h, c) in half_extents.iter_mut().zip(p) {
                    *h = h.max(c.abs());
                }
            }
            wire::Shape::Box { half_extents }
        }
    }
}

fn pose(pose: &scene::Pose) -> wire::Pose {
    wire::Pose { position: pose.position, rotation: pose.rotation }
}

/// A snapshot serialised once as the JSON of [`wire::ServerMsg::Snapshot`], shared by
/// every viewer.
pub fn snapshot_json(snapshot: &wire::SceneSnapshot) -> std::sync::Arc<str> {
    serde_json::to_string(&wire::ServerMsg::Snapshot(snapshot.clone())).expect("snapshots serialise").into()
}
