//! Any server of a cluster serves any page: requests and websockets for a lab another
//! server runs, through that server, over a real nats-server. (Who owns a lab is fixed
//! here; the directory that decides it has its own tests.)

use std::collections::BTreeMap;
use std::sync::Arc;

use vlab_protocol::{ClientMsg, ControlAction, LabMode, ServerMsg};
use vlab_server::classroom::{Classroom, ClassroomConfig};
use vlab_server::net::peers::{Asked, Owners};
use vlab_server::scene::demo_scene;
use vlab_server::secret::TokenDigest;

use crate::common::{PATIENCE, Received, TOKEN, TestServer, three_labs};

/// Labs and their owners, as a directory would say.
struct Fixed(BTreeMap<String, String>);

impl Owners for Fixed {
    fn owner_of<'a>(&'a self, lab: &'a str) -> Asked<'a, Option<String>> {
        Box::pin(async move { Ok(self.0.get(lab).cloned()) })
    }

    fn place(&self) -> Asked<'_, String> {
        Box::pin(async move { Ok("a".to_owned()) })
    }

    fn servers(&self) -> Asked<'_, Vec<String>> {
        Box::pin(async move { Ok(vec!["a".to_owned(), "b".to_owned(), "c".to_owned()]) })
    }
}

fn nats_url() -> String {
    vlab_cluster::testkit::nats_url()
}

/// Server `a` runs the three test labs; `b` and `c` run none. A cluster of its own,
/// named afresh, so tests sharing the nats-server never hear each other.
async fn three_servers() -> (TestServer, TestServer, TestServer) {
    let cluster = format!("t{}-{}", std::process::id(), NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    let owners: Arc<dyn Owners> =
        Arc::new(Fixed(["demo", "other", "empty"].into_iter().map(|lab| (lab.to_owned(), "a".to_owned())).collect()));
    let mut servers = Vec::new();
    for (me, classroom) in [("a", three_labs(demo_scene(1), true)), ("b", no_labs()), ("c", no_labs())] {
        let nats = async_nats::connect(nats_url()).await.expect("nats-server answers");
        servers.push(TestServer::serve_in_cluster(classroom, nats, &cluster, me, Arc::clone(&owners)).await);
    }
    let c = servers.pop().unwrap();
    let b = servers.pop().unwrap();
    (servers.pop().unwrap(), b, c)
}

static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

fn no_labs() -> Classroom {
    Classroom::new(ClassroomConfig { server_key: Some(TokenDigest::of(TOKEN)), ..ClassroomConfig::default() })
}

async fn answer(
    server: &TestServer,
    method: reqwest::Method,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> (u16, String) {
    let mut request = server.http.request(method, server.url(path)).body(body.to_owned());
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

#[tokio::test]
async fn requests_through_any_server_get_the_owners_answers() {
    let (a, b, c) = three_servers().await;
    // A command through C reaches the lab on A (paused, it answers alike from moment to
    // moment).
    let (status, state) =
        answer(&c, reqwest::Method::POST, "/api/labs/demo/control", Some(TOKEN), r#"{"action":"pause"}"#).await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(a.classroom().registry.get("demo").unwrap().clock().state().mode, LabMode::Paused);
    // The same answers, word for word, whichever server a request reaches: reads,
    // refusals, unknown things, commands.
    let asked = [
        (reqwest::Method::GET, "/api/labs/demo", None, ""),
        (reqwest::Method::GET, "/api/labs/demo/participants", None, ""),
        (reqwest::Method::POST, "/api/labs/demo/control", Some("wrong-token"), r#"{"action":"pause"}"#),
        (reqwest::Method::POST, "/api/labs/demo/control", Some(TOKEN), "{not json"),
        (reqwest::Method::GET, "/api/labs/demo/robots/nobody", None, ""),
        (reqwest::Method::GET, "/api/labs/demo/no-such-route", None, ""),
    ];
    for (method, path, token, body) in asked {
        let here = answer(&a, method.clone(), path, token, body).await;
        for other in [&b, &c] {
            assert_eq!(answer(other, method.clone(), path, token, body).await, here, "{method} {path}");
        }
    }
    // A lab nobody runs is unknown everywhere, as on a single server.
    let (status, body) = answer(&b, reqwest::Method::GET, "/api/labs/nowhere", None, "").await;
    assert_eq!((status, body), answer(&a, reqwest::Method::GET, "/api/labs/nowhere", None, "").await);
}

#[tokio::test]
async fn a_page_on_another_server_watches_and_commands_the_lab() {
    let (a, b, _c) = three_servers().await;
    let lab = a.classroom().registry.get("demo").unwrap();
    // A page on A and one on B start alike.
    let mut on_a = a.connect("demo", Some(TOKEN)).await;
    let (_, snapshot_a, _, _) = on_a.join_sequence().await;
    let mut on_b = b.connect("demo", Some(TOKEN)).await;
    let (hello, snapshot_b, _, keyframe) = on_b.join_sequence().await;
    let ServerMsg::Hello { lab: named, role, .. } = hello else { unreachable!() };
    assert_eq!(named, "demo");
    assert_eq!(role, vlab_protocol::Role::Instructor, "the owner read the page's token");
    assert_eq!(snapshot_b, snapshot_a);
    assert!(!keyframe.poses.is_empty());
    // Frames keep coming to B from the lab running on A.
    let first = on_b
        .until(|r| match r {
            Received::Frame(f) => Some(f.step),
            _ => None,
        })
        .await;
    let later = on_b
        .until(|r| match r {
            Received::Frame(f) if f.step > first + 24 => Some(f.step),
            _ => None,
        })
        .await;
    assert!(later > first);
    // The page on B pauses the lab; everyone, on both servers, hears it.
    on_b.send(&ClientMsg::Control { command: ControlAction::Pause }).await;
    on_a.state_where(|s| s.mode == LabMode::Paused).await;
    on_b.state_where(|s| s.mode == LabMode::Paused).await;
    assert_eq!(lab.clock().state().mode, LabMode::Paused);
    // Its own messages are answered by the owner, through B.
    on_b.send(&ClientMsg::Ping { nonce: 41 }).await;
    on_b.until(|r| matches!(r, Received::Json(ServerMsg::Pong { nonce: 41 })).then_some(())).await;
    on_b.send_text("{not json").await;
    let refused = on_b
        .until(|r| match r {
            Received::Json(ServerMsg::Error(e)) => Some(e.message.clone()),
            _ => None,
        })
        .await;
    assert!(refused.starts_with("unreadable message"), "{refused}");
    // A student joins through B and watches from B: she is online in the lab on A.
    let token = b.join_demo("Ana").await;
    let mut ana = b.connect("demo", Some(&token)).await;
    let (hello, ..) = ana.join_sequence().await;
    assert!(matches!(hello, ServerMsg::Hello { role: vlab_protocol::Role::Student, .. }), "{hello:?}");
    let online = tokio::time::timeout(PATIENCE, async {
        while !lab.people().list().iter().any(|p| p.name == "Ana" && p.online) {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(online.is_ok(), "Ana's page on B counts as hers in the lab on A");
}

#[tokio::test]
async fn many_pages_on_one_server_cost_the_owner_one_tap() {
    let (a, b, _c) = three_servers().await;
    let lab = a.classroom().registry.get("demo").unwrap();
    let mut pages = Vec::new();
    for _ in 0..5 {
        let mut page = b.connect("demo", None).await;
        page.join_sequence().await;
        pages.push(page);
    }
    // On A: one viewer for B's five pages (its tap); on B, five in its mirror.
    assert_eq!(lab.summary().viewers, 1);
    for page in &mut pages {
        page.until(|r| matches!(r, Received::Frame(_)).then_some(())).await;
    }
}

#[tokio::test]
async fn a_lab_whose_permit_ends_stands_still() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let classroom = no_labs();
    let lab = crate::common::test_lab(&classroom, "leased", demo_scene(1), true);
    let held = Arc::new(AtomicBool::new(true));
    let permit = Arc::clone(&held);
    lab.step_only_while(Arc::new(move || permit.load(Ordering::Relaxed)));
    let moving = lab.clock().state().step;
    let step_after = |lab: &Arc<vlab_server::lab::LabHandle>, past: u64| {
        let lab = Arc::clone(lab);
        async move {
            tokio::time::timeout(PATIENCE, async {
                while lab.clock().state().step <= past {
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                }
            })
            .await
            .is_ok()
        }
    };
    assert!(step_after(&lab, moving).await, "the lab steps while its permit holds");
    held.store(false, Ordering::Relaxed);
    // The batch under way when the permit ended may finish; after it, nothing moves.
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    let stopped = lab.clock().state().step;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(lab.clock().state().step, stopped, "time stands still once the permit ends");
    assert_eq!(lab.clock().state().mode, LabMode::Running, "still running, as far as anyone here can tell");
    lab.close();
}

#[tokio::test]
async fn every_server_lists_every_servers_labs() {
    let (a, b, c) = three_servers().await;
    let list = |server: &TestServer| {
        let url = server.url("/api/labs");
        async move {
            let labs: Vec<serde_json::Value> = reqwest::get(url).await.unwrap().json().await.unwrap();
            labs.iter().map(|lab| lab["id"].as_str().unwrap().to_owned()).collect::<Vec<_>>()
        }
    };
    for server in [&a, &b, &c] {
        let listed = tokio::time::timeout(PATIENCE, list(server)).await.expect("the list comes");
        assert_eq!(listed, ["demo", "empty", "other"]);
    }
}
