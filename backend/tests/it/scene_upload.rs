//! Scene uploads against a real server: a good scene appears for every viewer, a bad
//! one is answered with exact positions and changes nothing.

use crate::common;

use common::{Received, TOKEN, TestServer};
use vlab_protocol::{SceneUploadReply, ServerMsg};

const STACK: &str = "// three boxes
for i in {0>3} {
  id:[\"crate_\" . string(i)] { shape box(0.4, 0.4, 0.4); pos(6, 0.2 + 0.4 * i, 6); material \"Wood\"; }
}
print_str \"stacked \" . string(3);
";

async fn upload(server: &TestServer, token: Option<&str>, text: &str) -> (u16, serde_json::Value) {
    upload_to(server, "demo", token, text).await
}

async fn upload_to(server: &TestServer, lab: &str, token: Option<&str>, text: &str) -> (u16, serde_json::Value) {
    let mut request = server
        .http
        .post(server.url(&format!("/api/labs/{lab}/scene")))
        .header("content-type", "text/plain")
        .body(text.to_owned());
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

async fn bodies(server: &TestServer) -> u64 {
    bodies_in(server, "demo").await
}

async fn bodies_in(server: &TestServer, lab: &str) -> u64 {
    server.lab_state(lab).await["bodies"].as_u64().unwrap()
}

#[tokio::test]
async fn an_uploaded_scene_is_inserted_and_every_viewer_sees_it() {
    let server = TestServer::start(true).await;
    let mut viewer = server.connect("demo", None).await;
    let (_, first, ..) = viewer.join_sequence().await;
    let before = bodies(&server).await;

    let (status, body) = upload(&server, Some(TOKEN), STACK).await;
    assert_eq!(status, 200, "{body}");
    let reply: SceneUploadReply = serde_json::from_value(body).unwrap();
    assert!(reply.ok);
    assert_eq!(reply.inserted.bodies, 3);
    assert_eq!(reply.log, ["stacked 3"]);
    assert!(reply.errors.is_empty());
    assert_eq!(bodies(&server).await, before + 3);

    let snapshot = viewer
        .until(|r| match r {
            Received::Json(ServerMsg::Snapshot(s)) => Some(s.clone()),
            _ => None,
        })
        .await;
    assert_eq!(snapshot.bodies.len(), first.bodies.len() + 3);
    assert!(snapshot.epoch > first.epoch);
    assert!(snapshot.bodies.iter().any(|b| b.name == "crate_2"));
}

#[tokio::test]
async fn a_syntax_error_is_positioned_and_inserts_nothing() {
    let server = TestServer::start(true).await;
    let before = bodies(&server).await;
    let broken = "ok { shape box(1,1,1); pos(1, 0.5, 1); }\nbad { shape box(1,1,1) pos(2, 0.5, 2); }\n";
    let (status, body) = upload(&server, Some(TOKEN), broken).await;
    assert_eq!(status, 422, "{body}");
    let reply: SceneUploadReply = serde_json::from_value(body).unwrap();
    assert!(!reply.ok);
    let error = &reply.errors[0];
    assert_eq!((error.file.as_str(), error.line), ("upload.vlab", 2), "{error:?}");
    assert!(error.message.contains("expected ';'"), "{}", error.message);
    assert_eq!(bodies(&server).await, before, "nothing was inserted");
}

#[tokio::test]
async fn a_semantic_error_is_positioned_and_inserts_nothing() {
    let server = TestServer::start(true).await;
    let before = bodies(&server).await;
    let (status, body) = upload(&server, Some(TOKEN), "num x = 1;\nstring s = x;\n").await;
    assert_eq!(status, 422, "{body}");
    let reply: SceneUploadReply = serde_json::from_value(body).unwrap();
    assert_eq!(reply.errors[0].line, 2);
    assert!(reply.errors[0].message.contains("num"), "{}", reply.errors[0].message);
    assert_eq!(bodies(&server).await, before);
}

#[tokio::test]
async fn a_runaway_scene_is_stopped_by_its_budget() {
    let server = TestServer::start(true).await;
    let before = bodies(&server).await;
    let (status, body) = upload(&server, Some(TOKEN), "num i = 0;\nfor k in {0>1000000000} { i = i + 1; }\n").await;
    assert_eq!(status, 422, "{body}");
    let reply: SceneUploadReply = serde_json::from_value(body).unwrap();
    assert!(!reply.errors.is_empty());
    assert_eq!(bodies(&server).await, before);
    // The lab is still alive and answering.
    assert_eq!(server.get_json("/api/health").await.0, 200);
}

#[tokio::test]
async fn a_name_already_in_the_lab_is_a_conflict_pointing_at_the_name() {
    let server = TestServer::start(true).await;
    assert_eq!(upload(&server, Some(TOKEN), STACK).await.0, 200);
    let after_first = bodies(&server).await;
    let clash = "fresh { shape box(1,1,1); pos(1,0.5,1); }\n  crate_1 { shape box(1,1,1); pos(2,0.5,2); }\n";
    let (status, body) = upload(&server, Some(TOKEN), clash).await;
    assert_eq!(status, 409, "{body}");
    let reply: SceneUploadReply = serde_json::from_value(body).unwrap();
    let error = &reply.errors[0];
    assert_eq!((error.line, error.col), (2, 3), "{error:?}");
    assert!(error.message.contains("crate_1"));
    assert_eq!(bodies(&server).await, after_first, "not even 'fresh' was inserted");
}

#[tokio::test]
async fn an_empty_lab_takes_its_first_environment_and_refuses_a_second() {
    let server = TestServer::start(true).await;
    assert_eq!(bodies_in(&server, "empty").await, 0, "a lab created without a scene starts empty");
    let env = "environment room { width 8; length 8; height 3; }\n";
    let (status, body) = upload_to(&server, "empty", Some(TOKEN), env).await;
    assert_eq!(status, 200, "{body}");
    let with_env = bodies_in(&server, "empty").await;
    assert!(with_env >= 5, "floor, walls and ceiling: {with_env} bodies");
    let (status, body) = upload_to(&server, "empty", Some(TOKEN), env).await;
    assert_eq!(status, 409, "{body}");
    assert!(body["errors"][0]["message"].as_str().unwrap().contains("already has an environment"));
    assert_eq!(body["errors"][0]["line"], 1);
    assert_eq!(bodies_in(&server, "empty").await, with_env);
    // The demo lab has its environment from the start.
    assert_eq!(upload(&server, Some(TOKEN), env).await.0, 409);
}

#[tokio::test]
async fn a_bundle_brings_its_own_includes() {
    let server = TestServer::start(true).await;
    let before = bodies(&server).await;
    let response = server
        .upload_demo_bundle(
            "include \"parts/ball.vlab\";\ncall ball(\"b1\", 3);\n",
            &[(
                "parts/ball.vlab",
                b"function void ball(string name, num x) { id:[name] { shape sphere(0.2); pos(x, 1, 3); } }\n",
            )],
        )
        .await;
    let status = response.status().as_u16();
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(bodies(&server).await, before + 1);
}

#[tokio::test]
async fn uploading_needs_the_instructor() {
    let server = TestServer::start(true).await;
    let before = bodies(&server).await;
    assert_eq!(upload(&server, None, STACK).await.0, 401);
    assert_eq!(upload(&server, Some("guess"), STACK).await.0, 401);
    assert_eq!(bodies(&server).await, before);
}

#[tokio::test]
async fn a_bundle_brings_its_own_meshes_served_by_the_lab() {
    let server = TestServer::start(true).await;
    let mut viewer = server.connect("demo", None).await;
    viewer.join_sequence().await;
    let obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    let response = server
        .upload_demo_bundle(
            "tri { shape mesh(\"tri.mesh\", 0.5); customgeom box(0.5, 0.5, 0.1); pos(6, 1, 6); }\n",
            &[("tri.obj", obj.as_bytes())],
        )
        .await;
    let status = response.status().as_u16();
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["warnings"].as_array().unwrap().len(), 0, "the mesh was found in the bundle: {body}");

    let snapshot = viewer
        .until(|r| match r {
            Received::Json(ServerMsg::Snapshot(s)) if s.bodies.iter().any(|b| b.name == "tri") => Some(s.clone()),
            _ => None,
        })
        .await;
    let tri = snapshot.bodies.iter().find(|b| b.name == "tri").unwrap();
    let mesh = tri.parts[0].mesh.as_ref().expect("the part carries its mesh");
    assert!(mesh.url.starts_with("/api/labs/demo/assets/") && mesh.url.ends_with("/tri.obj"), "{}", mesh.url);
    let served = server.http.get(server.url(&mesh.url)).send().await.unwrap();
    assert_eq!(served.status().as_u16(), 200);
    assert_eq!(served.text().await.unwrap(), obj);
    let missing = server.http.get(server.url("/api/labs/demo/assets/0000/none.obj")).send().await.unwrap();
    assert_eq!(missing.status().as_u16(), 404);
}
