//! Saving a lab as a scene over real HTTP (`GET /api/labs/{lab}/scene.vlab`) and making
//! a new lab of the text rebuilds the same world: every lab of the scene library and the
//! demo yard, run 300 steps so that things have fallen, rolled and settled, saved, and
//! made again. The same bodies within 1 mm, the same joints, the same devices; saving
//! changes nothing in the lab it reads. The zip (`scene.zip`) carries the files the
//! scene names.

use crate::common::{TOKEN, TestServer};

use serde_json::{Value, json};
use vlab_protocol::ControlAction;
use vlab_server::lab::WorldNow;
use vlab_server::scene::{DeviceModel, Mount, ParamValue, SceneModel};

/// Creates a lab from `scene` (a library name, or `{"scene_source": text}`); its id and
/// instructor token.
async fn create(server: &TestServer, name: &str, scene: Value) -> (String, String) {
    let mut request = json!({ "name": name });
    if let Value::Object(fields) = scene {
        request.as_object_mut().unwrap().extend(fields);
    }
    let response = server.http.post(server.url("/api/labs")).bearer_auth(TOKEN).json(&request).send().await.unwrap();
    let status = response.status().as_u16();
    let created: Value = response.json().await.unwrap();
    assert_eq!(status, 201, "{name}: {created}");
    (created["id"].as_str().unwrap().to_owned(), created["instructor_token"].as_str().unwrap().to_owned())
}

async fn save(server: &TestServer, lab: &str, token: Option<&str>) -> (u16, String, Option<String>) {
    let mut request = server.http.get(server.url(&format!("/api/labs/{lab}/scene.vlab")));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let disposition = response.headers().get("content-disposition").map(|v| v.to_str().unwrap_or_default().to_owned());
    (status, response.text().await.unwrap(), disposition)
}

async fn world(server: &TestServer, lab: &str) -> WorldNow {
    server.classroom().lab(lab).unwrap().robots().world_now().await.unwrap()
}

#[tokio::test]
async fn every_library_lab_saved_as_a_scene_is_made_again_as_the_same_world() {
    let server = TestServer::start(false).await;
    let (status, scenes) = server.get_json("/api/scenes").await;
    assert_eq!(status, 200, "{scenes}");
    let mut labs: Vec<(String, Value)> = scenes
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let name = s["name"].as_str().unwrap().to_owned();
            (name.clone(), json!({ "scene": name }))
        })
        .collect();
    assert!(labs.len() >= 10, "the library's labs: {scenes}");
    labs.push(("the demo yard".into(), json!({})));

    let mut differences = Vec::new();
    for (name, scene) in labs {
        let title = name.replace('/', " ");
        let (id, token) = create(&server, &format!("Saved {title}"), scene).await;
        let step = ControlAction::Step { steps: 300 };
        let (status, state) = server.control_raw(&id, Some(&token), &serde_json::to_string(&step).unwrap()).await;
        assert_eq!(status, 200, "{name}: {state}");
        let before = world(&server, &id).await;
        assert_eq!(before.step, 300, "{name}");

        let (status, text, disposition) = save(&server, &id, Some(&token)).await;
        if status != 200 {
            differences.push(format!("{name}: saving answered {status}: {text}"));
            continue;
        }
        assert_eq!(disposition.as_deref(), Some(format!("attachment; filename=\"{id}.vlab\"").as_str()));
        assert!(text.starts_with(&format!("// Saved from lab '{id}' at step 300 (1.25 s of simulation), ")), "{text}");
        let after = world(&server, &id).await;
        assert_eq!((after.step, &after.poses), (before.step, &before.poses), "{name}: saving changed the lab");

        let (again, _) = create(&server, &format!("Again {title}"), json!({ "scene_source": text })).await;
        let rebuilt = world(&server, &again).await;
        compare(&name, &before, &rebuilt, &mut differences);
    }
    assert!(differences.is_empty(), "{} differences:\n{}", differences.len(), differences.join("\n"));
}

#[tokio::test]
async fn only_the_instructor_saves_a_lab_and_a_lab_that_is_not_there_is_not_found() {
    let server = TestServer::start(false).await;
    let (status, body, _) = save(&server, "demo", None).await;
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("instructor's token"), "{body}");
    let student = server.join_demo("Ana").await;
    let (status, body, _) = save(&server, "demo", Some(&student)).await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("only the instructor of this lab may save the lab as a scene"), "{body}");
    let (status, body, _) = save(&server, "nowhere", Some(TOKEN)).await;
    assert_eq!(status, 404, "{body}");
    let (status, body, _) = save(&server, "demo", Some(TOKEN)).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn a_lab_saved_as_a_zip_carries_its_scene_its_programs_and_its_meshes() {
    let server = TestServer::start(false).await;
    let scene = r#"environment room { width 6; length 6; height 2; }
        include "tankbot_robot.vlab";
        call tankbot_with_code("", 2, 2, 0, "tankbot.rprj");
        wheel { shape mesh("wheel.mesh", 0.01); customgeom cylinder(0.3, 0.2); pos(4, 0.3, 4); }"#;
    let (id, token) = create(&server, "Zipped", json!({ "scene_source": scene })).await;
    let response =
        server.http.get(server.url(&format!("/api/labs/{id}/scene.zip"))).bearer_auth(&token).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(response.headers()["content-type"], "application/zip");
    assert_eq!(response.headers()["content-disposition"], format!("attachment; filename=\"{id}.zip\"").as_str());
    let bytes = response.bytes().await.unwrap();
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).unwrap();
    let names: Vec<String> = zip.file_names().map(|name| name.unwrap().into_owned()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    let mut expected = [format!("{id}.vlab"), "tankbot.rprj".into(), "wheel.obj".into()];
    expected.sort();
    assert_eq!(sorted, expected, "{names:?}");
    let read = |zip: &mut zip::ZipArchive<std::io::Cursor<Vec<u8>>>, name: &str| {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut zip.by_name(name).unwrap(), &mut text).unwrap();
        text
    };
    let library = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let project = std::fs::read_to_string(library.join("scenes/tankbot.rprj")).unwrap();
    assert_eq!(read(&mut zip, "tankbot.rprj"), project);
    let mesh = std::fs::read_to_string(library.join("assets/wheel.obj")).unwrap();
    assert_eq!(read(&mut zip, "wheel.obj"), mesh);
    let text = read(&mut zip, &format!("{id}.vlab"));
    assert!(text.contains("code \"tankbot.rprj\";") && text.contains("shape mesh(\"wheel.mesh\", 0.01);"), "{text}");
    let (again, _) = create(&server, "Unzipped", json!({ "scene_source": text })).await;
    assert_eq!(world(&server, &again).await.model.bodies.len(), world(&server, &id).await.model.bodies.len());

    let student = server.join_demo("Ana").await;
    let refused = server.http.get(server.url("/api/labs/demo/scene.zip")).bearer_auth(&student).send().await.unwrap();
    assert_eq!(refused.status().as_u16(), 403);
}

/// Lab `a` now and lab `b`, made of `a`'s saved scene, at its start.
fn compare(lab: &str, a: &WorldNow, b: &WorldNow, out: &mut Vec<String>) {
    let mut differ = |what: String| out.push(format!("{lab}: {what}"));
    let (ma, mb): (&SceneModel, &SceneModel) = (&a.model, &b.model);
    for (i, body) in ma.bodies.iter().enumerate() {
        let Some(j) = mb.body_index(&body.name) else {
            differ(format!("the body '{}' is missing", body.name));
            continue;
        };
        let (pa, pb) = (&a.poses[i], &b.poses[j]);
        let distance = (0..3).map(|k| f64::from(pa.position[k] - pb.position[k]).powi(2)).sum::<f64>().sqrt();
        let dot: f64 = (0..4).map(|k| f64::from(pa.rotation[k]) * f64::from(pb.rotation[k])).sum();
        // 1 mm, and turned by less than a milliradian (cos of half of it).
        if distance > 1e-3 || dot.abs() < (5e-4f64).cos() {
            differ(format!("'{}' stood at {pa:?}, made again at {pb:?} ({distance} m away)", body.name));
        }
        let other = &mb.bodies[j];
        if (body.motion, &body.robot, body.parts.len()) != (other.motion, &other.robot, other.parts.len()) {
            differ(format!("'{}' was {:?}, made again as {:?}", body.name, body, other));
        }
    }
    if ma.bodies.len() != mb.bodies.len() {
        differ(format!("{} bodies made again as {}", ma.bodies.len(), mb.bodies.len()));
    }
    let joints = |m: &SceneModel| {
        let mut joints: Vec<String> = m
            .joints
            .iter()
            .map(|j| format!("{} {}-{}", j.kind.language_name(), m.bodies[j.body1].name, m.bodies[j.body2].name))
            .collect();
        joints.sort();
        joints
    };
    if joints(ma) != joints(mb) {
        differ(format!("joints {:?}\n  made again as {:?}", joints(ma), joints(mb)));
    }
    let devices = |m: &SceneModel| {
        let mut all: Vec<String> =
            m.sensors.iter().chain(&m.actuators).chain(&m.beacons).map(|d| describe(m, d)).collect();
        all.sort();
        all
    };
    if devices(ma) != devices(mb) {
        differ(format!("devices {:#?}\n  made again as {:#?}", devices(ma), devices(mb)));
    }
    let robots = |m: &SceneModel| {
        let mut robots: Vec<String> = m
            .robots
            .iter()
            .map(|r| {
                format!(
                    "{} from {} running {:?}",
                    r.name,
                    m.bodies[r.main_body].name,
                    r.program.as_ref().map(|p| &p.file)
                )
            })
            .collect();
        robots.sort();
        robots
    };
    if robots(ma) != robots(mb) {
        differ(format!("robots {:?}\n  made again as {:?}", robots(ma), robots(mb)));
    }
    if ma.environment != mb.environment {
        differ(format!("the environment {:?}\n  made again as {:?}", ma.environment, mb.environment));
    }
    let challenge = |m: &SceneModel| m.challenge.as_ref().map(|c| (c.title.clone(), c.zones.len(), c.score));
    if challenge(ma) != challenge(mb) {
        differ(format!("the challenge {:?} made again as {:?}", challenge(ma), challenge(mb)));
    }
}

/// A device as one line: robot, type, name, where it sits (by names) and parameters.
fn describe(model: &SceneModel, device: &DeviceModel) -> String {
    let mount = match device.mount {
        Mount::Body(b) => format!("on {}", model.bodies[b].name),
        Mount::Joint(j) => {
            let joint = &model.joints[j];
            format!("on {}-{}", model.bodies[joint.body1].name, model.bodies[joint.body2].name)
        }
        Mount::Robot => "on the robot".into(),
    };
    // Numbers to 10 digits: a saved scene writes 12.
    let params: Vec<String> = device
        .params
        .iter()
        .map(|(key, value)| match value {
            ParamValue::Num(n) => format!("{key}={n:.9e}"),
            other => format!("{key}={other:?}"),
        })
        .collect();
    format!("{:?} {} {} {mount} {}", device.robot, device.kind, device.name, params.join(" "))
}
