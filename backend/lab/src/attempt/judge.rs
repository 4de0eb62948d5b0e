//! A scene's challenge as an attempt's [`Judge`]: after every physics step it measures
//! the events of its conditions on one robot (where its main body is, what its bodies
//! touch, how it moves, what its sensors read) and says when the attempt is solved or
//! failed; at the end it gives the score its rule asks for (docs/challenges.md).
//!
//! Events that look back in time keep their own memory: `entered` and `left` compare
//! with the step before, `stopped_in` and `no_progress` count seconds, `then` and `once`
//! remember what has happened. Goals and points count once they have held.

use vlab_protocol::SensorValue;
use vlab_protocol::pose::{rotate, sub, unrotate};
use vlab_sim::robot::Robots;
use vlab_sim::scene::{
    ChallengeModel, Comparison, Condition, Event, Pose, SceneModel, ScoreRule, Touchable, ZoneShape,
};
use vlab_sim::sim::World;

use super::{AttemptStatus, Judge, Judgement};

/// Below this speed along the floor (m/s) a robot counts as stopped (`stopped_in`).
pub const STOPPED_SPEED: f32 = 0.05;
/// A robot that has not moved this far (m, along the floor) makes no progress.
pub const PROGRESS_METRES: f32 = 0.1;
/// A robot whose main body is this far below where it started has fallen (m).
pub const FALLEN_METRES: f32 = 0.5;
/// A zone reaches at least this far up from its bottom (m): a flat zone drawn on the
/// floor holds the robots and objects standing on it.
pub const ZONE_REACH_METRES: f32 = 1.0;

/// What a condition's node remembers from one step to the next.
#[derive(Clone, Debug, Default)]
struct Memory {
    /// Its value at the step before (`entered`, `left`), once it has one.
    before: Option<bool>,
    /// Since when (seconds) it has held without a break (`stopped_in`).
    since: Option<f64>,
    /// Whether it has ever held (`once`, the first half of `then`).
    happened: bool,
}

/// A condition with a memory per node, in the condition's own shape.
#[derive(Debug)]
struct Node {
    condition: Condition,
    memory: Memory,
    children: Vec<Node>,
}

impl Node {
    fn new(condition: &Condition) -> Node {
        let children = match condition {
            Condition::Event(_) => vec![],
            Condition::And(a, b) | Condition::Or(a, b) | Condition::Then(a, b) => vec![Node::new(a), Node::new(b)],
            Condition::Not(a) | Condition::Once(a) => vec![Node::new(a)],
        };
        Node { condition: condition.clone(), memory: Memory::default(), children }
    }

    /// Its value now. Every child is measured at every step, so memories never skip one.
    fn measure(&mut self, now: &mut Now) -> bool {
        let values: Vec<bool> = self.children.iter_mut().map(|child| child.measure(now)).collect();
        let memory = &mut self.memory;
        match &self.condition {
            Condition::Event(event) => now.event(event, memory),
            Condition::And(..) => values[0] && values[1],
            Condition::Or(..) => values[0] || values[1],
            Condition::Not(_) => !values[0],
            Condition::Once(_) => {
                memory.happened |= values[0];
                memory.happened
            }
            Condition::Then(..) => {
                // b counts only at a step after the one a first held at.
                let after = memory.happened && values[1];
                memory.happened |= values[0];
                after
            }
        }
    }
}

/// The robot's state at one step, for the events.
struct Now<'a> {
    time: f64,
    world: &'a World,
    robots: &'a Robots,
    robot: &'a str,
    main: usize,
    bodies: &'a [usize],
    zones: &'a [(ZoneShape, Pose)],
    start_y: f32,
    /// Where progress was last measured from: a position along the floor and its time.
    progress: &'a mut ([f32; 2], f64),
}

impl Now<'_> {
    fn position(&self, body: usize) -> [f32; 3] {
        self.world.pose(body).position
    }

    fn inside(&self, body: usize, zone: usize) -> bool {
        // A body taken out of the world since the challenge named it is nowhere.
        if body >= self.world.body_count() {
            return false;
        }
        let (shape, pose) = self.zones[zone];
        let local = unrotate(pose.rotation, sub(self.position(body), pose.position));
        let half_height = match shape {
            ZoneShape::Box { half_extents } => half_extents[1],
            ZoneShape::Cylinder { half_height, .. } => half_height,
        };
        let top = half_height.max(ZONE_REACH_METRES - half_height);
        let within_height = local[1] >= -half_height && local[1] <= top;
        within_height
            && match shape {
                ZoneShape::Box { half_extents: h } => local[0].abs() <= h[0] && local[2].abs() <= h[2],
                ZoneShape::Cylinder { radius, .. } => local[0].hypot(local[2]) <= radius,
            }
    }

    /// Its speed along the floor (a robot standing still rocks a little on its wheels).
    fn speed(&self) -> f32 {
        let [x, _, z] = self.world.linear_velocity(self.main);
        x.hypot(z)
    }

    fn touched(&self, what: &Touchable) -> bool {
        let others: &[usize] = match what {
            Touchable::Body(body) => std::slice::from_ref(body),
            Touchable::Group { bodies, .. } => bodies,
        };
        self.bodies.iter().any(|&own| others.iter().any(|&other| self.world.touches(own, other)))
    }

    fn sensor(&self, name: &str) -> Option<f64> {
        let sensor = self.robots.get(self.robot)?.sensors().iter().find(|s| s.name() == name)?;
        match &sensor.last()?.measured {
            SensorValue::Scalar { value } => Some(*value),
            SensorValue::Ticks { ticks, .. } => Some(*ticks as f64),
            SensorValue::Joint { position, .. } => Some(*position),
            _ => None,
        }
    }

    fn event(&mut self, event: &Event, memory: &mut Memory) -> bool {
        match event {
            Event::Inside { zone } => self.inside(self.main, *zone),
            Event::Entered { zone } => edge(self.inside(self.main, *zone), memory, true),
            Event::Left { zone } => edge(self.inside(self.main, *zone), memory, false),
            Event::StoppedIn { zone, secs } => {
                let holds = self.inside(self.main, *zone) && self.speed() < STOPPED_SPEED;
                held_for(holds, self.time, *secs, memory)
            }
            Event::Touched(what) => self.touched(what),
            Event::PushedInto { body, zone } => self.inside(*body, *zone),
            Event::Fell => self.position(self.main)[1] < self.start_y - FALLEN_METRES,
            Event::Flipped => rotate(self.world.pose(self.main).rotation, [0.0, 1.0, 0.0])[1] < 0.0,
            Event::NoProgress { secs } => {
                let [x, _, z] = self.position(self.main);
                let (from, _) = *self.progress;
                if (x - from[0]).hypot(z - from[1]) >= PROGRESS_METRES {
                    *self.progress = ([x, z], self.time);
                }
                self.time - self.progress.1 >= *secs
            }
            Event::Sensor { name, comparison, value } => {
                self.sensor(name).is_some_and(|reading| compare(reading, *comparison, *value))
            }
            Event::Time { comparison, secs } => compare(self.time, *comparison, *secs),
        }
    }
}

/// `true` at the step `value` turned `to` from the other. A robot that starts in a
/// zone has not entered it: the first step only sets where it was.
fn edge(value: bool, memory: &mut Memory, to: bool) -> bool {
    let turned = value == to && memory.before == Some(!to);
    memory.before = Some(value);
    turned
}

/// Whether `holds` has held without a break for `secs` up to `time`.
fn held_for(holds: bool, time: f64, secs: f64, memory: &mut Memory) -> bool {
    if !holds {
        memory.since = None;
        return false;
    }
    let since = *memory.since.get_or_insert(time);
    time - since >= secs - 1e-9
}

fn compare(a: f64, comparison: Comparison, b: f64) -> bool {
    match comparison {
        Comparison::Less => a < b,
        Comparison::LessOrEqual => a <= b,
        Comparison::Greater => a > b,
        Comparison::GreaterOrEqual => a >= b,
        Comparison::Equal => (a - b).abs() < 1e-9,
    }
}

/// A challenge judging one robot.
pub struct ChallengeJudge {
    robot: String,
    main: usize,
    bodies: Vec<usize>,
    zones: Vec<(ZoneShape, Pose)>,
    score_rule: ScoreRule,
    success: Node,
    failure: Option<Node>,
    /// Each goal, and whether it has been reached.
    goals: Vec<(Node, bool)>,
    /// Each `points` line, and whether its condition has happened.
    points: Vec<(f64, Node, bool)>,
    start_y: Option<f32>,
    progress: Option<([f32; 2], f64)>,
    /// The robot's distance to the score's zone at the last step.
    distance: Option<f64>,
    solved_at: Option<f64>,
    /// Each zone's name, and whether the robot was in it at the last step.
    zone_names: Vec<(String, Option<bool>)>,
    goal_names: Vec<String>,
    /// What happened since the replay last asked.
    events: Vec<(f64, String)>,
}

impl ChallengeJudge {
    /// `challenge` judging robot `robot` of `model`; `None` when the model has no such robot.
    pub fn new(challenge: &ChallengeModel, model: &SceneModel, robot: &str) -> Option<ChallengeJudge> {
        let main = model.robots.iter().find(|r| r.name == robot)?.main_body;
        let bodies = (0..model.bodies.len()).filter(|&i| model.bodies[i].robot.as_deref() == Some(robot)).collect();
        Some(ChallengeJudge {
            robot: robot.to_owned(),
            main,
            bodies,
            zones: challenge.zones.iter().map(|zone| (zone.shape, zone.pose)).collect(),
            score_rule: challenge.score,
            success: Node::new(&challenge.success),
            failure: challenge.failure.as_ref().map(Node::new),
            goals: challenge.goals.iter().map(|(_, goal)| (Node::new(goal), false)).collect(),
            points: challenge.points.iter().map(|(points, when)| (*points, Node::new(when), false)).collect(),
            start_y: None,
            progress: None,
            distance: None,
            solved_at: None,
            zone_names: challenge.zones.iter().map(|zone| (zone.name.clone(), None)).collect(),
            goal_names: challenge.goals.iter().map(|(name, _)| name.clone()).collect(),
            events: Vec::new(),
        })
    }

    /// The score of an attempt that ended with `status`, by the challenge's rule: `None`
    /// where the rule gives none (the time of an attempt that did not solve it).
    pub fn challenge_score(&self, status: &AttemptStatus) -> Option<f64> {
        match self.score_rule {
            ScoreRule::Time => self.solved_at.filter(|_| *status == AttemptStatus::Solved),
            ScoreRule::Distance { .. } => self.distance,
            ScoreRule::Percent if self.goals.is_empty() => None,
            ScoreRule::Percent => {
                let reached = self.goals.iter().filter(|(_, reached)| *reached).count();
                Some(100.0 * reached as f64 / self.goals.len() as f64)
            }
            ScoreRule::Points => {
                Some(self.points.iter().filter(|(_, _, happened)| *happened).map(|(points, ..)| points).sum())
            }
        }
    }
}

impl Judge for ChallengeJudge {
    fn after_step(&mut self, _step: u64, time: f64, world: &World, robots: &Robots) -> Option<Judgement> {
        let here = world.pose(self.main).position;
        let start_y = *self.start_y.get_or_insert(here[1]);
        let mut progress = *self.progress.get_or_insert(([here[0], here[2]], time));
        let mut now = Now {
            time,
            world,
            robots,
            robot: &self.robot,
            main: self.main,
            bodies: &self.bodies,
            zones: &self.zones,
            start_y,
            progress: &mut progress,
        };
        if let ScoreRule::Distance { zone } = self.score_rule {
            let centre = self.zones[zone].1.position;
            let d: f32 = (0..3).map(|i| (here[i] - centre[i]).powi(2)).sum::<f32>().sqrt();
            self.distance = Some(f64::from(d));
        }
        for (zone, (name, was_in)) in self.zone_names.iter_mut().enumerate() {
            let is_in = now.inside(self.main, zone);
            match (*was_in, is_in) {
                (Some(false), true) => self.events.push((time, format!("entered {name}"))),
                (Some(true), false) => self.events.push((time, format!("left {name}"))),
                (None, true) => self.events.push((time, format!("starts in {name}"))),
                _ => {}
            }
            *was_in = Some(is_in);
        }
        for ((goal, reached), name) in self.goals.iter_mut().zip(&self.goal_names) {
            let was = *reached;
            *reached |= goal.measure(&mut now);
            if *reached && !was {
                self.events.push((time, format!("goal {name} reached")));
            }
        }
        for (points, when, happened) in &mut self.points {
            let was = *happened;
            *happened |= when.measure(&mut now);
            if *happened && !was {
                self.events.push((time, format!("+{points} points")));
            }
        }
        let failed = self.failure.as_mut().is_some_and(|failure| failure.measure(&mut now));
        let solved = self.success.measure(&mut now);
        self.progress = Some(progress);
        if solved {
            self.solved_at = Some(time);
            return Some(Judgement::Solved);
        }
        failed.then(|| Judgement::Failed(format!("the challenge's failure happened at {time:.2} s")))
    }

    fn score(&self, status: &AttemptStatus) -> Option<f64> {
        self.challenge_score(status)
    }

    fn take_events(&mut self) -> Vec<(f64, String)> {
        std::mem::take(&mut self.events)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vlab_sim::scene::{MapLoader, Options, interpret};

    /// A cart at x = 2 on a 20 × 20 floor, its DiffDrive `base`, and `challenge`.
    pub(super) fn cart_with(challenge: &str) -> SceneModel {
        let source = format!(
            r#"
            environment wallrect {{ width 20; length 20; height 0.5; gravity -9.81; }}
            robot cart {{
              body {{
                chassis {{ shape box(0.4, 0.1, 0.3); pos(2, 0.08, 10); density 500; }}
                wheel_l {{ shape cylinder(0.05, 0.02); pos(2, 0.05, 10.17); density 800; }}
                wheel_r {{ shape cylinder(0.05, 0.02); pos(2, 0.05, 9.83); density 800; }}
                caster {{ shape sphere(0.03); pos(2.15, 0.03, 10); density 500; friction 0; }}
                JointHinge(chassis, wheel_l) {{ anchor(2, 0.05, 10.17); axis(0, 0, 1); SimpleMotor m_l; }}
                JointHinge(chassis, wheel_r) {{ anchor(2, 0.05, 9.83); axis(0, 0, 1); SimpleMotor m_r; }}
                JointBall(chassis, caster) {{ anchor(2.15, 0.03, 10); }}
                DiffDrive base {{ left "m_l"; right "m_r"; wheel_radius 0.05; track 0.34; }}
              }}
            }}
            {challenge}
        "#
        );
        interpret(&source, "cart.vlab", &MapLoader::new(), &Options::default())
            .unwrap_or_else(|e| panic!("{}", e[0]))
            .model
    }

    /// Drives the cart at `v` m/s for at most `secs` under the model's challenge: how
    /// the judge ended it (if it did), when, and the judge.
    fn drive(model: &SceneModel, v: f64, secs: f64) -> (Option<Judgement>, f64, ChallengeJudge) {
        let challenge = model.challenge.as_ref().expect("a challenge");
        let mut judge = ChallengeJudge::new(challenge, model, "cart").expect("the cart");
        let mut world = World::build(model).unwrap();
        let mut robots = Robots::configure(model, 1).unwrap();
        robots.install(&mut world, 0, 0.0);
        let commands = serde_json::from_value(serde_json::json!({ "base": { "v": v, "omega": 0.0 } })).unwrap();
        robots.command("cart", &commands).expect("the cart").expect("its drive takes v and omega");
        let dt = model.dt_secs;
        for step in 1..=(secs / dt).round() as u64 {
            robots.apply_actuators(&mut world);
            world.step();
            let time = step as f64 * dt;
            robots.update_sensors(&world, step, time);
            if let Some(judgement) = judge.after_step(step, time, &world, &robots) {
                return (Some(judgement), time, judge);
            }
        }
        (None, secs, judge)
    }

    #[test]
    fn standing_in_the_bay_for_its_seconds_solves_it_and_the_time_is_the_score() {
        let model = cart_with(
            r#"challenge "park" { time_limit 10; zone bay { box(1, 0.5, 1); pos(2, 0, 10); }
               success stopped_in(bay, 0.5); }"#,
        );
        let (judgement, time, judge) = drive(&model, 0.0, 5.0);
        assert_eq!(judgement, Some(Judgement::Solved));
        assert!((0.5..1.0).contains(&time), "solved at {time} s: still in the bay for 0.5 s");
        assert_eq!(judge.challenge_score(&AttemptStatus::Solved), Some(time));
    }

    #[test]
    fn a_flat_zone_on_the_floor_holds_the_robot_standing_on_it() {
        let model = cart_with(
            r#"challenge "flat" { time_limit 10; zone pad { box(1, 0.02, 1); pos(2, 0, 10); }
               success inside(pad); }"#,
        );
        assert_eq!(drive(&model, 0.0, 0.1).0, Some(Judgement::Solved), "the chassis at y = 0.08 is on the pad");
        let high = cart_with(
            r#"challenge "high" { time_limit 10; zone shelf { box(1, 0.02, 1); pos(2, 1.5, 10); }
               success inside(shelf); }"#,
        );
        assert_eq!(drive(&high, 0.0, 0.1).0, None, "a zone in the air holds nothing on the floor");
    }

    #[test]
    fn starting_in_a_zone_is_not_entering_it() {
        let model = cart_with(
            r#"challenge "already there" { time_limit 10; zone pad { box(1, 0.5, 1); pos(2, 0, 10); }
               success entered(pad); failure left(pad); }"#,
        );
        assert_eq!(drive(&model, 0.0, 1.0).0, None, "it stood in the pad from the start");
        let (judgement, time, _) = drive(&model, 0.5, 5.0);
        assert!(matches!(judgement, Some(Judgement::Failed(_))), "driving out of it is leaving: {judgement:?}");
        assert!((0.5..2.0).contains(&time), "{time}");
    }

    #[test]
    fn driving_through_a_gate_enters_then_leaves_it() {
        let model = cart_with(
            r#"challenge "gate" { time_limit 10; zone gate { box(0.2, 1, 2); pos(3, 0, 10); }
               success entered(gate) then left(gate); }"#,
        );
        let (judgement, time, _) = drive(&model, 0.5, 8.0);
        assert_eq!(judgement, Some(Judgement::Solved));
        // The chassis' centre crosses x = 2.9 .. 3.1 from x = 2 at 0.5 m/s.
        assert!((2.0..3.5).contains(&time), "left the gate at {time} s");
    }

    #[test]
    fn hitting_a_wall_or_standing_still_is_a_failure() {
        let walls = cart_with(
            r#"challenge "walls" { time_limit 60; zone far { box(1, 1, 1); pos(30, 0, 10); }
               success inside(far); failure touched(walls); }"#,
        );
        let (judgement, time, _) = drive(&walls, 1.0, 30.0);
        assert!(matches!(judgement, Some(Judgement::Failed(_))), "{judgement:?}");
        assert!(time > 10.0, "the wall at x = 20 is 18 m away: {time} s");
        let idle = cart_with(
            r#"challenge "idle" { time_limit 60; zone far { box(1, 1, 1); pos(30, 0, 10); }
               success inside(far); failure no_progress(2); }"#,
        );
        let (judgement, time, _) = drive(&idle, 0.0, 10.0);
        assert!(matches!(judgement, Some(Judgement::Failed(_))), "{judgement:?}");
        assert!((2.0..2.1).contains(&time), "no progress for 2 s: {time}");
    }

    #[test]
    fn goals_points_and_distance_count_what_happened() {
        let model = cart_with(
            r#"challenge "goals" { time_limit 3;
               zone near { box(1, 1, 2); pos(3, 0, 10); } zone far { box(1, 1, 1); pos(15, 0, 10); }
               success time() >= 100; goal "near" inside(near); goal "far" inside(far);
               score percent; }"#,
        );
        let (judgement, _, judge) = drive(&model, 0.5, 3.0);
        assert_eq!(judgement, None, "time ran out");
        assert_eq!(judge.challenge_score(&AttemptStatus::TimedOut), Some(50.0), "one goal of two");
        let points = cart_with(
            r#"challenge "points" { time_limit 3;
               zone near { box(1, 1, 2); pos(3, 0, 10); } zone far { box(1, 1, 1); pos(15, 0, 10); }
               success time() >= 100; points 3 when inside(near); points 5 when inside(far);
               score points; }"#,
        );
        assert_eq!(drive(&points, 0.5, 3.0).2.challenge_score(&AttemptStatus::TimedOut), Some(3.0));
        let distance = cart_with(
            r#"challenge "distance" { time_limit 3; zone far { box(1, 1, 1); pos(15, 0, 10); }
               success time() >= 100; score distance(far); }"#,
        );
        let score = drive(&distance, 0.0, 1.0).2.challenge_score(&AttemptStatus::TimedOut).expect("a distance");
        assert!((score - 13.0).abs() < 0.1, "from x = 2 to the zone's centre at x = 15: {score}");
        assert_eq!(drive(&model, 0.0, 0.5).2.challenge_score(&AttemptStatus::TimedOut), Some(0.0), "no goal reached");
    }
}
