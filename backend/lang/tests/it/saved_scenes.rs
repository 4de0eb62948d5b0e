//! A world written as a scene (`write_scene`) reads back as the same world: every scene
//! of the library a lab can be made of, its bodies moved as if it had run (the whole
//! world turned and shifted, so joints must follow their bodies), written, read again
//! and compared element by element.

use std::path::PathBuf;

use vlab_scene::{
    DeviceModel, DirLoader, JointKind, Mount, Options, ParamValue, Pose, SaveNote, SceneModel, Shape, WriteError,
    interpret, write_scene,
};

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn library() -> DirLoader {
    DirLoader { scenes: repository().join("scenes"), assets: Some(repository().join("assets")) }
}

/// The library's scenes a lab can be made of: those that declare an environment, at the
/// top of `scenes/` and in `scenes/challenges/` (what `GET /api/scenes` lists).
fn lab_scenes() -> Vec<String> {
    let mut files = Vec::new();
    for folder in ["", "challenges/"] {
        for entry in std::fs::read_dir(repository().join("scenes").join(folder)).unwrap().flatten() {
            let name = format!("{folder}{}", entry.file_name().to_string_lossy());
            let Ok(text) = std::fs::read_to_string(entry.path()) else { continue };
            let declares = |line: &str| line.starts_with("environment ") || line.starts_with("env ");
            if name.ends_with(".vlab") && text.lines().map(str::trim_start).any(declares) {
                files.push(name);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 10, "the library's lab scenes: {files:?}");
    files
}

fn model_of(file: &str) -> SceneModel {
    let text = std::fs::read_to_string(repository().join("scenes").join(file)).unwrap();
    interpret(&text, file, &library(), &Options::default()).unwrap_or_else(|e| panic!("{file}: {}", e[0])).model
}

const NOTE: SaveNote<'static> =
    SaveNote { lab: "test-lab", step: 480, sim_secs: 2.0, saved_at: "2026-12-02 10:00 UTC" };

/// Where the world has "moved": turned 0.7 rad about a slanted axis and shifted.
fn moved() -> Pose {
    Pose::at_turned([0.4, 0.02, -0.3], [0.2, 0.9, 0.1f32].map(|c| c / 0.927_361_85), 0.7)
}

fn is_environment(model: &SceneModel, name: &str) -> bool {
    model.environment.is_some()
        && ["floor", "wall_south", "wall_north", "wall_west", "wall_east", "ceiling"].contains(&name)
}

#[test]
fn every_library_lab_written_as_a_scene_reads_back_as_the_same_world() {
    let mut differences = Vec::new();
    for file in lab_scenes() {
        let model = model_of(&file);
        let delta = moved();
        let poses: Vec<Pose> = model
            .bodies
            .iter()
            .map(|b| if is_environment(&model, &b.name) { b.pose } else { delta.compose(&b.pose) })
            .collect();
        let text = match write_scene(&model, &poses, &NOTE) {
            Ok(text) => text,
            Err(error) => {
                differences.push(format!("{file}: not written: {error}"));
                continue;
            }
        };
        let again = match interpret(&text, "saved.vlab", &library(), &Options::default()) {
            Ok(result) => result.model,
            Err(errors) => {
                differences.push(format!("{file}: the saved scene does not read: {}\n{text}", errors[0]));
                continue;
            }
        };
        compare(&file, &model, &poses, &delta, &again, &mut differences);
    }
    assert!(differences.is_empty(), "{} differences:\n{}", differences.len(), differences.join("\n"));
}

#[test]
fn a_saved_scene_says_where_it_comes_from_and_writes_each_body_once() {
    let model = model_of("diffbot.vlab");
    let poses: Vec<Pose> = model.bodies.iter().map(|b| b.pose).collect();
    let text = write_scene(&model, &poses, &NOTE).unwrap();
    assert!(
        text.starts_with("// Saved from lab 'test-lab' at step 480 (2 s of simulation), 2026-12-02 10:00 UTC.\n"),
        "{text}"
    );
    assert!(text.contains("environment room {\n  width 5; length 5; height 1.5;\n"), "{text}");
    assert!(
        text.contains("robot diffbot {\n  body {\n    composed diffbot_chassis {\n"),
        "the main body first:\n{text}"
    );
    assert!(text.contains("static crate { shape box(0.4, 0.3, 0.4); pos(4, 0.15, 4); material \"Wood\"; }"), "{text}");
    assert!(text.contains("SimpleMotor m_l { max_force 0.03; }"), "{text}");
    assert!(!text.contains("-0,") && !text.contains("e-"), "no negative zeros, no exponents:\n{text}");
    assert_eq!(text.matches("diffbot_caster {").count(), 1, "{text}");
    // The same world writes the same text.
    assert_eq!(write_scene(&model, &poses, &NOTE).unwrap(), text);
}

#[test]
fn what_the_language_cannot_say_is_refused_with_what_it_is() {
    let mut model = model_of("diffbot.vlab");
    let poses: Vec<Pose> = model.bodies.iter().map(|b| b.pose).collect();
    assert_eq!(
        write_scene(&model, &poses[1..], &NOTE),
        Err(WriteError::PosesMismatch { bodies: poses.len(), poses: poses.len() - 1 })
    );
    let crate_index = model.body_index("crate").unwrap();
    model.bodies[crate_index].parts[0].shape = Shape::ConvexHull { points: vec![[0.0; 3]; 4] };
    let error = write_scene(&model, &poses, &NOTE).unwrap_err();
    assert!(matches!(error, WriteError::Inexpressible { ref what, .. } if what == "the body 'crate'"), "{error}");
    assert!(error.to_string().contains("convex hull"), "{error}");
}

fn compare(file: &str, model: &SceneModel, poses: &[Pose], delta: &Pose, again: &SceneModel, out: &mut Vec<String>) {
    let mut differ = |what: String| out.push(format!("{file}: {what}"));
    let names = |m: &SceneModel| m.bodies.iter().map(|b| b.name.clone()).collect::<Vec<_>>();
    if names(model) != names(again) {
        differ(format!("bodies {:?}\n  read back as {:?}", names(model), names(again)));
        return;
    }
    if model.environment != again.environment || model.gravity_y != again.gravity_y {
        differ(format!("environment {:?} read back as {:?}", model.environment, again.environment));
    }
    for (i, (body, read)) in model.bodies.iter().zip(&again.bodies).enumerate() {
        if !close_poses(&poses[i], &read.pose, 1e-5) {
            differ(format!("'{}' at {:?} read back at {:?}", body.name, poses[i], read.pose));
        }
        if body.motion != read.motion || body.robot != read.robot || body.parts.len() != read.parts.len() {
            differ(format!("'{}' is {:?} read back as {:?}", body.name, body, read));
            continue;
        }
        for (part, read_part) in body.parts.iter().zip(&read.parts) {
            let same = close_shapes(&part.shape, &read_part.shape)
                && close_poses(&part.local, &read_part.local, 1e-5)
                // A URDF material keeps its file's name; the library's reads it in its own case.
                && part.material.name.eq_ignore_ascii_case(&read_part.material.name)
                && (part.density - read_part.density).abs() <= 1e-4 * part.density
                && part.friction == read_part.friction
                && part.restitution == read_part.restitution
                && (part.name.is_none() || part.name == read_part.name)
                && part.mesh.as_ref().map(|m| (&m.file, m.scale)) == read_part.mesh.as_ref().map(|m| (&m.file, m.scale));
            if !same {
                differ(format!("a part of '{}': {part:?}\n  read back as {read_part:?}", body.name));
            }
        }
    }
    // Joints by their bodies (a URDF joint's own name is not the language's).
    let (written, read) = (joints_by_bodies(model), joints_by_bodies(again));
    if written.len() != read.len() {
        differ(format!("{} joints read back as {}", written.len(), read.len()));
    }
    for ((first, second, kind), (_, _, read_kind)) in written.iter().zip(&read) {
        if !close_joints(&kind.moved(delta), read_kind) {
            differ(format!("joint {first}-{second}: {:?} moved read back as {read_kind:?}", kind));
        }
    }
    for (j, read_joint) in model.joints.iter().zip(&again.joints) {
        if (j.erp, j.cfm, j.bodies_touch) != (read_joint.erp, read_joint.cfm, read_joint.bodies_touch) {
            differ(format!("joint '{}' settings {:?} read back as {:?}", j.name, j, read_joint));
        }
    }
    let devices = |m: &SceneModel| {
        let mut all: Vec<String> =
            m.sensors.iter().chain(&m.actuators).chain(&m.beacons).map(|d| describe(m, d)).collect();
        all.sort();
        all
    };
    if devices(model) != devices(again) {
        differ(format!("devices {:#?}\n  read back as {:#?}", devices(model), devices(again)));
    }
    let robots = |m: &SceneModel| {
        m.robots
            .iter()
            .map(|r| (r.name.clone(), m.bodies[r.main_body].name.clone(), r.program.clone(), r.program_rate))
            .collect::<Vec<_>>()
    };
    if robots(model) != robots(again) {
        differ(format!("robots {:?}\n  read back as {:?}", robots(model), robots(again)));
    }
    if model.groups != again.groups {
        differ(format!("containers {:?}\n  read back as {:?}", model.groups, again.groups));
    }
    match (&model.challenge, &again.challenge) {
        (None, None) => {}
        (Some(c), Some(r)) => {
            let zones_close = c.zones.len() == r.zones.len()
                && c.zones.iter().zip(&r.zones).all(|(a, b)| {
                    a.name == b.name && a.material.name == b.material.name && close_poses(&a.pose, &b.pose, 1e-5)
                });
            let start_close = match (c.start, r.start) {
                (Some(a), Some(b)) => {
                    distance(a.position, b.position) < 1e-5 && (a.heading_deg - b.heading_deg).abs() < 1e-4
                }
                (a, b) => a.is_none() && b.is_none(),
            };
            let same = c.title == r.title
                && c.time_limit_secs == r.time_limit_secs
                && zones_close
                && start_close
                && c.success == r.success
                && c.failure == r.failure
                && c.goals == r.goals
                && c.points == r.points
                && c.score == r.score;
            if !same {
                differ(format!("challenge {c:#?}\n  read back as {r:#?}"));
            }
        }
        (c, r) => differ(format!("challenge {c:?} read back as {r:?}")),
    }
}

/// Every joint as its two bodies' names and its kind, in the order of those names.
fn joints_by_bodies(model: &SceneModel) -> Vec<(String, String, &JointKind)> {
    let mut joints: Vec<(String, String, &JointKind)> = model
        .joints
        .iter()
        .map(|j| (model.bodies[j.body1].name.clone(), model.bodies[j.body2].name.clone(), &j.kind))
        .collect();
    joints.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    joints
}

/// A device as one line: its robot, name, type, where it sits (by names) and parameters.
fn describe(model: &SceneModel, device: &DeviceModel) -> String {
    let mount = match device.mount {
        Mount::Body(b) => format!("on {}", model.bodies[b].name),
        Mount::Joint(j) => {
            let joint = &model.joints[j];
            format!("on {}-{}", model.bodies[joint.body1].name, model.bodies[joint.body2].name)
        }
        Mount::Robot => "on the robot".into(),
    };
    let params: Vec<String> = device
        .params
        .iter()
        .map(|(key, value)| match value {
            ParamValue::Num(n) => format!("{key}={:.9e}", n),
            other => format!("{key}={other:?}"),
        })
        .collect();
    format!("{:?} {} {} {mount} {}", device.robot, device.kind, device.name, params.join(" "))
}

fn distance(a: [f32; 3], b: [f32; 3]) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

fn close_poses(a: &Pose, b: &Pose, metres: f32) -> bool {
    let dot: f32 = a.rotation.iter().zip(&b.rotation).map(|(x, y)| x * y).sum();
    distance(a.position, b.position) <= metres && dot.abs() >= 1.0 - 1e-6
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() <= 1e-5 * a.abs().max(1.0)
}

fn close_shapes(a: &Shape, b: &Shape) -> bool {
    match (a, b) {
        (Shape::Box { half_extents: x }, Shape::Box { half_extents: y }) => x.iter().zip(y).all(|(p, q)| close(*p, *q)),
        (Shape::Sphere { radius: r }, Shape::Sphere { radius: s }) => close(*r, *s),
        (Shape::Cylinder { radius: r, half_length: h }, Shape::Cylinder { radius: s, half_length: k })
        | (Shape::Capsule { radius: r, half_length: h }, Shape::Capsule { radius: s, half_length: k }) => {
            close(*r, *s) && close(*h, *k)
        }
        _ => false,
    }
}

fn close_vectors(a: &[f32; 3], b: &[f32; 3]) -> bool {
    a.iter().zip(b).all(|(p, q)| (p - q).abs() <= 2e-5 * p.abs().max(1.0))
}

/// Same type, anchors within 20 µm, axes in the same direction.
fn close_joints(a: &JointKind, b: &JointKind) -> bool {
    let unit = |v: &[f32; 3]| {
        let length = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        v.map(|c| c / length)
    };
    let axes = |p: &[f32; 3], q: &[f32; 3]| close_vectors(&unit(p), &unit(q));
    use JointKind as K;
    match (a, b) {
        (K::Hinge { anchor: p, axis: x, .. }, K::Hinge { anchor: q, axis: y, .. })
        | (K::Piston { anchor: p, axis: x }, K::Piston { anchor: q, axis: y })
        | (K::Planar { anchor: p, axis: x }, K::Planar { anchor: q, axis: y }) => close_vectors(p, q) && axes(x, y),
        (K::Ball { anchor: p }, K::Ball { anchor: q }) => close_vectors(p, q),
        (K::Slider { axis: x }, K::Slider { axis: y }) => axes(x, y),
        (K::Universal { anchor: p, axis: x, axis2: u }, K::Universal { anchor: q, axis: y, axis2: v })
        | (K::Hinge2 { anchor: p, axis: x, axis2: u }, K::Hinge2 { anchor: q, axis: y, axis2: v })
        | (
            K::PrismaticRotoide { anchor: p, axis: x, axis2: u },
            K::PrismaticRotoide { anchor: q, axis: y, axis2: v },
        )
        | (
            K::PrismaticUniversal { anchor: p, axis: x, axis2: u },
            K::PrismaticUniversal { anchor: q, axis: y, axis2: v },
        ) => close_vectors(p, q) && axes(x, y) && axes(u, v),
        (K::Fixed, K::Fixed) => true,
        _ => false,
    }
}
