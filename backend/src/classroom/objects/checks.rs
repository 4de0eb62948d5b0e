//! What a fragment of objects may hold (bodies of no robot, nothing else) and what a
//! student's objects keep to (size, mass, bodies per fragment), each refusal pointed
//! at a place in the files.

use vlab_protocol::pose::rotate;
use vlab_protocol::{MAX_FRAGMENT_BODIES, MAX_OBJECT_EXTENT_M, MAX_OBJECT_MASS_KG, SourceMessage};
use vlab_sim::scene::{BodyModel, Motion, SceneModel, Shape};

use crate::classroom::upload::{Bundle, interpret};

/// `Ok` when `model` holds objects and nothing else: no robot, environment, device,
/// joint or challenge (those are the instructor's scenes' or a robot upload's).
pub fn objects_only(model: &SceneModel, bundle: &Bundle) -> Result<(), SourceMessage> {
    let at = |word: &str, message: String| position(bundle, word, message);
    if let Some(robot) = model.robots.first() {
        return Err(at(
            &robot.name,
            format!("objects may not hold robots: add robot '{}' as a robot (Add robot, POST .../robots)", robot.name),
        ));
    }
    if model.environment.is_some() {
        let word = if interpret::find_word(&bundle.main_text, "environment").is_some() { "environment" } else { "env" };
        return Err(at(word, "objects may not declare an environment: the lab has its own".into()));
    }
    if let Some(device) = model.sensors.iter().chain(&model.actuators).chain(&model.beacons).next() {
        return Err(at(
            &device.name,
            format!("objects may hold no devices: '{}' is a {} (devices belong on robots)", device.name, device.kind),
        ));
    }
    if let Some(joint) = model.joints.first() {
        let (a, b) = (&model.bodies[joint.body1].name, &model.bodies[joint.body2].name);
        return Err(at(a, format!("objects may hold no joints: '{a}' is joined to '{b}' (joints are for scenes)")));
    }
    if model.challenge.is_some() {
        return Err(at("challenge", "objects may not set a challenge: the instructor's scene does".into()));
    }
    if model.bodies.is_empty() {
        return Err(at("", "no object here: write one as `name { shape box(0.4, 0.4, 0.4); pos(2, 0.2, 2); }`".into()));
    }
    Ok(())
}

/// `Ok` when a student's objects keep to the per-object quotas: at most
/// [`MAX_FRAGMENT_BODIES`] bodies, each at most [`MAX_OBJECT_EXTENT_M`] across and, if it
/// moves, at most [`MAX_OBJECT_MASS_KG`].
pub fn within_quotas(model: &SceneModel, bundle: &Bundle) -> Result<(), SourceMessage> {
    if model.bodies.len() > MAX_FRAGMENT_BODIES {
        return Err(position(
            bundle,
            "",
            format!(
                "these objects have {} bodies; a student adds at most {MAX_FRAGMENT_BODIES} at once",
                model.bodies.len()
            ),
        ));
    }
    for body in &model.bodies {
        let extent = object_extent_m(body);
        if extent > MAX_OBJECT_EXTENT_M {
            return Err(position(
                bundle,
                &body.name,
                format!(
                    "object '{}' is {extent:.2} m across; a student's object is at most {MAX_OBJECT_EXTENT_M} m",
                    body.name
                ),
            ));
        }
        let mass = object_mass_kg(body);
        if body.motion == Motion::Dynamic && mass > MAX_OBJECT_MASS_KG {
            return Err(position(
                bundle,
                &body.name,
                format!(
                    "object '{}' weighs {mass:.1} kg; a student's moving object weighs at most {MAX_OBJECT_MASS_KG} kg \
                     (lower its density, or make it static)",
                    body.name
                ),
            ));
        }
    }
    Ok(())
}

/// The longest side of the box around `body`'s colliding parts, along its own axes,
/// metres.
pub fn object_extent_m(body: &BodyModel) -> f32 {
    let mut low = [f32::INFINITY; 3];
    let mut high = [f32::NEG_INFINITY; 3];
    for part in body.parts.iter().filter(|p| !p.drawn_only) {
        let half = half_extents(&part.shape);
        for corner in 0..8 {
            let signs = [corner & 1, corner & 2, corner & 4].map(|bit| if bit == 0 { -1.0 } else { 1.0 });
            let local = [half[0] * signs[0], half[1] * signs[1], half[2] * signs[2]];
            let turned = rotate(part.local.rotation, local);
            for axis in 0..3 {
                let at = part.local.position[axis] + turned[axis];
                low[axis] = low[axis].min(at);
                high[axis] = high[axis].max(at);
            }
        }
    }
    (0..3).map(|axis| high[axis] - low[axis]).fold(0.0, f32::max)
}

/// The mass of `body`'s colliding parts (density × volume), kilograms; a convex hull
/// counts as the box around its points.
pub fn object_mass_kg(body: &BodyModel) -> f32 {
    body.parts.iter().filter(|p| !p.drawn_only).map(|part| part.density * volume(&part.shape)).sum()
}

/// Half the sides of the box around `shape`, in its own frame.
fn half_extents(shape: &Shape) -> [f32; 3] {
    match shape {
        Shape::Box { half_extents } => *half_extents,
        Shape::Sphere { radius } => [*radius; 3],
        Shape::Cylinder { radius, half_length } => [*radius, *radius, *half_length],
        Shape::Capsule { radius, half_length } => [*radius, *radius, half_length + radius],
        Shape::ConvexHull { points } => {
            let reach = |axis: usize| points.iter().map(|p| p[axis].abs()).fold(0.0, f32::max);
            [reach(0), reach(1), reach(2)]
        }
    }
}

/// The volume of `shape`, cubic metres.
fn volume(shape: &Shape) -> f32 {
    use std::f32::consts::PI;
    match shape {
        Shape::Box { half_extents: [x, y, z] } => 8.0 * x * y * z,
        Shape::Sphere { radius } => 4.0 / 3.0 * PI * radius.powi(3),
        Shape::Cylinder { radius, half_length } => PI * radius * radius * 2.0 * half_length,
        Shape::Capsule { radius, half_length } => {
            PI * radius * radius * 2.0 * half_length + 4.0 / 3.0 * PI * radius.powi(3)
        }
        Shape::ConvexHull { .. } => {
            let [x, y, z] = half_extents(shape);
            8.0 * x * y * z
        }
    }
}

/// `message` at the first mention of `word` in the bundle's files (the main file's
/// start when it is not found or empty).
fn position(bundle: &Bundle, word: &str, message: String) -> SourceMessage {
    let mut files: Vec<(&String, &String)> = vec![(&bundle.main_name, &bundle.main_text)];
    files.extend(bundle.files.iter());
    let found = (!word.is_empty())
        .then(|| {
            files.iter().find_map(|(name, text)| {
                interpret::find_word(text, word).map(|(line, col)| ((*name).clone(), line, col))
            })
        })
        .flatten();
    let (file, line, col) = found.unwrap_or_else(|| (bundle.main_name.clone(), 1, 1));
    SourceMessage { file, line, col, message }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vlab_protocol::{MAX_OBJECTS_PER_STUDENT, PALETTE};
    use vlab_sim::scene::{MapLoader, Options, interpret as run};

    fn model(text: &str) -> SceneModel {
        run(text, "palette.vlab", &MapLoader::new(), &Options::default()).expect("it builds").model
    }

    fn bundle(text: &str) -> Bundle {
        Bundle { main_name: "objects.vlab".into(), main_text: text.into(), ..Bundle::default() }
    }

    #[test]
    fn every_palette_item_parses_is_objects_only_and_within_a_students_quotas() {
        for item in &PALETTE {
            let text = item.vlab("ana_item_1", [2.0, 0.0, 3.0], 0.7);
            let model = model(&text);
            let b = bundle(&text);
            assert_eq!(model.bodies.len(), 1, "{}: one body", item.id);
            objects_only(&model, &b).unwrap_or_else(|e| panic!("{}: {}", item.id, e.message));
            within_quotas(&model, &b).unwrap_or_else(|e| panic!("{}: {}", item.id, e.message));
            let body = &model.bodies[0];
            assert_eq!(body.motion == Motion::Fixed, item.fixed, "{}", item.id);
            assert!(object_extent_m(body) > 0.1, "{}", item.id);
            assert!(item.fixed || object_mass_kg(body) > 0.1, "{}", item.id);
        }
        assert!(MAX_OBJECTS_PER_STUDENT >= PALETTE.len(), "a student can have one of each");
    }

    #[test]
    fn size_and_mass_are_refused_one_past_their_limits() {
        // A box exactly 3 m long passes; 3.01 m is refused at its name.
        let at_limit = "static plank { shape box(3, 0.1, 0.1); pos(1, 0.05, 1); }";
        within_quotas(&model(at_limit), &bundle(at_limit)).unwrap();
        let over = "static\nplank { shape box(3.01, 0.1, 0.1); pos(1, 0.05, 1); }";
        let error = within_quotas(&model(over), &bundle(over)).unwrap_err();
        assert_eq!((error.line, error.col), (2, 1));
        assert!(error.message.contains("3.01 m across") && error.message.contains("at most 3 m"), "{}", error.message);
        // 0.05 m³ of density 1000 is 50 kg: passes; density 1001 is 50.05 kg: refused.
        let heavy = |density: u32| format!("crate1 {{ shape box(0.5, 0.2, 0.5); density {density}; pos(1, 0.1, 1); }}");
        within_quotas(&model(&heavy(1000)), &bundle(&heavy(1000))).unwrap();
        let error = within_quotas(&model(&heavy(1001)), &bundle(&heavy(1001))).unwrap_err();
        assert!(
            error.message.contains("weighs 50.0 kg") || error.message.contains("weighs 50.1 kg"),
            "{}",
            error.message
        );
        // A static object's mass plays no part.
        let anchor = "static anchor { shape box(0.5, 0.2, 0.5); density 5000; pos(1, 0.1, 1); }";
        within_quotas(&model(anchor), &bundle(anchor)).unwrap();
    }

    #[test]
    fn bodies_per_fragment_are_refused_one_past_the_limit() {
        let balls = |n: usize| {
            (0..n)
                .map(|i| format!("b{i} {{ shape sphere(0.05); pos({}, 0.05, 1); }}\n", i as f32 * 0.2))
                .collect::<String>()
        };
        let at = balls(MAX_FRAGMENT_BODIES);
        within_quotas(&model(&at), &bundle(&at)).unwrap();
        let over = balls(MAX_FRAGMENT_BODIES + 1);
        let error = within_quotas(&model(&over), &bundle(&over)).unwrap_err();
        assert!(error.message.contains(&format!("at most {MAX_FRAGMENT_BODIES}")), "{}", error.message);
    }

    #[test]
    fn robots_environments_devices_and_joints_are_refused_at_their_line() {
        let robot = "box1 { shape box(0.2, 0.2, 0.2); pos(1, 0.1, 1); }\nrobot r { body { r_base { shape box(0.2, 0.1, 0.2); pos(2, 0.05, 2); } } }";
        let error = objects_only(&model(robot), &bundle(robot)).unwrap_err();
        assert_eq!((error.line, error.col), (2, 7));
        assert!(error.message.contains("may not hold robots"), "{}", error.message);
        let env = "// a room\nenvironment wallrect { width 4; length 4; }\nbox1 { shape box(0.2, 0.2, 0.2); pos(1, 0.1, 1); }";
        let error = objects_only(&model(env), &bundle(env)).unwrap_err();
        assert_eq!((error.line, error.col), (2, 1));
        assert!(error.message.contains("environment"), "{}", error.message);
        let joined = "a { shape box(0.2, 0.2, 0.2); pos(1, 0.1, 1); }\nb { shape box(0.2, 0.2, 0.2); pos(1.2, 0.1, 1); }\nJointFixed(a, b);";
        let error = objects_only(&model(joined), &bundle(joined)).unwrap_err();
        assert!(error.message.contains("no joints"), "{}", error.message);
        let beacon = "static post { shape cylinder(0.05, 0.6); pos(2, 0.3, 1); Beacon B; }";
        let error = objects_only(&model(beacon), &bundle(beacon)).unwrap_err();
        assert!(error.message.contains("no devices"), "{}", error.message);
        assert_eq!(error.col, 65, "at the beacon's name");
    }
}
