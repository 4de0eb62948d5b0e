//! Rewinding a lab against the real server: the run re-simulated from its start with
//! its recorded inputs (commands by hand, an object moved, a robot put back) reaches
//! the very poses and readings the live run had at that step; the lab goes on from
//! there in a new run that keeps the past, also when it starts from a checkpoint; what
//! cannot be rewound is refused clearly and changes nothing.

use crate::common;

use common::{Received, TOKEN, TestServer};
use serde_json::{Value, json};
use vlab_protocol::{ClientMsg, ControlAction, RecordedMoment, ServerMsg};

const ROVERS: [&str; 3] = ["rover_red", "rover_blue", "rover_green"];

async fn post(server: &TestServer, path: &str, token: Option<&str>, body: Value) -> (u16, Value) {
    let mut request = server.http.post(server.url(path)).json(&body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn step(server: &TestServer, steps: u32) -> u64 {
    server.control("demo", ControlAction::Step { steps }).await.step
}

/// Every rover's true pose and sensors (with their steps and values) now.
async fn rovers(server: &TestServer) -> Vec<(Value, Value)> {
    let mut seen = Vec::new();
    for rover in ROVERS {
        let (status, report) = server.get_json(&format!("/api/labs/demo/robots/{rover}")).await;
        assert_eq!(status, 200);
        seen.push((report["pose"].clone(), report["sensors"].clone()));
    }
    seen
}

async fn seek(client: &mut common::Client, run: u32, step: u64) -> RecordedMoment {
    client.send(&ClientMsg::Seek { run: Some(run), step, epoch: None, robots: vec!["rover_red".into()] }).await;
    client
        .until(|r| match r {
            Received::Json(ServerMsg::Moment(m)) => Some((**m).clone()),
            Received::Json(ServerMsg::Error(e)) => panic!("seek refused: {}", e.message),
            _ => None,
        })
        .await
}

#[tokio::test]
async fn a_rewound_lab_reaches_the_very_poses_and_readings_it_had_and_goes_on_in_a_new_run() {
    let server = TestServer::start(false).await;
    step(&server, 120).await;
    let drive = json!({ "drive": { "v": 0.3, "omega": 0.8 } });
    assert_eq!(post(&server, "/api/labs/demo/robots/rover_red/actuators", Some(TOKEN), drive).await.0, 200);
    step(&server, 200).await;
    let moved = json!({ "position": [6.0, 0.5, 6.0], "heading": 1.0 });
    assert_eq!(post(&server, "/api/labs/demo/objects/rover_green/move", Some(TOKEN), moved).await.0, 204);
    step(&server, 130).await;
    assert_eq!(post(&server, "/api/labs/demo/robots/rover_blue/reset", Some(TOKEN), json!({})).await.0, 200);
    let turn = json!({ "motor_0": { "speed": -3.0 } });
    assert_eq!(post(&server, "/api/labs/demo/robots/rover_blue/actuators", Some(TOKEN), turn).await.0, 200);
    let at = step(&server, 150).await;
    assert_eq!(at, 600);
    let then = rovers(&server).await;

    // The class goes on, differently.
    let other = json!({ "drive": { "v": -0.2, "omega": -1.0 } });
    assert_eq!(post(&server, "/api/labs/demo/robots/rover_red/actuators", Some(TOKEN), other).await.0, 200);
    step(&server, 900).await;
    assert_ne!(rovers(&server).await, then, "the lab moved on");

    let mut student_page = server.connect("demo", None).await;
    let (status, state) = post(&server, "/api/labs/demo/rewind", Some(TOKEN), json!({ "step": 600 })).await;
    assert_eq!(status, 200, "{state}");
    assert_eq!((state["step"].as_u64(), state["mode"].as_str()), (Some(600), Some("paused")));
    // Every page was told why the lab stood still.
    let told = student_page
        .until(|r| match r {
            Received::Json(ServerMsg::Notice { message, .. }) => Some(message.clone()),
            _ => None,
        })
        .await;
    assert!(told.starts_with("The instructor is taking the lab back to step 600: it is paused while"), "{told}");
    let again = rovers(&server).await;
    for ((rover, (pose, sensors)), (pose_then, sensors_then)) in ROVERS.iter().zip(&again).zip(&then) {
        assert_eq!(pose, pose_then, "{rover}'s true pose, exactly");
        assert_eq!(sensors, sensors_then, "{rover}'s readings (noise included), exactly");
    }

    // The lab goes on in a new run that keeps the past; the run rewound stays whole.
    let mut viewer = server.connect("demo", None).await;
    let summary = viewer
        .until(|r| match r {
            Received::Json(ServerMsg::Recording(s)) if s.runs.len() == 2 => Some(s.clone()),
            _ => None,
        })
        .await;
    assert_eq!(summary.run, summary.runs[1].run);
    assert_eq!((summary.runs[0].first_step, summary.runs[0].last_step), (0, 1500));
    assert_eq!((summary.runs[1].first_step, summary.runs[1].last_step), (0, 600));
    let (old, new) = (summary.runs[0].run, summary.runs[1].run);
    let before = seek(&mut viewer, old, 300).await;
    let kept = seek(&mut viewer, new, 300).await;
    assert_eq!((kept.step, &kept.poses, &kept.robots), (before.step, &before.poses, &before.robots));
    assert_eq!(step(&server, 60).await, 660, "and time runs on from the rewound step");
}

#[tokio::test]
async fn what_cannot_be_rewound_is_refused_and_changes_nothing() {
    let server = TestServer::start(false).await;
    step(&server, 300).await;
    let student = server.join_demo("Ana").await;
    let rewind = |step: u64| json!({ "step": step });
    assert_eq!(post(&server, "/api/labs/demo/rewind", Some(&student), rewind(100)).await.0, 403);
    assert_eq!(post(&server, "/api/labs/demo/rewind", None, rewind(100)).await.0, 401);
    let (status, ahead) = post(&server, "/api/labs/demo/rewind", Some(TOKEN), rewind(5000)).await;
    assert_eq!(status, 409, "{ahead}");
    assert!(ahead["error"]["message"].as_str().unwrap().contains("ahead of the lab"), "{ahead}");
    let (status, bad) = post(&server, "/api/labs/demo/rewind", Some(TOKEN), json!({ "steps": 3 })).await;
    assert_eq!(status, 400, "{bad}");

    // A robot added at step 300: the lab can go back to 300, not before.
    let robot = |x: f64, z: f64| {
        format!("robot ana_bot {{ body {{ ana_hull {{ shape box(0.3, 0.1, 0.2); pos({x}, 0.3, {z}); }} }} }}")
    };
    let (mut status, mut answer) = server.add_demo_robots(&student, robot(2.0, 4.0)).await;
    // Where a prop of the demo settled, the lab offers a clear spot nearby.
    if let Some((x, z)) = common::offered_spot(&answer) {
        (status, answer) = server.add_demo_robots(&student, robot(x, z)).await;
    }
    assert_eq!(status, 200, "{answer}");
    step(&server, 100).await;
    let (status, refused) = post(&server, "/api/labs/demo/rewind", Some(TOKEN), rewind(200)).await;
    assert_eq!(status, 409, "{refused}");
    let why = refused["error"]["message"].as_str().unwrap();
    assert!(why.contains("robot ana_bot was added at step 300"), "{refused}");
    assert!(why.contains("the earliest step this run can go back to is 300"), "{refused}");
    assert_eq!(server.lab_state("demo").await["step"], 400, "nothing changed");
    let (status, state) = post(&server, "/api/labs/demo/rewind", Some(TOKEN), rewind(300)).await;
    assert_eq!((status, state["step"].as_u64()), (200, Some(300)));
    let (status, _) = server.get_json("/api/labs/demo/robots/ana_bot").await;
    assert_eq!(status, 200, "the robot added at the step rewound to is still there");
}

#[tokio::test]
async fn a_rewind_from_a_checkpoint_reaches_the_very_poses_and_readings_it_had() {
    let server = TestServer::start(false).await;
    let drive = json!({ "drive": { "v": 0.3, "omega": 0.8 } });
    assert_eq!(post(&server, "/api/labs/demo/robots/rover_red/actuators", Some(TOKEN), drive).await.0, 200);
    step(&server, 1000).await;
    let turn = json!({ "motor_0": { "speed": -3.0 } });
    assert_eq!(post(&server, "/api/labs/demo/robots/rover_blue/actuators", Some(TOKEN), turn).await.0, 200);
    assert_eq!(step(&server, 700).await, 1700);
    let then = rovers(&server).await;
    let other = json!({ "drive": { "v": -0.2, "omega": -1.0 } });
    assert_eq!(post(&server, "/api/labs/demo/robots/rover_red/actuators", Some(TOKEN), other).await.0, 200);
    step(&server, 500).await;
    assert_ne!(rovers(&server).await, then, "the lab moved on");

    let (status, answer) = post(&server, "/api/labs/demo/rewind", Some(TOKEN), json!({ "step": 1700 })).await;
    assert_eq!(status, 200, "{answer}");
    // A checkpoint every 5 s of simulation (1200 steps at 240 a second).
    assert_eq!((answer["resimulated_from"].as_u64(), answer["resimulated_steps"].as_u64()), (Some(1200), Some(500)));
    for ((rover, (pose, sensors)), (pose_then, sensors_then)) in ROVERS.iter().zip(&rovers(&server).await).zip(&then) {
        assert_eq!(pose, pose_then, "{rover}'s true pose, exactly");
        assert_eq!(sensors, sensors_then, "{rover}'s readings (noise included), exactly");
    }
}
