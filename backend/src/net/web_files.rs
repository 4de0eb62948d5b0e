//! Serves the built browser app (`dist/`): precompressed when the client accepts it,
//! kept forever under content-hashed names, revalidated on every load under fixed names.
//!
//! `cargo xtask web` writes each bundle file with a hash of its bytes in its name
//! (`vlab_frontend-0123456789abcdef.js`, see [`is_content_hashed`]) and writes a `.br`
//! and a `.gz` copy beside it. So a browser may keep such a file for a year without
//! asking again (a new build has new names), while `index.html`, the only file under a
//! fixed name that names the others, is revalidated on every load (`no-cache`: the
//! browser keeps it but asks whether it changed). Every path that is not a file is the
//! single-page app's own route and gets `index.html`, also `no-cache`.

use std::path::Path;

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::Response;
use tower::Layer;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;

/// For content-hashed files: their bytes never change under that name.
pub(super) const LASTING: HeaderValue = HeaderValue::from_static("public, max-age=31536000, immutable");
/// For files under fixed names: keep, but ask the server before each use.
pub(super) const REVALIDATE: HeaderValue = HeaderValue::from_static("no-cache");
/// The number of hex digits of the hash in a bundle file's name (64 bits).
pub const HASH_HEX_DIGITS: usize = 16;

/// The service for every path of the browser app below `web_dir`: its files, and
/// `index.html` for any other path. `.wasm` is served as `application/wasm` (the
/// browser's streaming compilation requires it).
pub fn service(web_dir: &Path) -> Router {
    let index = ServeFile::new(web_dir.join("index.html")).precompressed_br().precompressed_gzip();
    let files = ServeDir::new(web_dir)
        .precompressed_br()
        .precompressed_gzip()
        .fallback(SetResponseHeaderLayer::overriding(header::CACHE_CONTROL, REVALIDATE).layer(index));
    Router::new().fallback_service(files).layer(middleware::from_fn(cache_policy))
}

/// The layer for a response that is the page itself under a fixed address (`/`).
pub fn revalidated() -> SetResponseHeaderLayer<HeaderValue> {
    SetResponseHeaderLayer::overriding(header::CACHE_CONTROL, REVALIDATE)
}

/// Sets `Cache-Control` from the requested name (unless the fallback already chose)
/// and `Vary: Accept-Encoding`, since the body may be the `.br` or `.gz` copy.
async fn cache_policy(request: Request, next: Next) -> Response {
    let hashed = is_content_hashed(request.uri().path());
    let mut response = next.run(request).await;
    let found = response.status().is_success() || response.status() == StatusCode::NOT_MODIFIED;
    let headers = response.headers_mut();
    headers.append(header::VARY, HeaderValue::from_static("accept-encoding"));
    if !headers.contains_key(header::CACHE_CONTROL) {
        headers.insert(header::CACHE_CONTROL, if hashed && found { LASTING } else { REVALIDATE });
    }
    response
}

/// Whether the last segment of `path` is a content-hashed bundle name:
/// `<stem>-<16 lowercase hex digits>.<extension>` (the form `cargo xtask web` writes).
pub fn is_content_hashed(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or_default();
    let Some((stem, _extension)) = name.split_once('.') else {
        return false;
    };
    let Some((base, hash)) = stem.rsplit_once('-') else {
        return false;
    };
    !base.is_empty()
        && hash.len() == HASH_HEX_DIGITS
        && hash.bytes().all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte))
}

#[cfg(test)]
mod tests {
    use super::is_content_hashed;

    #[test]
    fn hashed_names_are_recognised() {
        assert!(is_content_hashed("/vlab_frontend-0123456789abcdef.js"));
        assert!(is_content_hashed("/vlab_frontend_bg-0123456789abcdef.wasm"));
        assert!(is_content_hashed("/style-fedcba9876543210.css"));
    }

    #[test]
    fn fixed_and_malformed_names_are_not() {
        for path in [
            "/",
            "/index.html",
            "/vlab_frontend.js",
            "/style.css",
            "/labs/demo",
            "/-0123456789abcdef.js",
            "/vlab_frontend-0123456789abcde.js",
            "/vlab_frontend-0123456789ABCDEF.js",
            "/vlab_frontend-0123456789abcdefg.js",
            "/vlab_frontend-0123456789abcdef",
            "/vlab_frontend-0123456789abcdef.js/",
        ] {
            assert!(!is_content_hashed(path), "{path}");
        }
    }
}
