//! `challenge "title" { ... }` → the scene's [`ChallengeModel`] (docs/challenges.md).
//!
//! The block runs like any other (variables, loops, `random` from the scene's seed);
//! its conditions are evaluated to names and numbers as they run, and the names are
//! resolved once the whole scene has run ([`resolve`]), since a challenge may name
//! objects declared after it (as joints may).

mod resolve;

use super::super::{IResult, Interp, Value, misplaced, type_error};
use super::Ctx;
use crate::ast::{ArgKind, ChallengeStmt, CompareOp, Cond, CondKind, EventCall, EventKind, Expr, ExprKind, ScoreSpec};
use crate::ast::{ShapeKind, ShapeSpec, Stmt};
use crate::error::{ErrorKind, LangError, Position};
use crate::model::{Comparison, MAX_TIME_LIMIT_SECS, Material, Pose, StartPose, ZoneModel, ZoneShape, check_magnitude};

/// How a zone is drawn when it says nothing.
const DEFAULT_ZONE_MATERIAL: &str = "Green";

/// A challenge while its block runs, and after it until the scene's names are known.
pub(in crate::interp) struct ChallengeBuilder {
    title: String,
    pos: Position,
    time_limit: Option<(f64, Position)>,
    zones: Vec<(ZoneModel, Position)>,
    start: Option<(StartPose, Position)>,
    success: Option<(PendingCond, Position)>,
    failure: Option<(PendingCond, Position)>,
    goals: Vec<(String, PendingCond, Position)>,
    points: Vec<(f64, PendingCond)>,
    score: Option<(PendingScore, Position)>,
}

/// A zone while its block runs.
pub(in crate::interp) struct ZoneBuilder {
    name: String,
    pos: Position,
    shape: Option<ZoneShape>,
    pub(super) pose: Pose,
    material: Option<Material>,
}

/// `start { ... }` while its block runs.
pub(in crate::interp) struct StartBuilder {
    pub(super) position: Option<[f32; 3]>,
    heading_deg: f32,
}

/// A name as a condition writes it, and where.
struct WrittenName {
    name: String,
    pos: Position,
}

enum PendingScore {
    Time,
    Distance(WrittenName),
    Percent,
    Points,
}

/// An event's argument, evaluated.
enum PendingArg {
    Name(WrittenName),
    Seconds(f64),
}

/// An event with its arguments evaluated and its names not yet resolved.
struct PendingEvent {
    kind: EventKind,
    args: Vec<PendingArg>,
    compare: Option<(Comparison, f64)>,
}

/// A condition whose events are not yet resolved.
enum PendingCond {
    Event(PendingEvent),
    And(Box<PendingCond>, Box<PendingCond>),
    Or(Box<PendingCond>, Box<PendingCond>),
    Not(Box<PendingCond>),
    Then(Box<PendingCond>, Box<PendingCond>),
    Once(Box<PendingCond>),
}

impl ChallengeBuilder {
    /// What a challenge cannot go without, checked when its block ends.
    fn check_complete(&self) -> IResult<()> {
        let missing = |what: &str| {
            Err(LangError::new(
                self.pos.clone(),
                ErrorKind::Value(format!("the challenge \"{}\" has no {what}", self.title)),
            ))
        };
        if self.time_limit.is_none() {
            return missing("time_limit: add time_limit <seconds>; (at most 3600)");
        }
        if self.success.is_none() {
            return missing("success: add success <condition>; (for example success inside(zone);)");
        }
        match &self.score {
            Some((PendingScore::Percent, at)) if self.goals.is_empty() => Err(LangError::new(
                at.clone(),
                ErrorKind::Value(
                    "score percent counts goals reached: add at least one goal \"name\" <condition>;".into(),
                ),
            )),
            Some((PendingScore::Points, at)) if self.points.is_empty() => Err(LangError::new(
                at.clone(),
                ErrorKind::Value(
                    "score points adds up points: add at least one points <number> when <condition>;".into(),
                ),
            )),
            _ => Ok(()),
        }
    }
}

/// The statement's first word, for messages.
fn item_word(item: &ChallengeStmt) -> &'static str {
    match item {
        ChallengeStmt::TimeLimit(_) => "time_limit",
        ChallengeStmt::Zone { .. } => "a zone",
        ChallengeStmt::Start(_) => "start",
        ChallengeStmt::Heading(_) => "heading",
        ChallengeStmt::Success(_) => "success",
        ChallengeStmt::Failure(_) => "failure",
        ChallengeStmt::Goal { .. } => "a goal",
        ChallengeStmt::Points { .. } => "points",
        ChallengeStmt::Score(_) => "score",
    }
}

/// An error if `slot` is already set (at the position it keeps).
fn not_yet<T>(slot: &Option<(T, Position)>, what: &str, pos: &Position) -> IResult<()> {
    match slot {
        Some((_, first)) => Err(LangError::new(
            pos.clone(),
            ErrorKind::Duplicate(format!("the challenge already has {what} at {first}")),
        )),
        None => Ok(()),
    }
}

fn comparison(op: CompareOp) -> Comparison {
    match op {
        CompareOp::Lt => Comparison::Less,
        CompareOp::Le => Comparison::LessOrEqual,
        CompareOp::Gt => Comparison::Greater,
        CompareOp::Ge => Comparison::GreaterOrEqual,
        CompareOp::Eq => Comparison::Equal,
    }
}

/// A checked number: finite and within the model's magnitude, at `pos`.
fn within_magnitude(what: &str, value: f64, pos: &Position) -> IResult<f64> {
    check_magnitude(what, value).map_err(|message| LangError::new(pos.clone(), ErrorKind::Value(message)))?;
    Ok(value)
}

impl Interp<'_> {
    /// Runs `challenge "title" { ... }`.
    pub(in crate::interp) fn challenge(&mut self, title: &Expr, body: &[Stmt], pos: &Position) -> IResult<()> {
        if !self.builder.stack.is_empty() {
            return Err(misplaced(
                pos,
                "a challenge belongs at the top level of the scene, not inside an object, robot or container",
            ));
        }
        if let Some(first) = &self.builder.challenge {
            return Err(LangError::new(
                pos.clone(),
                ErrorKind::Duplicate(format!(
                    "a scene sets one challenge, and it already has \"{}\" at {}",
                    first.title, first.pos
                )),
            ));
        }
        let title = self.string(title, "the challenge's title")?.to_string();
        let challenge = ChallengeBuilder {
            title,
            pos: pos.clone(),
            time_limit: None,
            zones: vec![],
            start: None,
            success: None,
            failure: None,
            goals: vec![],
            points: vec![],
            score: None,
        };
        let Ctx::Challenge(challenge) = self.run_in(Ctx::Challenge(Box::new(challenge)), body)? else { unreachable!() };
        challenge.check_complete()?;
        self.builder.challenge = Some(*challenge);
        Ok(())
    }

    /// The challenge whose block is running: the caller checked it is the innermost.
    fn open_challenge(&mut self) -> &mut ChallengeBuilder {
        match self.builder.stack.last_mut() {
            Some(Ctx::Challenge(challenge)) => challenge,
            _ => unreachable!("checked by the caller"),
        }
    }

    /// Runs a statement of a challenge's block.
    pub(in crate::interp) fn challenge_item(&mut self, item: &ChallengeStmt, pos: &Position) -> IResult<()> {
        if let ChallengeStmt::Heading(degrees) = item {
            return self.heading(degrees, pos);
        }
        if !matches!(self.builder.stack.last(), Some(Ctx::Challenge(_))) {
            return Err(misplaced(pos, &format!("{} belongs inside a challenge \"...\" {{ ... }}", item_word(item))));
        }
        match item {
            ChallengeStmt::TimeLimit(seconds) => {
                not_yet(&self.open_challenge().time_limit, "a time_limit", pos)?;
                let secs = self.num(seconds, "time_limit")?;
                if !(secs > 0.0 && secs <= MAX_TIME_LIMIT_SECS) {
                    return Err(LangError::new(
                        seconds.pos.clone(),
                        ErrorKind::Value(format!(
                            "time_limit must be more than 0 and at most {MAX_TIME_LIMIT_SECS} seconds, got {}",
                            super::super::expr::format_num(secs)
                        )),
                    ));
                }
                self.open_challenge().time_limit = Some((secs, pos.clone()));
            }
            ChallengeStmt::Zone { name, body } => {
                let name = self.name_of(name)?;
                self.zone(name, body, pos)?;
            }
            ChallengeStmt::Start(body) => self.start(body, pos)?,
            ChallengeStmt::Success(cond) => {
                not_yet(&self.open_challenge().success, "a success", pos)?;
                let cond = self.pending_cond(cond)?;
                self.open_challenge().success = Some((cond, pos.clone()));
            }
            ChallengeStmt::Failure(cond) => {
                not_yet(&self.open_challenge().failure, "a failure", pos)?;
                let cond = self.pending_cond(cond)?;
                self.open_challenge().failure = Some((cond, pos.clone()));
            }
            ChallengeStmt::Goal { name, cond } => {
                let name = self.string(name, "the goal's name")?.to_string();
                if let Some((_, _, first)) = self.open_challenge().goals.iter().find(|(n, ..)| *n == name) {
                    return Err(LangError::new(
                        pos.clone(),
                        ErrorKind::Duplicate(format!("the goal \"{name}\" is already declared at {first}")),
                    ));
                }
                let cond = self.pending_cond(cond)?;
                self.open_challenge().goals.push((name, cond, pos.clone()));
            }
            ChallengeStmt::Points { value, cond } => {
                let points = self.num(value, "points")?;
                let points = within_magnitude("points", points, &value.pos)?;
                let cond = self.pending_cond(cond)?;
                self.open_challenge().points.push((points, cond));
            }
            ChallengeStmt::Score(spec) => {
                not_yet(&self.open_challenge().score, "a score", pos)?;
                let score = match spec {
                    ScoreSpec::Time => PendingScore::Time,
                    ScoreSpec::Percent => PendingScore::Percent,
                    ScoreSpec::Points => PendingScore::Points,
                    ScoreSpec::Distance(zone) => {
                        PendingScore::Distance(self.written_name(zone, "a zone's name", "distance(zone)")?)
                    }
                };
                self.open_challenge().score = Some((score, pos.clone()));
            }
            ChallengeStmt::Heading(_) => unreachable!("handled above"),
        }
        Ok(())
    }

    fn zone(&mut self, name: String, body: &[Stmt], pos: &Position) -> IResult<()> {
        self.count_element(pos)?;
        if let Some((_, first)) = self.open_challenge().zones.iter().find(|(zone, _)| zone.name == name) {
            return Err(LangError::new(
                pos.clone(),
                ErrorKind::Duplicate(format!("the zone '{name}' is already declared at {first}")),
            ));
        }
        let zone = ZoneBuilder { name, pos: pos.clone(), shape: None, pose: Pose::IDENTITY, material: None };
        let Ctx::Zone(zone) = self.run_in(Ctx::Zone(zone), body)? else { unreachable!() };
        let Some(shape) = zone.shape else {
            return Err(LangError::new(
                zone.pos,
                ErrorKind::Value(format!(
                    "the zone '{}' has no shape: add box(width, height, length) or cylinder(radius, height)",
                    zone.name
                )),
            ));
        };
        let material = zone.material.unwrap_or_else(|| self.builder.palette.get(DEFAULT_ZONE_MATERIAL));
        let model = ZoneModel { name: zone.name, shape, pose: zone.pose, material };
        self.open_challenge().zones.push((model, pos.clone()));
        Ok(())
    }

    /// `box(...)` or `cylinder(...)` in a zone's block.
    pub(in crate::interp) fn zone_shape(&mut self, spec: &ShapeSpec) -> IResult<()> {
        if !matches!(spec.kind, ShapeKind::Box | ShapeKind::Cylinder) {
            return Err(LangError::new(
                spec.pos.clone(),
                ErrorKind::Value(format!(
                    "a zone is a box(width, height, length) or a cylinder(radius, height), not a {}",
                    format!("{:?}", spec.kind).to_ascii_lowercase()
                )),
            ));
        }
        let mut sizes = [0.0f32; 3];
        for (size, arg) in sizes.iter_mut().zip(&spec.args) {
            let value = within_magnitude("a size", self.num(arg, "a size")?, &arg.pos)?;
            if value <= 0.0 {
                return Err(LangError::new(
                    arg.pos.clone(),
                    ErrorKind::Value(format!("sizes must be positive, got {}", super::super::expr::format_num(value))),
                ));
            }
            *size = value as f32;
        }
        let shape = match spec.kind {
            ShapeKind::Box => ZoneShape::Box { half_extents: sizes.map(|size| size / 2.0) },
            _ => ZoneShape::Cylinder { radius: sizes[0], half_height: sizes[1] / 2.0 },
        };
        let Some(Ctx::Zone(zone)) = self.builder.stack.last_mut() else { unreachable!("checked by the caller") };
        zone.shape = Some(shape);
        Ok(())
    }

    /// `color "Green";` (or `material`) in a zone's block.
    pub(in crate::interp) fn zone_color(&mut self, value: &Expr) -> IResult<()> {
        let name = self.string(value, "a zone's color")?;
        let material = self.material(&name, &value.pos);
        let Some(Ctx::Zone(zone)) = self.builder.stack.last_mut() else { unreachable!("checked by the caller") };
        zone.material = Some(material);
        Ok(())
    }

    fn start(&mut self, body: &[Stmt], pos: &Position) -> IResult<()> {
        not_yet(&self.open_challenge().start, "a start", pos)?;
        let start = StartBuilder { position: None, heading_deg: 0.0 };
        let Ctx::Start(start) = self.run_in(Ctx::Start(start), body)? else { unreachable!() };
        let Some(position) = start.position else {
            return Err(LangError::new(
                pos.clone(),
                ErrorKind::Value("start needs pos(x, y, z): where robots start".into()),
            ));
        };
        self.open_challenge().start = Some((StartPose { position, heading_deg: start.heading_deg }, pos.clone()));
        Ok(())
    }

    fn heading(&mut self, degrees: &Expr, pos: &Position) -> IResult<()> {
        if !matches!(self.builder.stack.last(), Some(Ctx::Start(_))) {
            return Err(misplaced(pos, "heading belongs inside start { ... } of a challenge"));
        }
        let heading = self.num(degrees, "heading")?;
        let heading = within_magnitude("heading", heading, &degrees.pos)?;
        let Some(Ctx::Start(start)) = self.builder.stack.last_mut() else { unreachable!("checked above") };
        start.heading_deg = heading as f32;
        Ok(())
    }

    // ---- conditions: evaluated where they are written ---------------------------------

    fn pending_cond(&mut self, cond: &Cond) -> IResult<PendingCond> {
        self.enter(&cond.pos)?;
        let pending = self.pending_cond_inner(cond);
        self.depth -= 1;
        pending
    }

    fn pending_cond_inner(&mut self, cond: &Cond) -> IResult<PendingCond> {
        let both = |me: &mut Self, a: &Cond, b: &Cond| -> IResult<(Box<PendingCond>, Box<PendingCond>)> {
            Ok((Box::new(me.pending_cond(a)?), Box::new(me.pending_cond(b)?)))
        };
        Ok(match &cond.kind {
            CondKind::Event(call) => PendingCond::Event(self.pending_event(call)?),
            CondKind::And(a, b) => {
                let (a, b) = both(self, a, b)?;
                PendingCond::And(a, b)
            }
            CondKind::Or(a, b) => {
                let (a, b) = both(self, a, b)?;
                PendingCond::Or(a, b)
            }
            CondKind::Then(a, b) => {
                let (a, b) = both(self, a, b)?;
                PendingCond::Then(a, b)
            }
            CondKind::Not(inner) => PendingCond::Not(Box::new(self.pending_cond(inner)?)),
            CondKind::Once(inner) => PendingCond::Once(Box::new(self.pending_cond(inner)?)),
        })
    }

    fn pending_event(&mut self, call: &EventCall) -> IResult<PendingEvent> {
        let kind = call.kind;
        let mut args = Vec::with_capacity(call.args.len());
        for (arg, param) in call.args.iter().zip(kind.params()) {
            let what = match param {
                ArgKind::Seconds => {
                    let secs = self.num(arg, &format!("the seconds of {}", kind.name()))?;
                    let secs = within_magnitude("seconds", secs, &arg.pos)?;
                    if secs <= 0.0 {
                        return Err(LangError::new(
                            arg.pos.clone(),
                            ErrorKind::Value(format!(
                                "the seconds of {} must be positive, got {}",
                                kind.name(),
                                super::super::expr::format_num(secs)
                            )),
                        ));
                    }
                    args.push(PendingArg::Seconds(secs));
                    continue;
                }
                ArgKind::Zone => "a zone's name",
                ArgKind::Body => "the name of a body or group",
                ArgKind::Sensor => "a sensor's name",
            };
            args.push(PendingArg::Name(self.written_name(arg, what, kind.usage())?));
        }
        let compare = match &call.compare {
            Some((op, value)) => {
                let number = self.num(value, &format!("what {} is compared with", kind.name()))?;
                Some((comparison(*op), within_magnitude("a number", number, &value.pos)?))
            }
            None => None,
        };
        Ok(PendingEvent { kind, args, compare })
    }

    /// A name written as a word (`bay`) or as a string expression (`"bay_" . string(i)`).
    fn written_name(&mut self, arg: &Expr, what: &str, usage: &str) -> IResult<WrittenName> {
        if let ExprKind::Var(name) = &arg.kind {
            return Ok(WrittenName { name: name.clone(), pos: arg.pos.clone() });
        }
        match self.eval(arg)? {
            Value::Str(name) => Ok(WrittenName { name: name.to_string(), pos: arg.pos.clone() }),
            other => Err(type_error(&arg.pos, format!("{usage} takes {what} here, not a {}", other.ty().name()))),
        }
    }
}
