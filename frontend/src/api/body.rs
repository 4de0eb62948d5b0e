//! What a request carries: nothing, a JSON document, plain text, or the files of a multipart form.

use serde::Serialize;

/// The body of a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    /// None (`GET`, `DELETE`, the program's restart and stop).
    Empty,
    /// A JSON document (`application/json`).
    Json(String),
    /// Plain text (`text/plain; charset=utf-8`): a scene or a robot description alone.
    Text(String),
    /// `multipart/form-data`, one file per part; the browser writes the boundary.
    Parts(Vec<Part>),
}

impl Body {
    /// `value` as JSON.
    pub fn json<T: Serialize>(value: &T) -> Body {
        Body::Json(serde_json::to_string(value).expect("request bodies serialise"))
    }
}

/// What a multipart part carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PartBody {
    /// UTF-8 text (`text/plain`).
    Text(String),
    /// A WebAssembly module (`application/wasm`).
    Wasm(Vec<u8>),
    /// Other bytes, such as a binary mesh (`application/octet-stream`).
    Binary(Vec<u8>),
}

/// One part of a `multipart/form-data` upload: the form field, the file name, the content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// The form field (`scene`, `description`, `program`, or a file's own name).
    pub field: String,
    /// The file name sent with it.
    pub filename: String,
    /// The content.
    pub body: PartBody,
}

impl Part {
    /// A text part.
    pub fn text(field: &str, filename: &str, text: &str) -> Part {
        Part { field: field.to_owned(), filename: filename.to_owned(), body: PartBody::Text(text.to_owned()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_bodies_are_the_value_serialised() {
        let body = Body::json(&vlab_protocol::BroadcastRequest { message: "hi".into() });
        assert_eq!(body, Body::Json(r#"{"message":"hi"}"#.into()));
        assert_eq!(
            Part::text("scene", "a.vlab", "x"),
            Part { field: "scene".into(), filename: "a.vlab".into(), body: PartBody::Text("x".into()) }
        );
    }
}
