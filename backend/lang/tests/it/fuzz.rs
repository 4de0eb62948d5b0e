//! A deterministic fuzz loop: the lexer, parser and interpreter never panic (nor hang,
//! nor overflow the stack) on arbitrary bytes, token soup, or mutations of valid scenes.
//! Every input ends in a model or in positioned errors.
//!
//! Deterministic (ChaCha seeded by iteration) rather than proptest: the same inputs
//! every run, no shrinking machinery to build on a small shared machine, and a failure
//! prints the seed and the input to replay.

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use vlab_scene::{Budgets, MapLoader, Options, interpret};

/// The tank robot's function file, which tankbot.vlab includes.
const TANKBOT_ROBOT: &str = include_str!("../../../../scenes/tankbot_robot.vlab");

const SCENES: [&str; 4] = [
    include_str!("../../../../scenes/pyramid.vlab"),
    include_str!("../../../../scenes/cart.vlab"),
    include_str!("../../../../scenes/tankbot.vlab"),
    // The robot function itself, called: its body is mutated too, not only the call.
    concat!(include_str!("../../../../scenes/tankbot_robot.vlab"), "call tankbot(\"_a\", 2, 3, 0.5);\n"),
];

const WORDS: &[&str] = &[
    "num",
    "string",
    "boolean",
    "if",
    "else",
    "for",
    "in",
    "function",
    "void",
    "return",
    "call",
    "print_str",
    "print_num",
    "print_bool",
    "include",
    "environment",
    "room",
    "wallrect",
    "static",
    "container",
    "composed",
    "robot",
    "code",
    "body",
    "shape",
    "customgeom",
    "box",
    "sphere",
    "cylinder",
    "capsule",
    "mesh",
    "pos",
    "quaternion",
    "rotation_axis",
    "density",
    "material",
    "anchor",
    "axis",
    "axis2",
    "erp",
    "cfm",
    "width",
    "lenght",
    "JointHinge",
    "JointBall",
    "JointFixed",
    "SimpleMotor",
    "SimpleGPS",
    "Keyboard",
    "Lidar",
    "id",
    "x",
    "a",
    "b",
    "pi",
    "random",
    "string",
    "mod",
    "true",
    "false",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ",",
    "=",
    ":",
    ".",
    "+",
    "-",
    "*",
    "/",
    "^",
    "!",
    "&&",
    "||",
    "==",
    "<",
    ">=",
    ">",
    "|",
    "0",
    "1",
    "2.5",
    ".5",
    "1e300",
    "\"Wood\"",
    "\"a.vlab\"",
    "\"",
    "/*",
    "*/",
    "//",
    "\n",
];

fn options() -> Options {
    Options { seed: 7, budgets: Budgets { max_instructions: 200_000, max_elements: 2_000, ..Budgets::default() } }
}

fn loader() -> MapLoader {
    MapLoader::new()
        .with_file("a.vlab", "num from_a = 1; include \"b.vlab\";")
        .with_file("b.vlab", "a_box { shape box(1,1,1); }")
        .with_file("tankbot.rprj", "TYPE:RHAI\nSRC:t.rhai")
        .with_file("tankbot_robot.vlab", TANKBOT_ROBOT)
}

/// Runs one input; true if it produced a model.
fn check(input: &str, what: &str, seed: u64) -> bool {
    let result = std::panic::catch_unwind(|| interpret(input, "fuzz.vlab", &loader(), &options()).is_ok());
    assert!(result.is_ok(), "{what} #{seed} panicked on:\n{input}");
    result.unwrap_or(false)
}

fn mutate(rng: &mut ChaCha8Rng, text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let edits = 1 + rng.next_u32() % 6;
    for _ in 0..edits {
        let at = if chars.is_empty() { 0 } else { rng.next_u32() as usize % chars.len() };
        match rng.next_u32() % 6 {
            5 => {
                // Change a digit: mostly keeps the syntax and moves the semantics.
                if let Some(i) = (at..chars.len()).find(|&i| chars[i].is_ascii_digit()) {
                    chars[i] = char::from(b'0' + (rng.next_u32() % 10) as u8);
                }
            }
            0 if !chars.is_empty() => {
                chars.remove(at);
            }
            1 => {
                let word = WORDS[rng.next_u32() as usize % WORDS.len()];
                for (i, c) in word.chars().enumerate() {
                    chars.insert(at + i, c);
                }
            }
            2 if !chars.is_empty() => {
                // Delete a span.
                let len = (rng.next_u32() as usize % 40).min(chars.len() - at);
                chars.drain(at..at + len);
            }
            3 if !chars.is_empty() => {
                // Duplicate a span.
                let len = (rng.next_u32() as usize % 60).min(chars.len() - at);
                let span: Vec<char> = chars[at..at + len].to_vec();
                for (i, c) in span.into_iter().enumerate() {
                    chars.insert(at + i, c);
                }
            }
            _ => {
                let c = char::from_u32(rng.next_u32() % 0x300).unwrap_or('?');
                chars.insert(at, c);
            }
        }
    }
    chars.into_iter().collect()
}

#[test]
fn mutations_of_valid_scenes_never_panic() {
    let mut models = 0;
    for seed in 0..6000u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let base = SCENES[seed as usize % SCENES.len()];
        models += check(&mutate(&mut rng, base), "mutation", seed) as usize;
    }
    // Enough mutants survive the parser to exercise the interpreter too.
    assert!(models > 200, "only {models} mutants produced a model");
}

#[test]
fn token_soup_never_panics() {
    for seed in 0..4000u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(1_000_000 + seed);
        let len = rng.next_u32() % 80;
        let input: Vec<&str> = (0..len).map(|_| WORDS[rng.next_u32() as usize % WORDS.len()]).collect();
        check(&input.join(" "), "soup", seed);
    }
}

#[test]
fn arbitrary_characters_never_panic() {
    for seed in 0..2000u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(2_000_000 + seed);
        let len = rng.next_u32() % 200;
        let input: String = (0..len).filter_map(|_| char::from_u32(rng.next_u32() % 0x800)).collect();
        check(&input, "chars", seed);
    }
}

#[test]
fn valid_scenes_still_interpret_after_whitespace_mutations() {
    for (i, scene) in SCENES.iter().enumerate() {
        // Whitespace goes around the code's `;` and `{`, not into comments (a newline
        // there would end the comment and turn its words into code).
        let spaced: String = scene
            .lines()
            .map(|line| {
                let (code, comment) = line.split_at(line.find("//").unwrap_or(line.len()));
                format!("{}{comment}\n", code.replace(';', " ;\n").replace('{', "\t{ "))
            })
            .collect();
        let result = interpret(&spaced, "s.vlab", &loader(), &Options::default());
        assert!(result.is_ok(), "scene {i}: {}", result.err().unwrap()[0]);
    }
}
