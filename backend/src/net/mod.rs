//! The network face of the server: HTTP routes (JSON API and the browser app's files)
//! and websockets, built on axum.
//!
//! `net` translates and decides nothing: it reads requests (the lab and caller from the
//! path and token, JSON bodies, upload forms), calls the [`crate::classroom`] service,
//! and turns its answers into responses. It holds no state of its own beyond the counts
//! that hold clients to the server's [`Limits`] (connections and request rates per
//! address; docs/operations.md).

mod assignments;
mod attempts;
mod classes;
mod error;
mod examples;
mod extract;
pub mod forward;
mod guard;
mod http;
mod labs;
pub mod limits;
mod objects;
pub mod peers;
mod programs;
mod recording;
mod remote;
mod robots;
mod server;
mod uploads;
mod web_files;
mod ws;
mod ws_place;
mod ws_wakes;

use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderValue, header};
use axum::routing::{get, post};
use tokio::net::TcpListener;
use tower_http::services::ServeDir;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::TraceLayer;

use crate::classroom::Classroom;
use crate::classroom::upload::MAX_UPLOAD_BYTES;

pub use error::AppError;
pub use limits::Limits;
pub use remote::CONTROLLER_SEND_TIMEOUT;

/// What every request handler can reach.
pub struct AppState {
    /// The labs and their rules.
    pub classroom: Classroom,
    /// Folder of the built browser app (index.html, JS, wasm).
    pub web_dir: PathBuf,
    /// Connections, request rates and timeouts (docs/operations.md).
    pub limits: Limits,
    /// The other servers of a cluster (`None`: this server is alone).
    pub peers: Option<Arc<peers::Peers>>,
}

/// The whole HTTP surface: `/api/...`, `/ws/labs/{lab}`, `/assets/...` (meshes,
/// textures) and the browser app (precompressed and cached, see `web_files`).
pub fn app(state: Arc<AppState>) -> Router {
    let web = web_files::service(&state.web_dir);
    // Meshes, textures, the material library. ServeDir refuses `..` and absolute paths,
    // so nothing outside the folder is reachable; a missing file is a plain 404.
    let assets = ServeDir::new(&state.classroom.library().assets_dir);
    let rates = Arc::new(guard::RateLimits::new(&state.limits));
    let api = Router::new()
        .route("/health", get(http::health))
        .route("/labs", get(http::list_labs).post(labs::create_lab))
        .route("/labs/{lab}", get(labs::get_lab).delete(labs::close_lab))
        .route("/labs/{lab}/join", post(labs::join_lab))
        .route("/join", post(labs::join_by_code))
        .route("/scenes", get(labs::list_scenes))
        .route("/classes", post(classes::create_class))
        .route("/classes/sign-in", post(classes::sign_in))
        .route("/classes/{class}", get(classes::get_class))
        .route("/classes/{class}/students", get(classes::roster).post(classes::add_student))
        .route(
            "/classes/{class}/students/{id}",
            axum::routing::patch(classes::rename_student).delete(classes::remove_student),
        )
        .route("/classes/{class}/students/{id}/reset", post(classes::reset_student))
        .route("/classes/{class}/labs", post(classes::create_lesson))
        .route("/classes/{class}/overview", get(classes::overview))
        .route("/labs/{lab}/enter", post(classes::enter_lesson))
        .route("/classes/{class}/assignments", get(assignments::list_assignments).post(assignments::create_assignment))
        .route("/classes/{class}/assignments/{id}", axum::routing::patch(assignments::change_assignment))
        .route(
            "/classes/{class}/assignments/{id}/submissions",
            get(assignments::list_submissions).post(assignments::submit).layer(DefaultBodyLimit::max(MAX_UPLOAD_BYTES)),
        )
        .route("/classes/{class}/assignments/{id}/evaluate", post(assignments::evaluate))
        .route("/classes/{class}/submissions/{id}/files/{name}", get(assignments::submission_file))
        .route("/classes/{class}/evaluations/{id}", get(assignments::get_evaluation))
        .route("/classes/{class}/evaluations/{id}/trials/{n}/replay", get(assignments::trial_replay))
        .route("/classes/{class}/grades", get(assignments::grades))
        .route("/classes/{class}/grades.csv", get(assignments::grades_csv))
        .route("/examples", get(examples::list_examples))
        .route("/program-types", get(programs::program_types))
        .route("/labs/{lab}/participants", get(labs::participants))
        .route("/labs/{lab}/participants/{id}", axum::routing::delete(labs::remove_participant))
        .route("/labs/{lab}/join-code", post(labs::change_join_code))
        .route("/labs/{lab}/settings", axum::routing::patch(labs::update_settings))
        .route("/labs/{lab}/environment", get(labs::room).patch(labs::change_room))
        .route("/labs/{lab}/broadcast", post(labs::broadcast))
        .route("/labs/{lab}/robots", post(uploads::upload_robots).layer(DefaultBodyLimit::max(MAX_UPLOAD_BYTES)))
        .route("/labs/{lab}/control", post(http::control))
        .route("/labs/{lab}/rewind", post(http::rewind))
        .route("/labs/{lab}/robots/{robot}", get(robots::get_robot).delete(robots::remove_robot))
        .route("/labs/{lab}/robots/{robot}/reset", post(robots::reset_robot))
        .route("/labs/{lab}/robots/{robot}/start", post(robots::set_start))
        .route("/palette", get(objects::palette))
        .route("/labs/{lab}/objects", post(objects::add_objects).layer(DefaultBodyLimit::max(MAX_UPLOAD_BYTES)))
        .route("/labs/{lab}/objects/{name}", axum::routing::delete(objects::remove_object))
        .route("/labs/{lab}/objects/{name}/move", post(robots::move_object))
        .route("/labs/{lab}/robots/{robot}/actuators", post(robots::command_actuators))
        .route(
            "/labs/{lab}/robots/{robot}/program",
            get(programs::get_program).put(programs::put_program).layer(DefaultBodyLimit::max(MAX_UPLOAD_BYTES)),
        )
        .route("/labs/{lab}/robots/{robot}/program/restart", post(programs::restart_program))
        .route("/labs/{lab}/robots/{robot}/program/stop", post(programs::stop_program))
        .route("/labs/{lab}/robots/{robot}/attempts", post(attempts::start_attempt))
        .route("/labs/{lab}/attempts", get(attempts::list_attempts))
        .route("/labs/{lab}/attempts/{id}", get(attempts::get_attempt))
        .route("/labs/{lab}/attempts/{id}/replay", get(attempts::get_replay))
        .route("/labs/{lab}/attempts/{id}/recording.mcap", get(attempts::get_replay_mcap))
        .route("/labs/{lab}/challenge", get(attempts::get_board))
        .route("/labs/{lab}/challenge/run", post(attempts::run_challenge))
        .route("/labs/{lab}/assets/{*path}", get(uploads::uploaded_asset))
        .route("/triangles", get(uploads::mesh_triangles))
        .route("/labs/{lab}/scene", post(uploads::upload_scene).layer(DefaultBodyLimit::max(MAX_UPLOAD_BYTES)))
        .route("/labs/{lab}/scene.vlab", get(labs::save_scene))
        .route("/labs/{lab}/scene.zip", get(labs::save_scene_zip))
        .route("/labs/{lab}/recording", get(recording::summary))
        .route("/labs/{lab}/recording.csv", get(recording::lab_csv))
        .route("/labs/{lab}/recording.mcap", get(recording::lab_mcap))
        .route("/labs/{lab}/robots/{robot}/readings.csv", get(recording::robot_csv))
        .route("/labs/{lab}/robots/{robot}/recording.mcap", get(recording::robot_mcap))
        // Joins, uploads and time control: at most so many per client address (a route
        // layer covers the routes above it: keep it after the last route).
        .route_layer(axum::middleware::from_fn_with_state(Arc::clone(&rates), guard::limit_rates))
        .fallback(http::api_not_found);
    // Attaching a remote controller counts as time control. A router of its own, so
    // that its route layer counts it alone (on the outer router it would count every
    // API request a second time).
    let control = Router::new()
        .route("/ws/labs/{lab}/robots/{robot}/control", get(remote::attach))
        .route_layer(axum::middleware::from_fn_with_state(Arc::clone(&rates), guard::limit_rates));
    Router::new()
        .nest("/api", api)
        .route("/ws/labs/{lab}", get(ws::upgrade))
        .merge(control)
        .nest_service("/assets", assets)
        .route("/", get(http::index).layer(web_files::revalidated()))
        .fallback_service(web)
        // A lab another server of the cluster runs is answered there, its rates counted
        // there (before routing: the rate limits' route layer does not count it here).
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&state), peers::edge::elsewhere))
        // Logs name the path, never the query: a websocket's `?token=` stays out of them.
        .layer(TraceLayer::new_for_http().make_span_with(|request: &axum::http::Request<_>| {
            tracing::info_span!("request", method = %request.method(), path = %request.uri().path())
        }))
        // A page never tells another site where it came from (its address may carry a
        // token).
        .layer(SetResponseHeaderLayer::overriding(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer")))
        // A body must arrive within its bound (a websocket, once upgraded, has none).
        .layer(axum::middleware::from_fn_with_state(state.limits.body_timeout, guard::body_deadline))
        .with_state(state)
}

/// Serves `app(state)` on `listener` until `shutdown` completes, within
/// `state.limits`: connections capped overall and per address, a header read timeout
/// (see `server`).
pub async fn serve(
    listener: TcpListener,
    state: Arc<AppState>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let limits = state.limits.clone();
    server::serve(listener, app(state), limits, shutdown).await
}
