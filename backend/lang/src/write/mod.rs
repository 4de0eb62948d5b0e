//! Writing a lab's world back as `.vlab` text: the environment, every object at the
//! pose it stands at now, containers, joints, robots with their devices and the names
//! of their programs, and the challenge. Loaded into a new lab, the text rebuilds the
//! same world (docs/classroom.md, "Saving a lab as a scene").
//!
//! The writer works on the model and the bodies' current poses, not on the scene text
//! the lab was made from: a lab grows by insertions from many files (the instructor's,
//! every student's robot), and loops, functions and random numbers have already run.
//! So the text is flat: one statement per element, numbers written out.
//!
//! What the language cannot say is refused with a [`WriteError`] rather than written
//! wrongly: a URDF robot's convex hulls, visuals drawn apart from what collides, and
//! joint limits.

mod challenge;
mod text;

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;

use self::text::{ROTATION_DECIMALS, direction, fixed, name, point, real, string, wide};
use crate::model::{
    BodyModel, DeviceModel, EnvironmentKind, JointKind, JointModel, Motion, Mount, ParamValue, PartModel, Pose,
    SceneModel, Shape,
};

/// Why a lab could not be written as a scene.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum WriteError {
    /// The poses given are not one per body of the model.
    #[error("the world has {bodies} bodies but {poses} poses were read: they must be read together")]
    PosesMismatch {
        /// Bodies in the model.
        bodies: usize,
        /// Poses given.
        poses: usize,
    },
    /// Something of the world that the scene language has no words for.
    #[error("{what} cannot be written as a scene: {why}")]
    Inexpressible {
        /// The element, as a sentence's subject (`the body 'arm_link1'`).
        what: String,
        /// What about it the language cannot say.
        why: &'static str,
    },
    /// A name or a string with a `"`, which the language's strings cannot hold.
    #[error("'{text}' holds a double quote, which a scene's strings cannot hold")]
    Unquotable {
        /// The text.
        text: String,
    },
}

/// What a saved scene says about where it comes from, in its header comment.
#[derive(Clone, Copy, Debug)]
pub struct SaveNote<'a> {
    /// The lab's id.
    pub lab: &'a str,
    /// The physics step the poses were read at.
    pub step: u64,
    /// Seconds of simulation at that step.
    pub sim_secs: f64,
    /// When, as the caller writes dates (the crate reads no clock).
    pub saved_at: &'a str,
}

/// The files a saved scene names, which must come with it when it is loaded elsewhere.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NamedFiles {
    /// Programs by robot: the file `code` names, then its project's sources (paths as
    /// the scene writes them).
    pub programs: BTreeMap<String, Vec<String>>,
    /// Meshes, as `mesh("...")` names them.
    pub meshes: Vec<String>,
}

/// The names of the environment's own bodies: written by `environment`, not as objects.
use crate::model::ENVIRONMENT_BODIES;

/// Writes `model` as a scene, every body at `poses` (one per body, indexed like
/// `model.bodies`: where they stand now).
///
/// # Example
/// ```
/// use vlab_scene::{interpret, write_scene, NoFiles, Options, SaveNote};
///
/// let scene = "environment room { width 4; length 4; }\nball { shape sphere(0.1); pos(1, 2, 1); }";
/// let model = interpret(scene, "main.vlab", &NoFiles, &Options::default()).unwrap().model;
/// let mut poses: Vec<_> = model.bodies.iter().map(|b| b.pose).collect();
/// poses[model.body_index("ball").unwrap()].position = [1.0, 0.1, 1.0]; // it fell
/// let note = SaveNote { lab: "demo", step: 240, sim_secs: 1.0, saved_at: "now" };
/// let text = write_scene(&model, &poses, &note).unwrap();
/// assert!(text.contains("ball { shape sphere(0.1); pos(1, 0.1, 1);"));
/// let again = interpret(&text, "saved.vlab", &NoFiles, &Options::default()).unwrap().model;
/// assert_eq!(again.bodies[again.body_index("ball").unwrap()].pose.position, [1.0, 0.1, 1.0]);
/// ```
pub fn write_scene(model: &SceneModel, poses: &[Pose], note: &SaveNote<'_>) -> Result<String, WriteError> {
    if poses.len() != model.bodies.len() {
        return Err(WriteError::PosesMismatch { bodies: model.bodies.len(), poses: poses.len() });
    }
    let mut writer = Writer::new(model, poses);
    writer.header(note);
    writer.environment();
    writer.elements()?;
    if let Some(challenge) = &model.challenge {
        writer.out.push('\n');
        challenge::write(&mut writer.out, challenge, model)?;
    }
    Ok(writer.out)
}

/// The program files and meshes `model`'s saved scene names.
pub fn named_files(model: &SceneModel) -> NamedFiles {
    let mut files = NamedFiles::default();
    for robot in &model.robots {
        let Some(program) = &robot.program else { continue };
        let mut named = vec![program.file.clone()];
        if let Some(project) = &program.project {
            let folder = program.file.rsplit_once('/').map(|(folder, _)| format!("{folder}/")).unwrap_or_default();
            named.extend(project.sources.iter().map(|source| format!("{folder}{source}")));
        }
        files.programs.insert(robot.name.clone(), named);
    }
    for part in model.bodies.iter().flat_map(|b| &b.parts) {
        if let Some(mesh) = &part.mesh
            && !files.meshes.contains(&mesh.file)
        {
            files.meshes.push(mesh.file.clone());
        }
    }
    files
}

/// The writer's state: the text so far and what has been written.
struct Writer<'a> {
    model: &'a SceneModel,
    poses: &'a [Pose],
    out: String,
    /// Bodies, robots and containers already written (by index).
    bodies_done: Vec<bool>,
    robots_done: Vec<bool>,
    groups_done: Vec<bool>,
    joints_done: Vec<bool>,
    /// Every name of the lab, so that names made up for unnamed parts stay unique.
    names: HashSet<String>,
}

impl<'a> Writer<'a> {
    fn new(model: &'a SceneModel, poses: &'a [Pose]) -> Writer<'a> {
        let mut names: HashSet<String> = model.bodies.iter().map(|b| b.name.clone()).collect();
        names.extend(model.bodies.iter().flat_map(|b| &b.parts).filter_map(|p| p.name.clone()));
        names.extend(model.robots.iter().map(|r| r.name.clone()));
        names.extend(model.groups.iter().map(|g| g.name.clone()));
        names.extend(model.joints.iter().map(|j| j.name.clone()));
        Writer {
            model,
            poses,
            out: String::new(),
            bodies_done: vec![false; model.bodies.len()],
            robots_done: vec![false; model.robots.len()],
            groups_done: vec![false; model.groups.len()],
            joints_done: vec![false; model.joints.len()],
            names,
        }
    }

    fn header(&mut self, note: &SaveNote<'_>) {
        let lab = note.lab.replace(['\n', '\r'], " ");
        let _ = writeln!(
            self.out,
            "// Saved from lab '{lab}' at step {} ({} s of simulation), {}.",
            note.step,
            fixed(note.sim_secs, 3),
            note.saved_at.replace(['\n', '\r'], " ")
        );
        self.out.push_str(
            "// Every object stands where it stood then; joints, encoders and odometry start\n\
             // again from these poses, and programs from their beginning.\n\n",
        );
    }

    fn environment(&mut self) {
        let Some(env) = &self.model.environment else { return };
        let kind = match env.kind {
            EnvironmentKind::Room => "room",
            EnvironmentKind::WallRect => "wallrect",
        };
        let quoted = |m: &crate::model::Material| string(&m.name).unwrap_or_else(|_| "\"Grey\"".into());
        let _ = writeln!(self.out, "environment {kind} {{");
        let _ = writeln!(
            self.out,
            "  width {}; length {}; height {};",
            real(env.width),
            real(env.length),
            real(env.height)
        );
        let _ = writeln!(
            self.out,
            "  sky {}; ground {}; walls {}; ceiling {};",
            quoted(&env.sky),
            quoted(&env.ground),
            quoted(&env.walls),
            quoted(&env.ceiling)
        );
        let _ = writeln!(self.out, "  gravity {};", real(self.model.gravity_y));
        if let Some(erp) = env.erp {
            let _ = writeln!(self.out, "  erp {};", real(erp));
        }
        if let Some(cfm) = env.cfm {
            let _ = writeln!(self.out, "  cfm {};", real(cfm));
        }
        self.out.push_str("}\n\n");
    }

    /// Objects, containers and robots in the order their bodies came into the lab, then
    /// the joints no robot holds.
    fn elements(&mut self) -> Result<(), WriteError> {
        let model = self.model;
        let environment = model.environment.is_some();
        for (i, body) in model.bodies.iter().enumerate() {
            if environment && ENVIRONMENT_BODIES.contains(&body.name.as_str()) {
                self.bodies_done[i] = true;
            }
        }
        for i in 0..model.bodies.len() {
            if self.bodies_done[i] {
                continue;
            }
            let body = &model.bodies[i];
            if let Some(robot) = body.robot.as_deref().and_then(|r| model.robots.iter().position(|m| m.name == r)) {
                self.robot(robot)?;
            } else if let Some(group) = self.outermost_group_of(&body.name) {
                self.group(group, 0)?;
            } else {
                self.body(i, 0)?;
            }
        }
        for group in 0..model.groups.len() {
            if !self.groups_done[group] && self.outermost_group_of(&model.groups[group].name).is_none() {
                self.group(group, 0)?;
            }
        }
        for robot in 0..model.robots.len() {
            if !self.robots_done[robot] {
                self.robot(robot)?;
            }
        }
        let loose: Vec<usize> = (0..model.joints.len()).filter(|j| !self.joints_done[*j]).collect();
        if !loose.is_empty() {
            self.out.push('\n');
        }
        for joint in loose {
            self.joint(joint, 0)?;
        }
        Ok(())
    }

    /// The outermost container holding `member` (a body's or a container's name), if any.
    fn outermost_group_of(&self, member: &str) -> Option<usize> {
        let mut found = None;
        let mut name = member.to_owned();
        // Containers nest as a tree, so this climbs at most once per container.
        for _ in 0..=self.model.groups.len() {
            let Some(parent) = self.model.groups.iter().position(|g| g.members.contains(&name)) else {
                break;
            };
            found = Some(parent);
            name = self.model.groups[parent].name.clone();
        }
        found
    }

    fn group(&mut self, group: usize, depth: usize) -> Result<(), WriteError> {
        self.groups_done[group] = true;
        let model = self.model;
        let g = &model.groups[group];
        let _ = writeln!(self.out, "{}container {} {{", pad(depth), name(&g.name)?);
        for member in &g.members {
            if let Some(i) = model.body_index(member) {
                if !self.bodies_done[i] {
                    self.body(i, depth + 1)?;
                }
            } else if let Some(inner) = model.groups.iter().position(|x| x.name == *member)
                && !self.groups_done[inner]
            {
                self.group(inner, depth + 1)?;
            }
        }
        let _ = writeln!(self.out, "{}}}", pad(depth));
        Ok(())
    }

    fn robot(&mut self, robot: usize) -> Result<(), WriteError> {
        self.robots_done[robot] = true;
        let model = self.model;
        let r = &model.robots[robot];
        let _ = writeln!(self.out, "robot {} {{", name(&r.name)?);
        if let Some(program) = &r.program {
            let file = if crate::is_foreign_path(&program.file) {
                crate::last_component(&program.file).unwrap_or(&program.file)
            } else {
                &program.file
            };
            let _ = writeln!(self.out, "  code {};", string(file)?);
        }
        if let Some(rate) = r.program_rate {
            let _ = writeln!(self.out, "  program_rate {};", rate.word());
        }
        self.out.push_str("  body {\n");
        // The main body first: the first body a robot declares is its main one.
        self.body(r.main_body, 2)?;
        for i in 0..model.bodies.len() {
            if !self.bodies_done[i] && model.bodies[i].robot.as_deref() == Some(r.name.as_str()) {
                self.body(i, 2)?;
            }
        }
        for j in 0..model.joints.len() {
            if !self.joints_done[j] && self.joint_robot(&model.joints[j], j) == Some(r.name.as_str()) {
                self.joint(j, 2)?;
            }
        }
        for device in self.devices_on(Mount::Robot).filter(|d| d.robot.as_deref() == Some(r.name.as_str())) {
            self.device(device, 2)?;
        }
        self.out.push_str("  }\n}\n");
        Ok(())
    }

    /// The robot whose body a joint is written in: the robot of its devices, else the
    /// robot both its bodies belong to.
    fn joint_robot(&self, joint: &JointModel, index: usize) -> Option<&'a str> {
        let model = self.model;
        if let Some(device) = self.devices_on(Mount::Joint(index)).find(|d| d.robot.is_some()) {
            return device.robot.as_deref();
        }
        let first = model.bodies[joint.body1].robot.as_deref();
        (first.is_some() && first == model.bodies[joint.body2].robot.as_deref()).then_some(first?)
    }

    /// Every sensor, actuator and beacon mounted at `mount`, sensors first.
    fn devices_on(&self, mount: Mount) -> impl Iterator<Item = &'a DeviceModel> + use<'a> {
        let model = self.model;
        model.sensors.iter().chain(&model.actuators).chain(&model.beacons).filter(move |d| d.mount == mount)
    }

    fn body(&mut self, index: usize, depth: usize) -> Result<(), WriteError> {
        self.bodies_done[index] = true;
        let model = self.model;
        let body: &BodyModel = &model.bodies[index];
        let pose = self.poses[index];
        let what = || format!("the body '{}'", body.name);
        for part in &body.parts {
            if part.drawn_only {
                return Err(WriteError::Inexpressible {
                    what: what(),
                    why: "it has a visual drawn apart from what collides (from a URDF file)",
                });
            }
            if let Shape::ConvexHull { .. } = part.shape {
                return Err(WriteError::Inexpressible {
                    what: what(),
                    why: "it collides as the convex hull of a mesh (from a URDF file)",
                });
            }
            if part.mesh.as_ref().is_some_and(|m| m.offset != Pose::IDENTITY) {
                return Err(WriteError::Inexpressible {
                    what: what(),
                    why: "its mesh is placed apart from its collision shape (from a URDF file)",
                });
            }
        }
        let fixed_word = if body.motion == Motion::Fixed { "static " } else { "" };
        let plain = body.parts.len() == 1 && body.parts[0].name.is_none() && is_identity(&body.parts[0].local);
        let indent = pad(depth);
        if plain {
            let part = &body.parts[0];
            let _ = write!(self.out, "{indent}{fixed_word}{} {{ ", name(&body.name)?);
            self.shape(part)?;
            let _ = write!(self.out, " pos({});", point(pose.position));
            self.rotation(&pose);
            self.look(part, false)?;
            let devices: Vec<&DeviceModel> = self.devices_on(Mount::Body(index)).collect();
            if devices.is_empty() {
                self.out.push_str(" }\n");
            } else {
                self.out.push('\n');
                for device in devices {
                    self.device(device, depth + 1)?;
                }
                let _ = writeln!(self.out, "{indent}}}");
            }
            return Ok(());
        }
        let _ = writeln!(self.out, "{indent}{fixed_word}composed {} {{", name(&body.name)?);
        let _ = write!(self.out, "{indent}  pos({});", point(pose.position));
        self.rotation(&pose);
        self.out.push('\n');
        for (i, part) in body.parts.iter().enumerate() {
            let part_name = match &part.name {
                Some(n) => n.clone(),
                None => self.made_up_name(&body.name, i),
            };
            let _ = write!(self.out, "{indent}  {} {{ ", name(&part_name)?);
            self.shape(part)?;
            let _ = write!(self.out, " pos({});", point(part.local.position));
            self.rotation(&part.local);
            // Every part says its density: a part without one would take its siblings'.
            self.look(part, true)?;
            self.out.push_str(" }\n");
        }
        for device in self.devices_on(Mount::Body(index)).collect::<Vec<_>>() {
            self.device(device, depth + 1)?;
        }
        let _ = writeln!(self.out, "{indent}}}");
        Ok(())
    }

    /// A name for the `index`th part of `body`, which has none (a URDF link's second
    /// collision shape): unique in the lab.
    fn made_up_name(&mut self, body: &str, index: usize) -> String {
        let mut candidate = format!("{body}_part{index}");
        let mut n = 2;
        while self.names.contains(&candidate) {
            candidate = format!("{body}_part{index}_{n}");
            n += 1;
        }
        self.names.insert(candidate.clone());
        candidate
    }

    /// `shape ...;` (and `customgeom ...;` under a mesh).
    fn shape(&mut self, part: &PartModel) -> Result<(), WriteError> {
        let primitive = primitive(&part.shape).ok_or_else(|| WriteError::Inexpressible {
            what: format!("a part of shape {:?}", part.shape),
            why: "the language has no such shape",
        })?;
        match &part.mesh {
            Some(mesh) => {
                let _ = write!(
                    self.out,
                    "shape mesh({}, {}); customgeom {primitive};",
                    string(&mesh.file)?,
                    real(mesh.scale)
                );
            }
            None => {
                let _ = write!(self.out, "shape {primitive};");
            }
        }
        Ok(())
    }

    /// ` quaternion(w, x, y, z);` unless the pose is not turned.
    fn rotation(&mut self, pose: &Pose) {
        if is_identity_rotation(pose) {
            return;
        }
        let [x, y, z, w] = pose.rotation.map(f64::from);
        // One sign for one rotation, so the same pose is always the same text.
        let sign = if w < 0.0 { -1.0 } else { 1.0 };
        let q = [w, x, y, z].map(|c| fixed(sign * c, ROTATION_DECIMALS));
        let _ = write!(self.out, " quaternion({});", q.join(", "));
    }

    /// ` material "..."; density ...;` and friction and restitution when not the defaults.
    fn look(&mut self, part: &PartModel, always_density: bool) -> Result<(), WriteError> {
        let _ = write!(self.out, " material {};", string(&part.material.name)?);
        if always_density || part.density != crate::interp::DEFAULT_DENSITY {
            let _ = write!(self.out, " density {};", real(part.density));
        }
        if part.friction != crate::interp::DEFAULT_FRICTION {
            let _ = write!(self.out, " friction {};", real(part.friction));
        }
        if part.restitution != crate::interp::DEFAULT_RESTITUTION {
            let _ = write!(self.out, " restitution {};", real(part.restitution));
        }
        Ok(())
    }

    fn joint(&mut self, index: usize, depth: usize) -> Result<(), WriteError> {
        self.joints_done[index] = true;
        let model = self.model;
        let joint = &model.joints[index];
        if joint.limits.is_some() {
            return Err(WriteError::Inexpressible {
                what: format!("the joint '{}'", joint.name),
                why: "its range is limited (from a URDF file)",
            });
        }
        // Anchors and axes are world coordinates read where the bodies stand when the
        // scene is inserted: carried by how each body moved since it was.
        let moved = |body: usize| self.poses[body].compose(&model.bodies[body].pose.inverse());
        let (first, second) = (moved(joint.body1), moved(joint.body2));
        let anchor = |a: &[f32; 3]| format!(" anchor({});", point(first.transform_point(*a)));
        let axis =
            |word: &str, a: &[f32; 3], by: &Pose| format!(" {word}({});", direction(unit(by.transform_direction(*a))));
        let settings = match &joint.kind {
            JointKind::Hinge { anchor: a, axis: x, .. } | JointKind::Piston { anchor: a, axis: x } => {
                anchor(a) + &axis("axis", x, &first)
            }
            JointKind::Planar { anchor: a, axis: x } => anchor(a) + &axis("axis", x, &first),
            JointKind::Ball { anchor: a } => anchor(a),
            JointKind::Slider { axis: x } => axis("axis", x, &first),
            // The second axis turns with the second body (a cardan's, a wheel's spin).
            JointKind::Universal { anchor: a, axis: x, axis2 } | JointKind::Hinge2 { anchor: a, axis: x, axis2 } => {
                anchor(a) + &axis("axis", x, &first) + &axis("axis2", axis2, &second)
            }
            JointKind::PrismaticRotoide { anchor: a, axis: x, axis2 }
            | JointKind::PrismaticUniversal { anchor: a, axis: x, axis2 } => {
                anchor(a) + &axis("axis", x, &first) + &axis("axis2", axis2, &first)
            }
            JointKind::Fixed => String::new(),
        };
        let mut block = settings;
        if let Some(erp) = joint.erp {
            let _ = write!(block, " erp {};", real(erp));
        }
        if let Some(cfm) = joint.cfm {
            let _ = write!(block, " cfm {};", real(cfm));
        }
        if joint.bodies_touch {
            block.push_str(" collide true;");
        }
        let indent = pad(depth);
        let _ = write!(
            self.out,
            "{indent}{}({}, {})",
            joint.kind.language_name(),
            name(&model.bodies[joint.body1].name)?,
            name(&model.bodies[joint.body2].name)?
        );
        let devices: Vec<&DeviceModel> = self.devices_on(Mount::Joint(index)).collect();
        if devices.is_empty() && block.is_empty() {
            self.out.push_str(";\n");
        } else if devices.is_empty() {
            let _ = writeln!(self.out, " {{{block} }}");
        } else {
            let _ = writeln!(self.out, " {{{block}");
            for device in devices {
                self.device(device, depth + 1)?;
            }
            let _ = writeln!(self.out, "{indent}}}");
        }
        Ok(())
    }

    fn device(&mut self, device: &DeviceModel, depth: usize) -> Result<(), WriteError> {
        let _ = write!(self.out, "{}{} {}", pad(depth), device.kind, name(&device.name)?);
        if device.params.is_empty() {
            self.out.push_str(";\n");
            return Ok(());
        }
        self.out.push_str(" {");
        for (key, value) in &device.params {
            let value = match value {
                ParamValue::Num(n) => format!(" {}", wide(*n)),
                ParamValue::Str(s) => format!(" {}", string(s)?),
                ParamValue::Bool(b) => format!(" {b}"),
                ParamValue::Nums(ns) => format!("({})", ns.iter().map(|n| wide(*n)).collect::<Vec<_>>().join(", ")),
            };
            let _ = write!(self.out, " {key}{value};");
        }
        self.out.push_str(" }\n");
        Ok(())
    }
}

/// A primitive shape as the language writes it (full sizes, where the model keeps halves).
fn primitive(shape: &Shape) -> Option<String> {
    Some(match shape {
        Shape::Box { half_extents: [x, y, z] } => {
            format!("box({}, {}, {})", real(2.0 * x), real(2.0 * y), real(2.0 * z))
        }
        Shape::Sphere { radius } => format!("sphere({})", real(*radius)),
        Shape::Cylinder { radius, half_length } => format!("cylinder({}, {})", real(*radius), real(2.0 * half_length)),
        Shape::Capsule { radius, half_length } => format!("capsule({}, {})", real(*radius), real(2.0 * half_length)),
        Shape::ConvexHull { .. } => return None,
    })
}

fn is_identity(pose: &Pose) -> bool {
    point(pose.position) == "0, 0, 0" && is_identity_rotation(pose)
}

/// Whether a rotation writes as no rotation at all.
fn is_identity_rotation(pose: &Pose) -> bool {
    pose.rotation[..3].iter().all(|c| fixed(f64::from(*c), ROTATION_DECIMALS) == "0")
}

/// `v` at length 1 (an axis the model may keep at any length); `v` itself if it has none.
fn unit(v: [f32; 3]) -> [f32; 3] {
    let length = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if length > 0.0 { v.map(|c| c / length) } else { v }
}

fn pad(depth: usize) -> String {
    "  ".repeat(depth)
}
