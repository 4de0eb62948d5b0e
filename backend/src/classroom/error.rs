//! Why the classroom refused or failed a request: one flat enum, each variant with the
//! context a caller needs to read it. `net` turns it into a status and a JSON body.

use vlab_protocol::SceneUploadReply;
use vlab_protocol::permissions::{Action, Denial};

use crate::store::StoreError;
use vlab_lab::LabError;

/// A refused or failed classroom request.
#[derive(Debug, thiserror::Error)]
pub enum ClassroomError {
    /// No lab of that id (or join code) on this server.
    #[error("{0}")]
    NoLab(String),
    /// The token means nothing in this lab.
    #[error("this token is not valid in lab '{lab}'")]
    UnknownToken {
        /// The lab.
        lab: String,
    },
    /// The permission table refuses the action to this caller.
    #[error("{}", denial.explain(*action, robot.as_deref()))]
    Denied {
        /// What was asked.
        action: Action,
        /// What the caller lacks.
        denial: Denial,
        /// The robot acted on, for robot actions.
        robot: Option<String>,
    },
    /// Creating a lab or a class needs the server's key.
    #[error("{0}")]
    NeedsServerKey(String),
    /// No class of that id (or code) on this server.
    #[error("{0}")]
    NoClass(String),
    /// The token means nothing in this class.
    #[error(
        "this token is not valid in class '{class}': it was never signed in, or was signed out by a new PIN or the student's removal"
    )]
    UnknownClassToken {
        /// The class.
        class: String,
    },
    /// A sign-in refused: a wrong PIN, a used link.
    #[error("{0}")]
    SignIn(String),
    /// A rule of the lab refuses it (uploads locked, quota reached).
    #[error("{0}")]
    Forbidden(String),
    /// The request cannot be read as what it must be.
    #[error("{0}")]
    Unreadable(String),
    /// Readable, but a value is out of range or malformed.
    #[error("{0}")]
    Invalid(String),
    /// Something named does not exist (a library scene, an uploaded asset).
    #[error("{0}")]
    NotFound(String),
    /// Clashes with the lab's state (a full lab).
    #[error("{0}")]
    Conflict(String),
    /// Larger than its limit.
    #[error("{0}")]
    TooLarge(String),
    /// The server is doing as much of this as it takes at once (seeks, exports): the
    /// same request may pass in `retry_after` seconds.
    #[error("{message}")]
    Busy {
        /// What is refused and when to try again, in a sentence.
        message: String,
        /// Seconds to wait.
        retry_after: u64,
    },
    /// The caller (or the caller's lab) has as many of these under way as it may: one
    /// may start once one of them ends, in about `retry_after` seconds.
    #[error("{message}")]
    TooMany {
        /// What is refused and what to do, in a sentence.
        message: String,
        /// Seconds to wait.
        retry_after: u64,
    },
    /// A scene with errors, as `file:line:col: message` lines.
    #[error("{message}")]
    Scene {
        /// A sentence.
        message: String,
        /// One positioned line per error.
        details: Vec<String>,
    },
    /// An upload refused, with the reply that says where in its files.
    #[error("the upload was refused: {}", .0.first_error())]
    Upload(Box<UploadRefusal>),
    /// The lab could not do it (no such robot, stopped thread, ...).
    #[error(transparent)]
    Lab(#[from] LabError),
    /// The store failed: nothing was changed.
    #[error("the change could not be saved, so nothing was changed: {0}")]
    Store(#[from] StoreError),
    /// A fault of the server's own.
    #[error("{0}")]
    Internal(String),
}

/// Why an upload was refused, for the status it is answered with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefusalKind {
    /// The files are wrong (syntax, model, program): 422.
    Invalid,
    /// They clash with the lab (a name in use, a second environment): 409.
    Conflict,
    /// A robot where it would stand on nothing fixed or sink into another body: 422.
    Misplaced,
    /// Over the caller's quota: 403.
    OverQuota,
    /// Over the caller's upload byte budget: 413.
    OverBudget,
}

/// A refused upload: its kind and the positioned messages.
#[derive(Debug)]
pub struct UploadRefusal {
    /// Which kind of refusal.
    pub kind: RefusalKind,
    /// The reply, `ok: false`, with its `errors`.
    pub reply: SceneUploadReply,
}

impl UploadRefusal {
    fn first_error(&self) -> String {
        self.reply.errors.first().map(|e| format!("{}:{}:{}: {}", e.file, e.line, e.col, e.message)).unwrap_or_default()
    }
}

impl ClassroomError {
    /// An upload refused with `reply`.
    pub fn upload(kind: RefusalKind, reply: SceneUploadReply) -> ClassroomError {
        ClassroomError::Upload(Box::new(UploadRefusal { kind, reply }))
    }
}
