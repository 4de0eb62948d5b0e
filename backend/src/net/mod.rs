//! The network face of the server: HTTP routes (JSON API and the browser app's files)
//! and websockets, built on axum.
//!
//! `net` holds no simulation state of its own: it authenticates callers, checks their
//! requests, and forwards them to labs through [`crate::lab::LabHandle`].

mod auth;
mod error;
mod http;
mod ws;

use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::routing::{get, post};
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
}

/// The whole HTTP surface: `/api/...`, `/ws/labs/{lab}` and the browser app.
pub fn app(state: Arc<AppState>) -> Router {
    let index = state.web_dir.join("index.html");
    let web = ServeDir::new(&state.web_dir).fallback(ServeFile::new(index));
    let api = Router::new()
        .route("/health", get(http::health))
        .route("/labs", get(http::list_labs))
        .route("/labs/{lab}", get(http::get_lab))
        .route("/labs/{lab}/control", post(http::control))
        .fallback(http::api_not_found);
    Router::new()
        .nest("/api", api)
        .route("/ws/labs/{lab}", get(ws::upgrade))
        .route("/", get(http::index))
        .fallback_service(web)
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}
