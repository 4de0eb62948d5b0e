//! Symptom: `density 1e300`, `max_force 1e300` were accepted (NaN and infinity were
//! refused, but finite values past the simulation's 32-bit floats overflowed to
//! infinity): an immovable body, a robot frozen even after a reset. Every number a scene
//! gives the simulation now stays within ±1e9 (`MAX_MAGNITUDE`), refused at its place.

use vlab_scene::{MAX_MAGNITUDE, NoFiles, Options, interpret};

fn errors(scene: &str) -> Vec<String> {
    match interpret(scene, "s.vlab", &NoFiles, &Options::default()) {
        Ok(_) => vec![],
        Err(errors) => errors.iter().map(|e| e.to_string()).collect(),
    }
}

#[test]
fn numbers_past_the_limit_are_refused_where_they_are_written() {
    let cases = [
        (
            "b { shape box(1, 1, 1); pos(0, 1, 0); density 1e300; }",
            "s.vlab:1:47: density must be a number between -1e9 and 1e9",
        ),
        ("b { shape box(1, 1, 1); pos(1e300, 1, 0); }", "s.vlab:1:"),
        ("b { shape box(1, 1, 1); pos(0, 1, 0); friction -1e10; }", "friction must be a number between -1e9 and 1e9"),
        (
            "a { shape box(1,1,1); pos(0,1,0); } w { shape cylinder(0.1, 0.1); pos(0,1,1); }\n\
             JointHinge(a, w) { anchor(0, 1, 1); axis(0, 0, 1); SimpleMotor m { max_force 1e300; } }",
            "s.vlab:2:",
        ),
    ];
    for (scene, expected) in cases {
        let errors = errors(scene);
        assert_eq!(errors.len(), 1, "{scene}: {errors:?}");
        assert!(errors[0].starts_with(expected) || errors[0].contains(expected), "{scene}: {errors:?}");
        assert!(errors[0].contains("between -1e9 and 1e9"), "{errors:?}");
    }
}

#[test]
fn the_limit_itself_is_accepted() {
    assert_eq!(MAX_MAGNITUDE, 1e9);
    assert_eq!(errors("b { shape box(1, 1, 1); pos(0, 1, 0); density 1e9; }"), Vec::<String>::new());
    let motor = "a { shape box(1,1,1); pos(0,1,0); } w { shape cylinder(0.1, 0.1); pos(0,1,1); }\n\
                 JointHinge(a, w) { anchor(0, 1, 1); axis(0, 0, 1); SimpleMotor m { max_force 1e9; } }";
    assert_eq!(errors(motor), Vec::<String>::new());
    assert_eq!(errors("b { shape box(1, 1, 1); pos(0, 1, 0); density 1.0000001e9; }").len(), 1);
}
