//! `urdf "file.urdf" { ... }` in a robot's body: the URDF robot's links become bodies
//! named `<robot>_<link>`, its joints joints named `<robot>_<joint>`, its Gazebo
//! extensions devices; the block places it and adds devices to its links and joints.

use super::super::{IResult, Interp, misplaced};
use super::{Ctx, JointBuilder, PendingDevice, Target};
use crate::ast::{Expr, JointType, ObjectKind, Stmt};
use crate::error::{ErrorKind, LangError, Position};
use crate::model::{BodyModel, JointKind, Motion, MotorModel, ParamValue, Pose};
use crate::urdf::{DeviceOn, import};

/// A `urdf` block while it runs.
pub(in crate::interp) struct UrdfBlock {
    /// Where the URDF's root link goes (its `base_footprint` on the floor at `pos`).
    pub pose: Pose,
    /// `name { devices }` blocks: a link or joint of the file and the devices put on it.
    mounts: Vec<(String, Position, Vec<PendingDevice>)>,
}

impl Interp<'_> {
    /// Runs a `urdf` statement.
    pub(in crate::interp) fn urdf(&mut self, file: &Expr, body: &[Stmt], pos: &Position) -> IResult<()> {
        if !matches!(self.builder.stack.last(), Some(Ctx::RobotBody)) {
            return Err(misplaced(pos, "urdf \"...\" belongs directly inside a robot's body { ... }"));
        }
        let name = self.string(file, "the URDF file's name")?.to_string();
        let path = crate::loader::resolve_path(&pos.file, &name).map_err(|why| {
            LangError::new(file.pos.clone(), ErrorKind::Include(format!("cannot use the URDF file '{name}': {why}")))
        })?;
        let block = UrdfBlock { pose: Pose::IDENTITY, mounts: vec![] };
        let Ctx::Urdf(block) = self.run_in(Ctx::Urdf(Box::new(block)), body)? else { unreachable!() };
        let text = self.loader.load(&path).map_err(|e| {
            LangError::new(file.pos.clone(), ErrorKind::Include(format!("cannot read the URDF file '{name}': {e}")))
        })?;
        let robot_name = self.builder.robot().expect("a robot body is inside a robot");
        let keep: Vec<String> = block
            .mounts
            .iter()
            .filter(|(_, _, devices)| devices.iter().any(|d| crate::urdf::SEES_FROM_ITS_PLACE.contains(&d.spec.name)))
            .map(|(n, _, _)| n.clone())
            .collect();
        let imported = import(&text, &path, self.loader, &block.pose, &keep)?;
        for warning in imported.warnings.iter().cloned() {
            self.warnings.push(warning);
        }
        let prefixed = |name: &str| format!("{robot_name}_{name}");

        // Devices by where they go: the file's, then the block's.
        let mut on_body: Vec<Vec<PendingDevice>> = imported.bodies.iter().map(|_| Vec::new()).collect();
        let mut on_joint: Vec<Vec<PendingDevice>> = imported.joints.iter().map(|_| Vec::new()).collect();
        for device in &imported.devices {
            let spec = crate::catalogue::lookup(device.kind).expect("the import maps onto the catalogue");
            for (key, value) in &device.params {
                if let ParamValue::Num(n) = value {
                    crate::model::check_magnitude(&format!("'{key}' of {}", device.name), *n)
                        .map_err(|m| LangError::new(device.pos.clone(), ErrorKind::Value(m)))?;
                }
            }
            self.count_element(&device.pos)?;
            let pending = self.pending(spec, &device.name, device.params.clone(), &device.pos)?;
            match device.mount {
                DeviceOn::Body(b) => on_body[b].push(pending),
                DeviceOn::Joint(j) => on_joint[j].push(pending),
                DeviceOn::Robot => self.builder.push_device(pending, crate::model::Mount::Robot),
            }
        }
        for (name, at, devices) in block.mounts {
            if let Some(b) = imported.body_of(&name) {
                for d in &devices {
                    if d.spec.placement == crate::catalogue::Placement::Joint {
                        return Err(misplaced(
                            &at,
                            &format!("the {} '{}' works on a joint, and '{name}' is a link", d.spec.name, d.name),
                        ));
                    }
                }
                on_body[b].extend(devices);
            } else if let Some(j) = imported.joints.iter().position(|j| j.name == name) {
                for d in &devices {
                    if d.spec.placement != crate::catalogue::Placement::Joint {
                        return Err(misplaced(
                            &at,
                            &format!("the {} '{}' sits on a link, and '{name}' is a joint", d.spec.name, d.name),
                        ));
                    }
                }
                on_joint[j].extend(devices);
            } else {
                return Err(LangError::new(
                    at,
                    ErrorKind::UnknownObject { name, context: format!("the URDF file '{path}' (a link or joint)") },
                ));
            }
        }

        // Bodies, then joints (resolved by name when the scene ends, like any joint).
        for (body, devices) in imported.bodies.iter().zip(on_body) {
            self.count_element(&body.pos)?;
            let name = prefixed(&body.links[0]);
            self.builder.claim(&name, &body.pos, Target::Pending)?;
            let aliases: Vec<String> = body.links[1..].iter().map(|l| prefixed(l)).collect();
            for alias in &aliases {
                self.builder.claim(alias, &body.pos, Target::Pending)?;
            }
            let model = BodyModel {
                name,
                motion: Motion::Dynamic,
                pose: body.pose,
                parts: body.parts.clone(),
                robot: Some(robot_name.clone()),
                owner: None,
            };
            self.builder.add_body(model, devices, &aliases);
        }
        for (joint, devices) in imported.joints.iter().zip(on_joint) {
            self.count_element(&joint.pos)?;
            let name = prefixed(&joint.name);
            self.builder.claim(&name, &joint.pos, Target::Joint)?;
            let motor = devices.iter().find(|d| d.spec.name == "SimpleMotor").map(|d| MotorModel {
                target_velocity: num(d, "speed").unwrap_or(0.0),
                max_force: num(d, "max_force").unwrap_or(super::DEFAULT_MOTOR_MAX_FORCE),
            });
            let actuators = devices.iter().filter(|d| d.spec.class == crate::catalogue::DeviceClass::Actuator).count();
            if actuators > 1 {
                return Err(LangError::new(
                    joint.pos.clone(),
                    ErrorKind::Duplicate(format!(
                        "joint '{}' is given {actuators} actuators: a joint takes one",
                        joint.name
                    )),
                ));
            }
            let (kind, anchor, axis) = match joint.kind {
                JointKind::Hinge { anchor, axis, .. } => (JointType::Hinge, Some(anchor), Some(axis)),
                JointKind::Slider { axis } => (JointType::Slider, None, Some(axis)),
                JointKind::Ball { anchor } => (JointType::Ball, Some(anchor), None),
                JointKind::Planar { anchor, axis } => (JointType::Planar, Some(anchor), Some(axis)),
                _ => (JointType::Fixed, None, None),
            };
            let ends = |b: usize| (prefixed(&imported.bodies[b].links[0]), joint.pos.clone());
            self.builder.joints.push(JointBuilder {
                kind,
                first: ends(joint.parent),
                second: ends(joint.child),
                pos: joint.pos.clone(),
                anchor,
                axis,
                axis2: None,
                erp: None,
                cfm: None,
                motor: if kind == JointType::Hinge { motor } else { None },
                devices,
                name: Some(name),
                limits: joint.limits,
                bodies_touch: false,
            });
        }
        Ok(())
    }

    /// A device of the imported robot, its name checked unique in the robot.
    fn pending(
        &mut self,
        spec: &'static crate::catalogue::DeviceSpec,
        name: &str,
        params: Vec<(String, ParamValue)>,
        pos: &Position,
    ) -> IResult<PendingDevice> {
        self.within_limits(spec, &params, pos)?;
        let robot = self.builder.robot();
        if !self.builder.device_names.insert((robot.clone(), name.to_owned())) {
            return Err(LangError::new(
                pos.clone(),
                ErrorKind::Duplicate(format!("the robot already has a sensor or actuator named '{name}'")),
            ));
        }
        Ok(PendingDevice { spec, name: name.to_owned(), robot, params })
    }

    /// `name { devices }` inside a `urdf` block: devices for the link or joint `name`.
    pub(in crate::interp) fn urdf_mount(
        &mut self,
        kind: ObjectKind,
        is_static: bool,
        name: String,
        body: &[Stmt],
        pos: &Position,
    ) -> IResult<()> {
        if kind != ObjectKind::Plain || is_static {
            return Err(misplaced(
                pos,
                "inside urdf { ... } a block names a link or joint of the file: link_name { devices }",
            ));
        }
        let Ctx::UrdfMount(name, devices) = self.run_in(Ctx::UrdfMount(name, vec![]), body)? else { unreachable!() };
        let Some(Ctx::Urdf(block)) = self.builder.stack.last_mut() else { unreachable!("checked by the caller") };
        block.mounts.push((name, pos.clone(), devices));
        Ok(())
    }
}

fn num(device: &PendingDevice, key: &str) -> Option<f32> {
    device.params.iter().find(|(k, _)| k == key).and_then(|(_, v)| match v {
        ParamValue::Num(n) => Some(*n as f32),
        _ => None,
    })
}
