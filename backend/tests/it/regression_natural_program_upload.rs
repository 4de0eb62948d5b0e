//! Regression: a student writes a robot whose description says `code "main.py";` and
//! sends `main.py` in the form's `program` field (what docs/programs.md describes): the
//! server answered 422 "the program 'main.py' has no robot to run".
//!
//! A `program` file that a robot of the description names is that robot's program, not
//! one looking for a robot; the field still goes to the one robot that names none, and
//! two robots naming none are still a clear 422.
//!
//! A program sent under another part name (`-F file=@main.py`) left the robot without a
//! program and the reply said nothing: now the reply warns, naming the file, the robot
//! and how to send it.
//!
//! Python programs run only where the server can sandbox them; elsewhere it must refuse
//! them with that reason (fail closed), which is what these tests then check.

use crate::common;

use common::{TOKEN, TestServer, python_runs_here};
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

/// Prints its step each control step.
const PROGRAM: &str = "\
from vlab import Robot

robot = Robot()
while robot.step():
    print(f\"step {robot.step_count()}\")
";

/// The tank's program of the examples (drives back and forth on its keyboard and GPS).
const TANK_PROGRAM: &str = include_str!("../../../scenes/examples/tank_back_and_forth/main.py");

/// A project file in the original VLAB format, naming the tank's program.
const TANK_PROJECT: &str = "# the tank's project\nTYPE:PYTHON       # its language\nSRC:tank.py\n";

/// A one-robot description: `name` at (x, z), running `code` when it is given.
fn robot(name: &str, x: f64, z: f64, code: Option<&str>) -> String {
    let code = code.map(|file| format!("code \"{file}\";")).unwrap_or_default();
    format!(
        r#"robot {name} {{ {code} body {{
             {name}_body {{ shape box(0.3, 0.1, 0.2); pos({x}, 0.15, {z}); SimpleGPS gps; }}
             {name}_wheel {{ shape cylinder(0.05, 0.02); pos({x}, 0.05, {z2}); }}
             JointHinge({name}_body, {name}_wheel) {{ anchor({x}, 0.05, {z2}); axis(0, 0, 1);
               SimpleMotor motor {{ speed 0; }} }}
           }} }}
"#,
        z2 = z + 0.12
    )
}

async fn join(server: &TestServer, name: &str) -> String {
    let body = json!({ "join_code": "DEMOCODE", "name": name });
    let reply: Value =
        server.http.post(server.url("/api/labs/demo/join")).json(&body).send().await.unwrap().json().await.unwrap();
    reply["token"].as_str().expect("a session token").to_owned()
}

/// A form: `description`, then `program` (file `program_name`), then further files.
fn form(description: String, program_name: &str, program: &str, more: &[(&str, &str)]) -> Form {
    let mut form = Form::new()
        .part("description", Part::text(description).file_name("robot.vlab"))
        .part("program", Part::text(program.to_owned()).file_name(program_name.to_owned()));
    for (name, text) in more {
        form = form.part(name.to_string(), Part::text(text.to_string()).file_name(name.to_string()));
    }
    form
}

async fn upload(server: &TestServer, token: &str, form: Form) -> (u16, Value) {
    let response =
        server.http.post(server.url("/api/labs/demo/robots")).bearer_auth(token).multipart(form).send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

/// The upload was accepted (or, where Python cannot be sandboxed, refused for that
/// reason and no other). True when accepted.
fn accepted(status: u16, reply: &Value, python_runs: bool) -> bool {
    if python_runs {
        assert_eq!(status, 200, "{reply}");
        assert_eq!(reply["ok"], true, "{reply}");
        true
    } else {
        assert_eq!(status, 422, "{reply}");
        let message = reply["errors"][0]["message"].as_str().unwrap_or_default();
        assert!(message.contains("the sandbox cannot be enforced"), "refused, but not for the sandbox: {reply}");
        false
    }
}

/// `GET .../robots/{robot}/program` as its owner.
async fn program_of(server: &TestServer, token: &str, robot: &str) -> Value {
    let url = server.url(&format!("/api/labs/demo/robots/{robot}/program"));
    let response = server.http.get(url).bearer_auth(token).send().await.unwrap();
    let status = response.status().as_u16();
    let body: Value = response.json().await.unwrap();
    assert_eq!(status, 200, "{body}");
    body
}

#[tokio::test]
async fn a_robot_naming_main_py_takes_the_main_py_sent_as_its_program() {
    let python_runs = python_runs_here();
    let server = TestServer::start(false).await;
    let ana = join(&server, "Ana").await;
    let description = robot("pybot_ana", 2.0, 3.0, Some("main.py"));
    let (status, reply) = upload(&server, &ana, form(description, "main.py", PROGRAM, &[])).await;
    if !accepted(status, &reply, python_runs) {
        return;
    }
    assert_eq!(reply["robots"], json!(["pybot_ana"]));
    assert_eq!(reply["warnings"], json!([]), "a program that runs is not warned about: {reply}");
    let program = program_of(&server, &ana, "pybot_ana").await;
    assert_eq!(program["main"], "main.py", "{program}");
    assert_eq!(program["files"]["main.py"], PROGRAM, "{program}");
}

#[tokio::test]
async fn the_tank_naming_its_project_file_takes_the_project_sent_as_its_program() {
    let python_runs = python_runs_here();
    let server = TestServer::start(false).await;
    let ana = join(&server, "Ana").await;
    // The library's tank, running the project file it names (scenes/tankbot.vlab does
    // the same with tankbot.rprj).
    let description = "include \"tankbot_robot.vlab\";\ncall tankbot_with_code(\"_ana\", 3, 6, 0, \"tank.rprj\");\n";
    let form = form(description.into(), "tank.rprj", TANK_PROJECT, &[("tank.py", TANK_PROGRAM)]);
    let (status, reply) = upload(&server, &ana, form).await;
    if !accepted(status, &reply, python_runs) {
        return;
    }
    assert_eq!(reply["robots"], json!(["tankbot_ana"]));
    let program = program_of(&server, &ana, "tankbot_ana").await;
    assert_eq!(program["main"], "tank.py", "{program}");
    assert_eq!(program["files"]["tank.py"], TANK_PROGRAM, "{program}");
}

#[tokio::test]
async fn the_program_field_still_goes_to_the_one_robot_that_names_none() {
    let python_runs = python_runs_here();
    let server = TestServer::start(false).await;
    let ana = join(&server, "Ana").await;
    let description = robot("plain_ana", 2.0, 3.0, None);
    let (status, reply) = upload(&server, &ana, form(description, "main.py", PROGRAM, &[])).await;
    if !accepted(status, &reply, python_runs) {
        return;
    }
    assert_eq!(reply["robots"], json!(["plain_ana"]));
    let program = program_of(&server, &ana, "plain_ana").await;
    assert_eq!(program["files"]["main.py"], PROGRAM, "{program}");
}

#[tokio::test]
async fn a_program_field_for_two_robots_naming_none_is_a_clear_422() {
    let server = TestServer::start(false).await;
    let description = format!("{}{}", robot("first", 2.0, 3.0, None), robot("second", 4.0, 3.0, None));
    let (status, reply) = upload(&server, TOKEN, form(description, "main.py", PROGRAM, &[])).await;
    assert_eq!(status, 422, "{reply}");
    let message = reply["errors"][0]["message"].as_str().unwrap_or_default();
    assert!(message.contains("first") && message.contains("second"), "names both robots: {reply}");
    assert!(message.contains("code"), "says how to choose (`code \"file\"`): {reply}");
    assert_eq!(reply["errors"][0]["file"], "main.py", "{reply}");
    let lab = server.lab_state("demo").await;
    let robots = lab["robots"].as_array().unwrap();
    assert!(!robots.iter().any(|r| r == "first" || r == "second"), "nothing inserted: {lab}");
}

#[tokio::test]
async fn a_program_sent_under_another_part_name_is_warned_about() {
    let server = TestServer::start(false).await;
    let ana = join(&server, "Ana").await;
    let form = Form::new()
        .part("description", Part::text(robot("quiet_ana", 2.0, 3.0, None)).file_name("robot.vlab"))
        .part("file", Part::text(PROGRAM).file_name("main.py"));
    let (status, reply) = upload(&server, &ana, form).await;
    // A robot without a program needs no sandbox: accepted on every platform.
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["robots"], json!(["quiet_ana"]));
    let warnings = reply["warnings"].as_array().expect("warnings");
    assert_eq!(warnings.len(), 1, "one warning, for main.py: {reply}");
    assert_eq!(warnings[0]["file"], "main.py", "{reply}");
    let message = warnings[0]["message"].as_str().unwrap_or_default();
    assert!(message.contains("quiet_ana"), "names the robot left without a program: {reply}");
    assert!(message.contains("program=@main.py"), "says how to send it: {reply}");
    assert!(message.contains("code \"main.py\""), "or how to name it: {reply}");
    let url = server.url("/api/labs/demo/robots/quiet_ana/program");
    let response = server.http.get(url).bearer_auth(&ana).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 404, "the robot has no program");
}
