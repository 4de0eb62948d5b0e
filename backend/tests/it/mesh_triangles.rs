//! `GET /api/triangles?mesh=URL` end to end: the server reads a library mesh or one
//! uploaded with a scene into triangles the page decodes with the protocol's reader,
//! and a URL or file it cannot read gets a clear error that names it.

use crate::common;

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
    let response = server
        .upload_demo_bundle(
            "sq { shape mesh(\"sq.mesh\", 0.5); customgeom box(0.5, 0.5, 0.1); pos(6, 1, 6); }\n\
             bad { shape mesh(\"bad.mesh\", 0.5); customgeom box(0.5, 0.5, 0.1); pos(4, 1, 4); }\n",
            &[("sq.obj", obj.as_bytes()), ("bad.glb", b"glTF but not really")],
        )
        .await;
    assert_eq!(response.status().as_u16(), 200);
    // Read when the upload arrives: a file that does not read is a warning there already.
    let reply: serde_json::Value = response.json().await.unwrap();
    let warning = &reply["warnings"][0];
    assert_eq!(warning["file"], "bad.glb", "{reply}");
    let says = warning["message"].as_str().unwrap();
    assert!(says.contains("not a readable glTF file") && says.contains("collision shape"), "{says}");
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

/// A GLB of a mesh of 2,304 vertices with normals (55 KiB) placed 256 times (the most
/// one file may place), through nodes that each have the next one twice among their
/// children: a small file, 14 MB of triangles.
fn placed_256_times() -> Vec<u8> {
    const VERTICES: usize = 2_304;
    let half = VERTICES * 12;
    let mut bin = ((2 * half) as u32).to_le_bytes().to_vec();
    bin.extend_from_slice(b"BIN\0");
    bin.resize(8 + 2 * half, 0);
    let mut nodes = vec![serde_json::json!({"mesh": 0})];
    for level in 1..=8 {
        nodes.push(serde_json::json!({"children": [level - 1, level - 1]}));
    }
    let accessor = |view: usize| {
        serde_json::json!({"bufferView": view, "componentType": 5126, "count": VERTICES, "type": "VEC3",
                           "min": [0.0, 0.0, 0.0], "max": [0.0, 0.0, 0.0]})
    };
    let json = serde_json::json!({
        "asset": {"version": "2.0"},
        "buffers": [{"byteLength": 2 * half}],
        "bufferViews": [{"buffer": 0, "byteLength": half}, {"buffer": 0, "byteOffset": half, "byteLength": half}],
        "accessors": [accessor(0), accessor(1)],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1}}]}],
        "nodes": nodes,
        "scenes": [{"nodes": [8]}],
        "scene": 0,
    });
    let mut text = serde_json::to_vec(&json).unwrap();
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let mut glb = b"glTF".to_vec();
    glb.extend_from_slice(&2u32.to_le_bytes());
    glb.extend_from_slice(&((12 + 8 + text.len() + bin.len()) as u32).to_le_bytes());
    glb.extend_from_slice(&(text.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"JSON");
    glb.extend_from_slice(&text);
    glb.extend_from_slice(&bin);
    glb
}

/// Symptom: a small mesh file can place its mesh many times, and the triangles the
/// server built from it for pages (up to `MAX_VERTICES` per file) were counted nowhere:
/// a student's few kilobytes of uploads could make the server hold gigabytes (and a
/// file placing tens of thousands of meshes stalled every page drawing them). Now one
/// file places at most `MAX_MESHES`, an upload's meshes are read when it arrives, and a
/// student's robots keep at most `STUDENT_MESH_BUDGET_BYTES` of triangles in a lab:
/// past it the upload is refused with 413, says what to do and changes nothing;
/// removing a robot gives its share back; the instructor has no budget.
#[tokio::test]
async fn the_triangles_of_a_students_meshes_have_a_budget() {
    use vlab_server::classroom::STUDENT_MESH_BUDGET_BYTES;
    let server = TestServer::start(false).await;
    server.patch_demo_settings(serde_json::json!({ "robot_quota": 10 })).await;
    let ana = server.join_demo("Ana").await;
    let mut viewer = server.connect("demo", None).await;
    viewer.join_sequence().await;
    let upload = |token: &str, robot: &str, x: f64| {
        let description = format!(
            "robot {robot} {{ body {{ {robot}_hull {{ shape mesh(\"placed.mesh\", 0.1); \
             customgeom box(0.3, 0.1, 0.2); pos({x}, 0.3, 4); }} }} }}"
        );
        let form = reqwest::multipart::Form::new()
            .part("description", reqwest::multipart::Part::text(description).file_name("bot.vlab"))
            .part("placed.glb", reqwest::multipart::Part::bytes(placed_256_times()).file_name("placed.glb"));
        let request = server.http.post(server.url("/api/labs/demo/robots")).bearer_auth(token).multipart(form);
        async move {
            let response = request.send().await.unwrap();
            (response.status().as_u16(), response.json::<serde_json::Value>().await.unwrap())
        }
    };
    assert!(placed_256_times().len() < 64 * 1024, "a small file");
    let (status, reply) = upload(&ana, "ana_a", 1.0).await;
    assert_eq!(status, 200, "{reply}");
    let snapshot = viewer
        .until(|r| match r {
            Received::Json(ServerMsg::Snapshot(s)) if s.bodies.iter().any(|b| b.name == "ana_a_hull") => {
                Some(s.clone())
            }
            _ => None,
        })
        .await;
    let body = snapshot.bodies.iter().find(|b| b.name == "ana_a_hull").unwrap();
    let url = body.parts[0].mesh.as_ref().expect("the part carries its mesh").url.clone();
    let (status, bytes) = triangles(&server, &url).await;
    assert_eq!(status, 200);
    let each = bytes.len() as u64;
    assert!(
        2 * each <= STUDENT_MESH_BUDGET_BYTES && 3 * each > STUDENT_MESH_BUDGET_BYTES,
        "the file's triangles ({each} B) fit twice in the budget, not three times"
    );

    assert_eq!(upload(&ana, "ana_b", 2.0).await.0, 200, "the same file again: counted again, within the budget");
    let (status, reply) = upload(&ana, "ana_c", 3.0).await;
    assert_eq!(status, 413, "{reply}");
    let message = reply["errors"][0]["message"].as_str().unwrap();
    assert!(message.contains("meshes of your robots") && message.contains("at most 32.0 MiB"), "{message}");
    assert_eq!(reply["errors"][0]["file"], "bot.vlab", "positioned in the upload: {reply}");
    let robots = server.lab_state("demo").await["robots"].clone();
    assert!(!robots.as_array().unwrap().iter().any(|r| r == "ana_c"), "nothing was added: {robots}");

    // Others and the instructor are not charged for Ana's meshes.
    let bob = server.join_demo("Bob").await;
    assert_eq!(upload(&bob, "bob_a", 4.0).await.0, 200);
    assert_eq!(upload(TOKEN, "teacher_a", 5.0).await.0, 200, "the instructor has no budget");

    // A removal gives its share back.
    let removed = server.http.delete(server.url("/api/labs/demo/robots/ana_a")).bearer_auth(&ana).send().await.unwrap();
    assert!(removed.status().is_success());
    assert_eq!(upload(&ana, "ana_c", 3.0).await.0, 200);
}

/// An uploaded mesh's triangles and an uploaded asset live at addresses that name their
/// content: browsers may keep them, when the page names the triangle layout it reads
/// (a later build that reads another asks again, under another address). A library
/// mesh, or a request that names no layout, is asked again every time.
#[tokio::test]
async fn browsers_keep_what_names_its_content_and_no_other_layout_is_served() {
    let server = TestServer::start(true).await;
    let mut viewer = server.connect("demo", None).await;
    viewer.join_sequence().await;
    let obj = "v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 3\n";
    let response = server
        .upload_demo_bundle(
            "tri { shape mesh(\"tri.mesh\", 0.5); customgeom box(0.5, 0.5, 0.1); pos(6, 1, 6); }\n",
            &[("tri.obj", obj.as_bytes())],
        )
        .await;
    assert_eq!(response.status().as_u16(), 200);
    let snapshot = viewer
        .until(|r| match r {
            Received::Json(ServerMsg::Snapshot(s)) if s.bodies.iter().any(|b| b.name == "tri") => Some(s.clone()),
            _ => None,
        })
        .await;
    let body = snapshot.bodies.iter().find(|b| b.name == "tri").unwrap();
    let url = body.parts[0].mesh.as_ref().unwrap().url.clone();
    let get = |path: String| {
        let request = server.http.get(server.url(&path));
        async move {
            let response = request.send().await.unwrap();
            let cache = response.headers().get("cache-control").map(|v| v.to_str().unwrap().to_owned());
            (response.status().as_u16(), cache, response.text().await.unwrap_or_default())
        }
    };
    let lasting = Some("public, max-age=31536000, immutable".to_owned());
    let asked_again = Some("no-cache".to_owned());
    let format = vlab_protocol::TRIANGLES_FORMAT;

    let (status, cache, _) = get(format!("/api/triangles?mesh={url}&format={format}")).await;
    assert_eq!((status, cache), (200, lasting.clone()), "an uploaded mesh in a named layout");
    let (status, cache, _) = get(format!("/api/triangles?mesh={url}")).await;
    assert_eq!((status, cache), (200, asked_again.clone()), "no layout named");
    let (status, cache, _) = get(format!("/api/triangles?mesh=/assets/wheel.obj&format={format}")).await;
    assert_eq!((status, cache), (200, asked_again), "a library mesh may change with the server");
    let (status, _, says) = get(format!("/api/triangles?mesh={url}&format=99")).await;
    assert_eq!(status, 400, "{says}");
    assert!(says.contains(&format!("triangle format {format}, not 99")) && says.contains("reload"), "{says}");
    let (status, cache, _) = get(url.clone()).await;
    assert_eq!((status, cache), (200, lasting), "the uploaded file itself");
}
