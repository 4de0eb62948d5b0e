//! Requests for a lab another server runs (cluster mode, docs/operations.md): the
//! request as bytes for the way between servers, and the answer made by the owner's own
//! router, so a page gets from any server exactly what the owner would have answered it
//! (the same codes, errors and rate limits, counted for the page's own address).
//!
//! The bytes are an HTTP/1 head and the body: `METHOD URI CLIENT` (the page's address),
//! header lines, an empty line, the body; an answer is `STATUS`, header lines, an empty
//! line, the body. Header values cannot hold line breaks (`http` refuses them), so the
//! head reads back exactly. Hop-by-hop headers stay on their hop.

use std::net::SocketAddr;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, Request, Response, StatusCode, Uri, header};
use bytes::Bytes;
use tower::ServiceExt as _;

/// A request on its way to the lab's server.
#[derive(Debug, Clone, PartialEq)]
pub struct Forwarded {
    /// Its method.
    pub method: Method,
    /// Its path and query.
    pub uri: Uri,
    /// The page's address, which the owner counts rates for.
    pub client: SocketAddr,
    /// Its end-to-end headers.
    pub headers: HeaderMap,
    /// Its body, read whole within the receiving server's limits.
    pub body: Bytes,
}

/// Marks a request another server of the cluster sent here: it is answered here.
#[derive(Debug, Clone, Copy)]
pub struct FromPeer;

/// An answer on its way back.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// Its status.
    pub status: StatusCode,
    /// Its end-to-end headers.
    pub headers: HeaderMap,
    /// Its body.
    pub body: Bytes,
}

/// Why bytes are not a forwarded request or answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ForwardDecodeError {
    /// No empty line ends the head.
    #[error("forwarded message has no end of head")]
    NoHead,
    /// The first line is not what it should be.
    #[error("forwarded message's first line is unreadable: {0:?}")]
    FirstLine(String),
    /// A header line is not `name: value`.
    #[error("forwarded message's header line is unreadable: {0:?}")]
    Header(String),
}

/// Headers that belong to one connection, not to the request: never carried over.
const HOP_BY_HOP: [HeaderName; 6] = [
    header::CONNECTION,
    header::TRANSFER_ENCODING,
    header::UPGRADE,
    header::TE,
    header::TRAILER,
    header::CONTENT_LENGTH,
];

impl Forwarded {
    /// `request`'s parts and its body, read by the receiving server.
    pub fn new(method: Method, uri: Uri, client: SocketAddr, headers: &HeaderMap, body: Bytes) -> Forwarded {
        Forwarded { method, uri, client, headers: end_to_end(headers), body }
    }

    /// The request as bytes.
    pub fn encode(&self) -> Vec<u8> {
        let first = format!("{} {} {}", self.method, self.uri, self.client);
        encode(&first, &self.headers, &self.body)
    }

    /// Reads what [`Forwarded::encode`] wrote.
    pub fn decode(bytes: &[u8]) -> Result<Forwarded, ForwardDecodeError> {
        let (first, headers, body) = decode(bytes)?;
        let bad = || ForwardDecodeError::FirstLine(first.to_owned());
        let mut words = first.split(' ');
        let (Some(method), Some(uri), Some(client), None) = (words.next(), words.next(), words.next(), words.next())
        else {
            return Err(bad());
        };
        Ok(Forwarded {
            method: method.parse().map_err(|_| bad())?,
            uri: uri.parse().map_err(|_| bad())?,
            client: client.parse().map_err(|_| bad())?,
            headers,
            body,
        })
    }

    /// The request as the owner's router takes it, from the page's address, marked as
    /// come from another server (so it is answered there, never sent on).
    fn into_request(self) -> Request<Body> {
        let mut request = Request::builder()
            .method(self.method)
            .uri(self.uri)
            .body(Body::from(self.body))
            .expect("parts from a request");
        *request.headers_mut() = self.headers;
        request.extensions_mut().insert(ConnectInfo(self.client));
        request.extensions_mut().insert(FromPeer);
        request
    }
}

impl Answer {
    /// The answer as bytes.
    pub fn encode(&self) -> Vec<u8> {
        encode(self.status.as_str(), &self.headers, &self.body)
    }

    /// Reads what [`Answer::encode`] wrote.
    pub fn decode(bytes: &[u8]) -> Result<Answer, ForwardDecodeError> {
        let (first, headers, body) = decode(bytes)?;
        let status = first.parse().map_err(|_| ForwardDecodeError::FirstLine(first.to_owned()))?;
        Ok(Answer { status, headers, body })
    }

    /// The answer as this server sends it to the page.
    pub fn into_response(self) -> Response<Body> {
        let mut response = Response::new(Body::from(self.body));
        *response.status_mut() = self.status;
        *response.headers_mut() = self.headers;
        response
    }
}

/// Answers a forwarded request with `router` (the owner's whole HTTP surface), its body
/// read up to `limit` bytes (past it: 502, the answer too large to carry back).
pub async fn answer(router: Router, forwarded: Forwarded, limit: usize) -> Answer {
    let response = router.oneshot(forwarded.into_request()).await.unwrap_or_else(|never| match never {});
    let (parts, body) = response.into_parts();
    match axum::body::to_bytes(body, limit).await {
        Ok(body) => Answer { status: parts.status, headers: end_to_end(&parts.headers), body },
        Err(_) => Answer {
            status: StatusCode::BAD_GATEWAY,
            headers: HeaderMap::new(),
            body: Bytes::from(format!("the lab's server answered more than {limit} bytes, too many to pass on")),
        },
    }
}

/// `error` as this server would answer it, ready to go back.
pub async fn refusal(error: crate::net::AppError) -> Answer {
    use axum::response::IntoResponse as _;
    let (parts, body) = error.into_response().into_parts();
    let body = axum::body::to_bytes(body, usize::MAX).await.unwrap_or_default();
    Answer { status: parts.status, headers: end_to_end(&parts.headers), body }
}

fn end_to_end(headers: &HeaderMap) -> HeaderMap {
    let mut kept = headers.clone();
    for name in &HOP_BY_HOP {
        kept.remove(name);
    }
    kept
}

fn encode(first: &str, headers: &HeaderMap, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(first.len() + 64 * headers.len() + body.len() + 4);
    out.extend_from_slice(first.as_bytes());
    out.extend_from_slice(b"\r\n");
    for (name, value) in headers {
        out.extend_from_slice(name.as_str().as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body);
    out
}

fn decode(bytes: &[u8]) -> Result<(&str, HeaderMap, Bytes), ForwardDecodeError> {
    let end = bytes.windows(4).position(|w| w == b"\r\n\r\n");
    // A message without headers has its empty line right after the first.
    let end = end.ok_or(ForwardDecodeError::NoHead)?;
    let head = &bytes[..end];
    let body = Bytes::copy_from_slice(&bytes[end + 4..]);
    let mut lines = head.split(|&b| b == b'\n').map(|line| line.strip_suffix(b"\r").unwrap_or(line));
    let first = lines.next().unwrap_or_default();
    let first =
        std::str::from_utf8(first).map_err(|_| ForwardDecodeError::FirstLine(String::from_utf8_lossy(first).into()))?;
    let mut headers = HeaderMap::new();
    for line in lines {
        let bad = || ForwardDecodeError::Header(String::from_utf8_lossy(line).into());
        let colon = line.windows(2).position(|w| w == b": ").ok_or_else(bad)?;
        let name = HeaderName::from_bytes(&line[..colon]).map_err(|_| bad())?;
        let value = HeaderValue::from_bytes(&line[colon + 2..]).map_err(|_| bad())?;
        headers.append(name, value);
    }
    Ok((first, headers, body))
}

#[cfg(test)]
mod tests;
