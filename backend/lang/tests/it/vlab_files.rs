//! Files written for the original VLAB load as written: its room with its materials,
//! its cart's hinges where its text puts them, programs named by a path of the machine
//! they were written on, project files with keys VLab does not use.

use std::path::PathBuf;

use vlab_scene::{DirLoader, JointKind, MapLoader, Options, interpret};

use crate::common::run_with;

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn library() -> DirLoader {
    DirLoader { scenes: repository().join("scenes"), assets: Some(repository().join("assets")) }
}

#[test]
fn the_vlab_room_interprets_with_its_materials_and_no_repeated_warning() {
    let source = std::fs::read_to_string(repository().join("scenes/vlab/room.vlab")).unwrap();
    let result =
        interpret(&source, "vlab/room.vlab", &library(), &Options::default()).unwrap_or_else(|e| panic!("{}", e[0]));
    let model = &result.model;
    let environment = model.environment.as_ref().expect("a room");
    let looks = [&environment.ground, &environment.walls, &environment.ceiling];
    let names: Vec<&str> = looks.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["Piastrelle2", "Pattern2", "MuroRigheRosso"]);
    assert!(looks.iter().all(|m| m.texture.is_some()), "{looks:?}");
    let material_of = |body: &str| {
        let index = model.body_index(body).unwrap_or_else(|| panic!("no {body}"));
        model.bodies[index].parts[0].material.clone()
    };
    for (body, material) in [
        ("QUADRO", "Test2D"),
        ("POSTER", "Schema"),
        ("PEDANA", "BasePiattaforma"),
        ("CARTELLO", "AttenzioneRobot"),
        ("TAVOLO", "Legno"),
        ("cassa_3", "Legno"),
        ("SEGNALE", "Red50"),
        ("cassa_nera", "Black"),
    ] {
        assert_eq!(material_of(body).name, material, "{body}");
    }
    assert!(material_of("QUADRO").texture.is_some() && material_of("SEGNALE").transparent);
    let warnings: Vec<String> = result.warnings.iter().map(|w| w.to_string()).collect();
    // What is left to say: the meshes the library does not have, one each.
    assert_eq!(warnings.len(), 2, "{warnings:#?}");
    for mesh in ["tavolo.mesh", "armadio.mesh"] {
        assert!(warnings.iter().any(|w| w.contains(&format!("the mesh '{mesh}' was not found"))), "{warnings:#?}");
    }
    for part in model.bodies.iter().flat_map(|b| &b.parts) {
        assert_ne!(part.material.name, "Grey", "every object of the room names a material of the library");
    }
}

#[test]
fn a_warning_repeated_by_a_loop_is_said_once_with_its_count() {
    let result = run_with(
        "function void row(num n) {\n  for i in {0>n} { id:[\"b\" . string(i)] { shape box(1,1,1); pos(2*i,0.5,2); material \"Plaid\"; } }\n}\ncall row(46);",
        &MapLoader::new(),
    );
    let warnings: Vec<String> = result.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(warnings, ["main.vlab:2:86: warning: unknown material 'Plaid': using 'Grey' (46 times)"]);
}

#[test]
fn the_carts_first_hinge_sits_at_its_wheels_centre() {
    let source = std::fs::read_to_string(repository().join("scenes/cart.vlab")).unwrap();
    let model = interpret(&source, "cart.vlab", &library(), &Options::default()).unwrap().model;
    let joint = model.joints.iter().find(|j| j.name == "base-wheel1").expect("the first hinge");
    let JointKind::Hinge { anchor, .. } = joint.kind else { panic!("{:?}", joint.kind) };
    let wheel = &model.bodies[joint.body2];
    assert_eq!(wheel.name, "wheel1");
    let off: f32 = anchor.iter().zip(wheel.pose.position).map(|(a, w)| (a - w).abs()).sum();
    assert!(off < 1e-5, "the hinge at {anchor:?}, its wheel at {:?}", wheel.pose.position);
}

#[test]
fn a_program_named_by_a_path_of_another_machine_keeps_its_file_name() {
    let loader = MapLoader::new().with_file("tankbot.rprj", "TYPE:PYTHON\nSRC:tankbot.py\n");
    for path in ["/working/tesi/trunk/plugins/example/Cpp/tankbot.rprj", "C:\\vlab\\plugins\\tankbot.rprj"] {
        let source = format!("robot tankbot {{\n  code \"{path}\";\n  body {{ a {{ shape sphere(0.1); }} }}\n}}");
        let result = run_with(&source, &loader);
        let program = result.model.robots[0].program.as_ref().expect("a program");
        assert_eq!(program.file, "tankbot.rprj");
        assert_eq!(program.project.as_ref().map(|p| p.sources.clone()), Some(vec!["tankbot.py".to_owned()]));
        let warnings: Vec<String> = result.warnings.iter().map(|w| w.to_string()).collect();
        let expected = format!(
            "main.vlab:2:3: warning: the program '{path}' is a path on another machine: using 'tankbot.rprj' from the upload or the scene library"
        );
        assert_eq!(warnings, [expected]);
    }
}

#[test]
fn a_project_key_vlab_has_and_vlab_does_not_use_is_a_warning_at_its_line() {
    let project = "#PROGETTO DEL CARRELLO\nTYPE:PYTHON\nSRC:carrello.py\nINCLUDE_DIR:/home/ada/vlab/trunk/\n";
    let loader = MapLoader::new().with_file("carrello.rprj", project);
    let result = run_with("robot carrello { code \"carrello.rprj\"; body { a { shape sphere(0.1); } } }", &loader);
    let program = result.model.robots[0].program.as_ref().unwrap();
    let project = program.project.as_ref().expect("the project was read");
    assert_eq!((project.language.as_str(), project.sources.as_slice()), ("PYTHON", &["carrello.py".to_owned()][..]));
    let warnings: Vec<String> = result.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        warnings,
        [
            "carrello.rprj:4:1: warning: the project key 'INCLUDE_DIR' is not used here: skipped (TYPE, SRC and RATE are read)"
        ]
    );
}

#[test]
fn environment_room_without_a_block_is_the_default_room() {
    let alone = run_with("environment room;\nball { shape sphere(1); pos(1,1,1); }", &MapLoader::new()).model;
    let empty = run_with("environment room { }\nball { shape sphere(1); pos(1,1,1); }", &MapLoader::new()).model;
    assert!(alone.environment.is_some());
    assert_eq!(alone, empty);
}

#[test]
fn a_robot_says_how_often_its_program_runs_in_its_scene_or_its_project_file() {
    use vlab_scene::ProgramRate;
    let loader = MapLoader::new()
        .with_file("every.rprj", "TYPE:CPP\nSRC:bot.cpp\nRATE:EVERY_STEP\n")
        .with_file("plain.rprj", "TYPE:CPP\nSRC:bot.cpp\n");
    let model = run_with(
        r#"
        robot a { code "every.rprj"; body { a1 { shape sphere(0.1); } } }
        robot b { code "plain.rprj"; body { b1 { shape sphere(0.1); } } }
        robot c { code "plain.rprj"; program_rate every_step; body { c1 { shape sphere(0.1); } } }
        robot d { code "every.rprj"; program_rate control; body { d1 { shape sphere(0.1); } } }
        robot e { program_rate EVERY_STEP; body { e1 { shape sphere(0.1); } } }
    "#,
        &loader,
    )
    .model;
    let rates: Vec<ProgramRate> = model.robots.iter().map(|robot| robot.rate()).collect();
    use ProgramRate::{Control, EveryStep};
    assert_eq!(rates, [EveryStep, Control, EveryStep, Control, EveryStep], "the scene's word wins over the project's");
}

#[test]
fn a_program_rate_with_another_word_or_outside_a_robot_is_an_error_at_its_place() {
    use crate::common::error;
    assert_eq!(
        error("robot a { program_rate fast; body { a1 { shape sphere(0.1); } } }"),
        "main.vlab:1:28: unknown program_rate 'fast': use every_step or control"
    );
    assert_eq!(
        error("program_rate every_step;"),
        "main.vlab:1:1: program_rate belongs directly inside a robot { ... }"
    );
}

#[test]
fn a_part_of_a_composed_object_without_a_density_takes_the_first_its_siblings_give() {
    let model = crate::common::run(
        "composed c { a { shape box(1,1,1); density 0.05; } b { shape box(1,1,1); } }
         composed d { e { shape box(1,1,1); } }
         composed f { density 3; g { shape sphere(1); } h { shape sphere(1); density 2; } }
         composed k { composed inner { m { shape sphere(1); } } n { shape sphere(1); density 7; } }",
    )
    .model;
    let densities = |name: &str| -> Vec<f32> {
        model.bodies.iter().find(|b| b.name == name).unwrap().parts.iter().map(|p| p.density).collect()
    };
    assert_eq!(densities("c"), [0.05, 0.05]);
    assert_eq!(densities("d"), [1000.0], "none given: the default");
    assert_eq!(densities("f"), [3.0, 2.0], "the composed object's own density counts as given");
    assert_eq!(densities("k"), [7.0, 7.0], "a nested composed object's parts are the body's parts");
}
