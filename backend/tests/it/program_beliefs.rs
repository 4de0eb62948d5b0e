//! What a program believes and draws, against the real server: a Python program
//! publishes its estimate and draws points, a line and a text; the robot's owner and
//! the instructor get them beside its reports over the websocket, other students and
//! viewers do not until the instructor shares beliefs; a program that draws past the
//! budget is told at the call.

use crate::common;

use std::time::Duration;

use common::{Client, Received, TOKEN, TestServer, python_runs_here, yard};
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use vlab_protocol::{Belief, ClientMsg, Drawing, ServerMsg};

const DRAWING_PROGRAM: &str = r##"
from vlab import Robot
robot = Robot()
n = 0
robot.draw_text(0, 0, "start", color="yellow", keep=True)
while robot.step():
    n += 1
    robot.publish_estimate(1.5, -2.0, 0.25)
    robot.draw_points([(1, 1), (2, 2, 0.5)], color="#00ff00")
    robot.draw_lines([(0, 0), (1, 0), (1, 1)])
"##;

async fn upload(server: &TestServer, token: &str, program: &str) -> (u16, Value) {
    let description = "include \"diffbot_robot.vlab\";\ncall diffbot(\"_ana\", 3, 6, 0);\n";
    let form = Form::new()
        .part("description", Part::text(description).file_name("robot.vlab"))
        .part("program", Part::text(program.to_owned()).file_name("main.py"));
    let response =
        server.http.post(server.url("/api/labs/demo/robots")).bearer_auth(token).multipart(form).send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

/// A page watching the robot, from the server's first answers on.
async fn watcher(server: &TestServer, token: Option<&str>) -> Client {
    let mut client = server.connect("demo", token).await;
    client.join_sequence().await;
    client.send(&ClientMsg::Subscribe { robot: "diffbot_ana".into() }).await;
    client
}

/// The belief a page gets within `reports` reports of the robot, if any.
async fn belief_within(client: &mut Client, reports: usize) -> Option<Belief> {
    let mut seen = 0;
    loop {
        match client.next().await {
            Received::Json(ServerMsg::Belief(belief)) => return Some(belief),
            Received::Json(ServerMsg::Robot(report)) if report.name == "diffbot_ana" => {
                seen += 1;
                if seen > reports {
                    return None;
                }
            }
            _ => {}
        }
    }
}

#[tokio::test]
async fn the_owner_and_the_instructor_see_a_programs_belief_and_others_once_shared() {
    if !python_runs_here() {
        return;
    }
    let server = TestServer::start_with(yard(), true).await;
    let ana = server.join_demo("Ana").await;
    let bob = server.join_demo("Bob").await;
    let (status, reply) = upload(&server, &ana, DRAWING_PROGRAM).await;
    assert_eq!(status, 200, "{reply}");

    let mut owner = watcher(&server, Some(&ana)).await;
    let belief = belief_within(&mut owner, 100).await.expect("the owner sees the belief");
    assert_eq!(belief.robot, "diffbot_ana");
    let estimate = belief.estimate.expect("the estimate");
    assert_eq!((estimate.x, estimate.y, estimate.theta), (1.5, -2.0, 0.25));
    assert!(belief.time > 0.0 && belief.step > 0, "stamped with the answer's step: {belief:?}");
    assert_eq!(belief.drawings.len(), 3, "the kept text, then the step's points and line: {belief:?}");
    assert_eq!(
        belief.drawings[0],
        Drawing::Text { at: [0.0, 0.0, 0.3], text: "start".into(), color: "#fdd835".into() }
    );
    assert_eq!(
        belief.drawings[1],
        Drawing::Points { points: vec![[1.0, 1.0, 0.05], [2.0, 2.0, 0.5]], color: "#00ff00".into() }
    );
    assert!(matches!(&belief.drawings[2], Drawing::Lines { points, .. } if points.len() == 3));
    let mut teacher = watcher(&server, Some(TOKEN)).await;
    assert!(belief_within(&mut teacher, 100).await.is_some(), "the instructor sees it");

    let mut other = watcher(&server, Some(&bob)).await;
    let mut viewer = watcher(&server, None).await;
    assert!(belief_within(&mut other, 5).await.is_none(), "another student does not");
    assert!(belief_within(&mut viewer, 5).await.is_none(), "nor a viewer");

    server.patch_demo_settings(json!({ "share_beliefs": true })).await;
    assert!(belief_within(&mut other, 100).await.is_some(), "shared: other students see it");
    assert!(belief_within(&mut viewer, 100).await.is_some(), "and viewers");
}

#[tokio::test]
async fn drawing_past_the_budget_is_refused_at_the_call() {
    if !python_runs_here() {
        return;
    }
    let server = TestServer::start_with(yard(), true).await;
    let program = "from vlab import Robot\nrobot = Robot()\nrobot.step()\n\
                   robot.draw_points([(0, 0)] * 3000)\nrobot.draw_points([(0, 0)] * 1001)\n";
    let (status, reply) = upload(&server, TOKEN, program).await;
    assert_eq!(status, 200, "{reply}");
    let url = server.url("/api/labs/demo/robots/diffbot_ana");
    let deadline = std::time::Instant::now() + common::PATIENCE;
    loop {
        let report: Value = server.http.get(&url).bearer_auth(TOKEN).send().await.unwrap().json().await.unwrap();
        let console: String = report["console"]
            .as_array()
            .map(|lines| lines.iter().filter_map(|l| l["text"].as_str()).collect::<Vec<_>>().join("\n"))
            .unwrap_or_default();
        if console.contains("at most 4000 points and line vertices") {
            assert!(console.contains("line 5"), "the traceback points at the call: {console}");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "never refused: {report}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
