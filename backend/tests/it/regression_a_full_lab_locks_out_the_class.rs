//! Symptom: 205 joins with a lab's code in one second filled the lab (200) and the real
//! student was refused; the instructor could neither remove participants nor change the
//! code. Now the instructor removes the intruders (their sessions end, their robots go,
//! their pages are told and watch as viewers), gives the lab a new code (the old one is
//! refused), and can cap how many students join.

use crate::common;

use common::{Received, TOKEN, TestServer};
use reqwest::Method;
use serde_json::{Value, json};
use vlab_protocol::{ClientMsg, ControlAction, ErrorCode, MAX_PARTICIPANTS, ServerMsg};

/// An HTTP request with an optional bearer token; the status and the JSON body (`null`
/// when empty).
async fn call(server: &TestServer, method: Method, path: &str, token: Option<&str>, body: Value) -> (u16, Value) {
    let mut request = server.http.request(method, server.url(path));
    if !body.is_null() {
        request = request.json(&body);
    }
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (status, if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap() })
}

async fn join(server: &TestServer, code: &str, name: &str) -> (u16, Value) {
    call(server, Method::POST, "/api/labs/demo/join", None, json!({ "join_code": code, "name": name })).await
}

fn robot(name: &str, x: f64) -> String {
    format!("robot {name} {{ body {{ {name}_chassis {{ shape box(0.3, 0.1, 0.2); pos({x}, 0.2, 4); }} }} }}")
}

#[tokio::test]
async fn the_instructor_removes_the_intruders_and_changes_the_code_and_the_class_gets_in() {
    let server = TestServer::start(false).await;

    // 205 joins at once: the lab admits 200 and refuses the rest, as full.
    let server_ref = &server;
    let joins = (0..205).map(|i| async move { join(server_ref, "DEMOCODE", &format!("bot{i}")).await });
    let answers = futures_util::future::join_all(joins).await;
    let intruders: Vec<(String, u64)> = answers
        .iter()
        .filter(|(status, _)| *status == 200)
        .map(|(_, joined)| (joined["token"].as_str().unwrap().to_owned(), joined["user"]["id"].as_u64().unwrap()))
        .collect();
    assert_eq!(intruders.len(), MAX_PARTICIPANTS);
    for (status, reply) in answers.iter().filter(|(status, _)| *status != 200) {
        assert_eq!(*status, 409, "{reply}");
        assert!(reply["error"]["message"].as_str().unwrap().contains("this lab is full"), "{reply}");
    }
    let (status, reply) = join(&server, "DEMOCODE", "Ana").await;
    assert_eq!(status, 409, "the real student is refused: {reply}");

    // One intruder adds a robot and watches the lab.
    let (intruder, intruder_id) = intruders[0].clone();
    let response =
        server.http.post(server.url("/api/labs/demo/robots")).bearer_auth(&intruder).body(robot("spam", 3.0));
    assert_eq!(response.send().await.unwrap().status().as_u16(), 200);
    let mut page = server.connect("demo", Some(&intruder)).await;
    page.join_sequence().await;

    // Nobody but the instructor removes anybody or changes the code.
    let (other, other_id) = &intruders[1];
    let path = format!("/api/labs/demo/participants/{intruder_id}");
    let (status, reply) = call(&server, Method::DELETE, &path, Some(other), Value::Null).await;
    assert_eq!(status, 403, "{reply}");
    assert_eq!(reply["error"]["message"], "only the instructor of this lab may remove participants");
    let (status, _) = call(&server, Method::DELETE, &path, None, Value::Null).await;
    assert_eq!(status, 401);
    let (status, reply) = call(&server, Method::POST, "/api/labs/demo/join-code", Some(other), Value::Null).await;
    assert_eq!(status, 403, "{reply}");
    let (status, _) = call(&server, Method::DELETE, "/api/labs/demo/participants/0", Some(TOKEN), Value::Null).await;
    assert_eq!(status, 422, "the instructor stays");
    let (status, _) = call(&server, Method::DELETE, "/api/labs/demo/participants/9999", Some(TOKEN), Value::Null).await;
    assert_eq!(status, 404);
    let (status, _) = call(&server, Method::DELETE, "/api/labs/demo/participants/abc", Some(TOKEN), Value::Null).await;
    assert_eq!(status, 400);

    // The instructor removes them all.
    for (_, id) in &intruders {
        let path = format!("/api/labs/demo/participants/{id}");
        let (status, reply) = call(&server, Method::DELETE, &path, Some(TOKEN), Value::Null).await;
        assert_eq!(status, 204, "removing {id}: {reply}");
    }
    let (status, _) = call(&server, Method::DELETE, &path, Some(TOKEN), Value::Null).await;
    assert_eq!(status, 404, "removed once");

    // A removed participant's token is unknown; their robot is gone.
    let (status, reply) = call(&server, Method::GET, "/api/labs/demo", Some(&intruder), Value::Null).await;
    assert_eq!(status, 401, "{reply}");
    let (status, _) = call(&server, Method::GET, "/api/labs/demo", Some(other), Value::Null).await;
    assert_eq!(status, 401);
    let (status, _) = call(&server, Method::GET, "/api/labs/demo/robots/spam", None, Value::Null).await;
    assert_eq!(status, 404, "their robot left with them");
    assert!(!server.lab_state("demo").await["robots"].as_array().unwrap().contains(&json!("spam")));
    let (_, people) = call(&server, Method::GET, "/api/labs/demo/participants", None, Value::Null).await;
    assert_eq!(people.as_array().unwrap().len(), 1, "only the instructor is left: {people}");
    assert!(*other_id != intruder_id);

    // Their page is told, and goes on as a viewer's: it watches, and may do nothing more.
    let told = page
        .until(|received| match received {
            Received::Json(ServerMsg::Error(body)) => Some(body.clone()),
            _ => None,
        })
        .await;
    assert_eq!(told.code, ErrorCode::Unauthorized);
    assert!(told.message.contains("removed you from this lab"), "{}", told.message);
    page.send(&ClientMsg::Control { command: ControlAction::Step { steps: 1 } }).await;
    let refused = page
        .until(|received| match received {
            Received::Json(ServerMsg::Error(body)) => Some(body.clone()),
            _ => None,
        })
        .await;
    assert_eq!(refused.code, ErrorCode::Unauthorized, "a viewer's refusal: {}", refused.message);
    server.control("demo", ControlAction::Step { steps: 1 }).await;
    page.until(|received| matches!(received, Received::Json(ServerMsg::State(_))).then_some(())).await;

    // A new code: the old one admits nobody, the new one admits the class.
    let (status, changed) = call(&server, Method::POST, "/api/labs/demo/join-code", Some(TOKEN), Value::Null).await;
    assert_eq!(status, 200, "{changed}");
    let code = changed["join_code"].as_str().unwrap().to_owned();
    assert_ne!(code, "DEMOCODE");
    assert_eq!(server.lab_state("demo").await.get("join_code"), None, "shown to the instructor only");
    let (_, summary) = call(&server, Method::GET, "/api/labs/demo", Some(TOKEN), Value::Null).await;
    assert_eq!(summary["join_code"], code.as_str());
    let (status, reply) = join(&server, "DEMOCODE", "bot999").await;
    assert_eq!(status, 403, "the old code is refused: {reply}");
    let (status, reply) =
        call(&server, Method::POST, "/api/join", None, json!({ "join_code": "DEMOCODE", "name": "bot999" })).await;
    assert_eq!(status, 404, "no lab has the old code any more: {reply}");
    let (status, joined) = join(&server, &code.to_lowercase(), "Ana").await;
    assert_eq!(status, 200, "the real student is in: {joined}");
    assert_eq!(joined["user"]["name"], "Ana");
    let ana = joined["token"].as_str().unwrap();
    let response = server.http.post(server.url("/api/labs/demo/robots")).bearer_auth(ana).body(robot("ana_bot", 5.0));
    assert_eq!(response.send().await.unwrap().status().as_u16(), 200, "and takes part");
}

#[tokio::test]
async fn the_participant_cap_admits_exactly_its_number() {
    let server = TestServer::start(false).await;
    let (status, reply) =
        call(&server, Method::PATCH, "/api/labs/demo/settings", Some(TOKEN), json!({ "max_participants": 3 })).await;
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["max_participants"], 3);
    let (status, reply) = call(
        &server,
        Method::PATCH,
        "/api/labs/demo/settings",
        Some(TOKEN),
        json!({ "max_participants": MAX_PARTICIPANTS + 1 }),
    )
    .await;
    assert_eq!(status, 422, "the server's ceiling bounds it: {reply}");
    let (status, reply) =
        call(&server, Method::PATCH, "/api/labs/demo/settings", None, json!({ "max_participants": 100 })).await;
    assert_eq!(status, 401, "{reply}");

    let mut ids = Vec::new();
    for name in ["Ana", "Bob", "Cy"] {
        let (status, joined) = join(&server, "DEMOCODE", name).await;
        assert_eq!(status, 200, "{name}: {joined}");
        ids.push(joined["user"]["id"].as_u64().unwrap());
    }
    let (status, reply) = join(&server, "DEMOCODE", "Dee").await;
    assert_eq!(status, 409, "{reply}");
    let message = reply["error"]["message"].as_str().unwrap();
    assert!(message.contains("this lab is full") && message.contains("admits 3 students"), "{message}");
    assert_eq!(server.lab_state("demo").await["settings"]["max_participants"], 3);

    // A removal makes room for one; lowering the cap removes nobody.
    let path = format!("/api/labs/demo/participants/{}", ids[0]);
    assert_eq!(call(&server, Method::DELETE, &path, Some(TOKEN), Value::Null).await.0, 204);
    assert_eq!(join(&server, "DEMOCODE", "Dee").await.0, 200);
    assert_eq!(join(&server, "DEMOCODE", "Eve").await.0, 409);
    let (status, _) =
        call(&server, Method::PATCH, "/api/labs/demo/settings", Some(TOKEN), json!({ "max_participants": 0 })).await;
    assert_eq!(status, 200);
    let (_, people) = call(&server, Method::GET, "/api/labs/demo/participants", None, Value::Null).await;
    assert_eq!(people.as_array().unwrap().len(), 4, "the instructor and three students: {people}");
    assert_eq!(join(&server, "DEMOCODE", "Eve").await.0, 409, "0 lets nobody new in");
}
