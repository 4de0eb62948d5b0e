//! A challenge: what "solved" means for a scene (docs/challenges.md), as plain data
//! with every name already resolved to the model's indices, ready for the server to
//! measure a run against.
//!
//! Times are seconds of simulation. Zones are drawn, never solid: they only say where
//! events happen.

use super::{Material, Pose};

/// The challenge a scene sets its robots: at most one per scene.
#[derive(Clone, Debug, PartialEq)]
pub struct ChallengeModel {
    /// What the teacher called it (`challenge "Park in the green bay"`).
    pub title: String,
    /// How long a run may last, seconds of simulation (more than 0, at most 3600).
    pub time_limit_secs: f64,
    /// The zones its events name, in declaration order (events refer to them by index).
    pub zones: Vec<ZoneModel>,
    /// Where robots start an attempt, if the challenge says.
    pub start: Option<StartPose>,
    /// When the attempt is solved.
    pub success: Condition,
    /// When the attempt has failed, if the challenge says.
    pub failure: Option<Condition>,
    /// Named sub-goals (what `score percent` counts), in declaration order.
    pub goals: Vec<(String, Condition)>,
    /// Points and what earns them (what `score points` adds up), in declaration order.
    pub points: Vec<(f64, Condition)>,
    /// How an attempt is scored.
    pub score: ScoreRule,
}

impl ChallengeModel {
    /// Renumbers every body it names with `renumber` (what appending its scene to a
    /// lab's model, or taking a robot out of it, does to body indices). A body that is
    /// gone (`None`) can no longer be touched or pushed: a group forgets it, and an
    /// event naming it alone never happens again ([`GONE`]).
    pub fn renumber_bodies(&mut self, renumber: impl Fn(usize) -> Option<usize> + Copy) {
        let conditions = std::iter::once(&mut self.success)
            .chain(self.failure.as_mut())
            .chain(self.goals.iter_mut().map(|(_, condition)| condition))
            .chain(self.points.iter_mut().map(|(_, condition)| condition));
        for condition in conditions {
            condition.renumber_bodies(renumber);
        }
    }
}

impl ChallengeModel {
    /// The sensors its conditions read (`sensor("bumper") > 0`), each once, in order.
    pub fn sensors_read(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        let conditions = std::iter::once(&self.success)
            .chain(self.failure.as_ref())
            .chain(self.goals.iter().map(|(_, condition)| condition))
            .chain(self.points.iter().map(|(_, condition)| condition));
        for condition in conditions {
            condition.sensors_read(&mut names);
        }
        names
    }
}

impl Condition {
    fn sensors_read<'a>(&'a self, names: &mut Vec<&'a str>) {
        match self {
            Condition::Event(Event::Sensor { name, .. }) if !names.contains(&name.as_str()) => names.push(name),
            Condition::Event(_) => {}
            Condition::And(a, b) | Condition::Or(a, b) | Condition::Then(a, b) => {
                a.sensors_read(names);
                b.sensors_read(names);
            }
            Condition::Not(inner) | Condition::Once(inner) => inner.sensors_read(names),
        }
    }
}

/// The body index of a body taken out of the model after a challenge named it: past
/// every body, so nothing ever touches it or finds it in a zone.
pub const GONE: usize = usize::MAX;

impl Condition {
    fn renumber_bodies(&mut self, renumber: impl Fn(usize) -> Option<usize> + Copy) {
        match self {
            Condition::Event(Event::Touched(Touchable::Body(body)) | Event::PushedInto { body, .. }) => {
                *body = renumber(*body).unwrap_or(GONE);
            }
            Condition::Event(Event::Touched(Touchable::Group { bodies, .. })) => {
                *bodies = bodies.iter().filter_map(|body| renumber(*body)).collect();
            }
            Condition::Event(_) => {}
            Condition::And(a, b) | Condition::Or(a, b) | Condition::Then(a, b) => {
                a.renumber_bodies(renumber);
                b.renumber_bodies(renumber);
            }
            Condition::Not(inner) | Condition::Once(inner) => inner.renumber_bodies(renumber),
        }
    }
}

/// A drawn, never solid region of the world that events test robots and objects against.
#[derive(Clone, Debug, PartialEq)]
pub struct ZoneModel {
    /// Its name in the challenge (unique among the challenge's zones).
    pub name: String,
    /// Its volume, centred on `pose`.
    pub shape: ZoneShape,
    /// Where its centre is and how it is turned.
    pub pose: Pose,
    /// How it is drawn.
    pub material: Material,
}

/// The volume of a zone, centred on its pose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ZoneShape {
    /// `box(width, height, length)`.
    Box {
        /// Half the width, height and length along the zone's X, Y and Z, metres.
        half_extents: [f32; 3],
    },
    /// `cylinder(radius, height)`: upright, its axis along the zone's Y.
    Cylinder {
        /// Metres.
        radius: f32,
        /// Half the height along the zone's Y, metres.
        half_height: f32,
    },
}

/// Where a robot starts an attempt.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StartPose {
    /// The robot's position, metres.
    pub position: [f32; 3],
    /// Its heading about the vertical axis, degrees.
    pub heading_deg: f32,
}

/// A condition on a run, true or false at each moment of it.
#[derive(Clone, Debug, PartialEq)]
pub enum Condition {
    /// One event.
    Event(Event),
    /// Both hold.
    And(Box<Condition>, Box<Condition>),
    /// Either holds.
    Or(Box<Condition>, Box<Condition>),
    /// It does not hold.
    Not(Box<Condition>),
    /// The second holds after the first has held (at any earlier moment).
    Then(Box<Condition>, Box<Condition>),
    /// True from the first moment it held on (latched).
    Once(Box<Condition>),
}

/// Something that holds or not at a moment of a run. Zones are indices into
/// [`ChallengeModel::zones`], bodies into [`SceneModel::bodies`](super::SceneModel::bodies).
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The robot came into the zone at this moment (it was outside just before).
    Entered {
        /// The zone.
        zone: usize,
    },
    /// The robot went out of the zone at this moment (it was inside just before).
    Left {
        /// The zone.
        zone: usize,
    },
    /// The robot is in the zone.
    Inside {
        /// The zone.
        zone: usize,
    },
    /// The robot has been in the zone, all but still, for `secs`.
    StoppedIn {
        /// The zone.
        zone: usize,
        /// How long, seconds.
        secs: f64,
    },
    /// The robot touches a body of the scene (or any of a group).
    Touched(Touchable),
    /// An object of the scene is in the zone.
    PushedInto {
        /// The object's body.
        body: usize,
        /// The zone.
        zone: usize,
    },
    /// The robot fell below the floor or off the world.
    Fell,
    /// The robot is upside down.
    Flipped,
    /// The robot has not moved 0.1 m in the last `secs`.
    NoProgress {
        /// How long, seconds.
        secs: f64,
    },
    /// A reading of one of the robot's sensors compared with a number.
    Sensor {
        /// The sensor's name as the challenge writes it (checked against the robot
        /// when an attempt starts).
        name: String,
        /// How the reading compares with `value`.
        comparison: Comparison,
        /// The number it is compared with.
        value: f64,
    },
    /// The run's simulation time compared with a number of seconds.
    Time {
        /// How the time compares with `secs`.
        comparison: Comparison,
        /// Seconds.
        secs: f64,
    },
}

/// What `touched(...)` names: one body, or every body of a group.
#[derive(Clone, Debug, PartialEq)]
pub enum Touchable {
    /// One body.
    Body(usize),
    /// A container, a robot or the environment's `walls`: touching any of its bodies counts.
    Group {
        /// The name as the challenge writes it.
        name: String,
        /// Its bodies.
        bodies: Vec<usize>,
    },
}

/// How a measured value compares with a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// `<`
    Less,
    /// `<=`
    LessOrEqual,
    /// `>`
    Greater,
    /// `>=`
    GreaterOrEqual,
    /// `==`
    Equal,
}

impl Comparison {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            Comparison::Less => "<",
            Comparison::LessOrEqual => "<=",
            Comparison::Greater => ">",
            Comparison::GreaterOrEqual => ">=",
            Comparison::Equal => "==",
        }
    }

    /// Whether `measured` compares with `value` this way.
    pub fn holds(self, measured: f64, value: f64) -> bool {
        match self {
            Comparison::Less => measured < value,
            Comparison::LessOrEqual => measured <= value,
            Comparison::Greater => measured > value,
            Comparison::GreaterOrEqual => measured >= value,
            Comparison::Equal => measured == value,
        }
    }
}

/// How an attempt is scored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ScoreRule {
    /// Seconds of simulation until success: lower is better.
    #[default]
    Time,
    /// The robot's final distance to the zone's centre, metres: lower is better.
    Distance {
        /// The zone.
        zone: usize,
    },
    /// The share of goals reached, 0 to 100: higher is better.
    Percent,
    /// The sum of the points whose condition happened: higher is better.
    Points,
}

/// The most seconds a challenge's `time_limit` may give: an hour of simulation.
pub const MAX_TIME_LIMIT_SECS: f64 = 3600.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_hold_as_written() {
        let cases = [
            (Comparison::Less, [true, false, false]),
            (Comparison::LessOrEqual, [true, true, false]),
            (Comparison::Greater, [false, false, true]),
            (Comparison::GreaterOrEqual, [false, true, true]),
            (Comparison::Equal, [false, true, false]),
        ];
        for (comparison, expected) in cases {
            assert_eq!([1.0, 2.0, 3.0].map(|measured| comparison.holds(measured, 2.0)), expected, "{comparison:?}");
        }
    }
}
