//! The classroom, the pure part: the stored session of a lab, what the classroom's forms send and what the server's answers mean, who owns a robot and where this page stands toward it.
//!
//! What a standing allows is the permission table's to say
//! (`vlab_protocol::permissions`), never this page's: the controls ask it.
//!
//! Plain data in, plain data out, tested on the host; the pages and panels that use it
//! live beside it in `classroom/` (and the robot upload in `programs/`), the
//! `localStorage` part in `classroom::client`.

use serde::{Deserialize, Serialize};
use vlab_protocol::permissions::{Action, Standing};
use vlab_protocol::{
    CreatedLab, Joined, LabMode, LabSummary, MAX_PARTICIPANTS, MAX_ROBOT_QUOTA, Participant, Rate, Role, SyncMode,
};

use crate::api::{ApiError, error_sentence};

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
        crate::api::from_json::<StoredSession>(text).ok().filter(|s| !s.token.is_empty() && !s.lab.is_empty())
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
pub fn interpret_join(answer: Result<Joined, ApiError>) -> JoinOutcome {
    let error = match answer {
        Ok(joined) => {
            return JoinOutcome::Joined(StoredSession { lab: joined.lab, token: joined.token, name: joined.user.name });
        }
        Err(error) => error,
    };
    let reason = error.server_message().unwrap_or_default();
    let (field, message) = match error.status() {
        Some(403 | 404) => (
            "code",
            "No lab has that join code: check it with your instructor (letters and digits, like K7MP3Q).".to_owned(),
        ),
        Some(422 | 400) => (
            "name",
            format!(
                "That name cannot be used: type 1 to {} characters{}",
                vlab_protocol::MAX_NAME_CHARS,
                if reason.is_empty() { ".".to_owned() } else { format!(" ({reason}).") }
            ),
        ),
        Some(409) => ("other", format!("The lab is full: {reason}")),
        _ => ("other", error_sentence(&error)),
    };
    JoinOutcome::Refused { field, message }
}

/// Reads the answer to `POST /api/labs`: the created lab, or a sentence.
pub fn interpret_create(answer: Result<CreatedLab, ApiError>) -> Result<CreatedLab, String> {
    answer.map_err(|error| match error {
        ApiError::Unreadable { reason, .. } => format!("The lab was created but its answer is unreadable: {reason}"),
        error if matches!(error.status(), Some(401 | 403)) => {
            format!("The server key is needed to create a lab: {}", error_sentence(&error))
        }
        error => error_sentence(&error),
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

/// The labs of `GET /api/labs`, in the server's order; `Err` with a sentence when there are none to show.
pub fn lab_lines(answer: Result<Vec<LabSummary>, ApiError>) -> Result<Vec<LabLine>, String> {
    let labs = answer.map_err(|error| error_sentence(&error))?;
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

/// The picker's choice meaning "a scene saved to a file" (its text sent as
/// `scene_source`); no library name starts with a space.
pub const SAVED_SCENE_CHOICE: &str = " saved";

/// The body of `POST /api/labs`: `scene` left out for the demo yard, the text of the
/// opened file (`saved`) as `scene_source` for a saved scene; `None` when a saved scene
/// is chosen and no file is open yet.
pub fn create_lab_body(name: &str, scene: &str, saved: Option<&str>) -> Option<String> {
    let mut body = serde_json::json!({ "name": name.trim() });
    match scene {
        DEMO_SCENE_CHOICE => {}
        SAVED_SCENE_CHOICE => body["scene_source"] = serde_json::Value::from(saved?),
        library => body["scene"] = serde_json::Value::from(library),
    }
    Some(body.to_string())
}

/// Who owns `robot`: the participant whose robots list it (the instructor, participant
/// [`vlab_protocol::INSTRUCTOR_ID`], for the robots they added); nobody for the lab's
/// own robots, from its scene.
pub fn owner_of<'a>(robot: &str, participants: &'a [Participant]) -> Option<&'a Participant> {
    participants.iter().find(|p| p.robots.iter().any(|r| r == robot))
}

/// This page's standing toward the lab, for the permission table: from the role the
/// server gave it (none yet: it may do nothing but watch).
pub fn standing_in_lab(role: Option<Role>) -> Standing {
    role.map_or(Standing::Anonymous, Standing::in_lab)
}

/// This page's standing toward `robot`, for the permission table: from its role, who
/// it is (`you`) and the robot's owner in the presence list.
pub fn standing_toward_robot(
    robot: &str,
    role: Option<Role>,
    you: Option<&Participant>,
    participants: &[Participant],
) -> Standing {
    let Some(role) = role else { return Standing::Anonymous };
    Standing::toward_robot(role, you.map(|you| you.id), owner_of(robot, participants).map(|owner| owner.id))
}

/// This page's standing toward a robot of its own, were it to have one: whether a
/// control that acts on one's own robots belongs on the page at all.
pub fn standing_toward_own_robot(role: Option<Role>, you: Option<&Participant>) -> Standing {
    let Some(role) = role else { return Standing::Anonymous };
    let me = you.map(|you| you.id);
    Standing::toward_robot(role, me, me)
}

/// The People panel's role badge.
pub fn role_badge(role: Role) -> &'static str {
    match role {
        Role::Instructor => "instructor",
        Role::Student => "student",
        Role::Viewer => "viewer",
    }
}

/// The quota field's text as a quota, or why not.
pub fn parse_quota(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(quota) if quota <= MAX_ROBOT_QUOTA => Ok(quota),
        _ => Err(format!("The robot quota is a whole number from 0 to {MAX_ROBOT_QUOTA}.")),
    }
}

/// The "students at most" field's text as a participant cap, or why not.
pub fn parse_max_participants(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(max) if max as usize <= MAX_PARTICIPANTS => Ok(max),
        _ => Err(format!("The number of students is a whole number from 0 to {MAX_PARTICIPANTS}.")),
    }
}

/// The instructor's "Programs" choice: each way the lab's clock and its programs keep
/// together, with its words, short enough for the class panel's select (the option's
/// value is the mode's API name), and the sentence shown under it once chosen.
pub const SYNC_CHOICES: [(SyncMode, &str, &str); 2] = [
    (SyncMode::Realtime, "real time", "The lab keeps its pace; a late program's robot keeps its last commands."),
    (
        SyncMode::Lockstep,
        "lockstep (repeatable)",
        "The lab waits for every program at every control step: the same uploads give the same run.",
    ),
];

/// Longest option the class panel's select shows whole, characters.
pub const MAX_CHOICE_CHARS: usize = 22;

/// The "Programs" choice's value (`realtime`, `lockstep`) as a sync mode.
pub fn parse_sync(value: &str) -> Option<SyncMode> {
    SYNC_CHOICES.iter().map(|(mode, _, _)| *mode).find(|mode| mode.as_str() == value)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::read_json;

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
        use vlab_protocol::INSTRUCTOR_ID;
        use vlab_protocol::permissions::Action;

        let people = vec![
            person(INSTRUCTOR_ID, "Instructor", Role::Instructor, &["teacher_bot"]),
            person(1, "Ana", Role::Student, &["diffbot_ana"]),
            person(2, "Bob", Role::Student, &[]),
        ];
        let may = |action: Action, robot: &str, role: Role, you: Option<&Participant>| {
            action.allows(standing_toward_robot(robot, Some(role), you, &people))
        };
        let may_drive = |robot: &str, role: Role, you: Option<&Participant>| may(Action::SendKeys, robot, role, you);
        let may_manage = |robot: &str, role: Role, you: Option<&Participant>| {
            let reset = may(Action::ResetRobot, robot, role, you);
            assert_eq!(reset, may(Action::RemoveRobot, robot, role, you), "reset and remove go together");
            reset
        };
        let (teacher, ana, bob) = (&people[0], &people[1], &people[2]);
        assert!(may_drive("diffbot_ana", Role::Student, Some(ana)));
        assert!(!may_drive("diffbot_ana", Role::Student, Some(bob)));
        assert!(!may_drive("diffbot_ana", Role::Instructor, Some(teacher)), "not the instructor");
        assert!(may_drive("rover_red", Role::Instructor, Some(teacher)));
        assert!(!may_drive("rover_red", Role::Student, Some(ana)));
        assert!(!may_drive("rover_red", Role::Viewer, None));
        assert!(may_drive("teacher_bot", Role::Instructor, Some(teacher)), "the instructor drives what they added");
        assert!(!may_drive("teacher_bot", Role::Student, Some(ana)));
        // Reset and remove: owner or instructor.
        assert!(may_manage("diffbot_ana", Role::Instructor, Some(teacher)));
        assert!(may_manage("diffbot_ana", Role::Student, Some(ana)));
        assert!(!may_manage("diffbot_ana", Role::Student, Some(bob)));
        assert!(!may_manage("rover_red", Role::Student, Some(ana)));
        assert_eq!(owner_of("diffbot_ana", &people).map(|p| p.name.as_str()), Some("Ana"));
        assert_eq!(owner_of("rover_red", &people), None, "the lab's own robot");
        // Before the server said who this page is, it may do nothing but watch.
        assert_eq!(standing_toward_robot("diffbot_ana", None, Some(ana), &people), Standing::Anonymous);
        assert_eq!(standing_in_lab(None), Standing::Anonymous);
        assert!(Action::ControlTime.allows(standing_in_lab(Some(Role::Instructor))));
        assert!(!Action::ControlTime.allows(standing_in_lab(Some(Role::Student))));
        // Keyboard driving belongs on the page of whoever may own a robot.
        assert!(Action::SendKeys.allows(standing_toward_own_robot(Some(Role::Student), Some(ana))));
        assert!(Action::SendKeys.allows(standing_toward_own_robot(Some(Role::Instructor), Some(teacher))));
        assert!(!Action::SendKeys.allows(standing_toward_own_robot(Some(Role::Viewer), None)));
        assert!(!Action::SendKeys.allows(standing_toward_own_robot(Some(Role::Student), None)));
    }

    #[test]
    fn joins_read_as_sessions_or_as_what_to_fix() {
        let body = r#"{"lab":"demo","token":"t0k","user":{"id":3,"name":"Ana (2)","role":"student","online":false,"robots":[]}}"#;
        assert_eq!(
            interpret_join(read_json(200, body)),
            JoinOutcome::Joined(StoredSession { lab: "demo".into(), token: "t0k".into(), name: "Ana (2)".into() })
        );
        let wrong = r#"{"error":{"code":"not_found","message":"no lab has that join code"}}"#;
        assert!(
            matches!(interpret_join(read_json(404, wrong)), JoinOutcome::Refused { field: "code", message } if message.contains("join code"))
        );
        assert!(matches!(interpret_join(read_json(403, wrong)), JoinOutcome::Refused { field: "code", .. }));
        let bad_name = r#"{"error":{"code":"invalid_argument","message":"a name needs 1 to 64 characters"}}"#;
        assert!(
            matches!(interpret_join(read_json(422, bad_name)), JoinOutcome::Refused { field: "name", message } if message.contains("1 to 64"))
        );
        assert!(
            matches!(interpret_join(read_json(500, "oops")), JoinOutcome::Refused { field: "other", message } if message.contains("500"))
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
    fn lab_lists_create_bodies_quotas_and_notices() {
        let body = r#"[{"id":"demo","name":"Demo lab","mode":"running","rate":1.0,"step":9,"time":0.04,
            "dt_secs":0.004166,"epoch":1,"bodies":40,"robots":["a","b"],"viewers":2,"participants":3}]"#;
        let lines = lab_lines(read_json(200, body)).unwrap();
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
        assert!(lab_lines(read_json(500, "")).is_err());
        assert_eq!(create_lab_body(" Physics 1 ", DEMO_SCENE_CHOICE, None).unwrap(), r#"{"name":"Physics 1"}"#);
        assert!(create_lab_body("P", "maze", Some("ignored")).unwrap().contains(r#""scene":"maze""#));
        let saved = create_lab_body("P", SAVED_SCENE_CHOICE, Some("environment room { width 4; }")).unwrap();
        assert!(saved.contains(r#""scene_source":"environment room { width 4; }""#) && !saved.contains(r#""scene":"#));
        assert_eq!(create_lab_body("P", SAVED_SCENE_CHOICE, None), None);
        assert_eq!(parse_quota(" 2 "), Ok(2));
        assert_eq!(parse_max_participants(" 30 "), Ok(30));
        assert_eq!(parse_max_participants("0"), Ok(0));
        assert!(parse_max_participants(&(MAX_PARTICIPANTS + 1).to_string()).is_err());
        assert!(parse_max_participants("ten").is_err());
        assert!(parse_quota("-1").is_err() && parse_quota(&(MAX_ROBOT_QUOTA + 1).to_string()).is_err());
        assert_eq!(broadcast_body(" hi ").unwrap(), r#"{"message":"hi"}"#);
        assert!(broadcast_body("  ").is_err());
        let refused = r#"{"error":{"code":"unauthorized","message":"that is not this server's key"}}"#;
        assert_eq!(
            interpret_create(read_json(401, refused)).unwrap_err(),
            "The server key is needed to create a lab: That is not this server's key."
        );
        assert_eq!(mode_text(LabMode::Running, Rate::RealTime(0.5)), "running ×0.5");
        assert_eq!(mode_text(LabMode::Paused, Rate::Max), "paused");
    }

    #[test]
    fn the_programs_choice_offers_each_sync_mode_once_and_reads_back() {
        for (mode, words, sentence) in SYNC_CHOICES {
            assert_eq!(parse_sync(mode.as_str()), Some(mode));
            assert!(!words.is_empty() && words.chars().count() <= MAX_CHOICE_CHARS, "fits the select: {words}");
            assert!(sentence.ends_with('.'));
        }
        assert_eq!(SYNC_CHOICES[0].0, SyncMode::default(), "the default comes first");
        assert_eq!(parse_sync("lockstep"), Some(SyncMode::Lockstep));
        assert_eq!(parse_sync("realtime"), Some(SyncMode::Realtime));
        assert_eq!(parse_sync("fast"), None);
        assert_eq!(parse_sync(""), None);
    }
}

/// Whether a page of `standing` may add objects: the permission table's `AddObject`, and
/// for a student the instructor's switch (`students_add_objects`); the instructor always.
pub fn may_add_objects(standing: Standing, students_allowed: bool) -> bool {
    Action::AddObject.allows(standing) && (standing == Standing::Instructor || students_allowed)
}

/// The objects a participant added in `snapshot` (bodies with an owner), by name.
pub fn owned_objects(snapshot: &vlab_protocol::SceneSnapshot) -> Vec<(String, vlab_protocol::UserId)> {
    snapshot.bodies.iter().filter_map(|b| Some((b.name.clone(), b.owner?))).collect()
}

/// What the palette line says once objects went in.
pub fn added_sentence(objects: &[String]) -> String {
    match objects {
        [] => "Nothing was added.".to_owned(),
        [one] => format!("Added {one}."),
        many => format!("Added {}.", many.join(", ")),
    }
}

#[cfg(test)]
mod object_tests {
    use super::*;
    use vlab_protocol::{BodyId, BodyView, Pose, SceneSnapshot};

    #[test]
    fn students_add_objects_only_when_allowed_and_the_instructor_always() {
        assert!(may_add_objects(Standing::Instructor, false));
        assert!(!may_add_objects(Standing::Student, false));
        assert!(may_add_objects(Standing::Student, true));
        assert!(!may_add_objects(Standing::Anonymous, true));
    }

    #[test]
    fn owned_objects_are_the_bodies_with_an_owner() {
        let body = |id: u32, name: &str, owner: Option<vlab_protocol::UserId>| BodyView {
            id: BodyId(id),
            name: name.into(),
            parts: vec![],
            pose: Pose { position: [0.0; 3], rotation: [0.0, 0.0, 0.0, 1.0] },
            fixed: false,
            robot: None,
            owner,
        };
        let snapshot = SceneSnapshot {
            epoch: 1,
            sky: [0, 0, 0],
            bodies: vec![body(0, "floor", None), body(1, "ana_box_1", Some(3))],
            links: vec![],
            zones: vec![],
        };
        assert_eq!(owned_objects(&snapshot), vec![("ana_box_1".to_owned(), 3)]);
        assert_eq!(added_sentence(&["ana_box_1".into()]), "Added ana_box_1.");
    }
}
