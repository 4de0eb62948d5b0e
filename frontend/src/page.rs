//! What the page URL asks for (`/?lab=<id>&token=<token>`, `/?class=<id>&token=<token>`) and the websocket URL that follows from it.

use vlab_protocol::{PROTOCOL_QUERY_PARAM, PROTOCOL_VERSION};

/// The lab watched when the URL names none.
pub const DEFAULT_LAB: &str = "demo";

/// The page's query parameters that matter to the app.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageParams {
    /// Lab id, as in `/ws/labs/{lab}`.
    pub lab: String,
    /// Credential deciding the role (instructor or student); none for a viewer.
    pub token: Option<String>,
}

impl PageParams {
    /// Reads `location.search` (with or without the leading `?`). Empty values count as absent.
    pub fn from_query(search: &str) -> PageParams {
        let mut params = PageParams { lab: DEFAULT_LAB.to_owned(), token: None };
        for pair in search.trim_start_matches('?').split('&') {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = percent_decode(value);
            if value.is_empty() {
                continue;
            }
            match percent_decode(key).as_str() {
                "lab" => params.lab = value,
                "token" => params.token = Some(value),
                _ => {}
            }
        }
        params
    }

    /// `ws(s)://<host>/ws/labs/<lab>?protocol=<v>[&token=<t>]`; `secure` when the page came over https.
    pub fn websocket_url(&self, secure: bool, host: &str) -> String {
        let scheme = if secure { "wss" } else { "ws" };
        let mut url = format!(
            "{scheme}://{host}/ws/labs/{}?{PROTOCOL_QUERY_PARAM}={PROTOCOL_VERSION}",
            percent_encode(&self.lab)
        );
        if let Some(token) = &self.token {
            url.push_str("&token=");
            url.push_str(&percent_encode(token));
        }
        url
    }

    /// `/api/labs/<lab>/scene`: where this lab's scene uploads go (same origin as the page).
    pub fn scene_upload_path(&self) -> String {
        format!("/api/labs/{}/scene", percent_encode(&self.lab))
    }

    /// `/api/labs/<lab>/robots/<robot>/actuators`: where manual actuator commands go.
    pub fn actuators_path(&self, robot: &str) -> String {
        format!("/api/labs/{}/robots/{}/actuators", percent_encode(&self.lab), percent_encode(robot))
    }
}

/// What the page URL shows: the landing page (no lab named), the create page
/// (`?create`), a class, or a lab.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// What VLab is, the open labs, the join form.
    Landing,
    /// The instructor's form that creates a lab.
    Create,
    /// A class's page (`?class=<id>`), or one of its graded trials replayed.
    Class(ClassParams),
    /// A lab's live view.
    Lab(PageParams),
}

impl Route {
    /// Reads `location.search`: `?create` wins, then a non-empty `class`, then a
    /// non-empty `lab`, else the landing page.
    pub fn from_query(search: &str) -> Route {
        let mut has_lab = false;
        let mut class = None;
        for pair in search.trim_start_matches('?').split('&') {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            match percent_decode(key).as_str() {
                "create" => return Route::Create,
                "lab" if !percent_decode(value).is_empty() => has_lab = true,
                "class" if !percent_decode(value).is_empty() => class = Some(percent_decode(value)),
                _ => {}
            }
        }
        if let Some(class) = class {
            return Route::Class(ClassParams::from_query(class, search));
        }
        if has_lab { Route::Lab(PageParams::from_query(search)) } else { Route::Landing }
    }
}

/// What a class page's URL carries besides the class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassParams {
    /// The class's id, as in `/api/classes/{class}`.
    pub class: String,
    /// The class session's bearer token (the teacher's or a student's).
    pub token: Option<String>,
    /// A one-time sign-in link's token, traded for a session on arrival.
    pub link: Option<String>,
    /// A graded trial to replay instead of the class page: evaluation and trial number.
    pub replay: Option<(i64, u32)>,
}

impl ClassParams {
    fn from_query(class: String, search: &str) -> ClassParams {
        let mut params = ClassParams { class, token: None, link: None, replay: None };
        for pair in search.trim_start_matches('?').split('&') {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = percent_decode(value);
            if value.is_empty() {
                continue;
            }
            match percent_decode(key).as_str() {
                "token" => params.token = Some(value),
                "link" => params.link = Some(value),
                "replay" => params.replay = parse_trial(&value),
                _ => {}
            }
        }
        params
    }
}

/// `<evaluation>/<trial>` as the two numbers; `None` when it is not that.
fn parse_trial(text: &str) -> Option<(i64, u32)> {
    let (evaluation, trial) = text.split_once('/')?;
    Some((evaluation.parse().ok()?, trial.parse().ok()?))
}

/// `?class=<class>[&token=<token>]`: the query of a class's page.
pub fn class_query(class: &str, token: Option<&str>) -> String {
    let mut query = format!("?class={}", percent_encode(class));
    if let Some(token) = token {
        query.push_str("&token=");
        query.push_str(&percent_encode(token));
    }
    query
}

/// `?class=<class>&replay=<evaluation>/<trial>`: a graded trial's replay, on its own page
/// (the tab keeps the class's token, as on the class page).
pub fn trial_replay_query(class: &str, evaluation: i64, trial: u32) -> String {
    format!("{}&replay={evaluation}/{trial}", class_query(class, None))
}

/// `/api/classes/<class>` and what hangs under it (`suffix` starts with `/`, or is empty).
pub fn class_api_path(class: &str, suffix: &str) -> String {
    format!("/api/classes/{}{suffix}", percent_encode(class))
}

/// `?lab=<lab>[&token=<token>]`: the query of a lab's page.
pub fn lab_query(lab: &str, token: Option<&str>) -> String {
    let mut query = format!("?lab={}", percent_encode(lab));
    if let Some(token) = token {
        query.push_str("&token=");
        query.push_str(&percent_encode(token));
    }
    query
}

/// `/api/labs/<lab>` and what hangs under it (`suffix` starts with `/`, or is empty).
pub fn lab_api_path(lab: &str, suffix: &str) -> String {
    format!("/api/labs/{}{suffix}", percent_encode(lab))
}

/// `/api/labs/<lab>/robots/<robot><suffix>`.
pub fn robot_api_path(lab: &str, robot: &str, suffix: &str) -> String {
    format!("/api/labs/{}/robots/{}{suffix}", percent_encode(lab), percent_encode(robot))
}

/// The path of object `name` of lab `lab` (its removal).
pub fn object_api_path(lab: &str, name: &str) -> String {
    format!("/api/labs/{}/objects/{}", percent_encode(lab), percent_encode(name))
}

/// Decodes `%XX` escapes and `+` (a space in query strings); malformed escapes stay as they are.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                match std::str::from_utf8(&bytes[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(byte) => {
                        out.push(byte);
                        i += 3;
                        continue;
                    }
                    None => out.push(b'%'),
                }
            }
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Escapes everything but RFC 3986's unreserved characters.
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_to_the_demo_lab_without_a_token() {
        for search in ["", "?", "?lab=", "?token=&x=1"] {
            assert_eq!(PageParams::from_query(search), PageParams { lab: "demo".into(), token: None }, "{search}");
        }
    }

    #[test]
    fn reads_lab_and_token_in_any_order_with_escapes() {
        let params = PageParams::from_query("?token=a%2Bb%3D&lab=room+1&other=z");
        assert_eq!(params, PageParams { lab: "room 1".into(), token: Some("a+b=".into()) });
    }

    #[test]
    fn malformed_escapes_survive() {
        assert_eq!(PageParams::from_query("lab=50%25%zz%").lab, "50%%zz%");
    }

    #[test]
    fn websocket_url_carries_the_protocol_and_the_token_only_when_present() {
        let viewer = PageParams { lab: "demo".into(), token: None };
        assert_eq!(
            viewer.websocket_url(false, "127.0.0.1:8091"),
            format!("ws://127.0.0.1:8091/ws/labs/demo?protocol={PROTOCOL_VERSION}")
        );
        let instructor = PageParams { lab: "my lab".into(), token: Some("t/k+n".into()) };
        assert_eq!(
            instructor.websocket_url(true, "vlab.example"),
            format!("wss://vlab.example/ws/labs/my%20lab?protocol={PROTOCOL_VERSION}&token=t%2Fk%2Bn")
        );
    }

    #[test]
    fn routes_follow_the_query() {
        assert_eq!(Route::from_query(""), Route::Landing);
        assert_eq!(Route::from_query("?lab="), Route::Landing);
        assert_eq!(Route::from_query("?token=abc"), Route::Landing);
        assert_eq!(Route::from_query("?create"), Route::Create);
        assert_eq!(Route::from_query("?lab=demo&create="), Route::Create);
        assert_eq!(
            Route::from_query("?lab=demo&token=t"),
            Route::Lab(PageParams { lab: "demo".into(), token: Some("t".into()) })
        );
        assert_eq!(lab_query("my lab", Some("a+b")), "?lab=my%20lab&token=a%2Bb");
        assert_eq!(lab_query("demo", None), "?lab=demo");
        assert_eq!(lab_api_path("a b", "/settings"), "/api/labs/a%20b/settings");
        assert_eq!(robot_api_path("demo", "bot/1", "/reset"), "/api/labs/demo/robots/bot%2F1/reset");
    }

    #[test]
    fn a_class_wins_over_a_lab_and_carries_its_token_link_and_replay() {
        assert_eq!(
            Route::from_query("?class=robotics-2b&token=t%2B1"),
            Route::Class(ClassParams {
                class: "robotics-2b".into(),
                token: Some("t+1".into()),
                link: None,
                replay: None
            })
        );
        assert_eq!(
            Route::from_query("?lab=demo&class=c&link=L&replay=12%2F3"),
            Route::Class(ClassParams { class: "c".into(), token: None, link: Some("L".into()), replay: Some((12, 3)) })
        );
        assert_eq!(
            Route::from_query("?class=c&replay=12"),
            Route::Class(ClassParams { class: "c".into(), token: None, link: None, replay: None })
        );
        assert_eq!(Route::from_query("?class=&lab=demo"), Route::Lab(PageParams { lab: "demo".into(), token: None }));
        assert_eq!(Route::from_query("?class=c&create"), Route::Create);
        assert_eq!(class_query("a b", Some("t/k")), "?class=a%20b&token=t%2Fk");
        assert_eq!(trial_replay_query("c", 7, 2), "?class=c&replay=7/2");
        assert_eq!(class_api_path("a b", "/grades"), "/api/classes/a%20b/grades");
    }

    #[test]
    fn scene_upload_path_escapes_the_lab() {
        let params = PageParams { lab: "my lab/2".into(), token: None };
        assert_eq!(params.scene_upload_path(), "/api/labs/my%20lab%2F2/scene");
    }

    #[test]
    fn actuators_path_escapes_lab_and_robot() {
        let params = PageParams { lab: "demo".into(), token: None };
        assert_eq!(params.actuators_path("rover red/1"), "/api/labs/demo/robots/rover%20red%2F1/actuators");
    }
}
