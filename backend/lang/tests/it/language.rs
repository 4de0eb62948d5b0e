//! Every construct of the scene language (docs/scene-language.md), one behaviour per
//! test.

use crate::common;

use common::{log, run, run_with};
use vlab_scene::{JointKind, MapLoader, Motion, Mount, Options, ParamValue, Shape, interpret};

#[test]
fn comments_of_both_kinds_are_ignored() {
    assert_eq!(log("// a comment\n/* a\n block */ print_num 1; /* inline */ print_num 2; // end"), ["1", "2"]);
}

#[test]
fn variables_of_the_three_types_and_both_assignments() {
    let lines = log(r#"
        num a = 10; string s = "x"; boolean b = true;
        a = a + 1; s : s . "y"; b : a > 3;
        print_num a; print_str s; print_bool b;
        num c; string d; boolean f; print_num c; print_str "[" . d . "]"; print_bool f;
    "#);
    assert_eq!(lines, ["11", "xy", "true", "0", "[]", "false"]);
}

#[test]
fn operator_precedence_follows_the_spec() {
    let lines = log("print_num 1 + 2 * 3; print_num (1 + 2) * 3; print_num 2 ^ 3 ^ 2; print_num -2 ^ 2;
                     print_num 10 - 4 - 3; print_num 12 / 3 / 2; print_num 2 * -3; print_num .5 + 1e1;");
    // `-` and `/` take everything after them, as VLAB's grammar reads them:
    // 10 - (4 - 3) and 12 / (3 / 2).
    assert_eq!(lines, ["7", "9", "512", "4", "9", "8", "-6", "10.5"]);
}

#[test]
fn booleans_comparisons_and_numbers_as_conditions() {
    let lines = log(r#"
        print_bool 1 < 2 && 2 <= 2 && 3 > 2 && 3 >= 3 && 1 == 1 && 1 != 2;
        print_bool !(1 > 2) || false;
        print_bool "a" == "a"; print_bool true != false;
        print_bool bool(0); print_bool bool(2);
        num N = 3; if (N) { print_str "yes"; } if (0) { print_str "no"; }
        print_bool false && 1 / 0 > 1;
    "#);
    assert_eq!(lines, ["true", "true", "true", "true", "false", "true", "yes", "false"]);
}

#[test]
fn constants_and_built_in_functions() {
    let lines = log(r#"
        print_num round(pi * 1000); print_num round(PI); print_num round(e * 1000); print_num round(E);
        print_num sin(0); print_num cos(0); print_num sign(-3); print_num sign(0); print_num sqrt(16);
        print_num log(1); print_num log10(1000); print_num floor(2.7); print_num ceil(2.1); print_num round(2.5);
        print_num mod(7, 3); print_num mod(-7, 3); print_str string(2.5) . string(3); print_num abs(-2);
        print_num min(1, 2); print_num max(1, 2); print_num round(atan2(1, 1) * 4);
    "#);
    assert_eq!(
        lines,
        [
            "3142", "3", "2718", "3", "0", "1", "-1", "0", "4", "0", "3", "2", "3", "3", "1", "-1", "2.53", "2", "1",
            "2", "3"
        ]
    );
}

#[test]
fn random_numbers_are_in_range_and_reproducible_from_the_seed() {
    let source = "for i in {0>50} { num a = random; num b = rnd(); num c = random(5); num d = rnd(2, 3);
                  if (a < 0 || a >= 1 || b < 0 || b >= 1 || c < 0 || c >= 5 || d < 2 || d >= 3) { print_str \"out\"; } }
                  print_num random;";
    let with_seed =
        |seed| interpret(source, "m.vlab", &MapLoader::new(), &Options { seed, ..Options::default() }).unwrap().log;
    assert_eq!(with_seed(1).len(), 1, "a value was out of range");
    assert_eq!(with_seed(1), with_seed(1));
    assert_ne!(with_seed(1), with_seed(2));
}

#[test]
fn blocks_open_scopes_and_inner_names_shadow_outer_ones() {
    let lines = log("num a = 1; { num a = 2; print_num a; a = 3; } print_num a; { a = 5; } print_num a;");
    assert_eq!(lines, ["2", "1", "5"]);
}

#[test]
fn if_else_chains() {
    let lines = log(r#"
        for i in {0>=3} {
            if (i == 0) { print_str "zero"; } else if (i == 1) print_str "one"; else { print_str "many"; }
        }
    "#);
    assert_eq!(lines, ["zero", "one", "many", "many"]);
}

#[test]
fn lists_ranges_steps_and_mixtures() {
    let lines = log(r#"
        string s = "";
        for i in { 1, 2, 7 } { s = s . string(i); } print_str s; s = "";
        for i in {1>=4} { s = s . string(i); } print_str s; s = "";
        for i in {0>4} { s = s . string(i); } print_str s; s = "";
        num a = 7; for i in {1>=a|2} { s = s . string(i); } print_str s; s = "";
        for i in {9, 0>2, 5>=6} { s = s . string(i) . ","; } print_str s; s = "";
        for i in {5>0|-2} { s = s . string(i); } print_str s; s = "";
        for i in {5>0} { s = s . "never"; } print_str "[" . s . "]";
        for i in {0>1|0.25} { s = s . string(i) . " "; } print_str s;
    "#);
    assert_eq!(lines, ["127", "1234", "0123", "1357", "9,0,1,5,6,", "531", "[]", "0 0.25 0.5 0.75 "]);
}

#[test]
fn functions_with_typed_parameters_returns_and_recursion() {
    let lines = log(r#"
        function num fact(num n) { if (n <= 1) { return 1; } return n * call fact(n - 1); }
        function string greet(string who, boolean loud) {
            if (loud) { return "HELLO " . who; } return "hello " . who;
        }
        function void show(num x) { print_num x; return; }
        function boolean even(num n) { return mod(n, 2) == 0; }
        print_num call fact(10);
        print_str greet("lab", true);
        call show(call fact(3));
        print_bool call even(4);
        print_num call later(2);
        function num later(num x) { return x * 100; }
    "#);
    assert_eq!(lines, ["3628800", "HELLO lab", "6", "true", "200"]);
}

#[test]
fn functions_see_globals_but_not_their_callers_locals() {
    let lines =
        log("num g = 1; function void f() { g = g + 1; print_num g; } { num local = 5; call f(); } print_num g;");
    assert_eq!(lines, ["2", "2"]);
    let e = common::error("function void f() { print_num local; } { num local = 5; call f(); }");
    assert_eq!(e, "main.vlab:1:31: unknown variable 'local'");
}

#[test]
fn keywords_are_case_insensitive_and_lenght_is_accepted() {
    let model = run(r#"
        ENVIRONMENT Room { Width 8; LENGHT 6; height 2; }
        Static Crate { SHAPE Box(1,1,1); Pos(1,0.5,1); Material "wood"; }
        IF (true) { PRINT_STR "ok"; }
    "#)
    .model;
    let env = model.environment.as_ref().unwrap();
    assert_eq!((env.width, env.length, env.height), (8.0, 6.0, 2.0));
    let crate_ = &model.bodies[model.body_index("Crate").unwrap()];
    assert_eq!(crate_.motion, Motion::Fixed);
    assert_eq!(crate_.parts[0].material.name, "Wood");
}

#[test]
fn identifiers_are_case_sensitive() {
    assert_eq!(log("num a = 1; num A = 2; print_num a; print_num A;"), ["1", "2"]);
}

#[test]
fn dynamic_names_with_id() {
    let model = run(r#"for i in {0>3} { id:["box_" . string(i)] { shape box(1,1,1); pos(i*2, 0.5, 0); } }"#).model;
    let names: Vec<&str> = model.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["box_0", "box_1", "box_2"]);
}

#[test]
fn includes_splice_files_in_place_relative_to_the_includer() {
    let loader = MapLoader::new()
        .with_file("lib/shapes.vlab", "include \"common.vlab\"; function void ball(string n, num x) { id:[n] { shape sphere(0.5); pos(x, 1, 0); } }")
        .with_file("lib/common.vlab", "num radius_from_lib = 2;");
    let result = run_with("include \"lib/shapes.vlab\"; call ball(\"b\", radius_from_lib);", &loader);
    assert_eq!(result.model.bodies[0].pose.position, [2.0, 1.0, 0.0]);
}

#[test]
fn primitives_with_sizes_along_the_documented_axes() {
    let model = run(r#"
        s { shape sphere(0.5); } b { shape box(1, 2, 3); } c { shape cylinder(0.3, 2); } k { shape capsule(0.2, 1); }
    "#)
    .model;
    let shapes: Vec<Shape> = model.bodies.iter().map(|b| b.parts[0].shape.clone()).collect();
    assert_eq!(
        shapes,
        [
            Shape::Sphere { radius: 0.5 },
            Shape::Box { half_extents: [0.5, 1.0, 1.5] },
            Shape::Cylinder { radius: 0.3, half_length: 1.0 },
            Shape::Capsule { radius: 0.2, half_length: 0.5 },
        ]
    );
}

#[test]
fn poses_density_material_and_rotations() {
    let model = run(r#"
        a { shape box(1,1,1); position(1,2,3); density 600; material "Steel"; quat(0, 0, 1, 0); }
        b { shape box(1,1,1); rot_axis(0, 2, 0, pi); }
        c { shape box(1,1,1); material "Unobtainium"; }
    "#)
    .model;
    let a = &model.bodies[0];
    assert_eq!(a.pose.position, [1.0, 2.0, 3.0]);
    assert_eq!(a.pose.rotation, [0.0, 1.0, 0.0, 0.0]);
    assert_eq!((a.parts[0].density, a.parts[0].material.name.as_str()), (600.0, "Steel"));
    let b = model.bodies[1].pose.rotation;
    assert!((b[1] - 1.0).abs() < 1e-6 && b[3].abs() < 1e-6, "{b:?}");
    assert_eq!(model.bodies[2].parts[0].material.name, "Grey");
}

#[test]
fn unknown_materials_and_missing_meshes_are_warnings() {
    let loader = MapLoader::new().with_asset("wheel.glb");
    let result = run_with(
        r#"a { shape box(1,1,1); material "Plaid"; }
           w { shape mesh("wheel.mesh", 0.01); customgeom cylinder(0.3, 0.1); }
           m { shape mesh("missing.mesh"); customgeom sphere(1); }"#,
        &loader,
    );
    let warnings: Vec<String> = result.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        warnings,
        [
            "main.vlab:1:32: warning: unknown material 'Plaid': using 'Grey'",
            "main.vlab:3:16: warning: the mesh 'missing.mesh' was not found: the object is drawn with its collision shape",
        ]
    );
    let wheel = &result.model.bodies[1].parts[0];
    assert_eq!(wheel.shape, Shape::Cylinder { radius: 0.3, half_length: 0.05 });
    assert_eq!(wheel.mesh.as_ref().unwrap().resolved.as_deref(), Some("wheel.glb"));
}

#[test]
fn static_container_and_composed_objects() {
    let model = run(r#"
        container shelf { a { shape box(1,1,1); pos(0,1,0); } b { shape sphere(0.2); pos(1,1,0); } }
        composed table { pos(5,1,5); rotation_axis(0,1,0,pi/2); material "Wood";
            top { shape box(2,0.1,1); pos(0,0,0); }
            leg1 { shape box(0.1,1,0.1); pos(0.9,-0.5,0.4); material "Steel"; }
        }
        static composed bench { seat { shape box(1,0.1,0.3); } }
        JointFixed(leg1, a);
    "#)
    .model;
    assert_eq!(model.groups[0].name, "shelf");
    assert_eq!(model.groups[0].members, ["a", "b"]);
    let table = &model.bodies[model.body_index("table").unwrap()];
    assert_eq!(table.parts.len(), 2);
    assert_eq!(table.pose.position, [5.0, 1.0, 5.0]);
    assert_eq!(table.parts[1].local.position, [0.9, -0.5, 0.4]);
    assert_eq!(table.parts[1].name.as_deref(), Some("leg1"));
    assert_eq!((table.parts[0].material.name.as_str(), table.parts[1].material.name.as_str()), ("Wood", "Steel"));
    assert_eq!(model.bodies[model.body_index("bench").unwrap()].motion, Motion::Fixed);
    // A member's name addresses its composed body.
    assert_eq!(model.joints[0].body1, model.body_index("table").unwrap());
}

#[test]
fn nested_composed_objects_become_one_body() {
    let model = run(r#"
        composed car { pos(1,0,0);
            composed axle { pos(0,0,2); w { shape sphere(0.1); pos(1,0,0); } }
            hull { shape box(1,1,1); }
        }
        other { shape box(1,1,1); } JointHinge(axle, other);
    "#)
    .model;
    let car = &model.bodies[0];
    assert_eq!(car.parts.len(), 2);
    assert_eq!(car.parts[0].local.position, [1.0, 0.0, 2.0]);
    assert_eq!(model.joints[0].body1, 0);
}

#[test]
fn all_nine_joint_types_with_world_anchor_and_axes() {
    let mut source = String::from("a { shape box(1,1,1); } b { shape box(1,1,1); pos(0,0,2); }\n");
    for joint in ["Ball", "Hinge", "Slider", "Universal", "Hinge2", "Fixed", "PR", "PU", "Piston"] {
        source.push_str(&format!(
            "Joint{joint}(a, b) {{ anchor(1,2,3); axis(0,0,1); axis2(0,1,0); erp 0.5; cfm 0.01; }}\n"
        ));
    }
    let model = run(&source).model;
    let names: Vec<&str> = model.joints.iter().map(|j| j.kind.language_name()).collect();
    assert_eq!(
        names,
        [
            "JointBall",
            "JointHinge",
            "JointSlider",
            "JointUniversal",
            "JointHinge2",
            "JointFixed",
            "JointPR",
            "JointPU",
            "JointPiston"
        ]
    );
    assert_eq!(model.joints[1].kind, JointKind::Hinge { anchor: [1.0, 2.0, 3.0], axis: [0.0, 0.0, 1.0], motor: None });
    assert_eq!(
        model.joints[3].kind,
        JointKind::Universal { anchor: [1.0, 2.0, 3.0], axis: [0.0, 0.0, 1.0], axis2: [0.0, 1.0, 0.0] }
    );
    assert_eq!((model.joints[0].erp, model.joints[0].cfm), (Some(0.5), Some(0.01)));
    assert_eq!(model.joints[0].name, "a-b");
    assert_eq!(model.joints[1].name, "a-b-2");
}

#[test]
fn joints_may_name_objects_declared_after_them() {
    let model = run("JointBall(a, b); a { shape sphere(1); } b { shape sphere(1); pos(3,0,0); }").model;
    assert_eq!(model.joints[0].kind, JointKind::Ball { anchor: [3.0, 0.0, 0.0] });
}

#[test]
fn a_motor_inside_a_hinge_drives_it() {
    let model = run(r#"
        robot r { body {
            a { shape box(1,1,1); } b { shape sphere(1); }
            JointHinge(a, b) { anchor(0,0,0); axis(1,0,0); SimpleMotor m1 { speed 2; max_force 3; } }
            JointSlider(a, b) { SimpleServo s1 { kp 10; kd 1; } JointState js; }
        } }
    "#)
    .model;
    assert!(matches!(
        model.joints[0].kind,
        JointKind::Hinge { motor: Some(m), .. } if m.target_velocity == 2.0 && m.max_force == 3.0
    ));
    assert_eq!(model.actuators[0].mount, Mount::Joint(0));
    assert_eq!(model.actuators[1].mount, Mount::Joint(1));
    assert_eq!(model.sensors[0].kind, "JointState");
}

#[test]
fn joined_bodies_do_not_collide_unless_the_joint_says_collide_true() {
    let model = run(r#"
        a { shape box(1,1,1); } b { shape box(1,1,1); pos(0.5,0,0); }
        JointBall(a, b);
        JointHinge(a, b) { axis(0,1,0); collide true; }
        JointFixed(a, b) { collide false; }
    "#)
    .model;
    let touch: Vec<bool> = model.joints.iter().map(|j| j.bodies_touch).collect();
    assert_eq!(touch, [false, true, false]);
}

#[test]
fn robots_collect_their_bodies_sensors_and_program() {
    let loader = MapLoader::new().with_file("bot.rprj", "TYPE:PYTHON\nSRC:bot.py\n");
    let model = run_with(
        r#"
        robot tankbot {
            code "bot.rprj";
            body {
                Keyboard kbd;
                chassis { shape box(1,0.3,1); pos(0,0.4,0);
                          SimpleGPS gps; Compass compass; SimpleAccelerometer acc;
                          LaserDistance front { range 10; noise 0.01; rate 40; output_curve(0,0, 10,10); } }
                wheel { shape cylinder(0.1, 0.05); }
                wheel2 { shape cylinder(0.1, 0.05); }
                DiffDrive drive { left "m1"; right "m2"; wheel_radius 0.03; track 0.2; }
                JointHinge(chassis, wheel) { SimpleMotor m1; }
                JointHinge(chassis, wheel2) { SimpleMotor m2; }
            }
        }
        robot other { code { "other.rhai" } body { Keyboard kbd; box1 { shape box(1,1,1); Lidar lidar { beams 361; fov pi; } } } }
    "#,
        &loader,
    )
    .model;
    assert_eq!(model.robots[0].name, "tankbot");
    assert_eq!(model.robots[0].main_body, 0);
    let project = model.robots[0].program.as_ref().unwrap().project.as_ref().unwrap();
    assert_eq!((project.language.as_str(), project.sources.as_slice()), ("PYTHON", &["bot.py".to_owned()][..]));
    assert_eq!(model.robots[1].program.as_ref().unwrap().file, "other.rhai");
    assert_eq!(model.bodies[1].robot.as_deref(), Some("tankbot"));
    let kinds: Vec<(&str, Mount)> = model.sensors.iter().map(|s| (s.kind.as_str(), s.mount)).collect();
    assert_eq!(
        kinds,
        [
            ("Keyboard", Mount::Robot),
            ("SimpleGPS", Mount::Body(0)),
            ("Compass", Mount::Body(0)),
            ("SimpleAccelerometer", Mount::Body(0)),
            ("LaserDistance", Mount::Body(0)),
            ("Keyboard", Mount::Robot),
            ("Lidar", Mount::Body(3)),
        ]
    );
    let front = &model.sensors[4];
    assert_eq!(front.param("range"), Some(&ParamValue::Num(10.0)));
    assert_eq!(front.param("output_curve"), Some(&ParamValue::Nums(vec![0.0, 0.0, 10.0, 10.0])));
    assert_eq!(model.actuators[0].param("left"), Some(&ParamValue::Str("m1".into())));
}

#[test]
fn every_catalogue_device_parses_and_validates_with_all_its_parameters() {
    use vlab_scene::catalogue::{CATALOGUE, COMMON_SENSOR_PARAMS, DeviceClass, ParamType, Placement};
    for spec in CATALOGUE {
        let mut params = String::new();
        let common: &[(&str, ParamType)] = if spec.class == DeviceClass::Sensor { COMMON_SENSOR_PARAMS } else { &[] };
        for (name, ty) in spec.params.iter().chain(common) {
            let value = match ty {
                ParamType::Num | ParamType::Count => "2".to_owned(),
                ParamType::Str => match vlab_scene::catalogue::reference(spec.name, name) {
                    Some("SimpleMotor") => "\"helper_motor\"".to_owned(),
                    Some(_) => "\"helper_encoder\"".to_owned(),
                    None => "\"x\"".to_owned(),
                },
                ParamType::Bool => "true".to_owned(),
                ParamType::Curve => "(0, 0, 1, 2)".to_owned(),
            };
            let sep = if *ty == ParamType::Curve { "" } else { " " };
            params.push_str(&format!("{name}{sep}{value}; "));
        }
        let device = format!("{} dev {{ {params} }}", spec.name);
        let (in_body, in_joint, standalone) = match spec.placement {
            Placement::Body | Placement::BodyOrRobot => (device.as_str(), "", ""),
            Placement::Joint => ("", device.as_str(), ""),
            Placement::Robot => ("", "SimpleMotor helper_motor; Encoder helper_encoder;", device.as_str()),
        };
        let source = if spec.class == DeviceClass::Landmark {
            // A landmark marks the lab, not a robot.
            format!("a {{ shape box(1,1,1); {in_body} }}")
        } else {
            format!(
                "robot r {{ body {{ {standalone} a {{ shape box(1,1,1); {in_body} }} b {{ shape sphere(1); }} JointHinge(a, b) {{ {in_joint} }} }} }}"
            )
        };
        let result = interpret(&source, "m.vlab", &MapLoader::new(), &Options::default());
        let model = result.unwrap_or_else(|e| panic!("{}: {}\n{source}", spec.name, e[0])).model;
        let all: Vec<_> =
            model.sensors.iter().chain(&model.actuators).chain(&model.beacons).filter(|d| d.name == "dev").collect();
        assert_eq!(all.len(), 1, "{}", spec.name);
        assert_eq!(all[0].params.len(), spec.params.len() + common.len(), "{}", spec.name);
    }
}

#[test]
fn the_environment_builds_floor_walls_and_ceiling() {
    let model =
        run(r#"env wallrect { width 4; length 2; height 1; gravity -3; ground "Wood"; erp 0.3; cfm 1e-5; }"#).model;
    let names: Vec<&str> = model.bodies.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["floor", "wall_south", "wall_north", "wall_west", "wall_east"]);
    assert!(model.bodies.iter().all(|b| b.motion == Motion::Fixed));
    assert_eq!(model.gravity_y, -3.0);
    assert_eq!(model.bodies[0].parts[0].material.name, "Wood");
    assert_eq!(model.environment.as_ref().unwrap().erp, Some(0.3));
    let room = run("environment room { }").model;
    assert_eq!(room.bodies.last().unwrap().name, "ceiling");
}

#[test]
fn print_lines_are_collected_in_order() {
    assert_eq!(log("print_str \"a\"; print_num 1.5; print_bool 2 > 1;"), ["a", "1.5", "true"]);
}

#[test]
fn the_interpreted_models_validate_and_build_in_the_same_order() {
    let a = run("for i in {0>5} { id:[\"b\" . string(i)] { shape sphere(0.1 + random); } }");
    let b = run("for i in {0>5} { id:[\"b\" . string(i)] { shape sphere(0.1 + random); } }");
    assert_eq!(a, b);
    a.model.validate().unwrap();
}

#[test]
fn devices_fall_back_to_the_catalogue_defaults() {
    let model = run("robot r { body { a { shape sphere(1); Lidar l { beams 720; } } } }").model;
    let lidar = &model.sensors[0];
    assert_eq!(lidar.num("beams"), Some(720.0));
    assert_eq!(lidar.num("fov"), Some(std::f64::consts::PI));
    assert_eq!(lidar.num("rate"), Some(40.0));
    assert_eq!(lidar.num("color"), None);
}

#[test]
fn a_mesh_without_customgeom_collides_as_a_box_and_customgeom_on_a_primitive_replaces_it() {
    let result = run("m { shape mesh(\"rock.obj\", 2); }\np { shape sphere(1); customgeom box(1,1,1); }");
    assert_eq!(result.model.bodies[0].parts[0].shape, Shape::Box { half_extents: [0.5; 3] });
    assert_eq!(result.model.bodies[1].parts[0].shape, Shape::Box { half_extents: [0.5; 3] });
    let warnings: Vec<String> = result.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        warnings,
        [
            "main.vlab:1:1: warning: 'm' has a mesh but no customgeom: it collides as a 1 m box (add customgeom <shape>)",
            "main.vlab:2:1: warning: customgeom replaces the shape of 'p': only a mesh is drawn apart from what collides",
        ]
    );
}

#[test]
fn a_static_container_fixes_its_members() {
    let model =
        run("static container c { a { shape sphere(1); } b { shape sphere(1); } }\nd { shape sphere(1); }").model;
    let motions: Vec<Motion> = model.bodies.iter().map(|b| b.motion).collect();
    assert_eq!(motions, [Motion::Fixed, Motion::Fixed, Motion::Dynamic]);
}

#[test]
fn meshes_resolve_to_the_format_that_exists_and_materials_come_from_the_library() {
    let loader = MapLoader::new().with_asset("wheel.obj").with_asset("textures/tiles.png");
    let result = run_with(
        r#"w { shape mesh("wheel.mesh", 0.01); customgeom cylinder(0.85, 0.7); material "rubber"; }
           g { shape box(1,1,0.02); material "Glass"; }
           t { shape box(1,1,1); material "TILES"; }"#,
        &loader,
    );
    assert!(result.warnings.is_empty(), "{:?}", result.warnings);
    let wheel = &result.model.bodies[0].parts[0];
    let mesh = wheel.mesh.as_ref().unwrap();
    assert_eq!((mesh.file.as_str(), mesh.resolved.as_deref(), mesh.scale), ("wheel.mesh", Some("wheel.obj"), 0.01));
    assert_eq!(wheel.material.name, "Rubber");
    let glass = &result.model.bodies[1].parts[0].material;
    assert!(glass.transparent && glass.color[3] < 255 && glass.texture.is_none());
    let tiles = &result.model.bodies[2].parts[0].material;
    assert_eq!(
        (tiles.name.as_str(), tiles.texture.as_deref(), tiles.transparent),
        ("Tiles", Some("textures/tiles.png"), false)
    );
}
