//! Objects from everyone (docs/classroom.md): the instructor's switch, every palette
//! item, fragments of objects, the quotas at their edges, who may remove what, names,
//! and objects with their owners kept across a restart.

use crate::common;

use common::{TOKEN, TestServer, yard};
use serde_json::{Value, json};
use vlab_protocol::{MAX_FRAGMENT_BODIES, MAX_OBJECTS_PER_STUDENT, PALETTE, UserId};
use vlab_server::classroom::{Classroom, ClassroomConfig, DemoLab};
use vlab_server::lab::capacity::MAX_LAB_BODIES;
use vlab_server::scene::{BodyModel, Motion, Palette, PartModel, Pose, Shape};
use vlab_server::store::Store;

/// `token` sends `request` (a palette item as JSON, or a fragment as text) to lab
/// `demo`'s objects; the status and the answer.
async fn add(server: &TestServer, token: Option<&str>, request: Body) -> (u16, Value) {
    let mut builder = server.http.post(server.url("/api/labs/demo/objects"));
    builder = match request {
        Body::Item(item) => builder.json(&item),
        Body::Fragment(text) => builder.body(text),
    };
    if let Some(token) = token {
        builder = builder.bearer_auth(token);
    }
    let response = builder.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

enum Body {
    Item(Value),
    Fragment(String),
}

async fn remove(server: &TestServer, token: Option<&str>, name: &str) -> (u16, Value) {
    let mut builder = server.http.delete(server.url(&format!("/api/labs/demo/objects/{name}")));
    if let Some(token) = token {
        builder = builder.bearer_auth(token);
    }
    let response = builder.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

fn item(id: &str) -> Body {
    Body::Item(json!({ "palette": id }))
}

fn message(reply: &Value) -> String {
    reply["error"]["message"].as_str().unwrap_or_default().to_owned()
}

/// The demo lab on the empty yard, paused, objects allowed when `allowed`; Ana's token.
async fn yard_lab(allowed: bool) -> (TestServer, String) {
    let server = TestServer::start_with(yard(), false).await;
    if allowed {
        server.patch_demo_settings(json!({ "students_add_objects": true })).await;
    }
    let ana = server.join_demo("Ana").await;
    (server, ana)
}

/// `name` joins a lab with its join code `code`; her session's token.
async fn join_by_code(server: &TestServer, code: &str, name: &str) -> String {
    let request = server.http.post(server.url("/api/join")).json(&json!({"join_code": code, "name": name}));
    let joined: Value = request.send().await.unwrap().json().await.unwrap();
    joined["token"].as_str().unwrap().to_owned()
}

fn owner_of(server: &TestServer, name: &str) -> Option<UserId> {
    server.classroom().lab("demo").unwrap().owner_of_object(name)
}

#[tokio::test]
async fn students_may_add_objects_only_when_the_instructor_lets_them() {
    let (server, ana) = yard_lab(false).await;
    assert_eq!(server.lab_state("demo").await["settings"]["students_add_objects"], false, "off by default");
    let (status, reply) = add(&server, Some(&ana), item("box")).await;
    assert_eq!(status, 403, "{reply}");
    assert_eq!(
        message(&reply),
        "the instructor has not let students add objects in this lab (the setting students_add_objects)"
    );
    let (status, reply) = add(&server, None, item("box")).await;
    assert_eq!(status, 401, "{reply}");
    // The instructor always may.
    let (status, reply) = add(&server, Some(TOKEN), item("box")).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["objects"], json!(["instructor_box_1"]));
    server.patch_demo_settings(json!({ "students_add_objects": true })).await;
    let (status, reply) = add(&server, Some(&ana), item("box")).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["objects"], json!(["ana_box_1"]));
}

#[tokio::test]
async fn a_student_adds_every_palette_item_each_hers_in_the_scene_the_pages_get() {
    let (server, ana) = yard_lab(true).await;
    let (status, palette) = server.get_json("/api/palette").await;
    assert_eq!(status, 200);
    let ids: Vec<&str> = palette.as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["box", "ramp", "cylinder", "cone", "wall", "ball"]);
    for entry in &PALETTE {
        let (status, reply) = add(&server, Some(&ana), item(entry.id)).await;
        assert_eq!(status, 200, "{}: {reply}", entry.id);
        assert_eq!(reply["objects"], json!([format!("ana_{}_1", entry.id)]), "{reply}");
    }
    let ana_id = owner_of(&server, "ana_ramp_1").expect("Ana owns her ramp");
    assert_ne!(ana_id, vlab_protocol::INSTRUCTOR_ID);
    assert_eq!(owner_of(&server, "wall_north"), None, "the scene's walls are the lab's own");
    let mut page = server.connect("demo", Some(&ana)).await;
    let (_, snapshot, _, _) = page.join_sequence().await;
    for entry in &PALETTE {
        let name = format!("ana_{}_1", entry.id);
        let body = snapshot.bodies.iter().find(|b| b.name == name).unwrap_or_else(|| panic!("{name} is drawn"));
        assert_eq!(body.owner, Some(ana_id), "{name}");
        assert_eq!(body.fixed, entry.fixed, "{name}");
    }
    assert!(snapshot.bodies.iter().filter(|b| b.name.starts_with("wall_")).all(|b| b.owner.is_none()));
    // Where asked, turned as asked, named as asked.
    let ramp = json!({ "palette": "ramp", "position": [2.0, 0.0, 10.0], "heading": 1.5, "name": "kicker" });
    let (status, reply) = add(&server, Some(&ana), Body::Item(ramp)).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["objects"], json!(["kicker"]));
}

#[tokio::test]
async fn a_students_object_count_passes_at_its_limit_and_not_one_past() {
    let (server, ana) = yard_lab(true).await;
    for n in 1..=MAX_OBJECTS_PER_STUDENT {
        let (status, reply) = add(&server, Some(&ana), item("ball")).await;
        assert_eq!(status, 200, "ball {n}: {reply}");
    }
    let (status, reply) = add(&server, Some(&ana), item("ball")).await;
    assert_eq!(status, 403, "{reply}");
    assert_eq!(
        reply["errors"][0]["message"],
        format!(
            "a student may have {MAX_OBJECTS_PER_STUDENT} object(s) in this lab; you have {MAX_OBJECTS_PER_STUDENT} \
             and this adds 1: remove one first"
        )
    );
    // Removing one makes room again.
    assert_eq!(remove(&server, Some(&ana), "ana_ball_3").await.0, 204);
    let (status, reply) = add(&server, Some(&ana), item("ball")).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["objects"], json!(["ana_ball_3"]), "the first free counter");
    // The instructor is not held to it: more than a student's count in one fragment.
    let many: String = (0..=MAX_OBJECTS_PER_STUDENT)
        .map(|i| format!("post_{i} {{ shape box(0.1, 0.1, 0.1); pos({}, 0.05, 11); }}\n", 0.5 + i as f32 * 0.4))
        .collect();
    let (status, reply) = add(&server, Some(TOKEN), Body::Fragment(many)).await;
    assert_eq!(status, 200, "{reply}");
}

#[tokio::test]
async fn size_mass_and_bodies_per_fragment_pass_at_their_limits_and_not_one_past() {
    let (server, ana) = yard_lab(true).await;
    let plank =
        |length: f32, name: &str| format!("static {name} {{ shape box({length}, 0.1, 0.1); pos(6, 0.05, 3); }}");
    let (status, reply) = add(&server, Some(&ana), Body::Fragment(plank(3.0, "plank"))).await;
    assert_eq!(status, 200, "exactly 3 m: {reply}");
    let (status, reply) = add(&server, Some(&ana), Body::Fragment(plank(3.01, "long_plank"))).await;
    assert_eq!(status, 422, "{reply}");
    assert_eq!(
        reply["errors"][0]["message"],
        "object 'long_plank' is 3.01 m across; a student's object is at most 3 m"
    );
    // 0.5 × 0.2 × 0.5 m at 1000 kg/m³ is 50 kg.
    let crate_of =
        |density: u32, name: &str| format!("{name} {{ shape box(0.5, 0.2, 0.5); density {density}; pos(6, 0.1, 6); }}");
    let (status, reply) = add(&server, Some(&ana), Body::Fragment(crate_of(1000, "heavy"))).await;
    assert_eq!(status, 200, "exactly 50 kg: {reply}");
    let (status, reply) = add(&server, Some(&ana), Body::Fragment(crate_of(1001, "heavier"))).await;
    assert_eq!(status, 422, "{reply}");
    let said = reply["errors"][0]["message"].as_str().unwrap();
    assert!(said.starts_with("object 'heavier' weighs 50.") && said.contains("at most 50 kg"), "{said}");
    // A fragment: at most MAX_FRAGMENT_BODIES bodies from a student (Ben has room for them).
    let ben = server.join_demo("Ben").await;
    let balls = |n: usize, row: f32| -> String {
        (0..n)
            .map(|i| format!("b_{row}_{i} {{ shape sphere(0.05); pos({}, 0.05, {row}); }}\n", 1.0 + i as f32 * 0.3))
            .collect()
    };
    let (status, reply) = add(&server, Some(&ben), Body::Fragment(balls(MAX_FRAGMENT_BODIES + 1, 9.0))).await;
    assert_eq!(status, 422, "{reply}");
    assert_eq!(
        reply["errors"][0]["message"],
        format!(
            "these objects have {} bodies; a student adds at most {MAX_FRAGMENT_BODIES} at once",
            MAX_FRAGMENT_BODIES + 1
        )
    );
    let (status, reply) = add(&server, Some(&ben), Body::Fragment(balls(MAX_FRAGMENT_BODIES, 9.0))).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["objects"].as_array().unwrap().len(), MAX_FRAGMENT_BODIES);
}

#[tokio::test]
async fn the_labs_bodies_pass_at_their_ceiling_and_not_one_past() {
    // The yard, filled to one body short of the ceiling with pebbles under its floor.
    let mut scene = yard();
    let pebble = |i: usize| BodyModel {
        name: format!("pebble_{i}"),
        motion: Motion::Fixed,
        pose: Pose::at([(i % 100) as f32 * 0.12, -3.0, (i / 100) as f32 * 0.12]),
        parts: vec![PartModel {
            shape: Shape::Sphere { radius: 0.01 },
            local: Pose::IDENTITY,
            material: Palette::default().get("Grey"),
            density: 1000.0,
            friction: 0.5,
            restitution: 0.1,
            name: None,
            mesh: None,
            drawn_only: false,
        }],
        robot: None,
        owner: None,
    };
    let have = scene.bodies.len();
    scene.bodies.extend((0..MAX_LAB_BODIES - 1 - have).map(pebble));
    let server = TestServer::start_with(scene, false).await;
    server.patch_demo_settings(json!({ "students_add_objects": true })).await;
    let ana = server.join_demo("Ana").await;
    let at = |x: f32| Body::Item(json!({ "palette": "ball", "position": [x, 0.0, 6.0] }));
    let (status, reply) = add(&server, Some(&ana), at(4.0)).await;
    assert_eq!(status, 200, "the lab's {MAX_LAB_BODIES}th body: {reply}");
    let (status, reply) = add(&server, Some(&ana), at(8.0)).await;
    assert_eq!(status, 422, "{reply}");
    assert_eq!(
        reply["errors"][0]["message"],
        format!(
            "this lab has {MAX_LAB_BODIES} bodies and this adds 1: a lab holds at most {MAX_LAB_BODIES} (remove something first)"
        )
    );
}

#[tokio::test]
async fn a_fragment_with_a_robot_or_an_environment_is_refused_at_its_line() {
    let (server, ana) = yard_lab(true).await;
    let with_robot = "crate_a { shape box(0.2, 0.2, 0.2); pos(3, 0.1, 3); }\n\
                      robot r { body { r_base { shape box(0.2, 0.1, 0.2); pos(5, 0.05, 5); } } }\n";
    let (status, reply) = add(&server, Some(&ana), Body::Fragment(with_robot.into())).await;
    assert_eq!(status, 422, "{reply}");
    let error = &reply["errors"][0];
    assert_eq!((error["file"].as_str(), error["line"].as_u64()), (Some("objects.vlab"), Some(2)), "{reply}");
    assert!(error["message"].as_str().unwrap().contains("objects may not hold robots"), "{reply}");
    let with_room = "// my room\nenvironment wallrect { width 4; length 4; }\ncrate_b { shape box(0.2, 0.2, 0.2); pos(3, 0.1, 3); }\n";
    let (status, reply) = add(&server, Some(&ana), Body::Fragment(with_room.into())).await;
    assert_eq!(status, 422, "{reply}");
    assert_eq!(reply["errors"][0]["line"], 2, "{reply}");
    assert!(
        message(&reply).contains("environment")
            || reply["errors"][0]["message"].as_str().unwrap().contains("environment")
    );
    // Nothing of either went in.
    for name in ["crate_a", "crate_b", "r_base"] {
        assert_eq!(remove(&server, Some(TOKEN), name).await.0, 404, "{name}");
    }
    // A syntax error is told where it is, as for any upload.
    let (status, reply) =
        add(&server, Some(&ana), Body::Fragment("crate_c { shape box(0.2, 0.2, 0.2) pos(1,1,1); }".into())).await;
    assert_eq!(status, 422, "{reply}");
    assert_eq!(reply["errors"][0]["line"], 1);
}

#[tokio::test]
async fn owners_remove_their_objects_the_instructor_any_others_nothing() {
    let (server, ana) = yard_lab(true).await;
    let ben = server.join_demo("Ben").await;
    assert_eq!(add(&server, Some(&ana), item("cone")).await.0, 200);
    let (status, reply) = remove(&server, Some(&ben), "ana_cone_1").await;
    assert_eq!(status, 403, "{reply}");
    assert_eq!(message(&reply), "only the owner of 'ana_cone_1' or the instructor may remove it; it is not yours");
    let (status, reply) = remove(&server, None, "ana_cone_1").await;
    assert_eq!(status, 401, "{reply}");
    let (status, reply) = remove(&server, Some(&ana), "wall_north").await;
    assert_eq!(status, 403, "the lab's own objects are not a student's: {reply}");
    let (status, reply) = remove(&server, Some(&ana), "no_such_thing").await;
    assert_eq!(status, 404, "{reply}");
    assert_eq!(message(&reply), "no object 'no_such_thing' in lab 'demo'");
    assert_eq!(remove(&server, Some(TOKEN), "ana_cone_1").await.0, 204, "the instructor removes Ana's");
    assert_eq!(remove(&server, Some(&ana), "ana_cone_1").await.0, 404, "it is gone");
    assert_eq!(remove(&server, Some(TOKEN), "wall_north").await.0, 204, "and the lab's own");
    assert_eq!(add(&server, Some(&ana), item("wall")).await.0, 200);
    assert_eq!(remove(&server, Some(&ana), "ana_wall_1").await.0, 204, "Ana removes her own");
    assert_eq!(owner_of(&server, "ana_wall_1"), None);
}

#[tokio::test]
async fn a_name_in_use_is_refused_with_why() {
    let (server, ana) = yard_lab(true).await;
    let named = |name: &str| Body::Item(json!({ "palette": "box", "name": name }));
    assert_eq!(add(&server, Some(&ana), named("my_box")).await.0, 200);
    let (status, reply) = add(&server, Some(&ana), named("my_box")).await;
    assert_eq!(status, 409, "{reply}");
    assert_eq!(message(&reply), "the name 'my_box' is already used in this lab: choose another, or leave the name out");
    let (status, reply) = add(&server, Some(&ana), named("wall_north")).await;
    assert_eq!(status, 409, "the scene's names too: {reply}");
    let (status, reply) = add(&server, Some(&ana), named("my box")).await;
    assert_eq!(status, 422, "{reply}");
    // A fragment's name clash is pointed at where the name is.
    let (status, reply) =
        add(&server, Some(&ana), Body::Fragment("\nmy_box { shape sphere(0.1); pos(2, 0.1, 2); }".into())).await;
    assert_eq!(status, 409, "{reply}");
    assert_eq!(reply["errors"][0]["line"], 2, "{reply}");
}

/// A classroom on the store at `db`, restored as `vlab serve` does at start-up.
async fn serve_on(db: &std::path::Path) -> TestServer {
    let store = Store::open(db).unwrap();
    let mut classroom = Classroom::new(ClassroomConfig { store: Some(store), ..ClassroomConfig::default() });
    let demo = classroom
        .labs()
        .open_demo(DemoLab { instructor_token: Some(TOKEN.into()), seed: 1, start_running: false })
        .unwrap();
    classroom.set_server_key(demo.record.instructor);
    assert_eq!(classroom.labs().restore().await.unwrap(), 0, "every kept change is done again");
    TestServer::serve(classroom).await
}

#[tokio::test]
async fn objects_and_their_owners_are_kept_across_a_restart() {
    let dir = std::env::temp_dir().join(format!("vlab-objects-restart-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("vlab.db");
    let _ = std::fs::remove_file(&db);
    let yard_text = "environment wallrect { width 12; length 12; height 0.5; }";
    let (lab, instructor, ana, ana_id) = {
        let server = serve_on(&db).await;
        let create = json!({ "name": "Objects", "scene_source": yard_text });
        let response = server.http.post(server.url("/api/labs")).bearer_auth(TOKEN).json(&create).send().await.unwrap();
        assert_eq!(response.status().as_u16(), 201);
        let created: Value = response.json().await.unwrap();
        let lab = created["id"].as_str().unwrap().to_owned();
        let instructor = created["instructor_token"].as_str().unwrap().to_owned();
        let code = created["join_code"].as_str().unwrap().to_owned();
        let url = |tail: &str| server.url(&format!("/api/labs/{lab}{tail}"));
        let patch = json!({ "students_add_objects": true });
        let response = server.http.patch(url("/settings")).bearer_auth(&instructor).json(&patch).send().await.unwrap();
        assert_eq!(response.status().as_u16(), 200);
        let ana = join_by_code(&server, &code, "Ana").await;
        for palette in ["ramp", "ball"] {
            let response = server
                .http
                .post(url("/objects"))
                .bearer_auth(&ana)
                .json(&json!({ "palette": palette }))
                .send()
                .await
                .unwrap();
            assert_eq!(response.status().as_u16(), 200, "{}", response.text().await.unwrap());
        }
        let response = server.http.delete(url("/objects/ana_ball_1")).bearer_auth(&instructor).send().await.unwrap();
        assert_eq!(response.status().as_u16(), 204);
        let response = server.http.delete(url("/objects/wall_east")).bearer_auth(&instructor).send().await.unwrap();
        assert_eq!(response.status().as_u16(), 204);
        let ana_id = server.classroom().lab(&lab).unwrap().owner_of_object("ana_ramp_1").unwrap();
        (lab, instructor, ana, ana_id)
    };
    let server = serve_on(&db).await;
    let handle = server.classroom().lab(&lab).unwrap();
    assert_eq!(handle.owner_of_object("ana_ramp_1"), Some(ana_id), "Ana's ramp is back, hers");
    assert!(!handle.robots().has_object("ana_ball_1"), "the removed ball stays removed");
    assert!(!handle.robots().has_object("wall_east"), "so does the scene's wall the instructor removed");
    assert!(handle.robots().has_object("wall_west"));
    let mut page = server.connect(&lab, Some(&ana)).await;
    let (_, snapshot, _, _) = page.join_sequence().await;
    let ramp = snapshot.bodies.iter().find(|b| b.name == "ana_ramp_1").expect("drawn");
    assert_eq!(ramp.owner, Some(ana_id));
    // Ana is still its owner to the rules too.
    let ben_code: Value = server
        .http
        .get(server.url(&format!("/api/labs/{lab}")))
        .bearer_auth(&instructor)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let code = ben_code["join_code"].as_str().unwrap();
    let ben = join_by_code(&server, code, "Ben").await;
    let url = server.url(&format!("/api/labs/{lab}/objects/ana_ramp_1"));
    assert_eq!(server.http.delete(&url).bearer_auth(&ben).send().await.unwrap().status().as_u16(), 403);
    assert_eq!(server.http.delete(&url).bearer_auth(&ana).send().await.unwrap().status().as_u16(), 204);
    drop(page);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Sends placement `id` of `name` to `position` (heading 0.5) and waits for its answer:
/// `Ok` when placed, else the refusal's words.
async fn place(client: &mut common::Client, id: u32, name: &str, position: [f32; 3]) -> Result<(), String> {
    crate::placing::place(client, id, name, position, Some(0.5)).await;
    crate::placing::answer(client, id).await.map(|_| ()).map_err(|refusal| refusal.message)
}

#[tokio::test]
async fn a_student_places_her_static_ramp_by_websocket_and_every_page_redraws_it_there() {
    use common::Received;
    use vlab_protocol::ServerMsg;
    let (server, ana) = yard_lab(true).await;
    let ben = server.join_demo("Ben").await;
    let (status, reply) = add(&server, Some(&ana), item("ramp")).await;
    assert_eq!(status, 200, "{reply}");
    let mut ana_page = server.connect("demo", Some(&ana)).await;
    let (_, snapshot, _, _) = ana_page.join_sequence().await;
    let mut ben_page = server.connect("demo", Some(&ben)).await;
    ben_page.join_sequence().await;
    let ramp = snapshot.bodies.iter().find(|b| b.name == "ana_ramp_1").expect("the ramp is drawn");
    assert!(ramp.fixed, "a palette ramp is static");
    let target = [2.0, ramp.pose.position[1], 10.0];

    // Not Ben's, and the scene's own walls are nobody's to move.
    let refused = place(&mut ben_page, 1, "ana_ramp_1", target).await.unwrap_err();
    assert!(refused.contains("only the owner of 'ana_ramp_1' or the instructor may move it"), "{refused}");
    let wall = place(&mut ana_page, 2, "wall_north", target).await.unwrap_err();
    assert!(wall.contains("wall_north"), "{wall}");
    place(&mut ana_page, 3, "ana_ramp_1", target).await.expect("Ana places her ramp");

    // Ben's page gets the scene again with the ramp where Ana put it (fixed bodies are
    // drawn from the scene, not from frames).
    let moved = ben_page
        .until(|r| match r {
            Received::Json(ServerMsg::Snapshot(snapshot)) => snapshot
                .bodies
                .iter()
                .find(|b| b.name == "ana_ramp_1")
                .filter(|b| (b.pose.position[0] - 2.0).abs() < 1e-3 && (b.pose.position[2] - 10.0).abs() < 1e-3)
                .map(|b| b.pose),
            _ => None,
        })
        .await;
    println!("the ramp now stands at {:?}", moved.position);
    let (status, reply) = remove(&server, Some(&ben), "ana_ramp_1").await;
    assert_eq!(status, 403, "{reply}");
}
