//! A stable, readable text form of a model, for golden tests and debugging.
//!
//! Hand-rolled rather than `{:#?}` or a snapshot crate: numbers are rounded to 4
//! decimals so the golden files do not churn on the last bit of a float, one element
//! per line keeps diffs small, and no extra dependency has to build for wasm.

use std::fmt::Write;

use crate::model::{JointKind, Motion, Mount, ParamValue, SceneModel, Shape};

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
    out
}
