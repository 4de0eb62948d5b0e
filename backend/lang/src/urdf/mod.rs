//! A URDF robot as bodies, joints and devices of the scene model (docs/urdf.md).
//!
//! The file is read twice: as an XML tree (`roxmltree`: well-formedness, xacro, every
//! element's line, the Gazebo extensions) and as a typed URDF robot (`urdf-rs`: links,
//! joints, materials). Links joined by fixed joints become one body (as Gazebo does),
//! unless a sensor sits on the child; every other joint becomes a joint of the model.
//! A xacro file is expanded first (`xacro`), its args at their defaults, and the URDF it
//! writes is read with every line pointing back into the xacro sources.
//! Nothing is read from disk: meshes and included files come through the [`SourceLoader`].

mod check;
mod frames;
mod gazebo;
mod geometry;
pub mod xacro;
mod xml;

use std::collections::{HashMap, HashSet, VecDeque};

use crate::error::{LangError, Position, Warning};
use crate::loader::SourceLoader;
use crate::model::{JointKind, Material, ParamValue, PartModel, Pose, Shape};

/// A URDF robot, converted.
#[derive(Clone, Debug)]
pub struct UrdfRobot {
    /// `<robot name>`.
    pub name: String,
    /// Its bodies, the root link's first.
    pub bodies: Vec<LinkBody>,
    /// Its joints (fixed joints merged away are not here).
    pub joints: Vec<UrdfJoint>,
    /// Devices its Gazebo extensions declare.
    pub devices: Vec<UrdfDevice>,
    /// Problems that did not stop the import.
    pub warnings: Vec<Warning>,
}

/// One body: a link and the links fixed to it.
#[derive(Clone, Debug)]
pub struct LinkBody {
    /// The links it is made of, its own first.
    pub links: Vec<String>,
    /// Its pose in the world.
    pub pose: Pose,
    /// Its parts.
    pub parts: Vec<PartModel>,
    /// Its `<link>` element.
    pub pos: Position,
}

/// One joint between two bodies of [`UrdfRobot::bodies`].
#[derive(Clone, Debug)]
pub struct UrdfJoint {
    /// `<joint name>`.
    pub name: String,
    /// Index of the parent link's body.
    pub parent: usize,
    /// Index of the child link's body.
    pub child: usize,
    /// What it allows, anchors and axes in the world.
    pub kind: JointKind,
    /// `<limit lower upper>` of a revolute or prismatic joint.
    pub limits: Option<[f32; 2]>,
    /// Its `<joint>` element.
    pub pos: Position,
}

/// A device declared by the file's Gazebo extensions.
#[derive(Clone, Debug)]
pub struct UrdfDevice {
    /// The catalogue's spelling.
    pub kind: &'static str,
    /// Its name in the robot.
    pub name: String,
    /// What it sits on.
    pub mount: DeviceOn,
    /// Its parameters.
    pub params: Vec<(String, ParamValue)>,
    /// The element that declared it.
    pub pos: Position,
}

/// Where an imported device sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceOn {
    /// A body, by index in [`UrdfRobot::bodies`].
    Body(usize),
    /// A joint, by index in [`UrdfRobot::joints`].
    Joint(usize),
    /// The robot as a whole.
    Robot,
}

impl UrdfRobot {
    /// The index of the body that link `link` became part of.
    pub fn body_of(&self, link: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.links.iter().any(|l| l == link))
    }
}

/// Radius of the sphere a link with no geometry of its own is given, metres.
const BARE_LINK_RADIUS: f32 = 0.01;

/// Devices that see from where they sit: a link carrying one stays a body of its own,
/// so that it looks from the link's place rather than from the body it is fixed to.
pub const SEES_FROM_ITS_PLACE: [&str; 6] = ["Lidar", "Camera", "DepthCamera", "LaserDistance", "Sonar", "Infrared"];

/// Imports the URDF `text` (the library file `file`), its root link placed at
/// `placement` in the world; the links named in `keep` stay bodies of their own (a
/// sensor that [`SEES_FROM_ITS_PLACE`] will sit on them), unless their parent is a
/// root link without geometry (`base_footprint`), which then joins them instead.
pub fn import(
    text: &str,
    file: &str,
    loader: &dyn SourceLoader,
    placement: &Pose,
    keep: &[String],
) -> Result<UrdfRobot, LangError> {
    let expanded = if xacro::is_xacro(text) {
        Some(xacro::expand(text, file, loader, &xacro::XacroArgs::new(), xacro::Limits::default())?)
    } else {
        None
    };
    let (text, sources) = match &expanded {
        Some(written) => (written.text.as_str(), Some(written.lines.clone())),
        None => (text, None),
    };
    let doc = xml::read(text, file, sources)?;
    check::elements(&doc)?;
    let mut robot = urdf_rs::read_from_string(text)
        .map_err(|e| doc.error(doc.doc.root_element(), format!("the URDF does not read: {e}")))?;
    let mut warnings = Vec::new();
    let mut declared = gazebo::devices(&doc, &mut warnings);
    mount_offset_sensors(&mut robot, &mut declared, &mut warnings);
    let frictions = gazebo::frictions(&doc);

    // The tree: one parent per link, one root.
    let link_index: HashMap<&str, usize> = robot.links.iter().enumerate().map(|(i, l)| (l.name.as_str(), i)).collect();
    let mut parent_joint: Vec<Option<usize>> = vec![None; robot.links.len()];
    let mut children: Vec<Vec<usize>> = vec![vec![]; robot.links.len()];
    for (j, joint) in robot.joints.iter().enumerate() {
        let at = || doc.pos_of("joint", &joint.name);
        let find = |name: &str, role: &str| {
            link_index.get(name).copied().ok_or_else(|| {
                LangError::new(
                    at(),
                    crate::error::ErrorKind::UnknownObject {
                        name: name.to_owned(),
                        context: format!("the {role} of joint '{}'", joint.name),
                    },
                )
            })
        };
        let parent = find(&joint.parent.link, "parent")?;
        let child = find(&joint.child.link, "child")?;
        if parent_joint[child].is_some() {
            return Err(value_error(at(), format!("the link '{}' has two parent joints", joint.child.link)));
        }
        parent_joint[child] = Some(j);
        children[parent].push(j);
    }
    let roots: Vec<usize> = (0..robot.links.len()).filter(|&i| parent_joint[i].is_none()).collect();
    let root = match roots.as_slice() {
        [root] => *root,
        [] => return Err(doc.error(doc.doc.root_element(), "the joints make a loop: a URDF robot is a tree".into())),
        [a, b, ..] => {
            return Err(value_error(
                doc.pos_of("link", &robot.links[*b].name),
                format!(
                    "the links '{}' and '{}' both have no parent joint: a URDF robot is one tree",
                    robot.links[*a].name, robot.links[*b].name
                ),
            ));
        }
    };

    // Poses from the root, in tree order, and which body each link joins.
    let mut keep: HashSet<&str> = keep.iter().map(String::as_str).collect();
    for device in &declared {
        if let gazebo::On::Link(link) = &device.on
            && SEES_FROM_ITS_PLACE.contains(&device.kind)
        {
            keep.insert(link);
        }
    }
    let bare = |l: usize| robot.links[l].visual.is_empty() && robot.links[l].collision.is_empty();
    let mut root_from: Vec<Pose> = vec![Pose::IDENTITY; robot.links.len()];
    let mut body_link: Vec<usize> = (0..robot.links.len()).collect();
    let mut order = Vec::new();
    let mut queue = VecDeque::from([root]);
    while let Some(link) = queue.pop_front() {
        order.push(link);
        for &j in &children[link] {
            let joint = &robot.joints[j];
            let child = link_index[joint.child.link.as_str()];
            root_from[child] = root_from[link].compose(&frames::origin(&joint.origin));
            let kept = keep.contains(joint.child.link.as_str()) && !(link == root && bare(root));
            if joint.joint_type == urdf_rs::JointType::Fixed && !kept {
                body_link[child] = body_link[link];
            }
            queue.push_back(child);
        }
    }

    let mut visited = vec![false; robot.links.len()];
    order.iter().for_each(|&l| visited[l] = true);
    if let Some(lost) = visited.iter().position(|v| !v) {
        return Err(value_error(
            doc.pos_of("link", &robot.links[lost].name),
            format!("the link '{}' hangs in a loop of joints: a URDF robot is a tree", robot.links[lost].name),
        ));
    }

    // Bodies.
    let materials: HashMap<String, Material> = robot
        .materials
        .iter()
        .filter_map(|m| m.color.as_ref().map(|c| (m.name.clone(), geometry::rgba(&m.name, c.rgba.0))))
        .collect();
    let mut bodies: Vec<LinkBody> = Vec::new();
    let mut body_index: Vec<usize> = vec![usize::MAX; robot.links.len()];
    for &link in &order {
        let base = body_link[link];
        if base == link {
            body_index[link] = bodies.len();
            bodies.push(LinkBody {
                links: vec![],
                pose: frames::body_pose(placement, &root_from[link]),
                parts: vec![],
                pos: doc.pos_of("link", &robot.links[link].name),
            });
        }
        let body = body_index[base];
        body_index[link] = body;
        let body_link_from_link = root_from[base].inverse().compose(&root_from[link]);
        let mut geometry = geometry::LinkGeometry {
            loader,
            file,
            pos: doc.pos_of("link", &robot.links[link].name),
            materials: &materials,
            warnings: &mut warnings,
        };
        let mut parts = geometry.parts(&robot.links[link], &body_link_from_link);
        if let Some(mu) = frictions.get(&robot.links[link].name) {
            parts.iter_mut().for_each(|p| p.friction = *mu);
        }
        bodies[body].links.push(robot.links[link].name.clone());
        bodies[body].parts.extend(parts);
    }
    for body in &mut bodies {
        if body.parts.iter().all(|p| p.drawn_only) {
            body.parts.push(PartModel {
                shape: Shape::Sphere { radius: BARE_LINK_RADIUS },
                local: Pose::IDENTITY,
                material: crate::model::Palette::default().get("Grey"),
                density: geometry::DEFAULT_DENSITY,
                friction: 0.5,
                restitution: 0.1,
                name: None,
                mesh: None,
                drawn_only: false,
            });
        }
    }

    // Joints.
    let mut joints = Vec::new();
    for &link in &order {
        let Some(j) = parent_joint[link] else { continue };
        let joint = &robot.joints[j];
        if body_link[link] != link {
            continue;
        }
        let pos = doc.pos_of("joint", &joint.name);
        let world_from_link = placement.compose(&frames::to_vlab()).compose(&root_from[link]);
        let anchor = world_from_link.position;
        let axis = frames::direction(&world_from_link, joint.axis.xyz.0);
        let moving = !matches!(joint.joint_type, urdf_rs::JointType::Fixed | urdf_rs::JointType::Floating);
        if moving && axis.iter().all(|c| c.abs() < 1e-9) {
            return Err(value_error(pos, format!("the axis of joint '{}' is (0, 0, 0)", joint.name)));
        }
        let limit = &joint.limit;
        let limits = || -> Result<Option<[f32; 2]>, LangError> {
            if !(limit.lower.is_finite() && limit.upper.is_finite()) {
                return Ok(None);
            }
            if limit.lower > limit.upper {
                return Err(value_error(
                    pos.clone(),
                    format!(
                        "joint '{}' has lower limit {} above its upper limit {}",
                        joint.name, limit.lower, limit.upper
                    ),
                ));
            }
            Ok(Some([limit.lower as f32, limit.upper as f32]))
        };
        // A URDF joint moves the child (body 2) relative to the parent (body 1) along its
        // axis; a VLab joint's coordinate is body 1's relative to body 2, as in ODE. The
        // axis reversed keeps the URDF's positions, limits and speeds as written.
        let reversed = axis.map(|c| -c);
        let (kind, limits) = match joint.joint_type {
            urdf_rs::JointType::Revolute => (JointKind::Hinge { anchor, axis: reversed, motor: None }, limits()?),
            urdf_rs::JointType::Continuous => (JointKind::Hinge { anchor, axis: reversed, motor: None }, None),
            urdf_rs::JointType::Prismatic => (JointKind::Slider { axis: reversed }, limits()?),
            urdf_rs::JointType::Fixed => (JointKind::Fixed, None),
            urdf_rs::JointType::Spherical => (JointKind::Ball { anchor }, None),
            urdf_rs::JointType::Floating => continue,
            // The URDF axis of a planar joint is the plane's normal.
            urdf_rs::JointType::Planar => (JointKind::Planar { anchor, axis }, None),
        };
        if joint.mimic.is_some() {
            warnings.push(Warning {
                pos: pos.clone(),
                message: format!("joint '{}' moves on its own: <mimic> is not followed", joint.name),
            });
        }
        joints.push(UrdfJoint {
            name: joint.name.clone(),
            parent: body_index[link_index[joint.parent.link.as_str()]],
            child: body_index[link],
            kind,
            limits,
            pos,
        });
    }

    // Devices.
    let mut devices = Vec::new();
    for device in declared {
        let mount = match &device.on {
            gazebo::On::Robot => DeviceOn::Robot,
            gazebo::On::Link(link) => match link_index.get(link.as_str()) {
                Some(&l) => DeviceOn::Body(body_index[l]),
                None => {
                    return Err(value_error(
                        device.pos,
                        format!(
                            "the {} '{}' sits on the link '{link}', which the file does not declare",
                            device.kind, device.name
                        ),
                    ));
                }
            },
            gazebo::On::Joint(name) => match joints.iter().position(|j| &j.name == name) {
                Some(j)
                    if !matches!(
                        joints[j].kind,
                        JointKind::Fixed | JointKind::Ball { .. } | JointKind::Planar { .. }
                    ) =>
                {
                    DeviceOn::Joint(j)
                }
                _ => {
                    return Err(value_error(
                        device.pos,
                        format!(
                            "the {} '{}' works on joint '{name}', which is not a moving joint of the file",
                            device.kind, device.name
                        ),
                    ));
                }
            },
        };
        devices.push(UrdfDevice {
            kind: device.kind,
            name: device.name,
            mount,
            params: device.params,
            pos: device.pos,
        });
    }
    Ok(UrdfRobot { name: robot.name, bodies, joints, devices, warnings })
}

/// Sensors that see from a `<pose>` off their link's origin get a link of their own
/// there (no geometry, fixed to theirs), as a URDF author would have written it; other
/// sensors measure their link's motion wherever they sit on it, so their pose is told
/// and left out.
fn mount_offset_sensors(robot: &mut urdf_rs::Robot, declared: &mut [gazebo::DeviceDecl], warnings: &mut Vec<Warning>) {
    for device in declared.iter_mut() {
        let (Some(offset), gazebo::On::Link(link)) = (device.offset.take(), &device.on) else { continue };
        if !SEES_FROM_ITS_PLACE.contains(&device.kind) {
            // An IMU is three devices from one element: one warning.
            if !warnings.iter().any(|w| w.pos == device.pos && w.message.contains("<pose>")) {
                warnings.push(Warning {
                    pos: device.pos.clone(),
                    message: format!(
                        "the sensor's <pose> is left out: its {} '{}' measures its link's motion wherever it sits on it",
                        device.kind, device.name
                    ),
                });
            }
            continue;
        }
        let mut mount = format!("{link}_{}", device.name);
        while robot.links.iter().any(|l| l.name == mount) {
            mount.push('_');
        }
        robot.links.push(urdf_rs::Link {
            name: mount.clone(),
            inertial: urdf_rs::Inertial::default(),
            visual: Vec::new(),
            collision: Vec::new(),
        });
        robot.joints.push(urdf_rs::Joint {
            name: format!("{mount}_joint"),
            joint_type: urdf_rs::JointType::Fixed,
            origin: offset,
            parent: urdf_rs::LinkName { link: link.clone() },
            child: urdf_rs::LinkName { link: mount.clone() },
            axis: urdf_rs::Axis::default(),
            limit: urdf_rs::JointLimit::default(),
            calibration: None,
            dynamics: None,
            mimic: None,
            safety_controller: None,
        });
        device.on = gazebo::On::Link(mount);
    }
}

fn value_error(pos: Position, message: String) -> LangError {
    LangError::new(pos, crate::error::ErrorKind::Value(message))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loader::NoFiles;

    const BOX: &str = "<collision><geometry><box size=\"0.1 0.1 0.1\"/></geometry></collision>";

    fn link(name: &str) -> String {
        format!("<link name=\"{name}\">{BOX}</link>\n")
    }

    fn joint(name: &str, kind: &str, parent: &str, child: &str) -> String {
        format!("<joint name=\"{name}\" type=\"{kind}\"><parent link=\"{parent}\"/><child link=\"{child}\"/></joint>\n")
    }

    fn import_text(body: &str) -> Result<UrdfRobot, LangError> {
        import(&format!("<robot name=\"r\">\n{body}</robot>"), "r.urdf", &NoFiles, &Pose::IDENTITY, &[])
    }

    #[test]
    fn a_loop_beside_the_tree_is_refused_at_its_place() {
        let looped = [link("a"), link("b"), link("c"), joint("j1", "fixed", "b", "c"), joint("j2", "fixed", "c", "b")];
        let e = import_text(&looped.concat()).unwrap_err();
        assert_eq!(e.pos.line, 3, "{e}");
        assert!(e.to_string().contains("loop"), "{e}");
    }

    #[test]
    fn a_planar_joint_keeps_its_axis_as_the_planes_normal() {
        let planar = format!(
            "{}{}<joint name=\"puck\" type=\"planar\"><parent link=\"a\"/><child link=\"b\"/>\
             <axis xyz=\"0 0 1\"/></joint>\n",
            link("a"),
            link("b")
        );
        let robot = import_text(&planar).unwrap();
        let puck = robot.joints.iter().find(|j| j.name == "puck").expect("the planar joint is imported");
        let JointKind::Planar { axis, .. } = puck.kind else { panic!("{:?}", puck.kind) };
        // URDF's z (up) is the scene's y.
        assert!((axis[1] - 1.0).abs() < 1e-6 && axis[0].abs() < 1e-6 && axis[2].abs() < 1e-6, "{axis:?}");
    }

    #[test]
    fn fixed_links_join_their_parent_and_moving_ones_get_joints() {
        let text =
            [link("a"), link("b"), link("c"), joint("weld", "fixed", "a", "b"), joint("hinge", "continuous", "b", "c")];
        let robot = import_text(&text.concat()).unwrap();
        let links: Vec<Vec<String>> = robot.bodies.iter().map(|b| b.links.clone()).collect();
        assert_eq!(links, [vec!["a".to_owned(), "b".to_owned()], vec!["c".to_owned()]]);
        assert_eq!(robot.joints.len(), 1);
        assert_eq!((robot.joints[0].parent, robot.joints[0].child), (0, 1));
        assert_eq!(robot.bodies[0].parts.len(), 2, "b's box is a part of a's body");
    }

    #[test]
    fn a_sensor_posed_off_its_link_sees_from_a_link_of_its_own_there() {
        let text = format!(
            "{}<gazebo reference=\"a\"><sensor type=\"ray\" name=\"lds\"><pose>0.1 0 0.2 0 0 0</pose></sensor>\n\
             <sensor type=\"imu\" name=\"imu\"><pose>0 0 0.05 0 0 0</pose></sensor></gazebo>\n",
            link("a")
        );
        let robot = import_text(&text).unwrap();
        assert_eq!(robot.bodies.len(), 2, "the lidar's mount is a body of its own");
        assert_eq!(robot.bodies[1].links, ["a_lds"]);
        let lidar = robot.devices.iter().find(|d| d.name == "lds").unwrap();
        assert_eq!(lidar.mount, DeviceOn::Body(1));
        // ROS's z (up) is VLab's y: 0.1 m ahead and 0.2 m above the link's origin.
        let [from, to] = [0, 1].map(|b| robot.bodies[b].pose.position);
        let offset: Vec<f32> = (0..3).map(|i| to[i] - from[i]).collect();
        assert!(
            (offset[0] - 0.1).abs() < 1e-6 && (offset[1] - 0.2).abs() < 1e-6 && offset[2].abs() < 1e-6,
            "{offset:?}"
        );
        assert_eq!(robot.joints.len(), 1);
        assert!(matches!(robot.joints[0].kind, JointKind::Fixed), "{:?}", robot.joints[0].kind);
        // The IMU measures its link's motion: its pose is told and left out.
        let imu = robot.devices.iter().find(|d| d.name == "imu_gyro").unwrap();
        assert_eq!(imu.mount, DeviceOn::Body(0));
        assert_eq!(robot.warnings.len(), 1, "one warning for the IMU's three devices: {:?}", robot.warnings);
        assert!(robot.warnings.iter().all(|w| w.message.contains("<pose>") && w.pos.line == 4), "{:?}", robot.warnings);
    }
}
