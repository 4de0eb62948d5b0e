//! A real VLab server on a free port, and clients that talk to it over real HTTP and
//! real websockets.

#![allow(dead_code, missing_docs)]

pub mod binary;
pub mod postgres;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async};
use vlab_protocol::{ClientMsg, ControlAction, Frame, LabState, PROTOCOL_VERSION, ServerMsg};
use vlab_server::classroom::{Classroom, ClassroomConfig};
use vlab_server::lab::{LabConfig, LabHandle};
use vlab_server::net::{self, AppState, Limits};
use vlab_server::scene::{BodyModel, Motion, Palette, PartModel, Pose, SceneModel, Shape, demo_scene};
use vlab_server::secret::TokenDigest;

pub const TOKEN: &str = "instructor-secret";
/// Long enough for a loaded CI machine; a guard against hangs, not a performance bound.
pub const PATIENCE: Duration = Duration::from_secs(20);

pub struct TestServer {
    pub addr: SocketAddr,
    pub http: reqwest::Client,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    state: Arc<AppState>,
}

impl TestServer {
    /// Serves the demo lab (`demo`), running or paused, plus labs `other` and `empty`.
    pub async fn start(running: bool) -> TestServer {
        TestServer::start_with(demo_scene(1), running).await
    }

    /// Serves `scene` as lab `demo`, plus the demo scene as lab `other` and a lab
    /// `empty` created without a scene.
    pub async fn start_with(scene: SceneModel, running: bool) -> TestServer {
        TestServer::serve(three_labs(scene, running)).await
    }

    /// `start(running)`, within `limits` instead of the defaults.
    pub async fn start_with_limits(running: bool, limits: Limits) -> TestServer {
        TestServer::serve_with_limits(three_labs(demo_scene(1), running), limits).await
    }

    /// Serves `classroom` over real HTTP and websockets on a free port of 127.0.0.1,
    /// within the default limits (those of `vlab serve`).
    pub async fn serve(classroom: Classroom) -> TestServer {
        TestServer::serve_with_limits(classroom, Limits::default()).await
    }

    /// Serves `classroom` on a free port of 127.0.0.1 within `limits`.
    pub async fn serve_with_limits(classroom: Classroom, limits: Limits) -> TestServer {
        let state = Arc::new(AppState {
            classroom,
            web_dir: std::env::temp_dir().join("vlab-no-web-dir"),
            limits,
            peers: None,
        });
        TestServer::serve_state(state).await
    }

    /// Serves `classroom` as server `me` of cluster `cluster`, whose servers meet on
    /// `nats` and whose directory is `owners`.
    pub async fn serve_in_cluster(
        classroom: Classroom,
        nats: async_nats::Client,
        cluster: &str,
        me: &str,
        owners: Arc<dyn vlab_server::net::peers::Owners>,
    ) -> TestServer {
        let peers = Arc::new(vlab_server::net::peers::Peers::new(nats, cluster, me.to_owned(), owners));
        let state = Arc::new(AppState {
            classroom,
            web_dir: std::env::temp_dir().join("vlab-no-web-dir"),
            limits: Limits::default(),
            peers: Some(Arc::clone(&peers)),
        });
        vlab_server::net::peers::serve_owned(peers, Arc::clone(&state), net::app(Arc::clone(&state)))
            .await
            .expect("the server listens to the cluster");
        TestServer::serve_state(state).await
    }

    /// Serves `state` on a free port of 127.0.0.1.
    async fn serve_state(state: Arc<AppState>) -> TestServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (shutdown, stop) = tokio::sync::oneshot::channel::<()>();
        let served = Arc::clone(&state);
        tokio::spawn(async move {
            net::serve(listener, served, async {
                let _ = stop.await;
            })
            .await
            .unwrap();
        });
        TestServer { addr, http: reqwest::Client::new(), shutdown: Some(shutdown), state }
    }

    /// The classroom it serves.
    pub fn classroom(&self) -> &Classroom {
        &self.state.classroom
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub async fn get_json(&self, path: &str) -> (u16, serde_json::Value) {
        let response = self.http.get(self.url(path)).send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap())
    }

    /// POSTs a raw body to `/api/labs/{lab}/control` with an optional bearer token.
    pub async fn control_raw(&self, lab: &str, token: Option<&str>, body: &str) -> (u16, serde_json::Value) {
        let mut request = self.http.post(self.url(&format!("/api/labs/{lab}/control"))).body(body.to_owned());
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap())
    }

    /// An instructor's control command that must succeed.
    pub async fn control(&self, lab: &str, action: ControlAction) -> LabState {
        let (status, body) = self.control_raw(lab, Some(TOKEN), &serde_json::to_string(&action).unwrap()).await;
        assert_eq!(status, 200, "{body}");
        serde_json::from_value(body).unwrap()
    }

    /// A student joins lab `demo` (code `DEMOCODE`) as `name`; their session token.
    pub async fn join_demo(&self, name: &str) -> String {
        let request = serde_json::json!({ "join_code": "DEMOCODE", "name": name });
        let response = self.http.post(self.url("/api/labs/demo/join")).json(&request).send().await.unwrap();
        let joined: serde_json::Value = response.json().await.unwrap();
        joined["token"].as_str().unwrap_or_else(|| panic!("{name} could not join: {joined}")).to_owned()
    }

    /// `token` adds the robots `description` (scene language, as plain text) to lab
    /// `demo`; the status and the JSON answer.
    pub async fn add_demo_robots(&self, token: &str, description: String) -> (u16, serde_json::Value) {
        let url = self.url("/api/labs/demo/robots");
        let response = self.http.post(url).bearer_auth(token).body(description).send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap())
    }

    /// `token` adds to lab `demo` the robot `describe(x, z)` describes, first at `spot`;
    /// where that is taken (the demo's props roll, its rovers start somewhere), at the
    /// spot the refusal offers, as a student would. The status and answer of the last try.
    pub async fn add_demo_robot_near(
        &self,
        token: &str,
        spot: (f64, f64),
        describe: impl Fn(f64, f64) -> String,
    ) -> (u16, serde_json::Value) {
        let (mut x, mut z) = spot;
        let mut tries = 0;
        loop {
            let (status, reply) = self.add_demo_robots(token, describe(x, z)).await;
            tries += 1;
            match offered_spot(&reply) {
                Some(offered) if status == 422 && tries < 5 => (x, z) = offered,
                _ => return (status, reply),
            }
        }
    }

    /// The instructor uploads a scene bundle to lab `demo`: `scene` as `main.vlab`, and
    /// each of `files` (name, bytes) under its name; the raw answer.
    pub async fn upload_demo_bundle(&self, scene: &str, files: &[(&str, &[u8])]) -> reqwest::Response {
        let mut form = reqwest::multipart::Form::new()
            .part("scene", reqwest::multipart::Part::text(scene.to_owned()).file_name("main.vlab"));
        for &(name, bytes) in files {
            form =
                form.part(name.to_owned(), reqwest::multipart::Part::bytes(bytes.to_vec()).file_name(name.to_owned()));
        }
        self.http.post(self.url("/api/labs/demo/scene")).bearer_auth(TOKEN).multipart(form).send().await.unwrap()
    }

    /// The instructor changes lab `demo`'s settings (`patch`: JSON).
    pub async fn patch_demo_settings(&self, patch: serde_json::Value) {
        let response =
            self.http.patch(self.url("/api/labs/demo/settings")).bearer_auth(TOKEN).json(&patch).send().await.unwrap();
        assert_eq!(response.status().as_u16(), 200, "{}", response.text().await.unwrap());
    }

    pub async fn lab_state(&self, lab: &str) -> serde_json::Value {
        let (status, body) = self.get_json(&format!("/api/labs/{lab}")).await;
        assert_eq!(status, 200, "{body}");
        body
    }

    pub async fn connect(&self, lab: &str, token: Option<&str>) -> Client {
        let query = match token {
            Some(token) => format!("protocol={PROTOCOL_VERSION}&token={token}"),
            None => format!("protocol={PROTOCOL_VERSION}"),
        };
        self.connect_raw(&format!("/ws/labs/{lab}?{query}")).await
    }

    /// A viewer whose socket has a tiny receive buffer, so that not reading backs up
    /// the server's writes quickly.
    pub async fn connect_with_small_buffer(&self, lab: &str) -> Client {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(2048).unwrap();
        let stream = socket.connect(self.addr).await.unwrap();
        let url = format!("ws://{}/ws/labs/{lab}?protocol={PROTOCOL_VERSION}", self.addr);
        let (socket, _) = tokio_tungstenite::client_async(url, MaybeTlsStream::Plain(stream)).await.unwrap();
        Client::new(socket)
    }

    /// A viewer's websocket from the local address `from` (any of 127.0.0.0/8, so that
    /// a test can play several clients), or the server's refusal.
    pub async fn try_connect_from(
        &self,
        from: std::net::IpAddr,
        lab: &str,
    ) -> Result<Client, tokio_tungstenite::tungstenite::Error> {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(SocketAddr::new(from, 0)).unwrap();
        let stream = socket.connect(self.addr).await.unwrap();
        let url = format!("ws://{}/ws/labs/{lab}?protocol={PROTOCOL_VERSION}", self.addr);
        let (socket, _) = tokio_tungstenite::client_async(url, MaybeTlsStream::Plain(stream)).await?;
        Ok(Client::new(socket))
    }

    pub async fn connect_raw(&self, path_and_query: &str) -> Client {
        let (socket, _) = connect_async(format!("ws://{}{path_and_query}", self.addr)).await.unwrap();
        Client::new(socket)
    }
}

/// `scene` as lab `demo`, the demo scene as lab `other` and a lab `empty` without a
/// scene, each with the join code `{ID}CODE`.
pub fn three_labs(scene: SceneModel, running: bool) -> Classroom {
    let classroom =
        Classroom::new(ClassroomConfig { server_key: Some(TokenDigest::of(TOKEN)), ..ClassroomConfig::default() });
    for (id, scene) in [("demo", scene), ("other", demo_scene(2)), ("empty", SceneModel::empty())] {
        classroom.registry.insert(test_lab(&classroom, id, scene, running));
    }
    classroom
}

/// Lab `id` of `scene` as the tests open it in `classroom`: its instructor's token is
/// [`TOKEN`], its join code `<ID>CODE`, its seed 1, and it records into the classroom's
/// recordings (when the classroom keeps any).
pub fn test_lab(classroom: &Classroom, id: &str, scene: SceneModel, running: bool) -> Arc<LabHandle> {
    LabHandle::open(LabConfig {
        id: id.into(),
        name: format!("Lab {id}"),
        scene,
        instructor: TokenDigest::of(TOKEN),
        start_running: running,
        seed: 1,
        join_code: format!("{}CODE", id.to_uppercase()),
        settings: Default::default(),
        students: vec![],
        programs: Default::default(),
        recording: classroom.recording_sink(),
        first_run: 1,
    })
    .unwrap()
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        self.state.classroom.shut_down();
    }
}

/// What a client received. (Test-only: a few messages alive at a time, so boxing the
/// large variant buys nothing.)
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Received {
    Json(ServerMsg),
    Frame(Frame),
    /// A camera's image for a page that watches it.
    Camera(vlab_protocol::CameraView),
    Closed(Option<u16>),
}

pub struct Client {
    pub socket: WebSocketStream<MaybeTlsStream<TcpStream>>,
    /// Reads the frames, most written as changes from the frame before.
    frames: vlab_protocol::FrameDecoder,
}

impl Client {
    pub fn new(socket: WebSocketStream<MaybeTlsStream<TcpStream>>) -> Client {
        Client { socket, frames: vlab_protocol::FrameDecoder::new() }
    }

    pub async fn next(&mut self) -> Received {
        loop {
            let message = tokio::time::timeout(PATIENCE, self.socket.next()).await.expect("nothing received in time");
            match message {
                None => return Received::Closed(None),
                Some(Err(e)) => panic!("websocket error: {e}"),
                Some(Ok(Message::Text(text))) => {
                    let message = serde_json::from_str(text.as_str()).unwrap_or_else(|e| panic!("{e}: {text}"));
                    if let ServerMsg::Snapshot(snapshot) = &message {
                        // The frames that follow place the scene's linked bodies (wheels) by it.
                        self.frames.set_links(&snapshot.links).expect("the snapshot's links are usable");
                    }
                    return Received::Json(message);
                }
                Some(Ok(Message::Binary(bytes))) if vlab_protocol::CameraView::is_camera_view(&bytes) => {
                    return Received::Camera(vlab_protocol::CameraView::decode(&bytes).unwrap());
                }
                Some(Ok(Message::Binary(bytes))) => return Received::Frame(self.frames.decode(&bytes).unwrap()),
                Some(Ok(Message::Close(frame))) => return Received::Closed(frame.map(|f| u16::from(f.code))),
                Some(Ok(_)) => continue,
            }
        }
    }

    /// Reads until `pick` accepts a message, returning what it extracted.
    pub async fn until<T>(&mut self, mut pick: impl FnMut(&Received) -> Option<T>) -> T {
        loop {
            let received = self.next().await;
            if let Some(value) = pick(&received) {
                return value;
            }
            if let Received::Closed(code) = received {
                panic!("closed ({code:?}) before the expected message");
            }
        }
    }

    pub async fn send(&mut self, message: &ClientMsg) {
        self.send_text(&serde_json::to_string(message).unwrap()).await;
    }

    pub async fn send_text(&mut self, text: &str) {
        self.socket.send(Message::text(text)).await.unwrap();
    }

    /// Reads the join sequence: Hello, Snapshot, State, keyframe.
    pub async fn join_sequence(&mut self) -> (ServerMsg, vlab_protocol::SceneSnapshot, LabState, Frame) {
        let Received::Json(hello @ ServerMsg::Hello { .. }) = self.next().await else { panic!("no hello first") };
        let Received::Json(ServerMsg::Snapshot(snapshot)) = self.next().await else { panic!("no snapshot second") };
        let Received::Json(ServerMsg::State(state)) = self.next().await else { panic!("no state third") };
        let Received::Frame(keyframe) = self.next().await else { panic!("no keyframe fourth") };
        (hello, snapshot, state, keyframe)
    }

    /// Reads until a State message with this mode and at least this step.
    pub async fn state_where(&mut self, accept: impl Fn(&LabState) -> bool) -> LabState {
        self.until(|r| match r {
            Received::Json(ServerMsg::State(state)) if accept(state) => Some(state.clone()),
            _ => None,
        })
        .await
    }
}

/// A room full of balls that bounce forever (no friction, perfectly elastic): every
/// frame carries hundreds of poses, so a stalled reader backs up quickly.
pub fn busy_scene() -> SceneModel {
    let palette = Palette::default();
    let mut scene = SceneModel::empty();
    let wall = |name: &str, center: [f32; 3], half_extents: [f32; 3]| BodyModel {
        name: name.into(),
        motion: Motion::Fixed,
        pose: Pose::at(center),
        parts: vec![PartModel {
            shape: Shape::Box { half_extents },
            local: Pose::IDENTITY,
            material: palette.get("Grey"),
            density: 0.0,
            friction: 0.0,
            restitution: 1.0,
            name: None,
            mesh: None,
            drawn_only: false,
        }],
        robot: None,
        owner: None,
    };
    scene.bodies.push(wall("floor", [5.0, -0.5, 5.0], [6.0, 0.5, 6.0]));
    for i in 0..300 {
        let (x, z) = ((i % 20) as f32 * 0.5 + 0.25, (i / 20) as f32 * 0.6 + 0.3);
        scene.bodies.push(BodyModel {
            name: format!("ball_{i}"),
            motion: Motion::Dynamic,
            pose: Pose::at([x, 1.0 + (i % 7) as f32 * 0.3, z]),
            parts: vec![PartModel {
                shape: Shape::Sphere { radius: 0.1 },
                local: Pose::IDENTITY,
                material: palette.get("Red"),
                density: 500.0,
                friction: 0.0,
                restitution: 1.0,
                name: None,
                mesh: None,
                drawn_only: false,
            }],
            robot: None,
            owner: None,
        });
    }
    scene
}

/// An empty fenced yard, 12 m × 12 m: room to drive and nothing else moving.
pub fn yard() -> SceneModel {
    use vlab_server::scene::{MapLoader, Options, interpret};
    let source = "environment wallrect { width 12; length 12; height 0.5; gravity -9.81; }";
    interpret(source, "yard.vlab", &MapLoader::new(), &Options::default()).unwrap().model
}

/// Whether this machine can confine Python programs (where it cannot, the refusal is
/// the clear one, and a test has nothing to run).
pub fn python_runs_here() -> bool {
    use vlab_server::controller::{ProgramError, ProgramSpec, PythonProgram};
    match PythonProgram::start(ProgramSpec::new("probe", "from vlab import Robot\nRobot().step()\n")) {
        Ok(mut program) => {
            let _ = program.stop();
            true
        }
        Err(ProgramError::SandboxUnavailable(reason)) => {
            eprintln!("Python programs are refused on this machine, as they must be: {reason}");
            false
        }
        Err(e) => panic!("a trivial program did not start: {e}"),
    }
}

/// The spot a refused upload or move offers ("... it would fit at x 1.25, z 3.00"), if it
/// offers one: an upload's reply says it in its first error, a move's in its error.
pub fn offered_spot(reply: &serde_json::Value) -> Option<(f64, f64)> {
    let message = reply["errors"][0]["message"].as_str().or_else(|| reply["error"]["message"].as_str())?;
    let (_, spot) = message.rsplit_once("it would fit at x ")?;
    let (x, z) = spot.split_once(", z ")?;
    Some((x.parse().ok()?, z.trim_end_matches(|c: char| !c.is_ascii_digit()).parse().ok()?))
}

/// Polls `check` every 200 ms until it gives a value; panics saying `what` never
/// happened after `hang` (a guard against a hang, not a measure).
pub async fn eventually<T>(what: &str, hang: Duration, mut check: impl AsyncFnMut() -> Option<T>) -> T {
    let poll = async {
        loop {
            if let Some(value) = check().await {
                return value;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    };
    tokio::time::timeout(hang, poll).await.unwrap_or_else(|_| panic!("never happened: {what}"))
}
