//! The network face of the server: HTTP routes (JSON API and the browser app's files)
//! and websockets, built on axum.
//!
//! `net` translates and decides nothing: it reads requests (the lab and caller from the
//! path and token, JSON bodies, upload forms), calls the [`crate::classroom`] service,
//! and turns its answers into responses. It holds no state of its own.

mod error;
mod examples;
mod extract;
mod http;
mod labs;
mod programs;
mod robots;
mod uploads;
mod ws;

use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderValue, header};
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use tokio::net::{TcpListener, TcpStream};
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::TraceLayer;

use crate::classroom::Classroom;
use crate::classroom::upload::MAX_UPLOAD_BYTES;

pub use error::AppError;

/// What every request handler can reach.
pub struct AppState {
    /// The labs and their rules.
    pub classroom: Classroom,
    /// Folder of the built browser app (index.html, JS, wasm).
    pub web_dir: PathBuf,
}

/// The whole HTTP surface: `/api/...`, `/ws/labs/{lab}`, `/assets/...` (meshes,
/// textures) and the browser app.
pub fn app(state: Arc<AppState>) -> Router {
    let index = state.web_dir.join("index.html");
    let web = ServeDir::new(&state.web_dir).fallback(ServeFile::new(index));
    // Meshes, textures, the material library. ServeDir refuses `..` and absolute paths,
    // so nothing outside the folder is reachable; a missing file is a plain 404.
    let assets = ServeDir::new(&state.classroom.library().assets_dir);
    let api = Router::new()
        .route("/health", get(http::health))
        .route("/labs", get(http::list_labs).post(labs::create_lab))
        .route("/labs/{lab}", get(labs::get_lab).delete(labs::close_lab))
        .route("/labs/{lab}/join", post(labs::join_lab))
        .route("/join", post(labs::join_by_code))
        .route("/scenes", get(labs::list_scenes))
        .route("/examples", get(examples::list_examples))
        .route("/labs/{lab}/participants", get(labs::participants))
        .route("/labs/{lab}/participants/{id}", axum::routing::delete(labs::remove_participant))
        .route("/labs/{lab}/join-code", post(labs::change_join_code))
        .route("/labs/{lab}/settings", axum::routing::patch(labs::update_settings))
        .route("/labs/{lab}/broadcast", post(labs::broadcast))
        .route("/labs/{lab}/robots", post(uploads::upload_robots).layer(DefaultBodyLimit::max(MAX_UPLOAD_BYTES)))
        .route("/labs/{lab}/control", post(http::control))
        .route("/labs/{lab}/robots/{robot}", get(robots::get_robot).delete(robots::remove_robot))
        .route("/labs/{lab}/robots/{robot}/reset", post(robots::reset_robot))
        .route("/labs/{lab}/objects/{name}/move", post(robots::move_object))
        .route("/labs/{lab}/robots/{robot}/actuators", post(robots::command_actuators))
        .route(
            "/labs/{lab}/robots/{robot}/program",
            get(programs::get_program).put(programs::put_program).layer(DefaultBodyLimit::max(MAX_UPLOAD_BYTES)),
        )
        .route("/labs/{lab}/robots/{robot}/program/restart", post(programs::restart_program))
        .route("/labs/{lab}/robots/{robot}/program/stop", post(programs::stop_program))
        .route("/labs/{lab}/assets/{*path}", get(uploads::uploaded_asset))
        .route("/labs/{lab}/scene", post(uploads::upload_scene).layer(DefaultBodyLimit::max(MAX_UPLOAD_BYTES)))
        .fallback(http::api_not_found);
    Router::new()
        .nest("/api", api)
        .route("/ws/labs/{lab}", get(ws::upgrade))
        .nest_service("/assets", assets)
        .route("/", get(http::index))
        .fallback_service(web)
        // Logs name the path, never the query: a websocket's `?token=` stays out of them.
        .layer(TraceLayer::new_for_http().make_span_with(|request: &axum::http::Request<_>| {
            tracing::info_span!("request", method = %request.method(), path = %request.uri().path())
        }))
        // A page never tells another site where it came from (its address may carry a
        // token).
        .layer(SetResponseHeaderLayer::overriding(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer")))
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
