//! The classroom: creating and closing labs, joining one with its code, who is in a lab
//! (presence), the instructor's lab settings and broadcast notices.

use serde::{Deserialize, Serialize};

use crate::Role;

/// A participant's id within a lab (stable while the lab lives).
pub type UserId = u32;

/// Someone in a lab, as everybody sees them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Participant {
    /// Their id in the lab (0 is the instructor).
    pub id: UserId,
    /// Their display name, made unique in the lab ("Ana", "Ana (2)").
    pub name: String,
    /// Instructor or student.
    pub role: Role,
    /// Whether a page of theirs is connected now.
    pub online: bool,
    /// The robots they added.
    pub robots: Vec<String>,
}

/// What the instructor decides for a lab.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabSettings {
    /// Students may not add robots while set.
    pub uploads_locked: bool,
    /// The lab pauses whenever a student joins.
    pub pause_on_join: bool,
    /// Most robots one student may have in the lab at once.
    pub robot_quota: u32,
    /// Most students who may be in the lab at once (the instructor is not counted): a
    /// join past it is refused (409). 0 to [`crate::MAX_PARTICIPANTS`], the server's hard
    /// ceiling, which is also the default; 0 lets nobody new in. Lowering it below the
    /// students already in removes nobody. Settings kept before it existed read as the
    /// default.
    #[serde(default = "default_max_participants")]
    pub max_participants: u32,
    /// How the lab's clock and the robots' programs keep together while it runs at a
    /// rate (`docs/programs.md`). Settings kept before it existed read as the default.
    #[serde(default)]
    pub sync: SyncMode,
    /// Everybody watching a robot sees what its program believes and draws (not only
    /// its owner and the instructor). Settings kept before it existed read as `false`.
    #[serde(default)]
    pub share_beliefs: bool,
    /// Which rows of the challenge board students see (the instructor sees all).
    /// Settings kept before it existed read as the default (only their own row).
    #[serde(default)]
    pub board: crate::BoardVisibility,
    /// Students may add objects (the palette's, or scene fragments of bodies) to the
    /// lab (docs/classroom.md, "Objects from everyone"). Settings kept before it existed
    /// read as `false`.
    #[serde(default)]
    pub students_add_objects: bool,
}

/// How a lab's clock and its robots' programs keep together.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SyncMode {
    /// The lab keeps its pace whatever the programs do: a program that has not answered
    /// by its control step is late, and its robot keeps its last commands meanwhile.
    /// Applies while the lab runs at a real-time rate; stepping and `max` are always
    /// lockstep (there is no pace to keep).
    #[default]
    Realtime,
    /// The lab waits for every program at every control step (up to a bound), so the
    /// same scene, seed and uploads give the same run, step for step.
    Lockstep,
}

impl SyncMode {
    /// Its name in the API (`realtime`, `lockstep`).
    pub fn as_str(self) -> &'static str {
        match self {
            SyncMode::Realtime => "realtime",
            SyncMode::Lockstep => "lockstep",
        }
    }
}

/// The default of [`LabSettings::max_participants`]: the server's ceiling.
fn default_max_participants() -> u32 {
    crate::MAX_PARTICIPANTS as u32
}

impl Default for LabSettings {
    fn default() -> Self {
        LabSettings {
            uploads_locked: false,
            pause_on_join: false,
            robot_quota: 3,
            max_participants: default_max_participants(),
            sync: SyncMode::Realtime,
            share_beliefs: false,
            board: crate::BoardVisibility::OwnRow,
            students_add_objects: false,
        }
    }
}

/// A change of some settings: `PATCH /api/labs/{lab}/settings`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabSettingsPatch {
    /// See [`LabSettings::uploads_locked`].
    pub uploads_locked: Option<bool>,
    /// See [`LabSettings::pause_on_join`].
    pub pause_on_join: Option<bool>,
    /// See [`LabSettings::robot_quota`] (0..=[`crate::MAX_ROBOT_QUOTA`]).
    pub robot_quota: Option<u32>,
    /// See [`LabSettings::max_participants`] (0..=[`crate::MAX_PARTICIPANTS`]).
    pub max_participants: Option<u32>,
    /// See [`LabSettings::sync`].
    pub sync: Option<SyncMode>,
    /// See [`LabSettings::share_beliefs`].
    pub share_beliefs: Option<bool>,
    /// See [`LabSettings::board`].
    #[serde(default)]
    pub board: Option<crate::BoardVisibility>,
    /// See [`LabSettings::students_add_objects`].
    #[serde(default)]
    pub students_add_objects: Option<bool>,
}

impl LabSettings {
    /// These settings with `patch` applied, or why the patch is refused.
    pub fn patched(self, patch: LabSettingsPatch) -> Result<LabSettings, String> {
        if let Some(quota) = patch.robot_quota
            && quota > crate::MAX_ROBOT_QUOTA
        {
            return Err(format!("robot_quota must be between 0 and {}, got {quota}", crate::MAX_ROBOT_QUOTA));
        }
        if let Some(max) = patch.max_participants
            && max as usize > crate::MAX_PARTICIPANTS
        {
            return Err(format!("max_participants must be between 0 and {}, got {max}", crate::MAX_PARTICIPANTS));
        }
        Ok(LabSettings {
            uploads_locked: patch.uploads_locked.unwrap_or(self.uploads_locked),
            pause_on_join: patch.pause_on_join.unwrap_or(self.pause_on_join),
            robot_quota: patch.robot_quota.unwrap_or(self.robot_quota),
            max_participants: patch.max_participants.unwrap_or(self.max_participants),
            sync: patch.sync.unwrap_or(self.sync),
            share_beliefs: patch.share_beliefs.unwrap_or(self.share_beliefs),
            board: patch.board.unwrap_or(self.board),
            students_add_objects: patch.students_add_objects.unwrap_or(self.students_add_objects),
        })
    }
}

/// `POST /api/labs`: a new lab from a scene of the library or from uploaded text.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateLabRequest {
    /// Its display name.
    pub name: String,
    /// A scene of the server's library (`diffbot` or `diffbot.vlab`); the demo yard
    /// when neither this nor `scene_source` is given.
    #[serde(default)]
    pub scene: Option<String>,
    /// The text of a scene instead.
    #[serde(default)]
    pub scene_source: Option<String>,
    /// The seed of its random generator (default 1).
    #[serde(default)]
    pub seed: Option<u64>,
}

/// The answer to `POST /api/labs`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreatedLab {
    /// The lab's id, used in URLs.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// The code students type to join.
    pub join_code: String,
    /// The bearer token of its instructor (keep it secret).
    pub instructor_token: String,
    /// The instructor's page (path and query, relative to the server).
    pub instructor_path: String,
}

/// `POST /api/labs/{lab}/join`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JoinRequest {
    /// The lab's join code (case and spaces do not matter).
    pub join_code: String,
    /// The name to show to the others.
    pub name: String,
}

/// The answer to a join: a session in the lab.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Joined {
    /// The lab's id.
    pub lab: String,
    /// The bearer token of this session (for the websocket and the API).
    pub token: String,
    /// Who the lab knows you as.
    pub user: Participant,
}

/// The answer to `POST /api/labs/{lab}/join-code`: the lab's new join code (the old one
/// admits nobody from then on).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct JoinCode {
    /// The code students type to join.
    pub join_code: String,
}

/// `POST /api/labs/{lab}/broadcast`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BroadcastRequest {
    /// The message, at most [`crate::MAX_NOTICE_CHARS`] characters.
    pub message: String,
}

/// Makes a display name acceptable: trimmed, what is not seen removed
/// ([`visible_text`]), inner runs of whitespace collapsed; `None` when nothing is left
/// or it is too long.
pub fn clean_display_name(name: &str) -> Option<String> {
    let cleaned = visible_text(name, false).split_whitespace().collect::<Vec<_>>().join(" ");
    let length = cleaned.chars().count();
    (length > 0 && length <= crate::MAX_NAME_CHARS).then_some(cleaned)
}

/// Makes a notice shown as sent: what is not seen removed ([`visible_text`]) but its line
/// breaks, each line's trailing spaces and the blank lines around it trimmed; its inner
/// spaces stay (a notice may line things up). Empty when nothing visible is left.
pub fn clean_notice(message: &str) -> String {
    let text = visible_text(message, true);
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    lines.join("\n").trim_matches(|c: char| c == ' ' || c == '\n').to_owned()
}

/// `text` with every character that is not seen as text removed: control characters
/// (NUL, ESC, ...) and invisible format characters ([`is_invisible_format`]), which
/// could reorder, hide or colour what is shown around them. Other whitespace becomes a
/// plain space, except line breaks (`\n`, `\r\n`, a lone `\r`) when `keep_line_breaks`,
/// which become `\n`. Names and notices are cleaned by it.
pub fn visible_text(text: &str, keep_line_breaks: bool) -> String {
    let mut visible = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if keep_line_breaks => {
                chars.next_if_eq(&'\n');
                visible.push('\n');
            }
            '\n' if keep_line_breaks => visible.push('\n'),
            c if c.is_whitespace() => visible.push(' '),
            c if c.is_control() || is_invisible_format(c) => {}
            c => visible.push(c),
        }
    }
    visible
}

/// Characters that change how the text around them is shown without being seen
/// themselves: bidirectional overrides and isolates, zero-width characters. A name may
/// not use them to look like another ("\u{202E}rotcurtsnI" shows as "Instructor").
fn is_invisible_format(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_with_a_right_to_left_override_cannot_pass_for_the_instructor() {
        // Shown by a browser as "Instructor" before; now the letters as typed.
        assert_eq!(clean_display_name("\u{202E}rotcurtsnI").as_deref(), Some("rotcurtsnI"));
        assert_eq!(clean_display_name("Ana\u{200B}\u{2066}").as_deref(), Some("Ana"));
        assert_eq!(clean_display_name("\u{202E}\u{200F}"), None, "nothing visible is no name");
        assert_eq!(clean_display_name("Zoë Ñandú 李").as_deref(), Some("Zoë Ñandú 李"), "letters of every script stay");
    }

    #[test]
    fn names_and_notices_lose_the_same_unseen_characters_and_notices_keep_their_lines() {
        let hostile = "\u{202E}Class \u{0}ends\u{1b}[31m now";
        assert_eq!(visible_text(hostile, false), "Class ends[31m now");
        assert_eq!(visible_text(hostile, true), "Class ends[31m now");
        assert_eq!(clean_display_name(hostile).as_deref(), Some("Class ends[31m now"));
        assert_eq!(clean_notice(hostile), "Class ends[31m now");
        assert_eq!(visible_text("a\tb\r\nc\rd\ne", false), "a b  c d e");
        assert_eq!(visible_text("a\tb\r\nc\rd\ne", true), "a b\nc\nd\ne");
        assert_eq!(visible_text("\u{200B}\u{2066}x\u{FEFF}\u{7f}\u{85}", true), "x ", "NEL is a space, DEL goes");
    }

    #[test]
    fn a_notice_keeps_its_lines_and_inner_spaces_and_nothing_around_them() {
        assert_eq!(
            clean_notice("  \n Step 1:  wait \u{202E}\n\n  Step 2:  go  \r\n\n"),
            "Step 1:  wait\n\n  Step 2:  go"
        );
        assert_eq!(clean_notice("Zoë Ñandú 李 <b>"), "Zoë Ñandú 李 <b>");
        assert_eq!(clean_notice("\u{202E}\u{0}\u{1b}\n \u{200B} \r\n"), "", "nothing visible is no notice");
    }

    #[test]
    fn names_are_cleaned_and_bounded() {
        assert_eq!(clean_display_name("  Ana \t Lopez\n").as_deref(), Some("Ana Lopez"));
        assert_eq!(
            clean_display_name("<b>Bob</b>").as_deref(),
            Some("<b>Bob</b>"),
            "kept as text, escaped where shown"
        );
        assert_eq!(clean_display_name("Zo\u{7}e").as_deref(), Some("Zoe"));
        assert_eq!(clean_display_name("   "), None);
        assert_eq!(clean_display_name(&"x".repeat(65)), None);
    }

    #[test]
    fn settings_patches_apply_and_are_checked() {
        let settings = LabSettings::default();
        let patch: LabSettingsPatch = serde_json::from_str(r#"{"uploads_locked": true}"#).unwrap();
        let patched = settings.patched(patch).unwrap();
        assert!(patched.uploads_locked && !patched.pause_on_join && patched.robot_quota == 3);
        assert!(settings.patched(LabSettingsPatch { robot_quota: Some(1000), ..Default::default() }).is_err());
        assert!(serde_json::from_str::<LabSettingsPatch>(r#"{"locked": true}"#).is_err());
        let capped = settings.patched(LabSettingsPatch { max_participants: Some(30), ..Default::default() }).unwrap();
        assert_eq!(capped.max_participants, 30);
        let over =
            LabSettingsPatch { max_participants: Some(crate::MAX_PARTICIPANTS as u32 + 1), ..Default::default() };
        assert!(settings.patched(over).is_err(), "the server's ceiling bounds the setting");
    }

    #[test]
    fn settings_kept_before_the_participant_cap_read_with_its_default() {
        let old: LabSettings =
            serde_json::from_str(r#"{"uploads_locked":true,"pause_on_join":false,"robot_quota":2}"#).unwrap();
        assert_eq!(old.max_participants as usize, crate::MAX_PARTICIPANTS);
        assert!(old.uploads_locked);
    }
}
