//! The syntax tree the parser builds and the interpreter walks. Includes are already
//! spliced in; every node keeps the position it came from.

mod challenge;

use std::rc::Rc;

pub use self::challenge::{ArgKind, ChallengeStmt, CompareOp, Cond, CondKind, EventCall, EventKind, ScoreSpec};
use crate::catalogue::DeviceSpec;
use crate::error::Position;
use crate::model::ProgramRate;

/// The three value types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    /// f64.
    Num,
    /// Text.
    Str,
    /// true / false.
    Bool,
}

impl Type {
    /// The name the language uses.
    pub fn name(self) -> &'static str {
        match self {
            Type::Num => "num",
            Type::Str => "string",
            Type::Bool => "boolean",
        }
    }
}

/// An expression.
#[derive(Clone, Debug)]
pub struct Expr {
    /// What it computes.
    pub kind: ExprKind,
    /// Where it starts.
    pub pos: Position,
}

/// Expression kinds.
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// A number literal or constant.
    Num(f64),
    /// A string literal.
    Str(Rc<str>),
    /// `true` / `false`.
    Bool(bool),
    /// A variable (or, if no variable has that name, the constants `pi`/`e`).
    Var(String),
    /// `-x`, `!x`.
    Unary(UnOp, Box<Expr>),
    /// `a op b`.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// A built-in function.
    Builtin(Builtin, Vec<Expr>),
    /// A user function (`call f(...)` or `f(...)`).
    Call(String, Vec<Expr>),
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// Numeric negation.
    Neg,
    /// Boolean not.
    Not,
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `^`
    Pow,
    /// `.` (string concatenation)
    Concat,
    /// `&&`
    And,
    /// `||`
    Or,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl BinOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Pow => "^",
            BinOp::Concat => ".",
            BinOp::And => "&&",
            BinOp::Or => "||",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
        }
    }
}

/// Built-in functions (names case-insensitive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// sin(x)
    Sin,
    /// cos(x)
    Cos,
    /// tan(x)
    Tan,
    /// atan(x)
    Atan,
    /// atan2(y, x)
    Atan2,
    /// sign(x): -1, 0 or 1
    Sign,
    /// sqrt(x)
    Sqrt,
    /// natural log
    Log,
    /// log10
    Log10,
    /// exp(x)
    Exp,
    /// abs(x)
    Abs,
    /// floor
    Floor,
    /// ceil
    Ceil,
    /// round (half away from zero)
    Round,
    /// mod(a, b): the remainder with the sign of `a`
    Mod,
    /// min(a, b)
    Min,
    /// max(a, b)
    Max,
    /// random / rnd with 0, 1 or 2 arguments
    Random,
    /// string(x)
    String,
    /// bool(x)
    Bool,
}

impl Builtin {
    /// The built-in called `name` (case-insensitive) and how many arguments it takes.
    pub fn lookup(name: &str) -> Option<(Builtin, std::ops::RangeInclusive<usize>)> {
        let lower = name.to_ascii_lowercase();
        Some(match lower.as_str() {
            "sin" => (Builtin::Sin, 1..=1),
            "cos" => (Builtin::Cos, 1..=1),
            "tan" => (Builtin::Tan, 1..=1),
            "atan" => (Builtin::Atan, 1..=1),
            "atan2" => (Builtin::Atan2, 2..=2),
            "sign" => (Builtin::Sign, 1..=1),
            "sqrt" => (Builtin::Sqrt, 1..=1),
            "log" => (Builtin::Log, 1..=1),
            "log10" => (Builtin::Log10, 1..=1),
            "exp" => (Builtin::Exp, 1..=1),
            "abs" => (Builtin::Abs, 1..=1),
            "floor" => (Builtin::Floor, 1..=1),
            "ceil" => (Builtin::Ceil, 1..=1),
            "round" => (Builtin::Round, 1..=1),
            "mod" => (Builtin::Mod, 2..=2),
            "min" => (Builtin::Min, 2..=2),
            "max" => (Builtin::Max, 2..=2),
            "random" | "rnd" => (Builtin::Random, 0..=2),
            "string" => (Builtin::String, 1..=1),
            "bool" => (Builtin::Bool, 1..=1),
            _ => return None,
        })
    }
}

/// A name as written: literal, or computed with `id:[string_expr]`.
#[derive(Clone, Debug)]
pub enum Name {
    /// `crate1`
    Literal(String),
    /// `id:["box_" . string(i)]`
    Dynamic(Box<Expr>),
}

/// One item of a `for` list.
#[derive(Clone, Debug)]
pub enum ListItem {
    /// A single value.
    Single(Expr),
    /// `from > to` (exclusive) or `from >= to` (inclusive), optional `| step`.
    Range {
        /// First value.
        from: Expr,
        /// Bound.
        to: Expr,
        /// Whether `to` is included.
        inclusive: bool,
        /// Step (default 1).
        step: Option<Expr>,
    },
}

/// A user function.
#[derive(Debug)]
pub struct FunctionDef {
    /// Its name.
    pub name: String,
    /// `None` for `void`.
    pub returns: Option<Type>,
    /// Typed parameters.
    pub params: Vec<(Type, String)>,
    /// Its statements.
    pub body: Vec<Stmt>,
    /// Where it was declared.
    pub pos: Position,
}

/// A shape as written: `box(1,2,3)`, `mesh("wheel.mesh", 0.01)`.
#[derive(Clone, Debug)]
pub struct ShapeSpec {
    /// Which.
    pub kind: ShapeKind,
    /// Its arguments.
    pub args: Vec<Expr>,
    /// Where.
    pub pos: Position,
}

/// Shape kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapeKind {
    /// sphere(r)
    Sphere,
    /// box(w, h, l)
    Box,
    /// cylinder(r, len)
    Cylinder,
    /// capsule(r, len)
    Capsule,
    /// mesh("file", scale)
    Mesh,
}

/// Vector-valued properties: `pos(x,y,z)` and friends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VectorProp {
    /// pos / position
    Pos,
    /// quaternion / quat (w, x, y, z)
    Quaternion,
    /// rotation_axis / rot_axis (ax, ay, az, angle)
    RotationAxis,
    /// anchor
    Anchor,
    /// axis
    Axis,
    /// axis2
    Axis2,
}

impl VectorProp {
    /// How it is written, for messages.
    pub fn name(self) -> &'static str {
        match self {
            VectorProp::Pos => "pos",
            VectorProp::Quaternion => "quaternion",
            VectorProp::RotationAxis => "rotation_axis",
            VectorProp::Anchor => "anchor",
            VectorProp::Axis => "axis",
            VectorProp::Axis2 => "axis2",
        }
    }

    /// How many numbers it takes.
    pub fn arity(self) -> usize {
        match self {
            VectorProp::Quaternion | VectorProp::RotationAxis => 4,
            _ => 3,
        }
    }
}

/// Single-valued properties: `density 600;`, `sky "Black";`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarProp {
    /// density (kg/m³)
    Density,
    /// material "name"
    Material,
    /// friction coefficient (an extension)
    Friction,
    /// restitution 0..1 (an extension)
    Restitution,
    /// environment width
    Width,
    /// environment length (also `lenght`)
    Length,
    /// environment height
    Height,
    /// sky material
    Sky,
    /// ground material
    Ground,
    /// walls material
    Walls,
    /// ceiling material
    Ceiling,
    /// gravity along Y
    Gravity,
    /// error reduction parameter
    Erp,
    /// constraint force mixing
    Cfm,
    /// collide true: a joint's two bodies keep their contacts
    Collide,
    /// color "Green": a challenge zone's look
    Color,
}

impl ScalarProp {
    /// How it is written, for messages.
    pub fn name(self) -> &'static str {
        match self {
            ScalarProp::Density => "density",
            ScalarProp::Material => "material",
            ScalarProp::Friction => "friction",
            ScalarProp::Restitution => "restitution",
            ScalarProp::Width => "width",
            ScalarProp::Length => "length",
            ScalarProp::Height => "height",
            ScalarProp::Sky => "sky",
            ScalarProp::Ground => "ground",
            ScalarProp::Walls => "walls",
            ScalarProp::Ceiling => "ceiling",
            ScalarProp::Gravity => "gravity",
            ScalarProp::Erp => "erp",
            ScalarProp::Cfm => "cfm",
            ScalarProp::Collide => "collide",
            ScalarProp::Color => "color",
        }
    }

    /// The type of its value.
    pub fn value_type(self) -> Type {
        match self {
            ScalarProp::Material
            | ScalarProp::Sky
            | ScalarProp::Ground
            | ScalarProp::Walls
            | ScalarProp::Ceiling
            | ScalarProp::Color => Type::Str,
            ScalarProp::Collide => Type::Bool,
            _ => Type::Num,
        }
    }
}

/// Object flavours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectKind {
    /// One body, one part.
    Plain,
    /// One body of several parts.
    Composed,
    /// A logical group of separate bodies.
    Container,
}

/// The nine joint types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointType {
    /// JointBall
    Ball,
    /// JointHinge
    Hinge,
    /// JointSlider
    Slider,
    /// JointUniversal
    Universal,
    /// JointHinge2
    Hinge2,
    /// JointFixed
    Fixed,
    /// JointPR
    PR,
    /// JointPU
    PU,
    /// JointPiston
    Piston,
    /// JointPlanar
    Planar,
}

impl JointType {
    /// `JointHinge` etc. (case-insensitive).
    pub fn lookup(word: &str) -> Option<JointType> {
        Some(match word.to_ascii_lowercase().as_str() {
            "jointball" => JointType::Ball,
            "jointhinge" => JointType::Hinge,
            "jointslider" => JointType::Slider,
            "jointuniversal" => JointType::Universal,
            "jointhinge2" => JointType::Hinge2,
            "jointfixed" => JointType::Fixed,
            "jointpr" => JointType::PR,
            "jointpu" => JointType::PU,
            "jointpiston" => JointType::Piston,
            "jointplanar" => JointType::Planar,
            _ => return None,
        })
    }

    /// The canonical spelling.
    pub fn name(self) -> &'static str {
        match self {
            JointType::Ball => "JointBall",
            JointType::Hinge => "JointHinge",
            JointType::Slider => "JointSlider",
            JointType::Universal => "JointUniversal",
            JointType::Hinge2 => "JointHinge2",
            JointType::Fixed => "JointFixed",
            JointType::PR => "JointPR",
            JointType::PU => "JointPU",
            JointType::Piston => "JointPiston",
            JointType::Planar => "JointPlanar",
        }
    }
}

/// `print_str`, `print_num`, `print_bool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrintKind {
    /// print_str
    Str,
    /// print_num
    Num,
    /// print_bool
    Bool,
}

/// A sensor/actuator parameter: `range 10;` or `output_curve(0,0, 1,1);`.
#[derive(Clone, Debug)]
pub struct Param {
    /// Lower-case name.
    pub name: String,
    /// One value, or several for the parenthesised form.
    pub values: Vec<Expr>,
    /// Whether it was written `name(...)`.
    pub list: bool,
    /// Where.
    pub pos: Position,
}

/// A statement.
#[derive(Clone, Debug)]
pub struct Stmt {
    /// What it does.
    pub kind: StmtKind,
    /// Where it starts.
    pub pos: Position,
}

/// Statement kinds.
#[derive(Clone, Debug)]
pub enum StmtKind {
    /// `{ ... }`: a new scope.
    Block(Vec<Stmt>),
    /// An included file's statements, in the includer's scope.
    Included(Vec<Stmt>),
    /// `num a = 1;`
    Decl {
        /// Declared type.
        ty: Type,
        /// Name.
        name: String,
        /// Initial value (else 0, "" or false).
        init: Option<Expr>,
    },
    /// `a = 1;` / `a : 1;`
    Assign {
        /// Variable.
        name: String,
        /// New value.
        value: Expr,
    },
    /// `if (c) ... else ...`
    If {
        /// Condition.
        cond: Expr,
        /// Then branch.
        then: Box<Stmt>,
        /// Else branch.
        otherwise: Option<Box<Stmt>>,
    },
    /// `for i in {...} { ... }`
    For {
        /// Loop variable (a num, scoped to the loop).
        var: String,
        /// The list.
        items: Vec<ListItem>,
        /// Body.
        body: Box<Stmt>,
    },
    /// `function ...`
    Function(Rc<FunctionDef>),
    /// `return x;`
    Return(Option<Expr>),
    /// `call f(...);`
    Expr(Expr),
    /// `print_num x;`
    Print(PrintKind, Expr),
    /// `environment room { ... }`
    Environment {
        /// `room` or `wallrect`.
        room: bool,
        /// Its settings.
        body: Vec<Stmt>,
    },
    /// An object, composed object or container.
    Object {
        /// Which.
        kind: ObjectKind,
        /// `static`?
        is_static: bool,
        /// Its name.
        name: Name,
        /// Its block.
        body: Vec<Stmt>,
    },
    /// `JointHinge(a, b) { ... }`
    Joint {
        /// Which.
        kind: JointType,
        /// First object, and where its name is written.
        first: (Name, Position),
        /// Second object, and where its name is written.
        second: (Name, Position),
        /// Its block (may be empty).
        body: Vec<Stmt>,
    },
    /// `robot name { ... }`
    Robot {
        /// Its name.
        name: Name,
        /// Its block.
        body: Vec<Stmt>,
    },
    /// `code "file";` / `code { "file" }`
    Code(Expr),
    /// `program_rate every_step;` / `program_rate control;` in a robot's block.
    ProgramRate(ProgramRate),
    /// `body { ... }` inside a robot.
    RobotBody(Vec<Stmt>),
    /// `urdf "file.urdf";` or `urdf "file.urdf" { pos(...); link { devices } }` in a
    /// robot's body: the robot described by a URDF file (docs/urdf.md).
    Urdf {
        /// The file's name.
        file: Expr,
        /// Its placement and the devices added to its links and joints.
        body: Vec<Stmt>,
    },
    /// `shape ...;` (custom = false) or `customgeom ...;` (custom = true)
    Shape {
        /// Whether it is the collision shape.
        custom: bool,
        /// The shape.
        spec: ShapeSpec,
    },
    /// `pos(...)` and friends.
    Vector(VectorProp, Vec<Expr>),
    /// `density 600;` and friends.
    Scalar(ScalarProp, Expr),
    /// `challenge "title" { ... }`: what "solved" means (docs/challenges.md).
    Challenge {
        /// Its title.
        title: Expr,
        /// Its statements.
        body: Vec<Stmt>,
    },
    /// A statement of a challenge's block.
    ChallengeItem(ChallengeStmt),
    /// A sensor or actuator declaration.
    Device {
        /// Its catalogue entry.
        spec: &'static DeviceSpec,
        /// Its name.
        name: Name,
        /// Its parameters.
        params: Vec<Param>,
    },
}
