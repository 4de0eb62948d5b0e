//! Conversions from the lab's application types to the wire types of `vlab-protocol`.

use std::collections::BTreeMap;

use vlab_protocol as wire;

use vlab_sim::scene::{self, JointKind, SceneModel};
use vlab_sim::sim::World;

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
            owner: body.owner,
        })
        .collect();
    let mut links = links(model, world);
    // The page refuses a table it cannot use, and then every frame after it: a table
    // that fails the check (a joint frame that is not a rotation) is dropped whole, and
    // its bodies go as plain poses.
    if wire::LinkTable::new(links.clone()).is_err() {
        links.clear();
    }
    wire::SceneSnapshot { epoch, sky: model.sky, bodies, links, zones: zones(model) }
}

/// The room of `model` as pages read it (`None`: its scene declares no environment).
pub fn room(model: &SceneModel) -> Option<wire::RoomView> {
    let environment = model.environment.as_ref()?;
    let kind = match environment.kind {
        scene::EnvironmentKind::Room => "room",
        scene::EnvironmentKind::WallRect => "wallrect",
    };
    Some(wire::RoomView {
        kind: kind.to_owned(),
        width: environment.width,
        length: environment.length,
        height: environment.height,
        gravity: model.gravity_y,
        sky: environment.sky.name.clone(),
        ground: environment.ground.name.clone(),
        walls: environment.walls.name.clone(),
        ceiling: environment.ceiling.name.clone(),
    })
}

/// Every object of `model` (a body of no robot) by name, with who added it (`None`: the
/// lab's own).
pub fn objects(model: &SceneModel) -> BTreeMap<String, Option<wire::UserId>> {
    model.bodies.iter().filter(|b| b.robot.is_none()).map(|b| (b.name.clone(), b.owner)).collect()
}

/// The zones of `model`'s challenge, as pages draw them (none without a challenge).
pub fn zones(model: &SceneModel) -> Vec<wire::ZoneView> {
    let Some(challenge) = &model.challenge else { return Vec::new() };
    challenge
        .zones
        .iter()
        .map(|zone| wire::ZoneView {
            name: zone.name.clone(),
            shape: match zone.shape {
                scene::ZoneShape::Box { half_extents } => wire::ZoneShapeView::Box { half_extents },
                scene::ZoneShape::Cylinder { radius, half_height } => {
                    wire::ZoneShapeView::Cylinder { radius, half_height }
                }
            },
            pose: pose(&zone.pose),
            color: [zone.material.color[0], zone.material.color[1], zone.material.color[2]],
        })
        .collect()
}

/// The link table of a snapshot made by [`snapshot`], for the hub's encoder.
pub fn link_table(snapshot: &wire::SceneSnapshot) -> wire::LinkTable {
    // `snapshot` drops a table that fails the check, so this one passes it.
    wire::LinkTable::new(snapshot.links.clone()).unwrap_or_default()
}

/// The bodies a hinge or a slider hangs from another moving body, parents first: frames
/// send their joint coordinate instead of their pose.
///
/// A joint's child is the body it alone holds and that is no robot's main body (a wheel,
/// whichever of the two bodies the scene named first), else its second body (a URDF
/// joint's child link). A child must be the child of no other such joint and have no
/// other joint but those hanging its own children (an arm's links): a body held by a
/// loop of joints, or by a joint of another kind, keeps its pose in frames. Fixed bodies
/// are never in frames, so neither end may be fixed.
fn links(model: &SceneModel, world: &World) -> Vec<wire::JointLink> {
    let mut joint_count = vec![0usize; model.bodies.len()];
    for joint in &model.joints {
        joint_count[joint.body1] += 1;
        joint_count[joint.body2] += 1;
    }
    let main_bodies: Vec<usize> = model.robots.iter().map(|robot| robot.main_body).collect();
    let leaf = |body: usize| joint_count[body] == 1 && !main_bodies.contains(&body);
    // (joint, child, parent, kind), one per child.
    let mut candidates: BTreeMap<usize, (usize, usize, wire::JointLinkKind)> = BTreeMap::new();
    let mut twice = Vec::new();
    for (index, joint) in model.joints.iter().enumerate() {
        let kind = match joint.kind {
            JointKind::Hinge { .. } => wire::JointLinkKind::Hinge,
            JointKind::Slider { .. } => wire::JointLinkKind::Slider,
            _ => continue,
        };
        if world.is_fixed(joint.body1) || world.is_fixed(joint.body2) {
            continue;
        }
        let (child, parent) = if leaf(joint.body1) && !leaf(joint.body2) {
            (joint.body1, joint.body2)
        } else {
            (joint.body2, joint.body1)
        };
        if candidates.insert(child, (index, parent, kind)).is_some() {
            twice.push(child);
        }
    }
    for child in twice {
        candidates.remove(&child);
    }
    // Every joint of a child must be its own link or one of its children's; dropping a
    // link may leave its parent with a joint that is neither, so until nothing changes.
    loop {
        let mut children_of = vec![0usize; model.bodies.len()];
        for &(_, parent, _) in candidates.values() {
            children_of[parent] += 1;
        }
        let before = candidates.len();
        candidates.retain(|&child, _| joint_count[child] == 1 + children_of[child]);
        if candidates.len() == before {
            break;
        }
    }
    // Parents first: from each root (a parent that is no child) down its tree. A loop
    // of links has no root and is left out.
    let mut ordered = Vec::with_capacity(candidates.len());
    let mut stack: Vec<usize> =
        candidates.values().map(|&(_, parent, _)| parent).filter(|parent| !candidates.contains_key(parent)).collect();
    stack.sort_unstable();
    stack.dedup();
    while let Some(parent) = stack.pop() {
        for (&child, &(joint, p, kind)) in candidates.iter().filter(|(_, (_, p, _))| *p == parent) {
            let Some((frame1, frame2)) = world.joint_frames(joint) else { continue };
            let body2_is_child = model.joints[joint].body2 == child;
            let (parent_frame, child_frame) = if body2_is_child { (frame1, frame2) } else { (frame2, frame1) };
            ordered.push(wire::JointLink {
                child: wire::BodyId(child as u32),
                parent: wire::BodyId(p as u32),
                kind,
                parent_frame: pose(&parent_frame),
                child_frame: pose(&child_frame),
                // Both joints turn about, or slide along, their frame's X (`sim::joints`).
                axis: [1.0, 0.0, 0.0],
            });
            stack.push(child);
        }
    }
    ordered
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

/// A model pose as the wire carries it.
pub fn pose(pose: &scene::Pose) -> wire::Pose {
    wire::Pose { position: pose.position, rotation: pose.rotation }
}

/// A snapshot serialised once as the JSON of [`wire::ServerMsg::Snapshot`], shared by
/// every viewer.
pub fn snapshot_json(snapshot: &wire::SceneSnapshot) -> std::sync::Arc<str> {
    serde_json::to_string(&wire::ServerMsg::Snapshot(snapshot.clone())).expect("snapshots serialise").into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use vlab_sim::scene::demo_scene;

    fn scene_file(name: &str) -> SceneModel {
        let scenes = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
        let loader = vlab_scene::DirLoader { scenes: scenes.clone(), assets: None };
        let source = std::fs::read_to_string(scenes.join(format!("{name}.vlab"))).unwrap();
        vlab_scene::interpret(&source, &format!("{name}.vlab"), &loader, &vlab_scene::Options::default())
            .unwrap_or_else(|e| panic!("{name}: {}", e[0]))
            .model
    }

    fn body_pose(world: &World, id: wire::BodyId) -> wire::BodyPose {
        let pose = world.pose(id.0 as usize);
        wire::BodyPose { id, position: pose.position, rotation: pose.rotation }
    }

    /// The largest distance (m) and angle (rad) between a linked body and its place on
    /// its joint, from its parent's pose and its coordinate.
    fn off_joints(world: &World, table: &wire::LinkTable) -> (f32, f32) {
        let (mut distance, mut angle) = (0f32, 0f32);
        for link in table.links() {
            let (parent, child) = (body_pose(world, link.parent), body_pose(world, link.child));
            let placed = link.child_pose(&parent, link.coordinate(&parent, &child));
            let d = (0..3).map(|k| (placed.position[k] - child.position[k]).powi(2)).sum::<f32>().sqrt();
            // From the chord between the quaternions (q and -q are one rotation), exact
            // for tiny angles where `acos` of their dot product is not.
            let chord = |sign: f64| {
                (0..4)
                    .map(|k| (f64::from(placed.rotation[k]) - sign * f64::from(child.rotation[k])).powi(2))
                    .sum::<f64>()
            };
            let turned = (4.0 * (chord(1.0).min(chord(-1.0)).sqrt() / 2.0).min(1.0).asin()) as f32;
            distance = distance.max(d);
            angle = angle.max(turned);
        }
        (distance, angle)
    }

    #[test]
    fn linked_bodies_sit_on_their_joints_in_the_example_scenes() {
        let mut scenes: Vec<(&str, SceneModel)> = ["arm", "cart", "joints", "skidsteer", "tankbot", "urdf_diffbot"]
            .into_iter()
            .map(|name| (name, scene_file(name)))
            .collect();
        scenes.push(("demo", demo_scene(1)));
        let mut linked = 0;
        for (name, model) in scenes {
            let mut world = World::build(&model).unwrap();
            let table = link_table(&snapshot(&model, &world, 0));
            linked += table.links().len();
            // As built, every joint is exactly where its frames say.
            let (distance, angle) = off_joints(&world, &table);
            assert!(distance < 1e-5 && angle < 1e-3f32.to_radians(), "{name}: {distance} m, {angle} rad as built");
            for _ in 0..480 {
                world.step();
            }
            // Two seconds on, the joints give what a physics joint gives under load.
            let (distance, angle) = off_joints(&world, &table);
            assert!(distance < 1e-3 && angle < 1f32.to_radians(), "{name}: {distance} m, {angle} rad after 2 s");
        }
        assert!(linked >= 10, "{linked} linked bodies in the example scenes");
    }

    #[test]
    fn wheels_hang_from_their_robot_and_no_body_from_a_fixed_one() {
        let model = demo_scene(1);
        let world = World::build(&model).unwrap();
        let links = snapshot(&model, &world, 0).links;
        let mains: Vec<u32> = model.robots.iter().map(|r| r.main_body as u32).collect();
        assert_eq!(links.len(), 2 * model.robots.len(), "two wheels a robot");
        for link in &links {
            assert!(mains.contains(&link.parent.0), "{link:?}");
            assert_eq!(link.kind, wire::JointLinkKind::Hinge);
            assert!(model.bodies[link.child.0 as usize].name.contains("wheel"), "{link:?}");
        }
        // The arm's upper arm turns on a fixed base: only its forearm hangs from it.
        let model = scene_file("arm");
        let world = World::build(&model).unwrap();
        let links = snapshot(&model, &world, 0).links;
        let names: Vec<(&str, &str)> = links
            .iter()
            .map(|l| (model.bodies[l.child.0 as usize].name.as_str(), model.bodies[l.parent.0 as usize].name.as_str()))
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        assert!(names[0].0.contains("forearm") && names[0].1.contains("upper_arm"), "{names:?}");
    }
}
