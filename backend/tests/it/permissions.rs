//! The permission table (`vlab_protocol::permissions`) held to the rules and to the real
//! server. The rules are written out below as a grid (action × instructor, owner,
//! student, anonymous), as docs/classroom.md and docs/programs.md state them; the table
//! must equal it. Then every action is taken over real HTTP, and over the websocket for
//! what the websocket carries, by every kind of caller toward every kind of robot (a
//! student's, one the instructor added, one of the lab's scene): allowed answers 2xx (a
//! read shows its data), denied answers 401 or 403 (a websocket `Error` with
//! `Unauthorized` or `Forbidden`) with the sentence of `Denial::explain`.
//!
//! The walks check every cell before failing, and list every cell that differs, so one
//! run shows everything the server gets wrong.

use crate::common;

use std::collections::{BTreeSet, HashSet};
use std::time::Duration;

use common::{Client, PATIENCE, Received, TOKEN, TestServer};
use reqwest::RequestBuilder;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use vlab_protocol::permissions::{Action, Scope, Standing};
use vlab_protocol::{ClientMsg, ControlAction, ErrorBody, ErrorCode, INSTRUCTOR_ID, Role, ServerMsg, UserId};

/// Who may take each action, by standing. The owner column concerns robots only: toward
/// the lab as a whole a student who owns robots stands as a student (the docs' "owner ✓"
/// for adding a robot is a student adding one), so no lab action but watching lists it.
#[rustfmt::skip]
const EXPECTED: [(Action, [bool; 4]); 39] = [
    //                          instructor owner  student anonymous
    (Action::Watch,            [true,      true,  true,   true ]),
    (Action::ControlTime,      [true,      false, false,  false]),
    (Action::ChangeSettings,   [true,      false, false,  false]),
    (Action::SendNotice,       [true,      false, false,  false]),
    (Action::CloseLab,         [true,      false, false,  false]),
    (Action::SeeJoinCode,      [true,      false, false,  false]),
    (Action::ChangeJoinCode,   [true,      false, false,  false]),
    (Action::RemoveParticipant,[true,      false, false,  false]),
    (Action::InsertScene,      [true,      false, false,  false]),
    // docs/classroom.md, "Placing things by dragging": its owner, or the instructor any.
    (Action::MoveObject,       [true,      true,  false,  false]),
    // docs/classroom.md, "Changing the room of a running lab".
    (Action::ChangeEnvironment,[true,      false, false,  false]),
    (Action::AddRobot,         [true,      false, true,   false]),
    (Action::DriveRobot,       [true,      true,  false,  false]),
    // Keys: the owner only; the instructor holds the keys of the lab's own robots (theirs
    // as owner), not of a student's robot.
    (Action::SendKeys,         [false,     true,  false,  false]),
    (Action::ResetRobot,       [true,      true,  false,  false]),
    (Action::SetStart,         [true,      true,  false,  false]),
    (Action::RemoveRobot,      [true,      true,  false,  false]),
    // docs/classroom.md, "Objects from everyone": students add while the instructor lets
    // them (a separate 403); the owner of an object, or the instructor, removes it.
    (Action::AddObject,        [true,      false, true,   false]),
    (Action::RemoveObject,     [true,      true,  false,  false]),
    (Action::ReadConsole,      [true,      true,  false,  false]),
    // Unless the instructor shares beliefs (then everybody): backend/tests/program_beliefs.rs.
    (Action::SeeBelief,        [true,      true,  false,  false]),
    (Action::ReadProgram,      [true,      true,  false,  false]),
    (Action::ReplaceProgram,   [true,      true,  false,  false]),
    (Action::RunProgram,       [true,      true,  false,  false]),
    // docs/recording.md, "Exports": the whole lab's holds every student's console.
    (Action::ExportRecording,  [true,      false, false,  false]),
    (Action::ExportRobotRecording, [true,  true,  false,  false]),
    // docs/classroom.md, "Saving a lab as a scene": it names every student's robot.
    (Action::SaveScene,        [true,      false, false,  false]),
    // docs/remote.md: who may run its program may drive it from their own machine.
    (Action::AttachController, [true,      true,  false,  false]),
    // docs/challenges.md: who may run its program may try it at the challenge.
    (Action::Attempt,          [true,      true,  false,  false]),
    // docs/challenges.md: a participant's row is hers (unless the instructor shows names).
    (Action::SeeBoardRow,      [true,      true,  false,  false]),
    (Action::RunChallenge,     [true,      false, false,  false]),
    // docs/classroom.md, "Running a course": the teacher stands as the instructor, a
    // student toward her own hand-ins and grades as their owner (walked in courses.rs).
    (Action::SeeClass,         [true,      false, true,   false]),
    (Action::EnterClassLab,    [true,      false, true,   false]),
    (Action::ManageRoster,     [true,      false, false,  false]),
    (Action::ManageCourse,     [true,      false, false,  false]),
    (Action::Evaluate,         [true,      false, false,  false]),
    (Action::SeeOverview,      [true,      false, false,  false]),
    (Action::Submit,           [false,     true,  false,  false]),
    (Action::SeeGrades,        [true,      true,  false,  false]),
];

/// The grid's answer for one cell.
fn expected(action: Action, standing: Standing) -> bool {
    let row = EXPECTED.iter().find(|(a, _)| *a == action).map(|(_, row)| row).expect("every action is in the grid");
    row[Standing::ALL.iter().position(|s| *s == standing).expect("a column per standing")]
}

#[test]
fn the_permission_table_is_the_documented_grid() {
    let listed: HashSet<Action> = EXPECTED.iter().map(|(action, _)| *action).collect();
    assert_eq!(listed.len(), EXPECTED.len(), "the grid lists an action twice");
    assert!(Action::ALL.iter().all(|action| listed.contains(action)), "the grid misses an action");
    let mut differences = Vec::new();
    for (action, row) in EXPECTED {
        for (standing, allowed) in Standing::ALL.into_iter().zip(row) {
            if action.allows(standing) != allowed {
                differences.push(format!("{action:?} × {}: the grid says {allowed}", standing.name()));
            }
            // `check` agrees with `allows`.
            assert_eq!(action.check(standing).is_ok(), action.allows(standing), "{action:?} × {standing:?}");
        }
    }
    assert!(differences.is_empty(), "the table differs from the documented rules:\n{}", differences.join("\n"));
}

// ---------------------------------------------------------------------------------------
// The class: an instructor, Ana and Bob (students), somebody without a session; robots.

/// A caller: how the server knows them and who they are in the lab.
struct Person {
    name: &'static str,
    token: Option<String>,
    role: Role,
    id: Option<UserId>,
}

impl Person {
    fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    fn in_lab(&self) -> Standing {
        Standing::in_lab(self.role)
    }

    fn toward(&self, robot: &Bot) -> Standing {
        Standing::toward_robot(self.role, self.id, robot.owner)
    }
}

/// A robot to act on: its owner (`None`: the lab's scene's) and who can put it back.
struct Bot {
    name: &'static str,
    owner: Option<UserId>,
    /// Index in `Class::people` of who added it (and adds it again after a removal).
    added_by: Option<usize>,
    x: f64,
}

struct Class {
    server: TestServer,
    people: Vec<Person>,
    bots: Vec<Bot>,
}

const INSTRUCTOR: usize = 0;
const ANA: usize = 1;

/// The demo lab (paused), Ana's robot `ana_bot`, the instructor's `teacher_bot` (added
/// through `POST /robots`) and the scene's `rover_red`, each running `tick.wasm`.
async fn class() -> Class {
    let server = TestServer::start(false).await;
    let (ana, ana_id) = join(&server, "demo", "DEMOCODE", "Ana").await;
    let (bob, bob_id) = join(&server, "demo", "DEMOCODE", "Bob").await;
    let people = vec![
        Person { name: "the instructor", token: Some(TOKEN.into()), role: Role::Instructor, id: Some(INSTRUCTOR_ID) },
        Person { name: "Ana", token: Some(ana), role: Role::Student, id: Some(ana_id) },
        Person { name: "Bob", token: Some(bob), role: Role::Student, id: Some(bob_id) },
        Person { name: "anonymous", token: None, role: Role::Viewer, id: None },
    ];
    let bots = vec![
        Bot { name: "ana_bot", owner: Some(ana_id), added_by: Some(ANA), x: 2.0 },
        Bot { name: "teacher_bot", owner: Some(INSTRUCTOR_ID), added_by: Some(INSTRUCTOR), x: 4.0 },
        Bot { name: "rover_red", owner: None, added_by: None, x: 0.0 },
    ];
    let class = Class { server, people, bots };
    for bot in class.bots.iter().filter(|bot| bot.added_by.is_some()) {
        class.add(bot).await;
    }
    let (status, reply) = send(
        class.server.http.put(class.server.url("/api/labs/demo/robots/rover_red/program")).multipart(tick_form()),
        Some(TOKEN),
    )
    .await;
    assert_eq!(status, 200, "the instructor gives the scene's robot a program: {reply}");
    class
}

impl Class {
    /// Adds `bot` as whoever added it, with its program.
    async fn add(&self, bot: &Bot) {
        let by = &self.people[bot.added_by.expect("a robot somebody added")];
        let form = tick_form().part("description", Part::text(robot(bot.name, bot.x, 3.0)).file_name("robot.vlab"));
        let (status, reply) =
            send(self.server.http.post(self.server.url("/api/labs/demo/robots")).multipart(form), by.token()).await;
        assert_eq!(status, 200, "{} adds {}: {reply}", by.name, bot.name);
    }

    /// Puts `bot` back if a removal took it; false when it cannot be (a scene's robot).
    async fn ensure_present(&self, bot: &Bot) -> bool {
        let (status, _) = send(self.server.http.get(self.robot_url(bot.name, "")), None).await;
        if status == 200 {
            return true;
        }
        if bot.added_by.is_none() {
            return false;
        }
        self.add(bot).await;
        true
    }

    fn robot_url(&self, robot: &str, tail: &str) -> String {
        self.server.url(&format!("/api/labs/demo/robots/{robot}{tail}"))
    }
}

/// A robot `name` at (x, z): a box chassis with a GPS, a wheel on a hinge with
/// `motor_0` (as the demo's carts name theirs), and a keyboard.
fn robot(name: &str, x: f64, z: f64) -> String {
    format!(
        r#"robot {name} {{ body {{
             {name}_body {{ shape box(0.3, 0.1, 0.2); pos({x}, 0.15, {z}); SimpleGPS gps; }}
             {name}_wheel {{ shape cylinder(0.05, 0.02); pos({x}, 0.05, {z2}); }}
             JointHinge({name}_body, {name}_wheel) {{ anchor({x}, 0.05, {z2}); axis(0, 0, 1);
               SimpleMotor motor_0 {{ speed 0; }} }}
             Keyboard keyboard;
           }} }}"#,
        z2 = z + 0.12
    )
}

/// A WebAssembly program that logs "tick" every control step. WebAssembly runs inside
/// the server (no sandbox to set up), so the walks run on any machine.
fn tick_module() -> Vec<u8> {
    wat::parse_str(
        r#"(module
             (import "vlab" "log" (func $log (param i32 i32)))
             (memory (export "memory") 1)
             (data (i32.const 0) "tick")
             (func (export "vlab_abi_version") (result i32) (i32.const 1))
             (func (export "pre_step") (call $log (i32.const 0) (i32.const 4))))"#,
    )
    .expect("valid WAT")
}

/// A form whose `program` is `tick.wasm`.
fn tick_form() -> Form {
    Form::new().part("program", Part::bytes(tick_module()).file_name("tick.wasm"))
}

/// Sends a request with an optional bearer token: its status and JSON body (`null` when
/// empty, the text when not JSON).
async fn send(request: RequestBuilder, token: Option<&str>) -> (u16, Value) {
    let request = match token {
        Some(token) => request.bearer_auth(token),
        None => request,
    };
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    let body = if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap_or(Value::String(text)) };
    (status, body)
}

/// Opens `robot`'s remote-controller websocket with `token` and closes it again: 200
/// for an upgrade (read to its end, so the lab has let go before the next caller), else
/// the refusal's status and body.
async fn attach_controller(server: &TestServer, robot: &str, token: Option<&str>) -> (u16, Value) {
    use futures_util::StreamExt;
    use tokio_tungstenite::tungstenite::Error as WsError;
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let url = format!("ws://{}/ws/labs/demo/robots/{robot}/control", server.addr);
    let mut request = url.into_client_request().unwrap();
    if let Some(token) = token {
        request.headers_mut().insert("Authorization", format!("Bearer {token}").parse().unwrap());
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok((mut socket, _)) => {
            socket.close(None).await.unwrap();
            while let Ok(Some(Ok(_))) = tokio::time::timeout(PATIENCE, socket.next()).await {}
            (200, Value::Null)
        }
        Err(WsError::Http(response)) => {
            let body = response.body().as_deref().map(|b| serde_json::from_slice(b).unwrap()).unwrap_or(Value::Null);
            (response.status().as_u16(), body)
        }
        Err(e) => panic!("the control websocket failed: {e}"),
    }
}

/// Joins `lab` as `name`: the session token and the user id.
async fn join(server: &TestServer, lab: &str, code: &str, name: &str) -> (String, UserId) {
    let body = json!({ "join_code": code, "name": name });
    let (status, reply) = send(server.http.post(server.url(&format!("/api/labs/{lab}/join"))).json(&body), None).await;
    assert_eq!(status, 200, "{reply}");
    (reply["token"].as_str().unwrap().to_owned(), reply["user"]["id"].as_u64().unwrap() as UserId)
}

// ---------------------------------------------------------------------------------------
// What a walk finds.

/// Every cell a walk checked, and each answer that differs from the table, tagged
/// `[status]` (allowed when it should be refused, or the reverse, or 401 for 403) or
/// `[message]` (refused rightly, in other words than `Denial::explain`).
#[derive(Default)]
struct Findings {
    checked: HashSet<(Action, Standing)>,
    answers: usize,
    differences: Vec<String>,
}

/// One cell as a walk meets it: an action, a standing, the robot (robot actions), and
/// what was done, by whom.
struct Cell<'a> {
    action: Action,
    standing: Standing,
    robot: Option<&'a str>,
    what: String,
}

impl Cell<'_> {
    fn allowed(&self) -> bool {
        expected(self.action, self.standing)
    }

    /// The refusal the table gives: 401 or 403, and its sentence.
    fn refusal(&self) -> (bool, String) {
        let denial = self.action.check(self.standing).expect_err("the table refuses what the grid refuses");
        (denial.is_unauthenticated(), denial.explain(self.action, self.robot))
    }

    fn label(&self) -> String {
        format!("{:?} × {} ({})", self.action, self.standing.name(), self.what)
    }
}

impl Findings {
    /// An HTTP answer: 2xx when allowed; else 401 or 403 with the table's sentence.
    fn http(&mut self, cell: Cell<'_>, status: u16, body: &Value) {
        self.checked.insert((cell.action, cell.standing));
        self.answers += 1;
        if cell.allowed() {
            if !(200..300).contains(&status) {
                self.differences.push(format!("[status] {}: allowed, but answered {status} {body}", cell.label()));
            }
            return;
        }
        let (unauthenticated, sentence) = cell.refusal();
        let want = if unauthenticated { 401 } else { 403 };
        if status != want {
            self.differences.push(format!("[status] {}: expected {want}, got {status} {body}", cell.label()));
            return;
        }
        let message = body["error"]["message"].as_str().unwrap_or_default();
        if message != sentence {
            self.differences.push(format!("[message] {}: expected \"{sentence}\", got \"{message}\"", cell.label()));
        }
    }

    /// A read whose data shows only to whom the table allows it.
    fn shown(&mut self, cell: Cell<'_>, present: bool) {
        self.checked.insert((cell.action, cell.standing));
        self.answers += 1;
        if present != cell.allowed() {
            let (want, got) = if present { ("absent", "present") } else { ("present", "absent") };
            self.differences.push(format!("[status] {}: expected the data {want}, it is {got}", cell.label()));
        }
    }

    /// A websocket request's outcome: done when allowed; else an `Error` with
    /// `Unauthorized` or `Forbidden` and the table's sentence.
    fn websocket(&mut self, cell: Cell<'_>, outcome: Outcome) {
        self.checked.insert((cell.action, cell.standing));
        self.answers += 1;
        if cell.allowed() {
            match outcome {
                Outcome::Done => {}
                Outcome::Refused(body) => self.differences.push(format!(
                    "[status] {}: allowed, but refused with {:?}: {}",
                    cell.label(),
                    body.code,
                    body.message
                )),
                Outcome::Silent => {
                    self.differences.push(format!("[status] {}: allowed, but it did not happen", cell.label()))
                }
            }
            return;
        }
        let (unauthenticated, sentence) = cell.refusal();
        let want = if unauthenticated { ErrorCode::Unauthorized } else { ErrorCode::Forbidden };
        match outcome {
            Outcome::Done => {
                self.differences.push(format!("[status] {}: expected {want:?}, it was done", cell.label()))
            }
            Outcome::Silent => {
                self.differences.push(format!("[status] {}: expected {want:?}, nothing came back", cell.label()))
            }
            Outcome::Refused(body) if body.code != want => self.differences.push(format!(
                "[status] {}: expected {want:?}, got {:?}: {}",
                cell.label(),
                body.code,
                body.message
            )),
            Outcome::Refused(body) if body.message != sentence => self.differences.push(format!(
                "[message] {}: expected \"{sentence}\", got \"{}\"",
                cell.label(),
                body.message
            )),
            Outcome::Refused(_) => {}
        }
    }

    /// The walk reached every `(action, standing)` it must, and found nothing amiss.
    fn assert_matches_the_table(self, actions: &[Action], transport: &str) {
        for action in actions {
            let standings: &[Standing] = match action.scope() {
                Scope::Robot | Scope::Hand => &Standing::ALL,
                // Toward the lab (or the class) nobody stands as an owner.
                Scope::Lab | Scope::Class => &[Standing::Instructor, Standing::Student, Standing::Anonymous],
            };
            for standing in standings {
                assert!(self.checked.contains(&(*action, *standing)), "the walk missed {action:?} × {standing:?}");
            }
        }
        eprintln!(
            "{transport}: {} answers checked over {} cells, {} differ",
            self.answers,
            self.checked.len(),
            self.differences.len()
        );
        assert!(
            self.differences.is_empty(),
            "{} answers over {transport} differ from the table:\n{}",
            self.differences.len(),
            self.differences.join("\n")
        );
    }
}

// ---------------------------------------------------------------------------------------
// Over HTTP.

#[tokio::test]
async fn every_action_over_http_answers_as_the_permission_table_says() {
    let class = class().await;
    let mut findings = Findings::default();
    lab_actions_over_http(&class, &mut findings).await;
    objects_over_http(&class, &mut findings).await;
    close_lab_over_http(&class, &mut findings).await;
    // A challenge to try robots at (docs/challenges.md), short enough that every
    // attempt is over before the next is asked for.
    let challenge =
        r#"challenge "walk" { time_limit 0.05; zone z { box(1, 1, 1); pos(1, 0, 1); } success inside(z); }"#;
    let url = class.server.url("/api/labs/demo/scene");
    let (status, body) = send(class.server.http.post(url).body(challenge), Some(TOKEN)).await;
    assert_eq!(status, 200, "the challenge goes in: {body}");
    for bot in &class.bots {
        robot_actions_over_http(&class, bot, &mut findings).await;
    }
    board_rows_over_http(&class, &mut findings).await;
    // Stopping (a run or none): starting one would reset the lab under the walk.
    for person in &class.people {
        let url = class.server.url("/api/labs/demo/challenge/run");
        let (status, body) = send(class.server.http.post(url).body(r#"{"action":"stop"}"#), person.token()).await;
        let cell = Cell {
            action: Action::RunChallenge,
            standing: person.in_lab(),
            robot: None,
            what: format!("POST challenge/run as {}", person.name),
        };
        findings.http(cell, status, &body);
    }
    // Keys and beliefs travel over the websocket only (beliefs: program_beliefs.rs, with
    // a Python program that publishes one, each standing); a class's actions are walked
    // with a class (courses.rs).
    let actions: Vec<Action> = Action::ALL
        .into_iter()
        .filter(|a| !matches!(a, Action::SendKeys | Action::SeeBelief))
        .filter(|a| matches!(a.scope(), Scope::Lab | Scope::Robot))
        .collect();
    findings.assert_matches_the_table(&actions, "HTTP");
}

/// Objects from everyone: adding one (students while the instructor lets them), and
/// removing a student's, the instructor's and the lab's own, by each caller.
async fn objects_over_http(class: &Class, findings: &mut Findings) {
    let server = &class.server;
    let lab = |tail: &str| server.url(&format!("/api/labs/demo{tail}"));
    let (status, body) =
        send(server.http.patch(lab("/settings")).json(&json!({"students_add_objects": true})), Some(TOKEN)).await;
    assert_eq!(status, 200, "{body}");
    for person in &class.people {
        let ball = json!({ "palette": "ball" });
        let (status, body) = send(server.http.post(lab("/objects")).json(&ball), person.token()).await;
        let cell = Cell {
            action: Action::AddObject,
            standing: person.in_lab(),
            robot: None,
            what: format!("POST objects ball as {}", person.name),
        };
        findings.http(cell, status, &body);
    }
    let owners = [("ana", Some(&class.people[ANA])), ("teacher", Some(&class.people[INSTRUCTOR])), ("scene", None)];
    for (kind, owner) in owners {
        for (n, person) in class.people.iter().enumerate() {
            let name = format!("{kind}_thing_{n}");
            let (status, body) = match owner {
                Some(owner) => {
                    let item = json!({ "palette": "box", "name": name });
                    send(server.http.post(lab("/objects")).json(&item), owner.token()).await
                }
                None => {
                    let scene = format!("{name} {{ shape sphere(0.05); pos({}, 2, 9.5); }}", 1.0 + n as f32 * 0.2);
                    send(server.http.post(lab("/scene")).body(scene), Some(TOKEN)).await
                }
            };
            assert_eq!(status, 200, "{name} goes in: {body}");
            let standing = Standing::toward_robot(person.role, person.id, owner.and_then(|o| o.id));
            let (status, body) = send(server.http.delete(lab(&format!("/objects/{name}"))), person.token()).await;
            let cell = Cell {
                action: Action::RemoveObject,
                standing,
                robot: Some(&name),
                what: format!("DELETE objects/{name} as {}", person.name),
            };
            findings.http(cell, status, &body);
        }
    }
}

/// The lab's own business, by each caller (standing toward the lab).
async fn lab_actions_over_http(class: &Class, findings: &mut Findings) {
    let server = &class.server;
    let http = &server.http;
    let lab = |tail: &str| server.url(&format!("/api/labs/demo{tail}"));
    recorded(server).await;
    for (i, person) in class.people.iter().enumerate() {
        let standing = person.in_lab();
        let cell = |action: Action, what: &str| Cell {
            action,
            standing,
            robot: None,
            what: format!("{what} as {}", person.name),
        };
        let token = person.token();

        // Watch: the lab, its people, every robot's report.
        let mut reads =
            vec![("GET /api/labs/demo".to_owned(), lab("")), ("GET participants".into(), lab("/participants"))];
        reads.extend(class.bots.iter().map(|bot| (format!("GET robot {}", bot.name), class.robot_url(bot.name, ""))));
        for (what, url) in reads {
            let (status, body) = send(http.get(url), token).await;
            findings.http(cell(Action::Watch, &what), status, &body);
        }

        let (status, body) = send(http.get(lab("")), token).await;
        assert_eq!(status, 200, "{body}");
        findings.shown(cell(Action::SeeJoinCode, "GET /api/labs/demo: join_code"), body.get("join_code").is_some());

        let (status, body) = send(http.post(lab("/control")).body(r#"{"action":"pause"}"#), token).await;
        findings.http(cell(Action::ControlTime, "POST control pause"), status, &body);

        let (status, body) = send(http.patch(lab("/settings")).body(r#"{"robot_quota":5}"#), token).await;
        findings.http(cell(Action::ChangeSettings, "PATCH settings"), status, &body);

        let notice = json!({ "message": format!("hello from {}", person.name) });
        let (status, body) = send(http.post(lab("/broadcast")).json(&notice), token).await;
        findings.http(cell(Action::SendNotice, "POST broadcast"), status, &body);

        let crate_body = format!("crate_{i} {{ shape box(0.1, 0.1, 0.1); pos({}, 1, 9); }}", 2 + i);
        let (status, body) = send(http.post(lab("/scene")).body(crate_body), token).await;
        findings.http(cell(Action::InsertScene, &format!("POST scene crate_{i}")), status, &body);

        // The room's floor in the material it has: a change that leaves everything standing.
        let (status, body) = send(http.patch(lab("/environment")).json(&json!({ "ground": "Tiles" })), token).await;
        findings.http(cell(Action::ChangeEnvironment, "PATCH environment"), status, &body);
        // A participant to remove: a student who joins with the lab's code as it is now.
        let (_, code) = send(http.get(lab("")), Some(TOKEN)).await;
        let code = code["join_code"].as_str().unwrap().to_owned();
        let (_, victim) = join(server, "demo", &code, &format!("Visitor {i}")).await;
        let (status, body) = send(http.delete(lab(&format!("/participants/{victim}"))), token).await;
        findings.http(cell(Action::RemoveParticipant, &format!("DELETE participants/{victim}")), status, &body);

        for file in ["/recording.csv", "/recording.mcap"] {
            let (status, body) = send(http.get(lab(file)), token).await;
            findings.http(cell(Action::ExportRecording, &format!("GET {file}")), status, &body);
        }

        let (status, body) = send(http.get(lab("/scene.vlab")), token).await;
        findings.http(cell(Action::SaveScene, "GET scene.vlab"), status, &body);
        if (200..300).contains(&status) {
            assert!(body.as_str().is_some_and(|text| text.contains("robot rover_red")), "the lab's robots: {body}");
        }
        let (status, body) = send(http.get(lab("/scene.zip")), token).await;
        findings.http(cell(Action::SaveScene, "GET scene.zip"), status, &body);

        let (status, body) = send(http.post(lab("/join-code")), token).await;
        findings.http(cell(Action::ChangeJoinCode, "POST join-code"), status, &body);
        if (200..300).contains(&status) {
            assert_ne!(body["join_code"].as_str(), Some(code.as_str()), "a new code: {body}");
        }

        let added = format!("added_{i}");
        let (status, body) =
            send(http.post(lab("/robots")).body(robot(&added, 2.0 + 2.0 * i as f64, 6.0)), token).await;
        findings.http(cell(Action::AddRobot, &format!("POST robots {added}")), status, &body);
    }
}

/// Steps the lab a little and waits until its recording keeps those steps, so that
/// an export allowed has something to export.
async fn recorded(server: &TestServer) {
    let state = server.control("demo", ControlAction::Step { steps: 10 }).await;
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let (status, summary) = server.get_json("/api/labs/demo/recording").await;
        assert_eq!(status, 200, "{summary}");
        if summary["last_step"].as_u64() >= Some(state.step) {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "the recording never kept step {}: {summary}", state.step);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Closing a lab, each caller on a lab created for them.
async fn close_lab_over_http(class: &Class, findings: &mut Findings) {
    let server = &class.server;
    for person in &class.people {
        let create = json!({ "name": format!("Closed by {}", person.name) });
        let (status, created) = send(server.http.post(server.url("/api/labs")).json(&create), Some(TOKEN)).await;
        assert_eq!(status, 201, "{created}");
        let id = created["id"].as_str().unwrap().to_owned();
        let instructor = created["instructor_token"].as_str().unwrap().to_owned();
        let token = match person.role {
            Role::Instructor => Some(instructor.clone()),
            Role::Student => Some(join(server, &id, created["join_code"].as_str().unwrap(), person.name).await.0),
            Role::Viewer => None,
        };
        let (status, body) = send(server.http.delete(server.url(&format!("/api/labs/{id}"))), token.as_deref()).await;
        let cell = Cell {
            action: Action::CloseLab,
            standing: person.in_lab(),
            robot: None,
            what: format!("DELETE /api/labs/{id} as {}", person.name),
        };
        findings.http(cell, status, &body);
        // Tidy up what a refusal left open.
        let (open, _) = send(server.http.get(server.url(&format!("/api/labs/{id}"))), None).await;
        if open == 200 {
            send(server.http.delete(server.url(&format!("/api/labs/{id}"))), Some(&instructor)).await;
        }
    }
}

/// The challenge board's rows as each caller sees them, once the attempts of the robot
/// walk are over: each robot's owner has a row (the lab's own robots' is the
/// instructor's), shown to whom the table allows.
async fn board_rows_over_http(class: &Class, findings: &mut Findings) {
    let http = &class.server.http;
    let deadline = tokio::time::Instant::now() + PATIENCE * 3;
    loop {
        let (status, attempts) = send(http.get(class.server.url("/api/labs/demo/attempts")), Some(TOKEN)).await;
        assert_eq!(status, 200, "{attempts}");
        let open =
            attempts.as_array().unwrap().iter().any(|a| matches!(a["status"].as_str(), Some("queued" | "running")));
        if !open {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "the walk's attempts never ended: {attempts}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for person in &class.people {
        let (status, board) = send(http.get(class.server.url("/api/labs/demo/challenge")), person.token()).await;
        assert_eq!(status, 200, "{board}");
        let users: HashSet<u64> =
            board["rows"].as_array().unwrap().iter().filter_map(|row| row["user"].as_u64()).collect();
        for bot in &class.bots {
            let owner = bot.owner.unwrap_or(INSTRUCTOR_ID);
            let cell = Cell {
                action: Action::SeeBoardRow,
                standing: person.toward(bot),
                robot: Some(bot.name),
                what: format!("GET challenge: the row of {}'s owner as {}", bot.name, person.name),
            };
            findings.shown(cell, users.contains(&u64::from(owner)));
        }
    }
}

/// The robot actions of `bot`, by each caller (standing toward `bot`). Removing comes
/// last, and the refused callers try first, so the robot is there for each of them.
async fn robot_actions_over_http(class: &Class, bot: &Bot, findings: &mut Findings) {
    let http = &class.server.http;
    let url = |tail: &str| class.robot_url(bot.name, tail);
    let actions = [
        Action::DriveRobot,
        Action::ResetRobot,
        Action::SetStart,
        // Where it stands now, so that an allowed move always fits.
        Action::MoveObject,
        Action::ReadConsole,
        Action::ReadProgram,
        Action::ReplaceProgram,
        Action::RunProgram,
        Action::ExportRobotRecording,
        // The demo lab sets no challenge: whoever may try gets 409, the others 401/403.
        Action::Attempt,
        // After RunProgram, whose last request stops the program: a running program
        // would (rightly) refuse a controller with 409 whoever asks.
        Action::AttachController,
        Action::RemoveRobot,
    ];
    for action in actions {
        let mut people: Vec<&Person> = class.people.iter().collect();
        people.sort_by_key(|person| expected(action, person.toward(bot)));
        for person in people {
            let standing = person.toward(bot);
            let token = person.token();
            let cell = |what: &str| Cell {
                action,
                standing,
                robot: Some(bot.name),
                what: format!("{what} {} as {}", bot.name, person.name),
            };
            if !class.ensure_present(bot).await {
                findings.differences.push(format!(
                    "[status] {}: {} was already removed by a request the table refuses",
                    cell("(cannot check)").label(),
                    bot.name
                ));
                continue;
            }
            let requests: Vec<(&str, RequestBuilder)> = match action {
                Action::DriveRobot => {
                    vec![("POST actuators", http.post(url("/actuators")).body(r#"{"motor_0":{"speed":1}}"#))]
                }
                Action::ResetRobot => vec![("POST reset", http.post(url("/reset")))],
                Action::SetStart => {
                    // Where it stands now, as the page's "Start here" sends it.
                    let (_, report) = send(http.get(url("")), None).await;
                    let start = json!({ "position": report["pose"]["position"], "heading": report["pose"]["heading"] });
                    vec![("POST start", http.post(url("/start")).json(&start))]
                }
                Action::MoveObject => {
                    let (_, report) = send(http.get(url("")), None).await;
                    let to = json!({ "position": report["pose"]["position"], "heading": report["pose"]["heading"] });
                    let path = format!("/api/labs/demo/objects/{}/move", bot.name);
                    vec![("POST objects/move", http.post(class.server.url(&path)).json(&to))]
                }
                Action::ReadProgram => vec![("GET program", http.get(url("/program")))],
                Action::ReplaceProgram => vec![("PUT program", http.put(url("/program")).multipart(tick_form()))],
                Action::RunProgram => vec![
                    ("POST program/restart", http.post(url("/program/restart"))),
                    ("POST program/stop", http.post(url("/program/stop"))),
                ],
                Action::ExportRobotRecording => vec![
                    ("GET readings.csv", http.get(url("/readings.csv"))),
                    ("GET recording.mcap", http.get(url("/recording.mcap"))),
                ],
                Action::RemoveRobot => vec![("DELETE", http.delete(url("")))],
                Action::Attempt => vec![("POST attempts", http.post(url("/attempts")))],
                Action::AttachController => {
                    let (status, body) = attach_controller(&class.server, bot.name, token).await;
                    findings.http(cell("GET control websocket of"), status, &body);
                    continue;
                }
                Action::ReadConsole => {
                    let (status, report) = send(http.get(url("")), token).await;
                    assert_eq!(status, 200, "{report}");
                    findings.shown(cell("GET robot report: console of"), report.get("console").is_some());
                    continue;
                }
                other => unreachable!("{other:?} is not a robot action with an HTTP request"),
            };
            for (what, request) in requests {
                let (status, body) = send(request, token).await;
                if action == Action::ReadProgram && expected(action, standing) && status == 200 {
                    assert_eq!(body["main"], "tick.wasm", "the program read back: {body}");
                }
                findings.http(cell(what), status, &body);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Over the websocket: time control, keys, watching robots, console lines.

/// What came back for a websocket request.
enum Outcome {
    /// What was asked happened (a `State`, a `Robot` report showing it).
    Done,
    /// An `Error`.
    Refused(ErrorBody),
    /// Nothing within the wait.
    Silent,
}

/// Reads until an `Error`, or a message `done` accepts (silence: `PATIENCE`).
async fn outcome(client: &mut Client, done: impl Fn(&ServerMsg) -> bool) -> Outcome {
    let wait = client.until(|received| match received {
        Received::Json(ServerMsg::Error(body)) => Some(Outcome::Refused(body.clone())),
        Received::Json(message) if done(message) => Some(Outcome::Done),
        _ => None,
    });
    tokio::time::timeout(PATIENCE, wait).await.unwrap_or(Outcome::Silent)
}

fn report_of<'a>(message: &'a ServerMsg, robot: &str) -> Option<&'a vlab_protocol::RobotReport> {
    match message {
        ServerMsg::Robot(report) if report.name == robot => Some(report),
        _ => None,
    }
}

#[tokio::test]
async fn every_websocket_action_answers_as_the_permission_table_says() {
    let class = class().await;
    let mut clients = Vec::new();
    for person in &class.people {
        let mut client = class.server.connect("demo", person.token()).await;
        client.join_sequence().await;
        clients.push(client);
    }
    let mut findings = Findings::default();

    // Watch: everybody subscribes to every robot and gets its report.
    for (person, client) in class.people.iter().zip(&mut clients) {
        for bot in &class.bots {
            client.send(&ClientMsg::Subscribe { robot: bot.name.into() }).await;
            let got = outcome(client, |m| report_of(m, bot.name).is_some()).await;
            let what = format!("subscribe to {} as {}", bot.name, person.name);
            findings.websocket(Cell { action: Action::Watch, standing: person.in_lab(), robot: None, what }, got);
        }
    }

    // ControlTime: a step of one.
    for (person, client) in class.people.iter().zip(&mut clients) {
        let before = class.server.lab_state("demo").await["step"].as_u64().unwrap();
        client.send(&ClientMsg::Control { command: ControlAction::Step { steps: 1 } }).await;
        let got = outcome(client, |m| matches!(m, ServerMsg::State(s) if s.step > before)).await;
        let what = format!("control step as {}", person.name);
        findings.websocket(Cell { action: Action::ControlTime, standing: person.in_lab(), robot: None, what }, got);
    }

    // SendKeys: each caller holds a key of their own for each robot; the report shows it.
    for bot in &class.bots {
        for ((person, client), key) in class.people.iter().zip(&mut clients).zip(["I", "J", "K", "L"]) {
            client.send(&ClientMsg::Keys { robot: bot.name.into(), keys: vec![key.into()] }).await;
            let got = outcome(client, |m| report_of(m, bot.name).is_some_and(|r| r.keys == [key])).await;
            let done = matches!(got, Outcome::Done);
            let what = format!("keys [{key}] for {} as {}", bot.name, person.name);
            let cell = Cell { action: Action::SendKeys, standing: person.toward(bot), robot: Some(bot.name), what };
            findings.websocket(cell, got);
            if done {
                client.send(&ClientMsg::Keys { robot: bot.name.into(), keys: vec![] }).await;
                outcome(client, |m| report_of(m, bot.name).is_some_and(|r| r.keys.is_empty())).await;
            }
        }
    }

    // MoveObject: each caller places each robot where it stands (websocket `place`).
    for bot in &class.bots {
        for (id, (person, client)) in (1u32..).zip(class.people.iter().zip(&mut clients)) {
            let (_, report) = send(class.server.http.get(class.robot_url(bot.name, "")), None).await;
            let p = &report["pose"]["position"];
            let position = [0, 1, 2].map(|k| p[k].as_f64().unwrap() as f32);
            let heading = report["pose"]["heading"].as_f64().map(|h| h as f32);
            client.send(&ClientMsg::Place { id, name: bot.name.into(), position, heading }).await;
            let wait = client.until(|received| match received {
                Received::Json(ServerMsg::Placed { id: got, .. }) if *got == id => Some(Outcome::Done),
                Received::Json(ServerMsg::PlaceRefused { id: got, error, .. }) if *got == id => {
                    Some(Outcome::Refused(error.clone()))
                }
                _ => None,
            });
            let got = tokio::time::timeout(PATIENCE, wait).await.unwrap_or(Outcome::Silent);
            let what = format!("place {} as {}", bot.name, person.name);
            let cell = Cell { action: Action::MoveObject, standing: person.toward(bot), robot: Some(bot.name), what };
            findings.websocket(cell, got);
        }
    }

    // ReadConsole: the programs log every control step; each page receives the lines of
    // the robots the table lets it read, and no others.
    class.server.control("demo", ControlAction::Step { steps: 50 }).await;
    for (person, client) in class.people.iter().zip(&mut clients) {
        let readable = class.bots.iter().filter(|bot| expected(Action::ReadConsole, person.toward(bot)));
        let heard = console_robots(client, readable.map(|bot| bot.name).collect()).await;
        for bot in &class.bots {
            let what = format!("console lines of {} to {}", bot.name, person.name);
            let cell = Cell { action: Action::ReadConsole, standing: person.toward(bot), robot: Some(bot.name), what };
            findings.shown(cell, heard.contains(bot.name));
        }
    }
    findings.assert_matches_the_table(
        &[Action::Watch, Action::ControlTime, Action::SendKeys, Action::MoveObject, Action::ReadConsole],
        "the websocket",
    );
}

/// The robots whose console lines reached `client`: read until those of `awaited` have
/// all come (or `PATIENCE` passed), then until the page has been quiet a while.
async fn console_robots(client: &mut Client, awaited: BTreeSet<&str>) -> BTreeSet<String> {
    let mut heard = BTreeSet::new();
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        let all_in = awaited.iter().all(|robot| heard.contains(*robot));
        let now = tokio::time::Instant::now();
        if now >= deadline {
            return heard;
        }
        let wait = if all_in { Duration::from_millis(1000) } else { deadline - now };
        match tokio::time::timeout(wait, client.next()).await {
            Ok(Received::Json(ServerMsg::Console { robot, lines })) if !lines.is_empty() => {
                heard.insert(robot);
            }
            Ok(Received::Closed(code)) => panic!("closed ({code:?})"),
            Ok(_) => {}
            Err(_) => return heard,
        }
    }
}
