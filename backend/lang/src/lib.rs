//! The scene model and the .vlab scene description language: parse, interpret, produce a SceneModel.
//!
//! `vlab-scene` knows nothing of rapier, axum, tokio or the network and reads no files:
//! includes, project files and assets arrive through a [`SourceLoader`] the caller
//! gives. It builds for `wasm32-unknown-unknown` (no threads, files or clocks needed),
//! so the browser can check a scene before uploading it.
//!
//! # The pipeline
//! [`interpret`] lexes and parses the main file and every `include` (a syntax error
//! anywhere stops everything), then runs the program under [`Budgets`]: variables,
//! expressions, loops and functions execute and *collect* bodies, joints, robots,
//! sensors and actuators into a [`SceneModel`] that is not yet live. Any error (syntax
//! or semantic) is a [`LangError`] printed as `file:line:col: message`; warnings
//! (unknown material, missing mesh) and `print_*` lines come back beside the model.
//!
//! # Why hand-written recursive descent
//! The grammar is small but context-sensitive in friendly ways (keywords are
//! case-insensitive and not reserved, so `compass` can name an object while
//! `Compass c;` declares a sensor; `name { ... }` is an object, `name = ...` an
//! assignment). A hand-written parser decides each case with one or two tokens of
//! lookahead, knows *what it was parsing* when something is missing (`expected ';'
//! after pos(...)`, pointed just after the `)`), has no generated tables or macro
//! crates to build (for wasm or on a small CI machine) and bounds its own nesting, so
//! a hostile file cannot overflow the stack.
//!
//! # Choices the language makes
//! docs/scene-language.md describes the language for its users; these are the choices
//! an implementation could make otherwise:
//! - Precedence, loosest first: `||`, `&&`, comparisons (`== !=` also on strings and
//!   booleans), `.` (concatenation), `+ -`, `* /`, `^`, unary `-` and `!` (so `-2^2`
//!   is 4). `+ -`, `* /` and `^` group to the right, as the original VLAB grammar
//!   reads them (`a - b - c` is `a - (b - c)`), so its files build what they always
//!   built; where that differs from reading left to right, the parser warns.
//! - Repeated warnings are said once, at their first place, with their count.
//! - `.` joins strings only: numbers go through `string(x)`, which writes whole
//!   numbers without decimals (`"box_" . string(3)` is `box_3`).
//! - Ranges count up by 1 unless a step is given: `{5>0}` is empty, `{5>0|-1}` is
//!   5,4,3,2,1. The loop variable is a fresh `num` per iteration.
//! - Functions are declared at the top level of a file and known everywhere (they may
//!   call each other in any order). A function sees its parameters, its own locals
//!   and the top-level variables, not its caller's locals.
//! - Elements are added to the model when their block ends. Joints are resolved when
//!   the whole program has run, so a joint may name an object declared after it.
//!   Joints are named `first-second` (`base-wheel1`, then `base-wheel1-2`, ...).
//! - Object, container, composed, member and robot names share one namespace (the
//!   environment claims `floor`, `wall_south`, `wall_north`, `wall_west`, `wall_east`
//!   and `ceiling`); sensor and actuator names are unique within their robot.
//! - Defaults: density 1000 kg/m³ (a part of a composed object takes the first density
//!   its siblings give, as VLAB's files expect), friction 0.5, restitution 0.1, material `Grey`,
//!   environment 20 x 20 m, walls 3 m high (1 m for `wallrect`), joint anchor at the
//!   second object's position, `axis(1,0,0)`, `axis2(0,1,0)`, motor `max_force` 10.
//! - `capsule(r, len)`: `len` is the cylindrical part, without the caps (as in ODE).
//! - Successive `quaternion`/`rotation_axis` statements compose, each turning the
//!   object further about the world's axes.
//! - A mesh without `customgeom` collides as a 1 m box (with a warning): the
//!   interpreter does not read mesh files, so it cannot measure them.
//! - A challenge's words (`zone`, `success`, `score`, `then`, ...) are keywords only
//!   where nothing else could stand (`start { ... }` is the start only inside a
//!   challenge, an object elsewhere). Conditions combine with `and`/`or`/`not`/`then`
//!   (and take `&&`/`||`/`!` too); an event's argument written as a bare word is a
//!   name, never a variable, and one written as an expression must be a string.
//! - Extensions: `friction f;`, `restitution r;`, the functions `tan atan atan2 exp
//!   abs min max`, and `f(x)` as well as `call f(x)`.
//!
//! # Example
//! ```
//! use vlab_scene::{interpret, NoFiles, Options};
//!
//! let scene = r#"
//!     environment room { width 10; length 8; }
//!     for i in {0>3} {
//!         id:["crate_" . string(i)] { shape box(1,1,1); pos(2 + i*1.5, 0.5, 3); material "Wood"; }
//!     }
//!     print_num 3;
//! "#;
//! let result = interpret(scene, "main.vlab", &NoFiles, &Options::default()).unwrap();
//! assert!(result.model.body_index("crate_2").is_some());
//! assert_eq!(result.log, vec!["3"]);
//! ```

mod ast;
pub mod catalogue;
mod dump;
mod error;
pub mod footprints;
mod interp;
pub mod keywords;
mod lexer;
mod loader;
pub mod meshfile;
pub mod model;
mod parser;
mod project;
pub mod urdf;
mod write;

pub use self::dump::dump;
pub use self::error::{ErrorKind, LangError, Position, Warning};
pub use self::footprints::{Footprint, static_footprints};
#[cfg(not(target_arch = "wasm32"))]
pub use self::loader::DirLoader;
pub use self::loader::{LoadError, MapLoader, NoFiles, SourceLoader, is_foreign_path, last_component, resolve_path};
pub use self::model::*;
pub use self::project::{ParsedProject, ProjectWarning, parse_project, read_project};
pub use self::write::{NamedFiles, SaveNote, WriteError, named_files, write_scene};

/// Limits on one interpretation, so that a hostile or buggy scene ends with a clear,
/// positioned error instead of hanging or exhausting the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budgets {
    /// Statements and expression nodes evaluated.
    pub max_instructions: u64,
    /// Nested function calls.
    pub max_call_depth: usize,
    /// Statements and expressions being evaluated inside one another, calls included:
    /// what bounds the interpreter's use of the (native or wasm) stack. A level costs
    /// about 1 KiB in a debug build, so the default fits a 2 MiB test thread and the
    /// 1 MiB wasm stack.
    pub max_eval_depth: usize,
    /// Nesting of blocks, parentheses and operators in the source.
    pub max_nesting: usize,
    /// Bodies, parts, joints, robots, containers, sensors and actuators.
    pub max_elements: usize,
    /// Includes within includes.
    pub max_include_depth: usize,
    /// Source text, all files together.
    pub max_source_bytes: usize,
    /// Length of any one string value.
    pub max_string_len: usize,
    /// `print_*` lines.
    pub max_log_lines: usize,
    /// Camera rays one robot's cameras may cast per second of simulation time, all
    /// together (width × height × rate; default
    /// [`catalogue::MAX_CAMERA_RAYS_PER_ROBOT`]): a ray costs the lab's thread a few
    /// hundred nanoseconds. Benches that time one image a step raise it.
    pub max_camera_rays_per_robot: u64,
}

impl Default for Budgets {
    fn default() -> Self {
        Budgets {
            max_instructions: 20_000_000,
            max_call_depth: 200,
            max_eval_depth: 1_000,
            max_nesting: 100,
            max_elements: 100_000,
            max_include_depth: 16,
            max_source_bytes: 4 << 20,
            max_string_len: 1 << 20,
            max_log_lines: 10_000,
            max_camera_rays_per_robot: catalogue::MAX_CAMERA_RAYS_PER_ROBOT,
        }
    }
}

/// How to interpret a scene.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Seed of `random`: the same seed gives the same scene.
    pub seed: u64,
    /// Limits.
    pub budgets: Budgets,
}

/// What a scene produced.
#[derive(Clone, Debug, PartialEq)]
pub struct Interpretation {
    /// The elements to insert, valid ([`SceneModel::validate`] passes).
    pub model: SceneModel,
    /// `print_*` lines, in order.
    pub log: Vec<String>,
    /// Problems that did not stop the scene.
    pub warnings: Vec<Warning>,
}

/// Parses and runs the scene `main` (named `file_name` in messages and as the base of
/// its includes), loading includes through `loader`.
///
/// Nothing is partial: either the whole model, or the errors (today always one: the
/// first, since a scene stops at its first error).
pub fn interpret(
    main: &str,
    file_name: &str,
    loader: &dyn SourceLoader,
    options: &Options,
) -> Result<Interpretation, Vec<LangError>> {
    let mut session = parser::ParseSession::new(loader, options.budgets, file_name);
    let program = parser::parse_file(main, file_name, &mut session, true).map_err(|e| vec![e])?;
    interp::Interp::new(options, loader, session.warnings).run(&program).map_err(|e| vec![e])
}

/// Only parses `main` and its includes: the syntax check an editor runs on each keystroke.
pub fn check_syntax(
    main: &str,
    file_name: &str,
    loader: &dyn SourceLoader,
    budgets: &Budgets,
) -> Result<(), LangError> {
    let mut session = parser::ParseSession::new(loader, *budgets, file_name);
    parser::parse_file(main, file_name, &mut session, true).map(|_| ())
}
