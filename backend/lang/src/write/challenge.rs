//! A lab's challenge written back as its `challenge "title" { ... }` block: zones where
//! they were drawn, the start, the conditions with every combination in parentheses,
//! the score.

use std::fmt::Write as _;

use super::WriteError;
use super::text::{ROTATION_DECIMALS, fixed, is_plain_word, name, point, real, string, wide};
use crate::model::{ChallengeModel, Condition, Event, SceneModel, ScoreRule, Touchable, ZoneShape};

/// Appends `challenge`'s block to `out`; body indices are `model`'s.
pub(super) fn write(out: &mut String, challenge: &ChallengeModel, model: &SceneModel) -> Result<(), WriteError> {
    let _ = writeln!(out, "challenge {} {{", string(&challenge.title)?);
    let _ = writeln!(out, "  time_limit {};", wide(challenge.time_limit_secs));
    for zone in &challenge.zones {
        let shape = match zone.shape {
            ZoneShape::Box { half_extents: [x, y, z] } => {
                format!("box({}, {}, {})", real(2.0 * x), real(2.0 * y), real(2.0 * z))
            }
            ZoneShape::Cylinder { radius, half_height } => {
                format!("cylinder({}, {})", real(radius), real(2.0 * half_height))
            }
        };
        let _ = write!(out, "  zone {} {{ {shape}; pos({});", name(&zone.name)?, point(zone.pose.position));
        if !super::is_identity_rotation(&zone.pose) {
            let [x, y, z, w] = zone.pose.rotation.map(f64::from);
            let sign = if w < 0.0 { -1.0 } else { 1.0 };
            let q = [w, x, y, z].map(|c| fixed(sign * c, ROTATION_DECIMALS));
            let _ = write!(out, " quaternion({});", q.join(", "));
        }
        let _ = writeln!(out, " color {}; }}", string(&zone.material.name)?);
    }
    if let Some(start) = &challenge.start {
        let _ = writeln!(out, "  start {{ pos({}); heading {}; }}", point(start.position), real(start.heading_deg));
    }
    let words = Words { challenge, model };
    let _ = writeln!(out, "  success {};", words.condition(&challenge.success)?);
    if let Some(failure) = &challenge.failure {
        let _ = writeln!(out, "  failure {};", words.condition(failure)?);
    }
    for (goal, condition) in &challenge.goals {
        let _ = writeln!(out, "  goal {} {};", string(goal)?, words.condition(condition)?);
    }
    for (points, condition) in &challenge.points {
        let _ = writeln!(out, "  points {} when {};", wide(*points), words.condition(condition)?);
    }
    let score = match challenge.score {
        ScoreRule::Time => "time".to_owned(),
        ScoreRule::Distance { zone } => format!("distance({})", words.zone(zone)?),
        ScoreRule::Percent => "percent".to_owned(),
        ScoreRule::Points => "points".to_owned(),
    };
    let _ = writeln!(out, "  score {score};");
    out.push_str("}\n");
    Ok(())
}

/// Names in a challenge's conditions: zones by index, bodies by the model's indices.
struct Words<'a> {
    challenge: &'a ChallengeModel,
    model: &'a SceneModel,
}

impl Words<'_> {
    fn condition(&self, condition: &Condition) -> Result<String, WriteError> {
        Ok(match condition {
            Condition::Event(event) => self.event(event)?,
            Condition::And(a, b) => format!("({} and {})", self.condition(a)?, self.condition(b)?),
            Condition::Or(a, b) => format!("({} or {})", self.condition(a)?, self.condition(b)?),
            Condition::Then(a, b) => format!("({} then {})", self.condition(a)?, self.condition(b)?),
            Condition::Not(a) => format!("not ({})", self.condition(a)?),
            Condition::Once(a) => format!("once({})", self.condition(a)?),
        })
    }

    fn event(&self, event: &Event) -> Result<String, WriteError> {
        Ok(match event {
            Event::Entered { zone } => format!("entered({})", self.zone(*zone)?),
            Event::Left { zone } => format!("left({})", self.zone(*zone)?),
            Event::Inside { zone } => format!("inside({})", self.zone(*zone)?),
            Event::StoppedIn { zone, secs } => format!("stopped_in({}, {})", self.zone(*zone)?, wide(*secs)),
            Event::Touched(Touchable::Body(body)) => format!("touched({})", self.body(*body)?),
            Event::Touched(Touchable::Group { name, .. }) => format!("touched({})", word(name)?),
            Event::PushedInto { body, zone } => format!("pushed_into({}, {})", self.body(*body)?, self.zone(*zone)?),
            Event::Fell => "fell()".to_owned(),
            Event::Flipped => "flipped()".to_owned(),
            Event::NoProgress { secs } => format!("no_progress({})", wide(*secs)),
            Event::Sensor { name, comparison, value } => {
                format!("sensor({}) {} {}", word(name)?, comparison.symbol(), wide(*value))
            }
            Event::Time { comparison, secs } => format!("time() {} {}", comparison.symbol(), wide(*secs)),
        })
    }

    fn zone(&self, zone: usize) -> Result<String, WriteError> {
        let zone = self.challenge.zones.get(zone).ok_or_else(|| WriteError::Inexpressible {
            what: format!("the challenge '{}'", self.challenge.title),
            why: "one of its events names a zone it does not have",
        })?;
        word(&zone.name)
    }

    fn body(&self, body: usize) -> Result<String, WriteError> {
        let body = self.model.bodies.get(body).ok_or_else(|| WriteError::Inexpressible {
            what: format!("the challenge '{}'", self.challenge.title),
            why: "one of its events names an object that has left the lab",
        })?;
        word(&body.name)
    }
}

/// A name as an event's argument: the bare word, or a string where a word cannot say it.
fn word(text: &str) -> Result<String, WriteError> {
    if is_plain_word(text) { Ok(text.to_owned()) } else { string(text) }
}
