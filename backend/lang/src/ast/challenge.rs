//! The syntax of a challenge block (docs/challenges.md): its statements and the
//! conditions they write, as the parser reads them. Names in conditions are still
//! words here; the interpreter resolves them.

use super::{Expr, Name, Stmt};
use crate::error::Position;

/// A statement only a challenge's block (or a zone's or `start`'s inside it) takes.
#[derive(Clone, Debug)]
pub enum ChallengeStmt {
    /// `time_limit 60;`
    TimeLimit(Expr),
    /// `zone bay { box(...); pos(...); color "Green"; }`
    Zone {
        /// Its name.
        name: Name,
        /// Its shape, place and colour.
        body: Vec<Stmt>,
    },
    /// `start { pos(...); heading 90; }`
    Start(Vec<Stmt>),
    /// `heading 90;` inside `start`: degrees about the vertical.
    Heading(Expr),
    /// `success <condition>;`
    Success(Cond),
    /// `failure <condition>;`
    Failure(Cond),
    /// `goal "name" <condition>;`
    Goal {
        /// The goal's name.
        name: Expr,
        /// When it is reached.
        cond: Cond,
    },
    /// `points 10 when <condition>;`
    Points {
        /// How many.
        value: Expr,
        /// What earns them.
        cond: Cond,
    },
    /// `score time;`, `score distance(bay);`, `score percent;`, `score points;`
    Score(ScoreSpec),
}

/// How a `score` statement is written.
#[derive(Clone, Debug)]
pub enum ScoreSpec {
    /// `score time;`
    Time,
    /// `score distance(zone);`, the zone's argument and where it is written.
    Distance(Expr),
    /// `score percent;`
    Percent,
    /// `score points;`
    Points,
}

/// A condition as written, with where it starts.
#[derive(Clone, Debug)]
pub struct Cond {
    /// What it says.
    pub kind: CondKind,
    /// Where it starts.
    pub pos: Position,
}

/// Condition kinds.
#[derive(Clone, Debug)]
pub enum CondKind {
    /// `entered(bay)`, `sensor(front) < 0.3`.
    Event(EventCall),
    /// `a and b` / `a && b`
    And(Box<Cond>, Box<Cond>),
    /// `a or b` / `a || b`
    Or(Box<Cond>, Box<Cond>),
    /// `not a` / `!a`
    Not(Box<Cond>),
    /// `a then b`
    Then(Box<Cond>, Box<Cond>),
    /// `once(a)`
    Once(Box<Cond>),
}

/// An event as written: `stopped_in(bay, 1.0)`, `time() >= 30`.
#[derive(Clone, Debug)]
pub struct EventCall {
    /// Which event.
    pub kind: EventKind,
    /// Its arguments (names are variables here: `bay`, or string expressions).
    pub args: Vec<Expr>,
    /// The comparison after it (`sensor(...)` and `time()` only): operator and number.
    pub compare: Option<(CompareOp, Expr)>,
}

/// The comparison operators an event takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareOp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
}

/// What an event's argument is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// A zone of the challenge.
    Zone,
    /// A body or group of the scene.
    Body,
    /// Seconds, a number > 0.
    Seconds,
    /// A sensor's name.
    Sensor,
}

/// The events (names case-insensitive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// `entered(zone)`
    Entered,
    /// `left(zone)`
    Left,
    /// `inside(zone)`
    Inside,
    /// `stopped_in(zone, secs)`
    StoppedIn,
    /// `touched(body_or_group)`
    Touched,
    /// `pushed_into(body, zone)`
    PushedInto,
    /// `fell()`
    Fell,
    /// `flipped()`
    Flipped,
    /// `no_progress(secs)`
    NoProgress,
    /// `sensor(name) < number`
    Sensor,
    /// `time() >= number`
    Time,
}

impl EventKind {
    /// Every event, in the order the docs list them.
    pub const ALL: [EventKind; 11] = [
        EventKind::Entered,
        EventKind::Left,
        EventKind::Inside,
        EventKind::StoppedIn,
        EventKind::Touched,
        EventKind::PushedInto,
        EventKind::Fell,
        EventKind::Flipped,
        EventKind::NoProgress,
        EventKind::Sensor,
        EventKind::Time,
    ];

    /// The event called `word` (case-insensitive).
    pub fn lookup(word: &str) -> Option<EventKind> {
        let lower = word.to_ascii_lowercase();
        EventKind::ALL.into_iter().find(|kind| kind.name() == lower)
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Entered => "entered",
            EventKind::Left => "left",
            EventKind::Inside => "inside",
            EventKind::StoppedIn => "stopped_in",
            EventKind::Touched => "touched",
            EventKind::PushedInto => "pushed_into",
            EventKind::Fell => "fell",
            EventKind::Flipped => "flipped",
            EventKind::NoProgress => "no_progress",
            EventKind::Sensor => "sensor",
            EventKind::Time => "time",
        }
    }

    /// How it is written, for messages.
    pub fn usage(self) -> &'static str {
        match self {
            EventKind::Entered => "entered(zone)",
            EventKind::Left => "left(zone)",
            EventKind::Inside => "inside(zone)",
            EventKind::StoppedIn => "stopped_in(zone, seconds)",
            EventKind::Touched => "touched(body or group)",
            EventKind::PushedInto => "pushed_into(object, zone)",
            EventKind::Fell => "fell()",
            EventKind::Flipped => "flipped()",
            EventKind::NoProgress => "no_progress(seconds)",
            EventKind::Sensor => "sensor(name) < number",
            EventKind::Time => "time() >= number",
        }
    }

    /// What its arguments are, in order.
    pub fn params(self) -> &'static [ArgKind] {
        match self {
            EventKind::Entered | EventKind::Left | EventKind::Inside => &[ArgKind::Zone],
            EventKind::StoppedIn => &[ArgKind::Zone, ArgKind::Seconds],
            EventKind::Touched => &[ArgKind::Body],
            EventKind::PushedInto => &[ArgKind::Body, ArgKind::Zone],
            EventKind::Fell | EventKind::Flipped | EventKind::Time => &[],
            EventKind::NoProgress => &[ArgKind::Seconds],
            EventKind::Sensor => &[ArgKind::Sensor],
        }
    }

    /// Whether it is a measurement compared with a number (`sensor`, `time`) rather
    /// than true or false by itself.
    pub fn is_compared(self) -> bool {
        matches!(self, EventKind::Sensor | EventKind::Time)
    }

    /// Every event's usage, for the message about an unknown one.
    pub fn all_usages() -> String {
        EventKind::ALL.map(EventKind::usage).join(", ")
    }
}
