//! A robot as a ROS 2 description package ships it (docs/urdf.md, "Xacro" and "A zip
//! of a package"): `backend/tests/fixtures/burger_description/`, a URDF written with
//! xacro (`xacro:arg` with defaults, `${namespace}` in names, properties, macros, an
//! include found with `$(find)`, `package://` meshes), zipped with its top folder as a
//! repository hands it out, uploads through the form and as a zip body, and drives by
//! its diff-drive plugin. A zip bomb and a zip with `../` paths are refused and change
//! nothing; a xacro mistake is refused at its line in the file that has it.

use std::io::Write;

use crate::common;
use crate::urdf_upload::box_stl;

use common::{TOKEN, TestServer};
use reqwest::multipart::{Form, Part};
use serde_json::json;
use vlab_protocol::{ControlAction, RobotReport, SceneUploadReply};
use zip::write::SimpleFileOptions;

const BURGER: &str = include_str!("../fixtures/burger_description/urdf/burger.urdf");
const COMMON: &str = include_str!("../fixtures/burger_description/urdf/common_properties.xacro");
const PACKAGE: &str = include_str!("../fixtures/burger_description/package.xml");

/// A zip of `entries` (path, content), deflated.
fn zip_of(entries: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, content) in entries {
        writer.start_file(*name, options).unwrap();
        writer.write_all(content).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

/// The package as a repository hands it out: everything under `burger_description/`,
/// its meshes STL boxes in millimetres; `burger` is the robot's file.
fn package_zip(burger: &str) -> Vec<u8> {
    let top = "burger_description";
    zip_of(&[
        (&format!("{top}/package.xml"), PACKAGE.into()),
        (&format!("{top}/urdf/burger.urdf"), burger.into()),
        (&format!("{top}/urdf/common_properties.xacro"), COMMON.into()),
        (&format!("{top}/meshes/bases/burger_base.stl"), box_stl([140.0, 140.0, 120.0])),
        (&format!("{top}/meshes/wheels/left_tire.stl"), box_stl([66.0, 18.0, 66.0])),
        (&format!("{top}/meshes/wheels/right_tire.stl"), box_stl([66.0, 18.0, 66.0])),
    ])
}

async fn server_with_a_room() -> TestServer {
    let server = TestServer::start(false).await;
    let response = server
        .http
        .post(server.url("/api/labs/empty/scene"))
        .bearer_auth(TOKEN)
        .header("content-type", "text/plain")
        .body("environment room { width 5; length 5; }")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    server
}

async fn reply_of(response: reqwest::Response) -> (u16, serde_json::Value) {
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

async fn upload_form(server: &TestServer, form: Form) -> (u16, serde_json::Value) {
    let request = server.http.post(server.url("/api/labs/empty/robots")).bearer_auth(TOKEN).multipart(form);
    reply_of(request.send().await.unwrap()).await
}

async fn upload_zip_body(server: &TestServer, bytes: Vec<u8>, main: &str) -> (u16, serde_json::Value) {
    let request = server
        .http
        .post(server.url(&format!("/api/labs/empty/robots?main={main}")))
        .bearer_auth(TOKEN)
        .header("content-type", "application/zip")
        .body(bytes);
    reply_of(request.send().await.unwrap()).await
}

/// Drives robot `robot` forward by its plugin's drive for 2 s; the metres it went along X.
async fn drive_forward(server: &TestServer, robot: &str) -> f64 {
    let response = server
        .http
        .post(server.url(&format!("/api/labs/empty/robots/{robot}/actuators")))
        .bearer_auth(TOKEN)
        .json(&json!({"drive": {"v": 0.15, "omega": 0.0}}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200, "{}", response.text().await.unwrap());
    let report = |v: serde_json::Value| serde_json::from_value::<RobotReport>(v).unwrap();
    let before = report(server.get_json(&format!("/api/labs/empty/robots/{robot}")).await.1);
    server.control("empty", ControlAction::Step { steps: 480 }).await;
    let after = report(server.get_json(&format!("/api/labs/empty/robots/{robot}")).await.1);
    after.pose.position[0] - before.pose.position[0]
}

/// Whether lab `empty` has robot `robot`.
async fn has_robot(server: &TestServer, robot: &str) -> bool {
    let (status, reply) = server.get_json(&format!("/api/labs/empty/robots/{robot}")).await;
    assert!(status == 200 || status == 404, "{status}: {reply}");
    status == 200
}

#[tokio::test]
async fn a_ros_package_zip_uploads_through_the_form_as_it_is_and_drives() {
    let server = server_with_a_room().await;
    let form = Form::new()
        .part("package", Part::bytes(package_zip(BURGER)).file_name("burger_description.zip"))
        .text("main", "urdf/burger.urdf");
    let (status, reply) = upload_form(&server, form).await;
    assert_eq!(status, 200, "{reply}");
    let reply: SceneUploadReply = serde_json::from_value(reply).unwrap();
    assert_eq!(reply.robots, ["burger"]);
    assert!(reply.warnings.is_empty(), "every package:// mesh is found: {:?}", reply.warnings);
    // base_footprint, base_link and the caster are one body; each wheel is one more.
    assert_eq!((reply.inserted.bodies, reply.inserted.joints), (3, 2), "{reply:?}");

    let moved = drive_forward(&server, "burger").await;
    println!("the burger moved {moved:.4} m along X in 2 s");
    assert!((0.2..0.31).contains(&moved), "moved {moved:.4} m");
}

#[tokio::test]
async fn a_ros_package_zip_uploads_as_the_body_of_a_request() {
    let server = server_with_a_room().await;
    let (status, reply) = upload_zip_body(&server, package_zip(BURGER), "urdf/burger.urdf").await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["robots"], json!(["burger"]));

    // Without saying which file is the robot, a package of one robot file is enough...
    let server = server_with_a_room().await;
    let one = zip_of(&[("bot/urdf/burger.urdf", BURGER.into()), ("bot/urdf/common_properties.macros", COMMON.into())]);
    let (status, reply) = upload_zip_body(&server, one, "").await;
    assert_eq!(status, 422, "the include is not where $(find) looks: {reply}");
    assert!(reply["errors"][0]["message"].as_str().unwrap().contains("cannot include"), "{reply}");
    // ...and the package as ROS ships it is one robot file and the file it includes.
    let server = server_with_a_room().await;
    let (status, reply) = upload_zip_body(&server, package_zip(BURGER), "").await;
    assert_eq!(status, 200, "the included common_properties.xacro is not the robot: {reply}");
    assert_eq!(reply["robots"], json!(["burger"]));
    // A package of two robots: which one is asked.
    let two = zip_of(&[
        ("bots/urdf/burger.urdf", BURGER.into()),
        ("bots/urdf/waffle.urdf", BURGER.replace("name=\"burger\"", "name=\"waffle\"").into_bytes()),
        ("bots/urdf/common_properties.xacro", COMMON.into()),
    ]);
    let (status, reply) = upload_zip_body(&server, two, "").await;
    assert_eq!(status, 400, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("urdf/burger.urdf, urdf/waffle.urdf") && message.contains("?main="), "{message}");
}

#[tokio::test]
async fn a_xacro_mistake_is_refused_at_its_line_in_the_included_file() {
    let server = server_with_a_room().await;
    let broken_common = COMMON.replace("${mass * radius**2 / 2}", "${mass * radius**2 / 2 + density}");
    // The element is refused where it starts, two lines above the attribute.
    let line = broken_common.lines().position(|l| l.contains("<inertia ")).unwrap() as u32 + 1;
    let bytes = zip_of(&[
        ("burger_description/urdf/burger.urdf", BURGER.into()),
        ("burger_description/urdf/common_properties.xacro", broken_common.into()),
    ]);
    let (status, reply) = upload_zip_body(&server, bytes, "urdf/burger.urdf").await;
    assert_eq!(status, 422, "{reply}");
    let reply: SceneUploadReply = serde_json::from_value(reply).unwrap();
    let error = &reply.errors[0];
    assert_eq!((error.file.as_str(), error.line), ("urdf/common_properties.xacro", line), "{error:?}");
    assert!(error.message.contains("unknown property 'density'"), "{}", error.message);
    assert!(!has_robot(&server, "burger").await);
}

#[tokio::test]
async fn a_zip_bomb_is_refused_and_changes_nothing() {
    let server = server_with_a_room().await;
    // 64 MiB of zeros in a few dozen KiB: it must be stopped while it inflates.
    let bomb = zip_of(&[("bot/urdf/bot.urdf", BURGER.into()), ("bot/meshes/base.stl", vec![0u8; 64 << 20])]);
    assert!(bomb.len() < 1 << 20, "{} bytes", bomb.len());
    let form = Form::new().part("package", Part::bytes(bomb.clone()).file_name("bot.zip"));
    let (status, reply) = upload_form(&server, form).await;
    assert_eq!(status, 413, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("unpacks to more than 4 MiB"), "{message}");
    let (status, _) = upload_zip_body(&server, bomb, "urdf/bot.urdf").await;
    assert_eq!(status, 413);
    assert!(!has_robot(&server, "bot").await);
}

#[tokio::test]
async fn a_zip_with_paths_out_of_the_upload_is_refused_and_changes_nothing() {
    let server = server_with_a_room().await;
    for evil in ["../../scenes/evil.vlab", "urdf/../../../etc/cron.d/evil", "/etc/passwd"] {
        let bytes = zip_of(&[("urdf/burger.urdf", BURGER.into()), (evil, b"robot evil { }".to_vec())]);
        let form =
            Form::new().part("package", Part::bytes(bytes).file_name("bot.zip")).text("main", "urdf/burger.urdf");
        let (status, reply) = upload_form(&server, form).await;
        assert_eq!(status, 400, "{evil}: {reply}");
        let message = reply["error"]["message"].as_str().unwrap();
        assert!(message.contains(evil) && message.contains("not a plain relative path"), "{message}");
    }
    assert!(!has_robot(&server, "burger").await);
}

#[tokio::test]
async fn a_macro_that_calls_itself_twice_per_call_is_stopped_at_its_line() {
    let server = server_with_a_room().await;
    let bomb = "<?xml version=\"1.0\"?>\n<robot name=\"bomb\" xmlns:xacro=\"http://ros.org/wiki/xacro\">\n  <xacro:macro name=\"m\" params=\"n\">\n    <link name=\"l${n}\"/>\n    <xacro:m n=\"${n + 1}\"/>\n    <xacro:m n=\"${n + 1}\"/>\n  </xacro:macro>\n  <xacro:m n=\"0\"/>\n</robot>\n";
    let started = std::time::Instant::now();
    let form = Form::new().part("description", Part::text(bomb).file_name("bomb.urdf.xacro"));
    let (status, reply) = upload_form(&server, form).await;
    println!("refused in {:?}", started.elapsed());
    assert_eq!(status, 422, "{reply}");
    let reply: SceneUploadReply = serde_json::from_value(reply).unwrap();
    let error = &reply.errors[0];
    assert_eq!(error.file, "bomb.urdf.xacro", "{error:?}");
    assert!(error.message.contains("call itself"), "{}", error.message);
    assert!((3..=6).contains(&error.line), "{error:?}");
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "{:?}", started.elapsed());
    assert!(!has_robot(&server, "bomb").await);
}
