//! `GET /api/triangles?mesh=URL` end to end: the server reads a library mesh or one
//! uploaded with a scene into triangles the page decodes with the protocol's reader,
//! and a URL or file it cannot read gets a clear error that names it.

mod common;

use common::{Received, TOKEN, TestServer};
use vlab_protocol::{ServerMsg, decode_triangles};

/// Status and body of the triangles of `mesh`, the query written as a page writes it.
async fn triangles(server: &TestServer, mesh: &str) -> (u16, Vec<u8>) {
    // As `encodeURIComponent` writes it.
    let query: String = mesh
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'!' | b'~' | b'*' | b'\'' | b'(' | b')' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect();
    let response = server.http.get(server.url(&format!("/api/triangles?mesh={query}"))).send().await.unwrap();
    (response.status().as_u16(), response.bytes().await.unwrap().to_vec())
}

/// Number of triangles in meshes read from `bytes`.
fn triangle_count(bytes: &[u8]) -> usize {
    let meshes = decode_triangles(bytes).unwrap();
    meshes.iter().map(|m| m.indices.as_ref().map_or(m.positions.len(), Vec::len) / 3).sum()
}

#[tokio::test]
async fn library_meshes_come_as_their_triangles() {
    let server = TestServer::start(false).await;
    let (status, bytes) = triangles(&server, "/assets/wheel.obj").await;
    assert_eq!(status, 200);
    let obj = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../assets/wheel.obj")).unwrap();
    // Every face of the file is a triangle or a quad, which reads as two.
    let faces: usize = obj.lines().filter(|l| l.starts_with("f ")).map(|l| l.split_whitespace().count() - 3).sum();
    assert_eq!(triangle_count(&bytes), faces);
    // Asked again, the same bytes (read once, kept).
    assert_eq!(triangles(&server, "/assets/wheel.obj").await, (200, bytes));

    let (status, bytes) = triangles(&server, "/assets/pyramid.glb").await;
    assert_eq!(status, 200);
    let meshes = decode_triangles(&bytes).unwrap();
    assert_eq!((meshes.len(), meshes[0].positions.len()), (1, 18));
    assert!(meshes[0].normals.is_some(), "the file's own normals travel");
}

#[tokio::test]
async fn a_mesh_uploaded_with_a_scene_comes_as_its_triangles_while_it_is_served() {
    let server = TestServer::start(true).await;
    let mut viewer = server.connect("demo", None).await;
    viewer.join_sequence().await;
    let obj = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n";
    let form = reqwest::multipart::Form::new()
        .part(
            "scene",
            reqwest::multipart::Part::text(
                "sq { shape mesh(\"sq.mesh\", 0.5); customgeom box(0.5, 0.5, 0.1); pos(6, 1, 6); }\n\
                 bad { shape mesh(\"bad.mesh\", 0.5); customgeom box(0.5, 0.5, 0.1); pos(4, 1, 4); }\n",
            )
            .file_name("main.vlab"),
        )
        .part("sq.obj", reqwest::multipart::Part::bytes(obj.as_bytes().to_vec()).file_name("sq.obj"))
        .part("bad.glb", reqwest::multipart::Part::bytes(b"glTF but not really".to_vec()).file_name("bad.glb"));
    let response =
        server.http.post(server.url("/api/labs/demo/scene")).bearer_auth(TOKEN).multipart(form).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200, "{}", response.text().await.unwrap());
    let snapshot = viewer
        .until(|r| match r {
            Received::Json(ServerMsg::Snapshot(s)) if s.bodies.iter().any(|b| b.name == "sq") => Some(s.clone()),
            _ => None,
        })
        .await;
    let url = |name: &str| {
        let body = snapshot.bodies.iter().find(|b| b.name == name).unwrap();
        body.parts[0].mesh.as_ref().expect("the part carries its mesh").url.clone()
    };
    let (status, bytes) = triangles(&server, &url("sq")).await;
    assert_eq!(status, 200);
    assert_eq!(triangle_count(&bytes), 2, "the quad reads as two triangles");

    // A file that does not read: the page is told why, and draws the collision shape.
    let (status, body) = triangles(&server, &url("bad")).await;
    let body = String::from_utf8(body).unwrap();
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("bad.glb") && body.contains("not a readable glTF file"), "{body}");
}

#[tokio::test]
async fn urls_that_are_not_meshes_of_this_server_are_refused_with_a_reason() {
    let server = TestServer::start(false).await;
    let no_query = server.http.get(server.url("/api/triangles")).send().await.unwrap();
    assert_eq!(no_query.status().as_u16(), 400);
    assert!(no_query.text().await.unwrap().contains("mesh="));
    for (mesh, status, says) in [
        ("/assets/nope.obj", 404, "no mesh '/assets/nope.obj'"),
        ("/assets/../Cargo.toml", 422, "not an .obj, .gltf or .glb file"),
        ("/assets/../backend/tests/x.obj", 404, "no mesh"),
        ("/assets//etc/x.obj", 404, "no mesh"),
        ("https://example.com/wheel.obj", 422, "not a mesh of this server"),
        ("/api/labs/demo/assets/0000/none.obj", 404, "no uploaded asset"),
        ("/api/labs/nolab/assets/0000/none.obj", 404, "no uploaded asset"),
    ] {
        let (got, body) = triangles(&server, mesh).await;
        let body = String::from_utf8(body).unwrap();
        assert_eq!(got, status, "{mesh}: {body}");
        assert!(body.contains(says), "{mesh}: {body}");
    }
}
