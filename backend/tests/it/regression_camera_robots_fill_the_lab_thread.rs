//! Symptom: each robot's cameras were held to their own budget, but nothing held a
//! lab's: a class uploading camera robots one after another would fill the lab's
//! thread with rendering, and the whole lab fell behind real time. A lab's cameras
//! together now cast at most `MAX_CAMERA_RAYS_PER_LAB` rays per second of simulation
//! time, whoever adds them; the upload past it is refused and changes nothing.

use crate::common;

use common::{TOKEN, TestServer};
use serde_json::Value;
use vlab_protocol::ControlAction;
use vlab_scene::catalogue::{MAX_CAMERA_RAYS_PER_LAB, MAX_CAMERA_RAYS_PER_ROBOT};

/// A robot named `name` with `cameras` cameras of `width` × `height` at `rate` images
/// a second, placed at `x`.
fn camera_robot(name: &str, x: f64, cameras: usize, (width, height, rate): (u32, u32, f64)) -> String {
    let devices: String =
        (0..cameras).map(|i| format!("Camera cam{i} {{ width {width}; height {height}; rate {rate}; }}")).collect();
    format!("robot {name} {{ body {{ {name}_base {{ shape box(0.2, 0.1, 0.2); pos({x}, 0.1, 8); {devices} }} }} }}\n")
}

async fn robots(server: &TestServer) -> Value {
    server.lab_state("demo").await["robots"].clone()
}

#[tokio::test]
async fn a_lab_stops_at_its_camera_budget_whoever_adds_the_cameras() {
    let server = TestServer::start(false).await;
    server.control("demo", ControlAction::Pause).await;
    // The budget is five robots' worth: ten default cameras (160 × 120 at 5 Hz).
    assert_eq!(MAX_CAMERA_RAYS_PER_LAB, 5 * MAX_CAMERA_RAYS_PER_ROBOT);
    let full_class: String =
        (0..5).map(|i| camera_robot(&format!("eye{i}"), i as f64 + 2.0, 2, (160, 120, 5.0))).collect();
    let (status, reply) = server.add_demo_robots(TOKEN, full_class).await;
    assert_eq!(status, 200, "exactly up to the lab's budget: {reply}");

    // One camera of one pixel once a second is one ray too many, for a student as for
    // the instructor; nothing of the refused upload goes in.
    let ana = server.join_demo("Ana").await;
    let before = robots(&server).await;
    for token in [ana.as_str(), TOKEN] {
        let (status, reply) = server.add_demo_robots(token, camera_robot("pinhole", 3.0, 1, (1, 1, 1.0))).await;
        assert_eq!(status, 422, "{reply}");
        let message = reply["errors"][0]["message"].as_str().unwrap();
        assert!(
            message.contains("cast 960000 rays per second")
                && message.contains("adds 1:")
                && message.contains(&format!("at most {MAX_CAMERA_RAYS_PER_LAB}")),
            "{message}"
        );
        assert_eq!(robots(&server).await, before, "nothing inserted");
    }

    // A robot without cameras still fits, and a camera robot removed makes room.
    let (status, reply) = server.add_demo_robots(&ana, camera_robot("blind", 7.0, 0, (1, 1, 1.0))).await;
    assert_eq!(status, 200, "{reply}");
    let removed = server.http.delete(server.url("/api/labs/demo/robots/eye4")).bearer_auth(TOKEN).send().await.unwrap();
    assert!(removed.status().is_success(), "{}", removed.status());
    let (status, reply) = server.add_demo_robots(&ana, camera_robot("pinhole", 3.5, 1, (1, 1, 1.0))).await;
    assert_eq!(status, 200, "{reply}");
}
