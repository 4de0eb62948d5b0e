//! Three real `vlab serve --cluster` processes sharing one nats-server and one
//! PostgreSQL database: a lab created through one server runs on one of them, is watched
//! from a page on another and commanded from the third; killed with `kill -9`, its
//! server's labs are taken over by another, the page goes on by itself, and nothing
//! acknowledged is lost.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};
use vlab_protocol::{LabMode, PROTOCOL_VERSION};

use crate::common::binary::VlabProcess;
use crate::common::postgres::TestDatabase;
use crate::common::{Client, Received};

pub(crate) const KEY: &str = "cluster-test-key";

/// How long a takeover may take before the test calls it a hang (the design's bound is
/// 15 s; this is a guard, not a measure).
const TAKEOVER_PATIENCE: Duration = Duration::from_secs(60);

pub(crate) struct Cluster {
    name: String,
    servers: Vec<(String, Option<VlabProcess>)>,
    _db: TestDatabase,
    dir: std::path::PathBuf,
}

impl Cluster {
    /// Servers `a`, `b`, `c`, started one after the other (the first makes the demo lab
    /// and the buckets).
    pub(crate) fn start() -> Cluster {
        let db = TestDatabase::create();
        let name = vlab_cluster::testkit::unique_name("c");
        let dir = std::env::temp_dir().join(&name);
        std::fs::create_dir_all(&dir).unwrap();
        let servers = ["a", "b", "c"]
            .into_iter()
            .map(|id| (id.to_owned(), Some(VlabProcess::start_in_cluster(&db.url, &name, id, KEY, &dir))))
            .collect();
        Cluster { name, servers, _db: db, dir }
    }

    pub(crate) fn server(&self, id: &str) -> &VlabProcess {
        self.servers.iter().find(|(s, _)| s == id).and_then(|(_, p)| p.as_ref()).expect("a live server")
    }

    /// The server holding `lab`'s lease, as the directory says.
    pub(crate) async fn owner_of(&self, lab: &str) -> Option<String> {
        let nats = async_nats::connect(vlab_cluster::testkit::nats_url()).await.unwrap();
        let directory = vlab_cluster::Directory::open(nats, &self.name, vlab_cluster::Timing::DEFAULT).await.unwrap();
        directory.owner_of(lab).await.unwrap()
    }

    /// The step of the last checkpoint of `lab` kept in the database, if any.
    pub(crate) async fn kept_checkpoint_step(&self, lab: &str) -> Option<u64> {
        let (client, connection) = tokio_postgres::connect(&self._db.url, tokio_postgres::NoTls).await.unwrap();
        let connecting = tokio::spawn(connection);
        let row = client.query_opt("SELECT step FROM lab_checkpoints WHERE lab = $1", &[&lab]).await.unwrap();
        connecting.abort();
        row.map(|row| row.get::<_, i64>(0) as u64)
    }

    /// Kills server `id` with SIGKILL.
    fn kill(&mut self, id: &str) {
        let slot = self.servers.iter_mut().find(|(s, _)| s == id).unwrap();
        drop(slot.1.take());
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.servers.clear();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

pub(crate) async fn call(
    server: &VlabProcess,
    method: Method,
    path: &str,
    token: Option<&str>,
    body: Value,
) -> (u16, Value) {
    let mut request = reqwest::Client::new().request(method, server.url(path)).json(&body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

async fn page(server: &VlabProcess, lab: &str, token: &str) -> Client {
    let url = server.ws_url(&format!("/ws/labs/{lab}?protocol={PROTOCOL_VERSION}&token={token}"));
    let (socket, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    Client::new(socket)
}

/// The step running lab `lab` answers with through `server` once it runs there again (a
/// moving lab answers 503; a lab being restored stands paused until it went on from its
/// kept checkpoint).
async fn served_step(server: &VlabProcess, lab: &str) -> u64 {
    crate::common::eventually("the lab runs again", TAKEOVER_PATIENCE, async || {
        let (status, summary) = call(server, Method::GET, &format!("/api/labs/{lab}"), None, json!({})).await;
        (status == 200 && summary["mode"] == "running").then(|| summary["step"].as_u64().unwrap())
    })
    .await
}

/// The instructor (`token`) runs lab `lab` through `server`.
async fn run_lab(server: &VlabProcess, lab: &str, token: &str) {
    let (status, state) =
        call(server, Method::POST, &format!("/api/labs/{lab}/control"), Some(token), json!({"action": "resume"})).await;
    assert_eq!(status, 200, "{state}");
}

/// The close code of `page`'s connection once it ends (its lab moved).
async fn closed(page: &mut Client) -> Option<u16> {
    tokio::time::timeout(TAKEOVER_PATIENCE, async {
        loop {
            if let Received::Closed(code) = page.next().await {
                return code;
            }
        }
    })
    .await
    .expect("the page's connection ends when its lab moves")
}

/// Waits until `owner_of(lab)` names a server other than `not`.
async fn new_owner(cluster: &Cluster, lab: &str, not: &str) -> String {
    tokio::time::timeout(TAKEOVER_PATIENCE, async {
        loop {
            if let Some(owner) = cluster.owner_of(lab).await.filter(|owner| owner != not) {
                return owner;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    })
    .await
    .expect("another server took the lab over")
}

#[tokio::test]
async fn a_lab_made_through_one_server_is_watched_from_another_commanded_from_the_third_and_survives_its_server() {
    let mut cluster = Cluster::start();
    // Made through A: placed on the least-loaded server.
    let (status, created) =
        call(cluster.server("a"), Method::POST, "/api/labs", Some(KEY), json!({"name": "Physics 1"})).await;
    assert_eq!(status, 201, "{created}");
    let lab = created["id"].as_str().unwrap().to_owned();
    let instructor = created["instructor_token"].as_str().unwrap().to_owned();
    let code = created["join_code"].as_str().unwrap().to_owned();
    let owner = cluster.owner_of(&lab).await.expect("the lab runs somewhere");
    let others: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).filter(|s| *s != owner).collect();
    let (watcher, commander) = (others[0].clone(), others[1].clone());

    // A student joins by code through the commander's server, and uploads a robot: acknowledged.
    let (status, joined) =
        call(cluster.server(&commander), Method::POST, "/api/join", None, json!({"join_code": code, "name": "Ana"}))
            .await;
    assert_eq!(status, 200, "{joined}");
    let ana = joined["token"].as_str().unwrap().to_owned();
    let robot = "robot ana_bot { body { ana_bot_chassis { shape box(0.3, 0.1, 0.2); pos(1.0, 0.2, 1.5); } } }";
    let response = reqwest::Client::new()
        .post(cluster.server(&commander).url(&format!("/api/labs/{lab}/robots")))
        .bearer_auth(&ana)
        .body(robot)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200, "{}", response.text().await.unwrap());

    // Watched from another server's page; commanded from the third.
    let mut watching = page(cluster.server(&watcher), &lab, &instructor).await;
    let (_, snapshot, _, _) = watching.join_sequence().await;
    assert!(snapshot.bodies.iter().any(|body| body.name.starts_with("ana_bot")), "the page sees Ana's robot");
    run_lab(cluster.server(&commander), &lab, &instructor).await;
    watching.state_where(|s| s.mode == LabMode::Running).await;
    watching.until(|r| matches!(r, Received::Frame(_)).then_some(())).await;

    // The same answers from every server, as from one.
    let wrong = (Method::POST, format!("/api/labs/{lab}/control"), Some("not-a-token"), json!({"action": "pause"}));
    let answers: Vec<(u16, Value)> = futures_util::future::join_all(
        ["a", "b", "c"].map(|s| call(cluster.server(s), wrong.0.clone(), &wrong.1, wrong.2, wrong.3.clone())),
    )
    .await;
    assert!(answers.windows(2).all(|pair| pair[0] == pair[1]), "{answers:?}");

    // Its server keeps a checkpoint every 5 s of simulation.
    let kept = crate::common::eventually("a checkpoint past step 0 is kept", TAKEOVER_PATIENCE, async || {
        cluster.kept_checkpoint_step(&lab).await.filter(|&step| step > 0)
    })
    .await;

    // kill -9 of the lab's server, with the page open on another.
    let killed = Instant::now();
    cluster.kill(&owner);
    let taker = new_owner(&cluster, &lab, &owner).await;
    let taken_after = killed.elapsed();
    // It goes on from the last checkpoint kept, not from step 0.
    let resumed = served_step(cluster.server(&taker), &lab).await;
    assert!(resumed >= kept, "the lab went on from step {resumed}, before the kept checkpoint's {kept}");
    // The page is told to connect again (or finds its connection gone) and, connecting
    // again as the page does, is served the lab from its new server.
    let closed = closed(&mut watching).await;
    let mut again = page(cluster.server(&watcher), &lab, &instructor).await;
    let served_again = tokio::time::timeout(TAKEOVER_PATIENCE, async {
        loop {
            match again.next().await {
                Received::Json(vlab_protocol::ServerMsg::Snapshot(snapshot)) => return snapshot,
                Received::Closed(_) => {
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    again = page(cluster.server(&watcher), &lab, &instructor).await;
                }
                _ => {}
            }
        }
    })
    .await
    .expect("the page is served the lab again");
    let page_back_after = killed.elapsed();
    assert!(served_again.bodies.iter().any(|body| body.name.starts_with("ana_bot")), "Ana's robot was kept");
    again.until(|r| matches!(r, Received::Frame(_)).then_some(())).await;
    // Ana's session too.
    let (status, summary) =
        call(cluster.server(&watcher), Method::GET, &format!("/api/labs/{lab}"), Some(&ana), json!({})).await;
    assert_eq!(status, 200, "{summary}");
    println!(
        "lab {lab} on {owner} killed: {taker} held its lease after {:.1} s and went on from step {resumed} (checkpoint \
         kept at step {kept}); the page on {watcher} was closed ({closed:?}) and served again after {:.1} s",
        taken_after.as_secs_f64(),
        page_back_after.as_secs_f64()
    );
}

/// The step lab `lab` answers with through `server`.
async fn step_of(server: &VlabProcess, lab: &str) -> u64 {
    let (status, summary) = call(server, Method::GET, &format!("/api/labs/{lab}"), None, json!({})).await;
    assert_eq!(status, 200, "{summary}");
    summary["step"].as_u64().unwrap()
}

/// Waits until `check` holds, polling (a guard against hangs, not a measure).
async fn until(mut check: impl AsyncFnMut() -> bool) {
    tokio::time::timeout(TAKEOVER_PATIENCE, async {
        while !check().await {
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    })
    .await
    .expect("the condition came true");
}

#[tokio::test]
async fn a_server_cut_off_from_nats_stops_its_labs_time_and_goes_on_with_them_when_nats_is_back() {
    let mut nats = vlab_cluster::testkit::NatsServer::start_private();
    let db = TestDatabase::create();
    let name = vlab_cluster::testkit::unique_name("cut");
    let dir = std::env::temp_dir().join(&name);
    std::fs::create_dir_all(&dir).unwrap();
    let key_file = dir.join("a.key").display().to_string();
    let url = nats.url();
    let args = [
        "--cluster",
        &url,
        "--cluster-name",
        &name,
        "--server-id",
        "a",
        "--instructor-token",
        KEY,
        "--key-file",
        &key_file,
    ];
    let server = VlabProcess::start(std::path::Path::new(&db.url), &args);
    let (status, created) = call(&server, Method::POST, "/api/labs", Some(KEY), json!({"name": "Cut off"})).await;
    assert_eq!(status, 201, "{created}");
    let lab = created["id"].as_str().unwrap().to_owned();
    let instructor = created["instructor_token"].as_str().unwrap().to_owned();
    let (status, _) = call(
        &server,
        Method::POST,
        &format!("/api/labs/{lab}/control"),
        Some(&instructor),
        json!({"action": "resume"}),
    )
    .await;
    assert_eq!(status, 200);
    let mut watching = page(&server, &lab, &instructor).await;
    watching.join_sequence().await;
    let running = step_of(&server, &lab).await;
    until(async || step_of(&server, &lab).await > running).await;

    nats.stop();
    // Its lease cannot be renewed: the lab's time stands still, and the server says why.
    let (_, health) = call(&server, Method::GET, "/api/health", None, json!({})).await;
    let mut last = step_of(&server, &lab).await;
    until(async || {
        let now = step_of(&server, &lab).await;
        let still = now == last;
        last = now;
        still
    })
    .await;
    let notice = watching
        .until(|r| match r {
            Received::Json(vlab_protocol::ServerMsg::Notice { message, .. }) => Some(message.clone()),
            _ => None,
        })
        .await;
    assert!(notice.contains("time stands still"), "{notice}");
    let (_, health_later) = call(&server, Method::GET, "/api/health", None, json!({})).await;
    assert!(health_later["cluster"].as_str().unwrap().starts_with("unavailable"), "{health} {health_later}");
    let stood_at = step_of(&server, &lab).await;

    nats.restart();
    // Back: the same lab goes on from where it stood (its state kept, not restored).
    until(async || step_of(&server, &lab).await > stood_at).await;
    assert!(stood_at > running, "the lab went on from step {stood_at}, not from 0");
    let (_, health) = call(&server, Method::GET, "/api/health", None, json!({})).await;
    assert_eq!(health["cluster"], "ok", "{health}");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `vlab drain`: the drained server hands its lab over as it stands, and the lab goes on
/// elsewhere from there (not from its last periodic checkpoint, nor from step 0), with a
/// page on a third server told to connect again.
#[tokio::test]
async fn a_drained_servers_lab_goes_on_elsewhere_from_where_it_stood() {
    let cluster = Cluster::start();
    let (status, created) =
        call(cluster.server("a"), Method::POST, "/api/labs", Some(KEY), json!({"name": "Physics 2"})).await;
    assert_eq!(status, 201, "{created}");
    let lab = created["id"].as_str().unwrap().to_owned();
    let instructor = created["instructor_token"].as_str().unwrap().to_owned();
    let owner = cluster.owner_of(&lab).await.expect("the lab runs somewhere");
    let watcher = ["a", "b", "c"].into_iter().find(|s| *s != owner).unwrap();
    run_lab(cluster.server(&owner), &lab, &instructor).await;
    let mut watching = page(cluster.server(watcher), &lab, &instructor).await;
    watching.join_sequence().await;
    // Past the first periodic checkpoint (step 1,200) and well short of the next.
    until(async || step_of(cluster.server(&owner), &lab).await > 1_500).await;
    let before = step_of(cluster.server(&owner), &lab).await;

    let drained = std::process::Command::new(env!("CARGO_BIN_EXE_vlab"))
        .args(["drain", "--cluster", &vlab_cluster::testkit::nats_url(), "--cluster-name", &cluster.name, &owner])
        .output()
        .unwrap();
    assert!(drained.status.success(), "{}", String::from_utf8_lossy(&drained.stderr));
    let taker = new_owner(&cluster, &lab, &owner).await;
    let resumed = served_step(cluster.server(&taker), &lab).await;
    assert!(resumed >= before, "the lab went on from step {resumed}, before step {before} where it stood when drained");
    let closed = closed(&mut watching).await;
    assert_eq!(closed, Some(1012), "told to connect again");
    println!("drained {owner}: {taker} went on with lab {lab} from step {resumed} (it stood past step {before})");
}
