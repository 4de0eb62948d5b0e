//! Issue 36, row 6: a valid rewind after a 23-minute run paused the class for 79 s (the
//! docs said under a second for a minute): every rewind re-simulated the run from its
//! start, so its cost grew with the run's length. Now the lab keeps checkpoints as it
//! steps, and a rewind re-simulates from the nearest one at or before its step: late in
//! a long run it re-simulates less than one checkpoint interval, and says so in its
//! answer (`resimulated_from`, `resimulated_steps`).

use serde_json::{Value, json};
use vlab_protocol::ControlAction;
use vlab_server::lab::checkpoints::CHECKPOINT_INTERVAL_SECS;

use crate::common::{TOKEN, TestServer};

async fn rewind(server: &TestServer, step: u64) -> Value {
    let url = server.url("/api/labs/demo/rewind");
    let response = server.http.post(url).bearer_auth(TOKEN).json(&json!({ "step": step })).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    response.json().await.unwrap()
}

#[tokio::test]
async fn a_rewind_late_in_a_long_run_resimulates_at_most_one_checkpoint_interval() {
    let server = TestServer::start(false).await;
    let state = server.control("demo", ControlAction::Step { steps: 12_000 }).await;
    let interval = (CHECKPOINT_INTERVAL_SECS / state.dt_secs).round() as u64;
    assert!(state.step > 8 * interval, "a run many checkpoint intervals long");

    let target = state.step - interval / 2 - 7;
    let answer = rewind(&server, target).await;
    assert_eq!((answer["step"].as_u64(), answer["mode"].as_str()), (Some(target), Some("paused")), "{answer}");
    let steps = answer["resimulated_steps"].as_u64().expect("the answer says how much was re-simulated");
    assert!(steps < interval, "{steps} steps re-simulated for a rewind {target} steps into the run: {answer}");
    assert_eq!(answer["resimulated_from"].as_u64(), Some(target - steps), "{answer}");

    // Rewound again, further back in the new run: still from a checkpoint before it.
    let earlier = target - 3 * interval;
    let answer = rewind(&server, earlier).await;
    let steps = answer["resimulated_steps"].as_u64().expect("the answer says how much was re-simulated");
    assert!(steps < interval, "{steps} steps re-simulated for a rewind to {earlier}: {answer}");
}
