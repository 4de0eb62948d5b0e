//! Symptom: `shape mesh("/etc/shadow", 1)` or `mesh("../../../etc/x")` in a student's
//! robot was accepted; whether a warning came back told which server files exist, and
//! the absolute path went out to every viewer. A mesh must now name a file of the
//! asset library: anything else is an error at its place, whatever exists on the server.

use vlab_scene::{DirLoader, Options, interpret};

fn library() -> DirLoader {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    DirLoader { scenes: root.join("scenes"), assets: Some(root.join("assets")) }
}

fn scene(mesh: &str) -> String {
    format!("crate {{\n  shape mesh(\"{mesh}\", 1);\n  customgeom box(1, 1, 1);\n  pos(0, 1, 0);\n}}\n")
}

#[test]
fn mesh_names_outside_the_asset_library_are_refused_at_their_place() {
    for outside in ["/etc/passwd", "/etc/no-such-file", "../../../etc/passwd", "../x.obj", "a/../../b.obj", "C:\\x.obj"]
    {
        let errors = interpret(&scene(outside), "robot.vlab", &library(), &Options::default())
            .err()
            .unwrap_or_else(|| panic!("'{outside}' was accepted"));
        assert_eq!(errors.len(), 1, "{outside}: {errors:?}");
        let error = &errors[0];
        assert_eq!((error.pos.line, error.pos.col), (2, 9), "{outside}: {error}");
        let message = error.to_string();
        assert!(message.contains("is not a file of the asset library"), "{message}");
        assert!(!message.contains("not found"), "nothing says whether the file exists: {message}");
    }
}

#[test]
fn an_existing_and_a_missing_server_file_get_the_same_answer() {
    let existing = interpret(&scene("/etc/passwd"), "robot.vlab", &library(), &Options::default()).unwrap_err();
    let missing = interpret(&scene("/etc/vlab-none"), "robot.vlab", &library(), &Options::default()).unwrap_err();
    let strip = |message: String, name: &str| message.replace(name, "NAME");
    assert_eq!(strip(existing[0].to_string(), "/etc/passwd"), strip(missing[0].to_string(), "/etc/vlab-none"));
}

#[test]
fn meshes_of_the_library_still_resolve() {
    let ok = interpret(&scene("wheel.mesh"), "robot.vlab", &library(), &Options::default()).unwrap();
    let mesh = ok.model.bodies[0].parts[0].mesh.as_ref().unwrap();
    assert!(mesh.resolved.is_some(), "{mesh:?}");
    assert!(ok.warnings.is_empty(), "{:?}", ok.warnings);
}
