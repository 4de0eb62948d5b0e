//! A challenge's names resolved to the model's indices, once the whole scene has run:
//! zones by the challenge's order, bodies and groups by the scene's names.

use super::super::super::IResult;
use super::super::{Builder, Target};
use super::{ChallengeBuilder, PendingArg, PendingCond, PendingEvent, PendingScore, WrittenName};
use crate::ast::EventKind;
use crate::error::{ErrorKind, LangError};
use crate::model::{ChallengeModel, Comparison, Condition, Event, Motion, ScoreRule, Touchable, ZoneModel};

/// The environment's walls, which `touched(walls)` names together.
const WALLS: [&str; 4] = ["wall_south", "wall_north", "wall_west", "wall_east"];

/// How many names an "unknown name" message lists.
const NAMES_LISTED: usize = 8;

impl Builder {
    /// The challenge with every name resolved to the model's indices.
    pub(in crate::interp) fn resolve_challenge(&self, challenge: ChallengeBuilder) -> IResult<ChallengeModel> {
        let zones: Vec<ZoneModel> = challenge.zones.into_iter().map(|(zone, _)| zone).collect();
        let (success, _) = challenge.success.expect("checked when the block ended");
        let (time_limit_secs, _) = challenge.time_limit.expect("checked when the block ended");
        let success = self.resolve_cond(success, &zones)?;
        let failure = match challenge.failure {
            Some((cond, _)) => Some(self.resolve_cond(cond, &zones)?),
            None => None,
        };
        let mut goals = Vec::with_capacity(challenge.goals.len());
        for (name, cond, _) in challenge.goals {
            goals.push((name, self.resolve_cond(cond, &zones)?));
        }
        let mut points = Vec::with_capacity(challenge.points.len());
        for (value, cond) in challenge.points {
            points.push((value, self.resolve_cond(cond, &zones)?));
        }
        let score = match challenge.score {
            None | Some((PendingScore::Time, _)) => ScoreRule::Time,
            Some((PendingScore::Percent, _)) => ScoreRule::Percent,
            Some((PendingScore::Points, _)) => ScoreRule::Points,
            Some((PendingScore::Distance(zone), _)) => {
                ScoreRule::Distance { zone: zone_index(&zones, zone, "score distance(...)")? }
            }
        };
        Ok(ChallengeModel {
            title: challenge.title,
            time_limit_secs,
            start: challenge.start.map(|(start, _)| start),
            zones,
            success,
            failure,
            goals,
            points,
            score,
        })
    }

    fn resolve_cond(&self, cond: PendingCond, zones: &[ZoneModel]) -> IResult<Condition> {
        let both = |a: Box<PendingCond>, b: Box<PendingCond>| -> IResult<(Box<Condition>, Box<Condition>)> {
            Ok((Box::new(self.resolve_cond(*a, zones)?), Box::new(self.resolve_cond(*b, zones)?)))
        };
        Ok(match cond {
            PendingCond::Event(event) => Condition::Event(self.resolve_event(event, zones)?),
            PendingCond::And(a, b) => {
                let (a, b) = both(a, b)?;
                Condition::And(a, b)
            }
            PendingCond::Or(a, b) => {
                let (a, b) = both(a, b)?;
                Condition::Or(a, b)
            }
            PendingCond::Then(a, b) => {
                let (a, b) = both(a, b)?;
                Condition::Then(a, b)
            }
            PendingCond::Not(inner) => Condition::Not(Box::new(self.resolve_cond(*inner, zones)?)),
            PendingCond::Once(inner) => Condition::Once(Box::new(self.resolve_cond(*inner, zones)?)),
        })
    }

    fn resolve_event(&self, event: PendingEvent, zones: &[ZoneModel]) -> IResult<Event> {
        let PendingEvent { kind, args, compare } = event;
        let context = format!("{}(...)", kind.name());
        let mut args = args.into_iter();
        let zone = |name: WrittenName| zone_index(zones, name, &context);
        let (comparison, value) = compare.unwrap_or((Comparison::Equal, 0.0));
        Ok(match kind {
            EventKind::Entered => Event::Entered { zone: zone(take_name(args.next()))? },
            EventKind::Left => Event::Left { zone: zone(take_name(args.next()))? },
            EventKind::Inside => Event::Inside { zone: zone(take_name(args.next()))? },
            EventKind::StoppedIn => {
                let at = zone(take_name(args.next()))?;
                Event::StoppedIn { zone: at, secs: seconds(args.next()) }
            }
            EventKind::Touched => Event::Touched(self.touchable(take_name(args.next()), &context)?),
            EventKind::PushedInto => {
                let body = self.pushable(take_name(args.next()), &context)?;
                Event::PushedInto { body, zone: zone(take_name(args.next()))? }
            }
            EventKind::Fell => Event::Fell,
            EventKind::Flipped => Event::Flipped,
            EventKind::NoProgress => Event::NoProgress { secs: seconds(args.next()) },
            EventKind::Sensor => Event::Sensor { name: take_name(args.next()).name, comparison, value },
            EventKind::Time => Event::Time { comparison, secs: value },
        })
    }

    /// What `touched(name)` names: a body, a container's bodies, a robot's, or the
    /// environment's walls.
    fn touchable(&self, written: WrittenName, context: &str) -> IResult<Touchable> {
        let group = |bodies: Vec<usize>| Touchable::Group { name: written.name.clone(), bodies };
        match self.names.get(&written.name) {
            Some((Target::Body(index), _)) => Ok(Touchable::Body(*index)),
            Some((Target::Container, _)) => Ok(group(self.bodies_of_group(&written.name))),
            Some((Target::Robot, _)) => Ok(group(self.bodies_of_robot(&written.name))),
            _ if written.name == "walls" && self.model.environment.is_some() => {
                Ok(group(WALLS.iter().filter_map(|wall| self.model.body_index(wall)).collect()))
            }
            _ => Err(self.unknown_body(written, context)),
        }
    }

    /// The one object `pushed_into(name, ...)` names: a body that can move.
    fn pushable(&self, written: WrittenName, context: &str) -> IResult<usize> {
        let refuse = |why: String| LangError::new(written.pos.clone(), ErrorKind::Value(why));
        match self.names.get(&written.name) {
            Some((Target::Body(index), _)) if self.model.bodies[*index].motion == Motion::Fixed => {
                Err(refuse(format!("'{}' is static: nothing can push it into a zone", written.name)))
            }
            Some((Target::Body(index), _)) => Ok(*index),
            Some((Target::Container, _)) => {
                Err(refuse(format!("'{}' is a container: {context} takes one object", written.name)))
            }
            Some((Target::Robot, _)) => {
                Err(refuse(format!("'{}' is a robot: {context} takes an object the robot pushes", written.name)))
            }
            _ => Err(self.unknown_body(written, context)),
        }
    }

    /// The bodies of the container `name`, its nested containers' included.
    fn bodies_of_group(&self, name: &str) -> Vec<usize> {
        let mut bodies = Vec::new();
        let mut pending = vec![name.to_owned()];
        while let Some(group) = pending.pop() {
            let Some(model) = self.model.groups.iter().find(|g| g.name == group) else { continue };
            for member in &model.members {
                match self.names.get(member) {
                    Some((Target::Body(index), _)) if !bodies.contains(index) => bodies.push(*index),
                    Some((Target::Container, _)) => pending.push(member.clone()),
                    _ => {}
                }
            }
        }
        bodies.sort_unstable();
        bodies
    }

    fn bodies_of_robot(&self, name: &str) -> Vec<usize> {
        let of_robot =
            |(index, body): (usize, &crate::model::BodyModel)| (body.robot.as_deref() == Some(name)).then_some(index);
        self.model.bodies.iter().enumerate().filter_map(of_robot).collect()
    }

    /// "unknown body or group", with a few of the names there are.
    fn unknown_body(&self, written: WrittenName, context: &str) -> LangError {
        let environment = self.model.environment.is_some();
        let is_environment =
            |name: &str| environment && (name == "floor" || name == "ceiling" || WALLS.contains(&name));
        let mut names: Vec<&str> = self
            .model
            .bodies
            .iter()
            .filter(|body| body.robot.is_none() && !is_environment(&body.name))
            .map(|body| body.name.as_str())
            .chain(self.model.groups.iter().map(|group| group.name.as_str()))
            .chain(self.model.robots.iter().map(|robot| robot.name.as_str()))
            .collect();
        if environment {
            names.extend(["floor", "walls"]);
        }
        let known = if names.is_empty() {
            "the scene has no objects".to_owned()
        } else {
            format!("the scene has {}", a_few(&names))
        };
        LangError::new(
            written.pos,
            ErrorKind::UnknownName {
                what: "body or group".into(),
                name: written.name,
                context: context.to_owned(),
                known,
            },
        )
    }
}

/// The index of the zone `written` names.
fn zone_index(zones: &[ZoneModel], written: WrittenName, context: &str) -> IResult<usize> {
    if let Some(index) = zones.iter().position(|zone| zone.name == written.name) {
        return Ok(index);
    }
    let names: Vec<&str> = zones.iter().map(|zone| zone.name.as_str()).collect();
    let known = if names.is_empty() {
        "the challenge declares no zone: add zone <name> { box(...); pos(...); }".to_owned()
    } else {
        format!("the challenge's zones: {}", a_few(&names))
    };
    Err(LangError::new(
        written.pos,
        ErrorKind::UnknownName { what: "zone".into(), name: written.name, context: context.to_owned(), known },
    ))
}

/// The name argument the parser counted.
fn take_name(arg: Option<PendingArg>) -> WrittenName {
    match arg {
        Some(PendingArg::Name(name)) => name,
        _ => unreachable!("the parser counted the arguments"),
    }
}

/// The seconds argument the parser counted.
fn seconds(arg: Option<PendingArg>) -> f64 {
    match arg {
        Some(PendingArg::Seconds(secs)) => secs,
        _ => unreachable!("the parser counted the arguments"),
    }
}

/// The first few of `names`, then how many more.
fn a_few(names: &[&str]) -> String {
    let shown = names[..names.len().min(NAMES_LISTED)].join(", ");
    match names.len().saturating_sub(NAMES_LISTED) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}
