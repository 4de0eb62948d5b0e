//! Remote controllers against the real server (real HTTP, real websockets): a robot's
//! owner attaches a controller over `/ws/labs/{lab}/robots/{robot}/control` and drives
//! it with the program protocol; a lockstep lab waits for every answer, within the
//! step budget; a controller that stalls, floods or disconnects is detached alone and
//! its robot holds still; attaching again resumes; every refusal says why.

use crate::common;

use std::time::{Duration, Instant};

use common::{PATIENCE, TOKEN, TestServer, python_runs_here, yard};
use futures_util::{SinkExt, StreamExt};
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async};
use vlab_protocol::ControlAction;

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Adds a diffbot (`diffbot_<suffix>` at x = 3, z) for `token`, with `program` or none.
async fn add_robot(server: &TestServer, token: &str, suffix: &str, z: u32, program: Option<&str>) {
    let description = format!("include \"diffbot_robot.vlab\";\ncall diffbot(\"_{suffix}\", 3, {z}, 0);\n");
    let mut form = Form::new().part("description", Part::text(description).file_name("robot.vlab"));
    if let Some(program) = program {
        form = form.part("program", Part::text(program.to_owned()).file_name("main.py"));
    }
    let response =
        server.http.post(server.url("/api/labs/demo/robots")).bearer_auth(token).multipart(form).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200, "{}", response.text().await.unwrap());
}

/// Opens robot `robot`'s control websocket with `token`: the socket, or the refusal's
/// HTTP status and body.
async fn attach(server: &TestServer, robot: &str, token: Option<&str>) -> Result<Socket, (u16, Value)> {
    let url = format!("ws://{}/ws/labs/demo/robots/{robot}/control", server.addr);
    let mut request = url.into_client_request().unwrap();
    if let Some(token) = token {
        request.headers_mut().insert("Authorization", format!("Bearer {token}").parse().unwrap());
    }
    match connect_async(request).await {
        Ok((socket, _)) => Ok(socket),
        Err(WsError::Http(response)) => {
            let status = response.status().as_u16();
            let body = response.body().as_deref().map(|b| serde_json::from_slice(b).unwrap()).unwrap_or(Value::Null);
            Err((status, body))
        }
        Err(e) => panic!("the control websocket failed: {e}"),
    }
}

/// The next protocol message (text), or the close frame's code and reason.
async fn next(socket: &mut Socket) -> Result<Value, (u16, String)> {
    loop {
        let message = tokio::time::timeout(PATIENCE, socket.next()).await.expect("the lab went silent");
        match message {
            Some(Ok(Message::Text(text))) => return Ok(serde_json::from_str(&text).unwrap()),
            Some(Ok(Message::Close(Some(frame)))) => return Err((frame.code.into(), frame.reason.to_string())),
            Some(Ok(Message::Close(None))) | None => return Err((1005, String::new())),
            Some(Ok(_)) => {}
            Some(Err(e)) => return Err((1006, e.to_string())),
        }
    }
}

async fn say(socket: &mut Socket, message: Value) {
    socket.send(Message::Text(message.to_string().into())).await.unwrap();
}

/// Attaches and answers the hello: the hello.
async fn attach_ready(server: &TestServer, robot: &str, token: &str, commands: Value) -> (Socket, Value) {
    let mut socket = attach(server, robot, Some(token)).await.unwrap_or_else(|e| panic!("refused: {e:?}"));
    let hello = next(&mut socket).await.unwrap();
    assert_eq!(hello["type"], "hello", "{hello}");
    say(&mut socket, json!({"type": "ready", "version": 1, "commands": commands})).await;
    (socket, hello)
}

async fn report(server: &TestServer, robot: &str) -> Value {
    let url = server.url(&format!("/api/labs/demo/robots/{robot}"));
    server.http.get(url).bearer_auth(TOKEN).send().await.unwrap().json().await.unwrap()
}

/// Waits until robot `robot`'s program status satisfies `accept`.
async fn status_where(server: &TestServer, robot: &str, accept: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let now = report(server, robot).await;
        if accept(&now["program"]) {
            return now;
        }
        assert!(Instant::now() < deadline, "robot {robot}'s status never changed as expected: {now}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn x_of(report: &Value) -> f64 {
    report["pose"]["position"][0].as_f64().unwrap()
}

#[tokio::test]
async fn a_lockstep_lab_waits_for_every_answer_and_the_robot_drives() {
    let server = TestServer::start_with(yard(), false).await;
    server.patch_demo_settings(json!({"sync": "lockstep"})).await;
    let ana = server.join_demo("Ana").await;
    add_robot(&server, &ana, "ana", 6, None).await;
    let x0 = x_of(&report(&server, "diffbot_ana").await);
    let (mut socket, hello) =
        attach_ready(&server, "diffbot_ana", &ana, json!({"drive": {"v": 0.2, "omega": 0}})).await;
    assert_eq!((hello["robot"].as_str(), hello["control_period"].as_u64()), (Some("diffbot_ana"), Some(5)));
    status_where(&server, "diffbot_ana", |p| p["state"] == "running" && p["file"] == "remote controller").await;

    // The controller answers every step late (30 ms of wall time): a lockstep lab asks
    // it every control step all the same, in order, none skipped.
    let answering = tokio::spawn(async move {
        let mut asked = Vec::new();
        while let Ok(message) = next(&mut socket).await {
            let step = message["step"].as_u64().unwrap();
            asked.push(step);
            tokio::time::sleep(Duration::from_millis(30)).await;
            say(&mut socket, json!({"type": "commands", "step": step, "commands": {}})).await;
            if step == 240 {
                break;
            }
        }
        asked
    });
    server.control("demo", ControlAction::Step { steps: 240 }).await;
    let asked = tokio::time::timeout(PATIENCE, answering).await.unwrap().unwrap();
    assert_eq!(asked, (1..=48).map(|k| k * 5).collect::<Vec<u64>>(), "every control step, in order");
    // 0.2 m/s from the control step it joined at (step 5) to step 240, less the motors'
    // spin-up: 235 steps at 1/240 s is 0.196 m at most.
    let moved = x_of(&report(&server, "diffbot_ana").await) - x0;
    assert!((0.15..0.2).contains(&moved), "drove {moved} m forward");
}

#[tokio::test]
async fn refusals_say_why_before_the_upgrade() {
    let server = TestServer::start_with(yard(), false).await;
    let ana = server.join_demo("Ana").await;
    let ben = server.join_demo("Ben").await;
    add_robot(&server, &ana, "ana", 6, None).await;

    let (status, body) = attach(&server, "diffbot_ana", None).await.err().unwrap();
    assert_eq!(status, 401, "{body}");
    let (status, body) = attach(&server, "diffbot_ana", Some(&ben)).await.err().unwrap();
    assert_eq!(status, 403, "another student's robot: {body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("attach a remote controller"), "{body}");
    let (status, body) = attach(&server, "diffbot_nobody", Some(&ana)).await.err().unwrap();
    assert_eq!(status, 404, "{body}");

    // One controller at a time; the instructor's counts too.
    let (_first, _) = attach_ready(&server, "diffbot_ana", &ana, json!({})).await;
    for token in [&ana, TOKEN] {
        let (status, body) = attach(&server, "diffbot_ana", Some(token)).await.err().unwrap();
        assert_eq!(status, 409, "{body}");
        assert!(body["error"]["message"].as_str().unwrap().contains("already has a remote controller"), "{body}");
    }
}

#[tokio::test]
async fn a_robot_running_its_program_refuses_a_controller_until_the_program_stops() {
    if !python_runs_here() {
        return;
    }
    let server = TestServer::start_with(yard(), false).await;
    let ana = server.join_demo("Ana").await;
    let program = "from vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    pass\n";
    add_robot(&server, &ana, "ana", 6, Some(program)).await;
    let (status, body) = attach(&server, "diffbot_ana", Some(&ana)).await.err().unwrap();
    assert_eq!(status, 409, "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("stop the program first"), "{body}");

    let stop = server.url("/api/labs/demo/robots/diffbot_ana/program/stop");
    let response = server.http.post(stop).bearer_auth(&ana).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let (_socket, _) = attach_ready(&server, "diffbot_ana", &ana, json!({})).await;
    status_where(&server, "diffbot_ana", |p| p["file"] == "remote controller").await;
    // Its program is still there to start again.
    let source = server.url("/api/labs/demo/robots/diffbot_ana/program");
    let response = server.http.get(source).bearer_auth(&ana).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
}

#[tokio::test]
async fn a_stalled_controller_is_detached_alone_its_robot_holds_still_and_attaching_again_resumes() {
    let server = TestServer::start_with(yard(), false).await;
    server.patch_demo_settings(json!({"sync": "lockstep"})).await;
    let ana = server.join_demo("Ana").await;
    add_robot(&server, &ana, "ana", 6, None).await;
    let (mut socket, _) = attach_ready(&server, "diffbot_ana", &ana, json!({"drive": {"v": 0.3, "omega": 0}})).await;
    status_where(&server, "diffbot_ana", |p| p["state"] == "running").await;

    // It answers nothing: the lab waits at most the step budget (500 ms) once, then
    // goes on without it; the 240 steps end.
    let started = Instant::now();
    server.control("demo", ControlAction::Step { steps: 240 }).await;
    assert!(started.elapsed() < PATIENCE);
    assert_eq!(next(&mut socket).await.unwrap()["step"], 5);
    let (code, reason) = next(&mut socket).await.unwrap_err();
    assert_eq!((code, reason.as_str()), (4000, "remote controller detached: did not answer within 500 ms"));
    let detached = status_where(&server, "diffbot_ana", |p| p["state"] == "none").await;
    assert_eq!(detached["program"]["message"], "remote controller detached: did not answer within 500 ms");
    let console = detached["console"].as_array().unwrap();
    assert!(console.iter().any(|l| l["text"] == "remote controller detached: did not answer within 500 ms"));

    // The robot holds still without it.
    server.control("demo", ControlAction::Step { steps: 120 }).await;
    let before = x_of(&report(&server, "diffbot_ana").await);
    server.control("demo", ControlAction::Step { steps: 240 }).await;
    let after = x_of(&report(&server, "diffbot_ana").await);
    assert!((after - before).abs() < 1e-3, "held still: {before} → {after}");

    // Attaching again resumes from the lab's step, with the commands it sends.
    let (mut socket, hello) =
        attach_ready(&server, "diffbot_ana", &ana, json!({"drive": {"v": 0.3, "omega": 0}})).await;
    assert_eq!(hello["step"], 600);
    status_where(&server, "diffbot_ana", |p| p["state"] == "running").await;
    let answering = tokio::spawn(async move {
        while let Ok(message) = next(&mut socket).await {
            let step = message["step"].as_u64().unwrap();
            say(&mut socket, json!({"type": "commands", "step": step, "commands": {}})).await;
            if step == 840 {
                break;
            }
        }
        socket
    });
    server.control("demo", ControlAction::Step { steps: 240 }).await;
    let _socket = tokio::time::timeout(PATIENCE, answering).await.unwrap().unwrap();
    let resumed = x_of(&report(&server, "diffbot_ana").await);
    assert!(resumed - after > 0.2, "it drives again: {after} → {resumed}");
}

#[tokio::test]
async fn a_flooding_or_vanishing_controller_is_detached_and_the_others_go_on() {
    let server = TestServer::start_with(yard(), false).await;
    let ana = server.join_demo("Ana").await;
    let ben = server.join_demo("Ben").await;
    add_robot(&server, &ana, "ana", 6, None).await;
    add_robot(&server, &ben, "ben", 8, None).await;
    let (mut flooder, _) = attach_ready(&server, "diffbot_ana", &ana, json!({})).await;
    let (mut ben_socket, _) = attach_ready(&server, "diffbot_ben", &ben, json!({})).await;
    let ben_answers = tokio::spawn(async move {
        while let Ok(message) = next(&mut ben_socket).await {
            let step = message["step"].as_u64().unwrap();
            say(&mut ben_socket, json!({"type": "commands", "step": step, "commands": {}})).await;
        }
    });
    status_where(&server, "diffbot_ana", |p| p["state"] == "running").await;

    // The lab is paused: nothing reads Ana's messages, and the 65th is one too many.
    let line = json!({"type": "output", "output": [{"source": "print", "text": "spam"}]});
    let mut sent = 0;
    let closed = loop {
        if flooder.send(Message::Text(line.to_string().into())).await.is_err() {
            break None;
        }
        sent += 1;
        if sent == 200 {
            break Some(next(&mut flooder).await.unwrap_err());
        }
    };
    let (code, reason) = closed.expect("the lab closes the flooding connection");
    assert_eq!(code, 4000);
    assert_eq!(reason, "sent more than 64 messages before the lab read them (a flood)");
    server.control("demo", ControlAction::Step { steps: 10 }).await;
    let ana_status = status_where(&server, "diffbot_ana", |p| p["state"] == "none").await;
    assert!(ana_status["program"]["message"].as_str().unwrap().contains("a flood"), "{ana_status}");
    let ben_status = report(&server, "diffbot_ben").await;
    assert_eq!(ben_status["program"]["state"], "running", "Ben's controller is untouched: {ben_status}");

    // Ben's connection drops: detached, told in his console.
    ben_answers.abort();
    let _ = ben_answers.await;
    server.control("demo", ControlAction::Step { steps: 10 }).await;
    let ben_status = status_where(&server, "diffbot_ben", |p| p["state"] == "none").await;
    assert_eq!(ben_status["program"]["message"], "remote controller detached: the remote controller disconnected");
}

#[tokio::test]
async fn a_lab_reset_stops_its_controllers_cleanly() {
    let server = TestServer::start_with(yard(), false).await;
    let ana = server.join_demo("Ana").await;
    add_robot(&server, &ana, "ana", 6, None).await;
    let (mut socket, _) = attach_ready(&server, "diffbot_ana", &ana, json!({})).await;
    status_where(&server, "diffbot_ana", |p| p["state"] == "running").await;
    server.control("demo", ControlAction::Reset).await;
    assert_eq!(next(&mut socket).await.unwrap(), json!({"type": "stop"}));
    let (code, _) = next(&mut socket).await.unwrap_err();
    assert_eq!(code, u16::from(CloseCode::Normal));
    status_where(&server, "diffbot_ana", |p| p["state"] == "none").await;
}
