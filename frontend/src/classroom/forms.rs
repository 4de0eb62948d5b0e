//! The classroom, the pure part: who may do what to a robot, the stored session of a lab, what the server's classroom answers mean, the "add a robot" template and a free spot for it.
//!
//! Plain data in, plain data out, tested on the host; the pages and panels that use it
//! live beside it in `classroom/` (and the robot upload in `programs/`), the
//! `localStorage` part in `classroom::client`.

use serde::{Deserialize, Serialize};
use vlab_protocol::{ErrorBody, LabMode, LabSummary, MAX_ROBOT_QUOTA, Participant, Rate, Role};

use crate::scene::upload::{UploadOutcome, interpret_response};

/// `localStorage` key of the session a browser holds in `lab`.
pub fn session_storage_key(lab: &str) -> String {
    format!("{SESSION_KEY_PREFIX}{lab}")
}

/// Every stored session's key starts with this.
pub const SESSION_KEY_PREFIX: &str = "vlab.session.";

/// A session this browser joined: kept per lab, so a reload or a new tab is the same
/// person with the same robots.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredSession {
    /// The lab's id.
    pub lab: String,
    /// The bearer token the join gave.
    pub token: String,
    /// The display name the lab knows this person by.
    pub name: String,
}

impl StoredSession {
    /// Reads a stored value; `None` when it is not one (an older format, a hand edit).
    pub fn from_json(text: &str) -> Option<StoredSession> {
        serde_json::from_str::<StoredSession>(text).ok().filter(|s| !s.token.is_empty() && !s.lab.is_empty())
    }

    /// The value to store.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a stored session serialises")
    }

    /// `?lab=<lab>&token=<token>`: the lab page of this session.
    pub fn lab_query(&self) -> String {
        crate::page::lab_query(&self.lab, Some(&self.token))
    }
}

/// The `{"error": {...}}` body of a refused request, if that is what `body` is.
pub fn error_body(body: &str) -> Option<ErrorBody> {
    #[derive(Deserialize)]
    struct Wrapped {
        error: ErrorBody,
    }
    serde_json::from_str::<Wrapped>(body).ok().map(|w| w.error)
}

/// A sentence for a refused request: the server's reason when it gave one.
pub fn refusal_text(status: u16, body: &str) -> String {
    match error_body(body) {
        Some(error) if !error.message.is_empty() => {
            let mut text = capitalised(&error.message);
            for detail in error.details {
                text.push('\n');
                text.push_str(&detail);
            }
            text
        }
        _ => {
            let excerpt: String = body.trim().chars().take(160).collect();
            if excerpt.is_empty() {
                format!("The server answered HTTP {status}.")
            } else {
                format!("The server answered HTTP {status}: {excerpt}")
            }
        }
    }
}

/// What a join attempt came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JoinOutcome {
    /// In: the lab, the token and who the lab knows us as.
    Joined(StoredSession),
    /// Refused: a sentence saying what to fix, and which field it is about.
    Refused {
        /// `"code"`, `"name"` or `"other"`: the field to mark.
        field: &'static str,
        /// For the person.
        message: String,
    },
}

/// Checks the join form before asking the server: the sentence to show, or nothing.
pub fn check_join_form(code: &str, name: &str) -> Option<JoinOutcome> {
    if code.trim().is_empty() {
        return Some(JoinOutcome::Refused {
            field: "code",
            message: "Type the join code your instructor gave.".into(),
        });
    }
    if vlab_protocol::clean_display_name(name).is_none() {
        return Some(JoinOutcome::Refused {
            field: "name",
            message: format!("Type the name the others will see (1 to {} characters).", vlab_protocol::MAX_NAME_CHARS),
        });
    }
    None
}

/// Reads the answer to `POST /api/join`.
pub fn interpret_join(status: u16, body: &str) -> JoinOutcome {
    if status == 200
        && let Ok(joined) = serde_json::from_str::<vlab_protocol::Joined>(body)
    {
        return JoinOutcome::Joined(StoredSession { lab: joined.lab, token: joined.token, name: joined.user.name });
    }
    let reason = error_body(body).map(|e| e.message).unwrap_or_default();
    let (field, message) = match status {
        403 | 404 => (
            "code",
            "No lab has that join code: check it with your instructor (letters and digits, like K7MP3Q).".to_owned(),
        ),
        422 | 400 => (
            "name",
            format!(
                "That name cannot be used: type 1 to {} characters{}",
                vlab_protocol::MAX_NAME_CHARS,
                if reason.is_empty() { ".".to_owned() } else { format!(" ({reason}).") }
            ),
        ),
        409 => ("other", format!("The lab is full: {reason}")),
        _ => ("other", refusal_text(status, body)),
    };
    JoinOutcome::Refused { field, message }
}

/// Reads the answer to `POST /api/labs`: the created lab, or a sentence.
pub fn interpret_create(status: u16, body: &str) -> Result<vlab_protocol::CreatedLab, String> {
    if status == 201 || status == 200 {
        return serde_json::from_str(body)
            .map_err(|e| format!("The lab was created but its answer is unreadable: {e}"));
    }
    let reason = refusal_text(status, body);
    Err(match status {
        401 | 403 => format!("The server key is needed to create a lab: {reason}"),
        _ => reason,
    })
}

/// One line of the landing page's list of labs.
#[derive(Clone, Debug, PartialEq)]
pub struct LabLine {
    /// Its id.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// `running ×1`, `paused`, …
    pub mode: String,
    /// How many robots it holds.
    pub robots: usize,
    /// How many people joined it.
    pub participants: usize,
}

/// The labs of `GET /api/labs`, in the server's order; `Err` with a sentence when the
/// answer is not a list of labs.
pub fn lab_lines(status: u16, body: &str) -> Result<Vec<LabLine>, String> {
    if status != 200 {
        return Err(refusal_text(status, body));
    }
    let labs: Vec<LabSummary> =
        serde_json::from_str(body).map_err(|e| format!("The list of labs is unreadable: {e}"))?;
    Ok(labs
        .into_iter()
        .map(|lab| LabLine {
            mode: mode_text(lab.state.mode, lab.state.rate),
            robots: lab.robots.len(),
            participants: lab.participants,
            id: lab.id,
            name: lab.name,
        })
        .collect())
}

/// `running ×1`, `running max`, `paused`, `stepping`.
pub fn mode_text(mode: LabMode, rate: Rate) -> String {
    match mode {
        LabMode::Running => match rate {
            Rate::RealTime(factor) => format!("running ×{}", trim_number(factor)),
            Rate::Max => "running max".to_owned(),
        },
        LabMode::Paused => "paused".to_owned(),
        LabMode::Stepping => "stepping".to_owned(),
    }
}

fn trim_number(value: f64) -> String {
    let text = format!("{value:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// A scene of the library, as `GET /api/scenes` lists it.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct LibraryScene {
    /// Its name (`diffbot`), what `POST /api/labs` takes.
    pub name: String,
    /// Its file (`diffbot.vlab`).
    #[serde(default)]
    pub file: String,
    /// What it is, from its first comment line.
    #[serde(default)]
    pub about: String,
}

/// The picker's choice meaning "the demo yard" (no `scene` sent).
pub const DEMO_SCENE_CHOICE: &str = "";

/// The body of `POST /api/labs`: `scene` left out for the demo yard.
pub fn create_lab_body(name: &str, scene: &str) -> String {
    let mut body = serde_json::json!({ "name": name.trim() });
    if scene != DEMO_SCENE_CHOICE {
        body["scene"] = serde_json::Value::from(scene);
    }
    body.to_string()
}

/// Who owns `robot`: the participant whose robots list it.
pub fn owner_of<'a>(robot: &str, participants: &'a [Participant]) -> Option<&'a Participant> {
    participants.iter().find(|p| p.robots.iter().any(|r| r == robot))
}

/// Whether this page may drive `robot` with the keyboard: its owner may, and the
/// instructor may drive the robots nobody owns (the server decides the same way).
pub fn may_drive(robot: &str, role: Option<Role>, you: Option<&Participant>, participants: &[Participant]) -> bool {
    match owner_of(robot, participants) {
        Some(owner) => you.is_some_and(|you| you.id == owner.id),
        None => role == Some(Role::Instructor),
    }
}

/// Whether this page may reset or remove `robot`: its owner and the instructor may.
pub fn may_manage(robot: &str, role: Option<Role>, you: Option<&Participant>, participants: &[Participant]) -> bool {
    role == Some(Role::Instructor)
        || owner_of(robot, participants).is_some_and(|owner| you.is_some_and(|you| you.id == owner.id))
}

/// The People panel's role badge.
pub fn role_badge(role: Role) -> &'static str {
    match role {
        Role::Instructor => "instructor",
        Role::Student => "student",
        Role::Viewer => "viewer",
    }
}

/// Longest robot-name suffix the form takes.
pub const MAX_SUFFIX_CHARS: usize = 24;

/// A robot-name suffix from what a student typed: lower case, spaces and dashes as
/// `_`, only letters, digits and `_`; `Err` with a sentence when nothing usable is left.
pub fn robot_suffix(typed: &str) -> Result<String, String> {
    let suffix: String =
        typed.trim().chars().map(|c| if c == ' ' || c == '-' { '_' } else { c.to_ascii_lowercase() }).collect();
    if suffix.is_empty() {
        return Err("Give your robot a name (letters, digits and _).".into());
    }
    if let Some(bad) = suffix.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '_')) {
        return Err(format!("A robot's name takes letters, digits and _ only, not '{bad}'."));
    }
    if suffix.chars().count() > MAX_SUFFIX_CHARS {
        return Err(format!("A robot's name is at most {MAX_SUFFIX_CHARS} characters."));
    }
    Ok(suffix)
}

/// A robot-name suffix from a display name: `"Ana López (2)"` → `"ana_l_pez_2"`.
pub fn suffix_from_name(name: &str) -> String {
    let mut suffix = String::new();
    for c in name.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_alphanumeric() {
            suffix.push(c);
        } else if !suffix.ends_with('_') && !suffix.is_empty() {
            suffix.push('_');
        }
    }
    let mut suffix: String = suffix.trim_end_matches('_').chars().take(MAX_SUFFIX_CHARS).collect();
    if suffix.is_empty() {
        suffix.push_str("mine");
    }
    suffix
}

/// The name of the robot the template creates.
pub fn templated_robot_name(suffix: &str) -> String {
    format!("diffbot_{suffix}")
}

/// The `.vlab` text of a course diffbot named `diffbot_<suffix>` at `spot` (x, z).
pub fn robot_template(suffix: &str, spot: [f32; 2]) -> String {
    let [x, z] = spot.map(|v| trim_number(f64::from((v * 100.0).round() / 100.0)));
    format!(
        "// Your robot: the course's differential-drive robot (scenes/diffbot_robot.vlab):\n\
         // lidar, GPS, compass, encoders, odometry, bumper and a DiffDrive.\n\
         // Change the name, the place (x, z, metres) or the heading (radians), then Upload.\n\
         include \"diffbot_robot.vlab\";\n\
         call diffbot(\"_{suffix}\", {x}, {z}, 0);\n"
    )
}

/// Clearance, metres, a new robot wants from every moving body.
pub const SPOT_CLEARANCE_M: f32 = 0.9;
/// Distance kept from the edge of the floor, metres.
const SPOT_MARGIN_M: f32 = 1.0;
/// Spacing of the candidate spots, metres.
const SPOT_GRID_M: f32 = 0.5;

/// A place (x, z) on the floor `area` (`[min_x, min_z, max_x, max_z]`) away from the
/// `occupied` points: the first grid spot, from the floor's low corner, clear by
/// [`SPOT_CLEARANCE_M`]; failing that the clearest spot.
pub fn free_spot(area: [f32; 4], occupied: &[[f32; 2]]) -> [f32; 2] {
    let [min_x, min_z, max_x, max_z] = area;
    let (lo_x, hi_x) = inset(min_x, max_x);
    let (lo_z, hi_z) = inset(min_z, max_z);
    let columns = ((hi_x - lo_x) / SPOT_GRID_M).floor().max(0.0) as usize;
    let rows = ((hi_z - lo_z) / SPOT_GRID_M).floor().max(0.0) as usize;
    let clearance = |spot: [f32; 2]| {
        occupied.iter().map(|p| ((p[0] - spot[0]).powi(2) + (p[1] - spot[1]).powi(2)).sqrt()).fold(f32::MAX, f32::min)
    };
    let mut best = ([lo_x, lo_z], f32::MIN);
    for row in 0..=rows {
        for column in 0..=columns {
            let spot = [lo_x + column as f32 * SPOT_GRID_M, lo_z + row as f32 * SPOT_GRID_M];
            let clear = clearance(spot);
            if clear >= SPOT_CLEARANCE_M {
                return spot;
            }
            if clear > best.1 {
                best = (spot, clear);
            }
        }
    }
    best.0
}

fn inset(min: f32, max: f32) -> (f32, f32) {
    if max - min > 2.0 * SPOT_MARGIN_M {
        (min + SPOT_MARGIN_M, max - SPOT_MARGIN_M)
    } else {
        ((min + max) * 0.5, (min + max) * 0.5)
    }
}

/// Reads the answer to `POST /api/labs/{lab}/robots`: like a scene upload, with the
/// refusals a student meets (no session, uploads locked, over the quota) said plainly.
pub fn interpret_robot_upload(status: u16, body: &str) -> UploadOutcome {
    if let Some(error) = error_body(body) {
        let reason = capitalised(&error.message);
        return UploadOutcome::Failed(match status {
            401 => format!("Not in this lab: {reason}. Join it with its code first."),
            403 => format!("Not added: {reason}."),
            _ => format!("Not added: {reason}."),
        });
    }
    interpret_response(status, body)
}

/// The quota field's text as a quota, or why not.
pub fn parse_quota(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(quota) if quota <= MAX_ROBOT_QUOTA => Ok(quota),
        _ => Err(format!("The robot quota is a whole number from 0 to {MAX_ROBOT_QUOTA}.")),
    }
}

/// A broadcast's body, or why it cannot be sent.
pub fn broadcast_body(message: &str) -> Result<String, String> {
    let message = message.trim();
    let length = message.chars().count();
    if length == 0 || length > vlab_protocol::MAX_NOTICE_CHARS {
        return Err(format!("A notice has 1 to {} characters.", vlab_protocol::MAX_NOTICE_CHARS));
    }
    Ok(serde_json::to_string(&vlab_protocol::BroadcastRequest { message: message.to_owned() })
        .expect("a broadcast serialises"))
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(id: u32, name: &str, role: Role, robots: &[&str]) -> Participant {
        Participant {
            id,
            name: name.into(),
            role,
            online: true,
            robots: robots.iter().map(|r| (*r).to_owned()).collect(),
        }
    }

    #[test]
    fn owners_drive_their_robots_and_the_instructor_the_lab_s_own() {
        let people = vec![
            person(0, "Instructor", Role::Instructor, &["teacher_bot"]),
            person(1, "Ana", Role::Student, &["diffbot_ana"]),
            person(2, "Bob", Role::Student, &[]),
        ];
        let (teacher, ana, bob) = (&people[0], &people[1], &people[2]);
        assert!(may_drive("diffbot_ana", Some(Role::Student), Some(ana), &people));
        assert!(!may_drive("diffbot_ana", Some(Role::Student), Some(bob), &people));
        assert!(!may_drive("diffbot_ana", Some(Role::Instructor), Some(teacher), &people), "not the instructor");
        assert!(may_drive("rover_red", Some(Role::Instructor), Some(teacher), &people));
        assert!(!may_drive("rover_red", Some(Role::Student), Some(ana), &people));
        assert!(!may_drive("rover_red", Some(Role::Viewer), None, &people));
        assert!(may_drive("teacher_bot", Some(Role::Instructor), Some(teacher), &people));
        // Reset and remove: owner or instructor.
        assert!(may_manage("diffbot_ana", Some(Role::Instructor), Some(teacher), &people));
        assert!(may_manage("diffbot_ana", Some(Role::Student), Some(ana), &people));
        assert!(!may_manage("diffbot_ana", Some(Role::Student), Some(bob), &people));
        assert!(!may_manage("rover_red", Some(Role::Student), Some(ana), &people));
        assert_eq!(owner_of("diffbot_ana", &people).map(|p| p.name.as_str()), Some("Ana"));
    }

    #[test]
    fn joins_read_as_sessions_or_as_what_to_fix() {
        let body = r#"{"lab":"demo","token":"t0k","user":{"id":3,"name":"Ana (2)","role":"student","online":false,"robots":[]}}"#;
        assert_eq!(
            interpret_join(200, body),
            JoinOutcome::Joined(StoredSession { lab: "demo".into(), token: "t0k".into(), name: "Ana (2)".into() })
        );
        let wrong = r#"{"error":{"code":"not_found","message":"no lab has that join code"}}"#;
        assert!(
            matches!(interpret_join(404, wrong), JoinOutcome::Refused { field: "code", message } if message.contains("join code"))
        );
        assert!(matches!(interpret_join(403, wrong), JoinOutcome::Refused { field: "code", .. }));
        let bad_name = r#"{"error":{"code":"invalid_argument","message":"a name needs 1 to 64 characters"}}"#;
        assert!(
            matches!(interpret_join(422, bad_name), JoinOutcome::Refused { field: "name", message } if message.contains("1 to 64"))
        );
        assert!(
            matches!(interpret_join(500, "oops"), JoinOutcome::Refused { field: "other", message } if message.contains("500"))
        );
        assert!(matches!(check_join_form(" ", "Ana"), Some(JoinOutcome::Refused { field: "code", .. })));
        assert!(matches!(check_join_form("K7", "  "), Some(JoinOutcome::Refused { field: "name", .. })));
        assert_eq!(check_join_form("K7", "Ana"), None);
    }

    #[test]
    fn stored_sessions_round_trip_and_refuse_garbage() {
        let session = StoredSession { lab: "physics-1-ab12".into(), token: "t".into(), name: "Ana".into() };
        assert_eq!(StoredSession::from_json(&session.to_json()), Some(session.clone()));
        assert_eq!(StoredSession::from_json("t0k"), None);
        assert_eq!(StoredSession::from_json(r#"{"lab":"demo","token":"","name":"x"}"#), None);
        assert_eq!(session_storage_key("demo"), "vlab.session.demo");
        assert_eq!(session.lab_query(), "?lab=physics-1-ab12&token=t");
    }

    #[test]
    fn the_template_names_the_robot_and_places_it() {
        let text = robot_template("ana", [2.0, 3.5]);
        assert!(text.contains("include \"diffbot_robot.vlab\";"), "{text}");
        assert!(text.contains("call diffbot(\"_ana\", 2, 3.5, 0);"), "{text}");
        assert_eq!(templated_robot_name("ana"), "diffbot_ana");
        assert_eq!(robot_suffix(" My Bot-2 ").unwrap(), "my_bot_2");
        assert!(robot_suffix("").is_err());
        assert!(robot_suffix("a\"b").unwrap_err().contains('"'));
        assert!(robot_suffix(&"x".repeat(25)).is_err());
        assert_eq!(suffix_from_name("Ana López (2)"), "ana_l_pez_2");
        assert_eq!(suffix_from_name("  "), "mine");
    }

    #[test]
    fn a_free_spot_keeps_clear_of_what_is_there() {
        let area = [0.0, 0.0, 12.0, 12.0];
        assert_eq!(free_spot(area, &[]), [1.0, 1.0]);
        let spot = free_spot(area, &[[1.0, 1.0], [1.6, 1.2], [2.5, 1.0]]);
        for p in [[1.0f32, 1.0], [1.6, 1.2], [2.5, 1.0]] {
            let d = ((p[0] - spot[0]).powi(2) + (p[1] - spot[1]).powi(2)).sqrt();
            assert!(d >= SPOT_CLEARANCE_M, "{spot:?} too close to {p:?}");
        }
        assert!(spot.iter().all(|v| (1.0..=11.0).contains(v)), "{spot:?}");
        // A tiny floor: its middle.
        assert_eq!(free_spot([0.0, 0.0, 1.0, 1.0], &[]), [0.5, 0.5]);
        // Everything taken: the clearest spot still.
        let crowded: Vec<[f32; 2]> =
            (0..25).flat_map(|i| (0..25).map(move |j| [i as f32 * 0.5, j as f32 * 0.5])).collect();
        let spot = free_spot(area, &crowded);
        assert!(spot.iter().all(|v| (1.0..=11.0).contains(v)));
    }

    #[test]
    fn robot_upload_refusals_are_said_plainly() {
        let locked =
            r#"{"error":{"code":"forbidden","message":"the instructor has locked uploads in this lab for now"}}"#;
        assert_eq!(
            interpret_robot_upload(403, locked),
            UploadOutcome::Failed("Not added: The instructor has locked uploads in this lab for now.".into())
        );
        let quota = r#"{"ok":false,"inserted":{"bodies":0,"joints":0,"robots":0},"log":[],"warnings":[],
            "errors":[{"file":"upload.vlab","line":1,"col":1,"message":"you may have 1 robot(s) in this lab"}]}"#;
        assert!(
            matches!(interpret_robot_upload(403, quota), UploadOutcome::Rejected { errors, .. } if errors[0].message.contains("1 robot"))
        );
        let anonymous = r#"{"error":{"code":"unauthorized","message":"adding a robot needs a session"}}"#;
        assert!(matches!(interpret_robot_upload(401, anonymous), UploadOutcome::Failed(m) if m.contains("Join it")));
    }

    #[test]
    fn lab_lists_create_bodies_quotas_and_notices() {
        let body = r#"[{"id":"demo","name":"Demo lab","mode":"running","rate":1.0,"step":9,"time":0.04,
            "dt_secs":0.004166,"epoch":1,"bodies":40,"robots":["a","b"],"viewers":2,"participants":3}]"#;
        let lines = lab_lines(200, body).unwrap();
        assert_eq!(
            lines,
            vec![LabLine {
                id: "demo".into(),
                name: "Demo lab".into(),
                mode: "running ×1".into(),
                robots: 2,
                participants: 3
            }]
        );
        assert!(lab_lines(500, "").is_err());
        assert_eq!(create_lab_body(" Physics 1 ", DEMO_SCENE_CHOICE), r#"{"name":"Physics 1"}"#);
        assert!(create_lab_body("P", "maze").contains(r#""scene":"maze""#));
        assert_eq!(parse_quota(" 2 "), Ok(2));
        assert!(parse_quota("-1").is_err() && parse_quota(&(MAX_ROBOT_QUOTA + 1).to_string()).is_err());
        assert_eq!(broadcast_body(" hi ").unwrap(), r#"{"message":"hi"}"#);
        assert!(broadcast_body("  ").is_err());
        let refused = r#"{"error":{"code":"unauthorized","message":"that is not this server's key"}}"#;
        assert_eq!(
            interpret_create(401, refused).unwrap_err(),
            "The server key is needed to create a lab: That is not this server's key"
        );
        assert_eq!(mode_text(LabMode::Running, Rate::RealTime(0.5)), "running ×0.5");
        assert_eq!(mode_text(LabMode::Paused, Rate::Max), "paused");
    }
}
