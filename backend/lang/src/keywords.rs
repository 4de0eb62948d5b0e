//! The words of the language, for tools that colour `.vlab` text (the browser's editor).
//!
//! Keywords are case-insensitive and not reserved (see the crate's docs): these lists
//! say what a word *can* mean, not what it means at a given place; the parser decides
//! that. The device types come from the [`catalogue`](crate::catalogue) itself; the
//! other lists are checked against the parser by this module's tests, so a word added
//! to the language without being added here fails them.

use crate::catalogue::CATALOGUE;

/// Statement and declaration words, lower case: `include`, `if`, `for`, `function`,
/// `robot`, `static`, the types `num`/`string`/`boolean`, the literals `true`/`false`,
/// and a challenge's statements and the words that combine its conditions (`and`, `or`,
/// `not`, `then`, `once`).
pub const KEYWORDS: &[&str] = &[
    "include",
    "if",
    "else",
    "for",
    "in",
    "function",
    "return",
    "call",
    "num",
    "string",
    "boolean",
    "void",
    "true",
    "false",
    "environment",
    "env",
    "room",
    "wallrect",
    "static",
    "composed",
    "container",
    "robot",
    "body",
    "code",
    "program_rate",
    "urdf",
    "id",
    "print_str",
    "print_num",
    "print_bool",
    "challenge",
    "time_limit",
    "zone",
    "start",
    "heading",
    "success",
    "failure",
    "goal",
    "points",
    "when",
    "score",
    "and",
    "or",
    "not",
    "then",
    "once",
];

/// A challenge's events, lower case: `entered(zone)`, `touched(walls)`, `time() >= 30`, …
pub const EVENTS: &[&str] = &[
    "entered",
    "left",
    "inside",
    "stopped_in",
    "touched",
    "pushed_into",
    "fell",
    "flipped",
    "no_progress",
    "sensor",
    "time",
];

/// How a challenge scores an attempt (`score time;`, `score distance(zone);`), lower case.
pub const SCORES: &[&str] = &["time", "distance", "percent", "points"];

/// Shapes (`shape box(...)`), lower case.
pub const SHAPES: &[&str] = &["sphere", "box", "cylinder", "capsule", "mesh"];

/// Properties written inside a block, lower case: `shape`, `pos(...)`, `density 5;`,
/// an environment's `width`, `gravity`, a zone's `color`, … (with the spellings the parser also takes:
/// `position`, `quat`, `rot_axis`, `lenght`).
pub const PROPERTIES: &[&str] = &[
    "shape",
    "customgeom",
    "pos",
    "position",
    "quaternion",
    "quat",
    "rotation_axis",
    "rot_axis",
    "anchor",
    "axis",
    "axis2",
    "density",
    "material",
    "friction",
    "restitution",
    "width",
    "length",
    "lenght",
    "height",
    "sky",
    "ground",
    "walls",
    "ceiling",
    "gravity",
    "erp",
    "cfm",
    "collide",
    "color",
];

/// Built-in functions, lower case: `sin(x)`, `atan2(y, x)`, `random()`, `string(x)`, …
pub const FUNCTIONS: &[&str] = &[
    "sin", "cos", "tan", "atan", "atan2", "sign", "sqrt", "log", "log10", "exp", "abs", "floor", "ceil", "round",
    "mod", "min", "max", "random", "rnd", "string", "bool",
];

/// Named constants, lower case.
pub const CONSTANTS: &[&str] = &["pi", "e"];

/// Joint types, as the language spells them (`JointHinge`).
pub const JOINT_TYPES: &[&str] = &[
    "JointBall",
    "JointHinge",
    "JointSlider",
    "JointUniversal",
    "JointHinge2",
    "JointFixed",
    "JointPR",
    "JointPU",
    "JointPiston",
    "JointPlanar",
];

/// Sensor and actuator types, as the catalogue spells them (`SimpleGPS`, `DiffDrive`).
pub const DEVICE_TYPES: [&str; CATALOGUE.len()] = {
    let mut names = [""; CATALOGUE.len()];
    let mut i = 0;
    while i < CATALOGUE.len() {
        names[i] = CATALOGUE[i].name;
        i += 1;
    }
    names
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::{Builtin, EventKind, JointType};
    use crate::{Budgets, MapLoader, NoFiles, check_syntax};

    fn parses(source: &str) -> bool {
        check_syntax(source, "words.vlab", &NoFiles, &Budgets::default()).is_ok()
    }

    #[test]
    fn device_types_are_the_catalogue() {
        assert_eq!(DEVICE_TYPES.len(), CATALOGUE.len());
        for (name, spec) in DEVICE_TYPES.iter().zip(CATALOGUE) {
            assert_eq!(*name, spec.name);
            assert!(parses(&format!("robot r {{ body {{ b {{ shape box(1,1,1); }} }} {name} d; }}")), "{name}");
        }
    }

    #[test]
    fn every_joint_type_is_listed_once_in_its_spelling() {
        // Exhaustive: a new joint type stops this compiling until it is listed.
        let all = |kind: JointType| match kind {
            JointType::Ball
            | JointType::Hinge
            | JointType::Slider
            | JointType::Universal
            | JointType::Hinge2
            | JointType::Fixed
            | JointType::PR
            | JointType::PU
            | JointType::Piston
            | JointType::Planar => kind.name(),
        };
        let kinds = [
            JointType::Ball,
            JointType::Hinge,
            JointType::Slider,
            JointType::Universal,
            JointType::Hinge2,
            JointType::Fixed,
            JointType::PR,
            JointType::PU,
            JointType::Piston,
            JointType::Planar,
        ];
        assert_eq!(kinds.map(all).as_slice(), JOINT_TYPES);
        for name in JOINT_TYPES {
            assert_eq!(JointType::lookup(name).map(JointType::name), Some(*name));
        }
    }

    #[test]
    fn every_builtin_function_is_listed() {
        let mut found: Vec<Builtin> = Vec::new();
        for name in FUNCTIONS {
            let (builtin, _) = Builtin::lookup(name).unwrap_or_else(|| panic!("{name} is not a built-in"));
            if !found.contains(&builtin) {
                found.push(builtin);
            }
        }
        // Exhaustive: a new built-in stops this compiling until it is counted (and listed).
        let counted = |builtin: Builtin| match builtin {
            Builtin::Sin
            | Builtin::Cos
            | Builtin::Tan
            | Builtin::Atan
            | Builtin::Atan2
            | Builtin::Sign
            | Builtin::Sqrt
            | Builtin::Log
            | Builtin::Log10
            | Builtin::Exp
            | Builtin::Abs
            | Builtin::Floor
            | Builtin::Ceil
            | Builtin::Round
            | Builtin::Mod
            | Builtin::Min
            | Builtin::Max
            | Builtin::Random
            | Builtin::String
            | Builtin::Bool => 1,
        };
        assert_eq!(found.len(), found.iter().map(|b| counted(*b)).sum::<usize>());
        assert_eq!(found.len(), 20, "every built-in has a name in FUNCTIONS");
    }

    #[test]
    fn properties_and_shapes_are_what_the_parser_takes() {
        // `word(...)` that is not a property is a call of an unknown function.
        let is_vector_property = |word: &str| {
            let scene = format!("static o {{ shape box(1, 1, 1); {word}(1, 0, 0, 0); }}");
            match crate::interpret(&scene, "words.vlab", &NoFiles, &crate::Options::default()) {
                Ok(_) => true,
                Err(errors) => !errors.iter().any(|e| e.to_string().contains("unknown function")),
            }
        };
        let is_scalar_property = |word: &str| parses(&format!("static o {{ {word} 1; }}"));
        for word in PROPERTIES.iter().filter(|w| !matches!(**w, "shape" | "customgeom")) {
            assert!(is_vector_property(word) || is_scalar_property(word), "{word}");
        }
        assert!(!is_vector_property("not_a_property") && !is_scalar_property("not_a_property"));
        let takes_shape = |shape: &str| {
            ["1", "1, 1", "1, 1, 1"].iter().any(|args| parses(&format!("static o {{ shape {shape}({args}); }}")))
        };
        for shape in SHAPES {
            assert!(takes_shape(shape), "{shape}");
        }
        assert!(!takes_shape("blob"));
        assert!(parses("static o { customgeom shape box(1, 1, 1); }"));
    }

    #[test]
    fn every_keyword_starts_or_shapes_a_statement_the_parser_takes() {
        // One program using every keyword as one.
        let program = "include \"walls.vlab\";\n\
            num n = 1; string s = \"a\"; boolean b = true;\n\
            if (b) { print_num n; } else { print_bool false; }\n\
            for i in {0>3} { print_str s; }\n\
            function void f() { return; }\n\
            call f();\n\
            environment room { } env wallrect { }\n\
            static w { } composed c { } container k { }\n\
            robot r { body { urdf \"r.urdf\"; } code \"p.py\"; program_rate every_step; }\n\
            id:[\"named\"] { }\n\
            challenge \"c\" { time_limit 1; zone z { box(1, 1, 1); } start { pos(0, 0, 0); heading 0; }\n\
              success inside(z) and not once(inside(z)) or fell() then fell(); failure fell();\n\
              goal \"g\" fell(); points 1 when fell(); score points; }\n";
        let loader = MapLoader::new().with_file("walls.vlab", "");
        let checked = check_syntax(program, "words.vlab", &loader, &Budgets::default());
        assert!(checked.is_ok(), "{checked:?}");
        let written: Vec<String> =
            program.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map(str::to_ascii_lowercase).collect();
        for keyword in KEYWORDS {
            assert!(written.iter().any(|w| w == keyword), "{keyword} is used in the program");
        }
    }

    #[test]
    fn every_event_is_listed_once_in_its_spelling() {
        let listed: Vec<&str> = EventKind::ALL.map(EventKind::name).to_vec();
        assert_eq!(listed, EVENTS);
        for name in EVENTS {
            assert_eq!(EventKind::lookup(name).map(EventKind::name), Some(*name));
        }
    }

    #[test]
    fn every_score_is_what_the_parser_takes() {
        let challenge = |score: &str| format!("challenge \"c\" {{ time_limit 1; success fell(); score {score}; }}");
        for score in SCORES {
            let written = if *score == "distance" { "distance(z)".to_owned() } else { (*score).to_owned() };
            assert!(parses(&challenge(&written)), "{score}");
        }
        assert!(!parses(&challenge("speed")));
    }
}
