//! A URDF robot uploaded like any robot (docs/urdf.md): `POST /api/labs/{lab}/robots`
//! with the URDF file as the description and its STL mesh beside it; the lab serves the
//! mesh as OBJ, the robot drives by its Gazebo diff-drive plugin's `drive`, and a broken
//! file is refused with its line.

use crate::common;

use common::{Received, TOKEN, TestServer};
use reqwest::multipart::{Form, Part};
use serde_json::json;
use vlab_protocol::{ControlAction, RobotReport, SceneUploadReply, ServerMsg};

const DIFFBOT: &str = include_str!("../../../scenes/urdf/diffbot.urdf");

/// The chassis's visual box as the diffbot's URDF writes it.
const CHASSIS_BOX: &str = "<visual>\n      <origin xyz=\"-0.04 0 0.02\" rpy=\"0 0 0\"/>\n      <geometry><box size=\"0.2 0.16 0.04\"/></geometry>";

/// The diffbot with its chassis drawn by an STL mesh in millimetres.
fn diffbot_with_mesh() -> String {
    assert!(DIFFBOT.contains(CHASSIS_BOX));
    DIFFBOT.replace(
        CHASSIS_BOX,
        "<visual>\n      <origin xyz=\"-0.04 0 0.02\" rpy=\"0 0 0\"/>\n      <geometry><mesh filename=\"package://diffbot_description/meshes/chassis.stl\" scale=\"0.001 0.001 0.001\"/></geometry>",
    )
}

/// A binary STL of a box `size` (file units) centred on the origin: 12 triangles.
pub(crate) fn box_stl(size: [f32; 3]) -> Vec<u8> {
    let h = size.map(|s| s / 2.0);
    let corner = |i: usize| {
        [
            if i & 1 == 0 { -h[0] } else { h[0] },
            if i & 2 == 0 { -h[1] } else { h[1] },
            if i & 4 == 0 { -h[2] } else { h[2] },
        ]
    };
    let faces = [[0, 1, 3, 2], [4, 6, 7, 5], [0, 4, 5, 1], [2, 3, 7, 6], [0, 2, 6, 4], [1, 5, 7, 3]];
    let mut bytes = vec![0u8; 80];
    bytes.extend(12u32.to_le_bytes());
    for [a, b, c, d] in faces {
        for triangle in [[a, b, c], [a, c, d]] {
            bytes.extend([0u8; 12]);
            for v in triangle {
                for x in corner(v) {
                    bytes.extend(x.to_le_bytes());
                }
            }
            bytes.extend([0u8; 2]);
        }
    }
    bytes
}

async fn upload(server: &TestServer, form: Form) -> (u16, SceneUploadReply) {
    let response =
        server.http.post(server.url("/api/labs/empty/robots")).bearer_auth(TOKEN).multipart(form).send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

#[tokio::test]
async fn a_urdf_with_its_stl_mesh_uploads_draws_and_drives() {
    let server = TestServer::start(false).await;
    let room = "environment room { width 5; length 5; }";
    let response = server
        .http
        .post(server.url("/api/labs/empty/scene"))
        .bearer_auth(TOKEN)
        .header("content-type", "text/plain")
        .body(room)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let mut viewer = server.connect("empty", None).await;
    viewer.join_sequence().await;

    let form = Form::new()
        .part("description", Part::text(diffbot_with_mesh()).file_name("diffbot.urdf"))
        .part("meshes/chassis.stl", Part::bytes(box_stl([200.0, 160.0, 40.0])).file_name("meshes/chassis.stl"));
    let (status, reply) = upload(&server, form).await;
    assert_eq!(status, 200, "{reply:?}");
    assert!(reply.warnings.is_empty(), "{:?}", reply.warnings);
    assert_eq!(reply.robots, ["diffbot"]);

    // The chassis is drawn by the mesh, served as OBJ.
    let snapshot = viewer
        .until(|r| match r {
            Received::Json(ServerMsg::Snapshot(s)) if s.bodies.iter().any(|b| b.name == "diffbot_base_footprint") => {
                Some(s.clone())
            }
            _ => None,
        })
        .await;
    let body = snapshot.bodies.iter().find(|b| b.name == "diffbot_base_footprint").unwrap();
    let mesh = body.parts.iter().find_map(|p| p.mesh.clone()).expect("the chassis has its mesh");
    assert!(mesh.url.starts_with("/api/labs/empty/assets/") && mesh.url.ends_with("/chassis.stl.obj"), "{}", mesh.url);
    assert_eq!(mesh.scale, 0.001);
    let obj = server.http.get(server.url(&mesh.url)).send().await.unwrap();
    assert_eq!(obj.status().as_u16(), 200);
    let obj = obj.text().await.unwrap();
    assert_eq!(obj.lines().filter(|l| l.starts_with("v ")).count(), 36);
    assert!(obj.contains("v 100 80 20\n"), "{obj}");

    // Driven by the plugin's drive at 0.15 m/s for 2 s: forward (+X) about 0.3 m.
    let response = server
        .http
        .post(server.url("/api/labs/empty/robots/diffbot/actuators"))
        .bearer_auth(TOKEN)
        .json(&json!({"drive": {"v": 0.15, "omega": 0.0}}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200, "{}", response.text().await.unwrap());
    let before: RobotReport =
        serde_json::from_value(server.get_json("/api/labs/empty/robots/diffbot").await.1).unwrap();
    server.control("empty", ControlAction::Step { steps: 480 }).await;
    let after: RobotReport = serde_json::from_value(server.get_json("/api/labs/empty/robots/diffbot").await.1).unwrap();
    let moved = after.pose.position[0] - before.pose.position[0];
    println!("moved {moved:.4} m along X in 2 s");
    // The drive needs a fraction of a second to reach its speed: 0.3 m at most, 0.25 at least.
    assert!((0.25..0.31).contains(&moved), "moved {moved:.4} m");
    assert!((after.pose.position[2] - before.pose.position[2]).abs() < 0.01, "it drifted sideways");
}

#[tokio::test]
async fn a_broken_urdf_upload_is_refused_at_its_line() {
    let server = TestServer::start(false).await;
    let broken = DIFFBOT.replacen("<link name=\"caster\">", "<link name=\"caster\"", 1);
    let line = broken.lines().position(|l| l.contains("<link name=\"caster\"")).unwrap() as u32 + 1;
    let form = Form::new().part("description", Part::text(broken).file_name("diffbot.urdf"));
    let (status, reply) = upload(&server, form).await;
    assert_eq!(status, 422, "{reply:?}");
    let error = &reply.errors[0];
    assert_eq!(error.file, "diffbot.urdf");
    assert!(
        error.line == line || error.line == line + 1,
        "error at line {}, the tag is on line {line}: {error:?}",
        error.line
    );
    assert!(error.message.contains("not well-formed"), "{}", error.message);
}
