//! A stable, readable text form of a model, for golden tests and debugging.
//!
//! Hand-rolled rather than `{:#?}` or a snapshot crate: numbers are rounded to 4
//! decimals so the golden files do not churn on the last bit of a float, one element
//! per line keeps diffs small, and no extra dependency has to build for wasm.

use std::fmt::Write;

use crate::model::{
    ChallengeModel, Condition, Event, JointKind, Motion, Mount, ParamValue, SceneModel, ScoreRule, Shape, Touchable,
    ZoneShape,
};

fn n(x: f32) -> String {
    let r = (x as f64 * 10_000.0).round() / 10_000.0;
    let r = if r == 0.0 { 0.0 } else { r };
    format!("{r}")
}

fn v(xs: &[f32]) -> String {
    let parts: Vec<String> = xs.iter().map(|x| n(*x)).collect();
    format!("({})", parts.join(", "))
}

fn shape(s: &Shape) -> String {
    match s {
        Shape::Box { half_extents } => format!("box half{}", v(half_extents)),
        Shape::Sphere { radius } => format!("sphere r={}", n(*radius)),
        Shape::Cylinder { radius, half_length } => format!("cylinder r={} half_len={}", n(*radius), n(*half_length)),
        Shape::Capsule { radius, half_length } => format!("capsule r={} half_len={}", n(*radius), n(*half_length)),
        Shape::ConvexHull { points } => format!("hull of {} points", points.len()),
    }
}

/// The model as text, one element per line.
pub fn dump(model: &SceneModel) -> String {
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, "sky {:?} gravity {} dt {}", model.sky, n(model.gravity_y), model.dt_secs);
    if let Some(env) = &model.environment {
        let _ = writeln!(
            w,
            "environment {:?} {}x{}x{} sky={} ground={} walls={} ceiling={} erp={:?} cfm={:?}",
            env.kind,
            n(env.width),
            n(env.length),
            n(env.height),
            env.sky.name,
            env.ground.name,
            env.walls.name,
            env.ceiling.name,
            env.erp,
            env.cfm
        );
    }
    for (i, body) in model.bodies.iter().enumerate() {
        let motion = if body.motion == Motion::Fixed { " static" } else { "" };
        let robot = body.robot.as_ref().map(|r| format!(" robot={r}")).unwrap_or_default();
        let _ = writeln!(
            w,
            "body #{i} {}{motion}{robot} at {} rot {}",
            body.name,
            v(&body.pose.position),
            v(&body.pose.rotation)
        );
        for part in &body.parts {
            let name = part.name.as_ref().map(|p| format!("{p}: ")).unwrap_or_default();
            let mesh = part.mesh.as_ref().map(|m| format!(" mesh={}x{}", m.file, n(m.scale))).unwrap_or_default();
            let _ = writeln!(
                w,
                "  part {name}{} at {} rot {} {} density={}{mesh}",
                shape(&part.shape),
                v(&part.local.position),
                v(&part.local.rotation),
                part.material.name,
                n(part.density)
            );
        }
    }
    for joint in &model.joints {
        let kind = match &joint.kind {
            JointKind::Hinge { anchor, axis, motor } => {
                let motor =
                    motor.map(|m| format!(" motor({}, {})", n(m.target_velocity), n(m.max_force))).unwrap_or_default();
                format!("anchor {} axis {}{motor}", v(anchor), v(axis))
            }
            JointKind::Ball { anchor } => format!("anchor {}", v(anchor)),
            JointKind::Slider { axis } => format!("axis {}", v(axis)),
            JointKind::Universal { anchor, axis, axis2 }
            | JointKind::Hinge2 { anchor, axis, axis2 }
            | JointKind::PrismaticRotoide { anchor, axis, axis2 }
            | JointKind::PrismaticUniversal { anchor, axis, axis2 } => {
                format!("anchor {} axis {} axis2 {}", v(anchor), v(axis), v(axis2))
            }
            JointKind::Fixed => String::new(),
            JointKind::Piston { anchor, axis } | JointKind::Planar { anchor, axis } => {
                format!("anchor {} axis {}", v(anchor), v(axis))
            }
        };
        let _ = writeln!(
            w,
            "joint {} {} #{}-#{} {kind} erp={:?} cfm={:?}{}",
            joint.name,
            joint.kind.language_name(),
            joint.body1,
            joint.body2,
            joint.erp,
            joint.cfm,
            if joint.bodies_touch { " collide" } else { "" }
        );
    }
    for group in &model.groups {
        let _ = writeln!(w, "container {} [{}]", group.name, group.members.join(", "));
    }
    for robot in &model.robots {
        let program = robot.program.as_ref().map(|p| format!(" code={} {:?}", p.file, p.project)).unwrap_or_default();
        let rate = robot.program_rate.map(|rate| format!(" program_rate={}", rate.word())).unwrap_or_default();
        let _ = writeln!(w, "robot {} main=#{}{program}{rate}", robot.name, robot.main_body);
    }
    for (what, devices) in [("sensor", &model.sensors), ("actuator", &model.actuators)] {
        for d in devices {
            let mount = match d.mount {
                Mount::Body(i) => format!("body #{i}"),
                Mount::Joint(i) => format!("joint #{i}"),
                Mount::Robot => "robot".into(),
            };
            let params: Vec<String> = d
                .params
                .iter()
                .map(|(k, value)| match value {
                    ParamValue::Num(x) => format!("{k}={x}"),
                    ParamValue::Str(s) => format!("{k}={s:?}"),
                    ParamValue::Bool(b) => format!("{k}={b}"),
                    ParamValue::Nums(xs) => format!("{k}={xs:?}"),
                })
                .collect();
            let robot = d.robot.as_deref().unwrap_or("-");
            let _ = writeln!(w, "{what} {} {} robot={robot} on {mount} {{{}}}", d.kind, d.name, params.join(", "));
        }
    }
    if let Some(challenge) = &model.challenge {
        dump_challenge(w, challenge, model);
    }
    out
}

fn dump_challenge(w: &mut String, challenge: &ChallengeModel, model: &SceneModel) {
    let score = match challenge.score {
        ScoreRule::Time => "time".to_owned(),
        ScoreRule::Distance { zone } => format!("distance({})", challenge.zones[zone].name),
        ScoreRule::Percent => "percent".to_owned(),
        ScoreRule::Points => "points".to_owned(),
    };
    let _ =
        writeln!(w, "challenge {:?} time_limit {} score {score}", challenge.title, n(challenge.time_limit_secs as f32));
    for (i, zone) in challenge.zones.iter().enumerate() {
        let shape = match zone.shape {
            ZoneShape::Box { half_extents } => format!("box half{}", v(&half_extents)),
            ZoneShape::Cylinder { radius, half_height } => {
                format!("cylinder r={} half_height={}", n(radius), n(half_height))
            }
        };
        let (at, rot) = (v(&zone.pose.position), v(&zone.pose.rotation));
        let _ = writeln!(w, "  zone #{i} {} {shape} at {at} rot {rot} {}", zone.name, zone.material.name);
    }
    if let Some(start) = &challenge.start {
        let _ = writeln!(w, "  start at {} heading {}", v(&start.position), n(start.heading_deg));
    }
    let text = |c: &Condition| condition(c, challenge, model);
    let _ = writeln!(w, "  success {}", text(&challenge.success));
    if let Some(failure) = &challenge.failure {
        let _ = writeln!(w, "  failure {}", text(failure));
    }
    for (name, goal) in &challenge.goals {
        let _ = writeln!(w, "  goal {name:?} {}", text(goal));
    }
    for (points, when) in &challenge.points {
        let _ = writeln!(w, "  points {points} when {}", text(when));
    }
}

/// A condition with every combination in parentheses, zones by name, bodies by index.
fn condition(c: &Condition, challenge: &ChallengeModel, model: &SceneModel) -> String {
    let text = |c: &Condition| condition(c, challenge, model);
    let zone = |i: usize| challenge.zones[i].name.clone();
    let body = |i: usize| format!("#{i} {}", model.bodies[i].name);
    match c {
        Condition::Event(event) => match event {
            Event::Entered { zone: z } => format!("entered({})", zone(*z)),
            Event::Left { zone: z } => format!("left({})", zone(*z)),
            Event::Inside { zone: z } => format!("inside({})", zone(*z)),
            Event::StoppedIn { zone: z, secs } => format!("stopped_in({}, {secs})", zone(*z)),
            Event::Touched(Touchable::Body(b)) => format!("touched({})", body(*b)),
            Event::Touched(Touchable::Group { name, bodies }) => {
                let bodies: Vec<String> = bodies.iter().map(|b| format!("#{b}")).collect();
                format!("touched({name} [{}])", bodies.join(", "))
            }
            Event::PushedInto { body: b, zone: z } => format!("pushed_into({}, {})", body(*b), zone(*z)),
            Event::Fell => "fell()".to_owned(),
            Event::Flipped => "flipped()".to_owned(),
            Event::NoProgress { secs } => format!("no_progress({secs})"),
            Event::Sensor { name, comparison, value } => format!("sensor({name}) {} {value}", comparison.symbol()),
            Event::Time { comparison, secs } => format!("time() {} {secs}", comparison.symbol()),
        },
        Condition::And(a, b) => format!("({} and {})", text(a), text(b)),
        Condition::Or(a, b) => format!("({} or {})", text(a), text(b)),
        Condition::Then(a, b) => format!("({} then {})", text(a), text(b)),
        Condition::Not(a) => format!("not {}", text(a)),
        Condition::Once(a) => format!("once({})", text(a)),
    }
}
