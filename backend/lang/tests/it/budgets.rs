//! Hostile or buggy scenes end quickly with a clear, positioned error: never a hang,
//! a stack overflow or a crash. (Tests run on the test harness's 2 MiB threads, so a
//! budget that let the Rust stack overflow would fail here.)

use crate::common;

use std::time::{Duration, Instant};

use common::{error, error_with};
use vlab_scene::{Budgets, MapLoader, Options};

fn quickly(run: impl FnOnce() -> String) -> String {
    let start = Instant::now();
    let message = run();
    assert!(start.elapsed() < Duration::from_secs(20), "took {:?}: {message}", start.elapsed());
    message
}

#[test]
fn an_endless_loop_runs_out_of_instructions() {
    let e = quickly(|| error("num i = 0;\nfor k in {0>1e300} {\n  i = i + 1;\n}"));
    assert!(e.starts_with("main.vlab:"), "{e}");
    assert!(e.contains("the scene ran more than 20000000 instructions: is there an endless loop?"), "{e}");
}

#[test]
fn an_empty_endless_loop_runs_out_of_instructions_too() {
    let e = quickly(|| error("for k in {0>1e300} { }"));
    assert!(e.contains("instructions"), "{e}");
}

#[test]
fn runaway_recursion_is_stopped_at_the_call_depth() {
    let e = quickly(|| error("function num f(num x) {\n  return call f(x + 1);\n}\nprint_num call f(0);"));
    assert_eq!(e, "main.vlab:2:15: calls are nested more than 200 deep: does 'f' call itself without end?");
}

#[test]
fn deep_but_bounded_recursion_is_fine() {
    let lines = common::log(
        "function num depth(num n) { if (n == 0) { return 0; } return 1 + call depth(n - 1); }\nprint_num call depth(150);",
    );
    assert_eq!(lines, ["150"]);
}

#[test]
fn recursion_that_also_branches_runs_out_of_instructions() {
    let e = quickly(|| error("function void tree(num n) { call tree(n + 1); call tree(n + 1); }\ncall tree(0);"));
    assert!(e.contains("calls are nested") || e.contains("instructions"), "{e}");
}

#[test]
fn a_million_elements_exceed_the_element_budget() {
    let e =
        quickly(|| error("for i in {0>1000000} {\n  id:[\"b\" . string(i)] { shape sphere(0.1); pos(i, 1, 0); }\n}"));
    assert_eq!(e, "main.vlab:2:3: the scene has more than 100000 elements");
}

#[test]
fn include_cycles_are_errors() {
    let loader = MapLoader::new()
        .with_file("a.vlab", "include \"b.vlab\";")
        .with_file("b.vlab", "num x = 1;\ninclude \"a.vlab\";");
    let e = quickly(|| error_with("include \"a.vlab\";", &loader, &Options::default()));
    assert_eq!(e, "b.vlab:2:1: include cycle: a.vlab → b.vlab → a.vlab");
    let e = error_with("include \"main.vlab\";", &MapLoader::new().with_file("main.vlab", ""), &Options::default());
    assert_eq!(e, "main.vlab:1:1: include cycle: main.vlab → main.vlab");
}

#[test]
fn includes_nested_too_deep_are_errors() {
    let mut loader = MapLoader::new();
    for i in 0..40 {
        loader = loader.with_file(&format!("f{i}.vlab"), &format!("include \"f{}.vlab\";", i + 1));
    }
    let e = quickly(|| error_with("include \"f0.vlab\";", &loader, &Options::default()));
    assert!(e.ends_with("includes are nested more than 16 deep"), "{e}");
}

#[test]
fn includes_that_multiply_run_out_of_source_bytes() {
    // Each file includes the next one twice: 2^14 copies of 6 KB if nothing stopped it.
    let mut loader = MapLoader::new();
    for i in 0..14 {
        let padding = "// ".repeat(2000);
        loader = loader.with_file(
            &format!("f{i}.vlab"),
            &format!("{padding}\ninclude \"f{0}.vlab\"; include \"f{0}.vlab\";", i + 1),
        );
    }
    loader = loader.with_file("f14.vlab", "");
    let e = quickly(|| error_with("include \"f0.vlab\";", &loader, &Options::default()));
    assert!(e.contains("longer than"), "{e}");
}

#[test]
fn deeply_nested_source_is_refused_without_overflowing_the_stack() {
    let parens = format!("num x = {}1{};", "(".repeat(100_000), ")".repeat(100_000));
    assert!(quickly(|| error(&parens)).contains("nested too deeply"));
    let minus = format!("num x = {}1;", "-".repeat(100_000));
    assert!(quickly(|| error(&minus)).contains("nested too deeply"));
    let chain = format!("num x = 1{};", " + 1".repeat(100_000));
    assert!(quickly(|| error(&chain)).contains("nested too deeply"));
    let power = format!("num x = 1{};", " ^ 1".repeat(100_000));
    assert!(quickly(|| error(&power)).contains("nested too deeply"));
    let blocks = format!("{}{}", "{".repeat(100_000), "}".repeat(100_000));
    assert!(quickly(|| error(&blocks)).contains("nested too deeply"));
    let ifs = "if (true) ".repeat(100_000) + ";";
    assert!(quickly(|| error(&ifs)).contains("nested too deeply"));
    let objects = "composed a { ".repeat(100_000);
    assert!(quickly(|| error(&objects)).contains("nested too deeply"));
}

#[test]
fn strings_cannot_grow_without_bound() {
    let e = quickly(|| error("string s = \"ab\";\nfor i in {0>100} { s = s . s; }"));
    assert!(e.ends_with("a string grew longer than 1048576 characters"), "{e}");
}

#[test]
fn printing_without_end_runs_out_of_log_lines() {
    let e = quickly(|| error("for i in {0>1e9} { print_num i; }"));
    assert!(e.ends_with("the scene printed more than 10000 lines"), "{e}");
}

#[test]
fn budgets_are_configurable() {
    let options = Options { seed: 0, budgets: Budgets { max_instructions: 50, ..Budgets::default() } };
    let e = error_with("for i in {0>100} { }", &MapLoader::new(), &options);
    assert!(e.contains("more than 50 instructions"), "{e}");
}

#[test]
fn huge_sources_are_refused() {
    let source = "// x\n".repeat(1_000_000);
    let e = quickly(|| error(&source));
    assert!(e.contains("longer than 4194304 bytes"), "{e}");
}

#[test]
fn recursion_through_deep_expressions_does_not_overflow_the_stack() {
    let deep = format!("function num f(num x) {{ return {}call f(x + 1); }}\nprint_num call f(0);", "-".repeat(95));
    let e = quickly(|| error(&deep));
    assert!(e.contains("nested") || e.contains("deep"), "{e}");
    let blocks =
        format!("function void g(num x) {{ {} call g(x); {} }}\ncall g(0);", "{ if (true) ".repeat(30), "}".repeat(30));
    let e = quickly(|| error(&blocks));
    assert!(e.contains("nested") || e.contains("deep"), "{e}");
}

#[test]
fn a_robot_past_its_camera_budget_is_refused_at_the_camera_that_goes_over() {
    // Two default cameras (160 × 120 at 5 Hz) fit; a third, or one camera at 11 Hz of
    // 320 × 240, does not: one robot's cameras must not take the lab's thread.
    let robot = |cameras: &str| {
        format!("robot r {{ body {{ b {{ shape box(0.2, 0.1, 0.2); pos(0, 0.1, 0);\n{cameras} }} }} }}")
    };
    assert_eq!(common::run(&robot("Camera a;\nDepthCamera b;")).model.sensors.len(), 2);
    let e = error(&robot("Camera a;\nCamera b;\nCamera c;"));
    assert!(e.starts_with("main.vlab:4:"), "the third camera's line: {e}");
    assert!(e.contains("robot 'r''s cameras would cast 288000 rays per second"), "{e}");
    let e = error(&robot("Camera big { width 320; height 240; rate 2.6; }"));
    assert!(e.contains("at most 192000"), "{e}");
    let e = error(&robot("Camera a { rate 0; }"));
    assert!(e.contains("'rate' must be positive"), "{e}");
}
