//! Who may do what in a lab: the one permission table.
//!
//! The server enforces it on every HTTP request and websocket message; the page asks it
//! which controls to show. Nothing else decides a permission: a rule changed here
//! changes for HTTP, the websocket and the page at once.
//!
//! A caller's [`Standing`] depends on the thing acted on: the instructor acting on a
//! robot a student owns stands as [`Standing::Instructor`], but on a robot of the lab's
//! own (from its scene, or one the instructor added) as [`Standing::Owner`].
//!
//! # Example
//! ```
//! use vlab_protocol::permissions::{Action, Standing};
//! use vlab_protocol::{Role, INSTRUCTOR_ID};
//!
//! // The instructor drives the robot they added with the keyboard...
//! let own = Standing::toward_robot(Role::Instructor, Some(INSTRUCTOR_ID), Some(INSTRUCTOR_ID));
//! assert!(Action::SendKeys.allows(own));
//! // ...but not a student's robot, which its owner is driving.
//! let supervising = Standing::toward_robot(Role::Instructor, Some(INSTRUCTOR_ID), Some(7));
//! assert!(!Action::SendKeys.allows(supervising));
//! assert!(Action::ResetRobot.allows(supervising));
//! ```

use serde::{Deserialize, Serialize};

use crate::{Role, UserId};

/// The instructor's participant id in every lab; robots they add are owned by it.
pub const INSTRUCTOR_ID: UserId = 0;

/// Something a caller may ask of a lab or of one of its robots.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Watch the lab: its scene, clock, people and every robot's report.
    Watch,
    /// Pause, resume, step, change the rate, reset.
    ControlTime,
    /// Lock uploads, pause on join, set the robot quota.
    ChangeSettings,
    /// Send everybody a notice.
    SendNotice,
    /// Close the lab for everybody.
    CloseLab,
    /// Read the lab's join code.
    SeeJoinCode,
    /// Replace the lab's join code with a new one (the old one stops admitting anybody).
    ChangeJoinCode,
    /// Take a student out of the lab: their session ends and their robots go with them.
    RemoveParticipant,
    /// Insert a scene (bodies, robots, environment) into the lab.
    InsertScene,
    /// Move a body or a whole robot by hand (drag it in the 3D view, or place it by
    /// coordinates), at rest: its owner, or the instructor any (the lab's own bodies and
    /// robots are the instructor's).
    MoveObject,
    /// Change the lab's room while it runs: its size, materials and gravity.
    ChangeEnvironment,
    /// Add robots of one's own (within the lab's quota and lock).
    AddRobot,
    /// Command a robot's actuators by hand.
    DriveRobot,
    /// Hold keys for a robot's keyboard sensors.
    SendKeys,
    /// Put a robot back at its start.
    ResetRobot,
    /// Move the start a robot is put back at.
    SetStart,
    /// Take a robot out of the lab.
    RemoveRobot,
    /// Add objects of one's own (the palette's, or a scene fragment of bodies): students
    /// only while the instructor lets them (`LabSettings::students_add_objects`, which
    /// the server checks apart from this table).
    AddObject,
    /// Take an object out of the lab: its owner hers, the instructor any (the lab's own
    /// objects are the instructor's, as its own robots are).
    RemoveObject,
    /// Read a robot program's console.
    ReadConsole,
    /// See what a robot's program believes and draws (everybody may when the instructor
    /// shares beliefs: `LabSettings::share_beliefs`).
    SeeBelief,
    /// Read a robot program's files back (to edit them).
    ReadProgram,
    /// Replace a robot's program.
    ReplaceProgram,
    /// Restart or stop a robot's program.
    RunProgram,
    /// Download the lab's whole recording (every robot's readings, console lines and
    /// bodies' poses) as CSV or MCAP.
    ExportRecording,
    /// Download one robot's part of the recording (its readings, console lines and
    /// bodies' poses) as CSV or MCAP.
    ExportRobotRecording,
    /// Save the lab as a scene: its world now as `.vlab` text, every student's robot and
    /// the names of their programs with it.
    SaveScene,
    /// Drive a robot from a program on one's own machine (a remote controller over a
    /// websocket), in place of its uploaded program.
    AttachController,
    /// Try a robot and its program at the lab's challenge, in a private copy of the
    /// lab, and read how its attempts went.
    Attempt,
    /// See a participant's row of the challenge board (its owner is the participant;
    /// every student sees every row when the instructor shows names:
    /// `LabSettings::board`).
    SeeBoardRow,
    /// Start or stop the challenge live in the shared lab, for every robot.
    RunChallenge,
    /// Read a class: its lessons and the assignments given to the caller.
    SeeClass,
    /// Enter a lesson of the class (a lab) without its join code.
    EnterClassLab,
    /// Add, rename, remove students and reset their PINs; read the class code.
    ManageRoster,
    /// Create the class's lessons and assignments, and change them.
    ManageCourse,
    /// Run submissions' evaluations again.
    Evaluate,
    /// See every lab of the class as it is now: who is there, every program's state.
    SeeOverview,
    /// Hand in a program for an assignment.
    Submit,
    /// See a student's submissions, grades and graded replays.
    SeeGrades,
}

/// Whether an action concerns the whole lab or one robot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The lab as a whole: nobody stands as an owner.
    Lab,
    /// One robot (or one body, for [`Action::MoveObject`]): its owner stands as
    /// [`Standing::Owner`].
    Robot,
    /// A class as a whole (its teacher stands as [`Standing::Instructor`]).
    Class,
    /// One student's hand-ins and grades: she stands as [`Standing::Owner`].
    Hand,
}

/// Who a caller is to what they act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    /// The lab's instructor: on the lab, or on a robot a student owns.
    Instructor,
    /// Owns the robot acted on: the student who added it, or the instructor for the
    /// lab's own robots (the scene's, and those the instructor added).
    Owner,
    /// A student: on the lab, or on a robot that is not theirs.
    Student,
    /// Nobody the lab knows: no session.
    Anonymous,
}

impl Standing {
    /// Every standing, in the table's column order.
    pub const ALL: [Standing; 4] = [Standing::Instructor, Standing::Owner, Standing::Student, Standing::Anonymous];

    /// A caller's standing toward the lab as a whole.
    pub fn in_lab(role: Role) -> Standing {
        match role {
            Role::Instructor => Standing::Instructor,
            Role::Student => Standing::Student,
            Role::Viewer => Standing::Anonymous,
        }
    }

    /// A caller's standing toward a robot owned by `owner` (`None`: the lab's own, from
    /// its scene); `me` is the caller's participant id.
    pub fn toward_robot(role: Role, me: Option<UserId>, owner: Option<UserId>) -> Standing {
        match role {
            Role::Viewer => Standing::Anonymous,
            Role::Instructor => match owner {
                None | Some(INSTRUCTOR_ID) => Standing::Owner,
                Some(_) => Standing::Instructor,
            },
            Role::Student if me.is_some() && owner == me => Standing::Owner,
            Role::Student => Standing::Student,
        }
    }

    /// A caller's standing in a class: its teacher, one of its students toward what is
    /// hers (`whose`, a student id) or not, or nobody.
    pub fn in_class(teacher: bool, me: Option<crate::StudentId>, whose: Option<crate::StudentId>) -> Standing {
        match (teacher, me) {
            (true, _) => Standing::Instructor,
            (false, None) => Standing::Anonymous,
            (false, Some(me)) if whose == Some(me) => Standing::Owner,
            (false, Some(_)) => Standing::Student,
        }
    }

    /// A short name, as the permission table in the docs writes it.
    pub fn name(self) -> &'static str {
        match self {
            Standing::Instructor => "instructor",
            Standing::Owner => "owner",
            Standing::Student => "student",
            Standing::Anonymous => "anonymous",
        }
    }
}

/// The table: for each action, whether each standing may take it, in the column order
/// of [`Standing::ALL`] (instructor, owner, student, anonymous).
const TABLE: [(Action, [bool; 4]); 39] = [
    //                         instr  owner  student anon
    (Action::Watch, [true, true, true, true]),
    (Action::ControlTime, [true, false, false, false]),
    (Action::ChangeSettings, [true, false, false, false]),
    (Action::SendNotice, [true, false, false, false]),
    (Action::CloseLab, [true, false, false, false]),
    (Action::SeeJoinCode, [true, false, false, false]),
    (Action::ChangeJoinCode, [true, false, false, false]),
    (Action::RemoveParticipant, [true, false, false, false]),
    (Action::InsertScene, [true, false, false, false]),
    // A thing's owner places it; the instructor places anything (supervising).
    (Action::MoveObject, [true, true, false, false]),
    // The room is everybody's: resizing it under a student's robot is the instructor's call.
    (Action::ChangeEnvironment, [true, false, false, false]),
    (Action::AddRobot, [true, false, true, false]),
    (Action::DriveRobot, [true, true, false, false]),
    // One driver at a time: the owner holds the keys (the instructor is the owner of
    // the lab's own robots); the instructor still drives any robot through actuators.
    (Action::SendKeys, [false, true, false, false]),
    (Action::ResetRobot, [true, true, false, false]),
    (Action::SetStart, [true, true, false, false]),
    (Action::RemoveRobot, [true, true, false, false]),
    // Objects from everyone: the instructor's switch lets students add (checked apart).
    (Action::AddObject, [true, false, true, false]),
    (Action::RemoveObject, [true, true, false, false]),
    (Action::ReadConsole, [true, true, false, false]),
    (Action::SeeBelief, [true, true, false, false]),
    (Action::ReadProgram, [true, true, false, false]),
    (Action::ReplaceProgram, [true, true, false, false]),
    (Action::RunProgram, [true, true, false, false]),
    // Consoles are in a recording: whoever may export it may read them (ReadConsole).
    // The whole lab's recording holds every student's: the instructor's alone.
    (Action::ExportRecording, [true, false, false, false]),
    (Action::ExportRobotRecording, [true, true, false, false]),
    // A saved scene holds every student's robot and names their programs: as the whole
    // lab's recording, the instructor's alone.
    (Action::SaveScene, [true, false, false, false]),
    // Like running its program: whoever may restart or stop it may drive it remotely.
    (Action::AttachController, [true, true, false, false]),
    // An attempt runs the robot's program and shows its console: as running it.
    (Action::Attempt, [true, true, false, false]),
    (Action::SeeBoardRow, [true, true, false, false]),
    (Action::RunChallenge, [true, false, false, false]),
    // A course: the class's teacher stands as the instructor, a student toward her own
    // hand-ins and grades as their owner.
    (Action::SeeClass, [true, false, true, false]),
    (Action::EnterClassLab, [true, false, true, false]),
    (Action::ManageRoster, [true, false, false, false]),
    (Action::ManageCourse, [true, false, false, false]),
    (Action::Evaluate, [true, false, false, false]),
    (Action::SeeOverview, [true, false, false, false]),
    // A hand-in is the student's own work: the teacher grades it, never writes it.
    (Action::Submit, [false, true, false, false]),
    (Action::SeeGrades, [true, true, false, false]),
];

/// Why an action was refused: what the caller is missing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Denial {
    /// No session: the action needs the caller to join the lab (HTTP 401).
    NeedsSession,
    /// No session: the action needs the instructor's token (HTTP 401).
    NeedsInstructorToken,
    /// A student asked for what only the instructor may do (HTTP 403).
    InstructorOnly,
    /// The robot is somebody else's (HTTP 403).
    NotTheOwner,
    /// Only the robot's owner may (the instructor on a student's robot) (HTTP 403).
    OwnerOnly,
}

impl Denial {
    /// Whether the caller lacks credentials (401) rather than rights (403).
    pub fn is_unauthenticated(self) -> bool {
        matches!(self, Denial::NeedsSession | Denial::NeedsInstructorToken)
    }

    /// The sentence a caller reads: `action` on `robot` (if the action concerns one).
    pub fn explain(self, action: Action, robot: Option<&str>) -> String {
        let what = action.describe();
        if matches!(action.scope(), Scope::Class | Scope::Hand) {
            return self.explain_in_class(what);
        }
        let robot = robot.unwrap_or("this robot");
        match self {
            Denial::NeedsSession if action.scope() == Scope::Robot => {
                format!("to {what} you need a session (join the lab with its code) and to own '{robot}'")
            }
            Denial::NeedsSession => format!("to {what} you need a session: join the lab with its code first"),
            Denial::NeedsInstructorToken => {
                format!("to {what} you need the instructor's token (Authorization: Bearer <token>)")
            }
            Denial::InstructorOnly => format!("only the instructor of this lab may {what}"),
            Denial::NotTheOwner => {
                format!("only the owner of '{robot}' or the instructor may {what}; it is not yours")
            }
            Denial::OwnerOnly => format!("only the owner of '{robot}' may {what}"),
        }
    }
}

impl Denial {
    /// The sentence of a class's refusal.
    fn explain_in_class(self, what: &str) -> String {
        match self {
            Denial::NeedsSession => format!("to {what} you need to sign in to the class (code, name and PIN)"),
            Denial::NeedsInstructorToken => {
                format!("to {what} you need the teacher's token (Authorization: Bearer <token>)")
            }
            Denial::InstructorOnly => format!("only the class's teacher may {what}"),
            Denial::NotTheOwner => format!("only the student herself or the teacher may {what}"),
            Denial::OwnerOnly => format!("only the student herself may {what}"),
        }
    }
}

impl Action {
    /// Every action, in the table's order.
    pub const ALL: [Action; 39] = {
        let mut all = [Action::Watch; TABLE.len()];
        let mut i = 0;
        while i < TABLE.len() {
            all[i] = TABLE[i].0;
            i += 1;
        }
        all
    };

    /// Whether it concerns the lab or one robot.
    pub fn scope(self) -> Scope {
        match self {
            Action::Watch
            | Action::ControlTime
            | Action::ChangeSettings
            | Action::SendNotice
            | Action::CloseLab
            | Action::SeeJoinCode
            | Action::ChangeJoinCode
            | Action::RemoveParticipant
            | Action::InsertScene
            | Action::ChangeEnvironment
            | Action::AddRobot
            | Action::AddObject
            | Action::ExportRecording
            | Action::SaveScene
            | Action::RunChallenge => Scope::Lab,
            Action::MoveObject
            | Action::DriveRobot
            | Action::SendKeys
            | Action::ResetRobot
            | Action::SetStart
            | Action::RemoveRobot
            | Action::RemoveObject
            | Action::ReadConsole
            | Action::SeeBelief
            | Action::ReadProgram
            | Action::ReplaceProgram
            | Action::RunProgram
            | Action::ExportRobotRecording
            | Action::AttachController
            | Action::Attempt
            | Action::SeeBoardRow => Scope::Robot,
            Action::SeeClass
            | Action::EnterClassLab
            | Action::ManageRoster
            | Action::ManageCourse
            | Action::Evaluate
            | Action::SeeOverview => Scope::Class,
            Action::Submit | Action::SeeGrades => Scope::Hand,
        }
    }

    /// What it is, as the end of "only the instructor may …".
    pub fn describe(self) -> &'static str {
        match self {
            Action::Watch => "watch the lab",
            Action::ControlTime => "control time",
            Action::ChangeSettings => "change the lab's settings",
            Action::SendNotice => "send notices to the lab",
            Action::CloseLab => "close the lab",
            Action::SeeJoinCode => "read the join code",
            Action::ChangeJoinCode => "change the join code",
            Action::RemoveParticipant => "remove participants",
            Action::InsertScene => "insert scenes",
            Action::MoveObject => "move it",
            Action::ChangeEnvironment => "change the lab's room",
            Action::AddRobot => "add a robot",
            Action::DriveRobot => "drive it by hand",
            Action::SendKeys => "drive it with the keyboard",
            Action::ResetRobot => "reset it",
            Action::SetStart => "move its start",
            Action::RemoveRobot => "remove it",
            Action::AddObject => "add objects",
            Action::RemoveObject => "remove it",
            Action::ReadConsole => "read its console",
            Action::SeeBelief => "see what its program believes and draws",
            Action::ReadProgram => "read its program",
            Action::ReplaceProgram => "replace its program",
            Action::RunProgram => "restart or stop its program",
            Action::ExportRecording => "export the lab's recording",
            Action::ExportRobotRecording => "export its recording",
            Action::SaveScene => "save the lab as a scene",
            Action::AttachController => "attach a remote controller to it",
            Action::Attempt => "try it at the challenge",
            Action::SeeBoardRow => "see their row of the challenge board",
            Action::RunChallenge => "run the challenge live",
            Action::SeeClass => "see the class",
            Action::EnterClassLab => "enter the class's labs",
            Action::ManageRoster => "manage the class's students",
            Action::ManageCourse => "create and change the class's lessons and assignments",
            Action::Evaluate => "evaluate submissions",
            Action::SeeOverview => "see the class's overview",
            Action::Submit => "hand in a program for it",
            Action::SeeGrades => "see these grades",
        }
    }

    /// Whether it concerns something somebody owns (a robot, a student's hand-ins).
    fn owned(self) -> bool {
        matches!(self.scope(), Scope::Robot | Scope::Hand)
    }

    /// Whether a caller of this standing may take this action.
    pub fn allows(self, standing: Standing) -> bool {
        let column = Standing::ALL.iter().position(|s| *s == standing).expect("every standing has a column");
        TABLE.iter().find(|(action, _)| *action == self).is_some_and(|(_, row)| row[column])
    }

    /// `Ok` when a caller of this standing may take this action, else what they lack.
    pub fn check(self, standing: Standing) -> Result<(), Denial> {
        if self.allows(standing) {
            return Ok(());
        }
        let instructor_only = !self.allows(Standing::Owner) && !self.allows(Standing::Student);
        Err(match standing {
            Standing::Anonymous if instructor_only => Denial::NeedsInstructorToken,
            Standing::Anonymous => Denial::NeedsSession,
            Standing::Student if self.owned() && self.allows(Standing::Instructor) => Denial::NotTheOwner,
            Standing::Student if self.owned() => Denial::OwnerOnly,
            Standing::Student => Denial::InstructorOnly,
            Standing::Instructor => Denial::OwnerOnly,
            // An owner is refused nothing but the lab's own business, which has no owner.
            Standing::Owner => Denial::InstructorOnly,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_lists_every_action_once() {
        for action in Action::ALL {
            assert_eq!(TABLE.iter().filter(|(a, _)| *a == action).count(), 1, "{action:?}");
        }
        let mut seen = std::collections::HashSet::new();
        assert!(Action::ALL.iter().all(|a| seen.insert(*a)));
    }

    #[test]
    fn nobody_owns_the_lab_itself() {
        for action in Action::ALL.into_iter().filter(|a| matches!(a.scope(), Scope::Lab | Scope::Class)) {
            assert!(
                !action.allows(Standing::Owner) || action == Action::Watch,
                "{action:?}: an owner standing only exists toward a robot"
            );
        }
    }

    #[test]
    fn a_class_is_its_teachers_and_a_hand_in_its_students() {
        let teacher = Standing::in_class(true, None, Some(3));
        let ana = Standing::in_class(false, Some(3), Some(3));
        let ben = Standing::in_class(false, Some(4), Some(3));
        let nobody = Standing::in_class(false, None, Some(3));
        assert_eq!(
            (teacher, ana, ben, nobody),
            (Standing::Instructor, Standing::Owner, Standing::Student, Standing::Anonymous)
        );
        assert!(Action::SeeGrades.allows(teacher) && Action::SeeGrades.allows(ana));
        assert_eq!(Action::SeeGrades.check(ben), Err(Denial::NotTheOwner));
        assert_eq!(Action::Submit.check(teacher), Err(Denial::OwnerOnly));
        assert_eq!(Action::Evaluate.check(ben), Err(Denial::InstructorOnly));
        assert_eq!(Action::ManageRoster.check(nobody), Err(Denial::NeedsInstructorToken));
        assert_eq!(Action::SeeClass.check(nobody), Err(Denial::NeedsSession));
        assert_eq!(
            Denial::InstructorOnly.explain(Action::Evaluate, None),
            "only the class's teacher may evaluate submissions"
        );
    }

    #[test]
    fn standings_follow_ownership() {
        use Role::*;
        assert_eq!(Standing::toward_robot(Instructor, Some(0), None), Standing::Owner);
        assert_eq!(Standing::toward_robot(Instructor, Some(0), Some(0)), Standing::Owner);
        assert_eq!(Standing::toward_robot(Instructor, Some(0), Some(3)), Standing::Instructor);
        assert_eq!(Standing::toward_robot(Student, Some(3), Some(3)), Standing::Owner);
        assert_eq!(Standing::toward_robot(Student, Some(3), Some(4)), Standing::Student);
        assert_eq!(Standing::toward_robot(Student, Some(3), None), Standing::Student);
        assert_eq!(Standing::toward_robot(Student, Some(3), Some(0)), Standing::Student);
        assert_eq!(Standing::toward_robot(Viewer, None, None), Standing::Anonymous);
        assert_eq!(Standing::in_lab(Instructor), Standing::Instructor);
    }

    #[test]
    fn denials_say_what_is_missing() {
        assert_eq!(Action::ControlTime.check(Standing::Anonymous), Err(Denial::NeedsInstructorToken));
        assert_eq!(Action::ControlTime.check(Standing::Student), Err(Denial::InstructorOnly));
        assert_eq!(Action::RemoveParticipant.check(Standing::Student), Err(Denial::InstructorOnly));
        assert_eq!(Action::ChangeJoinCode.check(Standing::Anonymous), Err(Denial::NeedsInstructorToken));
        assert_eq!(Action::AddRobot.check(Standing::Anonymous), Err(Denial::NeedsSession));
        assert_eq!(Action::RemoveRobot.check(Standing::Student), Err(Denial::NotTheOwner));
        assert_eq!(Action::RemoveObject.check(Standing::Student), Err(Denial::NotTheOwner));
        assert_eq!(Action::RemoveObject.check(Standing::Anonymous), Err(Denial::NeedsSession));
        assert_eq!(Action::AddObject.check(Standing::Anonymous), Err(Denial::NeedsSession));
        assert!(Action::AddObject.allows(Standing::Student) && Action::AddObject.allows(Standing::Instructor));
        assert_eq!(Action::SendKeys.check(Standing::Instructor), Err(Denial::OwnerOnly));
        // Nobody but the owner holds the keys: a student is not told the instructor may.
        assert_eq!(Action::SendKeys.check(Standing::Student), Err(Denial::OwnerOnly));
        assert_eq!(Action::ExportRecording.check(Standing::Student), Err(Denial::InstructorOnly));
        assert_eq!(Action::SaveScene.check(Standing::Anonymous), Err(Denial::NeedsInstructorToken));
        assert_eq!(Action::ChangeEnvironment.check(Standing::Student), Err(Denial::InstructorOnly));
        assert_eq!(Action::ChangeEnvironment.check(Standing::Anonymous), Err(Denial::NeedsInstructorToken));
        assert_eq!(
            Denial::InstructorOnly.explain(Action::ChangeEnvironment, None),
            "only the instructor of this lab may change the lab's room"
        );
        assert_eq!(Action::ExportRobotRecording.check(Standing::Student), Err(Denial::NotTheOwner));
        assert_eq!(Action::ExportRobotRecording.check(Standing::Anonymous), Err(Denial::NeedsSession));
        assert_eq!(Action::MoveObject.check(Standing::Student), Err(Denial::NotTheOwner));
        assert_eq!(Action::MoveObject.check(Standing::Anonymous), Err(Denial::NeedsSession));
        assert!(Action::MoveObject.allows(Standing::Owner) && Action::MoveObject.allows(Standing::Instructor));
        assert_eq!(
            Denial::NotTheOwner.explain(Action::MoveObject, Some("crate")),
            "only the owner of 'crate' or the instructor may move it; it is not yours"
        );
        assert!(Denial::NeedsSession.is_unauthenticated());
        assert!(!Denial::NotTheOwner.is_unauthenticated());
        let sentence = Denial::NotTheOwner.explain(Action::ResetRobot, Some("bot"));
        assert_eq!(sentence, "only the owner of 'bot' or the instructor may reset it; it is not yours");
    }
}
