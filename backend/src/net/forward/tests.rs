use axum::routing::post;

use super::*;

fn client() -> SocketAddr {
    "[2001:db8::7]:51234".parse().unwrap()
}

fn request(body: &'static [u8]) -> Forwarded {
    let mut headers = HeaderMap::new();
    headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer s3cret"));
    headers.append("x-twice", HeaderValue::from_static("one"));
    headers.append("x-twice", HeaderValue::from_static("two"));
    headers.insert("x-latin", HeaderValue::from_bytes(b"caf\xe9").unwrap());
    headers.insert(header::CONNECTION, HeaderValue::from_static("keep-alive"));
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from_static("999"));
    let uri = "/api/labs/physics/robots?main=urdf/burger.urdf".parse().unwrap();
    Forwarded::new(Method::POST, uri, client(), &headers, Bytes::from_static(body))
}

#[test]
fn a_request_reads_back_as_written_without_its_hop_headers() {
    let forwarded = request(b"zip\r\n\r\nbytes\x00\xff");
    assert!(forwarded.headers.get(header::CONNECTION).is_none());
    assert!(forwarded.headers.get(header::CONTENT_LENGTH).is_none());
    let back = Forwarded::decode(&forwarded.encode()).unwrap();
    assert_eq!(back, forwarded);
    assert_eq!(back.headers.get_all("x-twice").iter().collect::<Vec<_>>(), ["one", "two"]);
    assert_eq!(back.headers["x-latin"].as_bytes(), b"caf\xe9");
    assert_eq!(&back.body[..], b"zip\r\n\r\nbytes\x00\xff");
}

#[test]
fn an_answer_without_headers_or_body_reads_back() {
    let answer = Answer { status: StatusCode::NO_CONTENT, headers: HeaderMap::new(), body: Bytes::new() };
    assert_eq!(Answer::decode(&answer.encode()).unwrap(), answer);
}

#[test]
fn damaged_bytes_are_refused_with_why() {
    assert_eq!(Forwarded::decode(b"GET / 1.2.3.4:5\r\n"), Err(ForwardDecodeError::NoHead));
    assert_eq!(
        Forwarded::decode(b"GET /\r\n\r\n"),
        Err(ForwardDecodeError::FirstLine("GET /".into())),
        "no client address"
    );
    assert_eq!(
        Forwarded::decode(b"GET / 1.2.3.4:5\r\nno colon\r\n\r\n"),
        Err(ForwardDecodeError::Header("no colon".into()))
    );
    assert_eq!(Answer::decode(b"abc\r\n\r\n"), Err(ForwardDecodeError::FirstLine("abc".into())));
}

/// A router that says who asked, what, and with which token.
fn echo() -> Router {
    Router::new().route(
        "/api/labs/{lab}/robots",
        post(|ConnectInfo(peer): ConnectInfo<SocketAddr>, headers: HeaderMap, body: Bytes| async move {
            let token = headers[header::AUTHORIZATION].to_str().unwrap().to_owned();
            (StatusCode::CREATED, [("x-seen", peer.to_string())], format!("{token} {}", body.len()))
        }),
    )
}

#[tokio::test]
async fn the_owners_router_answers_as_if_the_page_had_asked_it() {
    let answer = answer(echo(), request(b"0123456789"), 1024).await;
    let answer = Answer::decode(&answer.encode()).unwrap();
    assert_eq!(answer.status, StatusCode::CREATED);
    assert_eq!(answer.headers["x-seen"], client().to_string());
    assert_eq!(&answer.body[..], b"Bearer s3cret 10");
    assert!(answer.headers.get(header::CONTENT_LENGTH).is_none(), "the hop sets its own length");
    let response = answer.into_response();
    assert_eq!(response.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn an_answer_too_large_to_carry_is_a_bad_gateway_that_says_so() {
    let answer = answer(echo(), request(b"0123456789"), 8).await;
    assert_eq!(answer.status, StatusCode::BAD_GATEWAY);
    assert_eq!(
        String::from_utf8_lossy(&answer.body),
        "the lab's server answered more than 8 bytes, too many to pass on"
    );
}

#[tokio::test]
async fn an_unknown_route_is_the_owners_own_404() {
    let mut unknown = request(b"");
    unknown.uri = "/api/nowhere".parse().unwrap();
    assert_eq!(answer(echo(), unknown, 1024).await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_refusal_goes_back_as_this_server_would_answer_it() {
    let error = crate::net::AppError::TooManyRequests { message: "slow down".into(), retry_after: 1 };
    let answer = Answer::decode(&refusal(error).await.encode()).unwrap();
    assert_eq!(answer.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(answer.headers[header::RETRY_AFTER], "1");
    let body: serde_json::Value = serde_json::from_slice(&answer.body).unwrap();
    assert_eq!(body["error"]["code"], "too_many_requests", "{body}");
}
