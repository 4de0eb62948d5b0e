//! Symptom: ten robot uploads sent at once by one student whose quota is 3 were all
//! accepted (the quota was checked before any of them was inserted); sent one after
//! the other, the fourth was refused. The lab now checks the quota as it inserts.

use crate::common;

use common::{TOKEN, TestServer};
use serde_json::Value;

fn robot(name: &str, x: f64) -> String {
    format!("robot {name} {{ body {{ {name}_chassis {{ shape box(0.3, 0.1, 0.2); pos({x}, 0.2, 4); }} }} }}")
}

#[tokio::test]
async fn uploads_sent_at_once_stop_at_the_quota() {
    let server = TestServer::start(false).await;
    let joined: Value = server
        .http
        .post(server.url("/api/labs/demo/join"))
        .json(&serde_json::json!({ "join_code": "DEMOCODE", "name": "Ana" }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let ana = joined["token"].as_str().unwrap().to_owned();
    let quota = server.lab_state("demo").await["settings"]["robot_quota"].as_u64().unwrap() as usize;
    assert_eq!(quota, 3, "the default quota");

    let uploads = (0..10).map(|i| {
        let request = server
            .http
            .post(server.url("/api/labs/demo/robots"))
            .bearer_auth(&ana)
            .body(robot(&format!("ana_{i}"), 1.0 + i as f64 * 0.5));
        async move {
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            (status, response.json::<Value>().await.unwrap())
        }
    });
    let answers = futures_util::future::join_all(uploads).await;

    let accepted = answers.iter().filter(|(status, _)| *status == 200).count();
    let refused: Vec<&Value> = answers.iter().filter(|(status, _)| *status == 403).map(|(_, reply)| reply).collect();
    assert_eq!(accepted, quota, "{answers:?}");
    assert_eq!(refused.len(), 10 - quota, "every other upload is refused for the quota: {answers:?}");
    for reply in refused {
        let message = reply["errors"][0]["message"].as_str().unwrap();
        assert!(message.contains("you may have 3 robot(s)"), "{message}");
    }
    let robots = server.lab_state("demo").await["robots"].clone();
    let hers = robots.as_array().unwrap().iter().filter(|r| r.as_str().unwrap().starts_with("ana_")).count();
    assert_eq!(hers, quota, "{robots}");
    // The instructor has no quota.
    let response = server.http.post(server.url("/api/labs/demo/robots")).bearer_auth(TOKEN).body(robot("teacher", 6.0));
    assert_eq!(response.send().await.unwrap().status().as_u16(), 200);
}
