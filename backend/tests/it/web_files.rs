//! The browser app's files over real HTTP: the precompressed copy the client accepts,
//! `Vary: Accept-Encoding`, a year of caching for content-hashed names, revalidation
//! for the page, and the page for every other path.

use crate::common;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use vlab_server::classroom::{Classroom, ClassroomConfig};
use vlab_server::net::{self, AppState, Limits};

const WASM: &str = "vlab_frontend_bg-0123456789abcdef.wasm";
const GLUE: &str = "vlab_frontend-fedcba9876543210.js";
const PAGE: &str = "<!doctype html><title>VLab</title>";
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// A web folder as `cargo xtask web` writes it; each copy holds distinct bytes, so the
/// test sees which one was sent.
struct WebDir(PathBuf);

impl WebDir {
    fn new() -> WebDir {
        // Tests run side by side in one process: one folder each.
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("vlab-web-files-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let files: [(&str, &[u8]); 6] = [
            ("index.html", PAGE.as_bytes()),
            (WASM, b"\0asm raw"),
            (&format!("{WASM}.br"), b"brotli bytes"),
            (&format!("{WASM}.gz"), b"gzip bytes"),
            (GLUE, b"export default function init() {}"),
            ("style.css", b"body {}"),
        ];
        for (name, bytes) in files {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
        WebDir(dir)
    }
}

impl Drop for WebDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

struct Server {
    addr: std::net::SocketAddr,
    _stop: tokio::sync::oneshot::Sender<()>,
    _web: WebDir,
}

impl Server {
    async fn start() -> Server {
        let web = WebDir::new();
        let classroom = Classroom::new(ClassroomConfig::default());
        let state = Arc::new(AppState { classroom, web_dir: web.0.clone(), limits: Limits::default(), peers: None });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            net::serve(listener, state, async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
        });
        Server { addr, _stop: stop, _web: web }
    }

    /// GETs `path` with `Accept-Encoding: accept` (none when `None`); the client
    /// decompresses nothing, so the body is the bytes on the wire.
    async fn get(&self, path: &str, accept: Option<&str>) -> reqwest::Response {
        let mut request = reqwest::Client::new().get(format!("http://{}{path}", self.addr));
        if let Some(accept) = accept {
            request = request.header("accept-encoding", accept);
        }
        tokio::time::timeout(common::PATIENCE, request.send()).await.unwrap().unwrap()
    }
}

fn header(response: &reqwest::Response, name: &str) -> Option<String> {
    response.headers().get(name).map(|value| value.to_str().unwrap().to_string())
}

#[tokio::test]
async fn a_client_accepting_brotli_gets_the_brotli_copy() {
    let server = Server::start().await;

    let response = server.get(&format!("/{WASM}"), Some("gzip, deflate, br")).await;

    assert_eq!(response.status(), 200);
    assert_eq!(header(&response, "content-encoding").as_deref(), Some("br"));
    assert_eq!(header(&response, "content-type").as_deref(), Some("application/wasm"));
    assert_eq!(header(&response, "vary").as_deref(), Some("accept-encoding"));
    assert_eq!(response.bytes().await.unwrap().as_ref(), b"brotli bytes");
}

#[tokio::test]
async fn a_client_accepting_only_gzip_gets_the_gzip_copy() {
    let server = Server::start().await;

    let response = server.get(&format!("/{WASM}"), Some("gzip, deflate")).await;

    assert_eq!(header(&response, "content-encoding").as_deref(), Some("gzip"));
    assert_eq!(header(&response, "content-type").as_deref(), Some("application/wasm"));
    assert_eq!(response.bytes().await.unwrap().as_ref(), b"gzip bytes");
}

#[tokio::test]
async fn a_client_accepting_no_encoding_gets_the_raw_file() {
    let server = Server::start().await;

    for accept in [None, Some("identity")] {
        let response = server.get(&format!("/{WASM}"), accept).await;

        assert_eq!(header(&response, "content-encoding"), None, "{accept:?}");
        assert_eq!(header(&response, "content-type").as_deref(), Some("application/wasm"));
        assert_eq!(response.bytes().await.unwrap().as_ref(), b"\0asm raw", "{accept:?}");
    }
}

#[tokio::test]
async fn a_file_without_compressed_copies_is_sent_raw_to_any_client() {
    let server = Server::start().await;

    let response = server.get(&format!("/{GLUE}"), Some("gzip, br")).await;

    assert_eq!(header(&response, "content-encoding"), None);
    assert_eq!(response.bytes().await.unwrap().as_ref(), b"export default function init() {}");
}

#[tokio::test]
async fn content_hashed_names_are_cached_for_a_year_and_fixed_names_are_revalidated() {
    let server = Server::start().await;

    for hashed in [WASM, GLUE] {
        let response = server.get(&format!("/{hashed}"), Some("br")).await;
        assert_eq!(header(&response, "cache-control").as_deref(), Some(IMMUTABLE), "{hashed}");
    }
    for fixed in ["/", "/index.html", "/style.css"] {
        let response = server.get(fixed, Some("br")).await;
        assert_eq!(response.status(), 200, "{fixed}");
        assert_eq!(header(&response, "cache-control").as_deref(), Some("no-cache"), "{fixed}");
    }
}

#[tokio::test]
async fn any_other_path_gets_the_page_revalidated() {
    let server = Server::start().await;

    // A route of the app, and a hashed name of an older build that is gone: the page,
    // never kept as if it were that file.
    for path in ["/labs/demo", "/vlab_frontend-00000000000000ff.js"] {
        let response = server.get(path, Some("gzip, br")).await;

        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(header(&response, "cache-control").as_deref(), Some("no-cache"), "{path}");
        assert_eq!(header(&response, "content-type").as_deref(), Some("text/html"), "{path}");
        assert_eq!(response.text().await.unwrap(), PAGE, "{path}");
    }
}

#[tokio::test]
async fn a_revalidated_unchanged_file_is_not_sent_again() {
    let server = Server::start().await;
    let first = server.get(&format!("/{WASM}"), Some("br")).await;
    let modified = header(&first, "last-modified").expect("a Last-Modified to revalidate against");

    let response = reqwest::Client::new()
        .get(format!("http://{}/{WASM}", server.addr))
        .header("accept-encoding", "br")
        .header("if-modified-since", modified)
        .send()
        .await
        .unwrap();

    assert_eq!(response.status(), 304);
    assert_eq!(header(&response, "cache-control").as_deref(), Some(IMMUTABLE));
}
