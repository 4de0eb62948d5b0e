//! A course's assignments over real HTTP: a teacher gives a library challenge to her
//! class, students hand in programs (files or a robot's program), each submission is
//! evaluated over hidden trials through the attempt queue, the gradebook reads back as
//! JSON and CSV, and all of it outlives a restart of the real server.

use std::time::Duration;

use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use vlab_protocol::permissions::{Action, Denial};

use crate::common::{PATIENCE, TOKEN, TestServer, python_runs_here};

/// A program that never moves: the park challenge fails it after ten seconds.
pub(crate) const IDLE: &str = "from vlab import Robot\nrobot = Robot()\nwhile robot.step():\n    pass\n";

pub(crate) fn library(file: &str) -> String {
    std::fs::read_to_string(format!("{}/../scenes/challenges/{file}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The park challenge's reference solution, with the module it imports.
pub(crate) fn park_solution() -> Form {
    Form::new()
        .part("program", Part::text(library("park.py")).file_name("park.py"))
        .part("drive_to.py", Part::text(library("drive_to.py")).file_name("drive_to.py"))
}

fn program(text: &str) -> Form {
    Form::new().part("program", Part::text(text.to_owned()).file_name("main.py"))
}

/// A client of one server (in-process or the real binary), at `base`.
struct Api {
    http: reqwest::Client,
    base: String,
}

impl Api {
    fn of(server: &TestServer) -> Api {
        Api { http: server.http.clone(), base: server.url("") }
    }

    async fn answer(response: reqwest::Response) -> (u16, Value) {
        let status = response.status().as_u16();
        let text = response.text().await.unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
    }

    async fn get(&self, token: Option<&str>, path: &str) -> (u16, Value) {
        let mut request = self.http.get(format!("{}{path}", self.base));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        Api::answer(request.send().await.unwrap()).await
    }

    async fn send(&self, method: reqwest::Method, token: Option<&str>, path: &str, body: Value) -> (u16, Value) {
        let mut request = self.http.request(method, format!("{}{path}", self.base)).json(&body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        Api::answer(request.send().await.unwrap()).await
    }

    async fn post(&self, token: Option<&str>, path: &str, body: Value) -> (u16, Value) {
        self.send(reqwest::Method::POST, token, path, body).await
    }

    async fn patch(&self, token: Option<&str>, path: &str, body: Value) -> (u16, Value) {
        self.send(reqwest::Method::PATCH, token, path, body).await
    }

    async fn submit(&self, token: Option<&str>, class: &str, assignment: i64, form: Form) -> (u16, Value) {
        let mut request =
            self.http.post(format!("{}/api/classes/{class}/assignments/{assignment}/submissions", self.base));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        Api::answer(request.multipart(form).send().await.unwrap()).await
    }

    /// A new class (with the server key): its id, code and teacher's token.
    async fn class(&self, key: &str, name: &str) -> (String, String, String) {
        let (status, created) = self.post(Some(key), "/api/classes", json!({ "name": name })).await;
        assert_eq!(status, 201, "{created}");
        let text = |field: &str| created[field].as_str().unwrap().to_owned();
        (text("id"), text("class_code"), text("teacher_token"))
    }

    /// A student signing in for the first time: her token and id.
    async fn sign_in(&self, code: &str, name: &str) -> (String, u64) {
        let request = json!({ "class_code": code, "name": name, "pin": "4821" });
        let (status, signed) = self.post(None, "/api/classes/sign-in", request).await;
        assert_eq!(status, 200, "{signed}");
        (signed["token"].as_str().unwrap().to_owned(), signed["student"]["id"].as_u64().unwrap())
    }

    async fn assignment(&self, class: &str, teacher: &str, request: Value) -> Value {
        let (status, created) = self.post(Some(teacher), &format!("/api/classes/{class}/assignments"), request).await;
        assert_eq!(status, 201, "{created}");
        created
    }

    /// Evaluation `id` once it is over (graded or failed), as `token` reads it.
    async fn finished(&self, class: &str, token: &str, id: i64) -> Value {
        let deadline = tokio::time::Instant::now() + PATIENCE * 6;
        loop {
            let (status, evaluation) = self.get(Some(token), &format!("/api/classes/{class}/evaluations/{id}")).await;
            assert_eq!(status, 200, "{evaluation}");
            if matches!(evaluation["status"].as_str(), Some("graded" | "failed")) {
                return evaluation;
            }
            assert!(tokio::time::Instant::now() < deadline, "evaluation {id} never ended: {evaluation}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

fn evaluation_of(submission: &Value) -> i64 {
    submission["evaluation"]["id"].as_i64().unwrap_or_else(|| panic!("no evaluation: {submission}"))
}

/// What must repeat from one run of the same trials to the next.
fn outcomes(evaluation: &Value) -> Vec<(Value, Value, Value)> {
    let trials = evaluation["trials"].as_array().unwrap();
    trials.iter().map(|t| (t["status"].clone(), t["score"].clone(), t["credit"].clone())).collect()
}

#[tokio::test]
async fn a_class_hands_in_its_programs_and_the_solution_outgrades_a_program_that_does_nothing() {
    if !python_runs_here() {
        return;
    }
    let server = TestServer::start(false).await;
    let api = Api::of(&server);
    let (class, code, teacher) = api.class(TOKEN, "Robotics 2B").await;
    let (ana, ana_id) = api.sign_in(&code, "Ana").await;
    let (ben, _) = api.sign_in(&code, "Ben").await;
    let (cy, _) = api.sign_in(&code, "Cy").await;
    let path = format!("/api/classes/{class}/assignments");

    // Bad requests are refused with a sentence, and nothing is created.
    for (request, says) in [
        (json!({ "title": "No challenge" }), "needs a \"challenge\""),
        (json!({ "challenge": "challenges/nowhere" }), "no scene 'challenges/nowhere'"),
        (json!({ "challenge": "diffbot" }), "sets no challenge"),
        (json!({ "challenge": "challenges/park", "robot": "tank" }), "no robot 'tank'"),
        (json!({ "challenge": "challenges/park", "trials": 0 }), "1 to 20 trials"),
        (json!({ "challenge": "challenges/park", "points": -1 }), "above 0"),
        (json!({ "challenge": "challenges/park", "opens_at": 2000, "due_at": 1000 }), "due after it opens"),
        (json!({ "challenge": "challenges/park", "students": [99] }), "no student 99"),
    ] {
        let (status, refused) = api.post(Some(&teacher), &path, request.clone()).await;
        assert_eq!(status, 422, "{request}: {refused}");
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{request}: {message}");
    }
    assert_eq!(api.get(Some(&teacher), &path).await.1, json!([]), "nothing was created");

    let park = api.assignment(&class, &teacher, json!({ "challenge": "challenges/park", "trials": 3 })).await;
    assert_eq!(park["challenge_title"], "Park in the green bay", "{park}");
    assert_eq!(
        (park["robot"].as_str(), park["trials"].as_u64(), park["version"].as_u64()),
        (Some("diffbot"), Some(3), Some(1))
    );
    assert_eq!((park["title"].as_str(), park["points"].as_f64()), (Some("Park in the green bay"), Some(10.0)));
    let id = park["id"].as_i64().unwrap();
    let (_, view) = api.get(Some(&ana), &format!("/api/classes/{class}")).await;
    assert_eq!(view["assignments"][0]["id"].as_i64(), Some(id), "her class shows it: {view}");

    // The solution and a program that does nothing.
    let (status, solution) = api.submit(Some(&ana), &class, id, park_solution()).await;
    assert_eq!(status, 202, "{solution}");
    assert_eq!(solution["files"], json!(["drive_to.py", "park.py"]), "{solution}");
    assert_eq!((solution["late"].as_bool(), solution["student"].as_u64()), (Some(false), Some(ana_id)));
    assert!(matches!(solution["evaluation"]["status"].as_str(), Some("queued")), "{solution}");
    let (status, idle) = api.submit(Some(&ben), &class, id, program(IDLE)).await;
    assert_eq!(status, 202, "{idle}");
    // A program that does not compile is kept, and fails its evaluation at its place.
    let (status, broken) = api.submit(Some(&cy), &class, id, program("from vlab import Robot\nwhile True\n")).await;
    assert_eq!(status, 202, "{broken}");
    // A form with no program in it is refused and nothing is kept.
    let not_a_program = Form::new().part("program", Part::text("hello").file_name("notes.txt"));
    let (status, refused) = api.submit(Some(&cy), &class, id, not_a_program).await;
    assert_eq!(status, 422, "{refused}");

    let graded = api.finished(&class, &ana, evaluation_of(&solution)).await;
    let idle_graded = api.finished(&class, &ben, evaluation_of(&idle)).await;
    let failed = api.finished(&class, &cy, evaluation_of(&broken)).await;
    assert_eq!(graded["status"], "graded", "{graded}");
    let (best, worst) = (graded["grade"].as_f64().unwrap(), idle_graded["grade"].as_f64().unwrap());
    assert!(best > worst, "the solution {best} over the idle program {worst}: {graded} {idle_graded}");
    assert_eq!(worst, 0.0, "{idle_graded}");
    assert_eq!((failed["status"].as_str(), failed["grade"].as_f64()), (Some("failed"), Some(0.0)), "{failed}");
    assert!(failed["reason"].as_str().unwrap().starts_with("main.py:2:"), "positioned: {failed}");
    assert!(graded["trials"].as_array().unwrap().iter().all(|t| t["seed"].is_null()), "hidden from her: {graded}");

    // Trials replay for her, not for another student; a replay names no seed.
    let replay_path = graded["trials"][0]["replay_path"].as_str().unwrap().to_owned();
    let (status, replay) = api.get(Some(&ana), &replay_path).await;
    assert_eq!(status, 200);
    assert!(replay["frames"].as_array().is_some_and(|f| !f.is_empty()) && replay["attempt"]["seed"] == 0, "{replay}");
    assert_eq!(api.get(Some(&ben), &replay_path).await.0, 403);
    let (status, refused) = api.get(Some(&ben), &format!("/api/classes/{class}/evaluations/{}", graded["id"])).await;
    assert_eq!(status, 403, "{refused}");
    assert_eq!(refused["error"]["message"], Denial::NotTheOwner.explain(Action::SeeGrades, None));

    // The teacher sees the seeds; a re-run is a new evaluation with the same trials.
    let teachers = api.finished(&class, &teacher, evaluation_of(&solution)).await;
    let seeds: Vec<u64> = teachers["trials"].as_array().unwrap().iter().map(|t| t["seed"].as_u64().unwrap()).collect();
    assert_eq!(seeds.len(), 3);
    let (status, rerun) =
        api.post(Some(&teacher), &format!("{path}/{id}/evaluate"), json!({ "student": ana_id })).await;
    assert_eq!(status, 202, "{rerun}");
    let rerun_id = rerun[0]["id"].as_i64().unwrap();
    assert_ne!(rerun_id, evaluation_of(&solution), "a new evaluation");
    let again = api.finished(&class, &teacher, rerun_id).await;
    assert_eq!(outcomes(&again), outcomes(&graded), "the same trials give the same results");
    assert_eq!(again["grade"], graded["grade"]);
    assert_eq!(api.get(Some(&ana), &format!("/api/classes/{class}/evaluations/{}", graded["id"])).await.0, 200, "kept");

    // The teacher grades, never hands in.
    let (status, refused) = api.submit(Some(&teacher), &class, id, program(IDLE)).await;
    assert_eq!(status, 403, "{refused}");
    assert_eq!(refused["error"]["message"], Denial::OwnerOnly.explain(Action::Submit, None));

    // Ben hands in again: his latest counts.
    let (_, resubmitted) = api.submit(Some(&ben), &class, id, park_solution()).await;
    let regraded = api.finished(&class, &ben, evaluation_of(&resubmitted)).await;
    let (status, book) = api.get(Some(&teacher), &format!("/api/classes/{class}/grades")).await;
    assert_eq!(status, 200, "{book}");
    let rows = book["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "every student on the roster: {book}");
    let row = |name: &str| rows.iter().find(|r| r["name"] == name).unwrap()["cells"][0].clone();
    assert_eq!(row("Ben")["grade"], regraded["grade"], "{book}");
    assert_eq!(row("Ben")["submission"], resubmitted["id"]);
    assert_eq!((row("Ana")["status"].as_str(), row("Ana")["grade"].as_f64()), (Some("graded"), Some(best)));
    assert_eq!(row("Ana")["evaluation"].as_i64(), Some(rerun_id), "the latest evaluation");
    assert_eq!(row("Cy")["status"], "failed");
    let (_, subs) = api.get(Some(&ben), &format!("{path}/{id}/submissions")).await;
    assert_eq!(subs.as_array().unwrap().len(), 2, "his two, nobody else's: {subs}");
    let (_, all) = api.get(Some(&teacher), &format!("{path}/{id}/submissions")).await;
    assert_eq!(all.as_array().unwrap().len(), 4, "the refused form was not kept: {all}");

    // A student's gradebook is her row; the files she handed in read back.
    let (_, hers) = api.get(Some(&ana), &format!("/api/classes/{class}/grades")).await;
    assert_eq!(hers["rows"].as_array().unwrap().len(), 1, "{hers}");
    assert_eq!(hers["rows"][0]["name"], "Ana");
    let file = format!("/api/classes/{class}/submissions/{}/files/park.py", solution["id"]);
    let response = server.http.get(server.url(&file)).bearer_auth(&ana).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(response.text().await.unwrap(), library("park.py"));
    assert_eq!(api.get(Some(&ben), &file).await.0, 403);

    // The CSV: a BOM, the header, one row per student.
    let response = server
        .http
        .get(server.url(&format!("/api/classes/{class}/grades.csv")))
        .bearer_auth(&teacher)
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-type"], "text/csv; charset=utf-8");
    let disposition = format!("attachment; filename=\"{class}-grades.csv\"");
    assert_eq!(response.headers()["content-disposition"], disposition.as_str());
    let text = response.text().await.unwrap();
    let text = text.strip_prefix('\u{feff}').expect("a byte order mark");
    let lines: Vec<Vec<&str>> = text.split("\r\n").filter(|l| !l.is_empty()).map(|l| l.split(',').collect()).collect();
    assert_eq!(
        lines[0],
        ["student", "Park in the green bay (of 10)", "Park in the green bay status", "Park in the green bay late"]
    );
    let csv_row = |name: &str| lines.iter().find(|l| l[0] == name).unwrap().clone();
    assert_eq!(csv_row("Ana")[1].parse::<f64>().unwrap(), best);
    assert_eq!(csv_row("Ana")[2..], ["graded", "no"]);
    assert_eq!(csv_row("Ben")[1].parse::<f64>().unwrap(), regraded["grade"].as_f64().unwrap());
    assert_eq!(csv_row("Cy")[1..], ["0", "failed", "no"]);
}

#[tokio::test]
async fn dates_decide_when_a_hand_in_is_taken_and_a_new_version_grades_differently() {
    if !python_runs_here() {
        return;
    }
    let server = TestServer::start(false).await;
    let api = Api::of(&server);
    let (class, code, teacher) = api.class(TOKEN, "Robotics 3A").await;
    let (ana, ana_id) = api.sign_in(&code, "Ana").await;
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;

    let later =
        api.assignment(&class, &teacher, json!({ "challenge": "challenges/park", "opens_at": now + 3600 })).await;
    let (status, refused) = api.submit(Some(&ana), &class, later["id"].as_i64().unwrap(), program(IDLE)).await;
    assert_eq!(status, 409, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("opens in"), "{refused}");

    let past = json!({ "title": "Parking", "challenge": "challenges/park", "trials": 2, "opens_at": now - 100, "due_at": now - 50 });
    let overdue = api.assignment(&class, &teacher, past).await;
    let id = overdue["id"].as_i64().unwrap();
    let (status, late) = api.submit(Some(&ana), &class, id, park_solution()).await;
    assert_eq!(status, 202, "late is kept: {late}");
    assert_eq!(late["late"], true);
    let first = api.finished(&class, &teacher, evaluation_of(&late)).await;
    assert_eq!((first["status"].as_str(), first["version"].as_u64()), (Some("graded"), Some(1)), "{first}");
    let (_, book) = api.get(Some(&teacher), &format!("/api/classes/{class}/grades")).await;
    let cells = &book["rows"][0]["cells"];
    assert_eq!((cells[1]["late"].as_bool(), cells[1]["status"].as_str()), (Some(true), Some("graded")), "{book}");
    assert_eq!(cells[0]["status"], "missing", "the later one is hers, not handed in: {book}");

    // A title change is no new version; a new challenge is, with the same seeds.
    let path = format!("/api/classes/{class}/assignments/{id}");
    let (status, renamed) = api.patch(Some(&teacher), &path, json!({ "title": "Parking, again" })).await;
    assert_eq!((status, renamed["version"].as_u64()), (200, Some(1)), "{renamed}");
    assert_eq!(renamed["score_rule"], "time in seconds (lower is better)", "{renamed}");
    // `null` takes the due date away: a hand-in now is on time.
    let (status, undated) = api.patch(Some(&teacher), &path, json!({ "due_at": null })).await;
    assert_eq!((status, undated.get("due_at")), (200, None), "{undated}");
    let (status, on_time) = api.submit(Some(&ana), &class, id, park_solution()).await;
    assert_eq!((status, on_time["late"].as_bool()), (202, Some(false)), "{on_time}");
    api.finished(&class, &teacher, evaluation_of(&on_time)).await;
    let (status, refused) = api.patch(Some(&teacher), &path, json!({ "challenge": "diffbot" })).await;
    assert_eq!(status, 422, "{refused}");
    let (status, changed) = api.patch(Some(&teacher), &path, json!({ "challenge": "challenges/corridor" })).await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(
        (changed["version"].as_u64(), changed["challenge_title"].as_str()),
        (Some(2), Some("Follow the corridor"))
    );
    assert_eq!(changed["score_rule"], "percent of 3 goals", "the new challenge's rule: {changed}");
    let (_, rerun) = api.post(Some(&teacher), &format!("{path}/evaluate"), json!({})).await;
    let second = api.finished(&class, &teacher, rerun[0]["id"].as_i64().unwrap()).await;
    assert_eq!(second["version"], 2);
    assert_ne!(second["grade"], first["grade"], "the park solution in a corridor: {first} {second}");
    assert_eq!(first["trials"][0]["seed"], second["trials"][0]["seed"], "the same trials' seeds");

    // Another number of trials is another version with new seeds.
    let (_, more) = api.patch(Some(&teacher), &path, json!({ "trials": 3, "challenge": "challenges/park" })).await;
    assert_eq!((more["version"].as_u64(), more["trials"].as_u64()), (Some(3), Some(3)), "{more}");
    let (_, rerun) = api.post(Some(&teacher), &format!("{path}/evaluate"), json!({ "student": ana_id })).await;
    let third = api.finished(&class, &teacher, rerun[0]["id"].as_i64().unwrap()).await;
    assert_eq!(third["trials"].as_array().unwrap().len(), 3);
    assert_ne!(third["trials"][0]["seed"], first["trials"][0]["seed"], "new seeds");
    let (_, book) = api.get(Some(&teacher), &format!("/api/classes/{class}/grades")).await;
    assert_eq!(book["rows"][0]["cells"][1]["grade"], third["grade"], "the latest evaluation counts: {book}");

    // She hands in her robot's program from a lesson: the same program, the same grade.
    let lesson = json!({ "name": "Lesson 1", "scene": "challenges/park" });
    let (status, lesson) = api.post(Some(&teacher), &format!("/api/classes/{class}/labs"), lesson).await;
    assert_eq!(status, 201, "{lesson}");
    let lab = lesson["id"].as_str().unwrap().to_owned();
    let (status, entered) = api.post(Some(&ana), &format!("/api/labs/{lab}/enter"), json!({})).await;
    assert_eq!(status, 200, "{entered}");
    let description = "include \"diffbot_robot.vlab\";\ncall diffbot(\"_ana\", {x}, {z}, 0);\n";
    let form = park_solution().part("description", Part::text(description).file_name("ana.vlab"));
    let added = server.http.post(server.url(&format!("/api/labs/{lab}/robots"))).bearer_auth(&ana).multipart(form);
    let (status, added) = Api::answer(added.send().await.unwrap()).await;
    assert_eq!(status, 200, "{added}");
    let robot = added["robots"][0].as_str().unwrap().to_owned();
    let submissions = format!("{path}/submissions");
    let (status, handed) = api.post(Some(&ana), &submissions, json!({ "lab": lab, "robot": robot })).await;
    assert_eq!(status, 202, "{handed}");
    assert_eq!(handed["files"], json!(["drive_to.py", "park.py"]), "{handed}");
    let from_robot = api.finished(&class, &teacher, evaluation_of(&handed)).await;
    assert_eq!(outcomes(&from_robot), outcomes(&third), "her robot's program is the program she uploaded");
    let (status, refused) = api.post(Some(&ana), &submissions, json!({ "lab": lab, "robot": "diffbot" })).await;
    assert_eq!(status, 403, "the lab's own robot is not hers: {refused}");
}

#[tokio::test]
async fn who_may_hand_in_evaluate_see_grades_and_manage_assignments() {
    let server = TestServer::start(false).await;
    let api = Api::of(&server);
    let (class, code, teacher) = api.class(TOKEN, "Robotics 4C").await;
    let (ana, ana_id) = api.sign_in(&code, "Ana").await;
    let (ben, _) = api.sign_in(&code, "Ben").await;
    let path = format!("/api/classes/{class}/assignments");
    let request = json!({ "challenge": "challenges/park", "trials": 1, "students": [ana_id] });
    let message = |body: &Value| body["error"]["message"].as_str().unwrap_or_default().to_owned();

    // ManageCourse: the teacher alone.
    let (status, refused) = api.post(Some(&ana), &path, request.clone()).await;
    assert_eq!((status, message(&refused)), (403, Denial::InstructorOnly.explain(Action::ManageCourse, None)));
    let (status, refused) = api.post(None, &path, request.clone()).await;
    assert_eq!((status, message(&refused)), (401, Denial::NeedsInstructorToken.explain(Action::ManageCourse, None)));
    let created = api.assignment(&class, &teacher, request).await;
    let id = created["id"].as_i64().unwrap();
    let (status, _) = api.patch(Some(&ben), &format!("{path}/{id}"), json!({ "points": 5 })).await;
    assert_eq!(status, 403);
    assert_eq!(api.patch(Some(&teacher), &format!("{path}/{id}"), json!({ "points": 5 })).await.0, 200);

    // Submit: the student herself, and only what is given to her.
    let (status, refused) = api.submit(None, &class, id, program(IDLE)).await;
    assert_eq!((status, message(&refused)), (401, Denial::NeedsSession.explain(Action::Submit, None)));
    let (status, refused) = api.submit(Some(&teacher), &class, id, program(IDLE)).await;
    assert_eq!((status, message(&refused)), (403, Denial::OwnerOnly.explain(Action::Submit, None)));
    let (status, refused) = api.submit(Some(&ben), &class, id, program(IDLE)).await;
    assert_eq!((status, message(&refused)), (403, format!("assignment {id} is not given to you")));
    assert_eq!(api.get(Some(&ben), &path).await.1, json!([]), "he does not see it");
    let (status, handed) = api.submit(Some(&ana), &class, id, program(IDLE)).await;
    assert_eq!(status, 202, "{handed}");
    let evaluation = format!("/api/classes/{class}/evaluations/{}", evaluation_of(&handed));

    // SeeGrades: her own and the teacher's.
    assert_eq!(api.get(Some(&ana), &evaluation).await.0, 200);
    assert_eq!(api.get(Some(&teacher), &evaluation).await.0, 200);
    let (status, refused) = api.get(Some(&ben), &evaluation).await;
    assert_eq!((status, message(&refused)), (403, Denial::NotTheOwner.explain(Action::SeeGrades, None)));
    let (status, refused) = api.get(None, &evaluation).await;
    assert_eq!((status, message(&refused)), (401, Denial::NeedsSession.explain(Action::SeeGrades, None)));
    let (status, refused) = api.get(None, &format!("/api/classes/{class}/grades")).await;
    assert_eq!((status, message(&refused)), (401, Denial::NeedsSession.explain(Action::SeeGrades, None)));
    let (_, his) = api.get(Some(&ben), &format!("/api/classes/{class}/grades")).await;
    assert_eq!((his["rows"].as_array().unwrap().len(), his["assignments"].as_array().unwrap().len()), (1, 0), "{his}");

    // Evaluate: the teacher alone.
    let (status, refused) = api.post(Some(&ana), &format!("{path}/{id}/evaluate"), json!({})).await;
    assert_eq!((status, message(&refused)), (403, Denial::InstructorOnly.explain(Action::Evaluate, None)));
    let (status, refused) = api.post(None, &format!("{path}/{id}/evaluate"), json!({})).await;
    assert_eq!((status, message(&refused)), (401, Denial::NeedsInstructorToken.explain(Action::Evaluate, None)));
    let (status, started) = api.post(Some(&teacher), &format!("{path}/{id}/evaluate"), json!({})).await;
    assert_eq!((status, started.as_array().map(Vec::len)), (202, Some(1)), "{started}");

    // A student's robot in a lesson: hers only.
    let (status, lesson) =
        api.post(Some(&teacher), &format!("/api/classes/{class}/labs"), json!({ "name": "Lesson 1" })).await;
    assert_eq!(status, 201, "{lesson}");
    let robot = json!({ "lab": lesson["id"], "robot": "diffbot" });
    let (status, refused) = api.post(Some(&ana), &format!("{path}/{id}/submissions"), robot).await;
    assert_eq!(status, 403, "{refused}");
    assert!(message(&refused).contains("you have no robot 'diffbot'"), "{refused}");
}

#[tokio::test]
async fn a_class_its_assignments_submissions_and_grades_outlive_a_restart_and_unfinished_evaluations_finish() {
    if !python_runs_here() {
        return;
    }
    use crate::common::binary::VlabProcess;
    let dir = std::env::temp_dir().join(format!("vlab-course-restart-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("vlab.db");
    let key = "course-restart-key";
    let http = reqwest::Client::new();

    let first = VlabProcess::start(&db, &["--paused", "--instructor-token", key]);
    let api = Api { http: http.clone(), base: first.base.clone() };
    let (class, code, teacher) = api.class(key, "Robotics 5D").await;
    let (ana, _) = api.sign_in(&code, "Ana").await;
    let (ben, _) = api.sign_in(&code, "Ben").await;
    let assignment = api.assignment(&class, &teacher, json!({ "challenge": "challenges/park", "trials": 2 })).await;
    let id = assignment["id"].as_i64().unwrap();
    let (_, idle) = api.submit(Some(&ana), &class, id, program(IDLE)).await;
    let graded = api.finished(&class, &teacher, evaluation_of(&idle)).await;
    let (_, book) = api.get(Some(&teacher), &format!("/api/classes/{class}/grades")).await;
    // Killed as soon as Ben's hand-in is acknowledged: its evaluation is not over.
    let (status, interrupted) = api.submit(Some(&ben), &class, id, park_solution()).await;
    assert_eq!(status, 202, "{interrupted}");
    drop(first);

    let again = VlabProcess::start(&db, &["--paused", "--instructor-token", key]);
    let api = Api { http, base: again.base.clone() };
    let (_, listed) = api.get(Some(&teacher), &format!("/api/classes/{class}/assignments")).await;
    assert_eq!(listed, json!([assignment]), "the same assignment");
    let (_, after) = api.get(Some(&teacher), &format!("/api/classes/{class}/evaluations/{}", graded["id"])).await;
    assert_eq!(after, graded, "the same evaluation");
    let resumed = api.finished(&class, &ben, evaluation_of(&interrupted)).await;
    assert_eq!(resumed["status"], "graded", "run again after the restart: {resumed}");
    let (_, book_after) = api.get(Some(&teacher), &format!("/api/classes/{class}/grades")).await;
    let ana_row = |book: &Value| book["rows"].as_array().unwrap().iter().find(|r| r["name"] == "Ana").cloned();
    assert_eq!(ana_row(&book_after), ana_row(&book), "her row as it was");
    let (_, subs) = api.get(Some(&teacher), &format!("/api/classes/{class}/assignments/{id}/submissions")).await;
    assert_eq!(subs.as_array().unwrap().len(), 2, "{subs}");
    drop(again);
    let _ = std::fs::remove_dir_all(&dir);
}
