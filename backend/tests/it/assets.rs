//! Meshes and the material library end to end: the classic cart resolves its
//! `wheel.mesh` to `assets/wheel.obj`, viewers get its URL and textures in the
//! snapshot, and the server serves `assets/` at `/assets/` (and nothing outside it).

use crate::common;

use common::{Received, TOKEN, TestServer};
use vlab_protocol::{SceneUploadReply, ServerMsg};

const CART: &str = include_str!("../../../scenes/cart.vlab");

#[tokio::test]
async fn the_cart_example_draws_its_wheels_with_the_served_mesh() {
    let server = TestServer::start(false).await;
    let mut viewer = server.connect("demo", None).await;
    viewer.join_sequence().await;

    let response = server
        .http
        .post(server.url("/api/labs/demo/scene"))
        .bearer_auth(TOKEN)
        .header("content-type", "text/plain")
        .body(format!("{CART}\nglass_pane {{ shape box(1, 1, 0.02); pos(6, 0.5, 6); material \"Glass\"; }}\n"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let reply: SceneUploadReply = response.json().await.unwrap();
    // The cart is written as for VLAB: its anchors' `z-larg/2-spess` is told how it
    // reads; nothing else is warned about (its mesh is found).
    assert!(reply.ok && reply.warnings.len() == 2, "{reply:?}");
    assert!(reply.warnings.iter().all(|w| w.message.contains("reads as `z-(larg/2-")), "{reply:?}");

    let snapshot = viewer
        .until(|r| match r {
            Received::Json(ServerMsg::Snapshot(s)) if s.bodies.iter().any(|b| b.name == "wheel1") => Some(s.clone()),
            _ => None,
        })
        .await;
    let part = |name: &str| snapshot.bodies.iter().find(|b| b.name == name).unwrap().parts[0].clone();
    for wheel in ["wheel1", "wheel2"] {
        let mesh = part(wheel).mesh.expect("the wheel has a mesh");
        assert_eq!((mesh.url.as_str(), mesh.scale), ("/assets/wheel.obj", 0.01));
    }
    let base = part("base");
    assert_eq!(base.mesh, None);
    assert_eq!(base.material.texture.as_deref(), Some("/assets/textures/wood.png"));
    let glass = part("glass_pane").material;
    assert!(glass.transparent && glass.color[3] < 255, "{glass:?}");

    // Every URL the snapshot names is served.
    for url in ["/assets/wheel.obj", "/assets/textures/wood.png"] {
        let response = server.http.get(server.url(url)).send().await.unwrap();
        assert_eq!(response.status().as_u16(), 200, "{url}");
        assert!(!response.bytes().await.unwrap().is_empty(), "{url}");
    }
}

#[tokio::test]
async fn assets_are_served_and_nothing_outside_them() {
    let server = TestServer::start(false).await;
    let response = server.http.get(server.url("/assets/wheel.obj")).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let text = response.text().await.unwrap();
    let triangles = text.lines().filter(|l| l.starts_with("f ")).count();
    assert!((200..2000).contains(&triangles), "{triangles} triangles");

    for file in ["/assets/materials.json", "/assets/pyramid.glb", "/assets/textures/tiles.png"] {
        let response = server.http.get(server.url(file)).send().await.unwrap();
        assert_eq!(response.status().as_u16(), 200, "{file}");
    }

    for escape in ["/assets/../Cargo.toml", "/assets/%2e%2e/Cargo.toml", "/assets/..%2fCargo.toml", "/assets/nope.obj"]
    {
        let response = server.http.get(server.url(escape)).send().await.unwrap();
        let status = response.status().as_u16();
        let body = response.text().await.unwrap();
        assert!(!body.contains("[workspace]") && !body.contains("[package]"), "{escape} escaped: {status}");
        // The browser app's fallback (index.html) is not an asset either.
        assert_ne!(status, 200, "{escape}");
    }
}
