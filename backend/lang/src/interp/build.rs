//! Element statements → the scene model: objects, composed objects, containers, joints,
//! robots, sensors, actuators, the environment and the challenge, with their names checked.
//!
//! While a block runs, the element it declares sits on a context stack; property
//! statements (`pos`, `shape`, `anchor`, ...) apply to the innermost element that takes
//! them, and the element is added to the model when its block ends.

use std::collections::{HashMap, HashSet};

use vlab_protocol::pose::{axis_angle, multiply};

use super::{Flow, IResult, Interp, misplaced, type_error};
use crate::ast::{
    JointType, Name, ObjectKind, Param, ScalarProp, ShapeKind, ShapeSpec, Stmt, StmtKind, Type, VectorProp,
};
use crate::catalogue::{DeviceClass, DeviceSpec, ParamType, Placement};
use crate::error::{ErrorKind, LangError, Position};
use crate::model::{
    BodyModel, DeviceModel, EnvironmentKind, EnvironmentModel, GroupModel, JointKind, JointModel, Material, MeshRef,
    Motion, MotorModel, Mount, Palette, ParamValue, PartModel, Pose, ProgramRate, ProgramRef, RobotModel, SceneModel,
    Shape, environment_bodies, room_size,
};
use crate::project::read_project;

mod challenge;
mod urdf;

/// Defaults for what a scene leaves unsaid.
pub(crate) const DEFAULT_DENSITY: f32 = 1000.0;
pub(crate) const DEFAULT_FRICTION: f32 = 0.5;
pub(crate) const DEFAULT_RESTITUTION: f32 = 0.1;
const DEFAULT_MOTOR_MAX_FORCE: f32 = 10.0;

/// What a name in the lab stands for.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Target {
    /// A body (plain object, composed object or a member of one), by index.
    Body(usize),
    /// Declared, its body not built yet (its block is still running).
    Pending,
    Container,
    Robot,
    Joint,
}

struct PendingDevice {
    spec: &'static DeviceSpec,
    name: String,
    robot: Option<String>,
    params: Vec<(String, ParamValue)>,
}

#[derive(Default)]
struct Look {
    material: Option<Material>,
    density: Option<f32>,
    friction: Option<f32>,
    restitution: Option<f32>,
}

struct ObjectBuilder {
    name: String,
    pos: Position,
    is_static: bool,
    pose: Pose,
    shape: Option<Shape>,
    mesh: Option<MeshRef>,
    custom: Option<Shape>,
    look: Look,
    devices: Vec<PendingDevice>,
}

struct ComposedBuilder {
    name: String,
    pos: Position,
    is_static: bool,
    pose: Pose,
    look: Look,
    parts: Vec<PartModel>,
    /// Whether each part's file gave its density (or the composed object's).
    density_given: Vec<bool>,
    devices: Vec<PendingDevice>,
    /// Names of composed objects nested in this one: they address this body too.
    aliases: Vec<String>,
}

struct JointBuilder {
    kind: JointType,
    first: (String, Position),
    second: (String, Position),
    pos: Position,
    anchor: Option<[f32; 3]>,
    axis: Option<[f32; 3]>,
    axis2: Option<[f32; 3]>,
    erp: Option<f32>,
    cfm: Option<f32>,
    motor: Option<MotorModel>,
    devices: Vec<PendingDevice>,
    /// Its own name (an imported URDF joint), else `first-second`.
    name: Option<String>,
    /// Range of its coordinate (an imported URDF joint's `<limit>`).
    limits: Option<[f32; 2]>,
    /// Whether its two bodies collide (`collide true;`; never for imported URDF joints).
    bodies_touch: bool,
}

struct EnvBuilder {
    room: bool,
    pos: Position,
    width: f32,
    length: f32,
    height: f32,
    materials: [Option<(String, Position)>; 4],
    gravity: Option<f32>,
    erp: Option<f32>,
    cfm: Option<f32>,
}

struct RobotBuilder {
    name: String,
    pos: Position,
    program: Option<(String, Position)>,
    rate: Option<ProgramRate>,
    main_body: Option<usize>,
}

enum Ctx {
    Env(EnvBuilder),
    Object(ObjectBuilder),
    Composed(ComposedBuilder),
    Container(String, Vec<String>),
    Joint(Box<JointBuilder>),
    Robot(RobotBuilder),
    RobotBody,
    /// `urdf "file" { ... }`: its placement and the devices put on its links and joints.
    Urdf(Box<urdf::UrdfBlock>),
    /// `link_or_joint { devices }` inside a `urdf` block.
    UrdfMount(String, Vec<PendingDevice>),
    /// `challenge "title" { ... }`.
    Challenge(Box<challenge::ChallengeBuilder>),
    /// `zone name { ... }` inside a challenge.
    Zone(challenge::ZoneBuilder),
    /// `start { ... }` inside a challenge.
    Start(challenge::StartBuilder),
}

/// The model under construction.
pub(super) struct Builder {
    model: SceneModel,
    palette: Palette,
    names: HashMap<String, (Target, Position)>,
    device_names: HashSet<(Option<String>, String)>,
    /// Camera rays per second of simulation time declared so far, by robot (the
    /// catalogue's per-robot budget).
    camera_rays: HashMap<Option<String>, f64>,
    stack: Vec<Ctx>,
    joints: Vec<JointBuilder>,
    elements: usize,
    /// Device parameters naming other devices, checked once everything is declared.
    references: Vec<Reference>,
    /// The scene's challenge, its names resolved once everything is declared.
    challenge: Option<challenge::ChallengeBuilder>,
}

struct Reference {
    robot: Option<String>,
    device: &'static str,
    param: String,
    target: String,
    wanted: &'static str,
    pos: Position,
}

impl Builder {
    pub(super) fn new() -> Builder {
        Builder {
            model: SceneModel::empty(),
            palette: Palette::default(),
            names: HashMap::new(),
            device_names: HashSet::new(),
            camera_rays: HashMap::new(),
            stack: Vec::new(),
            joints: Vec::new(),
            elements: 0,
            references: Vec::new(),
            challenge: None,
        }
    }

    fn robot(&self) -> Option<String> {
        self.stack.iter().rev().find_map(|c| match c {
            Ctx::Robot(r) => Some(r.name.clone()),
            _ => None,
        })
    }

    fn claim(&mut self, name: &str, pos: &Position, target: Target) -> IResult<()> {
        if let Some((_, first)) = self.names.get(name) {
            return Err(LangError::new(
                pos.clone(),
                ErrorKind::Duplicate(format!("the name '{name}' is already used at {first}")),
            ));
        }
        self.names.insert(name.to_owned(), (target, pos.clone()));
        Ok(())
    }

    /// Adds a body, attaching its devices and telling its robot and container.
    fn add_body(&mut self, body: BodyModel, devices: Vec<PendingDevice>, member_names: &[String]) -> usize {
        let index = self.model.bodies.len();
        for name in member_names.iter().chain(std::iter::once(&body.name)) {
            if let Some(entry) = self.names.get_mut(name) {
                entry.0 = Target::Body(index);
            }
        }
        if let Some(Ctx::Container(_, members)) = self.stack.last_mut() {
            members.push(body.name.clone());
        }
        for ctx in self.stack.iter_mut().rev() {
            if let Ctx::Robot(robot) = ctx {
                robot.main_body.get_or_insert(index);
                break;
            }
        }
        self.model.bodies.push(body);
        for device in devices {
            self.push_device(device, Mount::Body(index));
        }
        index
    }

    fn push_device(&mut self, device: PendingDevice, mount: Mount) {
        let model = DeviceModel {
            name: device.name,
            kind: device.spec.name.to_owned(),
            robot: device.robot,
            mount,
            params: device.params,
        };
        match device.spec.class {
            DeviceClass::Sensor => self.model.sensors.push(model),
            DeviceClass::Actuator => self.model.actuators.push(model),
            DeviceClass::Landmark => self.model.beacons.push(model),
        }
    }

    /// Resolves the joints (objects may be declared after the joints that use them) and
    /// returns the finished model.
    pub(super) fn finish(mut self) -> IResult<SceneModel> {
        let joints = std::mem::take(&mut self.joints);
        for (index, joint) in joints.into_iter().enumerate() {
            let body1 = self.resolve(&joint.first, joint.kind)?;
            let body2 = self.resolve(&joint.second, joint.kind)?;
            if body1 == body2 {
                return Err(LangError::new(
                    joint.pos.clone(),
                    ErrorKind::Value(format!(
                        "{} joins '{}' and '{}', which are the same rigid body: a joint needs two",
                        joint.kind.name(),
                        joint.first.0,
                        joint.second.0
                    )),
                ));
            }
            let anchor = joint.anchor.unwrap_or(self.model.bodies[body2].pose.position);
            let axis = joint.axis.unwrap_or([1.0, 0.0, 0.0]);
            let axis2 = joint.axis2.unwrap_or([0.0, 1.0, 0.0]);
            let kind = match joint.kind {
                JointType::Hinge => JointKind::Hinge { anchor, axis, motor: joint.motor },
                JointType::Ball => JointKind::Ball { anchor },
                JointType::Slider => JointKind::Slider { axis },
                JointType::Universal => JointKind::Universal { anchor, axis, axis2 },
                JointType::Hinge2 => JointKind::Hinge2 { anchor, axis, axis2 },
                JointType::Fixed => JointKind::Fixed,
                JointType::PR => JointKind::PrismaticRotoide { anchor, axis, axis2 },
                JointType::PU => JointKind::PrismaticUniversal { anchor, axis, axis2 },
                JointType::Piston => JointKind::Piston { anchor, axis },
                JointType::Planar => JointKind::Planar { anchor, axis },
            };
            let name = match joint.name {
                Some(name) => name,
                None => {
                    let base = format!("{}-{}", joint.first.0, joint.second.0);
                    let mut name = base.clone();
                    let mut n = 2;
                    while self.names.contains_key(&name) {
                        name = format!("{base}-{n}");
                        n += 1;
                    }
                    self.names.insert(name.clone(), (Target::Joint, joint.pos.clone()));
                    name
                }
            };
            let (erp, cfm, limits, bodies_touch) = (joint.erp, joint.cfm, joint.limits, joint.bodies_touch);
            self.model.joints.push(JointModel { name, body1, body2, kind, erp, cfm, limits, bodies_touch });
            for device in joint.devices {
                self.push_device(device, Mount::Joint(index));
            }
        }
        for r in &self.references {
            let found = self
                .model
                .sensors
                .iter()
                .chain(&self.model.actuators)
                .find(|d| d.robot == r.robot && d.name == r.target);
            match found {
                Some(d) if d.kind == r.wanted => {}
                Some(d) => {
                    return Err(LangError::new(
                        r.pos.clone(),
                        ErrorKind::Value(format!(
                            "'{}' of {} names '{}', {} {}, not {} {}",
                            r.param,
                            r.device,
                            r.target,
                            article(&d.kind),
                            d.kind,
                            article(r.wanted),
                            r.wanted
                        )),
                    ));
                }
                None => {
                    return Err(LangError::new(
                        r.pos.clone(),
                        ErrorKind::UnknownObject {
                            name: r.target.clone(),
                            context: format!(
                                "'{}' of {} (it must name {} {} of the same robot)",
                                r.param,
                                r.device,
                                article(r.wanted),
                                r.wanted
                            ),
                        },
                    ));
                }
            }
        }
        if let Some(challenge) = self.challenge.take() {
            self.model.challenge = Some(self.resolve_challenge(challenge)?);
        }
        if let Err(e) = self.model.validate() {
            let pos = Position { file: "scene".into(), line: 1, col: 1 };
            return Err(LangError::new(pos, ErrorKind::Value(format!("the scene is not valid: {e}"))));
        }
        Ok(self.model)
    }

    fn resolve(&self, (name, pos): &(String, Position), kind: JointType) -> IResult<usize> {
        match self.names.get(name) {
            Some((Target::Body(i), _)) => Ok(*i),
            Some((Target::Container, _)) => Err(LangError::new(
                pos.clone(),
                ErrorKind::Value(format!("'{name}' is a container, not an object: {} joins objects", kind.name())),
            )),
            Some((Target::Robot, _)) => Err(LangError::new(
                pos.clone(),
                ErrorKind::Value(format!("'{name}' is a robot, not an object: join one of its bodies")),
            )),
            _ => Err(LangError::new(
                pos.clone(),
                ErrorKind::UnknownObject { name: name.clone(), context: kind.name().to_owned() },
            )),
        }
    }
}

impl Interp<'_> {
    fn count_element(&mut self, pos: &Position) -> IResult<()> {
        self.builder.elements += 1;
        if self.builder.elements > self.options.budgets.max_elements {
            return Err(LangError::new(
                pos.clone(),
                ErrorKind::Budget(format!("the scene has more than {} elements", self.options.budgets.max_elements)),
            ));
        }
        Ok(())
    }

    fn name_of(&mut self, name: &Name) -> IResult<String> {
        match name {
            Name::Literal(s) => Ok(s.clone()),
            Name::Dynamic(expr) => {
                let s = self.string(expr, "a name in id:[...]")?;
                let valid = !s.is_empty() && s.len() <= 200 && !s.chars().any(|c| c.is_control());
                if !valid {
                    return Err(LangError::new(
                        expr.pos.clone(),
                        ErrorKind::Value(format!(
                            "'{s}' is not a usable name (empty, too long or with control characters)"
                        )),
                    ));
                }
                Ok(s.to_string())
            }
        }
    }

    /// Runs `body` with `ctx` on the context stack, and returns the context.
    fn run_in(&mut self, ctx: Ctx, body: &[Stmt]) -> IResult<Ctx> {
        self.builder.stack.push(ctx);
        let flow = self.with_scope(|me| me.exec_all(body));
        let ctx = self.builder.stack.pop().expect("pushed above");
        if let Flow::Return(_, at) = flow? {
            return Err(misplaced(&at, "return cannot leave an object, joint or robot block"));
        }
        Ok(ctx)
    }

    pub(super) fn exec_element(&mut self, stmt: &Stmt) -> IResult<Flow> {
        let pos = &stmt.pos;
        match &stmt.kind {
            StmtKind::Environment { room, body } => self.environment(*room, body, pos)?,
            StmtKind::Object { kind, is_static, name, body } => {
                let name = self.name_of(name)?;
                self.object(*kind, *is_static, name, body, pos)?;
            }
            StmtKind::Joint { kind, first, second, body } => {
                let first = (self.name_of(&first.0)?, first.1.clone());
                let second = (self.name_of(&second.0)?, second.1.clone());
                self.joint(*kind, first, second, body, pos)?;
            }
            StmtKind::Robot { name, body } => {
                let name = self.name_of(name)?;
                self.robot_block(name, body, pos)?;
            }
            StmtKind::RobotBody(body) => {
                if !matches!(self.builder.stack.last(), Some(Ctx::Robot(_))) {
                    return Err(misplaced(pos, "body { ... } belongs directly inside a robot { ... }"));
                }
                self.run_in(Ctx::RobotBody, body)?;
            }
            StmtKind::Code(file) => {
                let file = self.string(file, "the program's file name")?;
                match self.builder.stack.last_mut() {
                    Some(Ctx::Robot(robot)) => robot.program = Some((file.to_string(), pos.clone())),
                    _ => return Err(misplaced(pos, "code \"...\" belongs directly inside a robot { ... }")),
                }
            }
            StmtKind::ProgramRate(rate) => match self.builder.stack.last_mut() {
                Some(Ctx::Robot(robot)) => robot.rate = Some(*rate),
                _ => return Err(misplaced(pos, "program_rate belongs directly inside a robot { ... }")),
            },
            StmtKind::Urdf { file, body } => self.urdf(file, body, pos)?,
            StmtKind::Shape { custom, spec } => self.shape(*custom, spec, pos)?,
            StmtKind::Vector(prop, args) => self.vector(*prop, args, pos)?,
            StmtKind::Scalar(prop, value) => self.scalar(*prop, value, pos)?,
            StmtKind::Device { spec, name, params } => {
                let name = self.name_of(name)?;
                self.device(spec, name, params, pos)?;
            }
            StmtKind::Challenge { title, body } => self.challenge(title, body, pos)?,
            StmtKind::ChallengeItem(item) => self.challenge_item(item, pos)?,
            _ => unreachable!("exec handles every other statement"),
        }
        Ok(Flow::Normal)
    }

    fn environment(&mut self, room: bool, body: &[Stmt], pos: &Position) -> IResult<()> {
        if !self.builder.stack.is_empty() {
            return Err(misplaced(pos, "the environment belongs at the top level of the scene"));
        }
        if self.builder.model.environment.is_some() {
            return Err(LangError::new(pos.clone(), ErrorKind::Duplicate("a lab has only one environment".into())));
        }
        if !self.builder.model.bodies.is_empty() {
            return Err(misplaced(pos, "the environment must come first, before any object"));
        }
        let env = EnvBuilder {
            room,
            pos: pos.clone(),
            width: 20.0,
            length: 20.0,
            height: if room { 3.0 } else { 1.0 },
            materials: [None, None, None, None],
            gravity: None,
            erp: None,
            cfm: None,
        };
        let Ctx::Env(env) = self.run_in(Ctx::Env(env), body)? else { unreachable!() };
        let material = |me: &mut Self, i: usize, default: &str| match &env.materials[i] {
            Some((name, at)) => me.material(name, at),
            None => me.builder.palette.get(default),
        };
        let sky = material(self, 0, "Black");
        let ground = material(self, 1, "Tiles");
        let walls = material(self, 2, "Pattern");
        let ceiling = material(self, 3, "White");
        let environment = EnvironmentModel {
            kind: if env.room { EnvironmentKind::Room } else { EnvironmentKind::WallRect },
            width: env.width,
            length: env.length,
            height: env.height,
            sky,
            ground,
            walls,
            ceiling,
            erp: env.erp,
            cfm: env.cfm,
        };
        for body in environment_bodies(&environment) {
            self.builder.claim(&body.name, &env.pos, Target::Pending)?;
            self.builder.add_body(body, vec![], &[]);
        }
        let model = &mut self.builder.model;
        let [r, g, b, _] = environment.sky.color;
        model.sky = [r, g, b];
        if let Some(g) = env.gravity {
            model.gravity_y = g;
        }
        model.environment = Some(environment);
        Ok(())
    }

    fn material(&mut self, name: &str, pos: &Position) -> Material {
        match self.builder.palette.lookup(name) {
            Some(m) => m,
            None => {
                let fallback = self.builder.palette.get("Grey");
                self.warn(pos, format!("unknown material '{name}': using '{}'", fallback.name));
                fallback
            }
        }
    }

    fn object(
        &mut self,
        kind: ObjectKind,
        is_static: bool,
        name: String,
        body: &[Stmt],
        pos: &Position,
    ) -> IResult<()> {
        if matches!(self.builder.stack.last(), Some(Ctx::Urdf(_))) {
            return self.urdf_mount(kind, is_static, name, body, pos);
        }
        let parent_is_static = self.builder.stack.iter().rev().any(|c| match c {
            Ctx::Composed(c) => c.is_static,
            _ => false,
        });
        match self.builder.stack.last() {
            Some(Ctx::Object(outer)) => {
                return Err(misplaced(
                    pos,
                    &format!(
                        "'{name}' cannot be declared inside the object '{}': use composed {} {{ ... }} for one body of several parts",
                        outer.name, outer.name
                    ),
                ));
            }
            Some(Ctx::Joint(_)) | Some(Ctx::Env(_)) => {
                return Err(misplaced(
                    pos,
                    &format!("the object '{name}' cannot be declared inside a joint or the environment"),
                ));
            }
            Some(Ctx::Composed(_)) if kind == ObjectKind::Container => {
                return Err(misplaced(pos, &format!("the container '{name}' cannot be inside a composed object")));
            }
            Some(Ctx::Challenge(_) | Ctx::Zone(_) | Ctx::Start(_)) => {
                return Err(misplaced(
                    pos,
                    &format!("the object '{name}' cannot be declared inside a challenge: declare it before or after"),
                ));
            }
            _ => {}
        }
        self.count_element(pos)?;
        let target = if kind == ObjectKind::Container { Target::Container } else { Target::Pending };
        self.builder.claim(&name, pos, target)?;
        let robot = self.builder.robot();
        match kind {
            ObjectKind::Container => {
                let Ctx::Container(name, members) = self.run_in(Ctx::Container(name, vec![]), body)? else {
                    unreachable!()
                };
                if let Some(Ctx::Container(_, outer)) = self.builder.stack.last_mut() {
                    outer.push(name.clone());
                }
                self.builder.model.groups.push(GroupModel { name, members });
                if is_static {
                    // `static container`: every member body is fixed.
                    let group = self.builder.model.groups.last().expect("pushed").members.clone();
                    for body in self.builder.model.bodies.iter_mut().filter(|b| group.contains(&b.name)) {
                        body.motion = Motion::Fixed;
                    }
                }
            }
            ObjectKind::Composed => {
                let composed = ComposedBuilder {
                    name,
                    pos: pos.clone(),
                    is_static: is_static || parent_is_static,
                    pose: Pose::IDENTITY,
                    look: Look::default(),
                    parts: vec![],
                    density_given: vec![],
                    devices: vec![],
                    aliases: vec![],
                };
                let Ctx::Composed(c) = self.run_in(Ctx::Composed(composed), body)? else { unreachable!() };
                if c.parts.is_empty() {
                    return Err(LangError::new(
                        c.pos,
                        ErrorKind::Value(format!(
                            "the composed object '{}' has no parts: declare objects inside it",
                            c.name
                        )),
                    ));
                }
                if let Some(Ctx::Composed(outer)) = self.builder.stack.last_mut() {
                    // A composed object inside another: its parts join the outer body.
                    for mut p in c.parts {
                        p.local = c.pose.compose(&p.local);
                        outer.parts.push(p);
                    }
                    outer.density_given.extend(c.density_given);
                    outer.devices.extend(c.devices);
                    // Its own name addresses the outer body.
                    outer.aliases.push(c.name);
                    outer.aliases.extend(c.aliases);
                    return Ok(());
                }
                let mut members: Vec<String> = c.parts.iter().filter_map(|p| p.name.clone()).collect();
                members.extend(c.aliases);
                let mut parts = c.parts;
                share_density(&mut parts, &c.density_given);
                let body = BodyModel {
                    name: c.name,
                    motion: if c.is_static { Motion::Fixed } else { Motion::Dynamic },
                    pose: c.pose,
                    parts,
                    robot,
                    owner: None,
                };
                self.builder.add_body(body, c.devices, &members);
            }
            ObjectKind::Plain => {
                let object = ObjectBuilder {
                    name,
                    pos: pos.clone(),
                    is_static: is_static || parent_is_static,
                    pose: Pose::IDENTITY,
                    shape: None,
                    mesh: None,
                    custom: None,
                    look: Look::default(),
                    devices: vec![],
                };
                let Ctx::Object(o) = self.run_in(Ctx::Object(object), body)? else { unreachable!() };
                if o.custom.is_some() && o.shape.is_some() {
                    self.warn(
                        &o.pos,
                        format!(
                            "customgeom replaces the shape of '{}': only a mesh is drawn apart from what collides",
                            o.name
                        ),
                    );
                }
                let shape = match (o.custom, o.shape, &o.mesh) {
                    (Some(custom), _, _) => custom,
                    (None, Some(shape), _) => shape,
                    (None, None, Some(mesh)) => {
                        self.warn(
                            &o.pos,
                            format!(
                                "'{}' has a mesh but no customgeom: it collides as a 1 m box (add customgeom <shape>)",
                                o.name
                            ),
                        );
                        let _ = mesh;
                        Shape::Box { half_extents: [0.5; 3] }
                    }
                    (None, None, None) => {
                        return Err(LangError::new(
                            o.pos,
                            ErrorKind::Value(format!(
                                "the object '{}' has no shape: add shape box(...), sphere(...), ...",
                                o.name
                            )),
                        ));
                    }
                };
                if let Some(Ctx::Composed(outer)) = self.builder.stack.last_mut() {
                    let look = Look {
                        material: o.look.material.or(outer.look.material.clone()),
                        density: o.look.density.or(outer.look.density),
                        friction: o.look.friction.or(outer.look.friction),
                        restitution: o.look.restitution.or(outer.look.restitution),
                    };
                    let material = look.material.clone().unwrap_or_else(|| self.builder.palette.get("Grey"));
                    let p = part(shape, o.pose, material, &look, Some(o.name), o.mesh);
                    let Some(Ctx::Composed(outer)) = self.builder.stack.last_mut() else { unreachable!() };
                    outer.parts.push(p);
                    outer.density_given.push(look.density.is_some());
                    outer.devices.extend(o.devices);
                    return Ok(());
                }
                let material = o.look.material.clone().unwrap_or_else(|| self.builder.palette.get("Grey"));
                let p = part(shape, Pose::IDENTITY, material, &o.look, None, o.mesh);
                let body = BodyModel {
                    name: o.name,
                    motion: if o.is_static { Motion::Fixed } else { Motion::Dynamic },
                    pose: o.pose,
                    parts: vec![p],
                    robot,
                    owner: None,
                };
                self.builder.add_body(body, o.devices, &[]);
            }
        }
        Ok(())
    }

    fn joint(
        &mut self,
        kind: JointType,
        first: (String, Position),
        second: (String, Position),
        body: &[Stmt],
        pos: &Position,
    ) -> IResult<()> {
        if matches!(self.builder.stack.last(), Some(Ctx::Object(_) | Ctx::Composed(_) | Ctx::Joint(_) | Ctx::Env(_))) {
            return Err(misplaced(
                pos,
                &format!("{} cannot be declared inside an object, a joint or the environment", kind.name()),
            ));
        }
        if matches!(self.builder.stack.last(), Some(Ctx::Challenge(_) | Ctx::Zone(_) | Ctx::Start(_))) {
            return Err(misplaced(pos, &format!("{} cannot be declared inside a challenge", kind.name())));
        }
        self.count_element(pos)?;
        let joint = JointBuilder {
            kind,
            first,
            second,
            pos: pos.clone(),
            anchor: None,
            axis: None,
            axis2: None,
            erp: None,
            cfm: None,
            motor: None,
            devices: vec![],
            name: None,
            limits: None,
            // As in ODE programs: two joined bodies do not collide (a wheel may overlap
            // the chassis at its axle) unless the joint says `collide true;`.
            bodies_touch: false,
        };
        let Ctx::Joint(joint) = self.run_in(Ctx::Joint(Box::new(joint)), body)? else { unreachable!() };
        self.builder.joints.push(*joint);
        Ok(())
    }

    fn robot_block(&mut self, name: String, body: &[Stmt], pos: &Position) -> IResult<()> {
        if !self.builder.stack.iter().all(|c| matches!(c, Ctx::Container(..))) {
            return Err(misplaced(pos, &format!("the robot '{name}' must be declared at the top level of the scene")));
        }
        self.count_element(pos)?;
        self.builder.claim(&name, pos, Target::Robot)?;
        let robot = RobotBuilder { name, pos: pos.clone(), program: None, rate: None, main_body: None };
        let Ctx::Robot(robot) = self.run_in(Ctx::Robot(robot), body)? else { unreachable!() };
        let Some(main_body) = robot.main_body else {
            return Err(LangError::new(
                robot.pos,
                ErrorKind::Value(format!(
                    "the robot '{}' has no body: add body {{ ... }} with at least one object",
                    robot.name
                )),
            ));
        };
        let program = match robot.program {
            Some((file, at)) => Some(self.program(file, &at)?),
            None => None,
        };
        self.builder.model.robots.push(RobotModel { name: robot.name, main_body, program, program_rate: robot.rate });
        Ok(())
    }

    fn program(&mut self, file: String, pos: &Position) -> IResult<ProgramRef> {
        let file = self.program_name(file, pos);
        if !file.to_ascii_lowercase().ends_with(".rprj") {
            return Ok(ProgramRef { file, project: None });
        }
        let path = crate::loader::resolve_path(&pos.file, &file).map_err(|why| {
            LangError::new(pos.clone(), ErrorKind::Include(format!("cannot use the project file '{file}': {why}")))
        })?;
        match self.loader.load(&path) {
            Ok(text) => match read_project(&text) {
                Ok(parsed) => {
                    for skipped in parsed.warnings {
                        self.warn(
                            &Position { file: path.as_str().into(), line: skipped.line, col: 1 },
                            skipped.message,
                        );
                    }
                    Ok(ProgramRef { file, project: Some(parsed.project) })
                }
                Err((line, message)) => Err(LangError::new(
                    Position { file: path.as_str().into(), line, col: 1 },
                    ErrorKind::Syntax(message),
                )),
            },
            Err(_) => {
                self.warn(pos, format!("the project file '{file}' is not here yet: upload it with the robot"));
                Ok(ProgramRef { file, project: None })
            }
        }
    }

    /// The program's name in the upload and library: a path of another machine
    /// (`code "/home/me/lab/bot.rprj";`, as files written for another installation
    /// name their programs) keeps only its file name, with a warning saying so.
    fn program_name(&mut self, file: String, pos: &Position) -> String {
        if !crate::loader::is_foreign_path(&file) {
            return file;
        }
        let Some(kept) = crate::loader::last_component(&file) else { return file };
        let kept = kept.to_owned();
        self.warn(
            pos,
            format!(
                "the program '{file}' is a path on another machine: using '{kept}' from the upload or the scene library"
            ),
        );
        kept
    }

    fn shape(&mut self, custom: bool, spec: &ShapeSpec, pos: &Position) -> IResult<()> {
        let keyword = if custom { "customgeom" } else { "shape" };
        if !custom && matches!(self.builder.stack.last(), Some(Ctx::Zone(_))) {
            return self.zone_shape(spec);
        }
        if !matches!(self.builder.stack.last(), Some(Ctx::Object(_))) {
            return Err(misplaced(pos, &format!("{keyword} belongs inside an object's block")));
        }
        if custom && spec.kind == ShapeKind::Mesh {
            return Err(LangError::new(
                spec.pos.clone(),
                ErrorKind::Value("customgeom needs a primitive (sphere, box, cylinder or capsule), not a mesh".into()),
            ));
        }
        let (shape, mesh) = if spec.kind == ShapeKind::Mesh {
            let file = self.string(&spec.args[0], "the mesh file")?.to_string();
            let scale = match spec.args.get(1) {
                Some(arg) => self.num(arg, "the mesh scale")?,
                None => 1.0,
            };
            if scale <= 0.0 {
                return Err(LangError::new(
                    spec.pos.clone(),
                    ErrorKind::Value(format!("the mesh scale must be positive, got {scale}")),
                ));
            }
            // A mesh is a file of the asset library: a name that leaves it is refused
            // before any loader is asked, so a scene cannot learn which server files
            // exist, and no server path reaches the viewers.
            let file = crate::loader::resolve_path("", &file).map_err(|_| {
                LangError::new(
                    spec.pos.clone(),
                    ErrorKind::Value(format!(
                        "the mesh '{file}' is not a file of the asset library: name one by a relative path such as \"wheel.obj\" (no '/', '\\' or ':' at the start, no '..' leaving the library)"
                    )),
                )
            })?;
            let resolved = self.resolve_mesh(&file, pos);
            (None, Some(MeshRef { file, resolved, scale: scale as f32, offset: Pose::IDENTITY }))
        } else {
            let mut values = Vec::with_capacity(3);
            for arg in &spec.args {
                values.push(self.num(arg, "a size")?);
            }
            if let Some(bad) = values.iter().find(|v| **v <= 0.0) {
                return Err(LangError::new(
                    spec.pos.clone(),
                    ErrorKind::Value(format!("sizes must be positive, got {}", super::expr::format_num(*bad))),
                ));
            }
            let v: Vec<f32> = values.iter().map(|&x| x as f32).collect();
            let shape = match spec.kind {
                ShapeKind::Sphere => Shape::Sphere { radius: v[0] },
                ShapeKind::Box => Shape::Box { half_extents: [v[0] / 2.0, v[1] / 2.0, v[2] / 2.0] },
                ShapeKind::Cylinder => Shape::Cylinder { radius: v[0], half_length: v[1] / 2.0 },
                ShapeKind::Capsule => Shape::Capsule { radius: v[0], half_length: v[1] / 2.0 },
                ShapeKind::Mesh => unreachable!("handled above"),
            };
            (Some(shape), None)
        };
        let Some(Ctx::Object(object)) = self.builder.stack.last_mut() else { unreachable!() };
        if custom {
            object.custom = shape;
        } else {
            object.shape = shape;
            object.mesh = mesh;
        }
        Ok(())
    }

    /// `name.mesh` may be `name.glb`, `name.gltf` or `name.obj`; a missing mesh warns.
    fn resolve_mesh(&mut self, file: &str, pos: &Position) -> Option<String> {
        let mut candidates = vec![file.to_owned()];
        if let Some(stem) = file.strip_suffix(".mesh") {
            candidates.extend(["glb", "gltf", "obj"].map(|ext| format!("{stem}.{ext}")));
        }
        let mut known = false;
        for candidate in &candidates {
            match self.loader.asset_exists(candidate) {
                Some(true) => return Some(candidate.clone()),
                Some(false) => known = true,
                None => {}
            }
        }
        if known {
            self.warn(pos, format!("the mesh '{file}' was not found: the object is drawn with its collision shape"));
        }
        None
    }

    fn vector(&mut self, prop: VectorProp, args: &[crate::ast::Expr], pos: &Position) -> IResult<()> {
        if args.len() != prop.arity() {
            let usage = match prop {
                VectorProp::Quaternion => "quaternion(w, x, y, z)",
                VectorProp::RotationAxis => "rotation_axis(ax, ay, az, angle)",
                _ => "(x, y, z)",
            };
            return Err(type_error(pos, format!("{} takes {} numbers: {usage}", prop.name(), prop.arity())));
        }
        let mut v = [0.0f64; 4];
        for (slot, arg) in v.iter_mut().zip(args) {
            *slot = self.num(arg, &format!("a value of {}(...)", prop.name()))?;
            crate::model::check_magnitude(&format!("a value of {}(...)", prop.name()), *slot)
                .map_err(|message| LangError::new(pos.clone(), ErrorKind::Value(message)))?;
        }
        let xyz = [v[0] as f32, v[1] as f32, v[2] as f32];
        let rotation = match prop {
            VectorProp::Quaternion => {
                let [w, x, y, z] = v;
                let norm = (w * w + x * x + y * y + z * z).sqrt();
                if norm < 1e-9 {
                    return Err(LangError::new(
                        pos.clone(),
                        ErrorKind::Value("quaternion(0,0,0,0) is not a rotation".into()),
                    ));
                }
                Some([(x / norm) as f32, (y / norm) as f32, (z / norm) as f32, (w / norm) as f32])
            }
            VectorProp::RotationAxis => {
                let norm = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
                if norm < 1e-9 {
                    return Err(LangError::new(
                        pos.clone(),
                        ErrorKind::Value("rotation_axis needs a non-zero axis".into()),
                    ));
                }
                let axis = [(v[0] / norm) as f32, (v[1] / norm) as f32, (v[2] / norm) as f32];
                Some(axis_angle(axis, v[3] as f32))
            }
            _ => None,
        };
        if let Some(Ctx::Start(start)) = self.builder.stack.last_mut() {
            if prop != VectorProp::Pos {
                return Err(misplaced(pos, &format!("start takes pos(x, y, z) and heading, not {}(...)", prop.name())));
            }
            start.position = Some(xyz);
            return Ok(());
        }
        let pose = match self.builder.stack.last_mut() {
            Some(Ctx::Object(o)) => Some(&mut o.pose),
            Some(Ctx::Zone(zone)) => Some(&mut zone.pose),
            Some(Ctx::Composed(c)) => Some(&mut c.pose),
            Some(Ctx::Urdf(u)) => Some(&mut u.pose),
            _ => None,
        };
        match (prop, pose) {
            (VectorProp::Pos, Some(pose)) => pose.position = xyz,
            // Successive rotations compose: each turns the object further about the
            // world's axes.
            (VectorProp::Quaternion | VectorProp::RotationAxis, Some(pose)) => {
                pose.rotation = multiply(rotation.expect("computed above"), pose.rotation);
            }
            (VectorProp::Anchor | VectorProp::Axis | VectorProp::Axis2, _) => {
                let Some(Ctx::Joint(joint)) = self.builder.stack.last_mut() else {
                    return Err(misplaced(pos, &format!("{}(...) belongs inside a joint's block", prop.name())));
                };
                if prop != VectorProp::Anchor && xyz == [0.0; 3] {
                    return Err(LangError::new(
                        pos.clone(),
                        ErrorKind::Value(format!("{}(0,0,0) is not a direction", prop.name())),
                    ));
                }
                let slot = match prop {
                    VectorProp::Anchor => &mut joint.anchor,
                    VectorProp::Axis => &mut joint.axis,
                    _ => &mut joint.axis2,
                };
                *slot = Some(xyz);
            }
            (_, None) => {
                return Err(misplaced(pos, &format!("{}(...) belongs inside an object's block", prop.name())));
            }
        }
        Ok(())
    }

    fn scalar(&mut self, prop: ScalarProp, value: &crate::ast::Expr, pos: &Position) -> IResult<()> {
        if prop == ScalarProp::Collide {
            let collide = match self.eval(value)? {
                super::Value::Bool(b) => b,
                other => {
                    let what = other.ty().name();
                    return Err(type_error(&value.pos, format!("collide takes true or false, not a {what}")));
                }
            };
            let Some(Ctx::Joint(joint)) = self.builder.stack.last_mut() else {
                return Err(misplaced(pos, "collide belongs inside a joint's block"));
            };
            joint.bodies_touch = collide;
            return Ok(());
        }
        let in_zone = matches!(self.builder.stack.last(), Some(Ctx::Zone(_)));
        match prop {
            ScalarProp::Color | ScalarProp::Material if in_zone => return self.zone_color(value),
            ScalarProp::Color => return Err(misplaced(pos, "color belongs inside a zone of a challenge")),
            _ => {}
        }
        let (num, text) = match prop.value_type() {
            Type::Str => (0.0, self.string(value, &format!("the value of {}", prop.name()))?.to_string()),
            _ => (self.num(value, &format!("the value of {}", prop.name()))?, String::new()),
        };
        crate::model::check_magnitude(prop.name(), num)
            .map_err(|message| LangError::new(value.pos.clone(), ErrorKind::Value(message)))?;
        let positive = |what: &str| {
            if num > 0.0 {
                Ok(num as f32)
            } else {
                Err(LangError::new(
                    value.pos.clone(),
                    ErrorKind::Value(format!("{what} must be positive, got {}", super::expr::format_num(num))),
                ))
            }
        };
        let value_error = |message: String| LangError::new(value.pos.clone(), ErrorKind::Value(message));
        let wrong = |me: &Self| -> IResult<()> {
            let place = match prop {
                ScalarProp::Density | ScalarProp::Material | ScalarProp::Friction | ScalarProp::Restitution => {
                    "an object's block"
                }
                ScalarProp::Erp | ScalarProp::Cfm => "a joint's block or the environment",
                _ => "the environment",
            };
            let _ = me;
            Err(misplaced(pos, &format!("{} belongs inside {place}", prop.name())))
        };
        match prop {
            ScalarProp::Density | ScalarProp::Material | ScalarProp::Friction | ScalarProp::Restitution => {
                let material = if prop == ScalarProp::Material { Some(self.material(&text, &value.pos)) } else { None };
                let look = match self.builder.stack.last_mut() {
                    Some(Ctx::Object(o)) => &mut o.look,
                    Some(Ctx::Composed(c)) => &mut c.look,
                    _ => return wrong(self),
                };
                match prop {
                    ScalarProp::Density => look.density = Some(positive("density")?),
                    ScalarProp::Material => look.material = material,
                    ScalarProp::Friction => look.friction = Some(num.max(0.0) as f32),
                    _ => look.restitution = Some(num.clamp(0.0, 1.0) as f32),
                }
            }
            ScalarProp::Erp | ScalarProp::Cfm => {
                if num < 0.0 || (prop == ScalarProp::Erp && num > 1.0) {
                    return Err(LangError::new(
                        value.pos.clone(),
                        ErrorKind::Value(format!(
                            "{} must be in [0, 1] (erp) or ≥ 0 (cfm), got {}",
                            prop.name(),
                            super::expr::format_num(num)
                        )),
                    ));
                }
                let slot = match self.builder.stack.last_mut() {
                    Some(Ctx::Joint(j)) => {
                        if prop == ScalarProp::Erp {
                            &mut j.erp
                        } else {
                            &mut j.cfm
                        }
                    }
                    Some(Ctx::Env(e)) => {
                        if prop == ScalarProp::Erp {
                            &mut e.erp
                        } else {
                            &mut e.cfm
                        }
                    }
                    _ => return wrong(self),
                };
                *slot = Some(num as f32);
            }
            _ => {
                let Some(Ctx::Env(env)) = self.builder.stack.last_mut() else { return wrong(self) };
                match prop {
                    ScalarProp::Width => env.width = room_size("width", num).map_err(value_error)?,
                    ScalarProp::Length => env.length = room_size("length", num).map_err(value_error)?,
                    ScalarProp::Height => env.height = room_size("height", num).map_err(value_error)?,
                    ScalarProp::Gravity => env.gravity = Some(num as f32),
                    ScalarProp::Sky => env.materials[0] = Some((text, value.pos.clone())),
                    ScalarProp::Ground => env.materials[1] = Some((text, value.pos.clone())),
                    ScalarProp::Walls => env.materials[2] = Some((text, value.pos.clone())),
                    ScalarProp::Ceiling => env.materials[3] = Some((text, value.pos.clone())),
                    _ => unreachable!("handled above"),
                }
            }
        }
        Ok(())
    }

    /// A device's parameters within the catalogue's limits, and its robot's cameras
    /// within their budget (a scene's devices and a URDF's alike), at `pos`.
    pub(in crate::interp) fn within_limits(
        &mut self,
        spec: &'static DeviceSpec,
        values: &[(String, ParamValue)],
        pos: &Position,
    ) -> IResult<()> {
        let set = |key: &str| match values.iter().find(|(n, _)| n == key) {
            Some((_, ParamValue::Num(n))) => Some(*n),
            _ => crate::catalogue::default_value(spec.name, key),
        };
        crate::catalogue::check_limits(spec.name, set)
            .map_err(|message| LangError::new(pos.clone(), ErrorKind::Value(message)))?;
        if let Some(rays) = crate::catalogue::camera_rays_per_second(spec.name, set) {
            let robot = self.builder.robot();
            let total = self.builder.camera_rays.entry(robot.clone()).or_default();
            *total += rays;
            crate::catalogue::check_camera_budget(
                robot.as_deref(),
                *total,
                self.options.budgets.max_camera_rays_per_robot,
            )
            .map_err(|message| LangError::new(pos.clone(), ErrorKind::Value(message)))?;
        }
        Ok(())
    }

    fn device(&mut self, spec: &'static DeviceSpec, name: String, params: &[Param], pos: &Position) -> IResult<()> {
        self.count_element(pos)?;
        let mut values = Vec::with_capacity(params.len());
        for param in params {
            let Some(ty) = spec.param(&param.name) else {
                return Err(LangError::new(
                    param.pos.clone(),
                    ErrorKind::UnknownParameter {
                        param: param.name.clone(),
                        device: spec.name.into(),
                        known: spec.param_names(),
                    },
                ));
            };
            if values.iter().any(|(n, _)| *n == param.name) {
                return Err(LangError::new(
                    param.pos.clone(),
                    ErrorKind::Duplicate(format!("the parameter '{}' is set twice", param.name)),
                ));
            }
            let mismatch = |found: &str| {
                type_error(&param.pos, format!("'{}' of {} is a {}, not a {found}", param.name, spec.name, ty.name()))
            };
            let value = match ty {
                ParamType::Curve => {
                    let mut nums = Vec::new();
                    for v in &param.values {
                        nums.push(self.num(v, &format!("a value of {}", param.name))?);
                    }
                    if nums.len() < 4 || nums.len() % 2 != 0 {
                        return Err(LangError::new(
                            param.pos.clone(),
                            ErrorKind::Value(format!("{} needs pairs of numbers: (x0,y0, x1,y1, ...)", param.name)),
                        ));
                    }
                    ParamValue::Nums(nums)
                }
                _ if param.list => return Err(mismatch("list")),
                _ => match (ty, self.eval(&param.values[0])?) {
                    (ParamType::Num, super::Value::Num(n)) => ParamValue::Num(n),
                    (ParamType::Count, super::Value::Num(n)) => {
                        if !(n >= 1.0 && n == n.trunc()) {
                            return Err(LangError::new(
                                param.pos.clone(),
                                ErrorKind::Value(format!(
                                    "'{}' must be a whole number ≥ 1, got {}",
                                    param.name,
                                    super::expr::format_num(n)
                                )),
                            ));
                        }
                        ParamValue::Num(n)
                    }
                    (ParamType::Str, super::Value::Str(s)) => ParamValue::Str(s.to_string()),
                    (ParamType::Bool, super::Value::Bool(b)) => ParamValue::Bool(b),
                    (_, other) => return Err(mismatch(other.ty().name())),
                },
            };
            let numbers = match &value {
                ParamValue::Num(n) => std::slice::from_ref(n),
                ParamValue::Nums(nums) => nums.as_slice(),
                _ => &[],
            };
            for n in numbers {
                crate::model::check_magnitude(&format!("'{}'", param.name), *n)
                    .map_err(|message| LangError::new(param.pos.clone(), ErrorKind::Value(message)))?;
            }
            if let ParamValue::Num(n) = value
                && matches!(param.name.as_str(), "rate" | "range" | "fov" | "cone" | "wheel_radius" | "track")
                && n <= 0.0
            {
                return Err(LangError::new(
                    param.pos.clone(),
                    ErrorKind::Value(format!("'{}' must be positive, got {}", param.name, super::expr::format_num(n))),
                ));
            }
            if let (Some(wanted), ParamValue::Str(target)) =
                (crate::catalogue::reference(spec.name, &param.name), &value)
            {
                self.builder.references.push(Reference {
                    robot: self.builder.robot(),
                    device: spec.name,
                    param: param.name.clone(),
                    target: target.clone(),
                    wanted,
                    pos: param.pos.clone(),
                });
            }
            values.push((param.name.clone(), value));
        }
        self.within_limits(spec, &values, pos)?;
        let robot = self.builder.robot();
        let kind_word = match spec.class {
            DeviceClass::Sensor => "sensor",
            DeviceClass::Actuator => "actuator",
            DeviceClass::Landmark => "landmark",
        };
        if spec.class == DeviceClass::Landmark && robot.is_some() {
            return Err(misplaced(pos, &format!("the beacon '{name}' belongs on an object outside any robot")));
        }
        if !self.builder.device_names.insert((robot.clone(), name.clone())) {
            let owner = robot.as_ref().map(|r| format!("robot '{r}'")).unwrap_or_else(|| "this lab".into());
            return Err(LangError::new(
                pos.clone(),
                ErrorKind::Duplicate(format!("{owner} already has a sensor or actuator named '{name}'")),
            ));
        }
        let device = PendingDevice { spec, name: name.clone(), robot: robot.clone(), params: values };
        let placement = spec.placement;
        match self.builder.stack.last_mut() {
            Some(Ctx::Object(ObjectBuilder { devices, .. }) | Ctx::Composed(ComposedBuilder { devices, .. }))
                if matches!(placement, Placement::Body | Placement::BodyOrRobot) =>
            {
                devices.push(device);
            }
            Some(Ctx::UrdfMount(_, devices)) if placement != Placement::Robot => devices.push(device),
            Some(Ctx::Joint(joint)) if placement == Placement::Joint => {
                if spec.name == "SimpleMotor" || spec.name == "SimpleServo" {
                    if joint.devices.iter().any(|d| d.spec.class == DeviceClass::Actuator) {
                        return Err(LangError::new(
                            pos.clone(),
                            ErrorKind::Duplicate("a joint takes one actuator".into()),
                        ));
                    }
                    if spec.name == "SimpleMotor" && joint.kind == JointType::Hinge {
                        let num = |key: &str| match device.params.iter().find(|(n, _)| n == key) {
                            Some((_, ParamValue::Num(n))) => Some(*n as f32),
                            _ => None,
                        };
                        joint.motor = Some(MotorModel {
                            target_velocity: num("speed").unwrap_or(0.0),
                            max_force: num("max_force").unwrap_or(DEFAULT_MOTOR_MAX_FORCE),
                        });
                    }
                }
                joint.devices.push(device);
            }
            _ if matches!(placement, Placement::Robot | Placement::BodyOrRobot) && robot.is_some() => {
                self.builder.push_device(device, Mount::Robot);
            }
            _ => {
                let place = match placement {
                    Placement::Body => "inside an object's block: it measures that object",
                    Placement::Joint => "inside a joint's block: it works on that joint",
                    Placement::Robot | Placement::BodyOrRobot => "inside a robot's body",
                };
                return Err(misplaced(
                    pos,
                    &format!("the {kind_word} {} '{}' belongs {place}", spec.name, device.name),
                ));
            }
        }
        let _ = &self.builder.device_names;
        Ok(())
    }
}

/// "a" or "an", for device names in messages.
fn article(word: &str) -> &'static str {
    if word.starts_with(['A', 'E', 'I', 'O', 'U', 'a', 'e', 'i', 'o', 'u']) { "an" } else { "a" }
}

/// A part of a composed object whose file gives no density takes the first density
/// its siblings give: a composed object is one rigid body. VLAB's files rely on it: the
/// tank of its design gives its drum 0.05 and its middle box none, and at the default
/// 1000 kg/m³ that box outweighs the rest of the tank 180 times, so it barely moves.
/// Only when no part gives one do they keep the default.
fn share_density(parts: &mut [PartModel], given: &[bool]) {
    let Some(density) = parts.iter().zip(given).find(|(_, given)| **given).map(|(part, _)| part.density) else {
        return;
    };
    for (part, _) in parts.iter_mut().zip(given).filter(|(_, given)| !**given) {
        part.density = density;
    }
}

fn part(
    shape: Shape,
    local: Pose,
    material: Material,
    look: &Look,
    name: Option<String>,
    mesh: Option<MeshRef>,
) -> PartModel {
    PartModel {
        shape,
        local,
        material,
        density: look.density.unwrap_or(DEFAULT_DENSITY),
        friction: look.friction.unwrap_or(DEFAULT_FRICTION),
        restitution: look.restitution.unwrap_or(DEFAULT_RESTITUTION),
        name,
        mesh,
        drawn_only: false,
    }
}
