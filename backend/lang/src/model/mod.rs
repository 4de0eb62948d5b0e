//! The scene model: a lab's world as plain data (environment, bodies of parts, joints,
//! robots with their sensors and actuators), before and apart from any physics engine.
//!
//! A scene may also set a challenge ([`ChallengeModel`]): what "solved" means, with
//! its zones, events and score.
//!
//! A [`SceneModel`] is what a scene description produces and what the simulation is
//! built from, so the same model can be checked, stored, compared in tests and rebuilt
//! on reset.
//!
//! Conventions: right-handed, **Y up**, metres, kilograms, seconds, radians.
//! Rotations are unit quaternions `[x, y, z, w]` (the language writes `quaternion(w,x,y,z)`).

mod challenge;
mod devices;
mod environment;
mod materials;
mod merge;
mod pose;
mod remove;
mod validate;

pub use self::challenge::{
    ChallengeModel, Comparison, Condition, Event, GONE, MAX_TIME_LIMIT_SECS, ScoreRule, StartPose, Touchable,
    ZoneModel, ZoneShape,
};
pub use self::devices::{DeviceModel, Mount, ParamValue};
pub use self::environment::{
    ENVIRONMENT_BODIES, FLOOR_THICKNESS, RoomError, WALL_THICKNESS, environment_bodies, room_size,
};
pub use self::materials::{LibraryError, Palette};
pub use self::merge::Inserted;
pub use self::remove::Renumbering;
pub use self::validate::SceneError;

/// A rigid transform: where something is and how it is turned.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Translation, metres.
    pub position: [f32; 3],
    /// Unit quaternion `[x, y, z, w]`.
    pub rotation: [f32; 4],
}

/// A primitive shape, centred on its part's origin: what collides.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// Half-extents along X, Y, Z.
    Box {
        /// Metres.
        half_extents: [f32; 3],
    },
    /// A ball.
    Sphere {
        /// Metres.
        radius: f32,
    },
    /// Axis along the local Z axis.
    Cylinder {
        /// Metres.
        radius: f32,
        /// Half the length along Z, metres.
        half_length: f32,
    },
    /// Axis along the local Z axis; `half_length` excludes the hemispherical caps.
    Capsule {
        /// Metres.
        radius: f32,
        /// Half the cylindrical length along Z, metres.
        half_length: f32,
    },
    /// The convex hull of points (an imported URDF collision mesh), at least 4 and at
    /// most [`MAX_HULL_POINTS`].
    ConvexHull {
        /// Points in the part's frame, metres.
        points: Vec<[f32; 3]>,
    },
}

/// The most points a [`Shape::ConvexHull`] keeps.
pub const MAX_HULL_POINTS: usize = 1024;

/// How a part looks (the physics ignores it).
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    /// Name in the material library.
    pub name: String,
    /// Base colour, sRGBA.
    pub color: [u8; 4],
    /// 0 = mirror, 1 = chalk.
    pub roughness: f32,
    /// 0 = dielectric, 1 = metal.
    pub metallic: f32,
    /// An image drawn instead of `color`'s RGB, as an asset path (`textures/tiles.png`).
    pub texture: Option<String>,
    /// See-through (glass): drawn blended, and light-based sensors look through it.
    pub transparent: bool,
}

/// A visual mesh drawn in place of a part's collision shape.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshRef {
    /// The file as the scene wrote it (`wheel.mesh`).
    pub file: String,
    /// The asset it resolved to (`wheel.glb`), or `None` when the loader could not
    /// tell or did not find it (then the collision shape is drawn).
    pub resolved: Option<String>,
    /// Uniform scale applied to the mesh.
    pub scale: f32,
    /// Where the mesh's own frame sits in its part's frame (identity for `.vlab`
    /// meshes; a URDF visual placed apart from the collision shape it is drawn for).
    pub offset: Pose,
}

/// One collider of a body, placed relative to the body.
#[derive(Clone, Debug, PartialEq)]
pub struct PartModel {
    /// Its collision shape (drawn too, unless `mesh` is set).
    pub shape: Shape,
    /// Pose in the body's frame.
    pub local: Pose,
    /// Its look.
    pub material: Material,
    /// kg/m³; the body's mass is the sum over its parts.
    pub density: f32,
    /// Coulomb friction coefficient.
    pub friction: f32,
    /// Bounciness, 0..1.
    pub restitution: f32,
    /// Its own name when it is a member of a `composed` object (addressable, unique in
    /// the lab); `None` for the single part of a plain object.
    pub name: Option<String>,
    /// The visual mesh, if the part is drawn with one.
    pub mesh: Option<MeshRef>,
    /// Only drawn: it never collides, weighs nothing and no ray sees it (a URDF visual
    /// placed apart from the link's collision shapes; its `shape` is what picking uses).
    pub drawn_only: bool,
}

/// Whether the simulation moves a body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Motion {
    /// Moved by forces, contacts and joints.
    Dynamic,
    /// Never moves (floor, walls, `static` objects).
    Fixed,
}

/// A rigid body: one or more parts moving together.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyModel {
    /// Unique name in the lab.
    pub name: String,
    /// Dynamic or fixed.
    pub motion: Motion,
    /// Initial pose in the world.
    pub pose: Pose,
    /// Its colliders.
    pub parts: Vec<PartModel>,
    /// The robot it belongs to, if any.
    pub robot: Option<String>,
    /// The participant who added it to a running lab, for an object of no robot (a
    /// lab's id of a participant); `None`: the lab's own. Set by the lab as it inserts,
    /// never by the language.
    pub owner: Option<u32>,
}

/// A motor driving a joint's free axis towards a velocity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotorModel {
    /// Target velocity, rad/s for hinges.
    pub target_velocity: f32,
    /// Largest torque (N·m) the motor may apply.
    pub max_force: f32,
}

/// What a joint allows. Anchors and axes are in world coordinates at build time; axes
/// need not be normalised.
#[derive(Clone, Debug, PartialEq)]
pub enum JointKind {
    /// Rotation about one axis through `anchor`.
    Hinge {
        /// A point on the axis, world frame, metres.
        anchor: [f32; 3],
        /// The axis direction, world frame.
        axis: [f32; 3],
        /// An optional velocity motor on the axis (from a `SimpleMotor`).
        motor: Option<MotorModel>,
    },
    /// Rotation about every axis through `anchor` (ball and socket).
    Ball {
        /// The common point, world frame, metres.
        anchor: [f32; 3],
    },
    /// Translation along one axis.
    Slider {
        /// The sliding direction, world frame.
        axis: [f32; 3],
    },
    /// Rotation about two perpendicular axes through `anchor` (cardan joint).
    Universal {
        /// The common point, world frame, metres.
        anchor: [f32; 3],
        /// First axis (on the first body).
        axis: [f32; 3],
        /// Second axis (on the second body).
        axis2: [f32; 3],
    },
    /// A steering axis and a wheel axis through `anchor` (car front wheel).
    Hinge2 {
        /// The common point, world frame, metres.
        anchor: [f32; 3],
        /// The steering (suspension) axis.
        axis: [f32; 3],
        /// The wheel axis.
        axis2: [f32; 3],
    },
    /// No relative motion.
    Fixed,
    /// Prismatic along `axis`, then rotoide (hinge) about `axis2` through `anchor`.
    PrismaticRotoide {
        /// The hinge's point, world frame, metres.
        anchor: [f32; 3],
        /// The sliding direction.
        axis: [f32; 3],
        /// The rotation axis.
        axis2: [f32; 3],
    },
    /// Prismatic along `axis2`, then universal about `axis` and a perpendicular axis.
    PrismaticUniversal {
        /// The universal joint's point, world frame, metres.
        anchor: [f32; 3],
        /// The universal joint's first axis.
        axis: [f32; 3],
        /// The sliding direction.
        axis2: [f32; 3],
    },
    /// Slides along and spins about one axis through `anchor`.
    Piston {
        /// A point on the axis, world frame, metres.
        anchor: [f32; 3],
        /// The axis.
        axis: [f32; 3],
    },
    /// Motion in a plane: sliding along it and turning about its normal (URDF's
    /// `planar`; a puck on a table).
    Planar {
        /// A point of the plane, world frame, metres.
        anchor: [f32; 3],
        /// The plane's normal, world frame.
        axis: [f32; 3],
    },
}

impl JointKind {
    /// The joint's name in the scene language (`JointHinge`, ...).
    pub fn language_name(&self) -> &'static str {
        match self {
            JointKind::Hinge { .. } => "JointHinge",
            JointKind::Ball { .. } => "JointBall",
            JointKind::Slider { .. } => "JointSlider",
            JointKind::Universal { .. } => "JointUniversal",
            JointKind::Hinge2 { .. } => "JointHinge2",
            JointKind::Fixed => "JointFixed",
            JointKind::PrismaticRotoide { .. } => "JointPR",
            JointKind::PrismaticUniversal { .. } => "JointPU",
            JointKind::Piston { .. } => "JointPiston",
            JointKind::Planar { .. } => "JointPlanar",
        }
    }
}

/// A joint between two bodies of the model, referred to by index.
#[derive(Clone, Debug, PartialEq)]
pub struct JointModel {
    /// Unique name in the lab.
    pub name: String,
    /// Index of the first body in [`SceneModel::bodies`].
    pub body1: usize,
    /// Index of the second body.
    pub body2: usize,
    /// What it allows.
    pub kind: JointKind,
    /// Error reduction parameter (0..1) if the scene set one; else the global one.
    pub erp: Option<f32>,
    /// Constraint force mixing (softness) if the scene set one; else the global one.
    pub cfm: Option<f32>,
    /// The range `[lower, upper]` of the joint's coordinate along its driven axis
    /// (radians for hinges, metres for sliders), if limited (a URDF joint's `<limit>`).
    pub limits: Option<[f32; 2]>,
    /// Whether its two bodies collide with each other. False unless a `.vlab` joint says
    /// `collide true;`: as in ODE programs (and Gazebo, for URDF links), joined bodies
    /// may overlap at their joint.
    pub bodies_touch: bool,
}

/// The program a robot runs, as its scene names it.
#[derive(Clone, Debug, PartialEq)]
pub struct ProgramRef {
    /// The file named by `code` (a source file or a `.rprj` project file).
    pub file: String,
    /// The project file's content, when `file` is one and could be read.
    pub project: Option<ProjectFile>,
}

/// A project file in the original format (`TYPE:RHAI` / `SRC:main.rhai` lines).
#[derive(Clone, Debug, PartialEq)]
pub struct ProjectFile {
    /// The runtime (`RHAI`, `PYTHON`, `WASM`, ...), upper-case as written.
    pub language: String,
    /// The source files, in order.
    pub sources: Vec<String>,
    /// How often the program runs, if the file says (`RATE:EVERY_STEP`).
    pub rate: Option<ProgramRate>,
}

/// How often a robot's program runs: at the lab's control rate, or at every physics
/// step as the original VLAB ran its programs (docs/programs.md, "The step as VLAB ran
/// it").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ProgramRate {
    /// Every control period (48 Hz at the default physics step).
    #[default]
    Control,
    /// Every physics step, pre-step and post-step around each.
    EveryStep,
}

impl ProgramRate {
    /// The words a scene (`program_rate every_step;`) and a project file
    /// (`RATE:EVERY_STEP`) use, in any case.
    pub fn from_word(word: &str) -> Option<ProgramRate> {
        match word.to_ascii_lowercase().as_str() {
            "control" => Some(ProgramRate::Control),
            "every_step" => Some(ProgramRate::EveryStep),
            _ => None,
        }
    }

    /// Its word, as a scene writes it.
    pub fn word(self) -> &'static str {
        match self {
            ProgramRate::Control => "control",
            ProgramRate::EveryStep => "every_step",
        }
    }
}

/// A robot: a named group of bodies with one main body whose pose is "the robot's".
#[derive(Clone, Debug, PartialEq)]
pub struct RobotModel {
    /// Unique name in the lab.
    pub name: String,
    /// Index of its main body (the first one its `body` declares) in [`SceneModel::bodies`].
    pub main_body: usize,
    /// Its program, if its scene names one.
    pub program: Option<ProgramRef>,
    /// How often its program runs, if its scene says (`program_rate every_step;`):
    /// it wins over the project file's `RATE`.
    pub program_rate: Option<ProgramRate>,
}

impl RobotModel {
    /// How often its program runs: its scene's word, else its project file's, else
    /// the control rate.
    pub fn rate(&self) -> ProgramRate {
        let project = self.program.as_ref().and_then(|program| program.project.as_ref()?.rate);
        self.program_rate.or(project).unwrap_or_default()
    }
}

/// Indoor room (with a ceiling) or outdoor fence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnvironmentKind {
    /// Floor, four walls and a ceiling.
    Room,
    /// Floor and four walls (an outdoor fence), no ceiling.
    WallRect,
}

/// The lab's environment as the scene declared it. Its floor, walls and ceiling are
/// ordinary fixed bodies of the model (named `floor`, `wall_south`, `wall_north`,
/// `wall_west`, `wall_east`, `ceiling`), spanning `[0,width] x [0,length]` on the ground.
#[derive(Clone, Debug, PartialEq)]
pub struct EnvironmentModel {
    /// Room or fence.
    pub kind: EnvironmentKind,
    /// Extent along X, metres.
    pub width: f32,
    /// Extent along Z, metres.
    pub length: f32,
    /// Height of the walls, metres.
    pub height: f32,
    /// Looks of the sky, ground, walls and ceiling.
    pub sky: Material,
    /// The floor's look.
    pub ground: Material,
    /// The walls' look.
    pub walls: Material,
    /// The ceiling's look.
    pub ceiling: Material,
    /// Global error reduction parameter, if set.
    pub erp: Option<f32>,
    /// Global constraint force mixing, if set.
    pub cfm: Option<f32>,
}

/// A `container`: a named, addressable group of elements that stay separate bodies.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupModel {
    /// Unique name in the lab.
    pub name: String,
    /// Names of its direct members (bodies, composed bodies, nested containers).
    pub members: Vec<String>,
}

/// A whole lab: the environment and everything in it.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneModel {
    /// Background colour, sRGB.
    pub sky: [u8; 3],
    /// Acceleration along Y, m/s² (negative = down).
    pub gravity_y: f32,
    /// Physics step, seconds.
    pub dt_secs: f64,
    /// The declared environment, if any (its bodies are in `bodies`).
    pub environment: Option<EnvironmentModel>,
    /// Bodies, in insertion order.
    pub bodies: Vec<BodyModel>,
    /// Joints between them.
    pub joints: Vec<JointModel>,
    /// Robots made of them.
    pub robots: Vec<RobotModel>,
    /// Containers.
    pub groups: Vec<GroupModel>,
    /// Sensors, in declaration order.
    pub sensors: Vec<DeviceModel>,
    /// Actuators, in declaration order.
    pub actuators: Vec<DeviceModel>,
    /// Beacons (`Beacon`, on objects outside robots), in declaration order: what
    /// `LandmarkSensor`s see; each one's id is its name.
    pub beacons: Vec<DeviceModel>,
    /// What "solved" means in this scene, if it sets a challenge.
    pub challenge: Option<ChallengeModel>,
}

/// The default physics step: 240 Hz, fine enough for wheeled robots and stacking.
pub const DEFAULT_DT_SECS: f64 = 1.0 / 240.0;

/// The largest magnitude of any number a scene or a command gives the simulation
/// (positions, sizes, densities, forces, speeds, device parameters). Larger finite values
/// would overflow the simulation's 32-bit floats to infinity: an immovable body, a robot
/// frozen for good.
pub const MAX_MAGNITUDE: f64 = 1.0e9;

/// `Err` with a sentence when `value` is not finite or larger than [`MAX_MAGNITUDE`].
pub fn check_magnitude(what: &str, value: f64) -> Result<(), String> {
    if value.is_finite() && value.abs() <= MAX_MAGNITUDE {
        Ok(())
    } else {
        Err(format!("{what} must be a number between -1e9 and 1e9, got {value:e}"))
    }
}

impl SceneModel {
    /// An empty world with default physics.
    pub fn empty() -> SceneModel {
        SceneModel {
            sky: [24, 28, 36],
            gravity_y: -9.81,
            dt_secs: DEFAULT_DT_SECS,
            environment: None,
            bodies: vec![],
            joints: vec![],
            robots: vec![],
            groups: vec![],
            sensors: vec![],
            actuators: vec![],
            beacons: vec![],
            challenge: None,
        }
    }

    /// The index of the body called `name`.
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name == name)
    }
}

/// Small models shared by this module's tests.
#[cfg(test)]
pub(crate) mod test_support {
    use super::{BodyModel, Motion, Palette, PartModel, Pose, Shape};

    /// A red 10 cm ball named `name`, 1 m above the origin.
    pub fn ball(name: &str) -> BodyModel {
        BodyModel {
            name: name.into(),
            motion: Motion::Dynamic,
            pose: Pose::at([0.0, 1.0, 0.0]),
            parts: vec![PartModel {
                shape: Shape::Sphere { radius: 0.1 },
                local: Pose::IDENTITY,
                material: Palette::default().get("Red"),
                density: 1000.0,
                friction: 0.5,
                restitution: 0.1,
                name: None,
                mesh: None,
                drawn_only: false,
            }],
            robot: None,
            owner: None,
        }
    }
}
