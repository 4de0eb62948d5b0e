//! The network face of the server: HTTP routes (JSON API and the browser app's files)
//! and websockets, built on axum.
//!
//! `net` holds no simulation state of its own: it authenticates callers, checks their
//! requests, and forwards them to labs through [`crate::lab::LabHandle`].

mod auth;
pub mod classroom;
mod error;
mod examples;
mod http;
mod programs;
mod robots;
pub mod scene_upload;
mod ws;

use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use tokio::net::{TcpListener, TcpStream};
use tower_http::services::{ServeDir, ServeFile};
use tower_http::trace::TraceLayer;

use crate::lab::Labs;

pub use error::AppError;

/// What every request handler can reach.
pub struct AppState {
    /// The running labs.
    pub labs: Labs,
    /// Folder of the built browser app (index.html, JS, wasm).
    pub web_dir: PathBuf,
    /// The scene library: where uploaded scenes' includes are also looked for.
    pub scenes_dir: PathBuf,
    /// Meshes and textures scenes may refer to.
    pub assets_dir: PathBuf,
    /// Meshes uploaded with scenes, served by their lab.
    pub uploaded_assets: scene_upload::UploadedAssets,
    /// The key that creates labs (the demo lab's instructor token).
    pub server_key: Option<String>,
    /// Whether anybody may create a lab (and become its instructor).
    pub open_labs: bool,
    /// Where labs and sessions are kept across restarts (`None`: in memory only).
    pub store: Option<std::sync::Mutex<crate::store::Store>>,
}

impl AppState {
    /// State for `labs`, with the given browser app folder and the workspace's own
    /// `scenes/` and `assets/` folders.
    pub fn new(labs: Labs, web_dir: PathBuf) -> AppState {
        AppState {
            labs,
            web_dir,
            scenes_dir: scene_upload::default_dir("scenes"),
            assets_dir: scene_upload::default_dir("assets"),
            uploaded_assets: scene_upload::UploadedAssets::default(),
            server_key: None,
            open_labs: false,
            store: None,
        }
    }
}

/// The whole HTTP surface: `/api/...`, `/ws/labs/{lab}`, `/assets/...` (meshes,
/// textures) and the browser app.
pub fn app(state: Arc<AppState>) -> Router {
    let index = state.web_dir.join("index.html");
    let web = ServeDir::new(&state.web_dir).fallback(ServeFile::new(index));
    // Meshes, textures, the material library. ServeDir refuses `..` and absolute paths,
    // so nothing outside the folder is reachable; a missing file is a plain 404.
    let assets = ServeDir::new(&state.assets_dir);
    let api = Router::new()
        .route("/health", get(http::health))
        .route("/labs", get(http::list_labs).post(classroom::create_lab))
        .route("/labs/{lab}", get(classroom::get_lab).delete(classroom::close_lab))
        .route("/labs/{lab}/join", post(classroom::join_lab))
        .route("/join", post(classroom::join_by_code))
        .route("/scenes", get(classroom::list_scenes))
        .route("/examples", get(examples::list_examples))
        .route("/labs/{lab}/participants", get(classroom::participants))
        .route("/labs/{lab}/settings", axum::routing::patch(classroom::update_settings))
        .route("/labs/{lab}/broadcast", post(classroom::broadcast))
        .route(
            "/labs/{lab}/robots",
            post(scene_upload::upload_robots).layer(DefaultBodyLimit::max(scene_upload::MAX_SCENE_UPLOAD_BYTES)),
        )
        .route("/labs/{lab}/control", post(http::control))
        .route("/labs/{lab}/robots/{robot}", get(robots::get_robot).delete(robots::remove_robot))
        .route("/labs/{lab}/robots/{robot}/reset", post(robots::reset_robot))
        .route("/labs/{lab}/objects/{name}/move", post(robots::move_object))
        .route("/labs/{lab}/robots/{robot}/actuators", post(robots::command_actuators))
        .route(
            "/labs/{lab}/robots/{robot}/program",
            get(programs::get_program)
                .put(programs::put_program)
                .layer(DefaultBodyLimit::max(scene_upload::MAX_SCENE_UPLOAD_BYTES)),
        )
        .route("/labs/{lab}/robots/{robot}/program/restart", post(programs::restart_program))
        .route("/labs/{lab}/robots/{robot}/program/stop", post(programs::stop_program))
        .route("/labs/{lab}/assets/{*path}", get(scene_upload::uploaded_asset))
        .route(
            "/labs/{lab}/scene",
            post(scene_upload::upload_scene).layer(DefaultBodyLimit::max(scene_upload::MAX_SCENE_UPLOAD_BYTES)),
        )
        .fallback(http::api_not_found);
    Router::new()
        .nest("/api", api)
        .route("/ws/labs/{lab}", get(ws::upgrade))
        .nest_service("/assets", assets)
        .route("/", get(http::index))
        .fallback_service(web)
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}

/// Kernel send buffer per connection. Small on purpose: a viewer that reads slowly
/// backs up into its merged frame slot within ~100 ms of frames instead of into
/// megabytes of socket buffer, so it sees the present, not the past.
const SEND_BUFFER_BYTES: usize = 64 * 1024;

/// Serves `app(state)` on `listener` until `shutdown` completes.
pub async fn serve(
    listener: TcpListener,
    state: Arc<AppState>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let listener = listener.tap_io(tune_connection);
    axum::serve(listener, app(state)).with_graceful_shutdown(shutdown).await
}

fn tune_connection(tcp: &mut TcpStream) {
    // Frames are small and latency matters more than packet count.
    if let Err(e) = tcp.set_nodelay(true) {
        tracing::debug!(error = %e, "could not set TCP_NODELAY");
    }
    if let Err(e) = socket2::SockRef::from(&*tcp).set_send_buffer_size(SEND_BUFFER_BYTES) {
        tracing::debug!(error = %e, "could not set the send buffer size");
    }
}
