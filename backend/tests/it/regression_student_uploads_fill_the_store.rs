//! Symptom: nothing bounded the bytes one student kept on the server: within their
//! robot quota, each upload could carry the largest files, and replacing a program
//! added more. Each student now has a byte budget per lab
//! (`STUDENT_UPLOAD_BUDGET_BYTES`): an upload past it is refused with 413 and says
//! what to do, whatever is sent at once; removing a robot gives its bytes back; the
//! instructor has none.

use crate::common;

use common::{TOKEN, TestServer};
use serde_json::{Value, json};
use vlab_server::classroom::STUDENT_UPLOAD_BUDGET_BYTES;

const NAME: &str = "bot.vlab";

/// A robot upload whose files take exactly `bytes` as the budget counts them: the
/// description (its name and text) and a mesh (its name and bytes). Each one made
/// stands at a spot of its own, so none is refused for standing on another.
fn robot_form(robot: &str, bytes: u64) -> reqwest::multipart::Form {
    static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (x, z) = (1.0 + (n % 16) as f64 * 0.6, 4.5 + (n / 16 % 8) as f64 * 0.6);
    let description =
        format!("robot {robot} {{ body {{ {robot}_hull {{ shape box(0.3, 0.1, 0.2); pos({x}, 0.3, {z}); }} }} }}");
    let mesh_name = "pad.obj";
    let fixed = (NAME.len() + description.len() + mesh_name.len()) as u64;
    let pad = vec![b'#'; (bytes - fixed) as usize];
    reqwest::multipart::Form::new()
        .part("description", reqwest::multipart::Part::text(description).file_name(NAME))
        .part(mesh_name, reqwest::multipart::Part::bytes(pad).file_name(mesh_name))
}

async fn upload(server: &TestServer, token: &str, robot: &str, bytes: u64) -> (u16, Value) {
    let response = server
        .http
        .post(server.url("/api/labs/demo/robots"))
        .bearer_auth(token)
        .multipart(robot_form(robot, bytes))
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

#[tokio::test]
async fn a_student_keeps_at_most_the_budget_and_a_removal_gives_it_back() {
    let server = TestServer::start(false).await;
    server.patch_demo_settings(json!({ "robot_quota": 10 })).await;
    let ana = server.join_demo("Ana").await;
    const MIB: u64 = 1024 * 1024;
    assert_eq!(STUDENT_UPLOAD_BUDGET_BYTES, 8 * MIB, "the documented budget");

    // 3.5 + 3.5 + 1 MiB: exactly the budget.
    assert_eq!(upload(&server, &ana, "ana_a", 3 * MIB + MIB / 2).await.0, 200);
    assert_eq!(upload(&server, &ana, "ana_b", 3 * MIB + MIB / 2).await.0, 200);
    assert_eq!(upload(&server, &ana, "ana_c", MIB).await.0, 200, "the last byte of the budget");
    let smallest = (NAME.len() + 200) as u64;
    let (status, reply) = upload(&server, &ana, "ana_d", smallest).await;
    assert_eq!(status, 413, "{reply}");
    let message = reply["errors"][0]["message"].as_str().unwrap();
    assert!(message.contains("take 8.0 MiB") && message.contains("at most 8.0 MiB"), "{message}");
    assert!(message.contains("remove one of your robots first"), "{message}");
    assert_eq!(reply["errors"][0]["file"], NAME, "positioned in the upload: {reply}");
    let robots = server.lab_state("demo").await["robots"].clone();
    assert!(!robots.as_array().unwrap().iter().any(|r| r == "ana_d"), "nothing was added: {robots}");

    // Others and the instructor are not charged for Ana's bytes.
    let bob = server.join_demo("Bob").await;
    assert_eq!(upload(&server, &bob, "bob_a", 3 * MIB).await.0, 200);
    assert_eq!(upload(&server, TOKEN, "teacher_a", 3 * MIB + MIB / 2).await.0, 200);
    assert_eq!(upload(&server, TOKEN, "teacher_b", 3 * MIB + MIB / 2).await.0, 200);
    assert_eq!(upload(&server, TOKEN, "teacher_c", 3 * MIB + MIB / 2).await.0, 200, "the instructor has no budget");

    // A removal gives its bytes back.
    let removed = server.http.delete(server.url("/api/labs/demo/robots/ana_a")).bearer_auth(&ana).send().await.unwrap();
    assert!(removed.status().is_success());
    assert_eq!(upload(&server, &ana, "ana_d", 3 * MIB + MIB / 2).await.0, 200);

    // A new program counts too, in place of the robot's last one.
    let program = |bytes: usize| {
        let text = format!("# {}\n", "x".repeat(bytes));
        let form =
            reqwest::multipart::Form::new().part("program", reqwest::multipart::Part::text(text).file_name("main.py"));
        server.http.put(server.url("/api/labs/demo/robots/ana_c/program")).bearer_auth(&ana).multipart(form)
    };
    assert_eq!(program(1000).send().await.unwrap().status().as_u16(), 413, "Ana's budget is full");
}

#[tokio::test]
async fn uploads_sent_at_once_cannot_pass_the_budget_together() {
    let server = TestServer::start(false).await;
    server.patch_demo_settings(json!({ "robot_quota": 10 })).await;
    let ana = server.join_demo("Ana").await;
    const MIB: u64 = 1024 * 1024;
    // Four of 3 MiB at once: two fit in 8 MiB, the other two must not.
    let uploads = (0..4).map(|i| {
        let server = &server;
        let ana = ana.clone();
        async move { upload(server, &ana, &format!("ana_{i}"), 3 * MIB).await }
    });
    let answers = futures_util::future::join_all(uploads).await;
    let statuses: Vec<u16> = answers.iter().map(|(status, _)| *status).collect();
    assert_eq!(statuses.iter().filter(|s| **s == 200).count(), 2, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == 413).count(), 2, "{statuses:?}");
}
