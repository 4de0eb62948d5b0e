//! Error messages a student reads: exact wording and exact `file:line:col`.

use crate::common;

use common::{error, error_with};
use vlab_scene::{MapLoader, Options};

#[test]
fn a_missing_semicolon_is_reported_just_after_what_it_should_follow() {
    assert_eq!(
        error("a {\n  shape box(1,1,1);\n  pos(1,2,3)\n  material \"Wood\";\n}"),
        "main.vlab:3:13: expected ';' after pos(...), found 'material'"
    );
    assert_eq!(error("num a = 3\nnum b;"), "main.vlab:1:10: expected ';' after the declaration of 'a', found 'num'");
    assert_eq!(error("a = 3 b = 4;"), "main.vlab:1:6: expected ';' after the assignment to 'a', found 'b'");
    assert_eq!(error("print_num 1"), "main.vlab:1:12: expected ';' after print_num, found the end of the file");
}

#[test]
fn collide_belongs_in_a_joint_and_takes_a_boolean() {
    assert_eq!(
        error("a { shape box(1,1,1); collide true; }"),
        "main.vlab:1:23: collide belongs inside a joint's block"
    );
    assert_eq!(
        error("a { shape box(1,1,1); } b { shape box(1,1,1); }\nJointBall(a, b) { collide 1; }"),
        "main.vlab:2:27: collide takes true or false, not a num"
    );
}

#[test]
fn syntax_errors_name_what_was_expected() {
    assert_eq!(
        error("a { shape box(1,1,1);"),
        "main.vlab:1:22: expected '}' to close the block after the object's name, found the end of the file"
    );
    assert_eq!(
        error("a { shape cube(1); }"),
        "main.vlab:1:11: expected a shape (sphere, box, cylinder, capsule or mesh), found 'cube'"
    );
    assert_eq!(error("a { shape box(1,1); }"), "main.vlab:1:11: box takes 3 value(s): box(width, height, length)");
    assert_eq!(error("num x = (1 + 2;"), "main.vlab:1:15: expected ')' to close '(', found ';'");
    assert_eq!(error("num x = 1 +;"), "main.vlab:1:12: expected a value, found ';'");
    assert_eq!(error("foo bar;"), "main.vlab:1:5: expected '=', '{' or '(' after 'foo', found 'bar'");
    assert_eq!(error("} "), "main.vlab:1:1: expected a statement, found '}'");
    assert_eq!(error("else { }"), "main.vlab:1:1: 'else' without an 'if' before it");
    assert_eq!(error("for i {0>3} { }"), "main.vlab:1:7: expected 'in' after for i, found '{'");
    assert_eq!(error("num x = sin(1, 2);"), "main.vlab:1:9: sin takes 1 value(s), not 2");
    assert_eq!(error("x = \"abc"), "main.vlab:1:5: this string is never closed: add a '\"'");
    assert_eq!(error("/* no end"), "main.vlab:1:1: this comment is never closed: add '*/'");
    assert_eq!(error("num a = 3 $ 4;"), "main.vlab:1:11: unexpected character '$'");
    assert_eq!(
        error("{ function void f() { } }"),
        "main.vlab:1:3: functions must be declared at the top level of a file, not inside a block"
    );
}

#[test]
fn a_syntax_error_anywhere_stops_everything_before_anything_runs() {
    let result =
        vlab_scene::interpret("print_str \"ran\";\nnum x = ;", "main.vlab", &MapLoader::new(), &Options::default());
    let errors = result.expect_err("a syntax error");
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].to_string(), "main.vlab:2:9: expected a value, found ';'");
    assert_eq!((errors[0].pos.line, errors[0].pos.col, &*errors[0].pos.file), (2, 9, "main.vlab"));
}

#[test]
fn type_errors_name_the_variable_and_both_types() {
    assert_eq!(error("num x = 1;\nx = \"five\";"), "main.vlab:2:1: 'x' is a num, not a string");
    assert_eq!(error("string s = 3;"), "main.vlab:1:12: 's' is a string, not a num");
    assert_eq!(
        error("num x = 1 + \"a\";"),
        "main.vlab:1:9: '+' needs numbers, but the right side is a string: use '.' to join strings"
    );
    assert_eq!(
        error("string s = \"a\" . 1;"),
        "main.vlab:1:12: '.' needs strings, but the right side is a num: convert it with string(...)"
    );
    assert_eq!(error("if (\"yes\") { }"), "main.vlab:1:5: a condition must be a boolean or a num, not a string");
    assert_eq!(error("print_num \"a\";"), "main.vlab:1:11: print_num prints a num, not a string");
    assert_eq!(error("print_bool 1 == \"a\";"), "main.vlab:1:12: cannot compare a num with a string");
    assert_eq!(error("a { shape box(1, \"2\", 3); }"), "main.vlab:1:18: a size must be a num, not a string");
}

#[test]
fn unknown_names_and_duplicates() {
    assert_eq!(error("num a = b + 1;"), "main.vlab:1:9: unknown variable 'b'");
    assert_eq!(error("c = 1;"), "main.vlab:1:1: unknown variable 'c'");
    assert_eq!(error("call nothing(1);"), "main.vlab:1:6: unknown function 'nothing'");
    assert_eq!(error("num a; num a;"), "main.vlab:1:8: 'a' is already declared in this scope");
    assert_eq!(
        error("a { shape sphere(1); }\na { shape sphere(1); }"),
        "main.vlab:2:1: the name 'a' is already used at main.vlab:1:1"
    );
    assert_eq!(
        error("function void f() { }\nfunction void f() { }"),
        "main.vlab:2:1: the function 'f' is already declared at main.vlab:1:1"
    );
    assert_eq!(
        error("function num sin(num x) { return x; }"),
        "main.vlab:1:17: 'sin' is a built-in function: choose another name"
    );
}

#[test]
fn joints_to_missing_objects() {
    assert_eq!(
        error("base { shape box(1,1,1); }\nruota1 { shape sphere(1); }\nJointHinge(base, ruota7) { axis(1,0,0); }"),
        "main.vlab:3:18: unknown object 'ruota7' in JointHinge"
    );
    assert_eq!(
        error("container c { x { shape sphere(1); } }\nJointBall(c, x);"),
        "main.vlab:2:11: 'c' is a container, not an object: JointBall joins objects"
    );
    assert_eq!(
        error("composed t { a { shape sphere(1); } b { shape sphere(1); } }\nJointFixed(a, b);"),
        "main.vlab:2:1: JointFixed joins 'a' and 'b', which are the same rigid body: a joint needs two"
    );
}

#[test]
fn functions_check_arguments_and_returns() {
    assert_eq!(
        error("function num f(num x) { return x; }\nnum y = call f(\"a\");"),
        "main.vlab:2:14: value 1 of 'f' ('x') must be a num, not a string"
    );
    assert_eq!(error("function num f() { }\nnum y = call f();"), "main.vlab:2:14: 'f' ended without returning a num");
    assert_eq!(
        error("function void f() { }\nnum y = call f();"),
        "main.vlab:2:14: 'f' is void: it returns no value to use"
    );
    assert_eq!(
        error("function num f() { return \"s\"; }\nprint_num f();"),
        "main.vlab:2:11: 'f' must return a num, not a string"
    );
    assert_eq!(
        error("function num f(num a) { return a; }\nprint_num f(1, 2);"),
        "main.vlab:2:11: 'f' takes 1 value(s), not 2"
    );
    assert_eq!(error("return 1;"), "main.vlab:1:1: return outside a function");
}

#[test]
fn arithmetic_errors() {
    assert_eq!(error("num a = 0;\nnum b = 1 / a;"), "main.vlab:2:13: division by zero");
    assert_eq!(error("num b = mod(1, 0);"), "main.vlab:1:16: division by zero");
    assert_eq!(error("num b = sqrt(-4);"), "main.vlab:1:9: sqrt needs a number ≥ 0, got -4");
    assert_eq!(error("num b = log(0);"), "main.vlab:1:9: log needs a number > 0, got 0");
    assert_eq!(error("num b = 10 ^ 400;"), "main.vlab:1:9: the result is not a finite number (too large?)");
    assert_eq!(error("for i in {0>3|0} { }"), "main.vlab:1:15: the step of a range cannot be 0");
}

#[test]
fn statements_in_the_wrong_place() {
    assert_eq!(error("pos(1,2,3);"), "main.vlab:1:1: pos(...) belongs inside an object's block");
    assert_eq!(
        error("a { shape sphere(1); anchor(0,0,0); }"),
        "main.vlab:1:22: anchor(...) belongs inside a joint's block"
    );
    assert_eq!(error("width 3;"), "main.vlab:1:1: width belongs inside the environment");
    assert_eq!(
        error("a { b { shape sphere(1); } }"),
        "main.vlab:1:5: 'b' cannot be declared inside the object 'a': use composed a { ... } for one body of several parts"
    );
    assert_eq!(
        error("a { shape sphere(1); }\nenvironment room { }"),
        "main.vlab:2:1: the environment must come first, before any object"
    );
    assert_eq!(
        error("a { pos(1,1,1); }"),
        "main.vlab:1:1: the object 'a' has no shape: add shape box(...), sphere(...), ..."
    );
    assert_eq!(
        error("robot r { code \"x.py\"; }"),
        "main.vlab:1:1: the robot 'r' has no body: add body { ... } with at least one object"
    );
    assert_eq!(
        error("a { shape sphere(1); }\nKeyboard k;"),
        "main.vlab:2:1: the sensor Keyboard 'k' belongs inside a robot's body"
    );
    assert_eq!(
        error("robot r { body { SimpleGPS gps; a { shape sphere(1); } } }"),
        "main.vlab:1:18: the sensor SimpleGPS 'gps' belongs inside an object's block: it measures that object"
    );
}

#[test]
fn sensor_parameters_are_checked_against_the_catalogue() {
    let robot = |inner: &str| format!("robot r {{ body {{ a {{ shape sphere(1);\n{inner} }} }} }}");
    assert_eq!(
        error(&robot("LaserDistance l { rnage 10; }")),
        "main.vlab:2:19: unknown parameter 'rnage' for LaserDistance (it takes: range, min_range, rate, noise, scale_noise, bias, resolution, output_curve)"
    );
    assert_eq!(
        error(&robot("LaserDistance l { range \"far\"; }")),
        "main.vlab:2:19: 'range' of LaserDistance is a num, not a string"
    );
    assert_eq!(error(&robot("Lidar l { beams 2.5; }")), "main.vlab:2:11: 'beams' must be a whole number ≥ 1, got 2.5");
    assert_eq!(error(&robot("SimpleGPS g { rate -1; }")), "main.vlab:2:15: 'rate' must be positive, got -1");
    assert_eq!(
        error(&robot("SimpleGPS g; Compass g;")),
        "main.vlab:2:14: robot 'r' already has a sensor or actuator named 'g'"
    );
    assert_eq!(
        error(&robot("Touch t { output_curve(1, 2, 3); }")),
        "main.vlab:2:11: output_curve needs pairs of numbers: (x0,y0, x1,y1, ...)"
    );
}

#[test]
fn errors_in_included_files_name_that_file() {
    let loader = MapLoader::new().with_file("lib/bad.vlab", "num ok = 1;\nnum x = \"s\";");
    assert_eq!(
        error_with("include \"lib/bad.vlab\";", &loader, &Options::default()),
        "lib/bad.vlab:2:9: 'x' is a num, not a string"
    );
    assert_eq!(
        error_with("include \"nope.vlab\";", &loader, &Options::default()),
        "main.vlab:1:1: cannot include 'nope.vlab': there is no file 'nope.vlab'"
    );
    assert_eq!(
        error_with("include \"../secret.vlab\";", &loader, &Options::default()),
        "main.vlab:1:1: cannot include '../secret.vlab': it points outside the scene library"
    );
}

#[test]
fn dynamic_names_must_be_strings() {
    assert_eq!(error("id:[3] { shape sphere(1); }"), "main.vlab:1:5: a name in id:[...] must be a string, not a num");
}

#[test]
fn helper_devices_must_name_devices_of_their_robot() {
    let robot = |inner: &str| {
        format!(
            "robot r {{ body {{ a {{ shape sphere(1); }} b {{ shape sphere(1); }}\nJointHinge(a, b) {{ SimpleMotor m1; Encoder e1; }}\n{inner} }} }}"
        )
    };
    assert_eq!(
        error(&robot("DiffDrive d { left \"m1\"; right \"m9\"; }")),
        "main.vlab:3:26: unknown object 'm9' in 'right' of DiffDrive (it must name a SimpleMotor of the same robot)"
    );
    assert_eq!(
        error(&robot("Odometry o { left \"m1\"; right \"e1\"; }")),
        "main.vlab:3:14: 'left' of Odometry names 'm1', a SimpleMotor, not an Encoder"
    );
}

#[test]
fn return_cannot_leave_an_element_block() {
    assert_eq!(
        error("function void f() {\n  a { shape sphere(1);\n    return; }\n}\ncall f();"),
        "main.vlab:3:5: return cannot leave an object, joint or robot block"
    );
}
