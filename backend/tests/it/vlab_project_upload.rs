//! A robot written for the original VLAB, uploaded as written: its description names
//! its project by a path of the machine it was written on, and its project file carries
//! `INCLUDE_DIR`. The upload takes both, and its answer says what it did with them.
//!
//! Python programs run only where the server can sandbox them; elsewhere the upload is
//! refused for that reason, and the warnings are in the refusal's answer all the same.

use crate::common;

use common::{TestServer, python_runs_here};
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

/// Prints its step each control step.
const PROGRAM: &str = "from vlab import Robot\n\nrobot = Robot()\nwhile robot.step():\n    pass\n";

/// A project file as VLAB wrote them.
const PROJECT: &str = "#PROGETTO DI PROVA\nTYPE:PYTHON\nSRC:carrello.py\nINCLUDE_DIR:/working/tesi/trunk/\n";

/// A one-body robot at (x, z), with `code` if given.
fn robot(name: &str, x: f64, z: f64, code: Option<&str>) -> String {
    let code = code.map(|file| format!("\n  code \"{file}\";")).unwrap_or_default();
    format!(
        "robot {name} {{{code}\n  body {{ {name}_body {{ shape box(0.3, 0.1, 0.2); pos({x}, 0.15, {z}); }} }}\n}}\n"
    )
}

async fn join(server: &TestServer, name: &str) -> String {
    let body = json!({ "join_code": "DEMOCODE", "name": name });
    let reply: Value =
        server.http.post(server.url("/api/labs/demo/join")).json(&body).send().await.unwrap().json().await.unwrap();
    reply["token"].as_str().expect("a session token").to_owned()
}

async fn upload(server: &TestServer, token: &str, form: Form) -> (u16, Value) {
    let response =
        server.http.post(server.url("/api/labs/demo/robots")).bearer_auth(token).multipart(form).send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

fn file(name: &str, text: &str) -> Part {
    Part::text(text.to_owned()).file_name(name.to_owned())
}

/// `file:line: message` of each warning of the answer.
fn warnings(reply: &Value) -> Vec<String> {
    let listed = reply["warnings"].as_array().cloned().unwrap_or_default();
    listed.iter().map(|w| format!("{}:{}: {}", w["file"].as_str().unwrap_or(""), w["line"], w["message"])).collect()
}

#[tokio::test]
async fn a_project_named_by_a_foreign_path_is_found_and_its_include_dir_is_a_warning() {
    let python_runs = python_runs_here();
    let server = TestServer::start(false).await;
    let ana = join(&server, "Ana").await;
    let description = robot("carrello_ana", 2.0, 3.0, Some("/working/tesi/trunk/plugins/example/Cpp/carrello.rprj"));
    let form = Form::new()
        .part("description", file("robot.vlab", &description))
        .part("carrello.rprj", file("carrello.rprj", PROJECT))
        .part("carrello.py", file("carrello.py", PROGRAM));
    let (status, reply) = upload(&server, &ana, form).await;
    assert_eq!(status, if python_runs { 200 } else { 422 }, "{reply}");
    if !python_runs {
        let message = reply["errors"][0]["message"].as_str().unwrap_or_default();
        assert!(message.contains("the sandbox cannot be enforced"), "refused, but not for the sandbox: {reply}");
    }
    let said = warnings(&reply);
    assert_eq!(said.len(), 2, "{said:#?}");
    assert!(said[0].starts_with("robot.vlab:2: ") && said[0].contains("using 'carrello.rprj'"), "{said:#?}");
    assert!(said[1].starts_with("carrello.rprj:4: ") && said[1].contains("'INCLUDE_DIR'"), "{said:#?}");
}

#[tokio::test]
async fn the_forms_project_file_says_which_keys_it_skipped() {
    if !python_runs_here() {
        return;
    }
    let server = TestServer::start(false).await;
    let ana = join(&server, "Ana").await;
    let form = Form::new()
        .part("description", file("robot.vlab", &robot("plain_ana", 2.0, 3.0, None)))
        .part("program", file("carrello.rprj", PROJECT))
        .part("carrello.py", file("carrello.py", PROGRAM));
    let (status, reply) = upload(&server, &ana, form).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["robots"], json!(["plain_ana"]));
    let said = warnings(&reply);
    assert_eq!(said.len(), 1, "{said:#?}");
    assert!(said[0].starts_with("carrello.rprj:4: ") && said[0].contains("'INCLUDE_DIR'"), "{said:#?}");
}
