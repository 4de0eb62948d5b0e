//! A course over real HTTP and websockets: a class created with the server key, its
//! roster (students added by the teacher with a PIN and a one-time link, or joining with
//! the PIN they choose), wrong PINs held back, renames, PIN resets and removals, lessons
//! of the class entered without a join code as the same participant each time, the
//! teacher's overview, the class's rows of the permission table, and a class kept across
//! a kill of the real server.

use crate::common;

use common::{TOKEN, TestServer};
use serde_json::{Value, json};
use vlab_protocol::permissions::{Action, Denial, Standing};

/// A class on a test server: its id, code and teacher token.
struct Class {
    id: String,
    code: String,
    teacher: String,
}

async fn send(request: reqwest::RequestBuilder, token: Option<&str>) -> (u16, Value) {
    let request = match token {
        Some(token) => request.bearer_auth(token),
        None => request,
    };
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

async fn create_class(server: &TestServer, name: &str) -> Class {
    let request = server.http.post(server.url("/api/classes")).json(&json!({ "name": name }));
    let (status, created) = send(request, Some(TOKEN)).await;
    assert_eq!(status, 201, "{created}");
    Class {
        id: created["id"].as_str().unwrap().into(),
        code: created["class_code"].as_str().unwrap().into(),
        teacher: created["teacher_token"].as_str().unwrap().into(),
    }
}

/// Adds `name` to the roster: her credentials (student, pin, sign_in_path).
async fn add_student(server: &TestServer, class: &Class, name: &str) -> Value {
    let url = server.url(&format!("/api/classes/{}/students", class.id));
    let (status, added) = send(server.http.post(url).json(&json!({ "name": name })), Some(&class.teacher)).await;
    assert_eq!(status, 201, "{added}");
    added
}

async fn sign_in(server: &TestServer, body: Value) -> (u16, Value) {
    send(server.http.post(server.url("/api/classes/sign-in")).json(&body), None).await
}

/// Signs `name` in with `pin`: her class token.
async fn signed_in(server: &TestServer, class: &Class, name: &str, pin: &str) -> String {
    let (status, session) = sign_in(server, json!({ "class_code": class.code, "name": name, "pin": pin })).await;
    assert_eq!(status, 200, "{session}");
    session["token"].as_str().unwrap().to_owned()
}

/// POSTs `body` to `url` as the bearer of `token`: the answer's JSON.
async fn post(http: &reqwest::Client, url: String, token: Option<&str>, body: Value) -> Value {
    send(http.post(url).json(&body), token).await.1
}

async fn get(server: &TestServer, path: &str, token: Option<&str>) -> (u16, Value) {
    send(server.http.get(server.url(path)), token).await
}

#[tokio::test]
async fn a_roster_signs_in_by_pin_or_a_one_time_link() {
    let server = TestServer::start(false).await;
    let (status, refused) = send(server.http.post(server.url("/api/classes")).json(&json!({"name": "2B"})), None).await;
    assert_eq!(status, 401, "{refused}");
    assert!(
        refused["error"]["message"].as_str().unwrap().contains("creating a class needs the server's key"),
        "{refused}"
    );
    let class = create_class(&server, "Robotics 2B").await;
    assert!(class.id.starts_with("robotics-2b-"), "{}", class.id);

    // The teacher adds Ana: her PIN and link are shown this once.
    let ana = add_student(&server, &class, "Ana").await;
    let pin = ana["pin"].as_str().unwrap();
    assert!(vlab_protocol::valid_pin(pin), "{ana}");
    let link_path = ana["sign_in_path"].as_str().unwrap();
    let link = link_path.split("link=").nth(1).unwrap();
    let ana_token = signed_in(&server, &class, "ana", pin).await;
    let (_, seen) = get(&server, &format!("/api/classes/{}", class.id), Some(&ana_token)).await;
    assert_eq!((seen["you"]["name"].as_str(), seen["teacher"].as_bool()), (Some("Ana"), Some(false)), "{seen}");
    assert!(seen.get("class_code").is_none(), "the code is the teacher's: {seen}");

    // A wrong PIN, then the link (once).
    let other = if pin == "000000" { "111111" } else { "000000" };
    let (status, wrong) = sign_in(&server, json!({"class_code": class.code, "name": "Ana", "pin": other})).await;
    assert_eq!(status, 401, "{wrong}");
    assert!(wrong["error"]["message"].as_str().unwrap().contains("wrong PIN for 'Ana'"), "{wrong}");
    let (status, by_link) = sign_in(&server, json!({ "link": link })).await;
    assert_eq!((status, by_link["student"]["name"].as_str()), (200, Some("Ana")), "{by_link}");
    let (status, again) = sign_in(&server, json!({ "link": link })).await;
    assert_eq!(status, 401, "a link signs in once: {again}");
    assert!(again["error"]["message"].as_str().unwrap().contains("used already"), "{again}");

    // Bea joins with the PIN she chooses; then that PIN is hers.
    let bea_token = signed_in(&server, &class, "Bea", "2468").await;
    assert_ne!(bea_token, ana_token);
    let (status, _) = sign_in(&server, json!({"class_code": class.code, "name": "BEA", "pin": "1357"})).await;
    assert_eq!(status, 401, "her PIN stands");
    signed_in(&server, &class, "bea", "2468").await;

    // Bad input changes nothing and says why.
    let (status, short) = sign_in(&server, json!({"class_code": class.code, "name": "Cai", "pin": "12"})).await;
    assert_eq!(status, 422, "{short}");
    assert!(short["error"]["message"].as_str().unwrap().contains("4 to 8 digits"), "{short}");
    let (status, unknown) = sign_in(&server, json!({"class_code": "NOPE2345", "name": "Cai", "pin": "1234"})).await;
    assert_eq!(status, 404, "{unknown}");
    let url = server.url(&format!("/api/classes/{}/students", class.id));
    let (status, twin) = send(server.http.post(url.clone()).json(&json!({"name": "ana"})), Some(&class.teacher)).await;
    assert_eq!(status, 409, "{twin}");

    // The roster, a rename, and who may read it.
    let (status, roster) = get(&server, &format!("/api/classes/{}/students", class.id), Some(&class.teacher)).await;
    assert_eq!(status, 200);
    let names: Vec<&str> = roster.as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Ana", "Bea"]);
    assert!(roster[0]["signed_in"].as_bool().unwrap());
    let bea_id = roster[1]["id"].as_u64().unwrap();
    let rename = server.http.patch(format!("{url}/{bea_id}")).json(&json!({"name": "Beatriz"}));
    let (status, renamed) = send(rename, Some(&class.teacher)).await;
    assert_eq!((status, renamed["name"].as_str()), (200, Some("Beatriz")), "{renamed}");
    let (status, denied) = get(&server, &format!("/api/classes/{}/students", class.id), Some(&ana_token)).await;
    assert_eq!(status, 403, "{denied}");
    let (status, _) = get(&server, &format!("/api/classes/{}", class.id), Some("not-a-session")).await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn five_wrong_pins_make_that_name_wait_and_a_reset_signs_her_out() {
    let server = TestServer::start(false).await;
    let class = create_class(&server, "Lockout").await;
    let ana = add_student(&server, &class, "Ana").await;
    let pin = ana["pin"].as_str().unwrap().to_owned();
    let wrong = if pin == "99999999" { "11111111" } else { "99999999" };
    let ana_token = signed_in(&server, &class, "Ana", &pin).await;
    for _ in 0..5 {
        let (status, _) = sign_in(&server, json!({"class_code": class.code, "name": "Ana", "pin": wrong})).await;
        assert_eq!(status, 401);
    }
    let request = server.http.post(server.url("/api/classes/sign-in"));
    let response = request.json(&json!({"class_code": class.code, "name": "Ana", "pin": pin})).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 429, "even her right PIN waits");
    assert!(response.headers().get("retry-after").is_some());
    signed_in(&server, &class, "Bob", "1234").await;

    // The teacher resets her PIN: her old session ends, the new PIN works at once.
    let id = ana["student"]["id"].as_u64().unwrap();
    let url = server.url(&format!("/api/classes/{}/students/{id}/reset", class.id));
    let (status, reset) = send(server.http.post(url), Some(&class.teacher)).await;
    assert_eq!(status, 200, "{reset}");
    let (status, _) = get(&server, &format!("/api/classes/{}", class.id), Some(&ana_token)).await;
    assert_eq!(status, 401, "a reset signs her out");
    signed_in(&server, &class, "Ana", reset["pin"].as_str().unwrap()).await;
}

#[tokio::test]
async fn a_student_enters_every_lesson_as_herself_and_a_removed_one_loses_access() {
    let server = TestServer::start(false).await;
    let class = create_class(&server, "Lessons").await;
    let url = server.url(&format!("/api/classes/{}/labs", class.id));
    let (status, lesson) =
        send(server.http.post(url.clone()).json(&json!({"name": "Week 1", "scene": "diffbot"})), Some(&class.teacher))
            .await;
    assert_eq!(status, 201, "{lesson}");
    let lab = lesson["id"].as_str().unwrap().to_owned();
    assert_eq!(lesson["instructor_token"].as_str(), Some(class.teacher.as_str()), "one token runs the course");
    let ana_token = signed_in(&server, &class, "Ana", "4821").await;
    let (status, refused) = send(server.http.post(url).json(&json!({"name": "Mine"})), Some(&ana_token)).await;
    assert_eq!(status, 403, "{refused}");

    // She sees the lesson and enters it, twice, as the same participant.
    let (_, seen) = get(&server, &format!("/api/classes/{}", class.id), Some(&ana_token)).await;
    assert_eq!(seen["labs"][0]["id"].as_str(), Some(lab.as_str()), "{seen}");
    let enter = server.url(&format!("/api/labs/{lab}/enter"));
    let (status, first) = send(server.http.post(enter.clone()), Some(&ana_token)).await;
    assert_eq!(status, 200, "{first}");
    let (_, second) = send(server.http.post(enter.clone()), Some(&ana_token)).await;
    assert_eq!(first["user"]["id"], second["user"]["id"]);
    assert_eq!(first["user"]["name"].as_str(), Some("Ana"));
    let on_phone = signed_in(&server, &class, "Ana", "4821").await;
    let (_, third) = send(server.http.post(enter.clone()), Some(&on_phone)).await;
    assert_eq!(third["user"]["id"], first["user"]["id"], "another machine, the same Ana");
    let (status, _) = send(server.http.post(enter.clone()), None).await;
    assert_eq!(status, 401);
    let (status, one_off) = send(server.http.post(server.url("/api/labs/demo/enter")), Some(&ana_token)).await;
    assert_eq!(status, 409, "the demo lab has no class: {one_off}");

    // Her class token is her token in the lab: she adds a robot, and her page connects.
    let robot = "include \"diffbot_robot.vlab\";\ncall diffbot(\"_ana\", 3.5, 1.0, 0);\n";
    let form = reqwest::multipart::Form::new()
        .part("description", reqwest::multipart::Part::text(robot).file_name("ana.vlab"));
    let upload = server.http.post(server.url(&format!("/api/labs/{lab}/robots"))).multipart(form);
    let (status, added) = send(upload, Some(&ana_token)).await;
    assert_eq!(status, 200, "{added}");
    let mut page = server.connect(&lab, Some(&ana_token)).await;
    let (welcome, ..) = page.join_sequence().await;
    assert!(format!("{welcome:?}").contains("Student"), "{welcome:?}");

    // The teacher's overview shows her, her robot and its program.
    let (status, overview) = get(&server, &format!("/api/classes/{}/overview", class.id), Some(&class.teacher)).await;
    assert_eq!(status, 200, "{overview}");
    let robots = overview["labs"][0]["robots"].as_array().unwrap();
    let hers = robots.iter().find(|r| r["owner"].as_str() == Some("Ana")).expect("her robot");
    assert_eq!(hers["program"].as_str(), Some("none"), "{hers}");
    let people = overview["labs"][0]["people"].as_array().unwrap();
    assert!(people.iter().any(|p| p["name"] == "Ana" && p["online"] == true), "{overview}");
    let (status, _) = get(&server, &format!("/api/classes/{}/overview", class.id), Some(&ana_token)).await;
    assert_eq!(status, 403);

    // Removed from the class: out of the lesson, her robot with her, every token dead.
    let roster = get(&server, &format!("/api/classes/{}/students", class.id), Some(&class.teacher)).await.1;
    let id = roster[0]["id"].as_u64().unwrap();
    let remove = server.http.delete(server.url(&format!("/api/classes/{}/students/{id}", class.id)));
    let (status, _) = send(remove, Some(&class.teacher)).await;
    assert_eq!(status, 204);
    for token in [&ana_token, &on_phone] {
        let (status, _) = send(server.http.post(enter.clone()), Some(token)).await;
        assert_eq!(status, 401, "a removed student's sessions end");
        let (status, _) = get(&server, &format!("/api/labs/{lab}/robots/diffbot_ana"), Some(token)).await;
        assert!(status == 401 || status == 404, "{status}");
    }
    let (_, summary) = get(&server, &format!("/api/labs/{lab}"), Some(&class.teacher)).await;
    assert!(!summary["robots"].as_array().unwrap().iter().any(|r| r.as_str() == Some("diffbot_ana")), "{summary}");
    let (status, _) = sign_in(&server, json!({"class_code": class.code, "name": "Ana", "pin": "4821"})).await;
    // Her name is free again: signing in with it joins a new student, not her.
    assert_eq!(status, 200);
    let (_, roster) = get(&server, &format!("/api/classes/{}/students", class.id), Some(&class.teacher)).await;
    assert_ne!(roster[0]["id"].as_u64(), Some(id), "{roster}");
}

/// The class's rows of the permission table that this file serves (classes, the roster,
/// lessons, the overview), by the teacher, a student and nobody; each refusal with the
/// table's sentence. Hand-ins and grades are walked with the assignments.
#[tokio::test]
async fn the_class_rows_of_the_permission_table_hold_over_http() {
    let server = TestServer::start(false).await;
    let class = create_class(&server, "Walk").await;
    let student = signed_in(&server, &class, "Ana", "4821").await;
    let lesson_url = server.url(&format!("/api/classes/{}/labs", class.id));
    let (_, lesson) =
        send(server.http.post(lesson_url.clone()).json(&json!({"name": "Lesson"})), Some(&class.teacher)).await;
    let lab = lesson["id"].as_str().unwrap().to_owned();
    let people = [
        (Standing::Instructor, Some(class.teacher.as_str())),
        (Standing::Student, Some(&student)),
        (Standing::Anonymous, None),
    ];
    let mut differences = Vec::new();
    for (standing, token) in people {
        let class_path = |tail: &str| server.url(&format!("/api/classes/{}{tail}", class.id));
        let cases: Vec<(Action, reqwest::RequestBuilder)> = vec![
            (Action::SeeClass, server.http.get(class_path(""))),
            (Action::ManageRoster, server.http.get(class_path("/students"))),
            (
                Action::ManageRoster,
                server.http.post(class_path("/students")).json(&json!({"name": format!("S{}", standing.name())})),
            ),
            (Action::ManageCourse, server.http.post(lesson_url.clone()).json(&json!({"name": "Another"}))),
            (Action::SeeOverview, server.http.get(class_path("/overview"))),
            (Action::EnterClassLab, server.http.post(server.url(&format!("/api/labs/{lab}/enter")))),
        ];
        for (action, request) in cases {
            let (status, body) = send(request, token).await;
            let allowed = action.allows(standing);
            let ok = if allowed {
                (200..300).contains(&status)
            } else {
                let denial = action.check(standing).unwrap_err();
                let expected = if denial.is_unauthenticated() { 401 } else { 403 };
                status == expected && body["error"]["message"].as_str() == Some(denial.explain(action, None).as_str())
            };
            if !ok {
                differences.push(format!("{action:?} × {}: {status} {body}", standing.name()));
            }
        }
    }
    assert!(differences.is_empty(), "the server differs from the table:\n{}", differences.join("\n"));
    assert_eq!(Action::SeeClass.check(Standing::Anonymous), Err(Denial::NeedsSession));
}

/// Classes, rosters, sessions and lessons are kept before they are answered: a kill of
/// the real server loses none of them.
#[tokio::test]
async fn a_class_outlives_a_kill_of_the_server() {
    use common::binary::VlabProcess;
    let dir = std::env::temp_dir().join(format!("vlab-course-restart-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("vlab.db");
    let key = "course-restart-key";
    let http = reqwest::Client::new();
    let first = VlabProcess::start(&db, &["--paused", "--instructor-token", key]);
    let created = post(&http, first.url("/api/classes"), Some(key), json!({"name": "Kept"})).await;
    let (id, code, teacher) = (
        created["id"].as_str().unwrap().to_owned(),
        created["class_code"].as_str().unwrap().to_owned(),
        created["teacher_token"].as_str().unwrap().to_owned(),
    );
    let ana_pin = json!({"class_code": code, "name": "Ana", "pin": "4821"});
    let session = post(&http, first.url("/api/classes/sign-in"), None, ana_pin.clone()).await;
    let ana = session["token"].as_str().unwrap().to_owned();
    let lesson =
        post(&http, first.url(&format!("/api/classes/{id}/labs")), Some(&teacher), json!({"name": "Week 1"})).await;
    let lab = lesson["id"].as_str().unwrap().to_owned();
    let entered = post(&http, first.url(&format!("/api/labs/{lab}/enter")), Some(&ana), json!({})).await;
    drop(first);

    let again = VlabProcess::start(&db, &["--paused", "--instructor-token", key]);
    let seen: Value = http
        .get(again.url(&format!("/api/classes/{id}")))
        .bearer_auth(&ana)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(seen["you"]["name"].as_str(), Some("Ana"), "her session survived: {seen}");
    assert_eq!(seen["labs"][0]["id"].as_str(), Some(lab.as_str()), "{seen}");
    let back = post(&http, again.url(&format!("/api/labs/{lab}/enter")), Some(&ana), json!({})).await;
    assert_eq!(back["user"]["id"], entered["user"]["id"], "the same participant: {back}");
    let paused =
        post(&http, again.url(&format!("/api/labs/{lab}/control")), Some(&teacher), json!({"action": "pause"})).await;
    assert_eq!(paused["mode"].as_str(), Some("paused"), "the teacher is still the lesson's instructor: {paused}");
    let signed = post(&http, again.url("/api/classes/sign-in"), None, ana_pin).await;
    assert!(signed["token"].is_string(), "her PIN survived: {signed}");
    drop(again);
    let _ = std::fs::remove_dir_all(&dir);
}
