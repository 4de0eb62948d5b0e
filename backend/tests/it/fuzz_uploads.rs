//! A deterministic fuzz loop over the upload reader, run by every `cargo test`: forms
//! mutated at random (boundaries broken, headers garbled, CRLFs missing, part lengths
//! huge or negative, names and bodies that are not UTF-8, fields repeated, files over the
//! limit) and plain bodies are posted to `POST /api/labs/{lab}/scene`. The server never
//! panics and never answers 5xx: either the upload is read into files (and the scene
//! inserted, or refused with positioned errors: 200, 409, 422) or it is refused with a
//! typed error body (400, or 413 past the size limit).
//!
//! The requests go through the server's real router (`net::app`, every layer and the
//! body limit included) in this process, without sockets: the reader is private to it,
//! and thousands of requests then take seconds. Each runs in its own task, so a panic is
//! reported with the case's input.
//!
//! Deterministic, as `backend/lang/tests/fuzz.rs`: each case's generator is seeded from
//! its number (ChaCha8), so a failure names the case and prints its input.
//! `VLAB_FUZZ_ITERATIONS` sets the number of cases for longer runs by hand
//! (docs/operations.md, "Fuzzing").

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::http::header::{AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE};
use axum::http::{HeaderValue, Request};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use tower::ServiceExt;
use vlab_protocol::SceneUploadReply;
use vlab_server::classroom::upload::MAX_UPLOAD_BYTES;
use vlab_server::classroom::{Classroom, ClassroomConfig};
use vlab_server::lab::{LabConfig, LabHandle};
use vlab_server::net::limits::Rate as RequestRate;
use vlab_server::net::{self, AppState, Limits};
use vlab_server::scene::SceneModel;
use vlab_server::secret::TokenDigest;

/// Cases when `VLAB_FUZZ_ITERATIONS` is not set: a few seconds in a debug build.
const DEFAULT_ITERATIONS: u64 = 20_000;

/// The first cases, so many or one in fifty of all, are sent again to a real server
/// over real HTTP.
const REAL_HTTP_CASES: u64 = 300;

use crate::common;

const TOKEN: &str = common::TOKEN;
const LAB: &str = "fuzz";

/// One case in so many carries a part larger than the whole upload may be.
const OVERSIZED_ONE_IN: u32 = 500;

fn iterations() -> u64 {
    match std::env::var("VLAB_FUZZ_ITERATIONS") {
        Ok(text) => text
            .replace('_', "")
            .parse()
            .unwrap_or_else(|_| panic!("VLAB_FUZZ_ITERATIONS must be a number of cases, got {text:?}")),
        Err(_) => DEFAULT_ITERATIONS,
    }
}

struct Rng(ChaCha8Rng);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { self.0.next_u64() as usize % n }
    }

    fn one_in(&mut self, n: u32) -> bool {
        self.0.next_u32().is_multiple_of(n)
    }

    fn byte(&mut self) -> u8 {
        self.0.next_u32() as u8
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

// ---------------------------------------------------------------------------------------
// Forms.

/// One part of a form: its header lines (name, value) and its body.
#[derive(Clone)]
struct Part {
    headers: Vec<(Vec<u8>, Vec<u8>)>,
    body: Vec<u8>,
}

fn part(name: &str, file_name: Option<&str>, content_type: Option<&str>, body: &[u8]) -> Part {
    let mut disposition = format!("form-data; name=\"{name}\"");
    if let Some(file_name) = file_name {
        disposition.push_str(&format!("; filename=\"{file_name}\""));
    }
    let mut headers = vec![(b"Content-Disposition".to_vec(), disposition.into_bytes())];
    if let Some(content_type) = content_type {
        headers.push((b"Content-Type".to_vec(), content_type.as_bytes().to_vec()));
    }
    Part { headers, body: body.to_vec() }
}

/// A few bytes of a PNG: binary, not UTF-8.
const PNG: &[u8] =
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89";
/// The smallest WebAssembly module.
const WASM: &[u8] = b"\x00asm\x01\x00\x00\x00";

/// Valid forms: a scene with an included file, a description with a texture and a mesh,
/// a scene with a program and a module, a scene of one box (inserted once, then a clash).
/// Their scenes add no bodies but the box, so the lab stays small however many pass.
fn form_corpus() -> Vec<Vec<Part>> {
    let text = Some("text/plain; charset=utf-8");
    vec![
        vec![
            part("scene", Some("main.vlab"), text, b"include \"part.vlab\";\nprint_num(n);\n"),
            part("part.vlab", Some("part.vlab"), None, b"num n = 2;\n"),
        ],
        vec![
            part("description", None, None, b"print_str \"hello\";\n"),
            part("texture", Some("tex.png"), Some("image/png"), PNG),
            part(
                "mesh",
                Some("models/cube.obj"),
                Some("application/octet-stream"),
                b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
            ),
        ],
        vec![
            part("scene", Some("robot.vlab"), text, b"num speed = 1.5; print_num(speed * 2);\n"),
            part("program", Some("bot.py"), Some("text/x-python"), b"while True:\n    step()\n"),
            part("module", Some("bot.wasm"), Some("application/wasm"), WASM),
        ],
        vec![part(
            "scene",
            Some("box.vlab"),
            None,
            b"fuzz_box { shape box(0.1, 0.1, 0.1); pos(2, 0.05, 2); material \"Wood\"; }\n",
        )],
    ]
}

const BOUNDARIES: &[&str] = &["fuzzBoundary7MA4YWxkTrZu0gW", "----WebKitFormBoundaryX3b9", "x", "a'()+_,-./:=?b"];

const ODD_NAMES: &[&[u8]] = &[
    b"",
    b"scene",
    b"description",
    b"program",
    b"../../etc/passwd",
    b"/abs.vlab",
    b"a//b.vlab",
    b"dir/./x.vlab",
    b"x.PNG",
    b"y.wasm",
    b"bot\xe2\x80\xaegnp.vlab", // U+202E
    b"\xff\xfe.vlab",
    b"\xc0\xaf.png",
    b"na\"me",
    b"na\\\"me",
    b"a;b=c",
    b"name\r\nX-Injected: 1",
    b"\x00",
    b"\xe6\x97\xa5\xe6\x9c\xac.vlab",
];

const ODD_HEADERS: &[(&[u8], &[u8])] = &[
    (b"Content-Length", b"18446744073709551616"),
    (b"Content-Length", b"-1"),
    (b"Content-Length", b"0"),
    (b"Content-Length", b"99999999999"),
    (b"Content-Transfer-Encoding", b"base64"),
    (b"Content-Type", b"multipart/mixed; boundary=inner"),
    (b"Content-Type", b"\xff\xfe"),
    (b"Content-Disposition", b"form-data"),
    (b"Content-Disposition", b"attachment; filename=\"x.vlab\""),
    (b"Content-Disposition", b"form-data; name=scene; filename*=UTF-8''%E2%80%AE.vlab"),
    (b"Content-Disposition", b"form-data; name=\"scene\"; name=\"program\""),
    (b"", b"no name"),
    (b"X-Empty", b""),
    (b"Bad Header", b"space in the name"),
];

/// A body for a part: not UTF-8, empty, long, or holding boundary-like lines.
fn odd_body(rng: &mut Rng, boundary: &str) -> Vec<u8> {
    match rng.below(6) {
        0 => (0..rng.below(256)).map(|_| rng.byte()).collect(),
        1 => Vec::new(),
        2 => b"print_num(1);\xff\xfe\xc0\x80".to_vec(),
        3 => format!("num a = 1;\r\n--{boundary}\r\nprint_num(a);").into_bytes(),
        4 => format!("--{boundary}--").into_bytes(),
        _ => {
            let len = if rng.one_in(8) { 256 * 1024 } else { 1 + rng.below(4096) };
            let mut body = b"// ".to_vec();
            body.extend(std::iter::repeat_n(*rng.pick(b"x\r\n-\xe2"), len));
            body
        }
    }
}

/// One edit of the parts: duplicated, dropped, renamed, reordered, with odd bodies and
/// headers garbled, missing or added.
fn mutate_parts(rng: &mut Rng, parts: &mut Vec<Part>, boundary: &str) {
    if parts.is_empty() {
        parts.push(part("scene", Some("s.vlab"), None, b"print_num(1);"));
    }
    let i = rng.below(parts.len());
    match rng.below(10) {
        0 => {
            let copy = parts[i].clone();
            let at = rng.below(parts.len() + 1);
            parts.insert(at, copy);
        }
        1 => {
            parts.remove(i);
        }
        2 => {
            let name = *rng.pick(ODD_NAMES);
            let mut value = b"form-data; name=\"".to_vec();
            value.extend_from_slice(name);
            value.push(b'"');
            if rng.one_in(2) {
                value.extend_from_slice(b"; filename=\"");
                let file_name = *rng.pick(ODD_NAMES);
                value.extend_from_slice(file_name);
                value.push(b'"');
            }
            parts[i].headers.retain(|(h, _)| !h.eq_ignore_ascii_case(b"content-disposition"));
            parts[i].headers.insert(0, (b"Content-Disposition".to_vec(), value));
        }
        3 => parts[i].body = odd_body(rng, boundary),
        4 => {
            let (name, value) = *rng.pick(ODD_HEADERS);
            let at = rng.below(parts[i].headers.len() + 1);
            parts[i].headers.insert(at, (name.to_vec(), value.to_vec()));
        }
        5 => {
            // Garbled: a header line without its colon, its quotes, or its case.
            if let Some((name, value)) = parts[i].headers.first_mut() {
                match rng.below(4) {
                    0 => {
                        name.extend_from_slice(b" ");
                        name.append(value);
                    }
                    1 => value.retain(|&b| b != b'"'),
                    2 => *name = name.to_ascii_uppercase(),
                    _ => value.extend(std::iter::repeat_n(b'a', 8192 + rng.below(8192))),
                }
            }
        }
        6 => {
            // More header lines than a part may have.
            let count = 20 + rng.below(60);
            parts[i].headers.extend((0..count).map(|n| (format!("X-H{n}").into_bytes(), b"v".to_vec())));
        }
        7 => parts[i].headers.clear(),
        8 => {
            let j = rng.below(parts.len());
            parts.swap(i, j);
        }
        _ => {
            // The same field twice in one form, with other contents.
            let mut copy = parts[i].clone();
            copy.body = odd_body(rng, boundary);
            parts.push(copy);
        }
    }
}

/// The form as bytes: `--boundary CRLF headers CRLF CRLF body CRLF` per part, then
/// `--boundary--`.
fn render(parts: &[Part], boundary: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for part in parts {
        out.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        for (name, value) in &part.headers {
            out.extend_from_slice(name);
            out.extend_from_slice(b": ");
            out.extend_from_slice(value);
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(&part.body);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    out
}

/// Bytes that mean something in a form.
const FORM_TOKENS: &[&[u8]] = &[
    b"\r\n",
    b"--",
    b"\r\n\r\n",
    b"\n",
    b"\x00",
    b"\xff",
    b": ",
    b"Content-Disposition: form-data; name=\"scene\"\r\n",
];

/// Byte edits of the rendered form: the boundary broken or repeated, CRLFs lost, cut
/// short, bytes flipped or inserted.
fn mutate_rendered(rng: &mut Rng, body: &mut Vec<u8>, boundary: &str) {
    let edits = 1 + rng.below(3);
    for _ in 0..edits {
        let at = rng.below(body.len() + 1);
        match rng.below(9) {
            0 => {
                // CRLF → LF everywhere.
                let mut out = Vec::with_capacity(body.len());
                for (i, &b) in body.iter().enumerate() {
                    if !(b == b'\r' && body.get(i + 1) == Some(&b'\n')) {
                        out.push(b);
                    }
                }
                *body = out;
            }
            1 => body.truncate(at),
            2 if !body.is_empty() => {
                let i = at.min(body.len() - 1);
                body[i] ^= 1 << rng.below(8);
            }
            3 => {
                let token = *rng.pick(FORM_TOKENS);
                body.splice(at..at, token.iter().copied());
            }
            4 => {
                let marker = format!("\r\n--{boundary}{}", rng.pick(&["\r\n", "--", "", "  \r\n"]));
                body.splice(at..at, marker.bytes());
            }
            5 => {
                // Break the boundary where it first appears after `at`.
                let needle = boundary.as_bytes();
                if let Some(found) = body[at..].windows(needle.len()).position(|w| w == needle) {
                    let i = at + found + rng.below(needle.len());
                    body[i] = rng.byte();
                }
            }
            6 => {
                let end = (at + 1 + rng.below(64)).min(body.len());
                body.drain(at..end);
            }
            7 => {
                let len = rng.below(32);
                body.splice(at..at, (0..len).map(|_| rng.byte()));
            }
            _ => {
                // Drop the closing delimiter.
                let closing = format!("--{boundary}--\r\n");
                if body.ends_with(closing.as_bytes()) {
                    body.truncate(body.len() - closing.len());
                }
            }
        }
    }
}

/// The request's `Content-Type`: mostly right, sometimes quoted, missing its boundary,
/// naming another one, or not a form at all.
fn content_type(rng: &mut Rng, boundary: &str) -> Vec<u8> {
    if !rng.one_in(5) {
        return format!("multipart/form-data; boundary={boundary}").into_bytes();
    }
    let b = boundary;
    let text = match rng.below(13) {
        0 => format!("multipart/form-data; boundary=\"{b}\""),
        1 => "multipart/form-data".to_owned(),
        2 => "multipart/form-data; boundary=".to_owned(),
        3 => "multipart/form-data; boundary=otherBoundary".to_owned(),
        4 => format!("MULTIPART/FORM-DATA; BOUNDARY={b}"),
        5 => format!("multipart/form-data;boundary={b};charset=utf-8"),
        6 => format!("multipart/form-data; boundary={}", b.repeat(10)),
        7 => format!("multipart/mixed; boundary={b}"),
        8 => "text/plain".to_owned(),
        9 => "multipart/form-data; boundary=a b".to_owned(),
        10 => format!("multipart/form-data; boundary={b}; boundary=second"),
        11 => return [format!("multipart/form-data; boundary={b}").as_bytes(), b"\xff"].concat(),
        _ => return Vec::new(), // no Content-Type at all
    };
    text.into_bytes()
}

/// A case: its `Content-Type` (empty: none), an optional `Content-Length`, and its body.
struct Case {
    content_type: Vec<u8>,
    content_length: Option<&'static str>,
    body: Vec<u8>,
}

fn generate(rng: &mut Rng, forms: &[Vec<Part>]) -> Case {
    let boundary = *rng.pick(BOUNDARIES);
    let content_length =
        if rng.one_in(40) { Some(*rng.pick(&["0", "1", "-1", "18446744073709551616", "abc"])) } else { None };
    if rng.one_in(10) {
        // A plain-text body: a scene, or bytes that are not UTF-8.
        let mut body = b"print_num(1);\n".to_vec();
        if rng.one_in(2) {
            mutate_rendered(rng, &mut body, boundary);
        }
        let content_type = rng.pick(&[&b"text/plain"[..], b"", b"application/octet-stream"]).to_vec();
        return Case { content_type, content_length, body };
    }
    let mut parts = rng.pick(forms).clone();
    let edits = rng.below(4);
    for _ in 0..edits {
        mutate_parts(rng, &mut parts, boundary);
    }
    if rng.one_in(OVERSIZED_ONE_IN) {
        let name = if rng.one_in(2) { "scene" } else { "big.png" };
        parts.push(part(name, Some(name), None, &vec![b'x'; MAX_UPLOAD_BYTES + 1 + rng.below(4096)]));
    }
    let mut body = render(&parts, boundary);
    if rng.one_in(2) {
        mutate_rendered(rng, &mut body, boundary);
    }
    if rng.one_in(50) {
        // Splice with another form.
        let other: &Vec<Part> = rng.pick(forms);
        let other = render(other, boundary);
        let at = rng.below(body.len() + 1);
        body.truncate(at);
        body.extend_from_slice(&other[rng.below(other.len() + 1)..]);
    }
    Case { content_type: content_type(rng, boundary), content_length, body }
}

fn describe(case: &Case) -> String {
    let shown = &case.body[..case.body.len().min(2048)];
    format!(
        "Content-Type: {}\nContent-Length header: {:?}\nbody ({} bytes, first {} shown): {}",
        String::from_utf8_lossy(&case.content_type),
        case.content_length,
        case.body.len(),
        shown.len(),
        shown.escape_ascii()
    )
}

// ---------------------------------------------------------------------------------------
// The server, in process.

fn server() -> (Router, Arc<AppState>) {
    let classroom =
        Classroom::new(ClassroomConfig { server_key: Some(TokenDigest::of(TOKEN)), ..ClassroomConfig::default() });
    classroom.registry.insert(
        LabHandle::open(LabConfig {
            id: LAB.into(),
            name: "Fuzzed uploads".into(),
            scene: SceneModel::empty(),
            instructor: TokenDigest::of(TOKEN),
            start_running: false,
            seed: 1,
            join_code: "FUZZCODE".into(),
            settings: Default::default(),
            students: vec![],
            programs: Default::default(),
            recording: classroom.recording_sink(),
            first_run: 1,
        })
        .expect("the lab opens"),
    );
    let state = Arc::new(AppState {
        classroom,
        web_dir: std::env::temp_dir().join("vlab-no-web-dir"),
        limits: Limits::default(),
        peers: None,
    });
    (net::app(Arc::clone(&state)), state)
}

/// How the server answered a case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    /// The form was read into files: the scene was inserted (200), or refused with
    /// positioned errors (422), a clash (409) or for lacking its main file (400).
    Read(u16),
    /// The reader refused the request with a typed error: unreadable (400), too large (413).
    Refused(u16),
}

/// What the server in process answered; `Err` if it broke its contract.
async fn post(app: &Router, case: &Case) -> Result<Outcome, String> {
    let mut request = Request::post(format!("/api/labs/{LAB}/scene")).header(AUTHORIZATION, format!("Bearer {TOKEN}"));
    if !case.content_type.is_empty() {
        let value = HeaderValue::from_bytes(&case.content_type).expect("content types are valid header bytes");
        request = request.header(CONTENT_TYPE, value);
    }
    if let Some(length) = case.content_length {
        request = request.header(CONTENT_LENGTH, length);
    }
    let request = request.body(Body::from(case.body.clone())).expect("a request");
    let response = match tokio::spawn(app.clone().oneshot(request)).await {
        Ok(Ok(response)) => response,
        Ok(Err(never)) => match never {},
        Err(joined) if joined.is_panic() => return Err("the server panicked (message above)".into()),
        Err(joined) => return Err(format!("the request's task failed: {joined}")),
    };
    let status = response.status().as_u16();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .map_err(|e| format!("{status}: the answer's body could not be read: {e}"))?;
    judge(status, &bytes)
}

/// Whether an answer keeps the contract: not 5xx, a JSON body, files read or a typed error.
fn judge(status: u16, bytes: &[u8]) -> Result<Outcome, String> {
    let body: serde_json::Value = serde_json::from_slice(bytes)
        .map_err(|e| format!("{status}: the answer is not JSON ({e}): {}", bytes.escape_ascii()))?;
    if status >= 500 {
        return Err(format!("answered {status}: {body}"));
    }
    let error_message = body["error"]["message"].as_str().filter(|m| !m.is_empty());
    let reply = serde_json::from_value::<SceneUploadReply>(body.clone()).ok();
    match (status, error_message) {
        (200, _) if reply.as_ref().is_some_and(|r| r.ok) => Ok(Outcome::Read(status)),
        (409 | 422, Some(_)) => Ok(Outcome::Read(status)),
        (409 | 422, None) if reply.as_ref().is_some_and(|r| !r.ok && !r.errors.is_empty()) => Ok(Outcome::Read(status)),
        // The classroom's refusal of a form without its main file, once read.
        (400, Some(message)) if message.starts_with("the form has no") => Ok(Outcome::Read(status)),
        (400 | 413, Some(_)) => Ok(Outcome::Refused(status)),
        _ => Err(format!("unexpected answer {status}: {body}")),
    }
}

#[tokio::test]
async fn the_upload_reader_survives_mutated_forms() {
    let (app, state) = server();
    let forms = form_corpus();
    let executions = iterations();
    let mut outcomes = BTreeMap::<Outcome, u64>::new();
    for case in 0..executions {
        let mut rng = Rng(ChaCha8Rng::seed_from_u64(case));
        let input = generate(&mut rng, &forms);
        match post(&app, &input).await {
            Ok(outcome) => *outcomes.entry(outcome).or_default() += 1,
            Err(broken) => panic!("fuzz uploads case {case}: {broken}\n{}", describe(&input)),
        }
    }
    state.classroom.shut_down();
    let read: u64 = outcomes.iter().filter(|(o, _)| matches!(o, Outcome::Read(_))).map(|(_, n)| n).sum();
    let refused = executions - read;
    println!("fuzz uploads: {executions} executions, 0 panics, no 5xx ({read} read into files, {refused} refused)");
    println!("fuzz uploads: by outcome {outcomes:?}");
    // Both outcomes must be common, or the mutations explore only one side of the reader.
    assert!(read * 20 >= executions && refused * 20 >= executions, "too one-sided: {outcomes:?}");
    if executions >= u64::from(OVERSIZED_ONE_IN) * 4 {
        assert!(outcomes.contains_key(&Outcome::Refused(413)), "no case reached the size limit: {outcomes:?}");
    }
}

/// The same cases, the first few hundred, against a real server over real sockets and
/// hyper's HTTP/1.1: the answers keep the same contract. (Bodies over the limit are left
/// to the loop above: the server answers 413 before reading them, and a client still
/// writing may see the connection close.)
#[tokio::test]
async fn over_real_http_the_upload_reader_keeps_its_contract() {
    let uploads = RequestRate { count: 1_000_000, per: std::time::Duration::from_secs(60) };
    let server = common::TestServer::start_with_limits(false, Limits { uploads, ..Limits::default() }).await;
    let forms = form_corpus();
    let executions = REAL_HTTP_CASES.max(iterations() / 50);
    let mut outcomes = BTreeMap::<Outcome, u64>::new();
    let mut sent = 0u64;
    for case in 0..executions {
        let mut rng = Rng(ChaCha8Rng::seed_from_u64(case));
        let input = generate(&mut rng, &forms);
        if input.body.len() > MAX_UPLOAD_BYTES {
            continue;
        }
        let mut request =
            server.http.post(server.url("/api/labs/demo/scene")).bearer_auth(TOKEN).body(input.body.clone());
        if !input.content_type.is_empty() {
            let value = HeaderValue::from_bytes(&input.content_type).expect("content types are valid header bytes");
            request = request.header(CONTENT_TYPE, value);
        }
        let response = request
            .send()
            .await
            .unwrap_or_else(|e| panic!("fuzz uploads (HTTP) case {case}: {e}\n{}", describe(&input)));
        let status = response.status().as_u16();
        let bytes = response.bytes().await.unwrap_or_else(|e| panic!("fuzz uploads (HTTP) case {case}: {e}"));
        match judge(status, &bytes) {
            Ok(outcome) => *outcomes.entry(outcome).or_default() += 1,
            Err(broken) => panic!("fuzz uploads (HTTP) case {case}: {broken}\n{}", describe(&input)),
        }
        sent += 1;
    }
    let read: u64 = outcomes.iter().filter(|(o, _)| matches!(o, Outcome::Read(_))).map(|(_, n)| n).sum();
    println!(
        "fuzz uploads over HTTP: {sent} executions, 0 panics, no 5xx ({read} read into files, {} refused)",
        sent - read
    );
    assert!(read * 20 >= sent && (sent - read) * 20 >= sent, "too one-sided: {outcomes:?}");
}
