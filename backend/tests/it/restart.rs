//! What a class keeps when the server restarts: the real `vlab` binary, stopped and
//! started again on the same database. Labs created over HTTP come back with their
//! join codes, settings, instructor tokens, uploaded scenes and students' robots (and
//! without the robots removed); students' sessions stay valid.

use std::time::Duration;

use crate::common;

use common::TestServer;
use common::binary::VlabProcess;
use serde_json::{Value, json};
use vlab_server::classroom::{Classroom, ClassroomConfig, DemoLab};
use vlab_server::store::Store;

const KEY: &str = "restart-test-key";

/// A server on a database: the real `vlab` binary (stopped with SIGKILL when dropped),
/// or the same classroom restored in this process (stopped when dropped).
enum Server {
    Binary(VlabProcess),
    InProcess { _serving: TestServer, base: String },
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Binary,
    InProcess,
}

impl Server {
    async fn start(db: &std::path::Path, kind: Kind) -> Server {
        match kind {
            Kind::Binary => Server::start_binary(db),
            Kind::InProcess => Server::start_in_process(db).await,
        }
    }

    fn start_binary(db: &std::path::Path) -> Server {
        Server::Binary(VlabProcess::start(db, &["--paused", "--instructor-token", KEY]))
    }

    /// What `vlab serve` does at start-up, in this process: the classroom opens the
    /// store, the demo lab, and restores every other lab with its uploads.
    async fn start_in_process(db: &std::path::Path) -> Server {
        let store = Store::open(db).unwrap();
        let mut classroom = Classroom::new(ClassroomConfig { store: Some(store), ..ClassroomConfig::default() });
        let demo = classroom
            .labs()
            .open_demo(DemoLab { instructor_token: Some(KEY.into()), seed: 1, start_running: false })
            .unwrap();
        classroom.set_server_key(demo.record.instructor);
        assert_eq!(classroom.labs().restore().await.unwrap(), 0, "every kept upload is done again");
        let server = TestServer::serve(classroom).await;
        Server::InProcess { base: server.url(""), _serving: server }
    }

    fn base(&self) -> &str {
        match self {
            Server::Binary(process) => &process.base,
            Server::InProcess { base, .. } => base,
        }
    }
}

async fn call(
    http: &reqwest::Client,
    method: reqwest::Method,
    url: String,
    token: Option<&str>,
    body: Value,
) -> (u16, Value) {
    let mut request = http.request(method, url).json(&body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (status, if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap() })
}

/// `name` joins the lab of join code `code` on the server at `base`; their session token.
async fn join(http: &reqwest::Client, base: &str, code: &str, name: &str) -> String {
    let (status, joined) =
        call(http, reqwest::Method::POST, format!("{base}/api/join"), None, json!({ "join_code": code, "name": name }))
            .await;
    assert_eq!(status, 200, "{joined}");
    joined["token"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn labs_settings_and_sessions_survive_a_killed_server() {
    labs_settings_and_sessions_survive(Kind::Binary).await;
}

#[tokio::test]
async fn labs_settings_and_sessions_survive_a_restart_in_process() {
    labs_settings_and_sessions_survive(Kind::InProcess).await;
}

async fn labs_settings_and_sessions_survive(kind: Kind) {
    let dir = std::env::temp_dir().join(format!("vlab-restart-{kind:?}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("vlab.db");
    let _ = std::fs::remove_file(&db);
    let http = reqwest::Client::new();
    use reqwest::Method;

    let (lab, code, instructor, student) = {
        let server = Server::start(&db, kind).await;
        let (status, created) = call(
            &http,
            Method::POST,
            format!("{}/api/labs", server.base()),
            Some(KEY),
            json!({ "name": "Robotics 2", "scene": "diffbot" }),
        )
        .await;
        assert_eq!(status, 201, "{created}");
        let lab = created["id"].as_str().unwrap().to_owned();
        let code = created["join_code"].as_str().unwrap().to_owned();
        let instructor = created["instructor_token"].as_str().unwrap().to_owned();
        let (status, joined) = call(
            &http,
            Method::POST,
            format!("{}/api/join", server.base()),
            None,
            json!({ "join_code": code, "name": "Ana" }),
        )
        .await;
        assert_eq!(status, 200, "{joined}");
        let ana = joined["token"].as_str().unwrap().to_owned();
        // Ana adds two robots, the instructor a crate; one of Ana's robots is removed.
        for (suffix, x) in [("_ana", 1.0), ("_ana2", 2.5)] {
            let response = http
                .post(format!("{}/api/labs/{lab}/robots", server.base()))
                .bearer_auth(&ana)
                .body(format!("include \"diffbot_robot.vlab\"; call diffbot(\"{suffix}\", {x}, 1, 0);"))
                .send()
                .await
                .unwrap();
            assert_eq!(response.status().as_u16(), 200, "{}", response.text().await.unwrap());
        }
        let response = http
            .post(format!("{}/api/labs/{lab}/scene", server.base()))
            .bearer_auth(&instructor)
            .body("crate_1 { shape box(0.2, 0.2, 0.2); pos(2, 0.5, 2); }")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200);
        let (status, _) = call(
            &http,
            Method::DELETE,
            format!("{}/api/labs/{lab}/robots/diffbot_ana2", server.base()),
            Some(&ana),
            Value::Null,
        )
        .await;
        assert_eq!(status, 204);
        let (status, _) = call(
            &http,
            Method::PATCH,
            format!("{}/api/labs/{lab}/settings", server.base()),
            Some(&instructor),
            json!({ "robot_quota": 2, "uploads_locked": true }),
        )
        .await;
        assert_eq!(status, 200);
        (lab, code, instructor, joined["token"].as_str().unwrap().to_owned())
    };

    let server = Server::start(&db, kind).await;
    let (status, summary) =
        call(&http, Method::GET, format!("{}/api/labs/{lab}", server.base()), Some(&instructor), Value::Null).await;
    assert_eq!(status, 200, "the lab is back: {summary}");
    assert_eq!(summary["join_code"], code.as_str(), "with its code, for its instructor");
    assert_eq!(summary["settings"]["robot_quota"], 2);
    assert_eq!(summary["settings"]["uploads_locked"], true);
    assert_eq!(summary["robots"], json!(["diffbot", "diffbot_ana"]), "its scene, Ana's robot, not the removed one");
    let (_, robot) =
        call(&http, Method::GET, format!("{}/api/labs/{lab}/robots/diffbot_ana", server.base()), None, Value::Null)
            .await;
    assert_eq!(robot["owner"], "Ana", "still hers");
    let (status, _) = call(
        &http,
        Method::POST,
        format!("{}/api/labs/{lab}/objects/crate_1/move", server.base()),
        Some(&instructor),
        json!({"position": [3, 0.5, 3]}),
    )
    .await;
    assert_eq!(status, 204, "the instructor's crate is back too");
    let (_, people) =
        call(&http, Method::GET, format!("{}/api/labs/{lab}/participants", server.base()), None, Value::Null).await;
    assert_eq!(people[1]["name"], "Ana");
    // Ana's token still makes her Ana: uploads are locked for students, and she is told
    // so (a stranger would be told their token is unknown).
    let (status, reply) = call(
        &http,
        Method::DELETE,
        format!("{}/api/labs/{lab}/robots/diffbot", server.base()),
        Some(&student),
        Value::Null,
    )
    .await;
    assert_eq!(status, 403, "known, but not the owner: {reply}");
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A student's program, and the program that replaced it, come back with the robot.
#[tokio::test]
async fn robot_programs_survive_a_killed_server() {
    robot_programs_survive(Kind::Binary).await;
}

#[tokio::test]
async fn robot_programs_survive_a_restart_in_process() {
    robot_programs_survive(Kind::InProcess).await;
}

async fn robot_programs_survive(kind: Kind) {
    use vlab_server::controller::{ProgramError, ProgramSpec, PythonProgram};
    // Where programs cannot be confined they are refused (robot_programs.rs checks how).
    match PythonProgram::start(ProgramSpec::new("probe", "from vlab import Robot\nRobot().step()\n")) {
        Ok(mut probe) => {
            let _ = probe.stop();
        }
        Err(ProgramError::SandboxUnavailable(reason)) => {
            eprintln!("programs are refused on this machine: {reason}");
            return;
        }
        Err(e) => panic!("a trivial program did not start: {e}"),
    }
    let dir = std::env::temp_dir().join(format!("vlab-restart-programs-{kind:?}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("vlab.db");
    let _ = std::fs::remove_file(&db);
    let http = reqwest::Client::new();
    use reqwest::Method;
    let first = "from vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    print('first')\n";
    let second =
        "from vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    print('second', robot.step_count())\n";

    let (lab, instructor) = {
        let server = Server::start(&db, kind).await;
        let (status, created) =
            call(&http, Method::POST, format!("{}/api/labs", server.base()), Some(KEY), json!({ "name": "P" })).await;
        assert_eq!(status, 201, "{created}");
        let lab = created["id"].as_str().unwrap().to_owned();
        let instructor = created["instructor_token"].as_str().unwrap().to_owned();
        let code = created["join_code"].as_str().unwrap();
        let ana = join(&http, server.base(), code, "Ana").await;
        // Ana's robot at a clear spot: where the lab offers one if the first is taken.
        let mut spot = (1.0, 1.5);
        let response = loop {
            let description =
                format!("include \"diffbot_robot.vlab\"; call diffbot(\"_ana\", {}, {}, 0);", spot.0, spot.1);
            let form = reqwest::multipart::Form::new()
                .part("description", reqwest::multipart::Part::text(description).file_name("robot.vlab"))
                .part("program", reqwest::multipart::Part::text(first).file_name("main.py"));
            let response = http
                .post(format!("{}/api/labs/{lab}/robots", server.base()))
                .bearer_auth(&ana)
                .multipart(form)
                .send()
                .await
                .unwrap();
            if response.status().as_u16() != 422 {
                break response;
            }
            let reply: serde_json::Value = response.json().await.unwrap();
            spot = crate::common::offered_spot(&reply).unwrap_or_else(|| panic!("no spot offered: {reply}"));
        };
        assert_eq!(response.status().as_u16(), 200, "{}", response.text().await.unwrap());
        let response = http
            .put(format!("{}/api/labs/{lab}/robots/diffbot_ana/program", server.base()))
            .bearer_auth(&ana)
            .body(second)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200, "{}", response.text().await.unwrap());
        (lab, instructor)
    };

    let server = Server::start(&db, kind).await;
    let (status, source) = call(
        &http,
        Method::GET,
        format!("{}/api/labs/{lab}/robots/diffbot_ana/program", server.base()),
        Some(&instructor),
        Value::Null,
    )
    .await;
    assert_eq!(status, 200, "{source}");
    assert_eq!(source["files"]["main.py"], second, "the replacement, not the first upload");
    // The lab's clock does not wait for a program to start: wait for it here.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let robot_url = format!("{}/api/labs/{lab}/robots/diffbot_ana", server.base());
        let (_, robot) = call(&http, Method::GET, robot_url, Some(&instructor), Value::Null).await;
        if robot["program"]["state"] != "starting" {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "the program never started: {robot}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (status, _) = call(
        &http,
        Method::POST,
        format!("{}/api/labs/{lab}/control", server.base()),
        Some(&instructor),
        json!({ "action": "step", "steps": 20 }),
    )
    .await;
    assert_eq!(status, 200);
    let (_, robot) = call(
        &http,
        Method::GET,
        format!("{}/api/labs/{lab}/robots/diffbot_ana", server.base()),
        Some(&instructor),
        Value::Null,
    )
    .await;
    assert_eq!(robot["program"]["state"], "running", "{robot}");
    let printed: Vec<&str> = robot["console"].as_array().unwrap().iter().filter_map(|l| l["text"].as_str()).collect();
    assert!(printed.iter().any(|line| line.starts_with("second ")), "{printed:?}");
    assert!(!printed.contains(&"first"), "{printed:?}");
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A student the instructor removed stays removed (their token unknown, their robot
/// gone), and the lab's new join code is the one that admits after a restart.
#[tokio::test]
async fn removals_and_a_new_join_code_survive_a_killed_server() {
    removals_and_a_new_join_code_survive(Kind::Binary).await;
}

#[tokio::test]
async fn removals_and_a_new_join_code_survive_a_restart_in_process() {
    removals_and_a_new_join_code_survive(Kind::InProcess).await;
}

async fn removals_and_a_new_join_code_survive(kind: Kind) {
    let dir = std::env::temp_dir().join(format!("vlab-restart-removals-{kind:?}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("vlab.db");
    let _ = std::fs::remove_file(&db);
    let http = reqwest::Client::new();
    use reqwest::Method;

    let (lab, old_code, new_code, instructor, ana, bob) = {
        let server = Server::start(&db, kind).await;
        let base = server.base().to_owned();
        let (status, created) =
            call(&http, Method::POST, format!("{base}/api/labs"), Some(KEY), json!({ "name": "Doors" })).await;
        assert_eq!(status, 201, "{created}");
        let lab = created["id"].as_str().unwrap().to_owned();
        let old_code = created["join_code"].as_str().unwrap().to_owned();
        let instructor = created["instructor_token"].as_str().unwrap().to_owned();
        let mut joined = Vec::new();
        for name in ["Ana", "Bob"] {
            let body = json!({ "join_code": old_code, "name": name });
            let (status, reply) = call(&http, Method::POST, format!("{base}/api/join"), None, body).await;
            assert_eq!(status, 200, "{reply}");
            joined.push((reply["token"].as_str().unwrap().to_owned(), reply["user"]["id"].as_u64().unwrap()));
        }
        let [(ana, _), (bob, bob_id)] = <[_; 2]>::try_from(joined).unwrap();
        for (token, name, x) in [(&ana, "ana_bot", 1.0), (&bob, "bob_bot", 3.0)] {
            let response = http
                .post(format!("{base}/api/labs/{lab}/robots"))
                .bearer_auth(token)
                .body(format!(
                    "robot {name} {{ body {{ {name}_b {{ shape box(0.3, 0.1, 0.2); pos({x}, 0.2, 4); }} }} }}"
                ))
                .send()
                .await
                .unwrap();
            assert_eq!(response.status().as_u16(), 200, "{}", response.text().await.unwrap());
        }
        let path = format!("{base}/api/labs/{lab}/participants/{bob_id}");
        let (status, reply) = call(&http, Method::DELETE, path, Some(&instructor), Value::Null).await;
        assert_eq!(status, 204, "{reply}");
        let (status, changed) =
            call(&http, Method::POST, format!("{base}/api/labs/{lab}/join-code"), Some(&instructor), Value::Null).await;
        assert_eq!(status, 200, "{changed}");
        let new_code = changed["join_code"].as_str().unwrap().to_owned();
        let (status, settings) = call(
            &http,
            Method::PATCH,
            format!("{base}/api/labs/{lab}/settings"),
            Some(&instructor),
            json!({ "max_participants": 2 }),
        )
        .await;
        assert_eq!(status, 200, "{settings}");
        (lab, old_code, new_code, instructor, ana, bob)
    };

    let server = Server::start(&db, kind).await;
    let base = server.base().to_owned();
    let (status, summary) =
        call(&http, Method::GET, format!("{base}/api/labs/{lab}"), Some(&instructor), Value::Null).await;
    assert_eq!(status, 200, "{summary}");
    assert_eq!(summary["join_code"], new_code.as_str(), "the new code is kept");
    assert_eq!(summary["settings"]["max_participants"], 2);
    let robots = summary["robots"].as_array().unwrap();
    assert!(
        robots.contains(&json!("ana_bot")) && !robots.contains(&json!("bob_bot")),
        "Bob's robot stays gone: {robots:?}"
    );
    let (_, people) = call(&http, Method::GET, format!("{base}/api/labs/{lab}/participants"), None, Value::Null).await;
    let names: Vec<&str> = people.as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Instructor", "Ana"], "Bob is not back");
    let (status, _) = call(&http, Method::GET, format!("{base}/api/labs/{lab}"), Some(&bob), Value::Null).await;
    assert_eq!(status, 401, "Bob's token stays unknown");
    let (status, _) = call(&http, Method::GET, format!("{base}/api/labs/{lab}"), Some(&ana), Value::Null).await;
    assert_eq!(status, 200, "Ana's session stays");
    let join = |code: &str, name: &str| {
        call(
            &http,
            Method::POST,
            format!("{base}/api/labs/{lab}/join"),
            None,
            json!({ "join_code": code, "name": name }),
        )
    };
    let (status, reply) = join(&old_code, "Cy").await;
    assert_eq!(status, 403, "the old code stays refused: {reply}");
    let (status, reply) = join(&new_code, "Cy").await;
    assert_eq!(status, 200, "{reply}");
    let (status, reply) = join(&new_code, "Dee").await;
    assert_eq!(status, 409, "the cap is kept too: {reply}");
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A start moved by its owner is kept: after a restart, a reset puts the robot there.
#[tokio::test]
async fn a_moved_start_survives_a_restart_in_process() {
    let dir = std::env::temp_dir().join(format!("vlab-restart-start-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("vlab.db");
    let _ = std::fs::remove_file(&db);
    let http = reqwest::Client::new();
    use reqwest::Method;

    let (lab, ana, (x0, z0)) = {
        let server = Server::start(&db, Kind::InProcess).await;
        let (status, created) =
            call(&http, Method::POST, format!("{}/api/labs", server.base()), Some(KEY), json!({ "name": "S" })).await;
        assert_eq!(status, 201, "{created}");
        let lab = created["id"].as_str().unwrap().to_owned();
        let code = created["join_code"].as_str().unwrap();
        let ana = join(&http, server.base(), code, "Ana").await;
        let response = http
            .post(format!("{}/api/labs/{lab}/robots", server.base()))
            .bearer_auth(&ana)
            .body("include \"diffbot_robot.vlab\"; call diffbot(\"_ana\", {x}, {z}, 0);")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200, "{}", response.text().await.unwrap());
        // The demo yard's props and rovers may stand there: then where the refusal says.
        let mut spot = (1.5, 1.25);
        for _ in 0..2 {
            let (status, reply) = call(
                &http,
                Method::POST,
                format!("{}/api/labs/{lab}/robots/diffbot_ana/start", server.base()),
                Some(&ana),
                json!({ "position": [spot.0, 0.05, spot.1], "heading": 0.5 }),
            )
            .await;
            match status {
                204 => break,
                422 => spot = common::offered_spot(&reply).unwrap_or_else(|| panic!("no spot offered: {reply}")),
                _ => panic!("{status}: {reply}"),
            }
        }
        (lab, ana, spot)
    };

    let server = Server::start(&db, Kind::InProcess).await;
    let robot = format!("{}/api/labs/{lab}/robots/diffbot_ana", server.base());
    let (status, report) = call(&http, Method::POST, format!("{robot}/reset"), Some(&ana), Value::Null).await;
    assert_eq!(status, 200, "{report}");
    let position = &report["pose"]["position"];
    let (x, z) = (position[0].as_f64().unwrap(), position[2].as_f64().unwrap());
    assert!((x - x0).abs() < 0.05 && (z - z0).abs() < 0.05, "back at the start Ana chose, ({x0}, {z0}): {report}");
    assert!((report["pose"]["heading"].as_f64().unwrap() - 0.5).abs() < 0.01, "{report}");
    drop(server);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The clock and the bodies: a lab whose server was killed goes on, once it is started
/// again, from the last checkpoint the server kept (taken every 5 s of simulation,
/// written every few seconds), not from step 0.
#[tokio::test]
async fn a_lab_goes_on_from_its_last_kept_checkpoint_after_a_killed_server() {
    let dir = std::env::temp_dir().join(format!("vlab-restart-checkpoint-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("vlab.db");
    let _ = std::fs::remove_file(&db);
    let http = reqwest::Client::new();
    let control = async |base: &str, action: Value| {
        let (status, state) =
            call(&http, reqwest::Method::POST, format!("{base}/api/labs/demo/control"), Some(KEY), action).await;
        assert_eq!(status, 200, "{state}");
        state
    };
    let kept = {
        let server = Server::start_binary(&db);
        control(server.base(), json!({ "action": "rate", "rate": "max" })).await;
        control(server.base(), json!({ "action": "resume" })).await;
        // Past the third checkpoint (every 1,200 steps), then paused: nothing more is taken.
        common::eventually("the demo lab runs past step 4,000", common::PATIENCE, async || {
            let (_, state) =
                call(&http, reqwest::Method::GET, format!("{}/api/labs/demo", server.base()), None, Value::Null).await;
            (state["step"].as_u64().unwrap_or(0) > 4_000).then_some(())
        })
        .await;
        let paused = control(server.base(), json!({ "action": "pause" })).await;
        let last = paused["step"].as_u64().unwrap() / 1_200 * 1_200;
        let store = Store::open(&db).unwrap();
        let kept = common::eventually("the last checkpoint is kept", common::PATIENCE, async || {
            let text = store.checkpoint("demo").unwrap()?;
            let kept: Value = serde_json::from_str(&text).unwrap();
            (kept["step"].as_u64() == Some(last)).then_some(kept)
        })
        .await;
        drop(server);
        kept
    };
    let server = Server::start_binary(&db);
    let (status, lab) =
        call(&http, reqwest::Method::GET, format!("{}/api/labs/demo", server.base()), None, Value::Null).await;
    assert_eq!(status, 200, "{lab}");
    assert_eq!(lab["step"], kept["step"], "the clock from the last kept checkpoint: {lab}");
    let (status, rover) = call(
        &http,
        reqwest::Method::GET,
        format!("{}/api/labs/demo/robots/rover_red", server.base()),
        Some(KEY),
        Value::Null,
    )
    .await;
    assert_eq!(status, 200, "{rover}");
    let chassis = kept["bodies"].as_array().unwrap().iter().find(|b| b["name"] == "rover_red_chassis").unwrap();
    // The report's metres are the body's (f32) widened to f64.
    let metres = |v: &Value| -> Vec<f32> { v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect() };
    assert_eq!(metres(&rover["pose"]["position"]), metres(&chassis["position"]), "the rover where it was at that step");
    // Its recording goes on too: the new run starts with the killed server's up to the
    // kept step, so its timeline reaches back to step 0 (nothing reads as dropped), and
    // the lab's opening (its uploads done again) leaves no empty run.
    let summary =
        common::eventually("the new run holds the run before up to the kept step", common::PATIENCE, async || {
            let (_, summary) = call(
                &http,
                reqwest::Method::GET,
                format!("{}/api/labs/demo/recording", server.base()),
                None,
                Value::Null,
            )
            .await;
            (summary["first_step"] == 0 && summary["last_step"].as_u64() >= kept["step"].as_u64()).then_some(summary)
        })
        .await;
    assert_eq!(summary["dropped"], false, "{summary}");
    let runs = summary["runs"].as_array().unwrap();
    assert!(runs.iter().all(|run| run["last_step"].as_u64() > Some(0)), "no empty run: {summary}");
    let _ = std::fs::remove_dir_all(&dir);
}
