//! Issue 36, row 6: a rewind the lab refused (a step before the last insertion, or
//! `step: 1000000000000000`, which took 6.7 s to refuse) left the lab **paused** until
//! somebody noticed: the rewind paused the class first and checked the step afterwards.
//! Now a rewind is checked before anything changes: refused at once with a 409 saying
//! why (and the earliest step it can go back to), and a running lab goes on running.

use serde_json::{Value, json};
use vlab_protocol::ControlAction;

use crate::common::{PATIENCE, TOKEN, TestServer};

async fn rewind(server: &TestServer, step: u64) -> (u16, String) {
    let url = server.url("/api/labs/demo/rewind");
    let response = server.http.post(url).bearer_auth(TOKEN).json(&json!({ "step": step })).send().await.unwrap();
    let status = response.status().as_u16();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    (status, body["error"]["message"].as_str().unwrap_or_default().to_owned())
}

/// Waits until the lab's clock passes `step` (it runs), and returns where it is.
async fn runs_past(server: &TestServer, step: u64) -> u64 {
    let waited = tokio::time::timeout(PATIENCE, async {
        loop {
            let state = server.lab_state("demo").await;
            assert_eq!(state["mode"], "running", "the lab runs: {state}");
            let now = state["step"].as_u64().unwrap();
            if now > step {
                return now;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    });
    waited.await.expect("the lab's clock goes on")
}

#[tokio::test]
async fn a_refused_rewind_leaves_a_running_lab_running() {
    let server = TestServer::start(false).await;
    server.control("demo", ControlAction::Step { steps: 300 }).await;
    let student = server.join_demo("Ana").await;
    let robot = |x: f64, z: f64| {
        format!("robot ana_bot {{ body {{ ana_hull {{ shape box(0.3, 0.1, 0.2); pos({x}, 0.3, {z}); }} }} }}")
    };
    let (mut status, mut answer) = server.add_demo_robots(&student, robot(2.0, 4.0)).await;
    // Where a prop of the demo settled, the lab offers a clear spot nearby.
    if let Some((x, z)) = crate::common::offered_spot(&answer) {
        (status, answer) = server.add_demo_robots(&student, robot(x, z)).await;
    }
    assert_eq!(status, 200, "{answer}");
    server.control("demo", ControlAction::Resume).await;
    let now = runs_past(&server, 300).await;

    let (status, why) = rewind(&server, 100).await;
    assert_eq!(status, 409, "{why}");
    assert!(why.contains("robot ana_bot was added at step 300"), "says what bounds it: {why}");
    assert!(why.contains("the earliest step this run can go back to is 300"), "and where it can go: {why}");
    runs_past(&server, now).await;

    let (status, why) = rewind(&server, 1_000_000_000_000_000).await;
    assert_eq!(status, 409, "{why}");
    assert!(why.contains("ahead of the lab"), "{why}");
    let after = runs_past(&server, now).await;
    runs_past(&server, after).await;
}
