//! C and C++ programs against the real server: compiled in the upload's request (in
//! the compiler's sandbox, off the labs' threads) to the WebAssembly module the lab
//! runs; errors at their file, line and column; the program types listed; the same
//! sources compiled once, across uploads and a restart; hostile sources each stopped
//! with their reason while another robot of the lab keeps stepping.
//!
//! Where the compiler is not installed, every C and C++ upload must be refused with the
//! Debian packages to install, which is what these tests then check.

use crate::common;

use std::time::Instant;

use common::{PATIENCE, TOKEN, TestServer, yard};
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use vlab_server::classroom::{Classroom, ClassroomConfig, DemoLab};
use vlab_server::controller::compile::{SourceLanguage, detected};
use vlab_server::store::Store;

/// Drives forward at `V` m/s: the robot API declared by hand, nothing included.
const DRIVER: &str = "\
__attribute__((import_module(\"vlab\"), import_name(\"actuator_find\"))) int actuator_find(const char *, int);
__attribute__((import_module(\"vlab\"), import_name(\"set_drive\"))) int set_drive(int, double, double);

__attribute__((export_name(\"vlab_abi_version\"))) int vlab_abi_version(void) { return 1; }

__attribute__((export_name(\"pre_step\"))) void pre_step(void) {
    set_drive(actuator_find(\"drive\", 5), 0.3, 0.0);
}
";

/// A diffbot of the scene library, `diffbot_{suffix}` at (3, z).
fn diffbot(suffix: &str, z: u32) -> String {
    format!("include \"diffbot_robot.vlab\";\ncall diffbot(\"_{suffix}\", 3, {z}, 0);\n")
}

/// Uploads `description` with `program` (file `name`) and more files, as `token`.
async fn upload(
    server: &TestServer,
    token: &str,
    description: String,
    (name, program): (&str, &str),
    more: &[(&str, &str)],
) -> (u16, Value) {
    let mut form = Form::new()
        .part("description", Part::text(description).file_name("robot.vlab"))
        .part("program", Part::text(program.to_owned()).file_name(name.to_owned()));
    for (name, text) in more {
        form = form.part(name.to_string(), Part::text(text.to_string()).file_name(name.to_string()));
    }
    let response =
        server.http.post(server.url("/api/labs/demo/robots")).bearer_auth(token).multipart(form).send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

/// Whether this server compiles `language`; where it cannot, an upload is refused
/// with the packages to install, which is checked.
async fn compiles_here(server: &TestServer, language: SourceLanguage) -> bool {
    let missing = detected().missing(language);
    if missing.is_empty() {
        return true;
    }
    let (name, kind) = match language {
        SourceLanguage::C => ("bot.c", "C"),
        SourceLanguage::Cpp => ("bot.cpp", "CPP"),
    };
    let (status, reply) = upload(server, TOKEN, diffbot("probe", 9), (name, DRIVER), &[]).await;
    assert_eq!(status, 422, "{reply}");
    let message = reply["errors"][0]["message"].as_str().unwrap_or_default();
    assert!(message.contains(&format!("cannot compile {kind} programs")), "{reply}");
    for package in missing {
        assert!(message.contains(package), "the missing {package} is named: {reply}");
    }
    eprintln!("no compiler on this machine, as the server says: {message}");
    false
}

async fn report(server: &TestServer, robot: &str) -> Value {
    server.get_json(&format!("/api/labs/demo/robots/{robot}")).await.1
}

fn x_of(report: &Value) -> f64 {
    report["pose"]["position"][0].as_f64().expect("a robot's position")
}

/// Waits until `robot` has moved more than 5 cm along x from `from`.
async fn until_moved(server: &TestServer, robot: &str, from: f64) -> f64 {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let x = x_of(&report(server, robot).await);
        if (x - from).abs() > 0.05 {
            return x;
        }
        assert!(Instant::now() < deadline, "{robot} did not move: {}", report(server, robot).await);
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

async fn step(server: &TestServer) -> u64 {
    server.lab_state("demo").await["step"].as_u64().unwrap()
}

#[tokio::test]
async fn a_c_program_drives_its_robot_and_keeps_its_sources() {
    let server = TestServer::start_with(yard(), true).await;
    if !compiles_here(&server, SourceLanguage::C).await {
        return;
    }
    let (status, reply) = upload(&server, TOKEN, diffbot("c", 6), ("bot.c", DRIVER), &[]).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["robots"], json!(["diffbot_c"]));
    until_moved(&server, "diffbot_c", 3.0).await;
    let response =
        server.http.get(server.url("/api/labs/demo/robots/diffbot_c/program")).bearer_auth(TOKEN).send().await.unwrap();
    let program: Value = response.json().await.unwrap();
    assert_eq!(program["main"], "bot.c", "{program}");
    assert_eq!(program["files"]["bot.c"], DRIVER, "the sources stay the program's: {program}");
}

#[tokio::test]
async fn a_cpp_project_of_several_sources_compiles_and_drives() {
    let server = TestServer::start_with(yard(), true).await;
    if !compiles_here(&server, SourceLanguage::Cpp).await {
        return;
    }
    let project = "# a C++ project\nTYPE:CPP\nSRC:main.cpp\nSRC:speed.cpp\n";
    let main = format!("#include \"speed.h\"\nextern \"C\" {{\n{}\n}}\n", DRIVER.replace("0.3, 0.0", "speed(), 0.0"));
    let files = [
        ("main.cpp", main.as_str()),
        ("speed.cpp", "#include \"speed.h\"\ndouble speed() { return 0.3; }\n"),
        ("speed.h", "double speed();\n"),
    ];
    let (status, reply) = upload(&server, TOKEN, diffbot("cpp", 6), ("bot.rprj", project), &files).await;
    assert_eq!(status, 200, "{reply}");
    until_moved(&server, "diffbot_cpp", 3.0).await;
}

#[tokio::test]
async fn a_compile_error_is_answered_at_its_file_line_and_column() {
    let server = TestServer::start_with(yard(), false).await;
    if !compiles_here(&server, SourceLanguage::C).await {
        return;
    }
    let before = server.lab_state("demo").await["robots"].clone();
    let project = "TYPE:C\nSRC:bot.c\nSRC:util.c\n";
    let util = "int speed(void) {\n    return fast;\n}\n";
    let (status, reply) =
        upload(&server, TOKEN, diffbot("broken", 6), ("bot.rprj", project), &[("bot.c", DRIVER), ("util.c", util)])
            .await;
    assert_eq!(status, 422, "{reply}");
    let error = &reply["errors"][0];
    assert_eq!((&error["file"], &error["line"], &error["col"]), (&json!("util.c"), &json!(2), &json!(12)), "{reply}");
    assert!(error["message"].as_str().unwrap().contains("'fast'"), "{reply}");
    assert_eq!(server.lab_state("demo").await["robots"], before, "nothing was inserted");
}

#[tokio::test]
async fn the_program_types_are_listed_with_what_they_lack() {
    let server = TestServer::start(false).await;
    let (status, types) = server.get_json("/api/program-types").await;
    assert_eq!(status, 200, "{types}");
    let names: Vec<&str> = types.as_array().unwrap().iter().map(|t| t["type"].as_str().unwrap()).collect();
    assert_eq!(names, ["PYTHON", "WASM", "CPP", "C"]);
    let cpp = &types[2];
    assert_eq!(cpp["extensions"], json!([".cpp", ".cc", ".cxx"]));
    assert_eq!(cpp["compiled"], true);
    assert_eq!(cpp["available"], detected().missing(SourceLanguage::Cpp).is_empty());
    assert_eq!(cpp["missing"], json!(detected().missing(SourceLanguage::Cpp)));
    assert_eq!(types[0]["compiled"], false);
    assert_eq!(types[0]["available"], true);
}

/// A classroom on the database `db`, keeping compiled programs in `cache`, restored as
/// `vlab serve` does at its start.
async fn classroom_on(db: &std::path::Path, cache: &std::path::Path) -> Classroom {
    let mut classroom = Classroom::new(ClassroomConfig {
        store: Some(Store::open(db).unwrap()),
        compile_cache: Some(cache.to_path_buf()),
        ..ClassroomConfig::default()
    });
    let demo = classroom
        .labs()
        .open_demo(DemoLab { instructor_token: Some(TOKEN.into()), seed: 1, start_running: true })
        .unwrap();
    classroom.set_server_key(demo.record.instructor);
    assert_eq!(classroom.labs().restore().await.unwrap(), 0, "every kept upload is done again");
    classroom
}

#[tokio::test]
async fn the_same_sources_are_compiled_once_across_uploads_and_a_restart() {
    let dir = std::env::temp_dir().join(format!("vlab-compile-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (db, cache) = (dir.join("vlab.db"), dir.join("vlab.db.compiled"));
    // Sources no other test compiles: the count is this server's alone.
    let source = format!("// cache test {}\n{DRIVER}", std::process::id());
    {
        let server = TestServer::serve(classroom_on(&db, &cache).await).await;
        if !compiles_here(&server, SourceLanguage::C).await {
            return;
        }
        let (status, reply) = upload(&server, TOKEN, diffbot("one", 4), ("bot.c", &source), &[]).await;
        assert_eq!(status, 200, "{reply}");
        assert_eq!(server.classroom().compiler().compiles(), 1);
        let (status, reply) = upload(&server, TOKEN, diffbot("two", 7), ("bot.c", &source), &[]).await;
        assert_eq!(status, 200, "{reply}");
        assert_eq!(server.classroom().compiler().compiles(), 1, "the same sources again come from the cache");
        let changed = source.replace("0.3", "0.2");
        let (status, reply) = upload(&server, TOKEN, diffbot("three", 10), ("bot.c", &changed), &[]).await;
        assert_eq!(status, 200, "{reply}");
        assert_eq!(server.classroom().compiler().compiles(), 2, "other sources are compiled");
    }
    let server = TestServer::serve(classroom_on(&db, &cache).await).await;
    assert_eq!(server.classroom().compiler().compiles(), 0, "the restored programs came from the cache");
    let robots = server.lab_state("demo").await["robots"].clone();
    for robot in ["diffbot_one", "diffbot_two", "diffbot_three"] {
        assert!(
            robots.as_array().unwrap().iter().any(|r| r == robot || r["name"] == robot),
            "{robot} is back: {robots}"
        );
    }
    until_moved(&server, "diffbot_one", x_of(&report(&server, "diffbot_one").await)).await;
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Hostile sources, each with the words of its refusal.
fn hostile() -> Vec<(&'static str, String, &'static [&'static str])> {
    let warnings: String = (0..3000).map(|i| format!("int f{i}(void) {{ int unused{i}; return 0; }}\n")).collect();
    vec![
        ("passwd.c", format!("#include \"/etc/passwd\"\n{DRIVER}"), &["/etc/passwd"]),
        (
            "templates.cpp",
            "template <class T, T... Is> struct S { static constexpr int n = sizeof...(Is); };\n\
             int x = __make_integer_seq<S, int, 200000000>::n;\n"
                .to_owned(),
            &["the compiler was stopped", "the compiler ran out of memory"],
        ),
        (
            "array.c",
            format!("char big[64 << 20] = {{1}};\n{}", DRIVER.replace("0.3", "big[7]")),
            &["larger than 8 MiB", "the compiler ran out of memory", "initial memory too large"],
        ),
        (
            "spin.cpp",
            "constexpr long spin(long n) { long s = 0; for (long i = 0; i < n; i++) s += i % 7; return s; }\n\
             constexpr long forever = spin(1L << 40);\n"
                .to_owned(),
            &["constexpr", "constant expression"],
        ),
        (
            "flood.c",
            format!("#pragma clang diagnostic warning \"-Wunused-variable\"\n{warnings}"),
            &["KiB of messages"],
        ),
    ]
}

#[tokio::test]
async fn hostile_sources_are_stopped_with_their_reason_while_the_lab_keeps_stepping() {
    let server = TestServer::start_with(yard(), true).await;
    if !compiles_here(&server, SourceLanguage::Cpp).await {
        return;
    }
    let (status, reply) = upload(&server, TOKEN, diffbot("calm", 3), ("calm.c", DRIVER), &[]).await;
    assert_eq!(status, 200, "{reply}");
    let mut x = until_moved(&server, "diffbot_calm", 3.0).await;
    let ana = server.join_demo("Ana").await;
    for (name, source, reasons) in hostile() {
        let before = step(&server).await;
        let compiling = upload(&server, &ana, diffbot("ana", 9), (name, &source), &[]);
        let (status, reply) = compiling.await;
        assert_eq!(status, 422, "{name}: {reply}");
        let messages: Vec<&str> =
            reply["errors"].as_array().unwrap().iter().filter_map(|e| e["message"].as_str()).collect();
        assert!(
            messages.iter().any(|m| reasons.iter().any(|r| m.contains(r))),
            "{name} is refused for its reason ({reasons:?}): {reply}"
        );
        assert_eq!(reply["errors"][0]["file"], name, "{reply}");
        // Every compile leaves the lab stepping and the calm robot driving.
        assert!(step(&server).await > before, "{name}: the lab stepped on while it compiled");
        x = until_moved(&server, "diffbot_calm", x).await;
    }
    assert_eq!(report(&server, "diffbot_ana").await.get("pose"), None, "no hostile robot was inserted");
}
